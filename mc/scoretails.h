/* scoretails.h: the score of a query against its own (aligned) key after a
 * route, s = q^T P_n q, for m fixed orthonormal queries per route, with tail
 * frequencies P(|s| >= t) on a grid of t (claim 2, `routelab concentration`).
 *
 * The key is aligned with the query on purpose: with an independent uniform
 * key, P k would be uniform on the sphere for ANY orthogonal P (even P = I),
 * and the Beta law would hold trivially.  Aligned, the score starts at 1 and
 * only transport brings it down.
 *
 * Routes: dense families walk a chain (chain.h) tracking the m queries, so the
 * rows are P^T q_i and s_i = <P^T q_i, q_i> = q_i^T P q_i; SO(2) families keep
 * only the accumulated angles, s = sum_b a_b cos Phi_b with a_b = |q_b|^2
 * (so2score.h); "sphere" replaces Haar transport by its exact equivalent, P k
 * uniform on the sphere (rl_unit_vector), for large d.  Replicate k draws from
 * stream (seed, key(tag, k)); results are stored per replicate, so they do not
 * depend on the number of threads. */
#ifndef RL_SCORETAILS_H
#define RL_SCORETAILS_H

#include <stdint.h>

#include "../sampling/family.h"
#include "../base/core/err.h"
#include "tails.h"

#define RL_ST_MAXT 64

typedef enum { RL_ST_CHAIN, RL_ST_SPHERE, RL_ST_SO2 } rl_st_kind;

typedef struct {
    rl_st_kind kind;
    rl_family f; /* the step family (RL_ST_SPHERE: only f.d is used) */
    long n;      /* route length */
} rl_st_spec;

/* Two fixed SO(2) query configurations (q = k unit, weights a_b = |q_b|^2):
 * spread evenly over the d/2 blocks, or over the last quarter of the blocks
 * (the lowest frequencies, omega_b = base^{-2b/d}). */
enum { RL_CFG_SPREAD, RL_CFG_LOW, RL_NCFG };
extern const char *const rl_st_cfg_name[RL_NCFG];
void rl_st_cfg_weights(int cfg, int d, double *a);

typedef struct {
    long reps;
    int m, nt;
    double t[RL_ST_MAXT];
    rl_tails *abs;        /* |s_i| */
    rl_tails *dir;        /* |s_i| / |P^T q_i| (the direction; = abs for orthogonal steps) */
    rl_tails *cen;        /* SO(2): |s_i - E s_i| */
    rl_tails *cfg_abs[RL_NCFG], *cfg_cen[RL_NCFG]; /* SO(2): the two configurations */
    double *mean, *sq, *nrm2;  /* per replicate: averages over its m queries of s, s^2, |P^T q|^2 */
    double *cfg_s[RL_NCFG];    /* SO(2), per replicate: the configuration scores */
    double *Es;                /* SO(2): E s_i of each query (exact) */
    double Ecfg[RL_NCFG];      /* SO(2): E s of each configuration */
} rl_st_cell;

/* m fixed orthonormal queries in R^d (row-major): Gram-Schmidt of m Gaussian
 * vectors, i.e. m rows of a Haar matrix in law, from stream (seed, key(0xC0C0, d)). */
double *rl_st_queries(uint64_t seed, int d, int m);

/* reps routes of sp with the m queries Q (m x d); thresholds t[0..nt-1]
 * increasing (nt <= RL_ST_MAXT, m <= 65535: else RL_EINPUT, c left empty).
 * A failed draw (sampling/steps.h) is returned as its status, c left empty
 * (RL_ENOMEM too when a thread's workspace cannot be allocated). */
rl_status rl_st_run(const rl_st_spec *sp, const double *t, int nt, long reps, int m, const double *Q,
                    uint64_t seed, uint64_t tag, rl_st_cell *c, rl_err *err);
void rl_st_free(rl_st_cell *c);

#endif
