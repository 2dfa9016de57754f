/* so2.c: SO(2) block rotations, angle laws and token tables. */
#include "so2.h"
#include "rng.h"
#include "../core/util.h"

#include <complex.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double rl_so2_freq(int d, double base, double scale, int b)
{
    return scale * pow(base, -2.0 * b / d);
}

void rl_so2_freqs(int d, double base, double scale, double *omega)
{
    for (int b = 0; b < d / 2; b++)
        omega[b] = rl_so2_freq(d, base, scale, b);
}

double rl_so2_draw_angle(gsl_rng *r, rl_angle_law law, double omega)
{
    switch (law) {
    case RL_ANG_CONSTANT: return omega;
    case RL_ANG_UNIFORM: return omega * (2.0 * gsl_rng_uniform(r) - 1.0);
    case RL_ANG_PM: return gsl_rng_uniform(r) < 0.5 ? -omega : omega;
    case RL_ANG_GAUSS: return gsl_ran_gaussian_ziggurat(r, omega);
    case RL_ANG_CIRCLE: return M_PI * (2.0 * gsl_rng_uniform(r) - 1.0);
    case RL_ANG_DRIFT: return 2.0 * omega * gsl_rng_uniform(r);
    default: return NAN;
    }
}

double rl_angle_reduce(double phi)
{
    double r = remainder(phi, 2.0 * M_PI); /* in [-pi, pi] */
    return r <= -M_PI ? r + 2.0 * M_PI : r;
}

void rl_so2_rotate(int d, const double *phi, int sign, double *X, int nvec)
{
    const int h = d / 2;
    for (int b = 0; b < h; b++) {
        double s, c;
        sincos(sign * phi[b], &s, &c);
        for (int v = 0; v < nvec; v++) {
            double *x = X + (long)v * d;
            double x0 = x[b], x1 = x[b + h];
            x[b] = c * x0 - s * x1;
            x[b + h] = s * x0 + c * x1;
        }
    }
}

void rl_so2_table_draw(const rl_family *f, unsigned long seed, unsigned long stream, double *table)
{
    const int h = f->d / 2;
    double omega[h];
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed, stream);
    for (int v = 0; v < f->vocab; v++)
        for (int b = 0; b < h; b++)
            table[(long)v * h + b] = rl_so2_draw_angle(r, f->law, omega[b]);
    gsl_rng_free(r);
}

rl_status rl_so2_table_load(const char *path, int d, double **table, int *vocab, rl_err *err)
{
    *table = NULL;
    char *buf;
    size_t blen;
    rl_err e;
    rl_status st = rl_read_regular(path, RL_MAX_ANGLE_TABLE, &buf, &blen, &e);
    if (st != RL_OK) /* "cannot read PATH: why" as "cannot read angle table PATH: why" */
        return rl_fail(err, st, "cannot read angle table %s",
                       strncmp(e.msg, "cannot read ", 12) ? e.msg : e.msg + 12);
    if (memchr(buf, '\0', blen)) {
        free(buf);
        return rl_fail(err, RL_EINPUT, "angle table %s holds a NUL byte: not a text table", path);
    }
    const int h = d / 2;
    size_t cap = 256, rows = 0;
    double *t = rl_xmalloc(sizeof(double) * cap * h);
    long lineno = 0;
    for (char *line = buf, *next; st == RL_OK && line < buf + blen; line = next) {
        lineno++;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : buf + blen;
        if (nl)
            *nl = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\r' || *p == '\0' || *p == '#')
            continue;
        if (rows == (size_t)RL_MAX_ANGLE_ROWS) {
            st = rl_fail(err, RL_EINPUT, "angle table %s has more than %ld rows (token ids)", path,
                         RL_MAX_ANGLE_ROWS);
            break;
        }
        if (rows == cap)
            t = rl_xrealloc(t, sizeof(double) * (cap *= 2) * h);
        for (int b = 0; b < h && st == RL_OK; b++) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || !isfinite(x))
                st = rl_fail(err, RL_EINPUT, "%s:%ld: expected %d angles per line, found %d", path,
                             lineno, h, b);
            t[rows * h + b] = x;
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (st == RL_OK && *p)
            st = rl_fail(err, RL_EINPUT, "%s:%ld: more than %d angles on the line", path, lineno, h);
        rows++;
    }
    if (st == RL_OK && rows == 0)
        st = rl_fail(err, RL_EINPUT, "angle table %s has no rows", path);
    free(buf);
    if (st != RL_OK) {
        free(t);
        return st;
    }
    *table = t;
    *vocab = (int)rows;
    return RL_OK;
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

double rl_so2_block_rates(int h, const double complex *chi, const double complex *chi2, const double *cross,
                          double *diag, double *rate)
{
    double best = 0;
    for (int b = 0; b < h; b++) {
        double rb = cabs(chi2[b]);
        if (diag)
            diag[b] = rb;
        for (int c = 0; c < h; c++) {
            if (c == b)
                continue;
            double x = cross ? cross[(long)b * h + c] : cabs(chi[b]) * cabs(chi[c]);
            if (x > rb)
                rb = x;
        }
        if (rate)
            rate[b] = rb;
        if (rb > best)
            best = rb;
    }
    return best;
}
