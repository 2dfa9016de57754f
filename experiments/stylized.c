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
#include "stylized.h"

/* The spread between fits (the model's directions and the fit's own data)
 * dominates the spread between evaluation queries of one fit
 * (docs/theory/claim5-stylized.md#claim-stylized: RoPE's 16T ratio ranged 3.9-32 over four seeds
 * with a per-fit SE of 5 %), so the work goes into fits: quick keeps the 64 evaluation walks of the
 * single-fit design (8 fits x 8 queries) and a quarter of its fitting work
 * per fit (200 steps x 8 windows instead of 300 x 16), so that the total
 * time stays about the same; full has 16 fits x 16 queries. */
static rl_sty_size size_of(int preset)
{
    rl_sty_size q = { 32, 64, 200, 8, 8, 65536, 8 };
    rl_sty_size f = { 64, 256, 300, 16, 16, 65536, 16 };
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
_Static_assert(sizeof study_variants / sizeof *study_variants == RL_STY_NSTUDY, "RL_STY_NSTUDY: the variants");

/* ---------- statistics: per fit over its queries, then across fits ---------- */

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
static rl_sty_est across(double *x, int n)
{
    rl_sty_est e = { 0, 0, 0 };
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

static rl_sty_est lin(const results *R, int q, int s, int g, double b, int s2, int g2)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = fit_lin(R, j, q, s, g, b, s2, g2);
    return across(x, R->nfit);
}

static rl_sty_est one(const results *R, int q, int s, int g)
{
    return lin(R, q, s, g, 0, 0, 0);
}

/* Perplexity-like ratio exp(E[-log a(L)] - E[-log a(T)]) of each fit (its
 * queries paired), then mean and SE across fits. */
static rl_sty_est ppl_ratio(const results *R, int s, int g, int gT)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = exp(fit_lin(R, j, STY_Q_NLL, s, g, 1, s, gT));
    return across(x, R->nfit);
}

/* The brief's loss ratio E[-log a(L)] / E[-log a(T)] of each fit, across fits. */
static rl_sty_est loss_ratio(const results *R, int s, int g, int gT)
{
    double *x = per_fit(R);
    for (int j = 0; j < R->nfit; j++)
        x[j] = fit_lin(R, j, STY_Q_NLL, s, g, 0, 0, 0) / fit_lin(R, j, STY_Q_NLL, s, gT, 0, 0, 0);
    return across(x, R->nfit);
}

/* Difference of the degradations of each fit, (nll_s1(L) - nll_s1(T)) -
 * (nll_s2(L) - nll_s2(T)) (a difference of log ppl ratios), across fits. */
static rl_sty_est degr_diff(const results *R, int s1, int s2, int g, int gT)
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
    const rl_sty_size *z;
    double *Q, *curves;
} fit_ctx;

static rl_status fit_item(void *ctx, void *ws, long i, rl_err *err)
{
    const fit_ctx *x = ctx;
    const sty_model *M = x->M;
    const rl_sty_size *z = x->z;
    const int d = M[0].d, j = (int)(i / STY_NFIT), f = (int)(i % STY_NFIT);
    (void)ws;
    sty_fit_opts o = { z->T, z->steps, z->batch, 0.05 * M[j].lambda / sqrt((double)d), (unsigned long)x->seed,
                       RL_STREAM_STY_FIT, (unsigned long)j };
    return sty_fit(&M[j], &sty_fits[f], &o, x->Q + i * d, x->curves + i * z->steps, err);
}

static const rl_mc_sweep_fn fit_sweep = { NULL, NULL, fit_item, 0 };

/* Every (fit index, score process) pair, into Q (d each) and curves. */
static rl_status fit_all(long seed, const sty_model *M, const rl_sty_size *z, double *Q, double *curves, rl_err *err)
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
    const rl_sty_size *z;
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

static rl_status evaluate(long seed, const sty_model *M, const rl_sty_size *z, const double *Q, const long *grid,
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

/* ---------- the summary: every number the report shows ---------- */

/* What the fits learned: per block, the query's energy and projections, and
 * the block's mean contribution to the logit of the shared key direction u
 * inside the training window (delta = 1..T) and beyond it (T < delta <= 128 T).
 * Each is computed per fit (its own q, u, w) and given as the mean and SE
 * across fits. */
enum { QCOLS = 9 };

static void query_summarise(const rl_sty_res *S, rl_sty_summary *o)
{
    const sty_model *M = S->M;
    const rl_sty_size *z = &S->z;
    const int d = M[0].d, h = d / 2, nf = z->nfit;
    double *x = rl_xmalloc(sizeof(double) * QCOLS * nf);
    o->qh = h;
    o->q_omega = rl_xmalloc(sizeof(double) * h);
    o->q_mu = rl_xmalloc(sizeof(double) * STY_NFIT * h * QCOLS);
    o->q_se = rl_xmalloc(sizeof(double) * STY_NFIT * h * QCOLS);
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
                const double *q = S->Q + ((size_t)j * STY_NFIT + f) * d;
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
            o->q_omega[b] = om;
            const size_t at = ((size_t)f * h + b) * QCOLS;
            for (int c2 = 0; c2 < QCOLS; c2++)
                rl_mean_se(x + c2, nf, QCOLS, &o->q_mu[at + c2], &o->q_se[at + c2]);
        }
    free(x);
}

/* The mean logits of u and of w against the distance, in closed form, per
 * fit, then mean and SE across fits. */
static void logit_summarise(const rl_sty_res *S, rl_sty_summary *o)
{
    const sty_model *M = S->M;
    const rl_sty_size *z = &S->z;
    const int d = M[0].d, h = d / 2, nf = z->nfit;
    double *x = rl_xmalloc(sizeof(double) * 2 * nf);
    o->lgrid = rl_route_grid(z->lmax, z->T, 16, &o->lng);
    const int ng = o->lng;
    const long *grid = o->lgrid;
    o->l_mu = rl_xmalloc(sizeof(double) * STY_NFIT * ng * 2);
    o->l_se = rl_xmalloc(sizeof(double) * STY_NFIT * ng * 2);
    for (int f = 0; f < STY_NFIT; f++)
        for (int g = 0; g < ng; g++) {
            const double bias = sty_fits[f].alibi ? M[0].slope * (double)grid[g] : 0.0;
            for (int j = 0; j < nf; j++) {
                const double *q = S->Q + ((size_t)j * STY_NFIT + f) * d;
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
            const size_t at = ((size_t)f * ng + g) * 2;
            rl_mean_se(x, nf, 2, &o->l_mu[at], &o->l_se[at]);
            rl_mean_se(x + 1, nf, 2, &o->l_mu[at + 1], &o->l_se[at + 1]);
        }
    free(x);
}

/* The fitting curves: the batch mean of log alpha_t per step, mean and SE
 * across fits; and the study's ratios (the table's and the figure's). */
static void curves_summarise(const rl_sty_res *S, rl_sty_summary *o)
{
    const rl_sty_size *z = &S->z;
    const long stride = (long)STY_NFIT * z->steps; /* from fit j to fit j + 1 */
    o->c_mu = rl_xmalloc(sizeof(double) * STY_NFIT * z->steps);
    o->c_se = rl_xmalloc(sizeof(double) * STY_NFIT * z->steps);
    for (int f = 0; f < STY_NFIT; f++)
        for (int s = 0; s < z->steps; s++)
            rl_mean_se(S->curves + (long)f * z->steps + s, z->nfit, stride, &o->c_mu[f * z->steps + s],
                       &o->c_se[f * z->steps + s]);
    for (int s = 0; s < STY_NSCHEME; s++) {
        const rl_study_row *st = rl_study_find(sty_schemes[s].name);
        o->has_study[s] = st != NULL;
        o->study8[s] = rl_study_ratio(st, 16);
        o->study65[s] = rl_study_ratio(st, 128);
    }
    for (int i = 0; i < RL_STY_NSTUDY; i++) {
        const rl_study_row *st = rl_study_find(study_variants[i]);
        o->sv_name[i] = st->name;
        for (int k = 0; k < RL_STUDY_NLEN; k++) {
            o->sv_ppl[i][k] = st->ppl[k];
            o->sv_ratio[i][k] = st->ppl[k] / st->ppl[0];
        }
    }
}

/* Every scheme at every L: the quantities across fits, and the far-mass
 * bounds at M = L - K. */
static void points_summarise(const rl_sty_res *S, const results *R, rl_sty_summary *o)
{
    const sty_model *m = &S->M[0];
    o->pt = rl_xcalloc((size_t)STY_NSCHEME * R->ng, sizeof *o->pt);
    for (int s = 0; s < STY_NSCHEME; s++)
        for (int g = 0; g < R->ng; g++) {
            const long L = S->grid[g], M = L - m->k_near;
            const long reps = (long)R->nfit * R->nq;
            rl_sty_point *p = &o->pt[s * R->ng + g];
            p->a = one(R, STY_Q_ALPHA, s, g);
            p->rho = one(R, STY_Q_RHO, s, g);
            p->nll = one(R, STY_Q_NLL, s, g);
            p->snr = one(R, STY_Q_SNR, s, g);
            p->bg = one(R, STY_Q_BG, s, g);
            p->sig = one(R, STY_Q_SIG, s, g);
            p->lr = loss_ratio(R, s, g, S->gT);
            p->pr = ppl_ratio(R, s, g, S->gT);
            p->viol = one(R, STY_Q_VIOL, s, g).mean * reps;
            p->rho_bound = rl_farmass_lower((double)M, m->k_near, m->lambda);
            p->rho_alibi = rl_farmass_alibi((double)M, m->k_near, m->lambda, m->slope, 0);
        }
}

/* A per-fit difference d for the sign rule. */
static rl_sty_sign sign_of(rl_sty_est d, int nfit)
{
    return (rl_sty_sign){ d, rl_effect_z(d.mean, d.se), rl_effect_z_repeats(d.mean, d.se, nfit),
                          rl_effect_repeats_needed(d.mean, d.se, nfit, rl_rule_sign.k, 100000) };
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

/* The checks 1-3: the rotation-only bound, the study's orderings, the
 * value side. */
static void checks_summarise(const rl_sty_res *S, const results *R, rl_sty_summary *o)
{
    const int gT = S->gT, g16 = S->g16, g128 = S->g128;
    for (int s = 0; s < STY_NSCHEME; s++) {
        if (sty_fits[sty_schemes[s].fit].alibi)
            continue;
        for (int g = 0; g < R->ng; g++)
            for (int j = 0; j < R->nfit; j++)
                for (long r = 0; r < R->nq; r++, o->nviol++)
                    o->viol += val(R, j, r, s, g, STY_Q_VIOL) != 0;
    }
    const int rope = scheme_index("rope"), qk = scheme_index("random_qk"), haar = scheme_index("haar");
    o->more[0] = sign_of(degr_diff(R, rope, qk, g16, gT), R->nfit);
    o->more[1] = sign_of(degr_diff(R, rope, qk, g128, gT), R->nfit);
    o->more[2] = sign_of(degr_diff(R, rope, haar, g16, gT), R->nfit);
    o->grow_d = lin(R, STY_Q_NLL, qk, g128, 1, qk, g16);
    o->grow = INFINITY;
    for (int j = 0; j < R->nfit; j++)
        for (long r = 0; r < R->nq; r++)
            o->grow = fmin(o->grow, val(R, j, r, qk, g128, STY_Q_NLL) - val(R, j, r, qk, g16, STY_Q_NLL));
    const int qkv = scheme_index("random_qkv");
    o->wd = max_absdiff(R, STY_Q_ALPHA, qk, qkv);
    const int gs[2] = { g16, g128 };
    for (int i = 0; i < 2; i++)
        o->snr[i] = sign_of(lin(R, STY_Q_SNR, qkv, gs[i], 1, qk, gs[i]), R->nfit);
}

/* The checks 4-5: ALiBi's far mass and target weight, and the ordering
 * by ppl ratio at 128T. */
static void alibi_summarise(const rl_sty_res *S, const results *R, rl_sty_summary *o)
{
    const sty_model *m = &S->M[0];
    const int s = scheme_index("alibi"), g16 = S->g16, g128 = S->g128, gl = R->ng - 1;
    /* mass beyond 16T at 128T, worst case: near = distances 1..16T */
    o->B = rl_farmass_alibi((double)(S->grid[g128] - S->grid[g16]), (double)S->grid[g16], m->lambda, m->slope, 0);
    /* predicted: B - (rho(128T) - rho(16T)) > 0, per fit */
    o->dr = lin(R, STY_Q_RHO, s, g128, 1, s, g16);
    o->slack = o->flat = INFINITY;
    const double pred = -log1p(-o->B);
    for (int j = 0; j < R->nfit; j++) {
        o->slack = fmin(o->slack, o->B - fit_lin(R, j, STY_Q_RHO, s, g128, 1, s, g16));
        o->flat = fmin(o->flat, pred - fit_lin(R, j, STY_Q_NLL, s, g128, 1, s, g16));
    }
    o->dn = lin(R, STY_Q_NLL, s, g128, 1, s, g16);
    /* the bound tends to 1, a bounded far mass rho_inf falls below it once
     * M > K e^{2 lambda} rho_inf / (1 - rho_inf) */
    const rl_sty_est rho = o->pt[s * R->ng + gl].rho;
    o->lb = rl_farmass_lower((double)(S->grid[gl] - m->k_near), m->k_near, m->lambda);
    o->cross = m->k_near + m->k_near * exp(2 * m->lambda) * rho.mean / (1 - rho.mean);
    rl_sty_est below = { o->lb - rho.mean, rho.se, 0 };
    for (int j = 0; j < R->nfit; j++)
        below.pos += o->lb - fit_lin(R, j, STY_Q_RHO, s, gl, 0, 0, 0) > 0;
    o->below = sign_of(below, R->nfit);
    o->control = sign_of(lin(R, STY_Q_RHO, scheme_index("nope"), gl, 1, s, gl), R->nfit);
    for (int k = 0; k < STY_NSCHEME; k++)
        o->ord[k] = k;
    for (int i = 1; i < STY_NSCHEME; i++) /* insertion sort, largest first */
        for (int j = i; j > 0 && o->pt[o->ord[j] * R->ng + g128].pr.mean > o->pt[o->ord[j - 1] * R->ng + g128].pr.mean;
             j--) {
            int tmp = o->ord[j];
            o->ord[j] = o->ord[j - 1];
            o->ord[j - 1] = tmp;
        }
}

void rl_stylized_summarise(const rl_sty_res *S, rl_sty_summary *o)
{
    const sty_model *m = &S->M[0]; /* the constants (lambda, K, slope) are those of every fit */
    memset(o, 0, sizeof *o);
    o->z = S->z;
    o->lambda = m->lambda, o->slope = m->slope, o->key_noise = m->key_noise, o->value_noise = m->value_noise;
    o->k_near = m->k_near;
    memcpy(o->grid, S->grid, sizeof o->grid);
    o->ng = S->ng, o->gT = S->gT, o->g16 = S->g16, o->g128 = S->g128;
    o->window = rl_mixing_window(1.0 - 2.0 / S->z.d, 0.1);
    const results R = { S->res, S->z.nfit, S->z.nq, S->ng };
    query_summarise(S, o);
    logit_summarise(S, o);
    curves_summarise(S, o);
    points_summarise(S, &R, o);
    checks_summarise(S, &R, o);
    alibi_summarise(S, &R, o);
}

void rl_stylized_summary_free(rl_sty_summary *o)
{
    free(o->q_omega);
    free(o->q_mu);
    free(o->q_se);
    free(o->lgrid);
    free(o->l_mu);
    free(o->l_se);
    free(o->c_mu);
    free(o->c_se);
    free(o->pt);
    memset(o, 0, sizeof *o);
}

/* ---------- the render step: formats the summary ---------- */

static void query_render(const rl_outdir *out, const rl_sty_summary *o)
{
    const int h = o->qh;
    rl_tsv *t = rl_tsv_open(out, "stylized_query.tsv",
                            "fit\tblock\tomega\tenergy\tenergy_frac\tq_dot_u\tq_dot_w\tu_energy\tw_energy\t"
                            "u_logit_in_window\tu_logit_beyond\tq_norm\tlambda\tT_train\tu_logit_in_window_se\t"
                            "u_logit_beyond_se\tfits");
    for (int f = 0; f < STY_NFIT; f++)
        for (int b = 0; b < h; b++) {
            const double *mu = o->q_mu + ((size_t)f * h + b) * QCOLS, *se = o->q_se + ((size_t)f * h + b) * QCOLS;
            rl_tsv_row(t, "%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%g\t%ld\t%.3g\t%.3g\t%d",
                       sty_fits[f].name, b, o->q_omega[b], mu[0], mu[1], mu[2], mu[3], mu[4], mu[5], mu[6], mu[7],
                       mu[8], o->lambda, o->z.T, se[6], se[7], o->z.nfit);
        }
    rl_tsv_close(t);
    t = rl_tsv_open(out, "stylized_logit.tsv",
                    "fit\tdelta\tu_logit\tw_logit\tT_train\tlambda\tu_logit_se\tw_logit_se\tfits");
    for (int f = 0; f < STY_NFIT; f++)
        for (int g = 0; g < o->lng; g++) {
            const double *mu = o->l_mu + ((size_t)f * o->lng + g) * 2, *se = o->l_se + ((size_t)f * o->lng + g) * 2;
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%.6g\t%ld\t%g\t%.3g\t%.3g\t%d", sty_fits[f].name, o->lgrid[g], mu[0], mu[1],
                       o->z.T, o->lambda, se[0], se[1], o->z.nfit);
        }
    rl_tsv_close(t);
    t = rl_tsv_open(out, "stylized_fit.tsv", "fit\tstep\tmean_log_alpha\tT_train\tbatch\tse\tfits");
    for (int f = 0; f < STY_NFIT; f++)
        for (int s = 0; s < o->z.steps; s++)
            rl_tsv_row(t, "%s\t%d\t%.6g\t%ld\t%d\t%.3g\t%d", sty_fits[f].name, s, o->c_mu[f * o->z.steps + s], o->z.T,
                       o->z.batch, o->c_se[f * o->z.steps + s], o->z.nfit);
    rl_tsv_close(t);
}

/* The point of scheme s at grid index g. */
static const rl_sty_point *pt_at(const rl_sty_summary *o, int s, int g)
{
    return &o->pt[s * o->ng + g];
}

static void main_render(const rl_outdir *out, const rl_sty_summary *o)
{
    rl_tsv *t = rl_tsv_open(out, "stylized.tsv",
                            "scheme\tL\tL_over_T\tM_L\talpha\talpha_se\trho\trho_se\trho_bound\trho_alibi_upper\t"
                            "nll\tnll_se\tloss_ratio\tloss_ratio_se\tppl_ratio\tppl_ratio_se\tsnr\tsnr_se\tbg\tbg_se\t"
                            "signal\tsignal_se\tviolations\treps\td\tT_train\tlambda\tk_near\tslope\tfits\tqueries_per_fit");
    for (int s = 0; s < STY_NSCHEME; s++)
        for (int g = 0; g < o->ng; g++) {
            const long L = o->grid[g], reps = (long)o->z.nfit * o->z.nq;
            const rl_sty_point *p = pt_at(o, s, g);
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%ld\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t"
                          "%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t%.0f\t%ld\t%d\t%ld\t%g\t%d\t%g\t%d\t%ld",
                       sty_schemes[s].name, L, (double)L / o->z.T, L - 1, p->a.mean, p->a.se, p->rho.mean, p->rho.se,
                       p->rho_bound, p->rho_alibi, p->nll.mean, p->nll.se, p->lr.mean, p->lr.se, p->pr.mean, p->pr.se,
                       p->snr.mean, p->snr.se, p->bg.mean, p->bg.se, p->sig.mean, p->sig.se, p->viol, reps, o->z.d,
                       o->z.T, o->lambda, o->k_near, o->slope, o->z.nfit, o->z.nq);
        }
    rl_tsv_close(t);
    /* the study's ratios, for the ratio figure */
    t = rl_tsv_open(out, "stylized_study.tsv", "variant\tL\tL_over_512\tppl\tppl_ratio");
    for (int i = 0; i < RL_STY_NSTUDY; i++)
        for (int k = 0; k < RL_STUDY_NLEN; k++)
            rl_tsv_row(t, "%s\t%ld\t%ld\t%.2f\t%.4f", o->sv_name[i], rl_study_lengths[k], rl_study_lengths[k] / 512,
                       o->sv_ppl[i][k], o->sv_ratio[i][k]);
    rl_tsv_close(t);
}

/* The table at 16 T and 128 T next to the study's 8K/512 and 65K/512. */
static void table_render(const rl_outdir *out, const rl_sty_summary *o, rl_report *rep)
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
        const double s8 = o->study8[s], s65 = o->study65[s];
        const rl_sty_point *p0 = pt_at(o, s, o->gT), *p1 = pt_at(o, s, o->g16), *p2 = pt_at(o, s, o->g128);
        rl_tsv_row(t, "%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\t%.4g\t%d",
                   sty_schemes[s].name, p0->a.mean, p1->a.mean, p2->a.mean, p1->pr.mean, p1->pr.se, p2->pr.mean,
                   p2->pr.se, p1->lr.mean, p2->lr.mean, p0->snr.mean, p1->snr.mean, p2->snr.mean, s8, s65, o->z.nfit);
        char c8[32] = "–", c65[32] = "–";
        if (o->has_study[s]) {
            snprintf(c8, sizeof c8, "%.2f×", s8);
            snprintf(c65, sizeof c65, "%.2f×", s65);
        }
        if (used + 512 < cap)
            used += snprintf(tab + used, cap - used,
                             "%s\t%.4f ± %.2g\t%.4f ± %.2g\t%.4f ± %.2g\t%.5g× ± %.2g\t%.5g× ± %.2g\t%s\t%s\t"
                             "%.3g ± %.2g\t%.3g ± %.2g\t%.3g\t%.3g\t%.3g\n",
                             sty_schemes[s].name, p0->a.mean, p0->a.se, p1->a.mean, p1->a.se, p2->a.mean, p2->a.se,
                             p1->pr.mean, p1->pr.se, p2->pr.mean, p2->pr.se, c8, c65, p1->lr.mean, p1->lr.se,
                             p2->lr.mean, p2->lr.se, p0->snr.mean, p1->snr.mean, p2->snr.mean);
    }
    rl_tsv_close(t);
    char cap_[512];
    snprintf(cap_, sizeof cap_, RL_PROSE_STYLIZED_TABLE_CAPTION, o->z.T, o->z.nfit, o->z.nq);
    rl_report_table(rep, cap_, tab);
    free(tab);
}

/* The across-fit evidence of a per-fit difference the claim predicts
 * positive: its t, z and how many fits agree, appended to measured. */
static const char *fit_text(char *buf, size_t n, int nfit, const rl_sty_sign *d, const char *measured)
{
    return rl_fmt(buf, n, "%s; t = %.1f across %d fits (z = %.1f, Student with %d df), %d/%d fits agree", measured,
                  d->t, nfit, d->x, nfit - 1, d->d.pos, nfit);
}

/* A claim of the study on d, decided by the sign rule (claims table):
 * holds, contradicted or unresolved; unresolved says how many fits at this
 * mean and spread would decide it. */
static void decide(rl_report *rep, int nfit, const rl_sty_sign *d, const char *what, const char *predicted,
                   const char *measured)
{
    char ms[768], mu[900];
    fit_text(ms, sizeof ms, nfit, d, measured);
    if (rl_rule_decide(&rl_rule_sign, d->x) == RL_V_UNRESOLVED) {
        if (d->need > 0)
            rl_fmt(mu, sizeof mu, "%s; at this mean and spread about %ld fits would decide it", ms, d->need);
        else
            rl_fmt(mu, sizeof mu, "%s; no number of fits up to 100,000 decides it at this mean", ms);
        rl_report_decide(rep, &rl_rule_sign, d->x, NULL, what, predicted, mu);
        return;
    }
    rl_report_decide(rep, &rl_rule_sign, d->x, NULL, what, predicted, ms);
}

/* A claim "scheme a degrades more than b" at grid index g (L = mult T) on
 * the per-fit degradation difference d. */
static void check_more(rl_report *rep, const rl_sty_summary *o, const char *a, const char *b, int g, long mult,
                       const rl_sty_sign *d, const char *study_note)
{
    char w[256], p[256], ms[384];
    const rl_sty_est ra = pt_at(o, scheme_index(a), g)->pr, rb = pt_at(o, scheme_index(b), g)->pr;
    decide(rep, o->z.nfit, d, rl_fmt(w, sizeof w, "%s degrades beyond T_train more than %s (L = %ld T)", a, b, mult),
           rl_fmt(p, sizeof p, "ppl ratio %s > %s (%s)", a, b, study_note),
           rl_fmt(ms, sizeof ms, "%.3g× ± %.2g vs %.3g× ± %.2g; Δ log-ratio = %.3f ± %.3f", ra.mean, ra.se, rb.mean,
                  rb.se, d->d.mean, d->d.se));
}

/* 1. the rotation-only lower bound; 2. the study's ordering, pair by pair,
 * and random_qk from 16T to 128T */
static void render_orderings(const rl_sty_summary *o, rl_report *rep)
{
    char p[256], ms[384];
    /* an identity: the fitted query is projected on |q| ≤ λ and the keys
     * are unit vectors, so |logit| ≤ λ and the bound follows algebraically */
    rl_report_identity(rep, o->viol == 0, RL_PROSE_STYLIZED_BOUND_CHECK,
                       rl_fmt(p, sizeof p, "0 violations (|logit| ≤ λ = %g by construction, K = %d)", o->lambda,
                              o->k_near),
                       rl_fmt(ms, sizeof ms, "%ld violations in %ld", o->viol, o->nviol));
    check_more(rep, o, "rope", "random_qk", o->g16, 16, &o->more[0], "study at 8K/512: 16.2× vs 1.60×");
    check_more(rep, o, "rope", "random_qk", o->g128, 128, &o->more[1], "study at 65K/512: 38.5× vs 7.49×");
    check_more(rep, o, "rope", "haar", o->g16, 16, &o->more[2], "study: PaTH extrapolates, RoPE does not");
    /* an identity, the same argument as ALiBi's below: the 16T context is
     * the first 16T tokens of the 128T one with the same draws, so with e >
     * 0 the 128T softmax's mass beyond 16T, α_t(128T) = (1 − e) α_t(16T) and
     * −log α_t can only grow, query by query, whatever the scheme; the
     * study's 1.60× → 7.49× is about trained models, which this cannot test */
    const int s = scheme_index("random_qk");
    const rl_sty_est r16 = pt_at(o, s, o->g16)->pr, r128 = pt_at(o, s, o->g128)->pr, d = o->grow_d;
    rl_report_identity(rep, o->grow >= -1e-12, RL_PROSE_STYLIZED_GROW_CHECK, RL_PROSE_STYLIZED_GROW_PRED,
                       rl_fmt(ms, sizeof ms, "%.3g× ± %.2g → %.3g× ± %.2g; Δ log-ratio = %.3f ± %.3f; least increase "
                              "over %d fits × %ld queries %.3g", r16.mean, r16.se, r128.mean, r128.se, d.mean, d.se,
                              o->z.nfit, o->z.nq, o->grow));
}

/* 3. the value side: identical scores, so only the output can differ */
static void render_values(const rl_sty_summary *o, rl_report *rep)
{
    char w[256], ms[384];
    const int a = scheme_index("random_qk"), b = scheme_index("random_qkv");
    rl_report_identity(rep, o->wd == 0, "random_qk vs random_qkv: target weight", RL_PROSE_STYLIZED_WEIGHT_PRED,
                       rl_fmt(ms, sizeof ms, "α_t(128T) = %.4g vs %.4g; max difference over fits, queries, L %.2g",
                              pt_at(o, a, o->g128)->a.mean, pt_at(o, b, o->g128)->a.mean, o->wd));
    const int gs[2] = { o->g16, o->g128 };
    const long mult[2] = { 16, 128 };
    for (int i = 0; i < 2; i++) {
        const rl_sty_point *pa = pt_at(o, a, gs[i]), *pb = pt_at(o, b, gs[i]);
        decide(rep, o->z.nfit, &o->snr[i],
               rl_fmt(w, sizeof w, "random_qkv output SNR > random_qk at L = %ld T", mult[i]),
               RL_PROSE_STYLIZED_SNR_PRED,
               rl_fmt(ms, sizeof ms, "SNR %.3g ± %.2g vs %.3g ± %.2g; background %.3g vs %.3g", pb->snr.mean,
                      pb->snr.se, pa->snr.mean, pa->snr.se, pb->bg.mean, pa->bg.mean));
    }
}

/* 4. ALiBi: the far mass saturates, the target weight stays; against the
 * rotation-only bound at the longest context (a reading of ours) and
 * against nope (the study's claim) */
static void render_alibi(const rl_sty_summary *o, rl_report *rep)
{
    char w[256], p[256], ms[384], mt[384];
    const int s = scheme_index("alibi"), gl = o->ng - 1;
    /* Identities: the 16T context is the first 16T tokens of the 128T
     * one, so with e the 128T softmax's mass beyond 16T, ρ(128T) = (1 − e)
     * ρ(16T) + e and α_t(128T) = (1 − e) α_t(16T); e ≤ B as |logit| ≤ λ.
     * Each fit's slack must be ≥ 0 (to rounding: B may be below 1e-16). */
    rl_report_identity(rep, o->slack >= -1e-12, "alibi: far mass bounded (its increase from 16T to 128T)",
                       rl_fmt(p, sizeof p, "≤ %.3g (mass beyond 16T, closed form, m = %g)", o->B, o->slope),
                       rl_fmt(ms, sizeof ms, "%.3g ± %.2g; least slack over %d fits %.3g", o->dr.mean, o->dr.se,
                              o->z.nfit, o->slack));
    const long Ll = o->grid[gl];
    const rl_sty_est rho = pt_at(o, s, gl)->rho, rn = pt_at(o, scheme_index("nope"), gl)->rho;
    /* a reading of ours, not a claim of the study: info */
    rl_report_info(rep, rl_fmt(w, sizeof w, RL_PROSE_STYLIZED_ALIBI_BELOW_INFO, Ll),
                   rl_fmt(p, sizeof p, "< %.3g = M/(M + K e^{2λ})", o->lb),
                   fit_text(ms, sizeof ms, o->z.nfit, &o->below,
                            rl_fmt(mt, sizeof mt, "%.3g ± %.2g (the bound overtakes this plateau at L ≈ %.3g)",
                                   rho.mean, rho.se, o->cross)));
    decide(rep, o->z.nfit, &o->control, rl_fmt(w, sizeof w, RL_PROSE_STYLIZED_ALIBI_CONTROL_CHECK, Ll),
           "ρ_D(alibi) < ρ_D(nope)", rl_fmt(ms, sizeof ms, "%.3g ± %.2g vs %.3g ± %.2g", rho.mean, rho.se, rn.mean, rn.se));
    const rl_sty_est r128 = pt_at(o, s, o->g128)->pr, r16 = pt_at(o, s, o->g16)->pr;
    rl_report_identity(rep, o->flat >= -1e-12, "alibi flat: −log α_t does not grow from 16T to 128T",
                       rl_fmt(p, sizeof p, "increase ≤ −log(1 − %.3g) (study 0.94× → 0.96×)", o->B),
                       rl_fmt(ms, sizeof ms, "%.3g ± %.2g (ppl ratio %.5f× → %.5f×); least slack over %d fits %.3g",
                              o->dn.mean, o->dn.se, r16.mean, r128.mean, o->z.nfit, o->flat));
}

/* 5. the ordering that comes out, next to the study's (means across fits) */
static void render_ordering(const rl_sty_summary *o, rl_report *rep)
{
    char ms[384];
    size_t u = 0;
    ms[0] = 0;
    for (int i = 0; i < STY_NSCHEME && u + 48 < sizeof ms; i++) {
        const rl_sty_est k = pt_at(o, o->ord[i], o->g128)->pr;
        u += snprintf(ms + u, sizeof ms - u, "%s%s %.3g× ± %.2g", i ? " > " : "", sty_schemes[o->ord[i]].name,
                      k.mean, k.se);
    }
    rl_report_info(rep, RL_PROSE_STYLIZED_ORDER_INFO, RL_PROSE_STYLIZED_STUDY_ORDER, ms);
}

rl_status rl_exp_stylized_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_sty_size z = size_of(ctx->preset);
    if (128 * z.T > z.lmax)
        return rl_fail(err, RL_EINTERNAL, "stylized: 128 T_train exceeds the longest context");
    rl_sty_res *R = rl_xcalloc(1, sizeof *R);
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
    rl_sty_res *S = res;
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
    rl_sty_summary *o = rl_xmalloc(sizeof *o);
    rl_stylized_summarise(res, o);
    const rl_sty_size z = o->z;
    query_render(out, o);
    main_render(out, o);
    rl_report_text(rep,
                   RL_PROSE_STYLIZED_INTRO,
                   z.d, o->slope, o->lambda, o->key_noise, o->k_near, o->value_noise, (int)z.T, z.steps, z.batch, z.nq,
                   z.lmax, z.nfit, rl_rule_sign.k, rl_rule_sign.k, o->window);
    table_render(out, o, rep);
    rl_report_text(rep,
                   RL_PROSE_STYLIZED_READING,
                   o->value_noise ? 1.0 / o->value_noise : INFINITY);
    render_orderings(o, rep);
    render_values(o, rep);
    render_alibi(o, rep);
    render_ordering(o, rep);
    const rl_plotvar vars[] = { RL_PV_I("T", z.T), RL_PV_I("d", z.d), RL_PV_R("lambda", o->lambda),
                                RL_PV_I("K", o->k_near), RL_PV_R("sv", o->value_noise), RL_PV_I("nfit", z.nfit) };
    rl_stylized_summary_free(o);
    free(o);
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
