/* farmass_forms.c: the far-mass bounds in closed form, as set (lambda) and
 * for realised logits (Delta), and under ALiBi (<routelab/bounds.h>,
 * docs/theory/claim3-farmass.md#far-mass-closed-forms,
 * docs/theory/claim3-farmass.md#far-mass-three-forms): libm alone. */
#include "../api/include/routelab/bounds.h"

#include <float.h>
#include <math.h>

/* The forms' domain: counts of tokens m, k >= 0, a logit bound lambda >= 0
 * (logits in [-lambda, lambda]), an ALiBi slope >= 0 (a bias that decays
 * with distance).  Outside it, or at a NaN, every form is NaN (bounds.h):
 * never a number that reads as a probability. */
static int counts_ok(double m, double k)
{
    return m >= 0 && k >= 0;
}

/* log(e^a + e^b) without forming e^a or e^b */
static double logaddexp(double a, double b)
{
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi == -INFINITY ? hi : hi + log1p(exp(lo - hi));
}

double rl_farmass_lower_log(double m, double k, double lambda)
{
    if (!(counts_ok(m, k) && lambda >= 0))
        return NAN;
    return log(m) - logaddexp(log(m), log(k) + 2.0 * lambda);
}

double rl_farmass_lower(double m, double k, double lambda)
{
    if (!(counts_ok(m, k) && lambda >= 0))
        return NAN;
    /* the direct form where it is a normal number (outputs unchanged there);
     * past lambda ~ 354, e^{2 lambda} overflows and it gave 0 */
    double v = m / (m + k * exp(2.0 * lambda));
    return v >= DBL_MIN ? v : exp(rl_farmass_lower_log(m, k, lambda));
}

double rl_farmass_upper(double m, double k, double lambda)
{
    if (!(counts_ok(m, k) && lambda >= 0))
        return NAN;
    return m / (m + k * exp(-2.0 * lambda));
}

double rl_farmass_half(double k, double lambda)
{
    if (!(k >= 0 && lambda >= 0))
        return NAN;
    return k * exp(2.0 * lambda);
}

double rl_farmass_half_log(double k, double lambda)
{
    if (!(k >= 0 && lambda >= 0))
        return NAN;
    return log(k) + 2.0 * lambda;
}

double rl_farmass_alibi(double m, double k, double lambda, double slope, int best)
{
    if (!(counts_ok(m, k) && lambda >= 0 && slope >= 0))
        return NAN;
    /* N = sum_{delta<K} e^{-slope delta}, F = sum_{K<=delta<K+M} e^{-slope delta};
     * N/F = (1 - e^{-sK}) / (e^{-sK} (1 - e^{-sM})) = expm1(sK) / -expm1(-sM);
     * slope -> 0 gives K/M, the unbiased case. */
    double ratio = slope > 0 ? expm1(slope * k) / -expm1(-slope * m) : k / m;
    return 1.0 / (1.0 + exp((best ? 2.0 : -2.0) * lambda) * ratio);
}

double rl_farmass_alibi_log(double m, double k, double lambda, double slope, int best)
{
    if (!(counts_ok(m, k) && lambda >= 0 && slope >= 0))
        return NAN;
    /* log(1 / (1 + e^z)) = -logaddexp(0, z), z = +-2 lambda + log(N/F), with
     * log expm1(y) = y + log1p(-e^{-y}) for large y (expm1 overflows past 709) */
    double sk = slope * k, lr = log(k / m);
    if (slope > 0)
        lr = (sk > 1 ? sk + log1p(-exp(-sk)) : log(expm1(sk))) - log(-expm1(-slope * m));
    return -logaddexp(0.0, (best ? 2.0 : -2.0) * lambda + lr);
}

/* The far-mass bound in its data-dependent forms.  Softmax is
 * shift-invariant: subtracting min_far from every logit changes no weight.
 * Then every far weight is >= e^{0} and every near one <= e^{Delta}, with
 * Delta = max near logit - min far logit, so
 *   rho_D = F/(F + N) >= M e^{min far} / (M e^{min far} + K e^{max near})
 *        = M / (M + K e^{Delta})
 * (x/(x + N) increases in x and decreases in N).  Equality when every near
 * logit equals the max and every far one the min.  With |logit| <= lambda,
 * Delta <= 2 lambda gives rl_farmass_lower; the observed max |logit|
 * lambda_obs gives Delta <= 2 lambda_obs: three bounds, ordered
 * range >= observed >= as set.  Computed in log space,
 *   log rho = log M - logaddexp(log M, log K + Delta),
 * so no finite Delta overflows. */
double rl_farmass_range_log(double m, double k, double delta_range)
{
    if (!(counts_ok(m, k) && !isnan(delta_range)))
        return NAN;
    const double a = log(m), b = log(k) + delta_range;
    const double hi = fmax(a, b), lo = fmin(a, b);
    return a - (hi + log1p(exp(lo - hi)));
}

double rl_farmass_range(double m, double k, double delta_range)
{
    return exp(rl_farmass_range_log(m, k, delta_range));
}

/* M / (M + K e^Delta) >= p  <=>  M (1 - p) >= p K e^Delta
 *                            <=>  M >= K p e^Delta / (1 - p). */
double rl_farmass_admissible_log(double k, double p, double delta_range)
{
    if (!(k >= 0 && p > 0 && p < 1 && !isnan(delta_range)))
        return NAN;
    return log(k) + log(p) - log1p(-p) + delta_range;
}

double rl_farmass_admissible(double k, double p, double delta_range)
{
    return exp(rl_farmass_admissible_log(k, p, delta_range));
}
