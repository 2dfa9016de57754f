/* stats.h: means and standard errors, computed in one place.
 *
 * Every driver that reports "mean ± SE" calls these; none recomputes them by
 * hand.  Sums run in index order, so a result does not depend on the thread
 * count that produced the samples. */
#ifndef RL_STATS_H
#define RL_STATS_H

/* Two-pass mean and standard error of x[k * stride], k < n:
 *   mean = (1/n) sum x_k,  se = sqrt( sum (x_k - mean)^2 / ((n - 1) n) )
 * (se = 0 for n < 2).  The two-pass form avoids the cancellation of the
 * one-pass sum-of-squares formula when the mean is large against the spread. */
void rl_mean_se(const double *x, long n, long stride, double *mean, double *se);

/* Running moments by Welford's update, for samples that are not stored:
 *   mean_n = mean_{n-1} + (x - mean_{n-1}) / n,
 *   m2_n   = m2_{n-1} + (x - mean_{n-1}) (x - mean_n). */
typedef struct {
    long n;
    double mean, m2;
} rl_welford;

static inline void rl_welford_init(rl_welford *w)
{
    w->n = 0;
    w->mean = 0;
    w->m2 = 0;
}

void rl_welford_add(rl_welford *w, double x);
/* Sample variance (n - 1 denominator); 0 for n < 2. */
double rl_welford_var(const rl_welford *w);
/* Standard error of the mean, sqrt(var / n); 0 for n < 2. */
double rl_welford_se(const rl_welford *w);

/* Kendall's tau_b of the n pairs (x_i, y_i), ties in either counted as
 * neither concordant nor discordant:
 *   tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)),
 * n0 = n(n-1)/2 pairs, n1 (n2) pairs tied in x (y), C (D) the concordant
 * (discordant) pairs.  NaN for n < 2, a NaN entry, or x or y all tied. */
double rl_kendall_tau_b(const double *x, const double *y, int n);

#endif
