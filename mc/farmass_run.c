/* farmass_run.c: the far-mass model's replicates over the sweep (farmass_run.h). */
#include "farmass_run.h"

#include <stdint.h>
#include <stdlib.h>

#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "farmass_walk.h"
#include "../sampling/family_ops.h"
#include "sweep.h"

typedef struct {
    const rl_family *f;
    int none;
    unsigned long stream, seed;
    const rl_mass_spec *sp;
    const long *grid;
    int ng;
    long far_from, per;
    double *rho, *mom, *srange;
} fr_ctx;

typedef struct {
    rl_chain *ch;
    rl_mass *acc;
    gsl_rng *r;
    double *q;
} fr_ws;

static void fr_free(void *ctx, void *ws);

static rl_status fr_alloc(void *ctx, void **ws, rl_err *err)
{
    const fr_ctx *x = ctx;
    fr_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    w->ch = rl_chain_alloc(x->f, 1);
    w->acc = rl_mass_alloc(x->sp);
    w->r = rl_rng_alloc();
    w->q = rl_alloc(sizeof(double) * x->f->d, err);
    if (!w->ch || !w->acc || !w->r || !w->q) {
        fr_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "farmass: out of memory for a thread's chain and accumulator");
    }
    *ws = w;
    return RL_OK;
}

static void fr_free(void *ctx, void *ws)
{
    fr_ws *w = ws;
    (void)ctx;
    if (!w)
        return;
    free(w->q);
    if (w->r)
        gsl_rng_free(w->r);
    rl_mass_free(w->acc);
    rl_chain_free(w->ch);
    free(w);
}

/* Replicate rep; RL_ECANCEL (the walk stopped) when the caller asked to stop. */
static rl_status fr_item(void *ctx, void *ws, long rep, rl_err *err)
{
    const fr_ctx *x = ctx;
    fr_ws *w = ws;
    const int ng = x->ng;
    rl_rng_stream(w->r, (uint64_t)x->seed, rl_stream_key(x->stream, (uint64_t)rep));
    if (rl_farmass_walk(x->none ? NULL : x->f, w->ch, w->r, w->q, w->acc, x->grid, ng, x->far_from,
                        x->rho + rep * x->per, x->mom + 2 * rep, x->srange + 3 * ng * rep) == RL_ECANCEL)
        return rl_fail(err, RL_ECANCEL, "cancelled");
    return rl_chain_status(w->ch, err);
}

static const rl_mc_sweep_fn fr_sweep = { fr_alloc, fr_free, fr_item, 0 };

rl_status rl_farmass_replicates(const rl_family *f, unsigned long stream, long reps, unsigned long seed,
                                const rl_mass_spec *sp, const long *grid, int ng, long far_from, double *rho,
                                double *mom, double *srange, rl_err *err)
{
    const long per = (long)ng * sp->nlam * rl_mass_nconf(sp);
    fr_ctx x = { f, rl_family_fixed(f), stream, seed, sp, grid, ng, far_from, per, rho, mom, srange };
    const rl_mc_gather g[] = {
        { rho, sizeof(double) * per }, { mom, sizeof(double) * 2 }, { srange, sizeof(double) * 3 * ng } };
    return rl_mc_sweep(reps, &fr_sweep, &x, g, 3, err);
}
