/* tails_forms.c: concentration bounds in closed form (<routelab/bounds.h>,
 * docs/theory/claim2-concentration.md#concentration-closed-forms): the cap bound, Levy on SO(d),
 * Hoeffding; libm alone. */
#include "../api/include/routelab/bounds.h"

#include <math.h>

double rl_levy_tail(int d, double t)
{
    if (t <= 0)
        return 1.0;
    double b = 2.0 * exp(-0.5 * d * t * t);
    return b < 1.0 ? b : 1.0;
}

double rl_levy_so_tail(int d, double t)
{
    /* SO(d), d >= 3, with the Hilbert-Schmidt metric has Ricci curvature
     * (d-2)/4, so by Bakry-Emery a log-Sobolev constant 4/(d-2) and by
     * Herbst's argument P(f >= E f + t) <= exp(-(d-2) t^2 / 8) for 1-Lipschitz
     * f (Meckes, The Random Matrix Theory of the Classical Compact Groups,
     * 2019, Thms 5.16-5.17); both sides give the factor 2. */
    if (t <= 0 || d < 3)
        return 1.0;
    double b = 2.0 * exp(-(d - 2.0) * t * t / 8.0);
    return b < 1.0 ? b : 1.0;
}

double rl_hoeffding_so2(double t, const double *a, int nb)
{
    double s = 0;
    for (int b = 0; b < nb; b++)
        s += a[b] * a[b];
    if (t <= 0)
        return 1.0;
    if (s <= 0)
        return 0.0;
    /* each s_b ranges over an interval of length 2 a_b: 2 exp(-2t^2 / sum (2a_b)^2) */
    double v = 2.0 * exp(-t * t / (2.0 * s));
    return v < 1.0 ? v : 1.0;
}
