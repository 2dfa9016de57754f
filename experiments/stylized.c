/* stylized.c: claim 5, one attention layer end to end: retrieval of a
 * target value on a near route among M_L distractors, for NoPE, RoPE, random
 * SO(2) Q/K and Q/K/V, accumulated Householder (Haar-type) transport, ALiBi
 * and ALiBi + random SO(2) Q/K/V, with queries fitted inside a training
 * window T_train and evaluated at L = T_train 2^k up to 65,536.  The
 * Monte Carlo counterpart of the study's language-model table.
 *
 * The trap this avoids: with independent random distractor keys a rotation
 * maps a random key to a random key, and an untrained layer knows no
 * training length.  Here keys share a direction u and values a background
 * vbar (what training puts into real keys and values), and the query is
 * fitted (stylized_model.h) inside the training window, so a position-indexed
 * scheme meets, beyond T_train, angles it was never fitted on, while an
 * accumulated one meets far routes that look like those it was fitted on. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/study.h"
#include "../theory/theory.h"
#include "../mc/routes.h"
#include "../mc/stylized_model.h"
#include "../mc/sweep.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claims.h"
#include "claim_fns.h"
#include "prose_experiments.h"

typedef struct {
    int d;
    long T;      /* training window */
    int steps, batch;
    long nq;     /* evaluation queries per fit */
    long lmax;   /* longest context */
    int nfit;    /* independent fits (model directions, fitted queries, evaluation draws) */
} sty_size;

/* The spread between fits (the model's directions and the fit's own data)
 * dominates the spread between evaluation queries of one fit
 * (docs/theory/claim5-stylized.md#claim-stylized: RoPE's 16T ratio ranged 3.9-32 over four seeds
 * with a per-fit SE of 5 %), so the work goes into fits: quick keeps the 64 evaluation walks of the
 * single-fit design (8 fits x 8 queries) and a quarter of its fitting work
 * per fit (200 steps x 8 windows instead of 300 x 16), so that the total
 * time stays about the same; full has 16 fits x 16 queries. */
static sty_size size_of(int preset)
{
    sty_size q = { 32, 64, 200, 8, 8, 65536, 8 };
    sty_size f = { 64, 256, 300, 16, 16, 65536, 16 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* The model's constants, fixed before any run (docs/theory/claim5-stylized.md#stylized-model says
 * why). */
#define STY_KNEAR 4        /* target within distance 1..4; near = those 4 tokens */
#define STY_LAMBDA 8.0     /* |logit| <= 8 before the bias */
#define STY_KEYNOISE 0.5   /* k = normalize(u + 0.5 g / sqrt(d)) */
#define STY_VALNOISE 0.5   /* v = vbar + 0.5 g / sqrt(d) */
#define STY_SLOPE 0.0625   /* ALiBi m = 2^-4, the 4th of the study's 8 slopes 2^-h */

/* The study's variants whose ratios the ratio figure shows (theory/study.h). */
static const char *const study_variants[] = { "rope", "random_qk", "random_qkv", "alibi" };
enum { NSTUDY = sizeof study_variants / sizeof *study_variants };

/* ---------- statistics: per fit over its queries, then across fits ---------- */

typedef struct {
    double mean, se; /* across fits */
    int pos;         /* fits whose own value is > 0 */
} est;

typedef struct {
    const double *res; /* nfit x nq x STY_NSCHEME x ng x STY_NQ */
    int nfit;
    long nq;
    int ng;
} results;

static double val(const results *R, int j, long r, int s, int g, int q)
{
    return R->res[((((size_t)j * R->nq + r) * STY_NSCHEME + s) * R->ng + g) * STY_NQ + q];
}

/* Fit j's mean over its queries of X(s,g) - b X(s2,g2) (b = 0: one quantity). */
static double fit_lin(const results *R, int j, int q, int s, int g, double b, int s2, int g2)
{
    double a = 0;
    for (long r = 0; r < R->nq; r++)
        a += val(R, j, r, s, g, q) - (b != 0 ? b * val(R, j, r, s2, g2, q) : 0);
    return a / (double)R->nq;
}

/* Mean and SE across fits of the per-fit values x[0..nfit-1] (base/core/stats.h);
 * frees x. */
static est across(double *x, int n)
{
    est e = { 0, 0, 0 };
    rl_mean_se(x, n, 1, &e.mean, &e.se);
    for (int j = 0; j < n; j++)
        e.pos += x[j] > 0;
    free(x);
    return e;
}

static double *per_fit(const results *R)
{
    return rl_xmalloc(sizeof(double) * R->nfit);
}

static est lin(const results *R, int q, int s, int g, double b, int s2, int g2)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = fit_lin(R, j, q, s, g, b, s2, g2);
    return across(x, R->nfit);
}

static est one(const results *R, int q, int s, int g)
{
    return lin(R, q, s, g, 0, 0, 0);
}

/* Perplexity-like ratio exp(E[-log a(L)] - E[-log a(T)]) of each fit (its
 * queries paired), then mean and SE across fits. */
static est ppl_ratio(const results *R, int s, int g, int gT)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = exp(fit_lin(R, j, STY_Q_NLL, s, g, 1, s, gT));
    return across(x, R->nfit);
}

/* The brief's loss ratio E[-log a(L)] / E[-log a(T)] of each fit, across fits. */
static est loss_ratio(const results *R, int s, int g, int gT)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = fit_lin(R, j, STY_Q_NLL, s, g, 0, 0, 0) / fit_lin(R, j, STY_Q_NLL, s, gT, 0, 0, 0);
    return across(x, R->nfit);
}

/* Difference of the degradations of each fit, (nll_s1(L) - nll_s1(T)) -
 * (nll_s2(L) - nll_s2(T)) (a difference of log ppl ratios), across fits. */
static est degr_diff(const results *R, int s1, int s2, int g, int gT)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = fit_lin(R, j, STY_Q_NLL, s1, g, 1, s1, gT) - fit_lin(R, j, STY_Q_NLL, s2, g, 1, s2, gT);
    return across(x, R->nfit);
}

static int scheme_index(const char *name)
{
    for (int s = 0; s < STY_NSCHEME; s++)
        if (!strcmp(sty_schemes[s].name, name))
            return s;
    rl_die("stylized: no scheme %s", name);
}

/* ---------- the pieces ---------- */

/* The fits' sweep (mc/sweep.h): item i = j STY_NFIT + f is fit j of
 * process f; it reads the streams keyed by j (sty_fit), on fit j's model,
 * and needs no workspace of its own. */
typedef struct {
    long seed;
    const sty_model *M;
    const sty_size *z;
    double *Q, *curves;
} fit_ctx;

static rl_status fit_item(void *ctx, void *ws, long i, rl_err *err)
{
    const fit_ctx *x = ctx;
    const sty_model *M = x->M;
    const sty_size *z = x->z;
    const int d = M[0].d, j = (int)(i / STY_NFIT), f = (int)(i % STY_NFIT);
    (void)ws;
    sty_fit_opts o = { z->T, z->steps, z->batch, 0.05 * M[j].lambda / sqrt((double)d), (unsigned long)x->seed,
                       RL_STREAM_STY_FIT, (unsigned long)j };
    return sty_fit(&M[j], &sty_fits[f], &o, x->Q + i * d, x->curves + i * z->steps, err);
}

static const rl_mc_sweep_fn fit_sweep = { NULL, NULL, fit_item, 0 };

/* Every (fit index, score process) pair, into Q (d each) and curves. */
static rl_status fit_all(long seed, const sty_model *M, const sty_size *z, double *Q, double *curves, rl_err *err)
{
    fit_ctx x = { seed, M, z, Q, curves };
    const rl_mc_gather g[] = { { Q, sizeof(double) * M[0].d }, { curves, sizeof(double) * z->steps } };
    return rl_mc_sweep((long)z->nfit * STY_NFIT, &fit_sweep, &x, g, 2, err);
}

/* The evaluation's sweep: item i = j nq + r is query r of fit j, into
 * res[stride i ...]. */
typedef struct {
    long seed;
    const sty_model *M;
    const sty_size *z;
    const double *Q;
    const long *grid;
    int ng;
    size_t stride;
    double *res;
} eval_ctx;

/* A thread's evaluation workspace (it depends on d only), the data's RNG
 * and one per transport. */
typedef struct {
    sty_eval_ws *ws;
    gsl_rng *rd, *rt[STY_TR_COUNT];
} eval_ws;

static void eval_free(void *ctx, void *ws);

static rl_status eval_alloc(void *ctx, void **ws, rl_err *err)
{
    const eval_ctx *x = ctx;
    eval_ws *w = rl_xmalloc(sizeof *w);
    rl_status st = sty_eval_alloc(&x->M[0], &w->ws, err);
    if (st != RL_OK) {
        free(w);
        return st;
    }
    w->rd = rl_rng_alloc();
    int nomem = !w->rd;
    for (int t = 0; t < STY_TR_COUNT; t++)
        nomem |= !(w->rt[t] = rl_rng_alloc());
    if (nomem) {
        eval_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a random number generator");
    }
    *ws = w;
    return RL_OK;
}

static void eval_free(void *ctx, void *ws)
{
    eval_ws *w = ws;
    (void)ctx;
    for (int t = 0; t < STY_TR_COUNT; t++)
        gsl_rng_free(w->rt[t]);
    gsl_rng_free(w->rd);
    sty_eval_free(w->ws);
    free(w);
}

static rl_status eval_item(void *ctx, void *ws, long i, rl_err *err)
{
    const eval_ctx *x = ctx;
    eval_ws *w = ws;
    const long j = i / x->z->nq, r = i % x->z->nq;
    const uint64_t seed = (uint64_t)x->seed;
    /* a stream per (fit, query) (never per thread): data, and one per transport */
    rl_rng_stream(w->rd, seed, rl_stream_key(rl_stream_key(RL_STREAM_STY_EVAL, (uint64_t)j), (uint64_t)r));
    for (int t = 0; t < STY_TR_COUNT; t++)
        rl_rng_stream(w->rt[t], seed, rl_stream_key(rl_stream_key(RL_STREAM_STY_EVAL + 1 + t, (uint64_t)j), (uint64_t)r));
    return sty_eval(&x->M[j], x->Q + (size_t)j * STY_NFIT * x->M[0].d, x->grid, x->ng, w->rd, w->rt, w->ws,
                    x->res + x->stride * i, err);
}

static const rl_mc_sweep_fn eval_sweep = { eval_alloc, eval_free, eval_item, 0 };

static rl_status evaluate(long seed, const sty_model *M, const sty_size *z, const double *Q, const long *grid,
                          int ng, double **out, rl_err *err)
{
    const size_t stride = (size_t)STY_NSCHEME * ng * STY_NQ;
    const long n = (long)z->nfit * z->nq;
    double *res = rl_xmalloc(sizeof(double) * stride * n);
    *out = res;
    eval_ctx x = { seed, M, z, Q, grid, ng, stride, res };
    const rl_mc_gather g = { res, sizeof(double) * stride };
    return rl_mc_sweep(n, &eval_sweep, &x, &g, 1, err);
}

/* Mean step of transport tr on SO(2) block b as a complex number chi: the
 * block's part of E[P_delta] is |chi^delta| times a rotation by arg chi^delta
 * (rope: e^{i omega}, exact; random: sin(omega)/omega; Householder:
 * E[P_delta] = (1 - 2/d)^delta I; none: 1). */
static double complex block_chi(sty_transport tr, int d, double omega)
{
    switch (tr) {
    case STY_TR_ROPE: return cexp(I * omega);
    case STY_TR_RANDOM: return rl_angle_charfn(RL_ANG_UNIFORM, omega);
    case STY_TR_HOUSEHOLDER: return 1.0 - 2.0 / d;
    default: return 1.0;
    }
}

/* E[q_b^T P_delta x_b] = Re(chi^delta) (q_b . x_b) + Im(chi^delta) (q_1 x_0 - q_0 x_1),
 * since R(phi) maps (x_0, x_1) to (c x_0 - s x_1, s x_0 + c x_1). */
static double block_mean(double complex c, const double *q, const double *x, int b, int h)
{
    const double dt = q[b] * x[b] + q[b + h] * x[b + h], cr = q[b + h] * x[b] - q[b] * x[b + h];
    return creal(c) * dt + cimag(c) * cr;
}

/* What the fits learned: per block, the query's energy and projections, and
 * the block's mean contribution to the logit of the shared key direction u
 * inside the training window (delta = 1..T) and beyond it (T < delta <= 128 T);
 * and the mean logit of u and of w against the distance, in closed form.
 * Each is computed per fit (its own q, u, w) and given as the mean and SE
 * across fits. */
enum { QCOLS = 9 };

static void write_query(const rl_outdir *out, const sty_model *M, const sty_size *z, const double *Q)
{
    const int d = M[0].d, h = d / 2, nf = z->nfit;
    double *x = rl_xmalloc(sizeof(double) * QCOLS * nf), mu[QCOLS], se[QCOLS];
    rl_tsv *t = rl_tsv_open(out, "stylized_query.tsv",
                            "fit\tblock\tomega\tenergy\tenergy_frac\tq_dot_u\tq_dot_w\tu_energy\tw_energy\t"
                            "u_logit_in_window\tu_logit_beyond\tq_norm\tlambda\tT_train\tu_logit_in_window_se\t"
                            "u_logit_beyond_se\tfits");
    for (int f = 0; f < STY_NFIT; f++)
        for (int b = 0; b < h; b++) {
            const int i2 = b + h; /* half-split pairing: block b is (x_b, x_{b+d/2}) */
            const double om = rl_so2_freq(d, RL_STUDY_BASE, 1.0, b);
            const double complex c = block_chi(sty_fits[f].tr, d, om);
            double complex p = 1, in = 0, beyond = 0;
            for (long delta = 1; delta <= 128 * z->T; delta++) {
                p *= c;
                if (delta <= z->T)
                    in += p;
                else
                    beyond += p;
            }
            in /= (double)z->T;
            beyond /= (double)(127 * z->T);
            for (int j = 0; j < nf; j++) {
                const sty_model *m = &M[j];
                const double *q = Q + ((size_t)j * STY_NFIT + f) * d;
                double n2 = 0;
                for (int i = 0; i < d; i++)
                    n2 += q[i] * q[i];
                const double e = q[b] * q[b] + q[i2] * q[i2];
                double *r = x + (size_t)j * QCOLS;
                r[0] = e;
                r[1] = n2 > 0 ? e / n2 : 0;
                r[2] = q[b] * m->u[b] + q[i2] * m->u[i2];
                r[3] = q[b] * m->w[b] + q[i2] * m->w[i2];
                r[4] = m->u[b] * m->u[b] + m->u[i2] * m->u[i2];
                r[5] = m->w[b] * m->w[b] + m->w[i2] * m->w[i2];
                r[6] = block_mean(in, q, m->u, b, h);
                r[7] = block_mean(beyond, q, m->u, b, h);
                r[8] = sqrt(n2);
            }
            for (int c2 = 0; c2 < QCOLS; c2++)
                rl_mean_se(x + c2, nf, QCOLS, &mu[c2], &se[c2]);
            rl_tsv_row(t, "%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%g\t%ld\t%.3g\t%.3g\t%d",
                       sty_fits[f].name, b, om, mu[0], mu[1], mu[2], mu[3], mu[4], mu[5], mu[6], mu[7], mu[8],
                       M[0].lambda, z->T, se[6], se[7], nf);
        }
    rl_tsv_close(t);
    int ng;
    long *grid = rl_route_grid(z->lmax, z->T, 16, &ng);
    t = rl_tsv_open(out, "stylized_logit.tsv",
                    "fit\tdelta\tu_logit\tw_logit\tT_train\tlambda\tu_logit_se\tw_logit_se\tfits");
    for (int f = 0; f < STY_NFIT; f++)
        for (int g = 0; g < ng; g++) {
            const double bias = sty_fits[f].alibi ? M[0].slope * (double)grid[g] : 0.0;
            for (int j = 0; j < nf; j++) {
                const double *q = Q + ((size_t)j * STY_NFIT + f) * d;
                double lu = 0, lw = 0;
                for (int b = 0; b < h; b++) {
                    const double complex c =
                        cpow(block_chi(sty_fits[f].tr, d, rl_so2_freq(d, RL_STUDY_BASE, 1.0, b)), grid[g]);
                    lu += block_mean(c, q, M[j].u, b, h);
                    lw += block_mean(c, q, M[j].w, b, h);
                }
                x[2 * j] = lu - bias;
                x[2 * j + 1] = lw - bias;
            }
            rl_mean_se(x, nf, 2, &mu[0], &se[0]);
            rl_mean_se(x + 1, nf, 2, &mu[1], &se[1]);
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%.6g\t%ld\t%g\t%.3g\t%.3g\t%d", sty_fits[f].name, grid[g], mu[0], mu[1],
                       z->T, M[0].lambda, se[0], se[1], nf);
        }
    rl_tsv_close(t);
    free(grid);
    free(x);
}

/* The fitting curves: the batch mean of log alpha_t per step, mean and SE across fits. */
static void write_curves(const rl_outdir *out, const sty_size *z, const double *curves)
{
    rl_tsv *t = rl_tsv_open(out, "stylized_fit.tsv", "fit\tstep\tmean_log_alpha\tT_train\tbatch\tse\tfits");
    const long stride = (long)STY_NFIT * z->steps; /* from fit j to fit j + 1 */
    for (int f = 0; f < STY_NFIT; f++)
        for (int s = 0; s < z->steps; s++) {
            double mu, se;
            rl_mean_se(curves + (long)f * z->steps + s, z->nfit, stride, &mu, &se);
            rl_tsv_row(t, "%s\t%d\t%.6g\t%ld\t%d\t%.3g\t%d", sty_fits[f].name, s, mu, z->T, z->batch, se, z->nfit);
        }
    rl_tsv_close(t);
}

static void write_main(const rl_outdir *out, const sty_model *m, const sty_size *z, const results *R,
                       const long *grid, int gT)
{
    rl_tsv *t = rl_tsv_open(out, "stylized.tsv",
                            "scheme\tL\tL_over_T\tM_L\talpha\talpha_se\trho\trho_se\trho_bound\trho_alibi_upper\t"
                            "nll\tnll_se\tloss_ratio\tloss_ratio_se\tppl_ratio\tppl_ratio_se\tsnr\tsnr_se\tbg\tbg_se\t"
                            "signal\tsignal_se\tviolations\treps\td\tT_train\tlambda\tk_near\tslope\tfits\tqueries_per_fit");
    for (int s = 0; s < STY_NSCHEME; s++)
        for (int g = 0; g < R->ng; g++) {
            const long L = grid[g], M = L - m->k_near;
            est a = one(R, STY_Q_ALPHA, s, g), rho = one(R, STY_Q_RHO, s, g), nll = one(R, STY_Q_NLL, s, g);
            est snr = one(R, STY_Q_SNR, s, g), bg = one(R, STY_Q_BG, s, g), sig = one(R, STY_Q_SIG, s, g);
            est lr = loss_ratio(R, s, g, gT), pr = ppl_ratio(R, s, g, gT);
            est v = one(R, STY_Q_VIOL, s, g);
            const long reps = (long)R->nfit * R->nq;
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%ld\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t"
                          "%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t%.0f\t%ld\t%d\t%ld\t%g\t%d\t%g\t%d\t%ld",
                       sty_schemes[s].name, L, (double)L / z->T, L - 1, a.mean, a.se, rho.mean, rho.se,
                       rl_farmass_lower((double)M, m->k_near, m->lambda),
                       rl_farmass_alibi((double)M, m->k_near, m->lambda, m->slope, 0), nll.mean, nll.se, lr.mean,
                       lr.se, pr.mean, pr.se, snr.mean, snr.se, bg.mean, bg.se, sig.mean, sig.se,
                       v.mean * reps, reps, m->d, z->T, m->lambda, m->k_near, m->slope, R->nfit, R->nq);
        }
    rl_tsv_close(t);
    /* the study's ratios, for the ratio figure */
    t = rl_tsv_open(out, "stylized_study.tsv", "variant\tL\tL_over_512\tppl\tppl_ratio");
    for (int i = 0; i < NSTUDY; i++) {
        const rl_study_row *st = rl_study_find(study_variants[i]);
        for (int k = 0; k < RL_STUDY_NLEN; k++)
            rl_tsv_row(t, "%s\t%ld\t%ld\t%.2f\t%.4f", st->name, rl_study_lengths[k], rl_study_lengths[k] / 512,
                       st->ppl[k], st->ppl[k] / st->ppl[0]);
    }
    rl_tsv_close(t);
}

/* The table at 16 T and 128 T next to the study's 8K/512 and 65K/512. */
static void write_table(const rl_outdir *out, const sty_size *z, const results *R, int gT, int g16, int g128,
                        rl_report *rep)
{
    size_t cap = 8192, used = 0;
    char *tab = rl_xmalloc(cap);
    rl_tsv *t = rl_tsv_open(out, "stylized_table.tsv",
                            "scheme\talpha_T\talpha_16T\talpha_128T\tppl_ratio_16T\tppl_ratio_16T_se\t"
                            "ppl_ratio_128T\tppl_ratio_128T_se\tloss_ratio_16T\tloss_ratio_128T\tsnr_T\tsnr_16T\t"
                            "snr_128T\tstudy_8K_over_512\tstudy_65K_over_512\tfits");
    used += snprintf(tab + used, cap - used,
                     "scheme\tα_t(T)\tα_t(16T)\tα_t(128T)\tppl ratio 16T\tppl ratio 128T\tstudy 8K/512\t"
                     "study 65K/512\t−log ratio 16T\t−log ratio 128T\tSNR(T)\tSNR(16T)\tSNR(128T)\n");
    for (int s = 0; s < STY_NSCHEME; s++) {
        const rl_study_row *st = rl_study_find(sty_schemes[s].name);
        double s8 = rl_study_ratio(st, 16), s65 = rl_study_ratio(st, 128);
        est a0 = one(R, STY_Q_ALPHA, s, gT), a1 = one(R, STY_Q_ALPHA, s, g16), a2 = one(R, STY_Q_ALPHA, s, g128);
        est p1 = ppl_ratio(R, s, g16, gT), p2 = ppl_ratio(R, s, g128, gT);
        est l1 = loss_ratio(R, s, g16, gT), l2 = loss_ratio(R, s, g128, gT);
        est n0 = one(R, STY_Q_SNR, s, gT), n1 = one(R, STY_Q_SNR, s, g16), n2 = one(R, STY_Q_SNR, s, g128);
        rl_tsv_row(t, "%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\t%.4g\t%d",
                   sty_schemes[s].name, a0.mean, a1.mean, a2.mean, p1.mean, p1.se, p2.mean, p2.se, l1.mean, l2.mean,
                   n0.mean, n1.mean, n2.mean, s8, s65, R->nfit);
        char c8[32] = "–", c65[32] = "–";
        if (st) {
            snprintf(c8, sizeof c8, "%.2f×", s8);
            snprintf(c65, sizeof c65, "%.2f×", s65);
        }
        if (used + 512 < cap)
            used += snprintf(tab + used, cap - used,
                             "%s\t%.4f ± %.2g\t%.4f ± %.2g\t%.4f ± %.2g\t%.5g× ± %.2g\t%.5g× ± %.2g\t%s\t%s\t"
                             "%.3g ± %.2g\t%.3g ± %.2g\t%.3g\t%.3g\t%.3g\n",
                             sty_schemes[s].name, a0.mean, a0.se, a1.mean, a1.se, a2.mean, a2.se, p1.mean, p1.se,
                             p2.mean, p2.se, c8, c65, l1.mean, l1.se, l2.mean, l2.se, n0.mean, n1.mean, n2.mean);
    }
    rl_tsv_close(t);
    char cap_[512];
    snprintf(cap_, sizeof cap_,
             RL_PROSE_STYLIZED_TABLE_CAPTION,
             z->T, R->nfit, R->nq);
    rl_report_table(rep, cap_, tab);
    free(tab);
}

/* The across-fit evidence of d, the per-fit difference the claim predicts
 * positive: its z and how many fits agree, appended to measured. */
static const char *fit_text(char *buf, size_t n, const results *R, est d, const char *measured)
{
    return rl_fmt(buf, n, "%s; t = %.1f across %d fits (z = %.1f, Student with %d df), %d/%d fits agree", measured,
                  rl_effect_z(d.mean, d.se), R->nfit, rl_effect_z_repeats(d.mean, d.se, R->nfit), R->nfit - 1, d.pos,
                  R->nfit);
}

/* A claim of the study on d, decided by the sign rule (claims table):
 * holds, contradicted or unresolved; unresolved says how many fits at this
 * mean and spread would decide it. */
static void decide(rl_report *rep, const results *R, est d, const char *what, const char *predicted,
                   const char *measured)
{
    char ms[768], mu[900];
    const double x = rl_effect_z_repeats(d.mean, d.se, R->nfit);
    fit_text(ms, sizeof ms, R, d, measured);
    if (rl_rule_decide(&rl_rule_sign, x) == RL_V_UNRESOLVED) {
        const long need = rl_effect_repeats_needed(d.mean, d.se, R->nfit, rl_rule_sign.k, 100000);
        if (need > 0)
            rl_fmt(mu, sizeof mu, "%s; at this mean and spread about %ld fits would decide it", ms, need);
        else
            rl_fmt(mu, sizeof mu, "%s; no number of fits up to 100,000 decides it at this mean", ms);
        rl_report_decide(rep, &rl_rule_sign, x, NULL, what, predicted, mu);
        return;
    }
    rl_report_decide(rep, &rl_rule_sign, x, NULL, what, predicted, ms);
}

/* The largest |X(a) - X(b)| over every fit, query and length. */
static double max_absdiff(const results *R, int q, int a, int b)
{
    double w = 0;
    for (int j = 0; j < R->nfit; j++)
        for (long r = 0; r < R->nq; r++)
            for (int g = 0; g < R->ng; g++)
                w = rl_worst(w, fabs(val(R, j, r, a, g, q) - val(R, j, r, b, g, q)));
    return w;
}

/* A claim "scheme a degrades more than b" on the per-fit degradation difference. */
static void check_more(rl_report *rep, const results *R, const char *a, const char *b, int g, int gT, long mult,
                       const char *study_note)
{
    char w[256], p[256], ms[384];
    int sa = scheme_index(a), sb = scheme_index(b);
    est d = degr_diff(R, sa, sb, g, gT);
    est ra = ppl_ratio(R, sa, g, gT), rb = ppl_ratio(R, sb, g, gT);
    decide(rep, R, d, rl_fmt(w, sizeof w, "%s degrades beyond T_train more than %s (L = %ld T)", a, b, mult),
           rl_fmt(p, sizeof p, "ppl ratio %s > %s (%s)", a, b, study_note),
           rl_fmt(ms, sizeof ms, "%.3g× ± %.2g vs %.3g× ± %.2g; Δ log-ratio = %.3f ± %.3f", ra.mean, ra.se, rb.mean,
                  rb.se, d.mean, d.se));
}

/* 1. the rotation-only lower bound, every query of every fit */
static void check_lower_bound(const sty_model *m, const results *R, rl_report *rep)
{
    char p[256], ms[384];
    long viol = 0, n = 0;
    for (int s = 0; s < STY_NSCHEME; s++) {
        if (sty_fits[sty_schemes[s].fit].alibi)
            continue;
        for (int g = 0; g < R->ng; g++)
            for (int j = 0; j < R->nfit; j++)
                for (long r = 0; r < R->nq; r++, n++)
                    viol += val(R, j, r, s, g, STY_Q_VIOL) != 0;
    }
    /* an identity: the fitted query is projected on |q| ≤ λ and the keys
     * are unit vectors, so |logit| ≤ λ and the bound follows algebraically */
    rl_report_identity(rep, viol == 0,
                       RL_PROSE_STYLIZED_BOUND_CHECK,
                       rl_fmt(p, sizeof p, "0 violations (|logit| ≤ λ = %g by construction, K = %d)", m->lambda,
                              m->k_near),
                       rl_fmt(ms, sizeof ms, "%ld violations in %ld", viol, n));
}

/* 2. the study's ordering, pair by pair, and random_qk from 16T to 128T */
static void check_orderings(const results *R, int gT, int g16, int g128, rl_report *rep)
{
    char ms[384];
    check_more(rep, R, "rope", "random_qk", g16, gT, 16, "study at 8K/512: 16.2× vs 1.60×");
    check_more(rep, R, "rope", "random_qk", g128, gT, 128, "study at 65K/512: 38.5× vs 7.49×");
    check_more(rep, R, "rope", "haar", g16, gT, 16, "study: PaTH extrapolates, RoPE does not");
    /* an identity, the same argument as ALiBi's below: the 16T context is
     * the first 16T tokens of the 128T one with the same draws, so with e >
     * 0 the 128T softmax's mass beyond 16T, α_t(128T) = (1 − e) α_t(16T) and
     * −log α_t can only grow, query by query, whatever the scheme; the
     * study's 1.60× → 7.49× is about trained models, which this cannot test */
    const int s = scheme_index("random_qk");
    est d = lin(R, STY_Q_NLL, s, g128, 1, s, g16);
    est r16 = ppl_ratio(R, s, g16, gT), r128 = ppl_ratio(R, s, g128, gT);
    double grow = INFINITY;
    for (int j = 0; j < R->nfit; j++)
        for (long r = 0; r < R->nq; r++)
            grow = fmin(grow, val(R, j, r, s, g128, STY_Q_NLL) - val(R, j, r, s, g16, STY_Q_NLL));
    rl_report_identity(rep, grow >= -1e-12, RL_PROSE_STYLIZED_GROW_CHECK,
                       RL_PROSE_STYLIZED_GROW_PRED,
                       rl_fmt(ms, sizeof ms, "%.3g× ± %.2g → %.3g× ± %.2g; Δ log-ratio = %.3f ± %.3f; least increase "
                              "over %d fits × %ld queries %.3g", r16.mean, r16.se, r128.mean, r128.se, d.mean, d.se,
                              R->nfit, R->nq, grow));
}

/* 3. the value side: identical scores, so only the output can differ */
static void check_values(const results *R, int g16, int g128, rl_report *rep)
{
    char w[256], ms[384];
    const int a = scheme_index("random_qk"), b = scheme_index("random_qkv");
    est da = one(R, STY_Q_ALPHA, a, g128), db = one(R, STY_Q_ALPHA, b, g128);
    const double wd = max_absdiff(R, STY_Q_ALPHA, a, b);
    rl_report_identity(rep, wd == 0, "random_qk vs random_qkv: target weight",
                       RL_PROSE_STYLIZED_WEIGHT_PRED,
                       rl_fmt(ms, sizeof ms, "α_t(128T) = %.4g vs %.4g; max difference over fits, queries, L %.2g",
                              da.mean, db.mean, wd));
    const int gs[2] = { g16, g128 };
    const long mult[2] = { 16, 128 };
    for (int i = 0; i < 2; i++) {
        est dd = lin(R, STY_Q_SNR, b, gs[i], 1, a, gs[i]);
        est sa = one(R, STY_Q_SNR, a, gs[i]), sb = one(R, STY_Q_SNR, b, gs[i]);
        est ba = one(R, STY_Q_BG, a, gs[i]), bb = one(R, STY_Q_BG, b, gs[i]);
        decide(rep, R, dd, rl_fmt(w, sizeof w, "random_qkv output SNR > random_qk at L = %ld T", mult[i]),
               RL_PROSE_STYLIZED_SNR_PRED,
               rl_fmt(ms, sizeof ms, "SNR %.3g ± %.2g vs %.3g ± %.2g; background %.3g vs %.3g", sb.mean, sb.se,
                      sa.mean, sa.se, bb.mean, ba.mean));
    }
}

/* 4a. ALiBi against the rotation-only lower bound at the longest context (a
 * reading of ours), and against nope (the study's claim) */
static void check_alibi_far(const sty_model *m, const results *R, const long *grid, rl_report *rep)
{
    char w[256], p[256], ms[384], mt[384];
    const int s = scheme_index("alibi");
    /* the bound tends to 1, a bounded far mass rho_inf falls below it once
     * M > K e^{2 lambda} rho_inf / (1 - rho_inf) */
    const int gl = R->ng - 1;
    const long Ll = grid[gl];
    est rho = one(R, STY_Q_RHO, s, gl);
    double lb = rl_farmass_lower((double)(Ll - m->k_near), m->k_near, m->lambda);
    double cross = m->k_near + m->k_near * exp(2 * m->lambda) * rho.mean / (1 - rho.mean);
    est below = { lb - rho.mean, rho.se, 0 };
    for (int j = 0; j < R->nfit; j++)
        below.pos += lb - fit_lin(R, j, STY_Q_RHO, s, gl, 0, 0, 0) > 0;
    /* a reading of ours, not a claim of the study: info */
    rl_report_info(rep, rl_fmt(w, sizeof w, RL_PROSE_STYLIZED_ALIBI_BELOW_INFO, Ll),
                   rl_fmt(p, sizeof p, "< %.3g = M/(M + K e^{2λ})", lb),
                   fit_text(ms, sizeof ms, R, below,
                            rl_fmt(mt, sizeof mt, "%.3g ± %.2g (the bound overtakes this plateau at L ≈ %.3g)",
                                   rho.mean, rho.se, cross)));
    const int sn = scheme_index("nope");
    est rn = one(R, STY_Q_RHO, sn, gl);
    est dd = lin(R, STY_Q_RHO, sn, gl, 1, s, gl);
    decide(rep, R, dd, rl_fmt(w, sizeof w, RL_PROSE_STYLIZED_ALIBI_CONTROL_CHECK, Ll),
           "ρ_D(alibi) < ρ_D(nope)", rl_fmt(ms, sizeof ms, "%.3g ± %.2g vs %.3g ± %.2g", rho.mean, rho.se, rn.mean, rn.se));
}

/* 4. ALiBi: the far mass saturates, the target weight stays */
static void check_alibi(const sty_model *m, const results *R, const long *grid, int gT, int g16, int g128,
                        rl_report *rep)
{
    char p[256], ms[384];
    const int s = scheme_index("alibi");
    const long L16 = grid[g16], L128 = grid[g128];
    /* mass beyond 16T at 128T, worst case: near = distances 1..16T */
    double B = rl_farmass_alibi((double)(L128 - L16), (double)L16, m->lambda, m->slope, 0);
    /* predicted: B - (rho(128T) - rho(16T)) > 0, per fit */
    est dr = lin(R, STY_Q_RHO, s, g128, 1, s, g16);
    /* Identities: the 16T context is the first 16T tokens of the 128T
     * one, so with e the 128T softmax's mass beyond 16T, ρ(128T) = (1 − e)
     * ρ(16T) + e and α_t(128T) = (1 − e) α_t(16T); e ≤ B as |logit| ≤ λ.
     * Each fit's slack must be ≥ 0 (to rounding: B may be below 1e-16). */
    double slack = INFINITY, flat = INFINITY;
    const double pred = -log1p(-B);
    for (int j = 0; j < R->nfit; j++) {
        slack = fmin(slack, B - fit_lin(R, j, STY_Q_RHO, s, g128, 1, s, g16));
        flat = fmin(flat, pred - fit_lin(R, j, STY_Q_NLL, s, g128, 1, s, g16));
    }
    rl_report_identity(rep, slack >= -1e-12, "alibi: far mass bounded (its increase from 16T to 128T)",
                       rl_fmt(p, sizeof p, "≤ %.3g (mass beyond 16T, closed form, m = %g)", B, m->slope),
                       rl_fmt(ms, sizeof ms, "%.3g ± %.2g; least slack over %d fits %.3g", dr.mean, dr.se,
                              R->nfit, slack));
    check_alibi_far(m, R, grid, rep);
    est dn = lin(R, STY_Q_NLL, s, g128, 1, s, g16);
    est r128 = ppl_ratio(R, s, g128, gT), r16 = ppl_ratio(R, s, g16, gT);
    rl_report_identity(rep, flat >= -1e-12, "alibi flat: −log α_t does not grow from 16T to 128T",
                       rl_fmt(p, sizeof p, "increase ≤ −log(1 − %.3g) (study 0.94× → 0.96×)", B),
                       rl_fmt(ms, sizeof ms, "%.3g ± %.2g (ppl ratio %.5f× → %.5f×); least slack over %d fits %.3g",
                              dn.mean, dn.se, r16.mean, r128.mean, R->nfit, flat));
}

/* 5. the ordering that comes out, next to the study's (means across fits) */
static void ordering_info(const results *R, int gT, int g128, rl_report *rep)
{
    char ms[384];
    int ord[STY_NSCHEME];
    est key[STY_NSCHEME];
    for (int s = 0; s < STY_NSCHEME; s++) {
        ord[s] = s;
        key[s] = ppl_ratio(R, s, g128, gT);
    }
    for (int i = 1; i < STY_NSCHEME; i++) /* insertion sort, largest first */
        for (int j = i; j > 0 && key[ord[j]].mean > key[ord[j - 1]].mean; j--) {
            int tmp = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = tmp;
        }
    size_t u = 0;
    ms[0] = 0;
    for (int i = 0; i < STY_NSCHEME && u + 48 < sizeof ms; i++)
        u += snprintf(ms + u, sizeof ms - u, "%s%s %.3g× ± %.2g", i ? " > " : "", sty_schemes[ord[i]].name,
                      key[ord[i]].mean, key[ord[i]].se);
    rl_report_info(rep, RL_PROSE_STYLIZED_ORDER_INFO,
                    RL_PROSE_STYLIZED_STUDY_ORDER, ms);
}

static void checks(const sty_model *m, const sty_size *z, const results *R, const long *grid, int gT, int g16,
                   int g128, rl_report *rep)
{
    check_lower_bound(m, R, rep);
    check_orderings(R, gT, g16, g128, rep);
    check_values(R, g16, g128, rep);
    check_alibi(m, R, grid, gT, g16, g128, rep);
    ordering_info(R, gT, g128, rep);
    (void)z;
}

/* The results of one run: per fit its model (directions), its fitted
 * queries and their fitting curves, and its queries' measurements on the
 * grid L = T 2^k. */
typedef struct {
    sty_size z;
    sty_model *M; /* z.nfit */
    long grid[32];
    int ng, gT, g16, g128;
    double *Q, *curves, *res;
} sty_res;

rl_status rl_exp_stylized_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    sty_size z = size_of(ctx->preset);
    if (128 * z.T > z.lmax)
        return rl_fail(err, RL_EINTERNAL, "stylized: 128 T_train exceeds the longest context");
    sty_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = z;
    /* fit j's directions: stream key(RL_STREAM_STY_DIRS, j) */
    R->M = rl_xcalloc((size_t)z.nfit, sizeof *R->M);
    for (int j = 0; j < z.nfit; j++)
        sty_model_init(&R->M[j], z.d, STY_KNEAR, STY_LAMBDA, STY_KEYNOISE, STY_VALNOISE, STY_SLOPE,
                       (unsigned long)ctx->seed, rl_stream_key(RL_STREAM_STY_DIRS, (uint64_t)j));

    /* grid: L = T 2^k from T/4 up to lmax */
    R->gT = R->g16 = R->g128 = -1;
    for (long L = z.T / 4; L <= z.lmax && R->ng < 32; L *= 2) {
        R->gT = L == z.T ? R->ng : R->gT;
        R->g16 = L == 16 * z.T ? R->ng : R->g16;
        R->g128 = L == 128 * z.T ? R->ng : R->g128;
        R->grid[R->ng++] = L;
    }
    R->Q = rl_xmalloc(sizeof(double) * z.nfit * STY_NFIT * z.d);
    R->curves = rl_xmalloc(sizeof(double) * z.nfit * STY_NFIT * z.steps);
    RL_TRY(fit_all(ctx->seed, R->M, &z, R->Q, R->curves, err));
    return evaluate(ctx->seed, R->M, &z, R->Q, R->grid, R->ng, &R->res, err);
}

void rl_exp_stylized_free(void *res)
{
    sty_res *S = res;
    if (!S)
        return;
    free(S->res);
    free(S->Q);
    free(S->curves);
    if (S->M)
        for (int j = 0; j < S->z.nfit; j++)
            sty_model_free(&S->M[j]);
    free(S->M);
    free(S);
}

void rl_exp_stylized_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const sty_res *S = res;
    const sty_size z = S->z;
    const sty_model m = S->M[0]; /* the constants (lambda, K, slope) are those of every fit */
    const long *grid = S->grid;
    const int ng = S->ng, gT = S->gT, g16 = S->g16, g128 = S->g128;
    write_query(out, S->M, &z, S->Q);
    write_curves(out, &z, S->curves);
    results R = { S->res, z.nfit, z.nq, ng };
    write_main(out, &m, &z, &R, grid, gT);

    rl_report_text(rep,
                   RL_PROSE_STYLIZED_INTRO,
                   z.d, m.slope, m.lambda, m.key_noise, m.k_near, m.value_noise, (int)z.T, z.steps, z.batch, z.nq,
                   z.lmax, z.nfit, rl_rule_sign.k, rl_rule_sign.k, rl_mixing_window(1.0 - 2.0 / z.d, 0.1));
    write_table(out, &z, &R, gT, g16, g128, rep);
    rl_report_text(rep,
                   RL_PROSE_STYLIZED_READING,
                   m.value_noise ? 1.0 / m.value_noise : INFINITY);
    checks(&m, &z, &R, grid, gT, g16, g128, rep);

    const rl_plotvar vars[] = { RL_PV_I("T", z.T), RL_PV_I("d", z.d), RL_PV_R("lambda", m.lambda),
                                RL_PV_I("K", m.k_near), RL_PV_R("sv", m.value_noise), RL_PV_I("nfit", z.nfit) };
    rl_plot(out, "stylized_alpha", "stylized_alpha", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_farmass", "stylized_farmass", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_snr", "stylized_snr", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_ratio", "stylized_ratio", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_query", "stylized_query", vars, RL_NVARS(vars));
    rl_report_figure(rep, "stylized_alpha.png",
                     RL_PROSE_STYLIZED_FIG_ALPHA);
    rl_report_figure(rep, "stylized_farmass.png",
                     RL_PROSE_STYLIZED_FIG_FARMASS);
    rl_report_figure(rep, "stylized_snr.png",
                     RL_PROSE_STYLIZED_FIG_SNR);
    rl_report_figure(rep, "stylized_ratio.png",
                     RL_PROSE_STYLIZED_FIG_RATIO);
    rl_report_figure(rep, "stylized_query.png",
                     RL_PROSE_STYLIZED_FIG_QUERY);
}
