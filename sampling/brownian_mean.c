/* brownian_mean.c: the brownian family's mean in closed form
 * (<routelab/bounds.h>, docs/sampling.md#step-families): libm alone, apart from the family's
 * LAPACK draws in fam_brownian.c, so that it links with -lm (docs/library.md#library-splits). */
#include "fam_brownian.h"

#include <float.h>
#include <math.h>

/* The Laguerre sum behind rl_brownian_mean, c = (2 e^{-x/2} S + (d odd)) / d,
 * S = sum of L_m(x) over m <= d-2 with m = d (mod 2), x = sigma^2.  Forward
 * recurrence (m+1) L_{m+1} = (2m+1-x) L_m - m L_{m-1} in long double, rescaled
 * so that neither e^{-x/2} (underflow) nor L_m (overflow) is formed alone.
 * dbl != 0 rounds every step to double: the same sum in double, whose distance
 * from the long double one estimates the rounding error. */
static long double brownian_c(int d, long double x, int dbl)
{
#define RD(v) (dbl ? (long double)(double)(v) : (v))
    long double p0 = 1, p1 = RD(1 - x), sum = (d % 2) ? p1 : p0, scale = -x / 2;
    for (int m = 1; m + 1 <= d - 2; m++) {
        long double p2 = RD(RD(RD((2 * m + 1 - x) * p1) - RD(m * p0)) / (m + 1));
        p0 = p1;
        p1 = p2;
        if ((m + 1) % 2 == d % 2)
            sum = RD(sum + p1);
        if (fabsl(p1) > 1e200L || fabsl(sum) > 1e200L) {
            p0 *= 1e-200L, p1 *= 1e-200L, sum *= 1e-200L;
            scale += 200 * logl(10.0L);
        }
    }
    long double mag = fabsl(sum) > 0 ? expl(scale + logl(fabsl(sum))) : 0;
    return (2 * (sum < 0 ? -mag : mag) + (d % 2)) / d;
#undef RD
}

double rl_brownian_mean(int d, double sigma, double *err)
{
    /* E[exp(sigma A)] = c I, c = E[(1/d) tr cos(sigma B)], B = iA Hermitian.
     * The eigenvalues of B are +-x_k (and 0 when d is odd) with joint law
     * prop. to prod_{j<k} (x_j^2 - x_k^2)^2 prod x_j^{2(d mod 2)} e^{-x_j^2/2}
     * (Mehta, Random Matrices, ch. 13): a determinantal process whose kernel
     * is built from the even (d even) or odd (d odd) Hermite functions psi_m
     * of the weight e^{-x^2/2}.  So E tr cos(sigma B) = (d mod 2) + 2 sum_m
     * int cos(sigma x) psi_m(x)^2 dx over those m <= d-2, and the Fourier
     * transform of psi_m^2 is e^{-t^2/2} L_m(t^2).  Checks: d = 2 gives
     * e^{-sigma^2/2}; the Taylor terms give m_2 = d-1, m_4 = (d-1)(2d-1). */
    if (d < 1 || d > 4096 || isnan(sigma)) { /* the domain (bounds.h): the sum has d terms */
        if (err)
            *err = NAN;
        return NAN;
    }
    const long double x = (long double)sigma * sigma;
    long double c = brownian_c(d, x, 0);
    if (err)
        /* the recurrence amplifies rounding (~m^2 at x -> 0); the double run's
         * distance bounds the long double run's error with room (2^11 on
         * x86: checked against __float128 over d <= 4096, NOTES) */
        *err = (double)fabsl(brownian_c(d, x, 1) - c) + DBL_EPSILON;
    /* c is a mean of cosines: outside [-1, 1] only by rounding */
    return (double)(c > 1 ? 1 : c < -1 ? -1 : c);
}
