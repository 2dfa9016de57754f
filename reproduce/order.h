/* order.h: the study's orderings decided on seed-level statistics.
 *
 * Seeds are the replication unit: each seed's models of every variant share
 * their initial weights (where shapes coincide), their batches and their
 * evaluation windows, so a comparison between two variants is a paired
 * difference within each seed; its mean and standard error across seeds
 * are decided by a rule of the claims table (experiments/claims.c), never
 * by a threshold written here.  One seed has no seed SE: every decision is
 * then unresolved, never a hold. */
#ifndef RL_ORDER_H
#define RL_ORDER_H

#include "../report/verdict.h"

typedef struct {
    int k;        /* seeds that entered (a NaN value makes the decision unresolved) */
    double mean;  /* mean across seeds of the per-seed statistic */
    double se;    /* its standard error, sd / sqrt(k); NaN when k < 2 */
    double x;     /* what the rule reads: t = mean / se, or (mean - threshold) / se, as the
                   * normal quantile of its Student tail (k - 1 df; rl_effect_z_repeats) */
    const char *rule; /* the rule's id in the claims table */
    rl_verdict v; /* holds, contradicted or unresolved */
} rl_order;

/* Mean and standard error (sample sd / sqrt(k)) of x[0..k-1]; se is NaN
 * when k < 2, and both are NaN when any x is NaN. */
void rl_seed_mean_se(const double *x, int k, double *mean, double *se);

/* "a above b": the per-seed paired differences a[s] - b[s] (log ratios of
 * two variants on the same seed and windows), rule sign of the claims
 * table on z = mean / SE. */
rl_order rl_order_above(const double *a, const double *b, int k);

/* "x positive" (a model degrades: its log ratio above 0), rule sign. */
rl_order rl_order_positive(const double *x, int k);

/* "x below threshold" (a model stays flat: its log ratio below log of a
 * ratio), rule below on (mean - threshold) / SE. */
rl_order rl_order_below(const double *x, int k, double threshold);

#endif
