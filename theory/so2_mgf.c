/* so2_mgf.c: E e^{z cos Phi} for a sum of SO(2) angle steps by
 * Jacobi-Anger (<routelab/bounds.h>), through GSL's scaled Bessel functions. */
#include "../include/routelab/bounds.h"

#include <gsl/gsl_sf_bessel.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>

void rl_so2_cos_log_mgf_range(rl_angle_law law, double omega, long n0, long count, double z, double *out)
{
    if (!(z >= 0 && z <= 1e6)) { /* NaN, negative or beyond any use: kmax's cast stays in range */
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
    if (!in || !chi || gsl_sf_bessel_In_scaled_array(0, kmax, z, in) != 0) {
        for (long j = 0; j < count; j++)
            out[j] = NAN;
        free(in);
        free(chi);
        return;
    }
    /* p_k = chi(k omega)^n, started at n0 by squaring, then one factor per n */
    for (int k = 1; k <= kmax; k++) {
        chi[k] = rl_angle_charfn(law, k * omega);
        double complex c = chi[k], r = 1;
        for (long e = n0; e; e >>= 1, c *= c)
            if (e & 1)
                r *= c;
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
