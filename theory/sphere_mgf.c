/* sphere_mgf.c: the moment generating function of one coordinate of a
 * uniform unit vector (<routelab/bounds.h>,
 * docs/theory/claim2-concentration.md#score-gap-predictions): libm alone. */
#include "../api/include/routelab/bounds.h"

#include <math.h>

double rl_sphere_log_mgf(int d, double lambda)
{
    /* The coordinate has density c (1 - x^2)^{(d-3)/2} on [-1, 1], and
     * DLMF 10.32.2, int_{-1}^{1} e^{lambda x} (1 - x^2)^{nu - 1/2} dx =
     * sqrt(pi) Gamma(nu + 1/2) (2/lambda)^nu I_nu(lambda), with nu = d/2 - 1,
     * gives Gamma(d/2) (2/lambda)^nu I_nu(lambda) = sum_k (lambda^2/4)^k /
     * (k! (d/2)_k).  The series has positive terms (no cancellation) and, unlike
     * I_nu itself, no underflow at large nu and small lambda.  The domain
     * (bounds.h): d >= 2, |lambda| <= 500 (beyond, the series' 1e5 terms
     * no longer converge); NaN outside it. */
    if (d < 2 || !(fabs(lambda) <= 500))
        return NAN;
    const double q = 0.25 * lambda * lambda, a = 0.5 * d;
    double term = 1.0, sum = 1.0;
    for (int k = 0; k < 100000; k++) {
        term *= q / ((k + 1.0) * (a + k));
        sum += term;
        if (term < 1e-17 * sum && k > q)
            break;
    }
    return log(sum);
}
