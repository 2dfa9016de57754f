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
#include "prose_experiments.h"

#define MAXLAM 8
#define NSLOPE 8 /* the study's ALiBi slopes for H = 8 heads: m_h = 2^{-8h/H} = 2^{-h} */
#define NFAM RL_SWEEP_CASES_MAX /* the sweep's cases, the baseline none among them */
/* the data-dependent forms of one rotation-only row (means over replicates) */
enum { FO_BOBS, FO_BRANGE, FO_ROBS, FO_ROBS_SE, FO_RRANGE, FO_RRANGE_SE, FO_LOBS, FO_DELTA, FO_N };

typedef struct {
    long reps;     /* replicates per random family (NoPE is deterministic: 1) */
    int d, K;      /* dimension, near keys */
    long lmax;     /* longest context */
    int per_octave;
    int nlam;
    double lam[MAXLAM];
} fm_size;

static fm_size size_of(int preset)
{
    fm_size q = { 32, 64, 16, 65536, 4, 3, { 1, 2, 4 } };
    fm_size f = { 768, 64, 16, 65536, 8, 5, { 0.5, 1, 2, 4, 8 } };
    return preset == RL_PRESET_FULL ? f : q;
}

typedef struct {
    const char *label;
    int none;      /* NoPE: no transport */
    rl_family f;
    unsigned long stream; /* its random-stream domain */
} fm_fam;

/* The rows of the run: the farmass sweep's cases (mc/sweep_cases.c: all, or
 * those of `families`) in slot order, each on its own stream (the same in
 * any subset); row 0 is the baseline none (NoPE: the identity family, no
 * transport) in every subset; *nfam: how many. */
static rl_status families(int d, const char *families, fm_fam *fa, int *nfam, rl_err *err)
{
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    int n;
    RL_TRY(rl_sweep_cases(RL_SWEEP_FARMASS, d, families, c, RL_SWEEP_CASES_MAX, &n, err));
    for (int k = 0; k < n; k++)
        fa[k] = (fm_fam){ c[k].label, rl_family_fixed(&c[k].f), c[k].f, c[k].stream };
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

/* Per-replicate results of every family. */
typedef struct {
    long reps;
    double *rho;  /* reps x ng x nlam x nconf */
    double *mom;  /* reps x 2 */
    double *rng;  /* reps x ng x 3: max near score, min far score, max |score| (logits: lambda times these) */
} fm_run;

/* A failed draw (sampling/steps.h) is returned as its status; *out then
 * holds its arrays all the same (freed with the result). */
static rl_status run_family(const fm_fam *fa, long seed, const fm_size *z, const rl_mass_spec *sp,
                            const long *grid, int ng, long far_from, fm_run *out, rl_err *err)
{
    const long per = (long)ng * z->nlam * rl_mass_nconf(sp);
    fm_run o = { fa->none ? 1 : z->reps, NULL, NULL, NULL };
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

/* The results of one run: the sizes, the grid, every family's replicates,
 * and the extremal configuration and NoPE through the same accumulator. */
typedef struct {
    fm_size z;
    double slopes[NSLOPE];
    long *grid;
    int ng;
    long far_from;
    rl_mass_spec *sp;
    int nfam;    /* none and the cases run */
    fm_fam fa[NFAM];
    fm_run run[NFAM];
    double *ext_rho, *ext_bound; /* nlam x ng: near logits +lambda, far -lambda, and the bound */
    double worst_nope;           /* max |rho - closed form| of NoPE (equal logits), with and without ALiBi */
} fm_res;

/* The extremal configuration and NoPE, through the same accumulator: near
 * logits +lambda and far -lambda give the lower bound exactly; equal logits
 * (NoPE) give rl_farmass_lower / rl_farmass_alibi at lambda = 0. */
static void exact_run(fm_res *R)
{
    const fm_size *z = &R->z;
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

static void exact_report(const fm_res *R, const rl_outdir *out, rl_report *rep)
{
    const fm_size *z = &R->z;
    const int ng = R->ng;
    rl_tsv *t = rl_tsv_open(out, "farmass_extremal.tsv", "lambda\tK\tL\tM\trho_extremal\tbound\tdiff");
    double worst = 0;
    for (int l = 0; l < z->nlam; l++)
        for (int g = 0; g < ng; g++) {
            const double rho = R->ext_rho[l * ng + g], b = R->ext_bound[l * ng + g];
            const double M = (double)(R->grid[g] - z->K);
            worst = rl_worst(worst, fabs(rho - b));
            rl_tsv_row(t, "%g\t%d\t%ld\t%.0f\t%.17g\t%.17g\t%.3g", z->lam[l], z->K, R->grid[g], M, rho, b, rho - b);
        }
    rl_tsv_close(t);
    char b[160];
    rl_report_identity(rep, worst <= 1e-12,
                       RL_PROSE_FARMASS_EXTREMAL,
                       "ρ_D = M/(M + K e^{2λ}) to 1e-12",
                       rl_fmt(b, sizeof b, "max ∣ρ_D − bound∣ = %.2g over %d λ × %d lengths", worst, z->nlam, ng));
    rl_report_identity(rep, R->worst_nope <= 1e-12,
                       RL_PROSE_FARMASS_NOPE,
                       "equal to 1e-12 (checks the distance convention)",
                       rl_fmt(b, sizeof b, "max difference %.2g", R->worst_nope));
}

rl_status rl_exp_farmass_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    fm_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    for (int h = 1; h <= NSLOPE; h++)
        R->slopes[h - 1] = pow(2.0, -h);
    R->grid = log_grid(64, R->z.lmax, R->z.per_octave, &R->ng);
    R->sp = rl_mass_spec_alloc(R->z.K, R->z.nlam, R->z.lam, NSLOPE, R->slopes, R->z.lmax);
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
    fm_res *R = res;
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

/* The tables of the report half: per family, lambda, configuration and
 * length (per = ng * nl * nc cells a family) the mean far mass and its SE,
 * and for the rotation-only cells the data-dependent forms, FO_N values each. */
typedef struct {
    long per;
    int nc;
    double *mean, *sem, *fo;
} fm_tables;

/* The data-dependent forms of one rotation-only cell (family k, length index
 * g, lambda lam, M far keys) into f[FO_N], from the replicates' far masses
 * col[0..reps-1] (col has room for 5 (reps + 1)); returns the least rho_D
 * minus its realised-range bound over the replicates. */
static double fm_forms(const fm_res *R, int k, int g, double lam, double M, double *col, double *f)
{
    const fm_size z = R->z;
    const int ng = R->ng;
    const fm_run *run = R->run;
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
    rl_mean_se(lo, run[k].reps, 1, &f[FO_LOBS], &e);
    rl_mean_se(dr, run[k].reps, 1, &f[FO_DELTA], &e);
    /* looseness per replicate: each replicate has its own bound */
    for (long r = 0; r < run[k].reps; r++) {
        bo[r] = col[r] / bo[r];
        br[r] = col[r] / br[r];
    }
    f[FO_BOBS] = mb;
    f[FO_BRANGE] = mr;
    rl_mean_se(bo, run[k].reps, 1, &f[FO_ROBS], &f[FO_ROBS_SE]);
    rl_mean_se(br, run[k].reps, 1, &f[FO_RRANGE], &f[FO_RRANGE_SE]);
    return worst_range;
}

/* farmass.tsv's rows of family k, its cells of T, and its two identities:
 * rotation-only never below the bounds, ALiBi below its closed form. */
static void fm_family(const fm_res *R, int k, rl_tsv *t, double *col, fm_tables *T, rl_report *rep)
{
    const fm_size z = R->z;
    const long *grid = R->grid;
    const int ng = R->ng, nl = z.nlam;
    const long per = T->per;
    const int nc = T->nc;
    const double *slopes = R->slopes;
    const fm_fam *fa = R->fa;
    const fm_run *run = R->run;
    double *mean = T->mean, *sem = T->sem, *fo = T->fo;
    char b[256], w[256];
    double worst_low = INFINITY, worst_alibi[NSLOPE], worst_range = INFINITY;
    double wl_lam = 0, wl_L = 0;
    for (int c = 0; c < NSLOPE; c++)
        worst_alibi[c] = -INFINITY;
    for (int l = 0; l < nl; l++)
        for (int c = 0; c < nc; c++)
            for (int g = 0; g < ng; g++) {
                const long i = ((long)g * nl + l) * nc + c;
                const double M = (double)(grid[g] - z.K), lam = z.lam[l];
                const double low = rl_farmass_lower(M, z.K, lam);
                const double ab = c ? rl_farmass_alibi(M, z.K, lam, slopes[c - 1], 0) : NAN;
                double mn = INFINITY, mx = -INFINITY, m, se;
                for (long r = 0; r < run[k].reps; r++) {
                    double x = run[k].rho[r * per + i];
                    mn = fmin(mn, x);
                    mx = rl_worst(mx, x);
                    col[r] = x;
                }
                rl_mean_se(col, run[k].reps, 1, &m, &se);
                mean[k * per + i] = m;
                sem[k * per + i] = se;
                double *f = fo + (k * per + i) * FO_N;
                for (int j = 0; j < FO_N; j++)
                    f[j] = NAN;
                if (c == 0) /* rotation only: the realised logits lambda s, per replicate */
                    worst_range = fmin(worst_range, fm_forms(R, k, g, lam, M, col, f));
                /* every replicate, not only the mean, must respect the bounds */
                if (c == 0 && mn - low < worst_low)
                    worst_low = mn - low, wl_lam = lam, wl_L = grid[g];
                if (c)
                    worst_alibi[c - 1] = rl_worst(worst_alibi[c - 1], mx - ab);
                rl_tsv_row(t, "%s\t%d\t%d\t%g\t%.6g\t%ld\t%.0f\t%.9g\t%.3g\t%.9g\t%.9g\t%.9g\t%.9g\t%.6g\t%.3g\t%ld\t"
                              "%.9g\t%.9g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g",
                           fa[k].label, z.d, z.K, lam, c ? slopes[c - 1] : 0.0, grid[g], M, m, se, mn, mx, low, ab,
                           m / low, se / low, run[k].reps, f[FO_BOBS], f[FO_BRANGE], f[FO_ROBS], f[FO_ROBS_SE],
                           f[FO_RRANGE], f[FO_RRANGE_SE], f[FO_LOBS], f[FO_DELTA]);
            }
    rl_report_identity(rep, worst_low >= -1e-12 && worst_range >= -1e-12,
                       rl_fmt(w, sizeof w, RL_PROSE_FARMASS_ROTATION_CHECK, fa[k].label),
                       "min over replicates, λ, L of ρ_D − bound ≥ 0 (both forms)",
                       rl_fmt(b, sizeof b, "min = %.3g (λ as set; at λ = %g, L = %.0f), %.3g (realised Δ); "
                              "replicates %ld × %d λ × %d L", worst_low, wl_lam, wl_L, worst_range, run[k].reps, nl, ng));
    double wa = -INFINITY;
    for (int c = 0; c < NSLOPE; c++)
        wa = rl_worst(wa, worst_alibi[c]);
    rl_report_identity(rep, wa <= 1e-12,
                       rl_fmt(w, sizeof w, RL_PROSE_FARMASS_ALIBI_WORST_CHECK, fa[k].label),
                       "max over replicates, λ, L, m of ρ_D − bound ≤ 0",
                       rl_fmt(b, sizeof b, "max = %.3g", wa));
}

/* far scores: Haar-like for the Householder chain beyond its window */
static void fm_scores(const fm_res *R, const rl_outdir *out, rl_report *rep)
{
    const fm_size z = R->z;
    const long far_from = R->far_from;
    const fm_fam *fa = R->fa;
    const fm_run *run = R->run;
    char a[256], b[256], w[256];
    rl_tsv *ts = rl_tsv_open(out, "farmass_scores.tsv", "family\td\tfar_from\tmean_s\tmean_s_se\tmean_s2\tmean_s2_se\ts2_pred");
    for (int k = 1; k < R->nfam; k++) {
        double m1, e1, m2, e2;
        rl_mean_se(run[k].mom, run[k].reps, 2, &m1, &e1);
        rl_mean_se(run[k].mom + 1, run[k].reps, 2, &m2, &e2);
        /* one mean E[M] = cI (|c| < 1: mixed far beyond its window): Haar-like,
         * E (q^T U q)^2 = 1/d; circle angles: s = sum_b w_b cos Phi_b with
         * Phi_b uniform, E s^2 = (1/2) E sum w_b^2 = 2/(d+2); other SO(2)
         * laws (the study's): slow blocks never mix, no such law */
        const rl_family *f = &fa[k].f;
        const int haar = rl_family_mean_blocks(f) == 1, circle = !haar && f->law == RL_ANG_CIRCLE;
        double pred = haar ? 1.0 / z.d : circle ? 2.0 / (z.d + 2) : NAN;
        rl_tsv_row(ts, "%s\t%d\t%ld\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g", fa[k].label, z.d, far_from, m1, e1, m2, e2, pred);
        if (haar || circle)
            rl_report_decide(rep, &rl_rule_agree, rl_effect_z(m2 - pred, e2), NULL,
                             rl_fmt(w, sizeof w, "%s: far scores (δ ≥ %ld) %s", fa[k].label, far_from,
                                    haar ? "are Haar-like" : "are fully mixed"),
                             rl_fmt(a, sizeof a, "E s² = %s = %.5f", haar ? "1/d" : "2/(d+2)", pred),
                             rl_fmt(b, sizeof b, "%.5f ± %.5f (E s = %.4f ± %.4f)", m2, e2, m1, e1));
        else
            rl_report_text(rep,
                           RL_PROSE_FARMASS_SCORES_UNMIXED,
                           fa[k].label, far_from, m1, e1, m2, e2);
    }
    rl_tsv_close(ts);
}

/* looseness of the bound at typical logits, and where it forces rho_D >= 1/2 */
static void fm_half(const fm_res *R, const rl_outdir *out, const fm_tables *T, char *tab, size_t cap,
                    rl_report *rep)
{
    const fm_size z = R->z;
    const long *grid = R->grid;
    const int ng = R->ng, nl = z.nlam;
    const long per = T->per;
    const int nc = T->nc;
    const fm_fam *fa = R->fa;
    const double *mean = T->mean;
    char a[256];
    size_t u = snprintf(tab, cap, "λ\tM at bound = 1/2 (K e^{2λ})\tL at bound = 1/2");
    for (int k = 0; k < R->nfam; k++)
        u += snprintf(tab + u, cap - u, "\tL where mean ρ_D = 1/2: %s", fa[k].label);
    u += snprintf(tab + u, cap - u, "\n");
    rl_tsv *th = rl_tsv_open(out, "farmass_half.tsv", "lambda\tK\tM_half_bound\tL_half_bound\tfamily\tL_half_measured");
    int half_ok = 1;
    double y[ng];
    for (int l = 0; l < nl; l++) {
        double Mh = rl_farmass_half(z.K, z.lam[l]), Lh = z.K + Mh;
        u += snprintf(tab + u, cap - u, "%g\t%.4g\t%.4g", z.lam[l], Mh, Lh);
        for (int k = 0; k < R->nfam; k++) {
            for (int g = 0; g < ng; g++)
                y[g] = mean[k * per + ((long)g * nl + l) * nc];
            double Lm = half_crossing(grid, y, ng);
            /* rho_D >= bound per replicate, so the mean reaches 1/2 no later */
            if (Lh <= z.lmax && (Lm < 0 || Lm > Lh * (1 + 1e-9)))
                half_ok = 0;
            rl_tsv_row(th, "%g\t%d\t%.6g\t%.6g\t%s\t%.6g", z.lam[l], z.K, Mh, Lh, fa[k].label, Lm);
            u += snprintf(tab + u, cap - u, "\t%s", fmt_len(a, sizeof a, Lm, grid[0], z.lmax));
        }
        u += snprintf(tab + u, cap - u, "\n");
    }
    rl_tsv_close(th);
    rl_report_table(rep, RL_PROSE_FARMASS_HALF_CAPTION, tab);
    rl_report_identity(rep, half_ok,
                       RL_PROSE_FARMASS_HALF_CHECK,
                       RL_PROSE_FARMASS_HALF_PRED,
                       half_ok ? "holds for all" : "violated (see table)");
}

/* the looseness of the three forms at two lengths */
static void fm_looseness(const fm_res *R, const fm_tables *T, char *tab, size_t cap, rl_report *rep)
{
    const fm_size z = R->z;
    const long *grid = R->grid;
    const int ng = R->ng, nl = z.nlam;
    const long per = T->per;
    const int nc = T->nc;
    const fm_fam *fa = R->fa;
    const double *mean = T->mean, *sem = T->sem, *fo = T->fo;
    size_t u;
    long Ls[2] = { 1024, z.lmax };
    int gs[2] = { 0, ng - 1 };
    for (int g = 0; g < ng; g++)
        if (grid[g] == 1024)
            gs[0] = g;
    static const char *form[3] = { "(a) λ as set", "(b) observed max ∣logit∣", "(c) realised range Δ" };
    u = snprintf(tab, cap, "family\tform");
    for (int l = 0; l < nl; l++)
        for (int j = 0; j < 2; j++)
            u += snprintf(tab + u, cap - u, "\tλ = %g, L = %ld", z.lam[l], Ls[j]);
    u += snprintf(tab + u, cap - u, "\n");
    for (int k = 0; k < R->nfam; k++)
        for (int v = 0; v < 3; v++) {
            u += snprintf(tab + u, cap - u, "%s\t%s", fa[k].label, form[v]);
            for (int l = 0; l < nl; l++)
                for (int j = 0; j < 2; j++) {
                    const long i = k * per + ((long)gs[j] * nl + l) * nc;
                    const double *f = fo + i * FO_N;
                    double low = rl_farmass_lower((double)(grid[gs[j]] - z.K), z.K, z.lam[l]);
                    double r = v == 0 ? mean[i] / low : v == 1 ? f[FO_ROBS] : f[FO_RRANGE];
                    double e = v == 0 ? sem[i] / low : v == 1 ? f[FO_ROBS_SE] : f[FO_RRANGE_SE];
                    u += snprintf(tab + u, cap - u, "\t%.4g ± %.2g", r, e);
                }
            u += snprintf(tab + u, cap - u, "\n");
        }
    rl_report_table(rep, RL_PROSE_FARMASS_LOOSENESS_CAPTION, tab);
}

/* the admissible length: where each form forces rho_D >= 1/2, with the
 * replicates' mean lambda_obs and Delta at L_max (Delta grows with L:
 * more far keys, a lower min) */
static void fm_admissible(const fm_res *R, const rl_outdir *out, const fm_tables *T, char *tab, size_t cap,
                          rl_report *rep)
{
    const fm_size z = R->z;
    const long *grid = R->grid;
    const int ng = R->ng, nl = z.nlam;
    const long per = T->per;
    const int nc = T->nc;
    const fm_fam *fa = R->fa;
    const double *mean = T->mean, *fo = T->fo;
    double y[ng];
    char a[256];
    size_t u;
    u = snprintf(tab, cap, "family\tλ\tλ_obs(L_max)\tΔ(L_max)\tL*(1/2): (a)\t(b)\t(c)\tmeasured L where mean ρ_D = 1/2\n");
    rl_tsv *tl = rl_tsv_open(out, "farmass_admissible.tsv",
                             "family\tlambda\tK\tlambda_obs_Lmax\tdelta_Lmax\tL_star_set\tL_star_obs\tL_star_range\t"
                             "L_half_measured");
    for (int k = 0; k < R->nfam; k++)
        for (int l = 0; l < nl; l++) {
            const double *f = fo + (k * per + ((long)(ng - 1) * nl + l) * nc) * FO_N;
            const double La = z.K + rl_farmass_admissible(z.K, 0.5, 2 * z.lam[l]);
            const double Lb = z.K + rl_farmass_admissible(z.K, 0.5, 2 * f[FO_LOBS]);
            const double Lc = z.K + rl_farmass_admissible(z.K, 0.5, f[FO_DELTA]);
            for (int g = 0; g < ng; g++)
                y[g] = mean[k * per + ((long)g * nl + l) * nc];
            const double Lm = half_crossing(grid, y, ng);
            rl_tsv_row(tl, "%s\t%g\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", fa[k].label, z.lam[l], z.K,
                       f[FO_LOBS], f[FO_DELTA], La, Lb, Lc, Lm);
            u += snprintf(tab + u, cap - u, "%s\t%g\t%.3f\t%.3f\t%.4g\t%.4g\t%.4g\t%s\n", fa[k].label, z.lam[l],
                          f[FO_LOBS], f[FO_DELTA], La, Lb, Lc, fmt_len(a, sizeof a, Lm, grid[0], z.lmax));
        }
    rl_tsv_close(tl);
    rl_report_table(rep, RL_PROSE_FARMASS_ADMISSIBLE_CAPTION, tab);
}

/* ALiBi against the rotation-only lower bound, and its far mass bounded */
static void fm_alibi(const fm_res *R, const rl_outdir *out, const fm_tables *T, char *tab, size_t cap,
                     rl_report *rep)
{
    const fm_size z = R->z;
    const long *grid = R->grid;
    const int ng = R->ng, nl = z.nlam;
    const long per = T->per;
    const int nc = T->nc;
    const double *slopes = R->slopes;
    const fm_run *run = R->run;
    const double *mean = T->mean;
    char a[256], b[256];
    size_t u;
    u = snprintf(tab, cap, "m\tλ\tB_∞ = sup_M worst case\tL* (worst case ≤ rotation-only bound)\t"
                           "max mean ρ_D(L_max) over families\trotation-only bound at L_max\tbelow at L_max\t"
                           "first L below (worst family)\n");
    rl_tsv *ta = rl_tsv_open(out, "farmass_alibi.tsv",
                             "slope\tlambda\tK\tB_inf\tL_star\trho_Lmax_worst\tlower_Lmax\tbelow\tL_first_below\tflat_change\tflat_bound");
    const double Mmax = (double)(z.lmax - z.K);
    int g4 = 0;
    for (int g = 0; g < ng; g++)
        if (grid[g] <= z.lmax / 4)
            g4 = g;
    double worst_flat = 0;
    int flat_ok = 1;
    for (int l = 0; l < nl; l++) {
        int guaranteed = 0, below = 0, gbelow = 0;
        for (int c = 1; c <= NSLOPE; c++) {
            const double m = slopes[c - 1], lam = z.lam[l];
            double Binf = 1.0 / (1.0 + exp(-2 * lam) * expm1(m * z.K));
            double Ls_ = z.K + alibi_crossing(z.K, lam, m), lowmax = rl_farmass_lower(Mmax, z.K, lam);
            double worst = 0;
            long first = -1;
            /* first grid length from which the worst family stays below the bound */
            for (int g = ng - 1; g >= 0; g--) {
                double wv = 0;
                for (int k = 0; k < R->nfam; k++)
                    wv = rl_worst(wv, mean[k * per + ((long)g * nl + l) * nc + c]);
                if (g == ng - 1)
                    worst = wv;
                if (wv < rl_farmass_lower((double)(grid[g] - z.K), z.K, lam))
                    first = grid[g];
                else
                    break;
            }
            /* flat: the far keys beyond L1 = L_max/4 add at most
             * e^{lambda} sum_{delta > L1} e^{-m delta} to F, against
             * N >= e^{-lambda} sum_{delta=1}^{K} e^{-m delta}: the change of
             * rho is at most e^{2 lambda - m L1} / (1 - e^{-mK}) */
            double fb = exp(2 * lam - m * grid[g4]) / -expm1(-m * z.K), fc = 0;
            for (int k = 0; k < R->nfam; k++)
                for (long r = 0; r < run[k].reps; r++) {
                    const double *x = run[k].rho + r * per;
                    fc = rl_worst(fc, fabs(x[((long)(ng - 1) * nl + l) * nc + c] - x[((long)g4 * nl + l) * nc + c]));
                }
            worst_flat = rl_worst(worst_flat, fc);
            flat_ok &= fc <= fb + 1e-12;
            int isb = worst < lowmax, isg = Ls_ <= z.lmax;
            guaranteed += isg;
            below += isb;
            gbelow += isg && isb;
            rl_tsv_row(ta, "%.6g\t%g\t%d\t%.9g\t%.6g\t%.6g\t%.6g\t%d\t%ld\t%.3g\t%.3g", m, lam, z.K, Binf, Ls_, worst,
                       lowmax, isb, first, fc, fb);
            u += snprintf(tab + u, cap - u, "2^-%d\t%g\t%.9g\t%.4g\t%.4f\t%.4f\t%s\t%s\n", c, lam, Binf, Ls_, worst,
                          lowmax, isb ? "yes" : "no", first > 0 ? rl_fmt(a, sizeof a, "%ld", first) : "—");
        }
        /* when no slope's crossing L* lies within the measured range, L_max is not
         * "long" for this lambda (the rotation-only bound is still small there):
         * the check cannot be decided here and is reported as info */
        /* below for a slope whose L* <= L_max follows from the closed forms
         * (mean <= worst case <= rotation-only bound): an identity */
        char w2[300];
        rl_fmt(w2, sizeof w2, RL_PROSE_FARMASS_ALIBI_BELOW_CHECK, z.lam[l], z.lmax,
                               guaranteed ? "" : " (out of range: every L* > L_max, the bound is still small)");
        /* not a claim of the study: never counted */
        if (guaranteed == 0)
            rl_report_info(rep, w2, rl_fmt(a, sizeof a, RL_PROSE_FARMASS_ALIBI_BELOW_PRED, guaranteed, z.lmax),
                           rl_fmt(b, sizeof b, "%d of 8 slopes below (worst family's mean)", below));
        else
            rl_report_identity(rep, gbelow == guaranteed, w2,
                               rl_fmt(a, sizeof a, RL_PROSE_FARMASS_ALIBI_BELOW_PRED,
                                      guaranteed, z.lmax),
                               rl_fmt(b, sizeof b, "%d of 8 slopes below (worst family's mean)", below));
    }
    rl_tsv_close(ta);
    rl_report_identity(rep, flat_ok,
                       RL_PROSE_FARMASS_ALIBI_FLAT,
                       "≤ e^{2λ − m L_max/4}/(1 − e^{−mK}) (every replicate, λ, m)",
                       rl_fmt(b, sizeof b, "max change %.3g", worst_flat));
    rl_report_table(rep, RL_PROSE_FARMASS_ALIBI_CAPTION, tab);
}

void rl_exp_farmass_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const fm_res *R = res;
    const fm_size z = R->z;
    const int ng = R->ng, nl = z.nlam, nc = rl_mass_nconf(R->sp);
    const long per = (long)ng * nl * nc;

    rl_report_text(rep,
                   RL_PROSE_FARMASS_INTRO,
                   z.K, z.d, z.reps, z.lmax, rl_mixing_window(1.0 - 2.0 / z.d, 0.01));
    exact_report(R, out, rep);

    rl_tsv *t = rl_tsv_open(out, "farmass.tsv",
                            "family\td\tK\tlambda\tslope\tL\tM\trho\trho_se\trho_min\trho_max\tlower_bound\t"
                            "alibi_bound\tratio\tratio_se\treps\tbound_obs\tbound_range\tratio_obs\tratio_obs_se\t"
                            "ratio_range\tratio_range_se\tlambda_obs\tdelta_range");
    /* mean far mass per family, lambda, config and length, for the tables;
     * fo: per rotation-only row the data-dependent forms, FO_N values each */
    fm_tables T = { per, nc, rl_xmalloc(sizeof(double) * NFAM * per), rl_xmalloc(sizeof(double) * NFAM * per),
                    rl_xcalloc((size_t)NFAM * per * FO_N, sizeof(double)) };
    double *col = rl_xmalloc(sizeof(double) * (z.reps + 1) * 5);
    for (int k = 0; k < R->nfam; k++)
        fm_family(R, k, t, col, &T, rep);
    rl_tsv_close(t);
    fm_scores(R, out, rep);
    size_t cap = 1 << 15;
    char *tab = rl_xmalloc(cap);
    fm_half(R, out, &T, tab, cap, rep);
    fm_looseness(R, &T, tab, cap, rep);
    fm_admissible(R, out, &T, tab, cap, rep);
    fm_alibi(R, out, &T, tab, cap, rep);

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
    free(tab);
    free(col);
    free(T.mean);
    free(T.sem);
    free(T.fo);
}
