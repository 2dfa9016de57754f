/* gapchain.c: near and far scores on one chain (gapchain.h). */
#include "gapchain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "chain.h"
#include "sweep.h"

void rl_gc_free(rl_gc_cell *c)
{
    free(c->near);
    free(c->maxs); /* the other per-M arrays live in the same block */
}

/* One sweep's fixed inputs (mc/sweep.h); each thread's workspace is a
 * chain and its RNG. */
typedef struct {
    const rl_gc_spec *sp;
    const double *q, *es;
    const long *g;
    uint64_t seed, tag;
    long L;
    rl_gc_cell *c;
} gc_ctx;

typedef struct {
    gsl_rng *r;
    rl_chain *ch;
} gc_ws;

static void gc_free(void *ctx, void *ws);

static rl_status gc_alloc(void *ctx, void **ws, rl_err *err)
{
    const gc_ctx *x = ctx;
    gc_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    w->r = rl_rng_alloc();
    w->ch = rl_chain_alloc(&x->sp->f, 1);
    if (!w->r || !w->ch) {
        gc_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "gapchain: out of memory for a thread's chain");
    }
    *ws = w;
    return RL_OK;
}

static void gc_free(void *ctx, void *ws)
{
    gc_ws *w = ws;
    (void)ctx;
    if (!w)
        return;
    rl_chain_free(w->ch);
    if (w->r)
        gsl_rng_free(w->r);
    free(w);
}

/* Chain k: its near scores, then the running max, max |s|, max |s - E s|,
 * log-sum-exp and mean of the far scores at each grid point. */
static rl_status gc_item(void *ctx, void *ws, long k, rl_err *err)
{
    const gc_ctx *x = ctx;
    const rl_gc_spec *sp = x->sp;
    const double *q = x->q, *es = x->es;
    const long *g = x->g;
    rl_gc_cell *c = x->c;
    const int d = sp->f.d, nn = sp->nnear, ng = c->ng;
    gc_ws *w = ws;
    rl_rng_stream(w->r, x->seed, rl_stream_key(x->tag, (uint64_t)k));
    rl_chain_reset(w->ch, q);
    double mx = -INFINITY, ma = 0, mc = 0, F = 0, sum = 0;
    int gi = 0, ni = 0;
    for (long delta = 1; delta <= x->L; delta++) {
        rl_chain_step(w->ch, w->r, 0); /* now P_delta */
        if (delta < sp->delta0 && (ni >= nn || delta != sp->near[ni]))
            continue;
        const double *xr = rl_chain_rows(w->ch); /* P_delta^T q */
        double s = 0;
        for (int i = 0; i < d; i++)
            s += xr[i] * q[i];
        if (delta < sp->delta0) {
            c->near[k * nn + ni++] = s;
            continue;
        }
        long j = delta - sp->delta0; /* far key index */
        mx = fmax(mx, s);
        ma = fmax(ma, fabs(s));
        mc = fmax(mc, fabs(s - (es ? es[j] : 0)));
        F += exp(sp->lambda * s); /* lambda |s| <= lambda: no overflow for lambda < 700 */
        sum += s;
        if (j + 1 == g[gi]) {
            long o = k * ng + gi;
            c->maxs[o] = mx;
            c->maxabs[o] = ma;
            c->maxcen[o] = mc;
            c->lf[o] = log(F);
            c->meanfar[o] = sum / (j + 1);
            gi++;
        }
    }
    return rl_chain_status(w->ch, err);
}

static const rl_mc_sweep_fn gc_sweep = { gc_alloc, gc_free, gc_item, 0 };

rl_status rl_gc_run(const rl_gc_spec *sp, const double *q, const double *es, long reps, const long *g, int ng,
                    uint64_t seed, uint64_t tag, rl_gc_cell *c, rl_err *err)
{
    const int nn = sp->nnear;
    const long mmax = g[ng - 1], L = sp->delta0 + mmax - 1;
    memset(c, 0, sizeof *c);
    if (ng > RL_GC_MAXG || nn > RL_GC_MAXNEAR || (nn > 0 && sp->near[nn - 1] >= sp->delta0))
        return rl_fail(err, RL_EINPUT, "gapchain: bad grid or near distances");
    c->reps = reps;
    c->ng = ng;
    c->nnear = nn;
    memcpy(c->g, g, sizeof(long) * ng);
    c->near = rl_alloc(sizeof(double) * reps * (nn > 0 ? nn : 1), err);
    c->maxs = rl_alloc(sizeof(double) * reps * ng * 5, err);
    if (!c->near || !c->maxs) {
        rl_gc_free(c);
        memset(c, 0, sizeof *c);
        return RL_ENOMEM;
    }
    c->maxabs = c->maxs + reps * ng;
    c->maxcen = c->maxs + 2 * reps * ng;
    c->lf = c->maxs + 3 * reps * ng;
    c->meanfar = c->maxs + 4 * reps * ng;
    gc_ctx x = { sp, q, es, g, seed, tag, L, c };
    const rl_mc_gather out[] = {
        { nn > 0 ? c->near : NULL, sizeof(double) * nn },
        { c->maxs, sizeof(double) * ng },   { c->maxabs, sizeof(double) * ng },
        { c->maxcen, sizeof(double) * ng }, { c->lf, sizeof(double) * ng },
        { c->meanfar, sizeof(double) * ng },
    };
    rl_status st = rl_mc_sweep(reps, &gc_sweep, &x, out, 6, err);
    if (st != RL_OK) { /* no score of a NaN route passes for a result */
        rl_gc_free(c);
        memset(c, 0, sizeof *c);
    }
    return st;
}
