/* sweep.c: the one Monte Carlo sweep (sweep.h). */
#include "sweep.h"

#include "../base/par/par.h"

/* A failure and the item it came from (-1: a workspace's allocation). */
typedef struct {
    long at;
    rl_err err;
} sweep_fail;

/* Keep the worse of *acc and (at, e): the larger status, then the lower
 * item, so that the kept failure does not depend on which thread met it. */
static void keep_worse(sweep_fail *acc, long at, const rl_err *e)
{
    if (e->status == RL_OK)
        return;
    if (acc->err.status == RL_OK || e->status > acc->err.status || (e->status == acc->err.status && at < acc->at)) {
        acc->at = at;
        acc->err = *e;
    }
}

static rl_status ws_alloc(const rl_mc_sweep_fn *fn, void *ctx, void **ws, rl_err *err)
{
    *ws = NULL;
    return fn->alloc ? fn->alloc(ctx, ws, err) : RL_OK;
}

static void ws_free(const rl_mc_sweep_fn *fn, void *ctx, void *ws)
{
    if (fn->free)
        fn->free(ctx, ws);
}

rl_status rl_mc_sweep(long n, const rl_mc_sweep_fn *fn, void *ctx, const rl_mc_gather *out, int nout,
                      rl_err *err)
{
    sweep_fail all = { -1, { RL_OK, "" } };
    const long chunk = fn->chunk > 0 ? fn->chunk : 1;
    long lo, hi; /* this rank's items; the others' are gathered below */
    rl_par_range(n, &lo, &hi);
#pragma omp parallel
    {
        sweep_fail mine = { -1, { RL_OK, "" } };
        rl_err e = { RL_OK, "" };
        void *ws;
        int have = ws_alloc(fn, ctx, &ws, &e) == RL_OK, stop = 0;
        keep_worse(&mine, -1, &e);
#pragma omp for schedule(dynamic, chunk)
        for (long i = lo; i < hi; i++) {
            if (!have || stop)
                continue; /* its allocation failed (kept above, item -1), or cancelled */
            e = (rl_err){ RL_OK, "" };
            if (rl_cancelled()) /* the caller asked to stop (err.h): skip what is left */
                rl_fail(&e, RL_ECANCEL, "cancelled");
            else if (fn->item(ctx, ws, i, &e) == RL_OK)
                continue;
            if (e.status == RL_OK) /* a failure without its message */
                e.status = RL_EINTERNAL;
            keep_worse(&mine, i, &e);
            if ((stop = e.status == RL_ECANCEL))
                continue; /* nothing more runs on this workspace */
            /* a fresh workspace: a stepper's failure is sticky */
            ws_free(fn, ctx, ws);
            e = (rl_err){ RL_OK, "" };
            have = ws_alloc(fn, ctx, &ws, &e) == RL_OK;
            keep_worse(&mine, -1, &e);
        }
        if (have)
            ws_free(fn, ctx, ws);
#pragma omp critical(rl_mc_sweep_fail)
        keep_worse(&all, mine.at, &mine.err);
    }
    /* every rank stops where one failed; otherwise all hold every item */
    rl_err fail = all.err;
    fail.status = rl_par_agree(fail.status, &fail);
    for (int a = 0; a < nout && fail.status == RL_OK; a++)
        if (out[a].buf && out[a].bytes)
            fail.status = rl_par_gather(out[a].buf, n, out[a].bytes, &fail);
    if (fail.status != RL_OK && err)
        *err = fail;
    return fail.status;
}
