/* watson_mc.c: Watson's distance between accumulated-angle laws by Monte
 * Carlo (watson_mc.h). */
#include "watson_mc.h"

#include <math.h>
#include <stdlib.h>

#include "../base/core/mem.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/mixstay_forms.h"
#include "sweep.h"

typedef struct {
    rl_angle_law law;
    double omega;
    long delta[2], m;
    int n;
    unsigned long seed, stream;
    double *est;
} wmc_ctx;

typedef struct {
    gsl_rng *r;
    double *x;   /* m sample angles */
    double *acc; /* 2 x 2n: A_k, B_k as (re, im) */
} wmc_ws;

static void ws_free(void *ctx, void *ws);

static rl_status ws_alloc(void *ctx, void **ws, rl_err *err)
{
    const wmc_ctx *c = ctx;
    wmc_ws *w = rl_xmalloc(sizeof *w);
    w->r = rl_rng_alloc();
    w->x = rl_xmalloc(sizeof(double) * (size_t)c->m);
    w->acc = rl_xmalloc(sizeof(double) * 4 * (size_t)c->n);
    if (!w->r) {
        ws_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a random number generator");
    }
    *ws = w;
    return RL_OK;
}

static void ws_free(void *ctx, void *ws)
{
    (void)ctx;
    wmc_ws *w = ws;
    if (!w)
        return;
    gsl_rng_free(w->r);
    free(w->x);
    free(w->acc);
    free(w);
}

/* acc[k] = sum_i e^{i (k+1) x_i}, k < n: the powers of e^{i x_i} by
 * repeated multiplication (the error grows as k ulps: 1e-12 at k = 2^12,
 * far below the estimate's noise), four samples at a time (four
 * independent recurrences: one alone waits on each product's latency), in
 * a fixed order. */
static void harmonic_sums(const double *x, long m, int n, double *acc)
{
    for (int k = 0; k < 2 * n; k++)
        acc[k] = 0;
    for (long i = 0; i < m; i += 4) {
        const int g = m - i < 4 ? (int)(m - i) : 4;
        double c[4], s[4], re[4], im[4];
        for (int q = 0; q < 4; q++) {
            c[q] = q < g ? cos(x[i + q]) : 0;
            s[q] = q < g ? sin(x[i + q]) : 0;
            re[q] = c[q];
            im[q] = s[q];
        }
        for (int k = 0; k < n; k++) {
            acc[2 * k] += (re[0] + re[1]) + (re[2] + re[3]);
            acc[2 * k + 1] += (im[0] + im[1]) + (im[2] + im[3]);
            for (int q = 0; q < 4; q++) {
                const double t = re[q] * c[q] - im[q] * s[q];
                im[q] = re[q] * s[q] + im[q] * c[q];
                re[q] = t;
            }
        }
    }
}

static rl_status item(void *ctx, void *ws, long r, rl_err *err)
{
    (void)err;
    const wmc_ctx *c = ctx;
    wmc_ws *w = ws;
    double *acc[2] = { w->acc, w->acc + 2 * c->n };
    for (int side = 0; side < 2; side++) {
        rl_rng_stream(w->r, c->seed, rl_stream_key(c->stream, 2 * (uint64_t)r + side));
        for (long i = 0; i < c->m; i++) {
            double sum = 0, comp = 0;
            for (long s = 0; s < c->delta[side]; s++)
                rl_sum_add(&sum, &comp, rl_so2_draw_angle(w->r, c->law, c->omega));
            w->x[i] = rl_angle_reduce(sum + comp);
        }
        harmonic_sums(w->x, c->m, c->n, acc[side]);
    }
    /* the unbiased combination of watson_mc.h, smallest terms (largest k) first */
    const double m = (double)c->m, u = m * (m - 1), v = m * m;
    double s = 0;
    for (int k = c->n - 1; k >= 0; k--) {
        const double *a = acc[0] + 2 * k, *b = acc[1] + 2 * k;
        const double aa = (a[0] * a[0] + a[1] * a[1] - m) / u, bb = (b[0] * b[0] + b[1] * b[1] - m) / u;
        const double ab = (a[0] * b[0] + a[1] * b[1]) / v;
        s += (aa + bb - 2 * ab) / ((double)(k + 1) * (k + 1));
    }
    c->est[r] = s / (2 * M_PI * M_PI);
    return RL_OK;
}

rl_status rl_watson_mc(rl_angle_law law, double omega, long delta, long delta2, int n, long m, long reps,
                       unsigned long seed, unsigned long stream, double *est, rl_err *err)
{
    if ((int)law < 0 || law >= RL_ANG_COUNT)
        return rl_fail(err, RL_EINPUT, "watson mc: unknown angle law %d (one of %s)", (int)law, RL_ANGLE_NAMES);
    if (!isfinite(omega))
        return rl_fail(err, RL_EINPUT, "watson mc: the frequency must be finite, got %g", omega);
    if (delta < 0 || delta2 < 0)
        return rl_fail(err, RL_EINPUT, "watson mc: the lengths must be >= 0, got %ld and %ld", delta, delta2);
    if (n < 1 || n > RL_MIXSTAY_MAX_HARMONICS)
        return rl_fail(err, RL_EINPUT, "watson mc: harmonics N must be 1 to %d, got %d", RL_MIXSTAY_MAX_HARMONICS, n);
    if (m < 2 || reps < 1)
        return rl_fail(err, RL_EINPUT, "watson mc: needs at least 2 samples and 1 replicate, got %ld and %ld", m, reps);
    if (!est)
        return rl_fail(err, RL_EINPUT, "watson mc: no output (NULL)");
    int over = 0;
    /* a thread's workspace: the samples and the two harmonic sums */
    const size_t per = rl_szadd(rl_szmul(sizeof(double), (size_t)m, &over),
                                rl_szmul(4 * sizeof(double), (size_t)n, &over), &over);
    RL_TRY(rl_mem_check("watson mc: the samples", per, over, err));
    wmc_ctx c = { law, omega, { delta, delta2 }, m, n, seed, stream, est };
    const rl_mc_sweep_fn fn = { ws_alloc, ws_free, item, 1 };
    const rl_mc_gather g = { est, sizeof(double) };
    return rl_mc_sweep(reps, &fn, &c, &g, 1, err);
}
