/* gapchain.c: near and far scores on one chain (gapchain.h). */
#include "gapchain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../par/par.h"
#include "../core/util.h"
#include "../sampling/rng.h"
#include "chain.h"

void rl_gc_free(rl_gc_cell *c)
{
    free(c->near);
    free(c->maxs); /* the other per-M arrays live in the same block */
}

rl_status rl_gc_run(const rl_gc_spec *sp, const double *q, const double *es, long reps, const long *g, int ng,
                    uint64_t seed, uint64_t tag, rl_gc_cell *c, rl_err *err)
{
    const int d = sp->f.d, nn = sp->nnear;
    const long mmax = g[ng - 1], L = sp->delta0 + mmax - 1;
    memset(c, 0, sizeof *c);
    if (ng > RL_GC_MAXG || nn > RL_GC_MAXNEAR || (nn > 0 && sp->near[nn - 1] >= sp->delta0))
        return rl_fail(err, RL_EINPUT, "gapchain: bad grid or near distances");
    c->reps = reps;
    c->ng = ng;
    c->nnear = nn;
    memcpy(c->g, g, sizeof(long) * ng);
    c->near = rl_xmalloc(sizeof(double) * reps * (nn > 0 ? nn : 1));
    c->maxs = rl_xmalloc(sizeof(double) * reps * ng * 5);
    c->maxabs = c->maxs + reps * ng;
    c->maxcen = c->maxs + 2 * reps * ng;
    c->lf = c->maxs + 3 * reps * ng;
    c->meanfar = c->maxs + 4 * reps * ng;
    rl_err fail = { RL_OK, "" }; /* the threads' failed draws, merged */
    long lo, hi; /* this rank's chains (core/par.h); the others' are gathered below */
    rl_par_range(reps, &lo, &hi);
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
        rl_chain *ch = rl_chain_alloc(&sp->f, 1);
#pragma omp for schedule(dynamic)
        for (long k = lo; k < hi; k++) {
            rl_rng_stream(r, seed, rl_stream_key(tag, (uint64_t)k));
            rl_chain_reset(ch, q);
            double mx = -INFINITY, ma = 0, mc = 0, F = 0, sum = 0;
            int gi = 0, ni = 0;
            for (long delta = 1; delta <= L; delta++) {
                rl_chain_step(ch, r, 0); /* now P_delta */
                if (delta < sp->delta0 && (ni >= nn || delta != sp->near[ni]))
                    continue;
                const double *x = rl_chain_rows(ch); /* P_delta^T q */
                double s = 0;
                for (int i = 0; i < d; i++)
                    s += x[i] * q[i];
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
        }
#pragma omp critical(rl_gc_fail)
        rl_chain_status_merge(ch, &fail);
        rl_chain_free(ch);
        gsl_rng_free(r);
    }
    /* every rank stops where one failed; otherwise all hold every chain */
    fail.status = rl_par_agree(fail.status, &fail);
    if (fail.status == RL_OK && nn > 0)
        rl_par_gather(c->near, reps, sizeof(double) * nn, &fail);
    for (int a = 0; a < 5 && fail.status == RL_OK; a++) /* maxs, maxabs, maxcen, lf, meanfar */
        rl_par_gather(c->maxs + a * reps * ng, reps, sizeof(double) * ng, &fail);
    if (fail.status != RL_OK) { /* no score of a NaN route passes for a result */
        rl_gc_free(c);
        memset(c, 0, sizeof *c);
        if (err)
            *err = fail;
        return fail.status;
    }
    return RL_OK;
}
