/* family_window.c: a family's ||E M|| and mixing window, the one place that
 * `routelab bound norm|window` and the library's rl_family_norm /
 * rl_family_window compute them (theory.h, <routelab/bounds.h>,
 * docs/theory/claim1-mixing.md#mixing-window, docs/library.md#family-surface). */
#include "theory.h"

#include <math.h>
#include <stdlib.h>

#include "../base/core/util.h"
#include "../sampling/family_cli.h"

rl_status rl_family_norm_at(const rl_family *f, const double *probs, int block, int as_log, double *v,
                            rl_err *err)
{
    /* no closed form, or one known only to within its error bound (Brownian,
     * Cayley: sums and quadratures): refused, never printed */
    RL_TRY(rl_family_norm_certain(f, as_log, err));
    const int h = f->d / 2, so2 = rl_family_is_so2(f);
    if (block >= 0 && !so2)
        return rl_fail(err, RL_EINPUT, "--block applies to the SO(2) families only");
    if (block >= 0 && block >= h)
        return rl_fail(err, RL_EINPUT, "--block %d is out of range [0, %d]", block, h - 1);
    double *blocks = rl_alloc_array((size_t)h + 1, sizeof(double), err);
    if (!blocks)
        return RL_ENOMEM;
    *v = as_log ? rl_family_log_mean_norm(f, probs, blocks) : rl_family_mean_norm(f, probs, blocks);
    if (block >= 0)
        *v = blocks[block];
    free(blocks);
    return RL_OK;
}

/* The library's entry: the arguments against the command's own flag
 * entries, then a token-so2 family's random table drawn as `routelab bound`
 * draws it (RL_BOUND_TABLE_SEED and _STREAM, theory.h), then the
 * norm. */
static rl_status norm_of(const rl_family *f, int block, int as_log, double *v, rl_err *err)
{
    int b = block;
    const rl_opt bo = RL_OPT_BLOCK_(&b);
    RL_TRY(rl_opt_check_value(&bo, block, err));
    rl_family g;
    double *table;
    RL_TRY(rl_family_with_table(f, RL_BOUND_TABLE_SEED, RL_BOUND_TABLE_STREAM, &g, &table, err));
    rl_status st = rl_family_norm_at(&g, NULL, block, as_log, v, err);
    free(table);
    return st;
}

rl_status rl_family_norm(const rl_family *f, int block, double *norm, rl_err *err)
{
    if (!f || !norm)
        return rl_fail(err, RL_EINPUT, "rl_family_norm: no family or no place for the norm (NULL)");
    return norm_of(f, block, 0, norm, err);
}

rl_status rl_family_window(const rl_family *f, int block, double eps, double *w, rl_err *err)
{
    if (!f || !w)
        return rl_fail(err, RL_EINPUT, "rl_family_window: no family or no place for the window (NULL)");
    double e = eps, lognorm;
    const rl_opt eo = RL_OPT_EPS_(&e);
    RL_TRY(rl_opt_check_value(&eo, eps, err));
    RL_TRY(norm_of(f, block, 1, &lognorm, err));
    const long n = rl_mixing_window_log(lognorm, eps);
    if (n == RL_WINDOW_UNDEFINED)
        return rl_fail(err, RL_EINPUT, "the window at these inputs is not a number: an input is outside the "
                       "range the formula can be evaluated in");
    *w = n < 0 ? INFINITY : (double)n;
    return RL_OK;
}
