/* so2score.c: mean, variance and moment generating function of an aligned
 * SO(2) block score (derivation in so2score.h). */
#include "so2score.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "../sampling/so2.h"
#include "../theory/theory.h"

static double omega_of(const rl_family *f, int b)
{
    return rl_so2_freq(f->d, f->base, f->scale, b);
}

double rl_so2score_mean(const rl_family *f, const double *a, long n)
{
    double s = 0;
    for (int b = 0; b < f->d / 2; b++)
        s += a[b] * creal(rl_cpow_n(rl_angle_charfn(f->law, omega_of(f, b)), n));
    return s;
}

double rl_so2score_var(const rl_family *f, const double *a, long n)
{
    double v = 0;
    for (int b = 0; b < f->d / 2; b++) {
        double w = omega_of(f, b);
        double c1 = creal(rl_cpow_n(rl_angle_charfn(f->law, w), n));
        double c2 = creal(rl_cpow_n(rl_angle_charfn(f->law, 2 * w), n));
        v += a[b] * a[b] * (0.5 * (1 + c2) - c1 * c1);
    }
    return v;
}

double rl_so2score_log_mgf(const rl_family *f, const double *a, long n, double lambda)
{
    double s = 0;
    for (int b = 0; b < f->d / 2; b++)
        if (a[b] > 0)
            s += rl_so2_cos_log_mgf(f->law, omega_of(f, b), n, lambda * a[b]);
    return s;
}

void rl_so2score_mean_range(const rl_family *f, const double *a, long n0, long count, double *out)
{
    for (long j = 0; j < count; j++)
        out[j] = 0;
    for (int b = 0; b < f->d / 2; b++) {
        double complex chi = rl_angle_charfn(f->law, omega_of(f, b)), p = rl_cpow_n(chi, n0);
        for (long j = 0; j < count; j++, p *= chi)
            out[j] += a[b] * creal(p);
    }
}

void rl_so2score_log_mgf_range(const rl_family *f, const double *a, long n0, long count, double lambda,
                               double *out)
{
    double *tmp = malloc(sizeof(double) * (count > 0 ? count : 1));
    for (long j = 0; j < count; j++)
        out[j] = 0;
    for (int b = 0; b < f->d / 2; b++) {
        if (a[b] <= 0)
            continue;
        rl_so2_cos_log_mgf_range(f->law, omega_of(f, b), n0, count, lambda * a[b], tmp);
        for (long j = 0; j < count; j++)
            out[j] += tmp[j];
    }
    free(tmp);
}

void rl_so2score_weights(int d, const double *x, double *a)
{
    const int h = d / 2;
    for (int b = 0; b < h; b++)
        a[b] = x[b] * x[b] + x[b + h] * x[b + h];
}
