/* windows.c: the mixing window W(eps) (<routelab/bounds.h>,
 * docs/theory/claim1-mixing.md#mixing-window, docs/verdicts.md#numerics): libm alone
 * (docs/library.md#library-splits). */
#include "../api/include/routelab/bounds.h"

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
    /* log1p(norm - 1): norm - 1 is exact near 1 (Sterbenz), where log(norm)
     * keeps only the digits 1 - norm has left */
    double w = ceil(log(eps) / log1p(norm - 1.0));
    if (w < 1)
        w = 1;
    if (!(w <= 9e18)) /* the cast below is in range */
        return -1;
    /* The estimate can be off by many steps when norm is within a few ulps
     * of 1 (it was corrected one step at a time: 0.9999999999999999 never
     * returned).  The least n with norm^n <= eps, by galloping from
     * the estimate to a bracket [lo, hi] (norm^lo > eps >= norm^hi; lo = 0
     * stands for "none below") and bisecting it: O(log) calls of pow, whose
     * value falls with n. */
    long lo, hi = (long)w;
    if (pow(norm, (double)hi) <= eps) {
        long step = 1;
        lo = hi - 1;
        while (lo >= 1 && pow(norm, (double)lo) <= eps) {
            hi = lo;
            lo = lo - step >= 1 ? lo - step : 0;
            step *= 2;
        }
    } else {
        long step = 1;
        lo = hi;
        for (;;) {
            if (hi > (long)9e18 - step)
                return -1; /* beyond any window the cast can hold */
            hi = lo + step;
            if (pow(norm, (double)hi) <= eps)
                break;
            lo = hi;
            step *= 2;
        }
    }
    while (hi - lo > 1) {
        const long mid = lo + (hi - lo) / 2;
        if (pow(norm, (double)mid) <= eps)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}
