/* values.c: claim 4, the far value contribution with and without value transport.
 *
 * r = sum_far alpha_j P(j->i) v_j with alpha_j = rho/M and v_j = vbar + xi_j.
 * For i.i.d. orthogonal steps <P(j->i)v, P(j'->i)v> = <P(j->j')v, v>, whose
 * mean on SO(2) block b is Re(chi_b^{|j-j'|}) ||v_b||^2, so exactly
 * (docs/theory/claim4-values.md#value-transport "Value transport", plus the noise, whose cross
 * terms vanish):
 *   E||r||^2   = (rho/M)^2 [ sum_b ||vbar_b||^2 S(chi_b, M) + M E||xi||^2 ],
 *   E||r_b||^2 = (rho/M)^2 [ ||vbar_b||^2 S(chi_b, M) + M E||xi_b||^2 ],
 *   S(chi, M)  = M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta.
 * chi = 1 (no transport, or a block that has not mixed): S = M^2, ||r|| = rho ||vbar||,
 * flat in M.  |chi| < 1: S <= M (1 + |chi|)/(1 - |chi|), ||r|| ~ 1/sqrt(M) (slope -1/2
 * in log-log) once M is well past the block's window. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>

#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../mc/sweep_cases.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"
#include "../theory/study.h"
#include "../theory/theory.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claim_fns.h"
#include "claims.h"
#include "values.h"
#include "../mc/routes.h"
#include "../mc/value_walk.h"
#include "../mc/sweep.h"
#include "prose_experiments.h"

#define RHO 0.9     /* far mass: most of the softmax is far at long context (claim 3) */
#define SIGMA 0.1   /* ||xi|| (Rademacher entries +-SIGMA/sqrt(d)) */
#define KNEAR 16    /* near tokens between the query and the far ones */

static rl_val_size size_of(int preset)
{
    rl_val_size q = { 48, 64, 65536, 8, 4096, 48, 4096 };
    rl_val_size f = { 512, 64, 65536, 8, 65536, 256, 65536 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* The rows of the run: the values sweep's cases (mc/sweep_cases.c: all, or
 * those of `families`) in slot order, each on its own streams (the same in
 * any subset); row 0 is the baseline none (no value transport: the
 * identity family) in every subset; a `small` case (O(d^3) per step: Haar)
 * at d = haar_d with its own replicates and length.  *nfam: how many. */
static rl_status families(const rl_val_size *z, const char *families, rl_val_fam *fa, int *nfam, rl_err *err)
{
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    int n;
    RL_TRY(rl_sweep_cases(RL_SWEEP_VALUES, z->d, families, c, RL_SWEEP_CASES_MAX, &n, err));
    for (int k = 0; k < n; k++) {
        rl_val_fam *v = &fa[k];
        if (c[k].slot >= 64) /* RL_STREAM_VALUES_NEAR + 16 slot + j: today's slots only */
            return rl_fail(err, RL_EINTERNAL, "values: case %s has no near-target stream", c[k].label);
        *v = (rl_val_fam){ c[k].label, rl_family_fixed(&c[k].f), c[k].f, z->reps, z->mmax, c[k].slot, c[k].stream };
        if (c[k].small) {
            v->f.d = z->haar_d;
            v->reps = z->haar_reps;
            v->mmax = z->haar_mmax;
        }
    }
    *nfam = n;
    return RL_OK;
}

/* The law the claim names for the total's slope: 0 without transport (the
 * background adds up coherently), -1/2 when every block has the same |chi| < 1
 * (one law: incoherent once past the window), NAN when the blocks differ
 * (the study's U(-w_b, w_b): no single law). */
static double target_of(const rl_val_fam *fa, const double complex *chi, int nb)
{
    if (fa->none)
        return 0.0;
    for (int b = 1; b < nb; b++)
        if (fabs(cabs(chi[b]) - cabs(chi[0])) > 1e-12)
            return NAN;
    return -0.5;
}

/* The mean step per block from the registry's closed form (SO(2) form:
 * E[R(theta_b)] = chi_b, d/2 blocks of 2 coordinates; any family with
 * E[M] = cI, or none: one block of d coordinates, chi = c or 1), and
 * ||vbar_b||^2.  Returns the number of blocks. */
static int blocks_of(const rl_val_fam *fa, const double *vbar, double complex *chi, double *vn2, int *width)
{
    const rl_family *f = &fa->f;
    const int d = f->d;
    if (!fa->none && rl_family_mean_blocks(f) > 1) {
        rl_family_ops_of(f)->mean(f, NULL, chi, NULL);
        for (int b = 0; b < d / 2; b++)
            vn2[b] = vbar[b] * vbar[b] + vbar[b + d / 2] * vbar[b + d / 2];
        *width = 2;
        return d / 2;
    }
    chi[0] = fa->none ? 1.0 : rl_family_mean_norm(f, NULL, NULL);
    vn2[0] = 0;
    for (int i = 0; i < d; i++)
        vn2[0] += vbar[i] * vbar[i];
    *width = d;
    return 1;
}

/* sum_{delta=1}^{M} chi^delta, summed directly (the closed form cancels near chi = 1). */
static double complex geo_sum(double complex chi, long m)
{
    double complex p = 1, s = 0;
    for (long k = 1; k <= m; k++) {
        p *= chi;
        s += p;
    }
    return s;
}

/* Least-squares slope of y against x, unweighted: c1 = sum (x - xbar)(y - ybar)
 * / sum (x - xbar)^2 (gsl_fit_linear; its intercept and covariances unused). */
static double ls_slope(const double *x, const double *y, int n)
{
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    return c1;
}

/* Slope of log rms against log M over grid points g0..ng-1 and its jackknife
 * SE: grp[i * ng + g] holds group i's sum of ||r||^2 (per block or total). */
static void fit_slope(const long *grid, int ng, int g0, const double *grp, long reps, double *slope, double *se)
{
    const int n = ng - g0;
    double x[n], y[n], s[RL_VAL_NGROUP], mean = 0;
    const long per = reps / RL_VAL_NGROUP;
    for (int g = g0; g < ng; g++) {
        double tot = 0;
        for (int i = 0; i < RL_VAL_NGROUP; i++)
            tot += grp[i * ng + g];
        x[g - g0] = log((double)grid[g]);
        y[g - g0] = 0.5 * log(tot / reps);
    }
    *slope = ls_slope(x, y, n);
    for (int i = 0; i < RL_VAL_NGROUP; i++) {
        for (int g = g0; g < ng; g++) {
            double tot = 0;
            for (int j = 0; j < RL_VAL_NGROUP; j++)
                tot += j == i ? 0 : grp[j * ng + g];
            y[g - g0] = 0.5 * log(tot / (reps - per));
        }
        s[i] = ls_slope(x, y, n);
        mean += s[i] / RL_VAL_NGROUP;
    }
    double v = 0;
    for (int i = 0; i < RL_VAL_NGROUP; i++)
        v += (s[i] - mean) * (s[i] - mean);
    *se = sqrt(v * (RL_VAL_NGROUP - 1) / RL_VAL_NGROUP);
}

/* The predicted slope: the same fit on the exact rms. */
static double pred_slope(const long *grid, int ng, int g0, const double *pred_msq)
{
    const int n = ng - g0;
    double x[n], y[n];
    for (int g = g0; g < ng; g++) {
        x[g - g0] = log((double)grid[g]);
        y[g - g0] = 0.5 * log(pred_msq[g]);
    }
    return ls_slope(x, y, n);
}

static const char *slope_class(double s)
{
    return s <= -0.4 ? "incoherent (~1/sqrt M)" : s >= -0.1 ? "coherent (flat)" : "transitional";
}

/* ---------- the far contribution ---------- */

/* One family's sweep (mc/sweep.h): replicate rep walks on the stream
 * (fa->stream, rep) into out[rep * ng * d ...] (ng x d sums). */
typedef struct {
    const rl_val_fam *fa;
    int d, ng;
    long seed;
    const double *vbar;
    const long *grid;
    double *out;
} walk_ctx;

/* A thread's stepper (none without transport), RNG and walk scratch. */
typedef struct {
    rl_stepper *st;
    gsl_rng *r;
    double *x, *tmp;
} walk_ws;

static void walk_free(void *ctx, void *ws);

static rl_status walk_alloc(void *ctx, void **ws, rl_err *err)
{
    const walk_ctx *c = ctx;
    walk_ws *w = rl_xmalloc(sizeof *w);
    w->st = c->fa->none ? NULL : rl_stepper_alloc(&c->fa->f, 1);
    w->r = rl_rng_alloc();
    w->x = rl_xmalloc(sizeof(double) * c->d);
    w->tmp = rl_xmalloc(sizeof(double) * c->d);
    if (!w->r || (!c->fa->none && !w->st)) {
        const char *what = !w->r ? "random number generator" : "stepper";
        walk_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a %s", what);
    }
    *ws = w;
    return RL_OK;
}

static void walk_free(void *ctx, void *ws)
{
    walk_ws *w = ws;
    (void)ctx;
    free(w->x);
    free(w->tmp);
    gsl_rng_free(w->r);
    rl_stepper_free(w->st);
    free(w);
}

static rl_status walk_item(void *ctx, void *ws, long rep, rl_err *err)
{
    const walk_ctx *c = ctx;
    walk_ws *w = ws;
    rl_rng_stream(w->r, (uint64_t)c->seed, rl_stream_key(c->fa->stream, (uint64_t)rep));
    rl_value_walk(w->st, w->r, c->d, c->vbar, SIGMA, KNEAR, c->grid, c->ng, w->x, w->tmp,
                  c->out + rep * c->ng * c->d);
    return w->st ? rl_stepper_status(w->st, err) : RL_OK;
}

static const rl_mc_sweep_fn walk_sweep = { walk_alloc, walk_free, walk_item, 0 };

/* The per-replicate energies of the sums out (reps x ng x d): ||r_b||^2 at
 * be[(g nb + b) reps + rep], ||r||^2 at te[g reps + rep], their group sums
 * at grp[(b RL_VAL_NGROUP + i) ng + g] (b = nb: the total) and the mean of r at
 * mean[g d + i], all accumulated in replicate order. */
static void energies(const rl_val_far *o, int d, long reps, const double *out, double *be, double *te, double *grp,
                     double *mean)
{
    const int ng = o->ng, nb = o->nb;
    for (long rep = 0; rep < reps; rep++) {
        const int gi = (int)(rep * RL_VAL_NGROUP / reps);
        for (int g = 0; g < ng; g++) {
            const double sc = RHO / (double)o->grid[g], *v = out + (rep * ng + g) * d;
            double tot = 0;
            for (int b = 0; b < nb; b++) {
                double e = 0;
                if (o->width == 2)
                    e = sc * sc * (v[b] * v[b] + v[b + d / 2] * v[b + d / 2]);
                else
                    for (int i = 0; i < d; i++)
                        e += sc * sc * v[i] * v[i];
                be[((long)g * nb + b) * reps + rep] = e;
                grp[((long)b * RL_VAL_NGROUP + gi) * ng + g] += e;
                tot += e;
            }
            te[(long)g * reps + rep] = tot;
            grp[((long)nb * RL_VAL_NGROUP + gi) * ng + g] += tot;
            for (int i = 0; i < d; i++)
                mean[g * d + i] += sc * v[i] / reps;
        }
    }
}

/* Grid point g's measured E||r_b||^2, E||r||^2 and trace of Cov(r) with
 * their SEs (col: reps of scratch). */
static void grid_point(rl_val_far *o, int g, int d, long reps, const double *out, const double *be, const double *te,
                       const double *mean, double *col)
{
    const int nb = o->nb;
    const double sc = RHO / (double)o->grid[g];
    for (int b = 0; b < nb; b++) {
        const long i = (long)g * nb + b;
        rl_mean_se(be + i * reps, reps, 1, &o->bmsq[i], &o->bmsq_se[i]);
    }
    rl_mean_se(te + (long)g * reps, reps, 1, &o->msq[g], &o->msq_se[g]);
    /* trace of the covariance: sum_k ||r_k - rbar||^2 / (n - 1), its SE from the spread of the terms */
    for (long rep = 0; rep < reps; rep++) {
        const double *x = out + (rep * o->ng + g) * d;
        double e = 0;
        for (int i = 0; i < d; i++) {
            double u = sc * x[i] - mean[g * d + i];
            e += u * u;
        }
        col[rep] = e * (reps / (reps - 1.0));
    }
    rl_mean_se(col, reps, 1, &o->trcov[g], &o->trcov_se[g]);
}

/* The measurements of o from the replicates' sums out (reps x ng x d): the
 * means and SEs, and the group sums the slopes are fitted to. */
static void family_stats(rl_val_far *o, int d, long reps, const double *out)
{
    const int ng = o->ng, nb = o->nb;
    double *be = rl_xmalloc(sizeof(double) * reps * ng * nb), *te = rl_xmalloc(sizeof(double) * reps * ng);
    double *mean = rl_xcalloc((size_t)ng * d, sizeof(double)), *col = rl_xmalloc(sizeof(double) * reps);
    o->grp = rl_xcalloc((size_t)RL_VAL_NGROUP * ng * (nb + 1), sizeof(double));
    energies(o, d, reps, out, be, te, o->grp, mean);
    o->msq = rl_xmalloc(sizeof(double) * ng * 4);
    o->msq_se = o->msq + ng;
    o->trcov = o->msq + 2 * ng;
    o->trcov_se = o->msq + 3 * ng;
    o->bmsq = rl_xmalloc(sizeof(double) * ng * nb * 2);
    o->bmsq_se = o->bmsq + ng * nb;
    for (int g = 0; g < ng; g++)
        grid_point(o, g, d, reps, out, be, te, mean, col);
    free(be);
    free(te);
    free(col);
    free(mean);
}

/* A failed draw (sampling/steps.h) is returned as its status before any
 * statistic is formed (o keeps only its grid, freed by far_free). */
static rl_status run_family(long seed, const rl_val_fam *fa, rl_val_far *o, rl_err *err)
{
    const int d = fa->f.d;
    double *vbar = rl_xmalloc(sizeof(double) * d);
    for (int i = 0; i < d; i++)
        vbar[i] = 1.0 / sqrt((double)d); /* ||vbar|| = 1, even over the blocks */
    o->grid = rl_route_grid(fa->mmax, 4, 4, &o->ng);
    const int ng = o->ng;
    o->nb = blocks_of(fa, vbar, o->chi, o->vn2, &o->width);
    const long reps = fa->reps;
    double *out = rl_xmalloc(sizeof(double) * reps * ng * d);
    walk_ctx x = { fa, d, ng, seed, vbar, o->grid, out };
    const rl_mc_gather g = { out, sizeof(double) * ng * d };
    rl_status st = rl_mc_sweep(reps, &walk_sweep, &x, &g, 1, err);
    if (st == RL_OK)
        family_stats(o, d, reps, out);
    free(out);
    free(vbar);
    return st;
}

static void far_free(rl_val_far *o)
{
    free(o->grid);
    free(o->msq);
    free(o->bmsq);
    free(o->grp);
}

/* ---------- the verdict rows ---------- */

/* |measured - predicted| in standard errors; a difference at the rounding
 * level (<= 1e-12) counts as none, since constant samples (no transport:
 * P = I) have a standard error of rounding noise too. */
static double zscore(double diff, double se)
{
    diff = fabs(diff);
    return diff <= 1e-12 ? 0 : se > 0 ? diff / se : INFINITY;
}


void rl_val_agree_row(rl_report *rep, int none, double x, const char *what, const char *predicted,
                      const char *measured)
{
    if (none) /* P = I: r = rho vbar + (rho/M) sum xi, every law is the construction's */
        rl_report_identity(rep, x <= 5, what, predicted, measured);
    else
        rl_report_decide(rep, &rl_rule_agree, x, NULL, what, predicted, measured);
}

void rl_val_block_row(rl_report *rep, const char *label, int nb, int ng, long reps, double worst_bz)
{
    char a[200], b[200], w[256], few[128];
    /* one block's ||r_b||^2 is a sum of two squares, close to an exponential
     * variable once the block has mixed: the mean of n of them has skewness
     * 2/sqrt(n), and a z-score with the sample SE is a 5-sigma test only when
     * that is small (n >= 256: <= 0.125); below, the run cannot decide */
    const int enough = reps >= RL_VAL_BLOCK_REPS;
    rl_report_decide(rep, &rl_rule_agree_n, enough ? worst_bz - 5 : NAN, NULL,
                     rl_fmt(w, sizeof w, "%s: E‖r_b‖² per block = (ρ/M)²[‖v̄_b‖² S(χ_b, M) + M σ² 2/d]", label),
                     rl_fmt(a, sizeof a, "∣z∣ ≤ 5 for %d blocks × %d lengths", nb, ng),
                     rl_fmt(b, sizeof b, "max ∣z∣ = %.2f (sample SE, %ld replicates%s)", worst_bz, reps,
                            enough ? ""
                                   : rl_fmt(few, sizeof few, " < %d: skewed χ²₂ terms; %d replicates would decide it",
                                            RL_VAL_BLOCK_REPS, RL_VAL_BLOCK_REPS)));
}

void rl_val_slope_rows(rl_report *rep, const char *label, int none, long mlo, long mhi, double slope, double se,
                       double pred, double target)
{
    char a[200], b[200], w[256];
    const double x = zscore(slope - pred, se);
    rl_val_agree_row(rep, none, x,
                     rl_fmt(w, sizeof w, "%s: log-log slope of ‖r‖_rms against M_L (%ld..%ld)", label, mlo, mhi),
                     isnan(target) ? rl_fmt(a, sizeof a, "%.4f (exact formula; no single law: blocks differ)", pred)
                                   : rl_fmt(a, sizeof a, "%.4f (exact formula)", pred),
                     rl_fmt(b, sizeof b, "%.4f ± %.2g (∣z∣ = %.2f)", slope, se, x));
    if (isnan(target))
        return;
    /* no sampling: the exact formula's slope over the fitted range against
     * the law; 0.05 allows the finite-M correction of S(chi, M) */
    const int named = fabs(pred - target) < 0.05;
    rl_fmt(w, sizeof w, "%s: the exact formula's slope over %ld..%ld is the law %g", label, mlo, mhi, target);
    rl_fmt(a, sizeof a, "%g within 0.05", target);
    rl_fmt(b, sizeof b, "%.4f", pred);
    if (none) /* no transport: S = M^2, flat by construction */
        rl_report_identity(rep, named, w, a, b);
    else
        rl_report_decide(rep, &rl_rule_exact, named, NULL, w, a, b);
}

void rl_val_cov_rows(rl_report *rep, const char *label, int none, double worst_cz, double worst_cb,
                     const char *measured)
{
    char w[256];
    rl_val_agree_row(rep, none, worst_cz, rl_fmt(w, sizeof w, "%s: trace of Cov(r) = E‖r‖² − ‖E r‖² (exact)", label),
                     "∣z∣ ≤ 5 at every M", measured);
    rl_fmt(w, sizeof w, "%s: trace of Cov(r) below the bound", label);
    const char *bnd = RL_PROSE_VALUES_COV_BOUND;
    char m[320];
    rl_fmt(m, sizeof m, "largest excess over the bound: %.2f SE", worst_cb);
    if (none)
        rl_report_identity(rep, worst_cb <= 5, w, bnd, m);
    else
        rl_report_decide(rep, &rl_rule_bound, worst_cb, NULL, w, bnd, m);
}

/* ---------- the near target ---------- */

#define NEAR_CHUNK 64

static const long near_ns[RL_VAL_NNEAR] = { 1, 2, 4, 8, 16 };

/* One length's near sweep (mc/sweep.h): route rr of n fresh steps on the
 * stream (RL_STREAM_VALUES_NEAR + 16 slot + j, rr) carries vt into
 * xs[rr (d + 1) ...], with ||P_n vt - vt||^2 last. */
typedef struct {
    const rl_val_fam *fa;
    int j;
    long n;
    int d;
    long seed;
    const double *vt;
    double *xs;
} near_ctx;

typedef struct {
    rl_stepper *st;
    gsl_rng *r;
} near_ws;

static void near_free(void *ctx, void *ws);

static rl_status near_alloc(void *ctx, void **ws, rl_err *err)
{
    const near_ctx *c = ctx;
    near_ws *w = rl_xmalloc(sizeof *w);
    w->st = c->fa->none ? NULL : rl_stepper_alloc(&c->fa->f, 1);
    w->r = rl_rng_alloc();
    if (!w->r || (!c->fa->none && !w->st)) {
        const char *what = !w->r ? "random number generator" : "stepper";
        near_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a %s", what);
    }
    *ws = w;
    return RL_OK;
}

static void near_free(void *ctx, void *ws)
{
    near_ws *w = ws;
    (void)ctx;
    gsl_rng_free(w->r);
    rl_stepper_free(w->st);
    free(w);
}

static rl_status near_item(void *ctx, void *ws, long rr, rl_err *err)
{
    const near_ctx *c = ctx;
    near_ws *w = ws;
    const int d = c->d;
    double *x = c->xs + rr * (d + 1);
    rl_rng_stream(w->r, (uint64_t)c->seed, rl_stream_key(RL_STREAM_VALUES_NEAR + 16 * c->fa->slot + c->j, (uint64_t)rr));
    memcpy(x, c->vt, sizeof(double) * d);
    if (w->st)
        rl_transport(w->st, w->r, c->n, NULL, x, 1);
    double e = 0;
    for (int i = 0; i < d; i++)
        e += (x[i] - c->vt[i]) * (x[i] - c->vt[i]);
    x[d] = e;
    return w->st ? rl_stepper_status(w->st, err) : RL_OK;
}

static const rl_mc_sweep_fn near_sweep = { near_alloc, near_free, near_item, NEAR_CHUNK };

/* E[P_n v] per family: a fixed unit target v, n fresh steps per replicate;
 * the run keeps per length the mean of every coordinate of P_n v and of
 * ||P_n v - v||^2 with their SEs (the replicates, near_reps x (d + 1) per
 * length, are not kept).  A failed draw (sampling/steps.h) is returned as
 * its status. */
static rl_status near_run(long seed, const rl_val_size *z, const rl_val_fam *fa, rl_val_near *o, rl_err *err)
{
    const int d = fa->f.d;
    const long reps = z->near_reps;
    rl_rng_local r0_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r0 = rl_rng_local_init(&r0_l);
    rl_rng_stream(r0, (uint64_t)seed, rl_stream_key(RL_STREAM_VALUES_TARGET, (uint64_t)d));
    rl_unit_vector(r0, d, o->vt);
    /* per replicate: P_n v (d) and ||P_n v - v||^2 */
    double *xs = rl_xmalloc(sizeof(double) * reps * (d + 1));
    near_ctx x = { fa, 0, 0, d, seed, o->vt, xs };
    const rl_mc_gather g = { xs, sizeof(double) * (d + 1) };
    for (int j = 0; j < RL_VAL_NNEAR; j++) {
        x.j = j;
        x.n = near_ns[j];
        rl_status st = rl_mc_sweep(reps, &near_sweep, &x, &g, 1, err);
        if (st != RL_OK) {
            free(xs);
            return st;
        }
        for (int i = 0; i < d; i++)
            rl_mean_se(xs + i, reps, d + 1, &o->mean[j][i], &o->se[j][i]);
        rl_mean_se(xs + d, reps, d + 1, &o->dev2[j], &o->dev2_se[j]);
    }
    free(xs);
    return RL_OK;
}

rl_status rl_exp_values_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_val_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    RL_TRY(families(&R->z, ctx->families, R->fa, &R->nfam, err));
    for (int k = 0; k < R->nfam; k++)
        RL_TRY(run_family(ctx->seed, &R->fa[k], &R->far[k], err));
    for (int k = 0; k < R->nfam; k++)
        RL_TRY(near_run(ctx->seed, &R->z, &R->fa[k], &R->near[k], err));
    return RL_OK;
}

void rl_exp_values_free(void *res)
{
    rl_val_res *R = res;
    if (!R)
        return;
    for (int k = 0; k < R->nfam; k++)
        far_free(&R->far[k]);
    free(R);
}

/* ---------- the summary: every number of the report ---------- */

rl_val_summary *rl_values_summary_alloc(const rl_val_res *R)
{
    rl_val_summary *S = rl_xcalloc(1, sizeof *S);
    S->nfam = R->nfam;
    for (int k = 0; k < R->nfam; k++) {
        const int ng = R->far[k].ng, nb = R->far[k].nb;
        rl_val_famsum *s = &S->fam[k];
        s->msq_pred = rl_xmalloc(sizeof(double) * (3 * ng + ng * nb + 4 * nb));
        s->trcov_pred = s->msq_pred + ng;
        s->bound = s->msq_pred + 2 * ng;
        s->bmsq_pred = s->msq_pred + 3 * ng;
        s->bslope = s->bmsq_pred + ng * nb;
        s->bslope_se = s->bslope + nb;
        s->bslope_pred = s->bslope + 2 * nb;
        s->bslope_z = s->bslope + 3 * nb;
        s->bwindow = rl_xmalloc(sizeof(long) * (nb > 0 ? nb : 1));
    }
    return S;
}

void rl_values_summary_free(rl_val_summary *S)
{
    if (!S)
        return;
    for (int k = 0; k < S->nfam; k++) {
        free(S->fam[k].msq_pred);
        free(S->fam[k].bwindow);
    }
    free(S);
}

/* Grid point g's exact E||r_b||^2, E||r||^2 and trace of Cov(r), the bound,
 * and the worst |z| of the measurements o (family dimension d) so far. */
static void point_summarise(const rl_val_far *o, int g, int d, rl_val_famsum *s)
{
    const int nb = o->nb;
    const long M = o->grid[g];
    const double sc = RHO / (double)M;
    double pm = 0, pmean = 0, pb = 0;
    for (int b = 0; b < nb; b++) {
        /* the block's share of the noise: width/d of E||xi||^2 = sigma^2 */
        const double noise = (double)M * SIGMA * SIGMA * o->width / d;
        const double S = rl_value_pair_sum(o->chi[b], M);
        const double a = cabs(o->chi[b]);
        const long i = (long)g * nb + b;
        s->bmsq_pred[i] = sc * sc * (o->vn2[b] * S + noise);
        if (o->width == 2)
            s->worst_bz = fmax(s->worst_bz, fabs(o->bmsq[i] - s->bmsq_pred[i]) / fmax(o->bmsq_se[i], 1e-300));
        pm += s->bmsq_pred[i];
        /* E r = (rho/M) E[P_K] sum_delta E[P_delta] vbar: on block b, chi^K sum chi^delta */
        pmean += sc * sc * o->vn2[b] * pow(a, 2.0 * KNEAR) * pow(cabs(geo_sum(o->chi[b], M)), 2);
        /* S <= min(M^2, M (1 + |chi|)/(1 - |chi|)) */
        pb += sc * sc * (o->vn2[b] * (a < 1 ? fmin((double)M * M, M * (1 + a) / (1 - a)) : (double)M * M) + noise);
    }
    s->msq_pred[g] = pm;
    s->worst_z = fmax(s->worst_z, fabs(o->msq[g] - pm) / fmax(o->msq_se[g], 1e-300));
    s->trcov_pred[g] = pm - pmean;
    s->bound[g] = pb;
    s->worst_cz = fmax(s->worst_cz, fabs(o->trcov[g] - s->trcov_pred[g]) / fmax(o->trcov_se[g], 1e-300));
    s->worst_cb = fmax(s->worst_cb, (o->trcov[g] - pb) / fmax(o->trcov_se[g], 1e-300));
}

/* The log-log slopes over the last six octaves (below mmax / 64), of the
 * total and of every block, measured (from the group sums) and predicted,
 * and the per-block table: each block's |z|, how many agree, the classes. */
static void slopes_summarise(const rl_val_far *o, long mmax, long reps, rl_val_famsum *s)
{
    const int ng = o->ng, nb = o->nb;
    const double *grp = o->grp;
    s->g0 = 0;
    for (int g = 0; g < ng; g++)
        if (o->grid[g] * 64 <= mmax)
            s->g0 = g;
    fit_slope(o->grid, ng, s->g0, grp + (long)nb * RL_VAL_NGROUP * ng, reps, &s->slope, &s->slope_se);
    s->slope_pred = pred_slope(o->grid, ng, s->g0, s->msq_pred);
    double pb[ng];
    for (int b = 0; b < nb; b++) {
        fit_slope(o->grid, ng, s->g0, grp + (long)b * RL_VAL_NGROUP * ng, reps, &s->bslope[b], &s->bslope_se[b]);
        for (int g = 0; g < ng; g++)
            pb[g] = s->bmsq_pred[(long)g * nb + b];
        s->bslope_pred[b] = pred_slope(o->grid, ng, s->g0, pb);
    }
    s->bslope_zmax = 0;
    s->bagree = 0;
    s->bclass[0] = s->bclass[1] = s->bclass[2] = 0;
    for (int b = 0; o->width == 2 && b < nb; b++) { /* the table of the SO(2) blocks */
        const double p = s->bslope_pred[b];
        s->bslope_z[b] = zscore(s->bslope[b] - p, s->bslope_se[b]);
        s->bwindow[b] = rl_mixing_window(cabs(o->chi[b]), 0.1);
        s->bslope_zmax = rl_worst(s->bslope_zmax, s->bslope_z[b]);
        s->bagree += s->bslope_z[b] <= 5;
        s->bclass[p <= -0.4 ? 0 : p >= -0.1 ? 2 : 1]++;
    }
}

/* The near target of family fa against E[P_n] v = chi^n v (per block for
 * SO(2)); for orthogonal P, ||P v - v||^2 = 2 - 2 <v, P v>, so
 * E||P_n v - v||^2 = 2 (1 - <v, E[P_n] v>). */
static void near_summarise(const rl_val_fam *fa, const rl_val_near *o, rl_val_famsum *s)
{
    const rl_family *f = &fa->f;
    const int d = f->d, so2 = !fa->none && rl_family_is_so2(f);
    const double *vt = o->vt;
    s->near_chi = fa->none ? 1.0 : (so2 ? 0 : rl_family_mean_norm(f, NULL, NULL));
    s->near_worst = 0;
    for (int j = 0; j < RL_VAL_NNEAR; j++) {
        const long n = near_ns[j];
        /* predicted E[P_n] v */
        double pv[RL_VAL_MAXD];
        if (so2) {
            for (int bb = 0; bb < d / 2; bb++) {
                double complex cn = rl_cpow_n(rl_angle_charfn(f->law, rl_so2_freq(d, f->base, f->scale, bb)), n);
                pv[bb] = creal(cn) * vt[bb] - cimag(cn) * vt[bb + d / 2];
                pv[bb + d / 2] = cimag(cn) * vt[bb] + creal(cn) * vt[bb + d / 2];
            }
        } else {
            for (int i = 0; i < d; i++)
                pv[i] = pow(s->near_chi, (double)n) * vt[i];
        }
        double pres = 0, pres_pred = 0, zmax = 0;
        for (int i = 0; i < d; i++) {
            zmax = rl_worst(zmax, zscore(o->mean[j][i] - pv[i], o->se[j][i]));
            pres += vt[i] * o->mean[j][i];
            pres_pred += vt[i] * pv[i];
        }
        const double dpred = 2 * (1 - pres_pred);
        const double dz = zscore(o->dev2[j] - dpred, o->dev2_se[j]);
        s->near_worst = rl_worst(s->near_worst, rl_worst(zmax, dz));
        /* <v, P v> = 1 - dev2/2 for orthogonal P: its SE is half that of dev2 */
        s->near[j] = (rl_val_near_cell){ pres, o->dev2_se[j] / 2, pres_pred, o->dev2[j], o->dev2_se[j], dpred, zmax };
    }
}

/* The reading of the study's law: how many of its blocks are incoherent
 * and their share of ||vbar||^2. */
static void reading_summarise(const rl_val_res *R, rl_val_summary *S)
{
    S->study = S->circle = -1;
    for (int k = 0; k < R->nfam; k++)
        if (!strcmp(R->fa[k].label, "so2-study"))
            S->study = k;
        else if (!strcmp(R->fa[k].label, "so2-circle"))
            S->circle = k;
    S->inc = 0;
    S->wsum = 0;
    if (S->study < 0)
        return;
    const rl_val_far *o = &R->far[S->study];
    for (int bb = 0; bb < o->nb; bb++)
        if (S->fam[S->study].bslope_pred[bb] <= -0.4)
            S->inc++, S->wsum += o->vn2[bb];
}

void rl_values_summarise(const rl_val_res *R, rl_val_summary *S)
{
    for (int k = 0; k < R->nfam; k++) {
        const rl_val_far *o = &R->far[k];
        rl_val_famsum *s = &S->fam[k];
        s->worst_z = s->worst_bz = s->worst_cz = 0;
        s->worst_cb = -INFINITY;
        for (int g = 0; g < o->ng; g++)
            point_summarise(o, g, R->fa[k].f.d, s);
        slopes_summarise(o, R->fa[k].mmax, R->fa[k].reps, s);
        s->target = target_of(&R->fa[k], o->chi, o->nb);
        near_summarise(&R->fa[k], &R->near[k], s);
    }
    reading_summarise(R, S);
}

/* ---------- the render: files, rows and tables from the summary ---------- */

/* The three TSV files of the families' rows (values_norm, _blocks, _slopes). */
typedef struct {
    rl_tsv *tn, *tb, *tsl;
} val_files;

/* Family k: its rows of the TSV files and its checks (the exact second
 * moment, per block, the slope, the covariance); ||r||_rms and the
 * block norms relative to ||vbar_b|| are the columns' units. */
static void val_family(const rl_val_res *R, const rl_val_summary *S, int k, const val_files *F, rl_report *rep)
{
    const rl_val_fam *fa = &R->fa[k];
    const rl_val_far *o = &R->far[k];
    const rl_val_famsum *s = &S->fam[k];
    char a[256], b[256], w[256];
    const int d = fa->f.d, nb = o->nb, ng = o->ng;
    for (int g = 0; g < ng; g++) {
        double rms = sqrt(o->msq[g]);
        rl_tsv_row(F->tn, "%s\t%d\t%ld\t%.9g\t%.3g\t%.9g\t%.9g\t%.3g\t%.9g\t%.6g\t%.9g\t%.3g\t%.9g\t%.9g\t%ld",
                   fa->label, d, o->grid[g], o->msq[g], o->msq_se[g], s->msq_pred[g], rms,
                   o->msq_se[g] / (2 * rms), sqrt(s->msq_pred[g]), RHO, o->trcov[g], o->trcov_se[g],
                   s->trcov_pred[g], s->bound[g], fa->reps);
    }
    /* block by block, so that each block's rows are consecutive (gnuplot lines) */
    for (int bb = 0; o->width == 2 && bb < nb; bb++)
        for (int g = 0; g < ng; g++) {
            const long i = (long)g * nb + bb;
            const double vn = sqrt(o->vn2[bb]), rn = sqrt(o->bmsq[i]);
            rl_tsv_row(F->tb, "%s\t%d\t%d\t%.6g\t%.12g\t%ld\t%.9g\t%.3g\t%.9g\t%.6g\t%.3g\t%.6g", fa->label, d, bb,
                       rl_so2_freq(d, RL_STUDY_BASE, 1.0, bb) * (fa->f.law == RL_ANG_CIRCLE ? NAN : 1), creal(o->chi[bb]),
                       o->grid[g], o->bmsq[i], o->bmsq_se[i], s->bmsq_pred[i], rn / vn,
                       o->bmsq_se[i] / (2 * rn * vn), sqrt(s->bmsq_pred[i]) / vn);
        }
    const long mlo = o->grid[s->g0], mhi = o->grid[ng - 1];
    rl_tsv_row(F->tsl, "%s\t%d\t-1\tnan\tnan\t%ld\t%ld\t%.6g\t%.3g\t%.6g\t%s", fa->label, d, mlo, mhi, s->slope,
               s->slope_se, s->slope_pred, slope_class(s->slope_pred));
    if (o->width == 2)
        for (int bb = 0; bb < nb; bb++)
            rl_tsv_row(F->tsl, "%s\t%d\t%d\t%.6g\t%.12g\t%ld\t%ld\t%.6g\t%.3g\t%.6g\t%s", fa->label, d, bb,
                       rl_so2_freq(d, RL_STUDY_BASE, 1.0, bb), creal(o->chi[bb]), mlo, mhi, s->bslope[bb],
                       s->bslope_se[bb], s->bslope_pred[bb], slope_class(s->bslope_pred[bb]));

    /* checks: the exact second moment, the slope, the covariance */
    const int none = fa->none;
    rl_val_agree_row(rep, none, s->worst_z,
                     rl_fmt(w, sizeof w, "%s (d = %d): E‖r‖² = (ρ/M)²[Σ_b ‖v̄_b‖² S(χ_b, M) + M σ²]", fa->label, d),
                     rl_fmt(a, sizeof a, "∣z∣ ≤ 5 at every M ≤ %ld", mhi),
                     rl_fmt(b, sizeof b, "max ∣z∣ = %.2f; ‖r‖_rms at M = %ld: %.4g ± %.2g (exact %.4g; coherent ρ‖v̄‖ = %.2f)",
                            s->worst_z, mhi, sqrt(o->msq[ng - 1]), o->msq_se[ng - 1] / (2 * sqrt(o->msq[ng - 1])),
                            sqrt(s->msq_pred[ng - 1]), RHO));
    if (o->width == 2)
        rl_val_block_row(rep, fa->label, nb, ng, fa->reps, s->worst_bz);
    rl_val_slope_rows(rep, fa->label, none, mlo, mhi, s->slope, s->slope_se, s->slope_pred, s->target);
    rl_val_cov_rows(rep, fa->label, none, s->worst_cz, s->worst_cb,
                    rl_fmt(b, sizeof b, "max ∣z∣ = %.2f; tr Cov at M = %ld: %.3g ± %.2g (exact %.3g, bound %.3g)",
                           s->worst_cz, mhi, o->trcov[ng - 1], o->trcov_se[ng - 1], s->trcov_pred[ng - 1],
                           s->bound[ng - 1]));
}

/* per-block classification for the two SO(2) angle laws */
static void val_block_tables(const rl_val_res *R, const rl_val_summary *S, rl_report *rep)
{
    const rl_val_size z = R->z;
    char a[256], b[256], w[256];
    size_t cap = 1 << 15;
    char *tab = rl_xmalloc(cap);
    for (int k = 0; k < R->nfam; k++) {
        const rl_val_far *o = &R->far[k];
        const rl_val_famsum *s = &S->fam[k];
        const int circle = R->fa[k].f.law == RL_ANG_CIRCLE;
        if (o->width != 2)
            continue;
        size_t u = snprintf(tab, cap, "block\tω_b\t∣χ_b∣\tW(0.1)\tslope (measured ± SE)\tslope (exact)\tclass\n");
        for (int bb = 0; bb < o->nb; bb++) {
            const double p = s->bslope_pred[bb];
            u += snprintf(tab + u, cap - u, "%d\t%s\t%.9f\t%ld\t%.4f ± %.2g\t%.4f\t%s%s\n", bb,
                          circle ? "(circle)" : rl_fmt(a, sizeof a, "%.3g", rl_so2_freq(z.d, RL_STUDY_BASE, 1.0, bb)),
                          cabs(o->chi[bb]), s->bwindow[bb], s->bslope[bb], s->bslope_se[bb], p, slope_class(p),
                          s->bslope_z[bb] <= 5 ? "" : " (measured differs)");
        }
        rl_report_table(rep,
                        rl_fmt(w, sizeof w, RL_PROSE_VALUES_SLOPES_CAPTION,
                               circle ? "Circle-uniform angles U(−π, π)" : "The study's U(−ω_b, ω_b), base 10000",
                               z.d, o->grid[s->g0], o->grid[o->ng - 1]),
                        tab);
        rl_report_decide(rep, &rl_rule_agree, s->bslope_zmax, NULL,
                         rl_fmt(w, sizeof w, RL_PROSE_VALUES_SLOPES_CHECK,
                                R->fa[k].label, s->bclass[0], s->bclass[1], s->bclass[2]),
                         "each block's slope = the exact formula's within 5 SE",
                         rl_fmt(b, sizeof b, "max ∣z∣ = %.2f; %d of %d blocks agree", s->bslope_zmax, s->bagree, o->nb));
    }
    free(tab);
}

/* The reading of the study's law: how much of the background stays coherent. */
static void val_reading(const rl_val_res *R, const rl_val_summary *S, rl_report *rep)
{
    if (S->study < 0 || S->circle < 0) /* a subset without the two SO(2) laws: nothing to read against */
        return;
    const rl_val_far *o = &R->far[S->study], *circ = &R->far[S->circle];
    const rl_val_famsum *s = &S->fam[S->study];
    rl_report_text(rep,
                   RL_PROSE_VALUES_READING,
                   S->inc, o->nb, 100 * S->wsum, o->grid[s->g0], o->grid[o->ng - 1], o->grid[o->ng - 1],
                   sqrt(o->msq[o->ng - 1]), sqrt(circ->msq[circ->ng - 1]), s->slope, s->slope_se);
}

static void near_render(const rl_val_res *R, const rl_val_summary *S, const rl_outdir *out, rl_report *rep)
{
    rl_tsv *t = rl_tsv_open(out, "values_near.tsv",
                            "family\td\tn_near\tpreserved\tpreserved_se\tpreserved_pred\tdev2\tdev2_se\tdev2_pred\tmax_abs_z\treps");
    size_t cap = 1 << 14, u = 0;
    char *tab = rl_xmalloc(cap), a[200], b[200], w[200];
    u += snprintf(tab + u, cap - u, "family");
    for (int j = 0; j < RL_VAL_NNEAR; j++)
        u += snprintf(tab + u, cap - u, "\t⟨v_t, P_%ld v_t⟩ (pred)", near_ns[j]);
    u += snprintf(tab + u, cap - u, "\n");
    for (int k = 0; k < R->nfam; k++) {
        const rl_val_fam *fa = &R->fa[k];
        const rl_val_famsum *s = &S->fam[k];
        const int d = fa->f.d, so2 = !fa->none && rl_family_is_so2(&fa->f);
        const double chi_c = s->near_chi;
        u += snprintf(tab + u, cap - u, "%s", fa->label);
        for (int j = 0; j < RL_VAL_NNEAR; j++) {
            const rl_val_near_cell *c = &s->near[j];
            rl_tsv_row(t, "%s\t%d\t%ld\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%ld", fa->label, d, near_ns[j],
                       c->pres, c->pres_se, c->pres_pred, c->dev2, c->dev2_se, c->dev2_pred, c->zmax, R->z.near_reps);
            u += snprintf(tab + u, cap - u, "\t%.3f ± %.3f (%.3f)", c->pres, c->pres_se, c->pres_pred);
        }
        u += snprintf(tab + u, cap - u, "\n");
        rl_val_agree_row(rep, fa->none, s->near_worst,
                        rl_fmt(w, sizeof w, "%s: near target on a route of n = 1..16 steps (d = %d)", fa->label, d),
                        fa->none ? "P = I: P_n v_t = v_t exactly"
                        : so2    ? RL_PROSE_VALUES_NEAR_SO2_PRED
                                 : rl_fmt(a, sizeof a, "E[P_n v_t] = %.4g^n v_t; E‖P_n v_t − v_t‖² = 2(1 − %.4g^n)", chi_c, chi_c),
                        rl_fmt(b, sizeof b, "max ∣z∣ = %.2f over %d coordinates and the deviation, %d lengths, %ld routes each",
                               s->near_worst, d, RL_VAL_NNEAR, R->z.near_reps));
    }
    rl_tsv_close(t);
    rl_report_table(rep, RL_PROSE_VALUES_NEAR_CAPTION, tab);
    free(tab);
}

void rl_exp_values_report(const void *res_, const rl_outdir *out, rl_report *rep)
{
    const rl_val_res *R = res_;
    const rl_val_size z = R->z;
    rl_val_summary *S = rl_values_summary_alloc(R);
    rl_values_summarise(R, S);
    rl_report_text(rep,
                   RL_PROSE_VALUES_INTRO,
                   RHO, SIGMA, SIGMA, KNEAR, z.d, z.reps, z.mmax, z.haar_d, z.haar_mmax, z.haar_reps, RL_VAL_NGROUP);

    val_files F;
    F.tn = rl_tsv_open(out, "values_norm.tsv",
                             "family\td\tM\tmsq\tmsq_se\tmsq_pred\trms\trms_se\trms_pred\tcoherent\ttrcov\ttrcov_se\t"
                             "trcov_pred\ttrcov_bound\treps");
    F.tb = rl_tsv_open(out, "values_blocks.tsv",
                             "law\td\tblock\tomega\tchi\tM\tmsq\tmsq_se\tmsq_pred\trms_norm\trms_norm_se\trms_norm_pred");
    F.tsl = rl_tsv_open(out, "values_slopes.tsv",
                              "family\td\tblock\tomega\tchi\tM_lo\tM_hi\tslope\tslope_se\tslope_pred\tclass");
    for (int k = 0; k < R->nfam; k++)
        val_family(R, S, k, &F, rep);
    rl_tsv_close(F.tn);
    rl_tsv_close(F.tb);
    rl_tsv_close(F.tsl);
    val_block_tables(R, S, rep);
    val_reading(R, S, rep);
    near_render(R, S, out, rep);
    rl_values_summary_free(S);

    const rl_plotvar vars[] = { RL_PV_I("d", z.d), RL_PV_R("rho", RHO), RL_PV_I("hd", z.haar_d) };
    rl_plot(out, "values_norm", "values_norm", vars, RL_NVARS(vars));
    rl_plot(out, "values_blocks", "values_blocks", vars, RL_NVARS(vars));
    rl_plot(out, "values_slopes", "values_slopes", vars, RL_NVARS(vars));
    rl_plot(out, "values_cov", "values_cov", vars, RL_NVARS(vars));
    rl_report_figure(rep, "values_norm.png",
                     RL_PROSE_VALUES_FIG_NORM);
    rl_report_figure(rep, "values_blocks.png",
                     RL_PROSE_VALUES_FIG_BLOCKS);
    rl_report_figure(rep, "values_slopes.png",
                     RL_PROSE_VALUES_FIG_SLOPES);
    rl_report_figure(rep, "values_cov.png",
                     RL_PROSE_VALUES_FIG_COV);
}
