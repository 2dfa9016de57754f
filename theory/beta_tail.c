/* beta_tail.c: the exact law of one coordinate of a uniform unit vector
 * (<routelab/bounds.h>, docs/theory/claim2-concentration.md#concentration-closed-forms), through
 * GSL's Beta CDF. */
#include "../api/include/routelab/bounds.h"

#include "../base/core/err.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

/* GSL's Beta(1/2, (d-1)/2) needs b > 0, so d >= 2 (bounds.h); the test is
 * made here, so that GSL's handler, which aborts, is never reached. */
double rl_beta_tail(int d, double t)
{
    if (d < 2 || isnan(t))
        return NAN;
    if (t <= 0)
        return 1.0;
    if (t >= 1)
        return 0.0;
    /* <e,u>^2 ~ Beta(1/2, (d-1)/2): density of <e,u> proportional to (1-x^2)^{(d-3)/2} */
    rl_gsl_quiet();
    return gsl_cdf_beta_Q(t * t, 0.5, 0.5 * (d - 1));
}

double rl_beta_coord_cdf(int d, double x)
{
    if (d < 2 || isnan(x))
        return NAN;
    if (x <= -1)
        return 0.0;
    if (x >= 1)
        return 1.0;
    rl_gsl_quiet();
    double half = 0.5 * gsl_cdf_beta_P(x * x, 0.5, 0.5 * (d - 1));
    return x >= 0 ? 0.5 + half : 0.5 - half;
}
