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
    double delta; /* rule effect: the minimal effect size; NaN for the other rules */
    double x_lo, x_hi; /* rule effect: x of mean + delta and of mean - delta (the
                        * equivalence test); NaN for the other rules */
    const char *rule; /* the rule's id in the claims table */
    rl_verdict v; /* holds, contradicted, unresolved, or (rule effect) absent at this scale */
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

/* "x above threshold" by rule sign on z((mean - threshold)/SE) (k - 1
 * df): a quantity predicted to exceed a stated effect or margin. */
rl_order rl_order_exceeds(const double *x, int k, double threshold);

/* "x below threshold" (a model stays flat: its log ratio below log of a
 * ratio), rule below on (mean - threshold) / SE. */
rl_order rl_order_below(const double *x, int k, double threshold);

/* Rule rank (claims table) on per-seed Kendall tau_b values tau[0..k-1]
 * of a predicted score against measured values across variants: the sign
 * rule on z((mean - tau0)/SE) (k - 1 df). */
rl_order rl_order_rank(const double *tau, int k, double tau0);

/* The four-outcome rule effect of the claims table on per-seed values
 * d[0..k-1] (a paired difference of log ratios, or one variant's log ratio)
 * with the minimal effect size delta > 0: m, s the mean and SE; x =
 * z(m/s), x_lo = z((m + delta)/s), x_hi = z((m - delta)/s), t read as the
 * normal quantile of its Student tail, k - 1 df (rl_effect_z_repeats).
 * Absent at this scale when x_lo >= 3 and x_hi <= -3 (m +- c s inside
 * +-delta: an equivalence test); otherwise holds when x >= 3, contradicted
 * when x <= -3, else unresolved.  NaN anywhere (k < 2, a missing value, a
 * NaN delta) is unresolved.  This is also the "positive" variant with a
 * delta: d = one variant's log ratios. */
rl_order rl_order_effect(const double *d, int k, double delta);

/* rl_order_effect on the paired differences a[s] - b[s]. */
rl_order rl_order_above_delta(const double *a, const double *b, int k, double delta);

/* The smallest number of seeds K in 2..kmax at which rule effect reaches,
 * with probability >= power, the outcome nearest to a measured effect of
 * this mean and per-seed sd (sample sd, not SE) with minimal effect size
 * delta (0: no equivalence outcome, the directional one only); *target
 * (may be NULL) gets that outcome: holds (mean >= 0) or contradicted for
 * the directional outcome, absent at this scale for the equivalence one.
 * -1 when no K <= kmax suffices, when mean or sd is NaN, when sd is 0 with
 * no effect, or when power is not in (0, 1).  The power formula is in
 * order.c. */
int rl_order_seeds_needed(double mean, double sd, double delta, double power, int kmax, rl_verdict *target);

/* The power the computation of rl_order_seeds_needed gives at k seeds to
 * the outcome x >= 3 of an effect e > 0 over a per-seed sd (the noncentral-t
 * normal approximation, order.c). */
double rl_order_power(double effect, double sd, int k);

/* The smallest effect e > 0 that the rule detects (x >= 3) with
 * probability >= power at k seeds over a per-seed sd: the inverse of
 * rl_order_power in e (increasing in e), by bisection to a relative 1e-9.
 * NaN when k < 2, sd is NaN or negative, or power is not in (0, 1); 0 when
 * sd is 0. */
double rl_order_detectable(double sd, int k, double power);

#endif
