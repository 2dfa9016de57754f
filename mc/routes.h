/* routes.h: Monte Carlo of route products P_n = M_n ... M_1 at a grid of
 * lengths n, for any step family: the mean E[P_n] (per SO(2) block, or as a
 * matrix), the coherence E[q^T P_n q] and its second moment E[(q^T P_n q)^2]
 * for a uniform random unit q drawn afresh for every route. */
#ifndef RL_ROUTES_H
#define RL_ROUTES_H

#include <complex.h>
#include "../base/core/err.h"
#include "../sampling/family.h"

/* n = 1, 2, ..., dense_to, then about per_octave points per doubling up to
 * nmax (always including nmax), into g, which holds rl_route_grid_cap
 * entries (the grid's bound on its length); returns the count. */
long rl_route_grid_cap(long dense_to, int per_octave);
int rl_route_grid_fill(long nmax, long dense_to, int per_octave, long *g);
/* The same grid in a malloc'ed array, count in *ng: the command layer's
 * convenience (it ends the process when memory runs out, rl_xmalloc). */
long *rl_route_grid(long nmax, long dense_to, int per_octave, int *ng);

typedef struct {
    int ng;            /* grid points */
    long *n;           /* route lengths (copy of the grid) */
    long reps;         /* routes drawn */
    int nb;            /* SO(2): d/2 blocks; else 0 */
    /* per grid point g: */
    double *tr, *tr_se;          /* tr(P_n)/d, the scalar E[P_n] = cI estimate */
    double *op;                  /* ||mean of P_n||_op by SVD (dense matrix estimate) */
    double *coh, *coh_se;        /* q^T P_n q */
    double *sq, *sq_se;          /* (q^T P_n q)^2 */
    /* SO(2), per grid point g and block b at [g * nb + b]: */
    double complex *chi;         /* mean of e^{i Phi_b} */
    double *chi_se;              /* standard error of its modulus (conservative) */
} rl_route_stats;

/* Draw `reps` routes of the family up to the grid's last length, with
 * replicate k on stream (seed, key(tag, k)).  Deterministic for any thread
 * count (replicates summed in fixed chunks, chunks in order).  token-so2
 * routes read tokens[start + t] with start drawn uniformly in
 * [0, ntok - nmax] (ntok >= nmax).  RL_OK with the statistics in *out, or
 * the failure of a draw (LAPACK: RL_EINTERNAL; a token outside the family's
 * table: RL_EINPUT), RL_ENOMEM when memory runs out or RL_ECANCEL when the
 * caller asked to stop (rl_cancelled: read between chunks, every 1024 steps
 * of a route and before each grid point's SVD), with *out = NULL: a failed
 * route never reaches a mean. */
rl_status rl_routes_run(const rl_family *f, const long *grid, int ng, long reps, unsigned long seed,
                        unsigned long tag, const int *tokens, long ntok, rl_route_stats **out, rl_err *err);
void rl_route_stats_free(rl_route_stats *s);

#endif
