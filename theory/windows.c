/* windows.c: the mixing window W(eps) (<routelab/bounds.h>, NOTES.md §1.1,
 * §10.5): libm alone (§18.2). */
#include "../include/routelab/bounds.h"

#include <math.h>

long rl_mixing_window_log(double lognorm, double eps)
{
    if (isnan(lognorm) || !(eps > 0)) /* eps <= 0: no n has norm^n <= eps */
        return RL_WINDOW_UNDEFINED;
    if (!(lognorm < 0))
        return -1;
    /* -log(eps), not log(1/eps): 1/eps would round first */
    double q = -log(eps) / -lognorm;
    if (!(q <= 9e18)) /* the cast below is in range */
        return -1;
    long n = (long)ceil(q);
    return n < 1 ? 1 : n;
}

long rl_mixing_window(double norm, double eps)
{
    if (isnan(norm) || !(eps > 0)) /* eps <= 0: no n has norm^n <= eps */
        return RL_WINDOW_UNDEFINED;
    if (norm >= 1.0)
        return -1;
    if (norm <= 0.0)
        return 1;
    double w = ceil(log(1.0 / eps) / log(1.0 / norm));
    if (w < 1)
        w = 1;
    if (!(w <= 9e18)) /* the cast below is in range */
        return -1;
    /* guard the ceiling against rounding: least n with norm^n <= eps */
    long n = (long)w;
    while (n > 1 && pow(norm, n - 1) <= eps)
        n--;
    while (pow(norm, n) > eps)
        n++;
    return n;
}
