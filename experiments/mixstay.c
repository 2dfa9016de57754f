/* mixstay.c: the claim "mix or stay" (experiments/mixstay.h), routelab's
 * condition for length extrapolation of accumulated rotations
 * (theory/mixstay_forms.h).
 *
 * The study's condition, a spectral gap |chi_b(1)| < 1, gives zero-mean
 * steps U(-w, w) and positive steps U(0, 2w) the same verdict (equal
 * |chi|), yet only the first stays flat beyond T.  Here: for the laws
 * uniform, drift, pm, gauss and constant (RoPE), in the CPU grid's head (hd
 * 32, T = 64, at its mixing-matched base and at 10000) and the study's (hd
 * 96, T = 512, base 10000), each block's out-of-range distance D_b(16T) and
 * the law's score S; the min-distance curves of two blocks of the CPU head;
 * and the closed form checked by Monte Carlo on sampled steps at each
 * block's arg max pair. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../mc/watson_mc.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "../sampling/rng.h"
#include "../theory/matched.h"
#include "../theory/mixstay_forms.h"
#include "../theory/study.h"
#include "claim_fns.h"
#include "claims.h"
#include "mixing.h"
#include "mixstay.h"
#include "prose_experiments.h"

/* The laws, zero-mean and positive first (the pair the claim is about). */
static const rl_angle_law ms_laws[RL_MS_NLAWS] = { RL_ANG_UNIFORM, RL_ANG_DRIFT, RL_ANG_PM, RL_ANG_GAUSS,
                                                   RL_ANG_CONSTANT };

/* quick: 256 samples x 32 replicates (SE of d^2 about 1e-3 at these pairs);
 * full: 1024 x 64 (a quarter of it) */
static rl_ms_size size_of(int preset)
{
    rl_ms_size q = { 256, 32 }, f = { 1024, 64 };
    return preset == RL_PRESET_FULL ? f : q;
}

static const char *law_name(rl_angle_law law, char *buf, size_t n)
{
    return rl_choice_name(RL_ANGLE_NAMES, (int)law, buf, (int)n);
}

rl_status rl_mixstay_cpu_base(double *base, rl_err *err)
{
    rl_match_query q = { RL_MIXSTAY_CPU_D, RL_MIXSTAY_CPU_T, rl_study_mult(), RL_MATCH_STUDY_EPS, 0, 0,
                         RL_STUDY_BASE };
    rl_match m;
    RL_TRY(rl_match_study(q.eps, q.mult, &q.f_ctx, &q.f_far, err));
    RL_TRY(rl_match_choose(&q, &m, err));
    *base = m.base;
    return RL_OK;
}

static rl_status regime_run(rl_ms_regime *g, rl_err *err)
{
    g->l = g->t * RL_MIXSTAY_MULT;
    g->nfar = rl_mixstay_grid(g->t, g->l, NULL);
    for (int i = 0; i < RL_MS_NLAWS; i++)
        RL_TRY(rl_mixstay_law(ms_laws[i], g->d, g->base, 1, g->t, g->l, RL_MIXSTAY_HARMONICS, g->blk[i], g->score[i],
                              err));
    return RL_OK;
}

/* The block's chi(k), k = 1..N, of law i in the CPU head. */
static void block_chi(const rl_ms_regime *g, int i, int b, double complex *chi)
{
    rl_angle_harmonics(ms_laws[i], rl_so2_freq(g->d, g->base, 1, b), RL_MIXSTAY_HARMONICS, chi);
}

static rl_status curves_run(rl_ms_res *R, rl_err *err)
{
    const rl_ms_regime *g = &R->reg[0];
    const int n = RL_MIXSTAY_HARMONICS;
    R->cb[0] = g->d / 8;
    R->cb[1] = g->d / 2 - 1;
    R->ncurve = g->nfar;
    R->grid = rl_xmalloc(sizeof(long) * (size_t)g->nfar);
    rl_mixstay_grid(g->t, g->l, R->grid);
    double complex *chi = rl_xmalloc(sizeof(double complex) * n);
    rl_mixstay_ws *ws;
    rl_status s = rl_mixstay_alloc(n, g->t, &ws, err);
    for (int c = 0; c < 2 && s == RL_OK; c++)
        for (int i = 0; i < RL_MS_NLAWS && s == RL_OK; i++) {
            rl_mixstay_block b;
            R->curve[c][i] = rl_xmalloc(sizeof(double) * (size_t)g->nfar);
            block_chi(g, i, R->cb[c], chi);
            s = rl_mixstay_chi_ws(ws, chi, g->l, &b, R->curve[c][i], err);
        }
    rl_mixstay_free(ws);
    free(chi);
    return s;
}

/* ||chi_u| - |chi_d|| over the blocks and harmonics of the CPU head */
static double chi_gap(const rl_ms_regime *g)
{
    const int n = RL_MIXSTAY_HARMONICS;
    double complex *u = rl_xmalloc(sizeof(double complex) * n), *p = rl_xmalloc(sizeof(double complex) * n);
    double gap = 0;
    for (int b = 0; b < g->d / 2; b++) {
        const double w = rl_so2_freq(g->d, g->base, 1, b);
        rl_angle_harmonics(RL_ANG_UNIFORM, w, n, u);
        rl_angle_harmonics(RL_ANG_DRIFT, w, n, p);
        for (int k = 0; k < n; k++)
            gap = fmax(gap, fabs(cabs(u[k]) - cabs(p[k])));
    }
    free(u);
    free(p);
    return gap;
}

/* The Monte Carlo checks: d_N^2 of the pair (far, near) by rl_watson_mc,
 * each on its own stream; the prediction from rl_watson_dist. */
static rl_status mc_run(long seed, rl_ms_res *R, rl_err *err)
{
    const rl_ms_regime *g = &R->reg[0];
    const int n = RL_MIXSTAY_HARMONICS;
    double complex *chi = rl_xmalloc(sizeof(double complex) * n), *p = rl_xmalloc(sizeof(double complex) * n),
                   *q = rl_xmalloc(sizeof(double complex) * n);
    double *est = rl_xmalloc(sizeof(double) * (size_t)R->z.reps);
    rl_status s = RL_OK;
    for (int j = 0; j < RL_MS_NMC && s == RL_OK; j++) {
        rl_ms_mc *c = &R->mc[j];
        c->law = j / 2;
        c->block = j % 2 ? g->d / 2 - 1 : g->d / 8;
        c->omega = rl_so2_freq(g->d, g->base, 1, c->block);
        c->far = g->blk[c->law][c->block].far;
        c->near = g->blk[c->law][c->block].near;
        block_chi(g, c->law, c->block, chi);
        for (int k = 0; k < n; k++)
            p[k] = rl_cpow_n(chi[k], c->far), q[k] = rl_cpow_n(chi[k], c->near);
        double d;
        s = rl_watson_dist(p, q, n, &d, NULL, err);
        c->pred = d * d;
        if (s == RL_OK)
            s = rl_watson_mc(ms_laws[c->law], c->omega, c->far, c->near, n, R->z.m, R->z.reps, (unsigned long)seed,
                             rl_stream_key(RL_STREAM_MIXSTAY, (uint64_t)j), est, err);
        if (s == RL_OK)
            rl_mean_se(est, R->z.reps, 1, &c->mean, &c->se);
    }
    free(est);
    free(chi);
    free(p);
    free(q);
    return s;
}

rl_status rl_exp_mixstay_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_ms_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    double base;
    RL_TRY(rl_mixstay_cpu_base(&base, err));
    R->reg[0] = (rl_ms_regime){ .name = "cpu-matched", .what = "the CPU grid's head at its mixing-matched base",
                                .d = RL_MIXSTAY_CPU_D, .t = RL_MIXSTAY_CPU_T, .base = base };
    R->reg[1] = (rl_ms_regime){ .name = "cpu-10000", .what = "the CPU grid's head at the study's base",
                                .d = RL_MIXSTAY_CPU_D, .t = RL_MIXSTAY_CPU_T, .base = RL_STUDY_BASE };
    R->reg[2] = (rl_ms_regime){ .name = "study", .what = "the study's head", .d = RL_STUDY_HEAD_DIM,
                                .t = rl_study_lengths[0], .base = RL_STUDY_BASE };
    for (int r = 0; r < RL_MS_NREG; r++)
        RL_TRY(regime_run(&R->reg[r], err));
    R->gap = chi_gap(&R->reg[0]);
    RL_TRY(curves_run(R, err));
    return mc_run(ctx->seed, R, err);
}

void rl_exp_mixstay_free(void *res)
{
    rl_ms_res *R = res;
    if (!R)
        return;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < RL_MS_NLAWS; i++)
            free(R->curve[c][i]);
    free(R->grid);
    free(R);
}

/* ---------- the rows ---------- */

void rl_mixstay_chi_row(rl_report *rep, const char *head, double gap)
{
    char w[256], m[96];
    /* |e^{iw} sinc| = |sinc| up to the rounding of cexp's modulus */
    rl_report_identity(rep, gap <= 4 * DBL_EPSILON,
                       rl_fmt(w, sizeof w, RL_PROSE_MIXSTAY_GAP_CHECK, head),
                       "|sin kω / kω| for both", rl_fmt(m, sizeof m, "max difference %.2g", gap));
}

void rl_mixstay_score_row(rl_report *rep, const char *head, long mult, const double *u, const double *p)
{
    char w[256], a[160], b[200];
    rl_report_info(rep,
                   rl_fmt(w, sizeof w, RL_PROSE_MIXSTAY_ORDER_INFO, mult, head),
                   rl_fmt(a, sizeof a, "the spectral gap: the same verdict for both"),
                   rl_fmt(b, sizeof b, "uniform %.4f [%.4f, %.4f], drift %.4f [%.4f, %.4f]%s", u[0], u[0], u[1], p[0],
                          p[0], p[1], u[1] < p[0] ? ": brackets apart" : ": brackets overlap"));
}

/* The row of one Monte Carlo check, its |z| against the closed form given. */
static void mc_render(rl_report *rep, rl_angle_law law, int b, double omega, long far, long near, double pred,
                      double mean, double se, double z, long reps, long m)
{
    char w[256], a[96], v[200], ln[32];
    rl_fmt(w, sizeof w, RL_PROSE_MIXSTAY_DN_CHECK,
           law_name(law, ln, sizeof ln), b, omega, far, near);
    rl_fmt(a, sizeof a, "%.6g (closed form, N = %d)", pred, RL_MIXSTAY_HARMONICS);
    rl_fmt(v, sizeof v, "%.6g ± %.2g (%ld replicates of %ld samples a law), |z| = %.2f", mean, se, reps, m, z);
    if (law == RL_ANG_CONSTANT) /* fixed steps: no sampling noise, a check of the arithmetic */
        rl_report_identity(rep, z <= 5, w, a, v);
    else
        rl_report_decide_pred(rep, &rl_rule_agree, pred, z, NULL, w, a, v);
}

void rl_mixstay_mc_row(rl_report *rep, rl_angle_law law, int b, double omega, long far, long near, double pred,
                       double mean, double se, long reps, long m)
{
    mc_render(rep, law, b, omega, far, near, pred, mean, se, rl_mix_z(mean, pred, se), reps, m);
}

/* ---------- the summary ---------- */

void rl_mixstay_summarise(const rl_ms_res *R, rl_ms_summary *S)
{
    memset(S, 0, sizeof *S);
    for (int r = 0; r < RL_MS_NREG; r++) {
        const rl_ms_regime *g = &R->reg[r];
        rl_ms_regime_sum *o = &S->reg[r];
        for (int b = 0; b < g->d / 2 && b < RL_MS_MAXB; b++) {
            o->omega[b] = rl_so2_freq(g->d, g->base, 1, b);
            for (int i = 0; i < RL_MS_NLAWS; i++)
                o->chi1[i][b] = cabs(rl_angle_charfn(ms_laws[i], o->omega[b]));
        }
    }
    const rl_ms_regime *c = &R->reg[0];
    for (int k = 0; k < 2; k++)
        S->curve_omega[k] = rl_so2_freq(c->d, c->base, 1, R->cb[k]);
    for (int j = 0; j < RL_MS_NMC; j++)
        S->z[j] = rl_mix_z(R->mc[j].mean, R->mc[j].pred, R->mc[j].se);
}

/* ---------- the report ---------- */

static void blocks_tsv(const rl_ms_res *R, const rl_ms_summary *S, const rl_outdir *out)
{
    rl_tsv *t = rl_tsv_open(out, "mixstay_blocks.tsv",
                            "regime\td\tT\tL\tbase\tlaw\tblock\tomega\tchi1\tD_lo\tD_hi\tfar\tnear");
    char ln[32];
    for (int r = 0; r < RL_MS_NREG; r++) {
        const rl_ms_regime *g = &R->reg[r];
        for (int i = 0; i < RL_MS_NLAWS; i++)
            for (int b = 0; b < g->d / 2; b++) {
                const double w = S->reg[r].omega[b];
                rl_tsv_row(t, "%s\t%d\t%ld\t%ld\t%.9g\t%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%ld\t%ld", g->name, g->d, g->t,
                           g->l, g->base, law_name(ms_laws[i], ln, sizeof ln), b, w,
                           S->reg[r].chi1[i][b], g->blk[i][b].lo, g->blk[i][b].hi, g->blk[i][b].far,
                           g->blk[i][b].near);
            }
    }
    rl_tsv_close(t);
}

/* mixstay_scores.tsv, and the same as a markdown table (laws x heads) */
static void scores_table(const rl_ms_res *R, const rl_outdir *out, rl_report *rep)
{
    rl_tsv *t = rl_tsv_open(out, "mixstay_scores.tsv", "regime\td\tT\tL\tbase\tfar_lengths\tlaw\tS_lo\tS_hi");
    char ln[32], *md = NULL;
    size_t mdn = 0;
    FILE *fp = open_memstream(&md, &mdn);
    fprintf(fp, "law");
    for (int r = 0; r < RL_MS_NREG; r++)
        fprintf(fp, "\t%s: hd %d, T = %ld, base %.6g", R->reg[r].name, R->reg[r].d, R->reg[r].t, R->reg[r].base);
    fprintf(fp, "\n");
    for (int i = 0; i < RL_MS_NLAWS; i++) {
        fprintf(fp, "%s", law_name(ms_laws[i], ln, sizeof ln));
        for (int r = 0; r < RL_MS_NREG; r++) {
            const rl_ms_regime *g = &R->reg[r];
            rl_tsv_row(t, "%s\t%d\t%ld\t%ld\t%.9g\t%ld\t%s\t%.6g\t%.6g", g->name, g->d, g->t, g->l, g->base, g->nfar,
                       ln, g->score[i][0], g->score[i][1]);
            fprintf(fp, "\t%.4f [%.4f, %.4f]", g->score[i][0], g->score[i][0], g->score[i][1]);
        }
        fprintf(fp, "\n");
    }
    fclose(fp);
    rl_tsv_close(t);
    char cap[512], gt[200];
    const rl_ms_regime *s = &R->reg[2];
    rl_fmt(cap, sizeof cap, RL_PROSE_MIXSTAY_SCORES_CAPTION, RL_MIXSTAY_HARMONICS,
           rl_mixstay_grid_text(s->t, s->l, gt, sizeof gt));
    rl_report_table(rep, cap, md);
    free(md);
}

static void curves_tsv(const rl_ms_res *R, const rl_ms_summary *S, const rl_outdir *out)
{
    const rl_ms_regime *g = &R->reg[0];
    rl_tsv *t = rl_tsv_open(out, "mixstay_curves.tsv", "law\tblock\tomega\tdelta\tdelta_over_T\tdist");
    char ln[32];
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < RL_MS_NLAWS; i++)
            for (long f = 0; f < R->ncurve; f++)
                rl_tsv_row(t, "%s\t%d\t%.6g\t%ld\t%.6g\t%.6g", law_name(ms_laws[i], ln, sizeof ln), R->cb[c],
                           S->curve_omega[c], R->grid[f], (double)R->grid[f] / g->t,
                           R->curve[c][i][f]);
    rl_tsv_close(t);
}

static void mc_rows(const rl_ms_res *R, const rl_ms_summary *S, const rl_outdir *out, rl_report *rep)
{
    rl_tsv *t = rl_tsv_open(out, "mixstay_mc.tsv", "law\tblock\tomega\tdelta\tdelta2\tpred_d2\tmean\tse\tz\treps\tm");
    char ln[32];
    for (int j = 0; j < RL_MS_NMC; j++) {
        const rl_ms_mc *c = &R->mc[j];
        rl_tsv_row(t, "%s\t%d\t%.6g\t%ld\t%ld\t%.6g\t%.6g\t%.3g\t%.3f\t%ld\t%ld", law_name(ms_laws[c->law], ln, sizeof ln),
                   c->block, c->omega, c->far, c->near, c->pred, c->mean, c->se, S->z[j], R->z.reps, R->z.m);
        mc_render(rep, ms_laws[c->law], c->block, c->omega, c->far, c->near, c->pred, c->mean, c->se, S->z[j],
                  R->z.reps, R->z.m);
    }
    rl_tsv_close(t);
}

void rl_exp_mixstay_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const rl_ms_res *R = res;
    const rl_ms_regime *c = &R->reg[0];
    rl_ms_summary S;
    rl_mixstay_summarise(R, &S);
    rl_report_text(rep,
                   RL_PROSE_MIXSTAY_INTRO,
                   RL_MIXSTAY_HARMONICS, c->what, c->d, c->t, c->base, R->reg[2].what, R->reg[2].d, R->reg[2].t,
                   RL_MIXSTAY_MULT);
    blocks_tsv(R, &S, out);
    scores_table(R, out, rep);
    curves_tsv(R, &S, out);
    char head[160];
    rl_mixstay_chi_row(rep, rl_fmt(head, sizeof head, "%s (hd %d, base %.6g)", c->what, c->d, c->base), R->gap);
    for (int r = 0; r < RL_MS_NREG; r++) {
        const rl_ms_regime *g = &R->reg[r];
        rl_fmt(head, sizeof head, "%s (hd %d, T = %ld, base %.6g)", g->what, g->d, g->t, g->base);
        rl_mixstay_score_row(rep, head, RL_MIXSTAY_MULT, g->score[0], g->score[1]);
    }
    mc_rows(R, &S, out, rep);

    const rl_plotvar vars[] = { RL_PV_I("T", c->t), RL_PV_I("mult", RL_MIXSTAY_MULT) };
    rl_plot(out, "mixstay_blocks", "mixstay_blocks", vars, RL_NVARS(vars));
    rl_plot(out, "mixstay_curves", "mixstay_curves", vars, RL_NVARS(vars));
    rl_report_figure(rep, "mixstay_blocks.png",
                     RL_PROSE_MIXSTAY_FIG_BLOCKS);
    rl_report_figure(rep, "mixstay_curves.png",
                     RL_PROSE_MIXSTAY_FIG_CURVES);
}
