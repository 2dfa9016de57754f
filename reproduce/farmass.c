/* farmass.c: the far-mass prediction section of the grid report
 * (farmass.h, NOTES.md §17). */
#include "farmass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/util.h"
#include "../experiments/claims.h"
#include "../report/plot.h"
#include "../report/tsv.h"
#include "order.h"

rl_verdict rl_farpred_decide(const double *d, int k, double *mean, double *se, double *x)
{
    rl_order o = rl_order_exceeds(d, k, RL_FARPRED_MARGIN);
    *mean = o.mean;
    *se = o.se;
    *x = o.x;
    return o.v;
}

int rl_horizon_first(const double *x, int n, int k, double threshold, int *undecided)
{
    *undecided = -1;
    for (int i = 0; i < n; i++) {
        const rl_verdict v = rl_order_exceeds(x + (long)i * k, k, threshold).v;
        if (v == RL_V_HOLDS)
            return i;
        if (v != RL_V_CONTRADICTED && *undecided < 0)
            *undecided = i;
    }
    return -1;
}

/* One model's far mass by length index and head: measured (probe, W = T),
 * its SE over rows, the three predictions; mixes[head]: a block of the
 * head mixes beyond T. */
typedef struct {
    int ok;
    double *meas, *se, *th, *di, *bd;
    double *em, *et, *ed; /* attention entropy: measured, theory, dilution */
    double *br;           /* the bound with the realised lambda at L (the probe's bound_mean) */
    char *mixes;
} model_fm;

/* The row of lens for L, or -1. */
static int len_at(const long *lens, int nlen, long L)
{
    for (int i = 0; i < nlen; i++)
        if (lens[i] == L)
            return i;
    return -1;
}

/* Reads the rows of a TSV whose first columns are length, layer, head into
 * dst[i * NH + layer * H + head] (the columns cols[0..nc-1] into dst[0..nc-1]);
 * rows whose column wcol (>= 0) is not W are skipped.  Returns rows read. */
static long read_rows(const char *path, const long *lens, int nlen, int H, int NH, int wcol, long W, const int *cols,
                      int nc, double **dst)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[2048], *c[32];
    long n = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        const int m = rl_tsv_fields(line, c, 32);
        if (m < 3)
            continue;
        if (wcol >= 0 && (wcol >= m || (long)rl_tsv_num(c[wcol]) != W))
            continue;
        const int i = len_at(lens, nlen, (long)rl_tsv_num(c[0])), l = (int)rl_tsv_num(c[1]),
                  h = (int)rl_tsv_num(c[2]);
        if (i < 0 || h < 0 || h >= H || l < 0 || l * H + h >= NH)
            continue;
        for (int j = 0; j < nc; j++)
            dst[j][(long)i * NH + l * H + h] = cols[j] < m ? rl_tsv_num(c[cols[j]]) : NAN;
        n++;
    }
    fclose(f);
    return n;
}

/* mixes[head] from blocks.tsv: coh_band - coh_128T >= RL_FARPRED_MIXES. */
static void read_mixes(const char *path, int H, int NH, char *mixes)
{
    FILE *f = fopen(path, "r");
    char line[1024], *c[16];
    if (!f)
        return;
    if (fgets(line, sizeof line, f))
        while (fgets(line, sizeof line, f))
            if (rl_tsv_fields(line, c, 16) >= 7) {
                const int x = (int)rl_tsv_num(c[0]) * H + (int)rl_tsv_num(c[1]);
                if (x >= 0 && x < NH && rl_tsv_num(c[5]) - rl_tsv_num(c[6]) >= RL_FARPRED_MIXES)
                    mixes[x] = 1;
            }
    fclose(f);
}

static void read_model(const rl_repro *r, int v, int k, const long *lens, int nlen, int H, int NH, model_fm *m)
{
    const long n = (long)nlen * NH;
    m->meas = rl_xmalloc(sizeof(double) * n);
    m->se = rl_xmalloc(sizeof(double) * n);
    m->th = rl_xmalloc(sizeof(double) * n);
    m->di = rl_xmalloc(sizeof(double) * n);
    m->bd = rl_xmalloc(sizeof(double) * n);
    m->em = rl_xmalloc(sizeof(double) * n);
    m->et = rl_xmalloc(sizeof(double) * n);
    m->ed = rl_xmalloc(sizeof(double) * n);
    m->br = rl_xmalloc(sizeof(double) * n);
    m->mixes = rl_xcalloc(NH, 1);
    for (long i = 0; i < n; i++)
        m->meas[i] = m->se[i] = m->th[i] = m->di[i] = m->bd[i] = m->em[i] = m->et[i] = m->ed[i] = m->br[i] = NAN;
    char *d = rl_repro_model_dir(r, v, k), *fp = rl_path_join(d, "farpred/farpred.tsv"),
         *pp = rl_path_join(d, "farpred/probe/probe.tsv"), *bp = rl_path_join(d, "farpred/blocks.tsv");
    const int pc[5] = { 3, 4, 5, 7, 8 }, mc[4] = { 4, 5, 18, 6 };
    double *pd[5] = { m->th, m->di, m->bd, m->et, m->ed }, *md[4] = { m->meas, m->se, m->em, m->br };
    const long a = read_rows(fp, lens, nlen, H, NH, -1, 0, pc, 5, pd);
    const long b = read_rows(pp, lens, nlen, H, NH, 3, r->g.train.ctx, mc, 4, md);
    read_mixes(bp, H, NH, m->mixes);
    m->ok = a == n && b == n;
    free(d);
    free(fp);
    free(pp);
    free(bp);
}

static void free_model(model_fm *m)
{
    free(m->meas);
    free(m->se);
    free(m->th);
    free(m->di);
    free(m->bd);
    free(m->em);
    free(m->et);
    free(m->ed);
    free(m->br);
    free(m->mixes);
}

/* Mean over heads (mixing heads only when only_mix) at length i of a
 * per-head array. */
static double head_mean(const double *x, const char *mixes, int only_mix, int i, int NH)
{
    double s = 0;
    int n = 0;
    for (int h = 0; h < NH; h++)
        if (!only_mix || mixes[h]) {
            s += x[(long)i * NH + h];
            n++;
        }
    return n ? s / n : NAN;
}

/* Mean absolute error of pred against meas over heads (mixing only when
 * only_mix) and lengths. */
static double mae(const model_fm *m, const double *pred, int only_mix, int nlen, int NH)
{
    double s = 0;
    long n = 0;
    for (int i = 0; i < nlen; i++)
        for (int h = 0; h < NH; h++)
            if (!only_mix || m->mixes[h]) {
                s += fabs(pred[(long)i * NH + h] - m->meas[(long)i * NH + h]);
                n++;
            }
    return n ? s / n : NAN;
}

/* Mean absolute difference of pred from meas over every head and length. */
static double mae_of(const double *meas, const double *pred, int nlen, int NH)
{
    double s = 0;
    for (long i = 0; i < (long)nlen * NH; i++)
        s += fabs(pred[i] - meas[i]);
    return s / ((double)nlen * NH);
}

/* The same over layer 0's heads only (whose inputs are the tokens
 * themselves at every length: the formula's last assumption holds there). */
static double mae_layer0(const model_fm *m, const double *pred, int nlen, int NH, int H)
{
    double s = 0;
    for (int i = 0; i < nlen; i++)
        for (int h = 0; h < H; h++)
            s += fabs(pred[(long)i * NH + h] - m->meas[(long)i * NH + h]);
    return s / ((double)nlen * H);
}

static void len_name(char *buf, size_t n, int i, const long *lens, long T)
{
    snprintf(buf, n, "%ldT", lens[i] / T);
}

/* A predicted horizon's cell: length i, beyond the grid (i < 0), or no
 * model with a prediction (n = 0). */
static void pred_cell(char *buf, size_t size, int n, int i, const long *lens, int nlen, long T)
{
    if (!n)
        snprintf(buf, size, "no model");
    else if (i < 0)
        snprintf(buf, size, "beyond %ldT", lens[nlen - 1] / T);
    else
        len_name(buf, size, i, lens, T);
}

void rl_repro_farmass_section(const rl_repro *r, FILE *fp, const rl_outdir *od, const double *newlr,
                              const long *lens_all, int nall)
{
    if (!r->g.farpred)
        return;
    const int nv = r->nvar, K = r->g.seeds, H = r->g.train.heads, NH = r->g.train.layers * H;
    const long T = r->g.train.ctx;
    /* the lengths beyond T */
    long lens[64];
    int nlen = 0, off = -1;
    for (int i = 0; i < nall && nlen < 64; i++)
        if (lens_all[i] > T) {
            if (off < 0)
                off = i;
            lens[nlen++] = lens_all[i];
        }
    if (nlen == 0)
        return;
    model_fm *M = rl_xcalloc((size_t)nv * K, sizeof *M);
    int have = 0;
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            read_model(r, v, k, lens, nlen, H, NH, &M[v * K + k]);
            have += M[v * K + k].ok;
        }
    fprintf(fp, "## Far mass predicted from within T (NOTES.md §17)\n\n");
    fprintf(fp, "For every model, `routelab farpred` reads windows of T tokens only and predicts the far mass "
                "(attention beyond distance T) of each layer and head at 2T … %dT: **theory** — far keys score as the "
                "far band's content pairs turned by the step law's accumulated angle (exact per block, "
                "Jacobi–Anger); **dilution** — every far key weighs what the band's keys weigh; **bound** — "
                "M/(M + K e^{2λ}) with λ from within T. `routelab probe` measures the same rows (W = T). %d of %d "
                "models have both.\n\n",
            r->g.max_mult, have, nv * K);
    if (have == 0) {
        fprintf(fp, "No model has its prediction and measurement yet (the grid's farpred stage writes "
                    "`models/*/seed*/farpred/`).\n\n");
        free(M);
        return;
    }
    /* every model's rows */
    rl_tsv *t = rl_tsv_open(od, "farpred.tsv", "variant\tseed\tlength\tlayer\thead\tmixes\tmeasured\tmeasured_se"
                                                "\ttheory\tdilution\tbound\tbound_realised\tentropy\tentropy_theory\tentropy_dilution");
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            const model_fm *m = &M[v * K + k];
            if (!m->ok)
                continue;
            for (int i = 0; i < nlen; i++)
                for (int h = 0; h < NH; h++) {
                    const long j = (long)i * NH + h;
                    rl_tsv_row(t, "%s\t%ld\t%ld\t%d\t%d\t%d\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g",
                               r->var[v], rl_repro_seed(r, k), lens[i], h / H, h % H, m->mixes[h], m->meas[j],
                               m->se[j], m->th[j], m->di[j], m->bd[j], m->br[j], m->em[j], m->et[j], m->ed[j]);
                }
        }
    rl_tsv_close(t);
    /* per variant and length: head means, seeds as rows for the figure */
    rl_tsv *s = rl_tsv_open(od, "farpred_summary.tsv", "variant\tseed\tlength\tmult\tmeasured\ttheory\tdilution"
                                                        "\tbound\tmae_theory\tmae_dilution\tmae_bound");
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            const model_fm *m = &M[v * K + k];
            if (!m->ok)
                continue;
            for (int i = 0; i < nlen; i++) {
                double et = 0, ed = 0, eb = 0;
                for (int h = 0; h < NH; h++) {
                    const long j = (long)i * NH + h;
                    et += fabs(m->th[j] - m->meas[j]);
                    ed += fabs(m->di[j] - m->meas[j]);
                    eb += fabs(m->bd[j] - m->meas[j]);
                }
                rl_tsv_row(s, "%s\t%ld\t%ld\t%ld\t%.6g\t%.6g\t%.6g\t%.6g\t%.4g\t%.4g\t%.4g", r->var[v],
                           rl_repro_seed(r, k), lens[i], lens[i] / T, head_mean(m->meas, m->mixes, 0, i, NH),
                           head_mean(m->th, m->mixes, 0, i, NH), head_mean(m->di, m->mixes, 0, i, NH),
                           head_mean(m->bd, m->mixes, 0, i, NH), et / NH, ed / NH, eb / NH);
            }
        }
    rl_tsv_close(s);
    /* the rule per variant, and the errors table */
    fprintf(fp, "Mean absolute error of each prediction over every head and length (mean across the seeds that "
                "have it), and the rule (fixed before the run): on the heads where a block mixes beyond T "
                "(coherence falls by ≥ %.2g between T/2 and 128T), the theory's error is below dilution's by more "
                "than %.2g, per seed d = MAE(dilution) − MAE(theory), rule *sign* on (mean(d) − %.2g)/SE across "
                "seeds. The layer-0 columns are an *info* reading chosen after the first models (NOTES.md §17.4): "
                "layer 0 is the one layer whose inputs at long L are the tokens themselves. The entropy columns "
                "compare the predicted attention entropy of the same rows with the probe's (info: no rule).\n\n",
            RL_FARPRED_MIXES, RL_FARPRED_MARGIN, RL_FARPRED_MARGIN);
    fprintf(fp, "| variant | seeds | MAE theory | MAE dilution | MAE bound (λ within T) | MAE bound (λ realised at L) | "
                "layer 0 theory (info) | layer 0 dilution (info) | entropy MAE theory (nats, info) | entropy MAE dilution | "
                "mixing heads | d (mixing heads) | x | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    rl_tsv *vt = rl_tsv_open(od, "farpred_verdicts.tsv", "variant\tseeds\tmae_theory\tmae_dilution\tmae_bound"
                                                          "\tmae0_theory\tmae0_dilution\tmixing_heads\td_mean\td_se\tx"
                                                          "\tverdict");
    for (int v = 0; v < nv; v++) {
        double d[RL_GRID_MAX_SEEDS], at = 0, ad = 0, ab = 0, a0t = 0, a0d = 0, aet = 0, aed = 0, abr = 0;
        int n = 0, nmix = 0;
        for (int k = 0; k < K; k++) {
            const model_fm *m = &M[v * K + k];
            if (!m->ok)
                continue;
            at += mae(m, m->th, 0, nlen, NH);
            ad += mae(m, m->di, 0, nlen, NH);
            ab += mae(m, m->bd, 0, nlen, NH);
            abr += mae(m, m->br, 0, nlen, NH);
            a0t += mae_layer0(m, m->th, nlen, NH, H);
            a0d += mae_layer0(m, m->di, nlen, NH, H);
            aet += mae_of(m->em, m->et, nlen, NH);
            aed += mae_of(m->em, m->ed, nlen, NH);
            int mix = 0;
            for (int h = 0; h < NH; h++)
                mix += m->mixes[h];
            nmix = mix > nmix ? mix : nmix;
            d[n++] = mix ? mae(m, m->di, 1, nlen, NH) - mae(m, m->th, 1, nlen, NH) : NAN;
        }
        if (n == 0) {
            const int path = strncmp(r->var[v], "path", 4) == 0;
            fprintf(fp, "| %s | 0 | – | – | – | – | – | – | – | – | – | – | – | %s |\n", r->var[v],
                    path ? "no prediction (PaTH transports scores, not SO(2) blocks)" : "not measured yet");
            rl_tsv_row(vt, "%s\t0\tNA\tNA\tNA\tNA\tNA\t0\tNA\tNA\tNA\t%s", r->var[v], path ? "no prediction" : "not measured");
            continue;
        }
        double mean = NAN, se = NAN, x = NAN;
        const char *verdict, *kind = "no prediction";
        char vbuf[160];
        if (nmix == 0)
            verdict = "no prediction (no block mixes beyond T: dilution and the rotation are the theory)";
        else {
            const rl_verdict vd = rl_farpred_decide(d, n, &mean, &se, &x);
            verdict = kind = rl_verdict_name(vd);
            if (vd == RL_V_UNRESOLVED) {
                /* what would decide it: the seeds at which the same effect over the
                 * margin, its SE shrinking as 1/sqrt(K), reaches |z| >= 3 */
                const long need = isnan(se) ? -1 : rl_effect_repeats_needed(mean - RL_FARPRED_MARGIN, se, n, 3, 64);
                if (need > 0)
                    snprintf(vbuf, sizeof vbuf, "unresolved (%ld seeds would decide this effect)", need);
                else
                    snprintf(vbuf, sizeof vbuf, "unresolved (%s)", n < 2 ? "one seed: no seed SE" : "not within 64 seeds");
                verdict = vbuf;
            }
        }
        char dcell[64], xcell[32];
        if (isnan(mean))
            snprintf(dcell, sizeof dcell, "–");
        else if (isnan(se))
            snprintf(dcell, sizeof dcell, "%+.4f (one seed)", mean);
        else
            snprintf(dcell, sizeof dcell, "%+.4f ± %.4f", mean, se);
        if (isnan(x))
            snprintf(xcell, sizeof xcell, "–");
        else
            snprintf(xcell, sizeof xcell, "%.2f", x);
        fprintf(fp, "| %s | %d | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.3f | %.3f | %d of %d | %s | %s | %s |\n",
                r->var[v], n, at / n, ad / n, ab / n, abr / n, a0t / n, a0d / n, aet / n, aed / n, nmix, NH, dcell, xcell,
                verdict);
        rl_tsv_row(vt, "%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%.6g\t%.6g\t%.4g\t%s", r->var[v], n, at / n, ad / n,
                   ab / n, a0t / n, a0d / n, nmix, mean, se, x, kind);
    }
    rl_tsv_close(vt);
    /* loss horizons */
    fprintf(fp, "\n**Loss horizons.** Measured: the first length whose newest-position loss (targets beyond T) "
                "exceeds the loss at T by log %.2f, rule *sign* across seeds (x ≥ 3). Predicted: the first length "
                "where the seed-mean, head-mean predicted far mass reaches %.2g (the far keys weigh as much as the "
                "near ones), by the theory and by dilution. (H = min{W_b > T}, the earlier rule, stays an *info* "
                "row in the horizon section.)\n\n| variant | measured | theory | dilution |\n|---|---|---|---|\n",
            RL_HORIZON_EFFECT, RL_HORIZON_FAR);
    rl_tsv *ht = rl_tsv_open(od, "loss_horizons.tsv", "variant\tseeds\tmeasured\tpredicted_theory\tpredicted_dilution");
    for (int v = 0; v < nv; v++) {
        double x[64 * RL_GRID_MAX_SEEDS];
        for (int i = 0; i < nlen; i++)
            for (int k = 0; k < K; k++)
                x[i * K + k] = newlr[((long)v * K + k) * nall + off + i];
        int und;
        const int hm = rl_horizon_first(x, nlen, K, log(RL_HORIZON_EFFECT), &und);
        int ht_i = -1, hd_i = -1, n = 0;
        for (int i = 0; i < nlen; i++) {
            double st = 0, sd = 0;
            n = 0;
            for (int k = 0; k < K; k++)
                if (M[v * K + k].ok) {
                    st += head_mean(M[v * K + k].th, M[v * K + k].mixes, 0, i, NH);
                    sd += head_mean(M[v * K + k].di, M[v * K + k].mixes, 0, i, NH);
                    n++;
                }
            if (n && ht_i < 0 && st / n >= RL_HORIZON_FAR)
                ht_i = i;
            if (n && hd_i < 0 && sd / n >= RL_HORIZON_FAR)
                hd_i = i;
        }
        char a[96], b[32], c[32];
        if (hm < 0 && und < 0)
            snprintf(a, sizeof a, "beyond %ldT", lens[nlen - 1] / T);
        else if (hm < 0)
            snprintf(a, sizeof a, "unresolved from %ldT", lens[und] / T);
        else if (und >= 0)
            snprintf(a, sizeof a, "%ldT–%ldT (%ldT unresolved)", lens[und] / T, lens[hm] / T, lens[und] / T);
        else
            len_name(a, sizeof a, hm, lens, T);
        pred_cell(b, sizeof b, n, ht_i, lens, nlen, T);
        pred_cell(c, sizeof c, n, hd_i, lens, nlen, T);
        fprintf(fp, "| %s | %s | %s | %s |\n", r->var[v], a, b, c);
        rl_tsv_row(ht, "%s\t%d\t%s\t%s\t%s", r->var[v], K, a, b, c);
    }
    rl_tsv_close(ht);
    char names[2048];
    int o = 0;
    names[0] = 0;
    for (int v = 0; v < nv && o < (int)sizeof names; v++)
        o += snprintf(names + o, sizeof names - o, v ? " %s" : "%s", r->var[v]);
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_I("ctx", T) };
    rl_plot(od, "reproduce_farpred", "farpred", vars, RL_NVARS(vars));
    fprintf(fp, "\n![Far mass predicted and measured](farpred.png)\n\n*Head-mean far mass beyond T per variant: "
                "measured (points, one per seed), the theory (solid), dilution (dashed), the bound (dotted); "
                "`farpred_summary.tsv`, per head in `farpred.tsv`.*\n\n");
    for (int i = 0; i < nv * K; i++)
        free_model(&M[i]);
    free(M);
}
