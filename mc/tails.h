/* tails.h: tail frequencies P(|s| >= t) on a grid of thresholds, estimated
 * from Monte Carlo replicates that each contribute m scores.
 *
 * The m scores of one replicate share a route and may be dependent, so two
 * standard errors are kept: the binomial one, sqrt(p(1-p)/(N m)), exact when
 * the N m scores are independent, and the cluster one, from the spread of the
 * per-replicate frequencies c_r/m over the N independent replicates, right
 * whatever the dependence inside a replicate.  Checks use the larger. */
#ifndef RL_TAILS_H
#define RL_TAILS_H

#include "../base/core/err.h"

typedef struct {
    int nt, m;
    long reps;
    double *t;           /* nt thresholds */
    unsigned short *cnt; /* reps x nt: scores of replicate r with |s| >= t_k */
} rl_tails;

typedef struct {
    double p;          /* frequency over all N m scores */
    double se_binom;   /* sqrt(p(1-p)/(N m)) */
    double se_cluster; /* from the N per-replicate frequencies */
    double se;         /* the larger */
    long n;            /* N m */
} rl_tail_est;

/* Counts for reps replicates of m scores each (m <= 65535: the counts are
 * 16-bit) at the nt thresholds t; *out is NULL on failure (RL_EINPUT). */
rl_status rl_tails_alloc(const double *t, int nt, long reps, int m, rl_tails **out, rl_err *err);
void rl_tails_free(rl_tails *T);

/* Record replicate rep's scores s[0..m-1] (m <= T->m; a thread-safe write to
 * rep's own row).  Counts |s_i| >= t_k. */
void rl_tails_add(rl_tails *T, long rep, const double *s, int m);

/* The estimate at threshold k (replicates summed in order). */
rl_tail_est rl_tails_est(const rl_tails *T, int k);

/* Standard error for a comparison with a predicted frequency p0: the larger of
 * the cluster SE and the binomial SE at p0 (which stays positive when no score
 * exceeded the threshold). */
double rl_tail_se_at(const rl_tail_est *e, double p0);

/* Whether a test of e against p0 is in the normal regime: at least 10
 * expected scores on each side of the threshold. */
int rl_tail_testable(const rl_tail_est *e, double p0);

#endif
