/* mc_api.c: the public Monte Carlo API (api/include/routelab/mc.h) over the
 * route kernel (routes.c) and the mean estimate (family_mean.c): argument
 * checks and the planned size first, then the kernels `routelab mixing`
 * runs, with their statistics copied into the caller's arrays
 * (docs/library.md#library). */
#include "../api/include/routelab/mc.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/mem.h"
#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "family_mean.h"
#include "farmass_run.h"
#include "moment2_mc.h"
#include "routes.h"
#include "sweep_cases.h"

/* A long call's status, with RL_ECANCEL's message naming the call
 * ("routes: cancelled"): the kernels below say only "cancelled". */
static rl_status named(rl_status st, const char *name, rl_err *err)
{
    return st == RL_ECANCEL ? rl_fail(err, RL_ECANCEL, "%s: cancelled", name) : st;
}

rl_status rl_mc_route_grid(long nmax, long dense_to, int per_octave, long *grid, int cap, int *ng,
                           rl_err *err)
{
    if (!grid || !ng)
        return rl_fail(err, RL_EINPUT, "route grid: no array or no count (NULL)");
    *ng = 0;
    if (nmax < 1 || dense_to < 0 || per_octave < 1 || per_octave > 1024 || dense_to > 100000000)
        return rl_fail(err, RL_EINPUT, "route grid: nmax %ld must be >= 1, dense_to %ld in [0, 1e8], per_octave "
                       "%d in [1, 1024]", nmax, dense_to, per_octave);
    const long gcap = rl_route_grid_cap(dense_to, per_octave);
    RL_TRY(rl_mem_check("the route grid", sizeof(long) * (size_t)gcap, 0, err));
    long *g = rl_alloc_array((size_t)gcap, sizeof(long), err);
    if (!g)
        return RL_ENOMEM;
    int n = rl_route_grid_fill(nmax, dense_to, per_octave, g);
    *ng = n;
    if (n > cap) {
        free(g);
        return rl_fail(err, RL_EINPUT, "route grid: %d lengths do not fit the %d given", n, cap);
    }
    memcpy(grid, g, sizeof(long) * (size_t)n);
    free(g);
    return RL_OK;
}

/* Case `label` of sweep s (mc/sweep_cases.c: a label, or a registry name:
 * its first case) into *f and *stream; what: the sweep's name for the
 * message. */
static rl_status sweep_case(rl_sweep s, const char *what, const char *label, int d, rl_family *f,
                            unsigned long *stream, rl_err *err)
{
    if (!label || !*label)
        return rl_fail(err, RL_EINPUT, "%s case: no label", what);
    if (d < 2 || d > 4096)
        return rl_fail(err, RL_EINPUT, "%s case: d %d is outside [2, 4096]", what, d);
    rl_sweep_case c;
    rl_err e;
    if (rl_sweep_case_named(s, label, d, &c, &e) != RL_OK)
        return rl_fail(err, e.status, "%s case: %s", what, e.msg);
    RL_TRY(rl_family_check(&c.f, err));
    *f = c.f;
    *stream = c.stream;
    return RL_OK;
}

rl_status rl_mc_mixing_case(const char *label, int d, rl_family *f, unsigned long *stream, rl_err *err)
{
    if (!f || !stream)
        return rl_fail(err, RL_EINPUT, "mixing case: no family or no stream (NULL)");
    return sweep_case(RL_SWEEP_MIXING, "mixing", label, d, f, stream, err);
}

rl_status rl_mc_farmass_case(const char *label, int d, rl_family *f, unsigned long *stream, rl_err *err)
{
    if (!f || !stream)
        return rl_fail(err, RL_EINPUT, "farmass case: no family or no stream (NULL)");
    return sweep_case(RL_SWEEP_FARMASS, "farmass", label, d, f, stream, err);
}

rl_status rl_mc_farmass(const rl_family *f, unsigned long stream, int K, const double *lam, int nlam,
                        const double *slope, int nslope, const long *grid, int ng, long far_from, long reps,
                        unsigned long seed, int threads, double *rho, double *rho_mean, double *rho_se,
                        double *mom, double *srange, rl_err *err)
{
    if (!f || !rho || !mom || !srange)
        return rl_fail(err, RL_EINPUT, "farmass: a NULL family or output");
    RL_TRY(rl_family_check(f, err));
    if (f->kind == RL_FAM_TOKEN_SO2)
        return rl_fail(err, RL_EINPUT, "farmass: token-so2 reads a token sequence; not in this kernel");
    if (K < 1 || nlam < 1 || nlam > 64 || !lam || nslope < 0 || nslope > 64 || (nslope && !slope))
        return rl_fail(err, RL_EINPUT, "farmass: K %d must be >= 1, lambdas 1..64 (%d), slopes 0..64 (%d)", K, nlam,
                       nslope);
    for (int l = 0; l < nlam; l++)
        if (!(lam[l] >= 0 && lam[l] <= 1e6))
            return rl_fail(err, RL_EINPUT, "farmass: lambda %g is outside [0, 1e6]", lam[l]);
    for (int c = 0; c < nslope; c++)
        if (!(slope[c] >= 0 && slope[c] <= 1e6))
            return rl_fail(err, RL_EINPUT, "farmass: slope %g is outside [0, 1e6]", slope[c]);
    if (ng < 1 || !grid)
        return rl_fail(err, RL_EINPUT, "farmass: an empty grid");
    for (int g = 0; g < ng; g++)
        if (grid[g] <= K || (g && grid[g] <= grid[g - 1]) || grid[g] > 100000000L)
            return rl_fail(err, RL_EINPUT, "farmass: the grid of lengths L must ascend from above K = %d to at most "
                           "1e8 (grid[%d] = %ld)", K, g, grid[g]);
    if (far_from < 1 || reps < 1 || reps > 1000000000L || threads < 1 || threads > 1024)
        return rl_fail(err, RL_EINPUT, "farmass: far_from %ld >= 1, reps %ld in [1, 1e9], threads %d in [1, 1024]",
                       far_from, reps, threads);
    const long lmax = grid[ng - 1];
    /* the ALiBi decay table nslope x (lmax + 1) and the thread's accumulators */
    RL_TRY(rl_mem_check("the far-mass Monte Carlo", sizeof(double) * (size_t)(nslope + 1) * (size_t)(lmax + 1) * 2,
                        0, err));
    rl_mass_spec *sp = rl_mass_spec_alloc(K, nlam, lam, nslope, slope, lmax);
    if (!sp)
        return rl_fail(err, RL_ENOMEM, "farmass: out of memory for the ALiBi decay table");
    rl_status st = RL_ECANCEL; /* the table stops short when cancelled */
    if (!rl_cancelled()) {
        rl_set_threads(threads);
        st = rl_farmass_replicates(f, stream, reps, seed, sp, grid, ng, far_from, rho, mom, srange, err);
    }
    const long per = (long)ng * nlam * rl_mass_nconf(sp);
    rl_mass_spec_free(sp);
    RL_TRY(named(st, "farmass", err));
    /* means over replicates, as the experiment's table (experiments/farmass.c) */
    for (long i = 0; i < per && (rho_mean || rho_se); i++) {
        double m, se;
        rl_mean_se(rho + i, reps, per, &m, &se);
        if (rho_mean)
            rho_mean[i] = m;
        if (rho_se)
            rho_se[i] = se;
    }
    return RL_OK;
}

rl_status rl_mc_routes(const rl_family *f, const long *grid, int ng, long reps, unsigned long seed,
                       unsigned long stream, int threads, double *tr, double *tr_se, double *op,
                       double *coh, double *coh_se, double *sq, double *sq_se, double *chi,
                       double *chi_se, rl_err *err)
{
    if (!f)
        return rl_fail(err, RL_EINPUT, "routes: no family (NULL)");
    RL_TRY(rl_family_check(f, err));
    if (f->kind == RL_FAM_TOKEN_SO2)
        return rl_fail(err, RL_EINPUT, "routes: token-so2 reads a token sequence; not in this kernel");
    if (ng < 1 || !grid)
        return rl_fail(err, RL_EINPUT, "routes: an empty grid");
    for (int g = 0; g < ng; g++)
        if (grid[g] < 1 || (g && grid[g] <= grid[g - 1]))
            return rl_fail(err, RL_EINPUT, "routes: the grid must ascend from n >= 1 (grid[%d] = %ld)", g, grid[g]);
    if (reps < 1 || reps > 1000000000L)
        return rl_fail(err, RL_EINPUT, "routes: reps %ld is outside [1, 1e9]", reps);
    if (threads < 1 || threads > 1024)
        return rl_fail(err, RL_EINPUT, "routes: threads %d is outside [1, 1024]", threads);
    /* what rl_routes_run holds at once: per-route scalars, and per chunk of
     * 16 routes the mean matrices (dense) or block sums (SO(2)) */
    const int d = f->d, so2 = rl_family_is_so2(f), nb = so2 ? d / 2 : 0;
    const double chunks = ceil((double)reps / 16);
    const double need = 8.0 * (chunks * 16 * ng * 3 + (so2 ? chunks * 3.0 * ng * nb : chunks * (double)ng * d * d));
    RL_TRY(rl_mem_check("the route Monte Carlo", need < 1.8e19 ? (size_t)need : 0, need >= 1.8e19, err));
    rl_set_threads(threads);
    rl_route_stats *st;
    RL_TRY(named(rl_routes_run(f, grid, ng, reps, seed, stream, NULL, 0, &st, err), "routes", err));
    /* each statistic the caller asked for (NULL: not wanted), ng values */
    const struct { double *to; const double *from; } col[] = {
        { tr, st->tr }, { tr_se, st->tr_se }, { op, st->op }, { coh, st->coh },
        { coh_se, st->coh_se }, { sq, st->sq }, { sq_se, st->sq_se },
    };
    for (size_t c = 0; c < sizeof col / sizeof *col; c++)
        if (col[c].to)
            memcpy(col[c].to, col[c].from, sizeof(double) * (size_t)ng);
    for (long i = 0; i < (long)ng * nb; i++) {
        if (chi) {
            chi[2 * i] = creal(st->chi[i]);
            chi[2 * i + 1] = cimag(st->chi[i]);
        }
        if (chi_se)
            chi_se[i] = st->chi_se[i];
    }
    rl_route_stats_free(st);
    return RL_OK;
}

rl_status rl_mc_family_mean(const rl_family *f, long n, unsigned long seed, unsigned long stream,
                            double *norm, double *se, rl_err *err)
{
    if (!f || !norm || !se)
        return rl_fail(err, RL_EINPUT, "family mean: no family, or no place for the norm or its SE (NULL)");
    RL_TRY(rl_family_check(f, err));
    if (n < 2 || n > 10000000000L)
        return rl_fail(err, RL_EINPUT, "family mean: n %ld is outside [2, 1e10]", n);
    rl_family_mean_est e;
    RL_TRY(named(rl_family_mean_mc(f, n, seed, stream, &e, err), "family mean", err));
    *norm = e.norm;
    *se = e.se;
    return RL_OK;
}

rl_status rl_mc_moment2(const rl_family *f, long n, unsigned long seed, double *rate, double *se,
                        double *noise, double *mean_norm, rl_err *err)
{
    if (!f)
        return rl_fail(err, RL_EINPUT, "moment2: no family (NULL)");
    RL_TRY(rl_family_check(f, err));
    if (f->d > RL_MOMENT2_MAX_D)
        return rl_fail(err, RL_EINPUT, "moment2: the estimate needs d <= %d (it forms d^2 x d^2 matrices), got d = %d",
                       RL_MOMENT2_MAX_D, f->d);
    if (n < RL_MOMENT2_BATCHES || n > 100000000)
        return rl_fail(err, RL_EINPUT, "moment2: n %ld is outside [%d, 1e8]", n, RL_MOMENT2_BATCHES);
    rl_moment2_est e;
    RL_TRY(named(rl_moment2_estimate_family(f, NULL, 0, n, seed, &e, err), "moment2", err));
    if (rate)
        *rate = e.rate;
    if (se)
        *se = e.se;
    if (noise)
        *noise = e.noise;
    if (mean_norm)
        *mean_norm = e.mean_norm;
    return RL_OK;
}
