/* so2_mgf.c: E e^{z cos Phi} for a sum of SO(2) angle steps by
 * Jacobi-Anger (<routelab/bounds.h>), through GSL's scaled Bessel functions. */
#include "../api/include/routelab/bounds.h"

#include "../base/core/err.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* z itself when |z| <= 1, else z / |z| (a NaN stays NaN) */
static double complex unit_disc(double complex z)
{
    const double a = cabs(z);
    return a > 1 ? z / a : z;
}

void rl_so2_cos_log_mgf_range(rl_angle_law law, double omega, long n0, long count, double z, double *out)
{
    /* NaN, negative or beyond any use: kmax's cast stays in range; a
     * negative n is no number of steps (and its halving would never end) */
    if (!(z >= 0 && z <= 1e6) || n0 < 0 || (count > 0 && n0 > LONG_MAX - (count - 1))) {
        for (long j = 0; j < count; j++)
            out[j] = NAN;
        return;
    }
    /* scaled Bessel functions e^{-z} I_k(z): I_k(z)/I_0(z) ~ e^{-k^2/(2z)} for
     * large z and ~ (z/2)^k/k! for small z, so k <= 25 + 10 sqrt(z) leaves a
     * tail below 1e-20 relative */
    int kmax = 25 + (int)(10 * sqrt(z));
    double *in = malloc(sizeof(double) * (kmax + 1));
    double complex *chi = malloc(sizeof(double complex) * 2 * (kmax + 1)), *p = chi + kmax + 1;
    rl_gsl_quiet();
    int st = in && chi ? gsl_sf_bessel_In_scaled_array(0, kmax, z, in) : GSL_ENOMEM;
    /* at small z the top orders underflow ((z/2)^k / k! below DBL_MIN) and the
     * array's downward recurrence starts from zeros: each order alone, an
     * underflow read as the 0 it rounds to */
    for (int k = 0; st == GSL_EUNDRFLW && k <= kmax; k++) {
        gsl_sf_result r;
        const int sk = gsl_sf_bessel_In_scaled_e(k, z, &r);
        in[k] = sk == GSL_SUCCESS ? r.val : 0;
        if (sk != GSL_SUCCESS && sk != GSL_EUNDRFLW)
            st = sk;
        else if (k == kmax)
            st = GSL_SUCCESS;
    }
    if (st != GSL_SUCCESS) {
        for (long j = 0; j < count; j++)
            out[j] = NAN;
        free(in);
        free(chi);
        return;
    }
    /* p_k = chi(k omega)^n, started at n0 by squaring, then one factor per n.
     * |chi| <= 1, but a modulus-one chi rounds to 1 + eps, and 63 squarings
     * raise that to (1 + eps)^(2^63) = e^2000: each square is brought back
     * to the unit disc */
    for (int k = 1; k <= kmax; k++) {
        chi[k] = unit_disc(rl_angle_charfn(law, k * omega));
        double complex c = chi[k], r = 1;
        for (long e = n0; e; e >>= 1, c = unit_disc(c * c))
            if (e & 1)
                r = unit_disc(r * c);
        p[k] = r;
    }
    for (long j = 0; j < count; j++) {
        double s = in[0];
        for (int k = 1; k <= kmax; k++) {
            s += 2.0 * in[k] * creal(p[k]);
            p[k] *= chi[k];
        }
        out[j] = z + log(s);
    }
    free(in);
    free(chi);
}

double rl_so2_cos_log_mgf(rl_angle_law law, double omega, long n, double z)
{
    double v;
    rl_so2_cos_log_mgf_range(law, omega, n, 1, z, &v);
    return v;
}
