/* stats.c: means and standard errors (stats.h). */
#include "stats.h"

#include <math.h>

void rl_mean_se(const double *x, long n, long stride, double *mean, double *se)
{
    double s = 0, s2 = 0;
    for (long k = 0; k < n; k++)
        s += x[k * stride];
    const double m = s / n;
    for (long k = 0; k < n; k++)
        s2 += (x[k * stride] - m) * (x[k * stride] - m);
    *mean = m;
    *se = n > 1 ? sqrt(s2 / (n - 1) / n) : 0;
}

void rl_welford_add(rl_welford *w, double x)
{
    w->n++;
    const double d = x - w->mean;
    w->mean += d / w->n;
    w->m2 += d * (x - w->mean);
}

double rl_welford_var(const rl_welford *w)
{
    return w->n > 1 ? w->m2 / (w->n - 1) : 0;
}

double rl_welford_se(const rl_welford *w)
{
    return w->n > 1 ? sqrt(rl_welford_var(w) / w->n) : 0;
}

double rl_kendall_tau_b(const double *x, const double *y, int n)
{
    if (n < 2)
        return NAN;
    double c = 0, d = 0, tx = 0, ty = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(x[i]) || isnan(y[i]))
            return NAN;
        for (int j = i + 1; j < n; j++) {
            const double a = x[i] - x[j], b = y[i] - y[j];
            if (a == 0)
                tx++;
            if (b == 0)
                ty++;
            if (a != 0 && b != 0)
                (a > 0) == (b > 0) ? c++ : d++;
        }
    }
    const double n0 = 0.5 * n * (n - 1), den = sqrt((n0 - tx) * (n0 - ty));
    return den > 0 ? (c - d) / den : NAN;
}
