/* angle_law.c: the SO(2) frequencies and the angle laws in closed form
 * (<routelab/bounds.h>, docs/sampling.md#step-families): libm alone, so that a program that
 * calls a closed form links with -lm (docs/library.md#library-splits). */
#include "so2.h"

#include <complex.h>
#include <math.h>

double rl_so2_freq(int d, double base, double scale, int b)
{
    return scale * pow(base, -2.0 * b / d);
}

void rl_so2_freqs(int d, double base, double scale, double *omega)
{
    for (int b = 0; b < d / 2; b++)
        omega[b] = rl_so2_freq(d, base, scale, b);
}

double complex rl_angle_charfn(rl_angle_law law, double w)
{
    /* sin(w)/w, written so that w = 0 gives 1 */
    double sinc = w == 0 ? 1.0 : sin(w) / w;
    switch (law) {
    case RL_ANG_CONSTANT: return cexp(I * w);
    case RL_ANG_UNIFORM: return sinc;                 /* (1/2w) int_{-w}^{w} e^{it} dt */
    case RL_ANG_PM: return cos(w);                    /* (e^{iw} + e^{-iw}) / 2 */
    case RL_ANG_GAUSS: return exp(-0.5 * w * w);      /* Gaussian characteristic function */
    case RL_ANG_CIRCLE: return 0;                     /* uniform on the circle */
    case RL_ANG_DRIFT: return cexp(I * w) * sinc;     /* U(0, 2w) = w + U(-w, w) */
    default: return NAN;
    }
}

double rl_one_minus_sinc(double w)
{
    /* Below |w| = 2 the alternating series x/6 (1 - x/20 (1 - x/42 (...))),
     * x = w^2, whose terms are below its sum (ratio <= 1.25 at w = 2), so the
     * result is good to ~1 ulp; above, 1 - sin w / w subtracts at most 0.46
     * from 1, also ~1 ulp.  The direct form below 2 loses log2(1/(1 - sinc))
     * bits: all of them near w = 0. */
    w = fabs(w);
    if (w >= 2)
        return 1.0 - sin(w) / w;
    const double x = w * w;
    double r = 1.0;
    for (int k = 15; k >= 1; k--) /* factor k: x / ((2k+2)(2k+3)) */
        r = 1.0 - x / ((2.0 * k + 2) * (2.0 * k + 3)) * r;
    return x / 6.0 * r;
}

double complex rl_angle_charfn2(rl_angle_law law, double omega)
{
    /* every law but circle is a scale family in omega: 2 theta ~ law(2 omega) */
    return law == RL_ANG_CIRCLE ? 0 : rl_angle_charfn(law, 2.0 * omega);
}

double rl_angle_log_norm(rl_angle_law law, double w)
{
    switch (law) {
    case RL_ANG_CONSTANT: return 0.0;
    case RL_ANG_UNIFORM:
    case RL_ANG_DRIFT: {
        double s = rl_one_minus_sinc(w);
        return s < 1 ? log1p(-s) : log(fabs(sin(w) / w));
    }
    case RL_ANG_PM: {
        /* cos w = 1 - 2 sin^2(w/2) */
        double h = sin(0.5 * w), s = 2 * h * h;
        return s < 1 ? log1p(-s) : log(fabs(cos(w)));
    }
    case RL_ANG_GAUSS: return -0.5 * w * w;
    case RL_ANG_CIRCLE: return -INFINITY;
    default: return NAN;
    }
}

double rl_so2_block_rate(int h, int b, const double complex *chi, const double complex *chi2,
                         const double *cross_row, double *diag, double *rate)
{
    double rb = cabs(chi2[b]);
    if (diag)
        diag[b] = rb;
    for (int c = 0; c < h; c++) {
        if (c == b)
            continue;
        double x = cross_row ? cross_row[c] : cabs(chi[b]) * cabs(chi[c]);
        if (x > rb)
            rb = x;
    }
    if (rate)
        rate[b] = rb;
    return rb;
}

double rl_so2_block_rates(int h, const double complex *chi, const double complex *chi2, const double *cross,
                          double *diag, double *rate)
{
    double best = 0;
    for (int b = 0; b < h; b++) {
        const double rb = rl_so2_block_rate(h, b, chi, chi2, cross ? cross + (long)b * h : NULL, diag, rate);
        if (rb > best)
            best = rb;
    }
    return best;
}
