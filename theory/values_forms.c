/* values_forms.c: the far value contribution with and without transport
 * (<routelab/bounds.h>, docs/theory/claim4-values.md#value-transport): libm alone. */
#include "../api/include/routelab/bounds.h"

#include <complex.h>
#include <math.h>

double rl_value_coherent(double rho, double vnorm)
{
    return rho * vnorm;
}

double complex rl_cpow_n(double complex z, long n)
{
    double complex r = 1;
    for (; n > 0; n >>= 1, z *= z)
        if (n & 1)
            r *= z;
    return r;
}

/* expm1(x) - x, accurate near 0 (where expm1(x) and x cancel). */
static double complex expm1_less_x(double complex x)
{
    if (cabs(x) >= 0.5)
        return cexp(x) - 1.0 - x;
    /* sum_{k>=2} x^k/k!: each term below 0.5^k/k!, 2^-60 by k = 20 */
    double complex term = x * x / 2.0, sum = 0;
    for (int k = 3; k <= 24; k++) {
        sum += term;
        term *= x / k;
    }
    return sum + term;
}

double rl_value_pair_sum(double complex chi, long m)
{
    if (m < 0)
        return NAN;
    if (m <= RL_PAIR_SUM_DIRECT_MAX) {
        /* M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta, summed directly:
         * exact for chi near 1 where a naive closed form cancels. */
        double complex p = 1, acc = 0;
        for (long delta = 1; delta < m; delta++) {
            p *= chi;
            acc += (double)(m - delta) * p;
        }
        return (double)m + 2.0 * creal(acc);
    }
    if (chi == 0)
        return (double)m;
    /* The geometric closed form, O(1) at any M: with z = chi = e^u,
     *   sum_{delta=1}^{M-1} (M - delta) z^delta = z (M (1 - z) - (1 - z^M)) / (1 - z)^2,
     * and M (1 - z) - (1 - z^M) = g(M u) - M g(u), g(x) = expm1(x) - x, which
     * has no leading term to cancel (g(Mu) ~ M^2 u^2 / 2 >> M g(u) when u is
     * small).  z = 1 (u = 0) is the limit M (M - 1) / 2, so S = M^2. */
    const double complex u = clog(chi);
    if (u == 0)
        return (double)m * (double)m;
    const double md = (double)m;
    const double complex e1 = u + expm1_less_x(u); /* expm1(u) = z - 1 */
    const double complex num = expm1_less_x(md * u) - md * expm1_less_x(u);
    return md + 2.0 * creal(chi * num / (e1 * e1));
}

double rl_value_incoherent(double rho, long m, int nb, const double complex *chi, const double *vnorm2)
{
    /* the domain (bounds.h): a far mass, at least one far token, block norms
     * >= 0 and the mean of an orthogonal step (|chi| <= 1, to rounding) */
    if (!(rho >= 0 && rho <= 1) || m < 1 || nb < 0)
        return NAN;
    double s = 0;
    for (int b = 0; b < nb; b++) {
        if (!(vnorm2[b] >= 0) || !(cabs(chi[b]) <= 1 + 1e-12))
            return NAN;
        s += vnorm2[b] * rl_value_pair_sum(chi[b], m);
    }
    return rho / (double)m * sqrt(s > 0 ? s : 0);
}
