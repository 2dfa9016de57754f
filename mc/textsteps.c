/* textsteps.c: means of e^{i Phi} over the routes of a text. */
#include "textsteps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "sweep.h"

#define BATCHES 16

/* One sweep's fixed inputs (mc/sweep.h): the items are the blocks b, and
 * block b's ng means and SEs go to [b * ng + g]. */
typedef struct {
    const rl_family *f;
    const int *tok;
    long n, ctx, nwin;
    const long *grid;
    int ng, nb;
    double complex *bchi;
    double *bse;
} ts_ctx;

/* A thread's scratch: the window's phases and the batch sums of a block. */
typedef struct {
    double complex *z, *bsum;
    long *bcnt;
} ts_ws;

static void ts_free(void *ctx, void *ws);

static rl_status ts_alloc(void *ctx, void **ws, rl_err *err)
{
    const ts_ctx *x = ctx;
    ts_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    w->z = rl_alloc(sizeof(double complex) * x->ctx, err);
    w->bsum = rl_alloc(sizeof(double complex) * x->ng * BATCHES, err);
    w->bcnt = rl_alloc(sizeof(long) * x->ng * BATCHES, err);
    if (!w->z || !w->bsum || !w->bcnt) {
        ts_free(ctx, w);
        return RL_ENOMEM;
    }
    *ws = w;
    return RL_OK;
}

static void ts_free(void *ctx, void *ws)
{
    ts_ws *w = ws;
    (void)ctx;
    if (!w)
        return;
    free(w->z);
    free(w->bsum);
    free(w->bcnt);
    free(w);
}

/* Block b over every window: the batch means of z_{j+m} conj(z_j), their
 * mean and its SE from the BATCHES batches. */
static rl_status ts_item(void *ctx, void *ws, long bl, rl_err *err)
{
    const ts_ctx *x = ctx;
    ts_ws *w = ws;
    const rl_family *f = x->f;
    const long n = x->n, ctx_len = x->ctx, nwin = x->nwin;
    const int ng = x->ng, nb = x->nb, b = (int)bl;
    double complex *z = w->z, *bsum = w->bsum;
    long *bcnt = w->bcnt;
    (void)err;
    memset(bsum, 0, sizeof(double complex) * ng * BATCHES);
    memset(bcnt, 0, sizeof(long) * ng * BATCHES);
    for (long k = 0; k < nwin; k++) {
        /* z_t = e^{i A_t}, A_t = sum of the angles of tokens 1..t of the
         * window: Phi(j, j+m) = A_{j+m} - A_j, so e^{i Phi} = z_{j+m} conj(z_j).
         * The prefix stays below C * max|theta| ~ 1e5: ~1e-11 rad of rounding. */
        double a = 0;
        for (long t = 0; t < ctx_len; t++) {
            if (t > 0)
                a += f->table[(long)x->tok[(k * ctx_len + t) % n] * nb + b];
            z[t] = cexp(I * a);
        }
        for (int g = 0; g < ng; g++) {
            long m = x->grid[g], cnt = ctx_len - m;
            for (long j = 0; j < cnt; j++) {
                long batch = (k * cnt + j) * BATCHES / (nwin * cnt);
                bsum[g * BATCHES + batch] += z[j + m] * conj(z[j]);
                bcnt[g * BATCHES + batch]++;
            }
        }
    }
    for (int g = 0; g < ng; g++) {
        double complex tot = 0;
        long c = 0;
        for (int q = 0; q < BATCHES; q++) {
            tot += bsum[g * BATCHES + q];
            c += bcnt[g * BATCHES + q];
        }
        double complex mean = tot / c;
        double v = 0;
        for (int q = 0; q < BATCHES; q++) {
            double complex bm = bsum[g * BATCHES + q] / bcnt[g * BATCHES + q];
            v += creal((bm - mean) * conj(bm - mean));
        }
        x->bchi[(long)b * ng + g] = mean;
        x->bse[(long)b * ng + g] = sqrt(v / (BATCHES - 1) / BATCHES);
    }
    return RL_OK;
}

static const rl_mc_sweep_fn ts_sweep = { ts_alloc, ts_free, ts_item, 0 };

rl_status rl_textsteps_run(const rl_family *f, const int *tok, long n, long ctx, const long *grid, int ng,
                           rl_textsteps_stats **out, rl_err *err)
{
    *out = NULL;
    const int nb = f->d / 2;
    const long nwin = n >= ctx ? n / ctx : 1;
    /* per block b (the sweep's items): its ng means and SEs at [b * ng + g] */
    double complex *bchi = rl_alloc_array((size_t)ng * nb, sizeof(double complex), err);
    double *bse = rl_alloc_array((size_t)ng * nb, sizeof(double), err);
    rl_textsteps_stats *s = NULL;
    rl_status st = RL_ENOMEM;
    if (!bchi || !bse)
        goto done;
    ts_ctx x = { f, tok, n, ctx, nwin, grid, ng, nb, bchi, bse };
    const rl_mc_gather g2[] = { { bchi, sizeof(double complex) * ng }, { bse, sizeof(double) * ng } };
    if ((st = rl_mc_sweep(nb, &ts_sweep, &x, g2, 2, err)) != RL_OK)
        goto done;
    st = RL_ENOMEM;
    if (!(s = rl_alloc_array(1, sizeof *s, err)) || !(s->chi = rl_alloc(sizeof(double complex) * ng * nb, err))
        || !(s->se = rl_alloc(sizeof(double) * ng * nb, err))) {
        rl_textsteps_free(s);
        goto done;
    }
    s->ng = ng;
    s->nb = nb;
    for (int b = 0; b < nb; b++)
        for (int g = 0; g < ng; g++) {
            s->chi[(long)g * nb + b] = bchi[(long)b * ng + g];
            s->se[(long)g * nb + b] = bse[(long)b * ng + g];
        }
    *out = s;
    st = RL_OK;
done:
    free(bchi);
    free(bse);
    return st;
}

void rl_textsteps_free(rl_textsteps_stats *s)
{
    if (!s)
        return;
    free(s->chi);
    free(s->se);
    free(s);
}
