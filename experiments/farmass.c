/* farmass.c: claim 3, the far mass of a full softmax against context length.
 *
 * With logits in [-lambda, lambda], K near and M far keys, every far weight is
 * >= e^{-lambda} and every near one <= e^{lambda}, so
 *   rho_D >= M / (M + K e^{2 lambda})
 *   (docs/theory/claim3-farmass.md#far-mass-closed-forms)
 * whatever the transport: rotation alone cannot keep the far mass down, and
 * the bound reaches 1/2 at M = K e^{2 lambda}.  An ALiBi bias -m delta makes
 * the far weights a convergent geometric series: rho <= 1/(1 + e^{-2 lambda}
 * (e^{mK} - 1)) < 1 for every M.  Measured here in the stylized model of
 * mc/farmass_walk.h for each transport family, lambda and L = K + M from 64 to 65,536.
 * Beside lambda as set, the data-dependent forms with the replicate's
 * observed max |logit| and its realised range Delta = max near - min far
 * logit (theory.h, rl_farmass_range), their looseness and L*(1/2).  Every
 * comparison of rho_D with a bound is an identity of the construction:
 * shown, not counted (rl_report_identity); the unit tests assert them.  The
 * evidence is the two far-score checks (rule agree). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_roots.h>

#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../mc/sweep_cases.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "../mc/farmass_run.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claim_fns.h"
#include "claims.h"
#include "farmass.h"
#include "prose_experiments.h"

static rl_fm_size size_of(int preset)
{
    rl_fm_size q = { 32, 64, 16, 65536, 4, 3, { 1, 2, 4 } };
    rl_fm_size f = { 768, 64, 16, 65536, 8, 5, { 0.5, 1, 2, 4, 8 } };
    return preset == RL_PRESET_FULL ? f : q;
}

/* The rows of the run: the farmass sweep's cases (mc/sweep_cases.c: all, or
 * those of `families`) in slot order, each on its own stream (the same in
 * any subset); row 0 is the baseline none (NoPE: the identity family, no
 * transport) in every subset; *nfam: how many. */
static rl_status families(int d, const char *families, rl_fm_fam *fa, int *nfam, rl_err *err)
{
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    int n;
    RL_TRY(rl_sweep_cases(RL_SWEEP_FARMASS, d, families, c, RL_SWEEP_CASES_MAX, &n, err));
    for (int k = 0; k < n; k++)
        fa[k] = (rl_fm_fam){ c[k].label, rl_family_fixed(&c[k].f), c[k].f, c[k].stream };
    *nfam = n;
    return RL_OK;
}

/* Context lengths L = lo * 2^{k/per_octave} up to hi (both included). */
static long *log_grid(long lo, long hi, int per_octave, int *ng)
{
    long *g = rl_xmalloc(sizeof(long) * (64 * per_octave + 2));
    int k = 0;
    for (int i = 0;; i++) {
        long L = lround(lo * pow(2.0, (double)i / per_octave));
        if (L > hi)
            break;
        if (k == 0 || L > g[k - 1])
            g[k++] = L;
    }
    if (g[k - 1] != hi)
        g[k++] = hi;
    *ng = k;
    return g;
}

/* A failed draw (sampling/steps.h) is returned as its status; *out then
 * holds its arrays all the same (freed with the result). */
static rl_status run_family(const rl_fm_fam *fa, long seed, const rl_fm_size *z, const rl_mass_spec *sp,
                            const long *grid, int ng, long far_from, rl_fm_run *out, rl_err *err)
{
    const long per = (long)ng * z->nlam * rl_mass_nconf(sp);
    rl_fm_run o = { fa->none ? 1 : z->reps, NULL, NULL, NULL };
    o.rho = rl_xmalloc(sizeof(double) * per * o.reps);
    o.mom = rl_xmalloc(sizeof(double) * 2 * o.reps);
    o.rng = rl_xmalloc(sizeof(double) * 3 * ng * o.reps);
    *out = o;
    return rl_farmass_replicates(&fa->f, fa->stream, o.reps, (unsigned long)seed, sp, grid, ng, far_from,
                                 o.rho, o.mom, o.rng, err);
}

/* lower(M) - alibi(M) (params: K, lambda, m): negative below the crossing. */
static double alibi_gap(double M, void *params)
{
    const double *p = params;
    return rl_farmass_lower(M, p[0], p[1]) - rl_farmass_alibi(M, p[0], p[1], p[2], 0);
}

/* The least M at which ALiBi's worst case falls to the rotation-only lower
 * bound: beyond it, the far mass under ALiBi is below what any rotation-only
 * attention must have.  Both increase with M; the lower bound tends to 1 and
 * ALiBi's to B_inf < 1, so they cross; doubling brackets the crossing in
 * [hi/2, hi], then GSL's bisection halves it until hi - lo <= 1/2 (at most
 * 200 halvings) and the crossing is ceil(hi). */
static double alibi_crossing(double K, double lam, double m)
{
    double lo = 1, hi = 1, p[3] = { K, lam, m };
    while (alibi_gap(hi, p) < 0) {
        lo = hi;
        hi *= 2;
        if (hi > 1e30)
            return INFINITY;
    }
    if (hi - lo <= 0.5) /* crossed at M = 1 already */
        return ceil(hi);
    gsl_function F = { alibi_gap, p };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
    gsl_root_fsolver_set(s, &F, lo, hi); /* gap(lo) < 0 <= gap(hi): a bracket */
    for (int i = 0; i < 200 && gsl_root_fsolver_x_upper(s) - gsl_root_fsolver_x_lower(s) > 0.5; i++)
        gsl_root_fsolver_iterate(s);
    hi = gsl_root_fsolver_x_upper(s);
    gsl_root_fsolver_free(s);
    return ceil(hi);
}

/* First L (log-interpolated between grid points) where y reaches 1/2; 0 if
 * already at the first point, -1 if never. */
static double half_crossing(const long *grid, const double *y, int ng)
{
    if (y[0] >= 0.5)
        return 0;
    for (int g = 1; g < ng; g++)
        if (y[g] >= 0.5) {
            double t = (0.5 - y[g - 1]) / (y[g] - y[g - 1]);
            return exp(log((double)grid[g - 1]) + t * (log((double)grid[g]) - log((double)grid[g - 1])));
        }
    return -1;
}

static const char *fmt_len(char *buf, size_t n, double L, long lo, long hi)
{
    if (L == 0)
        return rl_fmt(buf, n, "≤ %ld", lo);
    if (L < 0)
        return rl_fmt(buf, n, "> %ld", hi);
    return rl_fmt(buf, n, "%.0f", L);
}

/* The extremal configuration and NoPE, through the same accumulator: near
 * logits +lambda and far -lambda give the lower bound exactly; equal logits
 * (NoPE) give rl_farmass_lower / rl_farmass_alibi at lambda = 0. */
static void exact_run(rl_fm_res *R)
{
    const rl_fm_size *z = &R->z;
    const rl_mass_spec *sp = R->sp;
    const long *grid = R->grid;
    const int ng = R->ng;
    rl_mass *acc = rl_mass_alloc(sp);
    if (!acc)
        rl_fatal("out of memory (the far-mass accumulator)");
    R->ext_rho = rl_xmalloc(sizeof(double) * z->nlam * ng);
    R->ext_bound = rl_xmalloc(sizeof(double) * z->nlam * ng);
    for (int l = 0; l < z->nlam; l++) {
        rl_mass_reset(acc);
        int g = 0;
        for (long delta = 1; delta <= grid[ng - 1]; delta++) {
            rl_mass_add(acc, delta, delta <= z->K ? 1.0 : -1.0);
            if (delta == grid[g]) {
                double M = (double)(delta - z->K);
                R->ext_rho[l * ng + g] = rl_mass_rho(acc, l, 0);
                R->ext_bound[l * ng + g] = rl_farmass_lower(M, z->K, z->lam[l]);
                g++;
            }
        }
    }
    /* NoPE: all scores 1, so all logits equal */
    double worst_nope = 0;
    rl_mass_reset(acc);
    int g = 0;
    for (long delta = 1; delta <= grid[ng - 1]; delta++) {
        rl_mass_add(acc, delta, 1.0);
        if (delta == grid[g]) {
            double M = (double)(delta - z->K);
            for (int l = 0; l < z->nlam; l++) {
                worst_nope = rl_worst(worst_nope, fabs(rl_mass_rho(acc, l, 0) - rl_farmass_lower(M, z->K, 0)));
                for (int c = 1; c <= sp->nslope; c++)
                    worst_nope = rl_worst(worst_nope, fabs(rl_mass_rho(acc, l, c) -
                                                       rl_farmass_alibi(M, z->K, 0, sp->slope[c - 1], 0)));
            }
            g++;
        }
    }
    R->worst_nope = worst_nope;
    rl_mass_free(acc);
}

rl_status rl_exp_farmass_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_fm_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    for (int h = 1; h <= RL_FM_NSLOPE; h++)
        R->slopes[h - 1] = pow(2.0, -h);
    R->grid = log_grid(64, R->z.lmax, R->z.per_octave, &R->ng);
    R->sp = rl_mass_spec_alloc(R->z.K, R->z.nlam, R->z.lam, RL_FM_NSLOPE, R->slopes, R->z.lmax);
    if (!R->sp)
        return rl_fail(err, RL_ENOMEM, "farmass: out of memory for the ALiBi decay table");
    R->far_from = 1024;
    RL_TRY(families(R->z.d, ctx->families, R->fa, &R->nfam, err));
    exact_run(R);
    for (int k = 0; k < R->nfam; k++)
        RL_TRY(run_family(&R->fa[k], ctx->seed, &R->z, R->sp, R->grid, R->ng, R->far_from, &R->run[k], err));
    return RL_OK;
}

void rl_exp_farmass_free(void *res)
{
    rl_fm_res *R = res;
    if (!R)
        return;
    for (int k = 0; k < R->nfam; k++) {
        free(R->run[k].rho);
        free(R->run[k].mom);
        free(R->run[k].rng);
    }
    free(R->ext_rho);
    free(R->ext_bound);
    rl_mass_spec_free(R->sp);
    free(R->grid);
    free(R);
}

/* ---------- the summary: every number of the report ---------- */

rl_fm_summary *rl_farmass_summary_alloc(const rl_fm_res *R)
{
    rl_fm_summary *S = rl_xcalloc(1, sizeof *S);
    S->nfam = R->nfam;
    S->ng = R->ng;
    S->nl = R->z.nlam;
    S->nc = rl_mass_nconf(R->sp);
    S->per = (long)S->ng * S->nl * S->nc;
    S->cell = rl_xcalloc((size_t)(S->nfam > 0 ? S->nfam : 1) * S->per, sizeof *S->cell);
    return S;
}

void rl_farmass_summary_free(rl_fm_summary *S)
{
    if (!S)
        return;
    free(S->cell);
    free(S);
}

/* The data-dependent forms of one rotation-only cell (family k, length index
 * g, lambda lam, M far keys) into f[RL_FM_FO_N], from the replicates' far masses
 * col[0..reps-1] (col has room for 5 (reps + 1)); returns the least rho_D
 * minus its realised-range bound over the replicates. */
static double fm_forms(const rl_fm_res *R, int k, int g, double lam, double M, double *col, double *f)
{
    const rl_fm_size z = R->z;
    const int ng = R->ng;
    const rl_fm_run *run = R->run;
    double worst_range = INFINITY;
    double *bo = col + (z.reps + 1), *br = bo + (z.reps + 1), *lo = br + (z.reps + 1),
           *dr = lo + (z.reps + 1), e;
    for (long r = 0; r < run[k].reps; r++) {
        const double *sr = run[k].rng + (r * ng + g) * 3;
        lo[r] = lam * sr[2];
        dr[r] = lam * (sr[0] - sr[1]);
        bo[r] = rl_farmass_range(M, z.K, 2 * lo[r]);
        br[r] = rl_farmass_range(M, z.K, dr[r]);
        worst_range = fmin(worst_range, col[r] - br[r]);
    }
    double mb, mr;
    rl_mean_se(bo, run[k].reps, 1, &mb, &e);
    rl_mean_se(br, run[k].reps, 1, &mr, &e);
    rl_mean_se(lo, run[k].reps, 1, &f[RL_FM_LOBS], &e);
    rl_mean_se(dr, run[k].reps, 1, &f[RL_FM_DELTA], &e);
    /* looseness per replicate: each replicate has its own bound */
    for (long r = 0; r < run[k].reps; r++) {
        bo[r] = col[r] / bo[r];
        br[r] = col[r] / br[r];
    }
    f[RL_FM_BOBS] = mb;
    f[RL_FM_BRANGE] = mr;
    rl_mean_se(bo, run[k].reps, 1, &f[RL_FM_ROBS], &f[RL_FM_ROBS_SE]);
    rl_mean_se(br, run[k].reps, 1, &f[RL_FM_RRANGE], &f[RL_FM_RRANGE_SE]);
    return worst_range;
}

/* Family k's cells of S (the mean far mass and its SE per lambda,
 * configuration and length, with the bounds and, rotation only, the
 * data-dependent forms) and its worst cases: rotation-only never below the
 * bounds, ALiBi below its closed form, every replicate (col: scratch of
 * 5 (reps + 1)). */
static void fam_summarise(const rl_fm_res *R, int k, double *col, rl_fm_summary *S)
{
    const rl_fm_size z = R->z;
    const int ng = R->ng, nl = z.nlam, nc = S->nc;
    const long per = S->per;
    const rl_fm_run *run = &R->run[k];
    rl_fm_famsum *s = &S->fam[k];
    double worst_alibi[RL_FM_NSLOPE];
    for (int c = 0; c < RL_FM_NSLOPE; c++)
        worst_alibi[c] = -INFINITY;
    s->worst_low = s->worst_range = INFINITY;
    s->wl_lam = s->wl_L = 0;
    for (int l = 0; l < nl; l++)
        for (int c = 0; c < nc; c++)
            for (int g = 0; g < ng; g++) {
                const long i = ((long)g * nl + l) * nc + c;
                const double M = (double)(R->grid[g] - z.K), lam = z.lam[l];
                rl_fm_cell *o = &S->cell[k * per + i];
                o->low = rl_farmass_lower(M, z.K, lam);
                o->alibi = c ? rl_farmass_alibi(M, z.K, lam, R->slopes[c - 1], 0) : NAN;
                double mn = INFINITY, mx = -INFINITY;
                for (long r = 0; r < run->reps; r++) {
                    double x = run->rho[r * per + i];
                    mn = fmin(mn, x);
                    mx = rl_worst(mx, x);
                    col[r] = x;
                }
                rl_mean_se(col, run->reps, 1, &o->mean, &o->sem);
                o->min = mn;
                o->max = mx;
                o->ratio = o->mean / o->low;
                o->ratio_se = o->sem / o->low;
                for (int j = 0; j < RL_FM_FO_N; j++)
                    o->fo[j] = NAN;
                if (c == 0) /* rotation only: the realised logits lambda s, per replicate */
                    s->worst_range = fmin(s->worst_range, fm_forms(R, k, g, lam, M, col, o->fo));
                /* every replicate, not only the mean, must respect the bounds */
                if (c == 0 && mn - o->low < s->worst_low)
                    s->worst_low = mn - o->low, s->wl_lam = lam, s->wl_L = R->grid[g];
                if (c)
                    worst_alibi[c - 1] = rl_worst(worst_alibi[c - 1], mx - o->alibi);
            }
    s->worst_alibi = -INFINITY;
    for (int c = 0; c < RL_FM_NSLOPE; c++)
        s->worst_alibi = rl_worst(s->worst_alibi, worst_alibi[c]);
}

/* far scores: Haar-like for the Householder chain beyond its window */
static void scores_summarise(const rl_fm_res *R, rl_fm_summary *S)
{
    const int d = R->z.d;
    for (int k = 1; k < R->nfam; k++) {
        const rl_fm_run *run = &R->run[k];
        rl_fm_famsum *s = &S->fam[k];
        rl_mean_se(run->mom, run->reps, 2, &s->m1, &s->e1);
        rl_mean_se(run->mom + 1, run->reps, 2, &s->m2, &s->e2);
        /* one mean E[M] = cI (|c| < 1: mixed far beyond its window): Haar-like,
         * E (q^T U q)^2 = 1/d; circle angles: s = sum_b w_b cos Phi_b with
         * Phi_b uniform, E s^2 = (1/2) E sum w_b^2 = 2/(d+2); other SO(2)
         * laws (the study's): slow blocks never mix, no such law */
        const rl_family *f = &R->fa[k].f;
        const int haar = rl_family_mean_blocks(f) == 1, circle = !haar && f->law == RL_ANG_CIRCLE;
        s->mixed = haar ? 1 : circle ? 2 : 0;
        s->s2_pred = haar ? 1.0 / d : circle ? 2.0 / (d + 2) : NAN;
    }
}

/* Where the bound forces rho_D >= 1/2 and where each family's mean reaches
 * it, and the admissible length L*(1/2) of each form, with the replicates'
 * mean lambda_obs and Delta at L_max (Delta grows with L: more far keys, a
 * lower min). */
static void half_summarise(const rl_fm_res *R, rl_fm_summary *S)
{
    const rl_fm_size z = R->z;
    const int ng = R->ng, nl = z.nlam, nc = S->nc;
    const long per = S->per;
    double y[ng];
    S->half_ok = 1;
    for (int l = 0; l < nl; l++) {
        S->M_half[l] = rl_farmass_half(z.K, z.lam[l]);
        S->L_half[l] = z.K + S->M_half[l];
        for (int k = 0; k < R->nfam; k++) {
            rl_fm_famsum *s = &S->fam[k];
            for (int g = 0; g < ng; g++)
                y[g] = S->cell[k * per + ((long)g * nl + l) * nc].mean;
            const double Lm = half_crossing(R->grid, y, ng);
            s->L_half[l] = Lm;
            /* rho_D >= bound per replicate, so the mean reaches 1/2 no later */
            if (S->L_half[l] <= z.lmax && (Lm < 0 || Lm > S->L_half[l] * (1 + 1e-9)))
                S->half_ok = 0;
            const double *f = S->cell[k * per + ((long)(ng - 1) * nl + l) * nc].fo;
            s->L_star[l][0] = z.K + rl_farmass_admissible(z.K, 0.5, 2 * z.lam[l]);
            s->L_star[l][1] = z.K + rl_farmass_admissible(z.K, 0.5, 2 * f[RL_FM_LOBS]);
            s->L_star[l][2] = z.K + rl_farmass_admissible(z.K, 0.5, f[RL_FM_DELTA]);
        }
    }
    S->g_short = 0;
    for (int g = 0; g < ng; g++)
        if (R->grid[g] == 1024)
            S->g_short = g;
}

/* ALiBi with slope c (>= 1) at lambda index l against the rotation-only
 * lower bound into a; g4: the grid index of L_max/4; returns the largest
 * change of rho from L_max/4 to L_max over the replicates. */
static double alibi_slope(const rl_fm_res *R, const rl_fm_summary *S, int l, int c, int g4, rl_fm_alibi *a)
{
    const rl_fm_size z = R->z;
    const int ng = R->ng, nl = z.nlam, nc = S->nc;
    const long per = S->per, *grid = R->grid;
    const double m = R->slopes[c - 1], lam = z.lam[l];
    a->B_inf = 1.0 / (1.0 + exp(-2 * lam) * expm1(m * z.K));
    a->L_star = z.K + alibi_crossing(z.K, lam, m);
    a->low_max = rl_farmass_lower((double)(z.lmax - z.K), z.K, lam);
    a->worst = 0;
    a->first_below = -1;
    /* first grid length from which the worst family stays below the bound */
    for (int g = ng - 1; g >= 0; g--) {
        double wv = 0;
        for (int k = 0; k < R->nfam; k++)
            wv = rl_worst(wv, S->cell[k * per + ((long)g * nl + l) * nc + c].mean);
        if (g == ng - 1)
            a->worst = wv;
        if (wv < rl_farmass_lower((double)(grid[g] - z.K), z.K, lam))
            a->first_below = grid[g];
        else
            break;
    }
    /* flat: the far keys beyond L1 = L_max/4 add at most
     * e^{lambda} sum_{delta > L1} e^{-m delta} to F, against
     * N >= e^{-lambda} sum_{delta=1}^{K} e^{-m delta}: the change of
     * rho is at most e^{2 lambda - m L1} / (1 - e^{-mK}) */
    a->flat_bound = exp(2 * lam - m * grid[g4]) / -expm1(-m * z.K);
    double fc = 0;
    for (int k = 0; k < R->nfam; k++)
        for (long r = 0; r < R->run[k].reps; r++) {
            const double *x = R->run[k].rho + r * per;
            fc = rl_worst(fc, fabs(x[((long)(ng - 1) * nl + l) * nc + c] - x[((long)g4 * nl + l) * nc + c]));
        }
    a->flat_change = fc;
    a->below = a->worst < a->low_max;
    a->guaranteed = a->L_star <= z.lmax;
    return fc;
}

/* ALiBi against the rotation-only lower bound, every lambda and slope, and
 * how many slopes are below it per lambda. */
static void alibi_summarise(const rl_fm_res *R, rl_fm_summary *S)
{
    int g4 = 0;
    for (int g = 0; g < R->ng; g++)
        if (R->grid[g] <= R->z.lmax / 4)
            g4 = g;
    S->worst_flat = 0;
    S->flat_ok = 1;
    for (int l = 0; l < R->z.nlam; l++) {
        S->guaranteed[l] = S->below[l] = S->gbelow[l] = 0;
        for (int c = 1; c <= RL_FM_NSLOPE; c++) {
            rl_fm_alibi *a = &S->alibi[l][c - 1];
            const double fc = alibi_slope(R, S, l, c, g4, a);
            S->worst_flat = rl_worst(S->worst_flat, fc);
            S->flat_ok &= fc <= a->flat_bound + 1e-12;
            S->guaranteed[l] += a->guaranteed;
            S->below[l] += a->below;
            S->gbelow[l] += a->guaranteed && a->below;
        }
    }
}

void rl_farmass_summarise(const rl_fm_res *R, rl_fm_summary *S)
{
    const rl_fm_size z = R->z;
    S->window = rl_mixing_window(1.0 - 2.0 / z.d, 0.01);
    S->ext_worst = 0;
    for (int l = 0; l < z.nlam; l++)
        for (int g = 0; g < R->ng; g++)
            S->ext_worst = rl_worst(S->ext_worst, fabs(R->ext_rho[l * R->ng + g] - R->ext_bound[l * R->ng + g]));
    S->worst_nope = R->worst_nope;
    double *col = rl_xmalloc(sizeof(double) * (z.reps + 1) * 5);
    for (int k = 0; k < R->nfam; k++)
        fam_summarise(R, k, col, S);
    free(col);
    for (int k = 0; k < R->nfam; k++) {
        rl_fm_famsum *s = &S->fam[k];
        s->mixed = 0;
        s->m1 = s->e1 = s->m2 = s->e2 = s->s2_pred = NAN; /* the baseline none: unread */
    }
    scores_summarise(R, S);
    half_summarise(R, S);
    alibi_summarise(R, S);
}

/* ---------- the render: files, rows and tables from the summary ---------- */

static void exact_render(const rl_fm_res *R, const rl_fm_summary *S, const rl_outdir *out, rl_report *rep)
{
    const rl_fm_size *z = &R->z;
    const int ng = R->ng;
    rl_tsv *t = rl_tsv_open(out, "farmass_extremal.tsv", "lambda\tK\tL\tM\trho_extremal\tbound\tdiff");
    for (int l = 0; l < z->nlam; l++)
        for (int g = 0; g < ng; g++) {
            const double rho = R->ext_rho[l * ng + g], b = R->ext_bound[l * ng + g];
            const double M = (double)(R->grid[g] - z->K);
            rl_tsv_row(t, "%g\t%d\t%ld\t%.0f\t%.17g\t%.17g\t%.3g", z->lam[l], z->K, R->grid[g], M, rho, b, rho - b);
        }
    rl_tsv_close(t);
    char b[160];
    rl_report_identity(rep, S->ext_worst <= 1e-12,
                       RL_PROSE_FARMASS_EXTREMAL,
                       "ρ_D = M/(M + K e^{2λ}) to 1e-12",
                       rl_fmt(b, sizeof b, "max ∣ρ_D − bound∣ = %.2g over %d λ × %d lengths", S->ext_worst, z->nlam, ng));
    rl_report_identity(rep, S->worst_nope <= 1e-12,
                       RL_PROSE_FARMASS_NOPE,
                       "equal to 1e-12 (checks the distance convention)",
                       rl_fmt(b, sizeof b, "max difference %.2g", S->worst_nope));
}

/* farmass.tsv's rows of family k and its two identities: rotation-only
 * never below the bounds, ALiBi below its closed form. */
static void fam_render(const rl_fm_res *R, const rl_fm_summary *S, int k, rl_tsv *t, rl_report *rep)
{
    const rl_fm_size z = R->z;
    const int ng = R->ng, nl = z.nlam, nc = S->nc;
    const rl_fm_famsum *s = &S->fam[k];
    const char *label = R->fa[k].label;
    const long reps = R->run[k].reps;
    char b[256], w[256];
    for (int l = 0; l < nl; l++)
        for (int c = 0; c < nc; c++)
            for (int g = 0; g < ng; g++) {
                const rl_fm_cell *o = &S->cell[k * S->per + ((long)g * nl + l) * nc + c];
                const double *f = o->fo;
                rl_tsv_row(t, "%s\t%d\t%d\t%g\t%.6g\t%ld\t%.0f\t%.9g\t%.3g\t%.9g\t%.9g\t%.9g\t%.9g\t%.6g\t%.3g\t%ld\t"
                              "%.9g\t%.9g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g",
                           label, z.d, z.K, z.lam[l], c ? R->slopes[c - 1] : 0.0, R->grid[g],
                           (double)(R->grid[g] - z.K), o->mean, o->sem, o->min, o->max, o->low, o->alibi, o->ratio,
                           o->ratio_se, reps, f[RL_FM_BOBS], f[RL_FM_BRANGE], f[RL_FM_ROBS], f[RL_FM_ROBS_SE],
                           f[RL_FM_RRANGE], f[RL_FM_RRANGE_SE], f[RL_FM_LOBS], f[RL_FM_DELTA]);
            }
    rl_report_identity(rep, s->worst_low >= -1e-12 && s->worst_range >= -1e-12,
                       rl_fmt(w, sizeof w, RL_PROSE_FARMASS_ROTATION_CHECK, label),
                       "min over replicates, λ, L of ρ_D − bound ≥ 0 (both forms)",
                       rl_fmt(b, sizeof b, "min = %.3g (λ as set; at λ = %g, L = %.0f), %.3g (realised Δ); "
                              "replicates %ld × %d λ × %d L", s->worst_low, s->wl_lam, s->wl_L, s->worst_range,
                              reps, nl, ng));
    rl_report_identity(rep, s->worst_alibi <= 1e-12,
                       rl_fmt(w, sizeof w, RL_PROSE_FARMASS_ALIBI_WORST_CHECK, label),
                       "max over replicates, λ, L, m of ρ_D − bound ≤ 0",
                       rl_fmt(b, sizeof b, "max = %.3g", s->worst_alibi));
}

/* far scores: Haar-like for the Householder chain beyond its window */
static void scores_render(const rl_fm_res *R, const rl_fm_summary *S, const rl_outdir *out, rl_report *rep)
{
    const long far_from = R->far_from;
    char a[256], b[256], w[256];
    rl_tsv *ts = rl_tsv_open(out, "farmass_scores.tsv", "family\td\tfar_from\tmean_s\tmean_s_se\tmean_s2\tmean_s2_se\ts2_pred");
    for (int k = 1; k < R->nfam; k++) {
        const rl_fm_famsum *s = &S->fam[k];
        const char *label = R->fa[k].label;
        const int haar = s->mixed == 1;
        rl_tsv_row(ts, "%s\t%d\t%ld\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g", label, R->z.d, far_from, s->m1, s->e1, s->m2,
                   s->e2, s->s2_pred);
        if (s->mixed)
            rl_report_decide(rep, &rl_rule_agree, rl_effect_z(s->m2 - s->s2_pred, s->e2), NULL,
                             rl_fmt(w, sizeof w, "%s: far scores (δ ≥ %ld) %s", label, far_from,
                                    haar ? "are Haar-like" : "are fully mixed"),
                             rl_fmt(a, sizeof a, "E s² = %s = %.5f", haar ? "1/d" : "2/(d+2)", s->s2_pred),
                             rl_fmt(b, sizeof b, "%.5f ± %.5f (E s = %.4f ± %.4f)", s->m2, s->e2, s->m1, s->e1));
        else
            rl_report_text(rep,
                           RL_PROSE_FARMASS_SCORES_UNMIXED,
                           label, far_from, s->m1, s->e1, s->m2, s->e2);
    }
    rl_tsv_close(ts);
}

/* looseness of the bound at typical logits, and where it forces rho_D >= 1/2 */
static void half_render(const rl_fm_res *R, const rl_fm_summary *S, const rl_outdir *out, char *tab, size_t cap,
                        rl_report *rep)
{
    const rl_fm_size z = R->z;
    char a[256];
    size_t u = snprintf(tab, cap, "λ\tM at bound = 1/2 (K e^{2λ})\tL at bound = 1/2");
    for (int k = 0; k < R->nfam; k++)
        u += snprintf(tab + u, cap - u, "\tL where mean ρ_D = 1/2: %s", R->fa[k].label);
    u += snprintf(tab + u, cap - u, "\n");
    rl_tsv *th = rl_tsv_open(out, "farmass_half.tsv", "lambda\tK\tM_half_bound\tL_half_bound\tfamily\tL_half_measured");
    for (int l = 0; l < z.nlam; l++) {
        u += snprintf(tab + u, cap - u, "%g\t%.4g\t%.4g", z.lam[l], S->M_half[l], S->L_half[l]);
        for (int k = 0; k < R->nfam; k++) {
            const double Lm = S->fam[k].L_half[l];
            rl_tsv_row(th, "%g\t%d\t%.6g\t%.6g\t%s\t%.6g", z.lam[l], z.K, S->M_half[l], S->L_half[l], R->fa[k].label,
                       Lm);
            u += snprintf(tab + u, cap - u, "\t%s", fmt_len(a, sizeof a, Lm, R->grid[0], z.lmax));
        }
        u += snprintf(tab + u, cap - u, "\n");
    }
    rl_tsv_close(th);
    rl_report_table(rep, RL_PROSE_FARMASS_HALF_CAPTION, tab);
    rl_report_identity(rep, S->half_ok,
                       RL_PROSE_FARMASS_HALF_CHECK,
                       RL_PROSE_FARMASS_HALF_PRED,
                       S->half_ok ? "holds for all" : "violated (see table)");
}

/* the looseness of the three forms at two lengths */
static void looseness_render(const rl_fm_res *R, const rl_fm_summary *S, char *tab, size_t cap, rl_report *rep)
{
    const rl_fm_size z = R->z;
    const int nl = z.nlam, nc = S->nc;
    const long Ls[2] = { 1024, z.lmax };
    const int gs[2] = { S->g_short, R->ng - 1 };
    static const char *form[3] = { "(a) λ as set", "(b) observed max ∣logit∣", "(c) realised range Δ" };
    size_t u = snprintf(tab, cap, "family\tform");
    for (int l = 0; l < nl; l++)
        for (int j = 0; j < 2; j++)
            u += snprintf(tab + u, cap - u, "\tλ = %g, L = %ld", z.lam[l], Ls[j]);
    u += snprintf(tab + u, cap - u, "\n");
    for (int k = 0; k < R->nfam; k++)
        for (int v = 0; v < 3; v++) {
            u += snprintf(tab + u, cap - u, "%s\t%s", R->fa[k].label, form[v]);
            for (int l = 0; l < nl; l++)
                for (int j = 0; j < 2; j++) {
                    const rl_fm_cell *o = &S->cell[k * S->per + ((long)gs[j] * nl + l) * nc];
                    const double r = v == 0 ? o->ratio : v == 1 ? o->fo[RL_FM_ROBS] : o->fo[RL_FM_RRANGE];
                    const double e = v == 0 ? o->ratio_se : v == 1 ? o->fo[RL_FM_ROBS_SE] : o->fo[RL_FM_RRANGE_SE];
                    u += snprintf(tab + u, cap - u, "\t%.4g ± %.2g", r, e);
                }
            u += snprintf(tab + u, cap - u, "\n");
        }
    rl_report_table(rep, RL_PROSE_FARMASS_LOOSENESS_CAPTION, tab);
}

/* the admissible length: where each form forces rho_D >= 1/2 */
static void admissible_render(const rl_fm_res *R, const rl_fm_summary *S, const rl_outdir *out, char *tab,
                              size_t cap, rl_report *rep)
{
    const rl_fm_size z = R->z;
    const int nl = z.nlam, nc = S->nc;
    char a[256];
    size_t u = snprintf(tab, cap,
                        "family\tλ\tλ_obs(L_max)\tΔ(L_max)\tL*(1/2): (a)\t(b)\t(c)\tmeasured L where mean ρ_D = 1/2\n");
    rl_tsv *tl = rl_tsv_open(out, "farmass_admissible.tsv",
                             "family\tlambda\tK\tlambda_obs_Lmax\tdelta_Lmax\tL_star_set\tL_star_obs\tL_star_range\t"
                             "L_half_measured");
    for (int k = 0; k < R->nfam; k++)
        for (int l = 0; l < nl; l++) {
            const rl_fm_famsum *s = &S->fam[k];
            const double *f = S->cell[k * S->per + ((long)(R->ng - 1) * nl + l) * nc].fo;
            const double *Ls = s->L_star[l];
            rl_tsv_row(tl, "%s\t%g\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", R->fa[k].label, z.lam[l], z.K,
                       f[RL_FM_LOBS], f[RL_FM_DELTA], Ls[0], Ls[1], Ls[2], s->L_half[l]);
            u += snprintf(tab + u, cap - u, "%s\t%g\t%.3f\t%.3f\t%.4g\t%.4g\t%.4g\t%s\n", R->fa[k].label, z.lam[l],
                          f[RL_FM_LOBS], f[RL_FM_DELTA], Ls[0], Ls[1], Ls[2],
                          fmt_len(a, sizeof a, s->L_half[l], R->grid[0], z.lmax));
        }
    rl_tsv_close(tl);
    rl_report_table(rep, RL_PROSE_FARMASS_ADMISSIBLE_CAPTION, tab);
}

/* ALiBi against the rotation-only lower bound, and its far mass bounded */
static void alibi_render(const rl_fm_res *R, const rl_fm_summary *S, const rl_outdir *out, char *tab, size_t cap,
                         rl_report *rep)
{
    const rl_fm_size z = R->z;
    char a[256], b[256], w2[300];
    size_t u = snprintf(tab, cap, "m\tλ\tB_∞ = sup_M worst case\tL* (worst case ≤ rotation-only bound)\t"
                                  "max mean ρ_D(L_max) over families\trotation-only bound at L_max\tbelow at L_max\t"
                                  "first L below (worst family)\n");
    rl_tsv *ta = rl_tsv_open(out, "farmass_alibi.tsv",
                             "slope\tlambda\tK\tB_inf\tL_star\trho_Lmax_worst\tlower_Lmax\tbelow\tL_first_below\tflat_change\tflat_bound");
    for (int l = 0; l < z.nlam; l++) {
        for (int c = 1; c <= RL_FM_NSLOPE; c++) {
            const rl_fm_alibi *x = &S->alibi[l][c - 1];
            rl_tsv_row(ta, "%.6g\t%g\t%d\t%.9g\t%.6g\t%.6g\t%.6g\t%d\t%ld\t%.3g\t%.3g", R->slopes[c - 1], z.lam[l], z.K,
                       x->B_inf, x->L_star, x->worst, x->low_max, x->below, x->first_below, x->flat_change,
                       x->flat_bound);
            u += snprintf(tab + u, cap - u, "2^-%d\t%g\t%.9g\t%.4g\t%.4f\t%.4f\t%s\t%s\n", c, z.lam[l], x->B_inf,
                          x->L_star, x->worst, x->low_max, x->below ? "yes" : "no",
                          x->first_below > 0 ? rl_fmt(a, sizeof a, "%ld", x->first_below) : "—");
        }
        /* when no slope's crossing L* lies within the measured range, L_max is not
         * "long" for this lambda (the rotation-only bound is still small there):
         * the check cannot be decided here and is reported as info; below for a
         * slope whose L* <= L_max follows from the closed forms (mean <= worst
         * case <= rotation-only bound): an identity */
        const int guaranteed = S->guaranteed[l];
        rl_fmt(w2, sizeof w2, RL_PROSE_FARMASS_ALIBI_BELOW_CHECK, z.lam[l], z.lmax,
               guaranteed ? "" : " (out of range: every L* > L_max, the bound is still small)");
        rl_fmt(a, sizeof a, RL_PROSE_FARMASS_ALIBI_BELOW_PRED, guaranteed, z.lmax);
        rl_fmt(b, sizeof b, "%d of 8 slopes below (worst family's mean)", S->below[l]);
        /* not a claim of the study: never counted */
        if (guaranteed == 0)
            rl_report_info(rep, w2, a, b);
        else
            rl_report_identity(rep, S->gbelow[l] == guaranteed, w2, a, b);
    }
    rl_tsv_close(ta);
    rl_report_identity(rep, S->flat_ok,
                       RL_PROSE_FARMASS_ALIBI_FLAT,
                       "≤ e^{2λ − m L_max/4}/(1 − e^{−mK}) (every replicate, λ, m)",
                       rl_fmt(b, sizeof b, "max change %.3g", S->worst_flat));
    rl_report_table(rep, RL_PROSE_FARMASS_ALIBI_CAPTION, tab);
}

void rl_exp_farmass_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const rl_fm_res *R = res;
    const rl_fm_size z = R->z;
    rl_fm_summary *S = rl_farmass_summary_alloc(R);
    rl_farmass_summarise(R, S);

    rl_report_text(rep,
                   RL_PROSE_FARMASS_INTRO,
                   z.K, z.d, z.reps, z.lmax, S->window);
    exact_render(R, S, out, rep);
    rl_tsv *t = rl_tsv_open(out, "farmass.tsv",
                            "family\td\tK\tlambda\tslope\tL\tM\trho\trho_se\trho_min\trho_max\tlower_bound\t"
                            "alibi_bound\tratio\tratio_se\treps\tbound_obs\tbound_range\tratio_obs\tratio_obs_se\t"
                            "ratio_range\tratio_range_se\tlambda_obs\tdelta_range");
    for (int k = 0; k < R->nfam; k++)
        fam_render(R, S, k, t, rep);
    rl_tsv_close(t);
    scores_render(R, S, out, rep);
    size_t cap = 1 << 15;
    char *tab = rl_xmalloc(cap);
    half_render(R, S, out, tab, cap, rep);
    looseness_render(R, S, tab, cap, rep);
    admissible_render(R, S, out, tab, cap, rep);
    alibi_render(R, S, out, tab, cap, rep);
    free(tab);
    rl_farmass_summary_free(S);

    const rl_plotvar vars[] = { RL_PV_I("d", z.d), RL_PV_I("K", z.K), RL_PV_S("lams", "1 2 4") };
    rl_plot(out, "farmass_families", "farmass_families", vars, RL_NVARS(vars));
    rl_plot(out, "farmass_alibi", "farmass_alibi", vars, RL_NVARS(vars));
    rl_plot(out, "farmass_looseness", "farmass_looseness", vars, RL_NVARS(vars));
    rl_report_figure(rep, "farmass_families.png",
                     RL_PROSE_FARMASS_FIG_FAMILIES);
    rl_report_figure(rep, "farmass_alibi.png",
                     RL_PROSE_FARMASS_FIG_ALIBI);
    rl_report_figure(rep, "farmass_looseness.png",
                     RL_PROSE_FARMASS_FIG_LOOSENESS);
}
