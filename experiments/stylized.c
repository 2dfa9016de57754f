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

#include "../core/stats.h"
#include "../core/streams.h"
#include "../core/util.h"
#include "../sampling/rng.h"
#include "../theory/study.h"
#include "../theory/theory.h"
#include "../mc/routes.h"
#include "../mc/stylized_model.h"
#include "../report/plot.h"
#include "../report/report.h"
#include "../report/tsv.h"
#include "claim_fns.h"

typedef struct {
    int d;
    long T;      /* training window */
    int steps, batch;
    long reps;   /* evaluation queries */
    long lmax;   /* longest context */
} sty_size;

static sty_size size_of(int preset)
{
    sty_size q = { 32, 64, 300, 16, 64, 65536 };
    sty_size f = { 64, 256, 600, 32, 256, 65536 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* The model's constants, fixed before any run (NOTES.md §5.1 says why). */
#define STY_KNEAR 4        /* target within distance 1..4; near = those 4 tokens */
#define STY_LAMBDA 8.0     /* |logit| <= 8 before the bias */
#define STY_KEYNOISE 0.5   /* k = normalize(u + 0.5 g / sqrt(d)) */
#define STY_VALNOISE 0.5   /* v = vbar + 0.5 g / sqrt(d) */
#define STY_SLOPE 0.0625   /* ALiBi m = 2^-4, the 4th of the study's 8 slopes 2^-h */

/* The study's variants whose ratios the ratio figure shows (theory/study.h). */
static const char *const study_variants[] = { "rope", "random_qk", "random_qkv", "alibi" };
enum { NSTUDY = sizeof study_variants / sizeof *study_variants };

/* ---------- statistics over replicates (in replicate order) ---------- */

typedef struct {
    double mean, se;
} est;

typedef struct {
    const double *res; /* reps x STY_NSCHEME x ng x STY_NQ */
    long reps;
    int ng;
} results;

static double val(const results *R, long r, int s, int g, int q)
{
    return R->res[(((size_t)r * STY_NSCHEME + s) * R->ng + g) * STY_NQ + q];
}

/* Mean and SE of x[0..reps-1] (core/stats.h); frees x. */
static est mean_se(double *x, long reps)
{
    est e;
    rl_mean_se(x, reps, 1, &e.mean, &e.se);
    free(x);
    return e;
}

/* Mean and SE of X(s,g) - b X(s2,g2) over replicates (b = 0: one quantity). */
static est lin(const results *R, int q, int s, int g, double b, int s2, int g2)
{
    double *x = rl_xmalloc(sizeof(double) * R->reps);
    for (long r = 0; r < R->reps; r++)
        x[r] = val(R, r, s, g, q) - (b != 0 ? b * val(R, r, s2, g2, q) : 0);
    return mean_se(x, R->reps);
}

static est one(const results *R, int q, int s, int g)
{
    return lin(R, q, s, g, 0, 0, 0);
}

/* Perplexity-like ratio exp(E[-log a(L)] - E[-log a(T)]), paired per replicate. */
static est ppl_ratio(const results *R, int s, int g, int gT)
{
    est e = lin(R, STY_Q_NLL, s, g, 1, s, gT);
    double r = exp(e.mean);
    return (est){ r, r * e.se };
}

/* The brief's loss ratio E[-log a(L)] / E[-log a(T)]; SE by linearisation. */
static est loss_ratio(const results *R, int s, int g, int gT)
{
    est a = one(R, STY_Q_NLL, s, g), b = one(R, STY_Q_NLL, s, gT);
    double r = a.mean / b.mean;
    est lr = lin(R, STY_Q_NLL, s, g, r, s, gT);
    return (est){ r, lr.se / fabs(b.mean) };
}

/* Paired difference of the degradations: (nll_s1(L) - nll_s1(T)) - (nll_s2(L) - nll_s2(T)). */
static est degr_diff(const results *R, int s1, int s2, int g, int gT)
{
    double *x = rl_xmalloc(sizeof(double) * R->reps);
    for (long r = 0; r < R->reps; r++)
        x[r] = (val(R, r, s1, g, STY_Q_NLL) - val(R, r, s1, gT, STY_Q_NLL)) -
               (val(R, r, s2, g, STY_Q_NLL) - val(R, r, s2, gT, STY_Q_NLL));
    return mean_se(x, R->reps);
}

static int scheme_index(const char *name)
{
    for (int s = 0; s < STY_NSCHEME; s++)
        if (!strcmp(sty_schemes[s].name, name))
            return s;
    rl_die("stylized: no scheme %s", name);
}

/* ---------- the pieces ---------- */

/* A failure inside a parallel loop: keep the one of the lowest index, so
 * that the message does not depend on the thread count. */
typedef struct {
    long at;
    rl_err err;
} first_fail;

static void note_fail(first_fail *ff, long i, const rl_err *e)
{
#pragma omp critical(sty_fail)
    if (ff->at < 0 || i < ff->at) {
        ff->at = i;
        ff->err = *e;
    }
}

static rl_status fail_status(const first_fail *ff, rl_err *err)
{
    if (ff->at < 0)
        return RL_OK;
    if (err)
        *err = ff->err;
    return ff->err.status;
}

static rl_status fit_all(long seed, const sty_model *m, const sty_size *z, double *Q, double *curves, rl_err *err)
{
    sty_fit_opts o = { z->T, z->steps, z->batch, 0.05 * m->lambda / sqrt((double)m->d), (unsigned long)seed,
                       RL_STREAM_STY_FIT };
    first_fail ff = { -1, { RL_OK, "" } };
#pragma omp parallel for schedule(dynamic)
    for (int f = 0; f < STY_NFIT; f++) {
        rl_err e;
        if (sty_fit(m, &sty_fits[f], &o, Q + (long)f * m->d, curves + (long)f * z->steps, &e) != RL_OK)
            note_fail(&ff, f, &e);
    }
    return fail_status(&ff, err);
}

static rl_status evaluate(long seed, const sty_model *m, const sty_size *z, const double *Q, const long *grid,
                          int ng, double **out, rl_err *err)
{
    const size_t stride = (size_t)STY_NSCHEME * ng * STY_NQ;
    /* the workspace fails for every thread alike: try it once here */
    sty_eval_ws *probe;
    RL_TRY(sty_eval_alloc(m, &probe, err));
    sty_eval_free(probe);
    double *res = rl_xmalloc(sizeof(double) * stride * z->reps);
    first_fail ff = { -1, { RL_OK, "" } };
#pragma omp parallel
    {
        sty_eval_ws *ws;
        sty_eval_alloc(m, &ws, NULL); /* succeeded above */
        gsl_rng *rd = rl_rng_alloc(), *rt[STY_TR_COUNT];
        for (int t = 0; t < STY_TR_COUNT; t++)
            rt[t] = rl_rng_alloc();
#pragma omp for schedule(dynamic)
        for (long r = 0; r < z->reps; r++) {
            /* a stream per replicate (never per thread): data, and one per transport */
            rl_rng_stream(rd, (uint64_t)seed, rl_stream_key(RL_STREAM_STY_EVAL, (uint64_t)r));
            for (int t = 0; t < STY_TR_COUNT; t++)
                rl_rng_stream(rt[t], (uint64_t)seed, rl_stream_key(RL_STREAM_STY_EVAL + 1 + t, (uint64_t)r));
            rl_err e;
            if (sty_eval(m, Q, grid, ng, rd, rt, ws, res + stride * r, &e) != RL_OK)
                note_fail(&ff, r, &e);
        }
        for (int t = 0; t < STY_TR_COUNT; t++)
            gsl_rng_free(rt[t]);
        gsl_rng_free(rd);
        sty_eval_free(ws);
    }
    *out = res;
    return fail_status(&ff, err);
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

/* What each fit learned: per block, the query's energy and projections, and
 * the block's mean contribution to the logit of the shared key direction u
 * inside the training window (delta = 1..T) and beyond it (T < delta <= 128 T);
 * and the mean logit of u and of w against the distance, in closed form. */
static void write_query(const rl_outdir *out, const sty_model *m, const sty_size *z, const double *Q)
{
    const int d = m->d, h = d / 2;
    rl_tsv *t = rl_tsv_open(out, "stylized_query.tsv",
                            "fit\tblock\tomega\tenergy\tenergy_frac\tq_dot_u\tq_dot_w\tu_energy\tw_energy\t"
                            "u_logit_in_window\tu_logit_beyond\tq_norm\tlambda\tT_train");
    for (int f = 0; f < STY_NFIT; f++) {
        const double *q = Q + (long)f * d;
        double n2 = 0;
        for (int i = 0; i < d; i++)
            n2 += q[i] * q[i];
        for (int b = 0; b < h; b++) {
            const int j = b + h; /* half-split pairing: block b is (x_b, x_{b+d/2}) */
            const double om = pow(10000.0, -2.0 * b / d), e = q[b] * q[b] + q[j] * q[j];
            const double complex c = block_chi(sty_fits[f].tr, d, om);
            double complex p = 1, in = 0, out = 0;
            for (long delta = 1; delta <= 128 * z->T; delta++) {
                p *= c;
                if (delta <= z->T)
                    in += p;
                else
                    out += p;
            }
            in /= (double)z->T;
            out /= (double)(127 * z->T);
            rl_tsv_row(t, "%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%g\t%ld",
                       sty_fits[f].name, b, om, e, e / n2, q[b] * m->u[b] + q[j] * m->u[j],
                       q[b] * m->w[b] + q[j] * m->w[j], m->u[b] * m->u[b] + m->u[j] * m->u[j],
                       m->w[b] * m->w[b] + m->w[j] * m->w[j], block_mean(in, q, m->u, b, h),
                       block_mean(out, q, m->u, b, h), sqrt(n2), m->lambda, z->T);
        }
    }
    rl_tsv_close(t);
    int ng;
    long *grid = rl_route_grid(z->lmax, z->T, 16, &ng);
    t = rl_tsv_open(out, "stylized_logit.tsv", "fit\tdelta\tu_logit\tw_logit\tT_train\tlambda");
    for (int f = 0; f < STY_NFIT; f++) {
        const double *q = Q + (long)f * d;
        for (int g = 0; g < ng; g++) {
            double lu = 0, lw = 0;
            for (int b = 0; b < h; b++) {
                const double complex c = cpow(block_chi(sty_fits[f].tr, d, pow(10000.0, -2.0 * b / d)), grid[g]);
                lu += block_mean(c, q, m->u, b, h);
                lw += block_mean(c, q, m->w, b, h);
            }
            const double bias = sty_fits[f].alibi ? m->slope * (double)grid[g] : 0.0;
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%.6g\t%ld\t%g", sty_fits[f].name, grid[g], lu - bias, lw - bias, z->T,
                       m->lambda);
        }
    }
    rl_tsv_close(t);
    free(grid);
}

static void write_curves(const rl_outdir *out, const sty_size *z, const double *curves)
{
    rl_tsv *t = rl_tsv_open(out, "stylized_fit.tsv", "fit\tstep\tmean_log_alpha\tT_train\tbatch");
    for (int f = 0; f < STY_NFIT; f++)
        for (int s = 0; s < z->steps; s++)
            rl_tsv_row(t, "%s\t%d\t%.6g\t%ld\t%d", sty_fits[f].name, s, curves[(long)f * z->steps + s], z->T,
                       z->batch);
    rl_tsv_close(t);
}

static void write_main(const rl_outdir *out, const sty_model *m, const sty_size *z, const results *R,
                       const long *grid, int gT)
{
    rl_tsv *t = rl_tsv_open(out, "stylized.tsv",
                            "scheme\tL\tL_over_T\tM_L\talpha\talpha_se\trho\trho_se\trho_bound\trho_alibi_upper\t"
                            "nll\tnll_se\tloss_ratio\tloss_ratio_se\tppl_ratio\tppl_ratio_se\tsnr\tsnr_se\tbg\tbg_se\t"
                            "signal\tsignal_se\tviolations\treps\td\tT_train\tlambda\tk_near\tslope");
    for (int s = 0; s < STY_NSCHEME; s++)
        for (int g = 0; g < R->ng; g++) {
            const long L = grid[g], M = L - m->k_near;
            est a = one(R, STY_Q_ALPHA, s, g), rho = one(R, STY_Q_RHO, s, g), nll = one(R, STY_Q_NLL, s, g);
            est snr = one(R, STY_Q_SNR, s, g), bg = one(R, STY_Q_BG, s, g), sig = one(R, STY_Q_SIG, s, g);
            est lr = loss_ratio(R, s, g, gT), pr = ppl_ratio(R, s, g, gT);
            est v = one(R, STY_Q_VIOL, s, g);
            rl_tsv_row(t, "%s\t%ld\t%.6g\t%ld\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t"
                          "%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.3g\t%.0f\t%ld\t%d\t%ld\t%g\t%d\t%g",
                       sty_schemes[s].name, L, (double)L / z->T, L - 1, a.mean, a.se, rho.mean, rho.se,
                       rl_farmass_lower((double)M, m->k_near, m->lambda),
                       rl_farmass_alibi((double)M, m->k_near, m->lambda, m->slope, 0), nll.mean, nll.se, lr.mean,
                       lr.se, pr.mean, pr.se, snr.mean, snr.se, bg.mean, bg.se, sig.mean, sig.se,
                       v.mean * R->reps, R->reps, m->d, z->T, m->lambda, m->k_near, m->slope);
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
                            "snr_128T\tstudy_8K_over_512\tstudy_65K_over_512");
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
        rl_tsv_row(t, "%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\t%.4g",
                   sty_schemes[s].name, a0.mean, a1.mean, a2.mean, p1.mean, p1.se, p2.mean, p2.se, l1.mean, l2.mean,
                   n0.mean, n1.mean, n2.mean, s8, s65);
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
    char cap_[256];
    snprintf(cap_, sizeof cap_,
             "Target weight, perplexity-like ratio exp(E[−log α_t(L)] − E[−log α_t(T)]) and output SNR at "
             "L = T, 16T, 128T (T = T_train = %ld; the study's 8K/512 and 65K/512 multiples), %ld queries",
             z->T, R->reps);
    rl_report_table(rep, cap_, tab);
    free(tab);
}

/* A claim "scheme a degrades more than b" on the paired degradation difference. */
static void check_more(rl_report *rep, const results *R, const char *a, const char *b, int g, int gT, long mult,
                       const char *study_note)
{
    char w[256], p[256], ms[256];
    int sa = scheme_index(a), sb = scheme_index(b);
    est d = degr_diff(R, sa, sb, g, gT);
    est ra = ppl_ratio(R, sa, g, gT), rb = ppl_ratio(R, sb, g, gT);
    double zs = d.se > 0 ? d.mean / d.se : (d.mean > 0 ? INFINITY : 0);
    rl_report_check(rep, zs > 5 ? RL_HOLDS_YES : RL_HOLDS_NO,
                    rl_fmt(w, sizeof w, "%s degrades beyond T_train more than %s (L = %ld T)", a, b, mult),
                    rl_fmt(p, sizeof p, "ppl ratio %s > %s (%s)", a, b, study_note),
                    rl_fmt(ms, sizeof ms, "%.3g× ± %.2g vs %.3g× ± %.2g; Δ log-ratio = %.3f ± %.3f (z = %.1f)",
                           ra.mean, ra.se, rb.mean, rb.se, d.mean, d.se, zs));
}

static void checks(const sty_model *m, const sty_size *z, const results *R, const long *grid, int gT, int g16,
                   int g128, rl_report *rep)
{
    char w[256], p[256], ms[320];
    /* 1. the rotation-only lower bound, every replicate */
    long viol = 0, n = 0;
    for (int s = 0; s < STY_NSCHEME; s++) {
        if (sty_fits[sty_schemes[s].fit].alibi)
            continue;
        for (int g = 0; g < R->ng; g++)
            for (long r = 0; r < R->reps; r++, n++)
                viol += val(R, r, s, g, STY_Q_VIOL) != 0;
    }
    rl_report_check(rep, viol == 0 ? RL_HOLDS_YES : RL_HOLDS_NO,
                    "far mass ≥ M/(M + K e^{2λ}) for every scheme without a bias, every query and L",
                    rl_fmt(p, sizeof p, "0 violations (|logit| ≤ λ = %g, K = %d)", m->lambda, m->k_near),
                    rl_fmt(ms, sizeof ms, "%ld violations in %ld", viol, n));

    /* 2. the study's ordering, pair by pair */
    check_more(rep, R, "rope", "random_qk", g16, gT, 16, "study at 8K/512: 16.2× vs 1.60×");
    check_more(rep, R, "rope", "random_qk", g128, gT, 128, "study at 65K/512: 38.5× vs 7.49×");
    check_more(rep, R, "rope", "haar", g16, gT, 16, "study: PaTH extrapolates, RoPE does not");
    {
        const int s = scheme_index("random_qk");
        est d = lin(R, STY_Q_NLL, s, g128, 1, s, g16);
        est r16 = ppl_ratio(R, s, g16, gT), r128 = ppl_ratio(R, s, g128, gT);
        double zs = d.se > 0 ? d.mean / d.se : 0;
        rl_report_check(rep, zs > 5 ? RL_HOLDS_YES : RL_HOLDS_NO,
                        "random_qk extrapolates, then degrades further at extreme lengths (16T → 128T)",
                        "ppl ratio at 128T > at 16T (study 1.60× → 7.49×)",
                        rl_fmt(ms, sizeof ms, "%.3g× ± %.2g → %.3g× ± %.2g (z = %.1f)", r16.mean, r16.se, r128.mean,
                               r128.se, zs));
    }
    /* 3. the value side: identical scores, so only the output can differ */
    {
        const int a = scheme_index("random_qk"), b = scheme_index("random_qkv");
        est da = one(R, STY_Q_ALPHA, a, g128), db = one(R, STY_Q_ALPHA, b, g128);
        rl_report_check(rep, RL_HOLDS_INFO, "random_qk vs random_qkv: target weight",
                        "equal by construction (same fitted query, same draws; the values do not enter the scores)",
                        rl_fmt(ms, sizeof ms, "α_t(128T) = %.4g vs %.4g", da.mean, db.mean));
        const int gs[2] = { g16, g128 };
        const long mult[2] = { 16, 128 };
        for (int i = 0; i < 2; i++) {
            est dd = lin(R, STY_Q_SNR, b, gs[i], 1, a, gs[i]);
            est sa = one(R, STY_Q_SNR, a, gs[i]), sb = one(R, STY_Q_SNR, b, gs[i]);
            est ba = one(R, STY_Q_BG, a, gs[i]), bb = one(R, STY_Q_BG, b, gs[i]);
            double zs = dd.se > 0 ? dd.mean / dd.se : 0;
            rl_report_check(rep, zs > 5 ? RL_HOLDS_YES : RL_HOLDS_NO,
                            rl_fmt(w, sizeof w, "random_qkv output SNR > random_qk at L = %ld T", mult[i]),
                            "value transport cancels the shared background (study: qkv 1.59× vs qk 7.49× at 65K)",
                            rl_fmt(ms, sizeof ms, "SNR %.3g ± %.2g vs %.3g ± %.2g (z = %.1f); background %.3g vs %.3g",
                                   sb.mean, sb.se, sa.mean, sa.se, zs, bb.mean, ba.mean));
        }
    }
    /* 4. ALiBi: the far mass saturates, the target weight stays */
    {
        const int s = scheme_index("alibi");
        const long L16 = grid[g16], L128 = grid[g128];
        /* mass beyond 16T at 128T, worst case: near = distances 1..16T */
        double B = rl_farmass_alibi((double)(L128 - L16), (double)L16, m->lambda, m->slope, 0);
        est dr = lin(R, STY_Q_RHO, s, g128, 1, s, g16);
        rl_report_check(rep, dr.mean <= B + 5 * dr.se ? RL_HOLDS_YES : RL_HOLDS_NO,
                        "alibi: far mass bounded (its increase from 16T to 128T)",
                        rl_fmt(p, sizeof p, "≤ %.3g (mass beyond 16T, closed form, m = %g)", B, m->slope),
                        rl_fmt(ms, sizeof ms, "%.3g ± %.2g", dr.mean, dr.se));
        /* against the rotation-only lower bound at the longest context: the
         * bound tends to 1, a bounded far mass rho_inf falls below it once
         * M > K e^{2 lambda} rho_inf / (1 - rho_inf) */
        const int gl = R->ng - 1;
        const long Ll = grid[gl];
        est rho = one(R, STY_Q_RHO, s, gl);
        double lb = rl_farmass_lower((double)(Ll - m->k_near), m->k_near, m->lambda);
        double cross = m->k_near + m->k_near * exp(2 * m->lambda) * rho.mean / (1 - rho.mean);
        rl_report_check(rep, rho.mean + 5 * rho.se < lb ? RL_HOLDS_YES : RL_HOLDS_NO,
                        rl_fmt(w, sizeof w, "alibi: far mass below the rotation-only lower bound at L = %ld", Ll),
                        rl_fmt(p, sizeof p, "< %.3g = M/(M + K e^{2λ})", lb),
                        rl_fmt(ms, sizeof ms, "%.3g ± %.2g (the bound overtakes this plateau at L ≈ %.3g)", rho.mean,
                               rho.se, cross));
        const int sn = scheme_index("nope");
        est rn = one(R, STY_Q_RHO, sn, gl);
        est dd = lin(R, STY_Q_RHO, sn, gl, 1, s, gl);
        rl_report_check(rep, dd.mean > 5 * dd.se ? RL_HOLDS_YES : RL_HOLDS_NO,
                        rl_fmt(w, sizeof w, "alibi controls the far mass that nope (same model, no bias) cannot, L = %ld",
                               Ll),
                        "ρ_D(alibi) < ρ_D(nope)",
                        rl_fmt(ms, sizeof ms, "%.3g ± %.2g vs %.3g ± %.2g", rho.mean, rho.se, rn.mean, rn.se));
        est dn = lin(R, STY_Q_NLL, s, g128, 1, s, g16);
        est r128 = ppl_ratio(R, s, g128, gT), r16 = ppl_ratio(R, s, g16, gT);
        double pred = -log1p(-B);
        rl_report_check(rep, dn.mean <= pred + 5 * dn.se ? RL_HOLDS_YES : RL_HOLDS_NO,
                        "alibi flat: −log α_t does not grow from 16T to 128T",
                        rl_fmt(p, sizeof p, "increase ≤ −log(1 − %.3g) (study 0.94× → 0.96×)", B),
                        rl_fmt(ms, sizeof ms, "%.3g ± %.2g (ppl ratio %.5f× → %.5f×)", dn.mean, dn.se, r16.mean,
                               r128.mean));
    }
    /* 5. the ordering that comes out, next to the study's */
    {
        int ord[STY_NSCHEME];
        double key[STY_NSCHEME];
        for (int s = 0; s < STY_NSCHEME; s++) {
            ord[s] = s;
            key[s] = ppl_ratio(R, s, g128, gT).mean;
        }
        for (int i = 1; i < STY_NSCHEME; i++) /* insertion sort, largest first */
            for (int j = i; j > 0 && key[ord[j]] > key[ord[j - 1]]; j--) {
                int tmp = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = tmp;
            }
        size_t u = 0;
        ms[0] = 0;
        for (int i = 0; i < STY_NSCHEME && u + 48 < sizeof ms; i++)
            u += snprintf(ms + u, sizeof ms - u, "%s%s %.3g×", i ? " > " : "", sty_schemes[ord[i]].name,
                          key[ord[i]]);
        rl_report_check(rep, RL_HOLDS_INFO, "ordering by ppl ratio at 128T (worst first)",
                        "study at 65K/512: rope 38.5× > random_qk 7.49× > random_qkv 1.59× > alibi 0.96×", ms);
    }
    (void)z;
}

/* The results of one run: the model, the fitted queries and their fitting
 * curves, and every replicate's measurements on the grid L = T 2^k. */
typedef struct {
    sty_size z;
    sty_model m;
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
    sty_model_init(&R->m, z.d, STY_KNEAR, STY_LAMBDA, STY_KEYNOISE, STY_VALNOISE, STY_SLOPE, (unsigned long)ctx->seed,
                   RL_STREAM_STY_DIRS);

    /* grid: L = T 2^k from T/4 up to lmax */
    R->gT = R->g16 = R->g128 = -1;
    for (long L = z.T / 4; L <= z.lmax && R->ng < 32; L *= 2) {
        R->gT = L == z.T ? R->ng : R->gT;
        R->g16 = L == 16 * z.T ? R->ng : R->g16;
        R->g128 = L == 128 * z.T ? R->ng : R->g128;
        R->grid[R->ng++] = L;
    }
    R->Q = rl_xmalloc(sizeof(double) * STY_NFIT * z.d);
    R->curves = rl_xmalloc(sizeof(double) * STY_NFIT * z.steps);
    RL_TRY(fit_all(ctx->seed, &R->m, &z, R->Q, R->curves, err));
    return evaluate(ctx->seed, &R->m, &z, R->Q, R->grid, R->ng, &R->res, err);
}

void rl_exp_stylized_free(void *res)
{
    sty_res *S = res;
    if (!S)
        return;
    free(S->res);
    free(S->Q);
    free(S->curves);
    sty_model_free(&S->m);
    free(S);
}

void rl_exp_stylized_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const sty_res *S = res;
    const sty_size z = S->z;
    const sty_model m = S->m;
    const long *grid = S->grid;
    const int ng = S->ng, gT = S->gT, g16 = S->g16, g128 = S->g128;
    write_query(out, &m, &z, S->Q);
    write_curves(out, &z, S->curves);
    results R = { S->res, z.reps, ng };
    write_main(out, &m, &z, &R, grid, gT);

    rl_report_text(rep,
                   "**Claim.** Accumulated transports extrapolate where position-indexed ones do not; value "
                   "transport makes the surviving far mass incoherent; rotation alone cannot bound the far mass, "
                   "an explicit distance bias can. **Model.** One attention layer, d = %d, a query attending to L "
                   "tokens at distances 1..L with logits q·P_δk_δ (− mδ with ALiBi, m = %g), unit keys and "
                   "|q| ≤ λ = %g. Distractor keys share a direction u (k = normalize(u + %g g/√d)), the target "
                   "key (one token at a distance uniform in 1..%d) has its own direction w ⟂ u; distractor values "
                   "share a background v̄ (v = v̄ + %g g/√d), the target value v_t ⟂ v̄. This is what training puts "
                   "into keys and values, and it avoids the trap of independent random distractors (which any "
                   "rotation maps to random distractors). The query is **fitted** per score process by Adam ascent "
                   "on log α_t in windows of T_train = %d tokens (%d steps × %d windows, fresh keys and transports "
                   "each window), then evaluated on %ld queries at L = T_train·2^k up to %ld, one walk per query "
                   "(contexts of every L share their first tokens). Transports: rope δ·ω_b; random accumulated "
                   "U(−ω_b, ω_b) steps (ω_b = 10000^(−2b/d), half-split pairs); haar = accumulated Householder "
                   "reflections I − 2wwᵀ (PaTH at β = 2): E[H] = (1 − 2/d)I, a window W(0.1) = %ld tokens, so a "
                   "distance-1 route stays near the identity (pure Haar steps would randomise it) while routes "
                   "beyond the window are Haar-like already inside T_train. random_qk and random_qkv share the "
                   "fitted query and all draws. The perplexity-like ratio is exp(E[−log α_t(L)] − E[−log α_t(T)]) "
                   "(the study's ppl(L)/ppl(512) with −log α_t as the loss); the brief's loss ratio "
                   "E[−log α_t(L)]/E[−log α_t(T)] is in the TSV.",
                   z.d, m.slope, m.lambda, m.key_noise, m.k_near, m.value_noise, (int)z.T, z.steps, z.batch, z.reps,
                   z.lmax, rl_mixing_window(1.0 - 2.0 / z.d, 0.1));
    write_table(out, &z, &R, gT, g16, g128, rep);
    rl_report_text(rep,
                   "Reading the table: the SNR is the target's own term α_t v_t·V_t over the norm of everything else "
                   "in the output (background leakage along v_t included); with the target's own value noise it "
                   "cannot exceed about 1/σ_v = %g, so near T_train it measures the value noise and beyond it the "
                   "leakage. The brief's loss ratio E[−log α_t(L)]/E[−log α_t(T)] divides by a number near 0 "
                   "when the fit retrieves well at T_train (−log α_t(T) ≈ 0.01), so it is large for every scheme; "
                   "the perplexity-like ratio (a difference of mean losses, as ppl(L)/ppl(512) is) is the one to "
                   "compare with the study.",
                   m.value_noise ? 1.0 / m.value_noise : INFINITY);
    checks(&m, &z, &R, grid, gT, g16, g128, rep);

    const rl_plotvar vars[] = { RL_PV_I("T", z.T), RL_PV_I("d", z.d), RL_PV_R("lambda", m.lambda),
                                RL_PV_I("K", m.k_near), RL_PV_R("sv", m.value_noise) };
    rl_plot(out, "stylized_alpha", "stylized_alpha", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_farmass", "stylized_farmass", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_snr", "stylized_snr", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_ratio", "stylized_ratio", vars, RL_NVARS(vars));
    rl_plot(out, "stylized_query", "stylized_query", vars, RL_NVARS(vars));
    rl_report_figure(rep, "stylized_alpha.png",
                     "Target weight α_t against context length (mean ± SE); T_train and the 16T, 128T points marked");
    rl_report_figure(rep, "stylized_farmass.png",
                     "Far mass ρ_D (distances > K) against L with the rotation-only lower bound M/(M + K e^{2λ}) "
                     "(line): every scheme without a bias stays above it and climbs towards 1; ALiBi saturates at a "
                     "constant (the bound, which tends to 1, overtakes it only beyond the longest L here)");
    rl_report_figure(rep, "stylized_snr.png",
                     "Output SNR: the target's own term along v_t over the norm of everything else in the output "
                     "(background leakage, value noise, the target's own off-axis part)");
    rl_report_figure(rep, "stylized_ratio.png",
                     "Perplexity-like ratio against L/T_train (points ± SE) next to the study's ppl(L)/ppl(512) "
                     "against L/512 (open symbols, dashed)");
    rl_report_figure(rep, "stylized_query.png",
                     "What each fit learned. Top: the mean logit of the shared key direction, E[q^T P_δ u] (− mδ "
                     "with ALiBi), against the distance, in closed form from the fitted q (negative: suppressed); "
                     "rope's suppression breaks up beyond T_train, random's relaxes slowly towards 0, Householder's "
                     "is gone after its window. Bottom: each SO(2) block's share of it inside the training window "
                     "and beyond it, against the block frequency");
}
