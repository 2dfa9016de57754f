/* grid_farmass.c: the far-mass prediction section of the grid report
 * (grid_farmass.h, docs/theory/farpred.md#far-mass-prediction).  Read (every model's farpred.tsv
 * and probe.tsv, by column name) -> summarise (per variant and length: errors, the
 * mixing verdict, the bound count) -> render (markdown and TSV). */
#include "grid_farmass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/core/util.h"
#include "../../experiments/claims.h"
#include "../report/plot.h"
#include "../report/tsv.h"
#include "../../model/scheme.h"
#include "order.h"
#include "prose_reproduce.h"

rl_order rl_farpred_decide(const double *d, int k)
{
    return rl_order_effect(d, k, RL_FARPRED_MARGIN);
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

/* ---- read ---------------------------------------------------------------- */

/* The predictions of farpred.tsv and the measurements of probe.tsv, each
 * an array by length index and head (i * NH + head). */
enum { P_ROUTE, P_NOMIX, P_MEANFIELD, P_DILUTION, P_BOUND, P_ENT_ROUTE, P_ENT_MEANFIELD, P_ENT_DILUTION, NPRED };
enum { M_FAR, M_SE, M_BOUND, M_ROWS, M_VIOL, M_ENT, NMEAS };
/* Their columns by name; the committed grids of the mean-field form name it
 * "theory" (rho_theory, entropy_theory) and have no route columns. */
static const char *const PRED_COLS[NPRED][2] = {
    { "rho_route", NULL },          { "rho_nomix", NULL },         { "rho_meanfield", "rho_theory" },
    { "rho_dilution", NULL },       { "rho_bound", NULL },         { "entropy_route", NULL },
    { "entropy_meanfield", "entropy_theory" }, { "entropy_dilution", NULL }
};
static const char *const MEAS_COLS[NMEAS][2] = { { "far_mass", NULL }, { "far_mass_se", NULL },
                                                 { "bound_mean", NULL }, { "rows", NULL },
                                                 { "violations", NULL }, { "entropy", NULL } };

typedef struct {
    int ok;        /* every length and head measured and predicted (mean-field at least) */
    int route;     /* with routelab's predictor (a farpred of the route form) */
    double *p[NPRED], *m[NMEAS];
    char *mixes;   /* [head]: a block of the head mixes beyond T */
} model_fm;

static int len_at(const long *lens, int nlen, long L)
{
    for (int i = 0; i < nlen; i++)
        if (lens[i] == L)
            return i;
    return -1;
}

/* Column index of each name (either spelling) in a header line; -1: none. */
static void find_cols(char *header, const char *const (*names)[2], int n, int *col)
{
    char *c[64];
    const int m = rl_tsv_fields(header, c, 64);
    for (int j = 0; j < n; j++) {
        col[j] = -1;
        for (int i = 0; i < m && col[j] < 0; i++)
            if (!strcmp(c[i], names[j][0]) || (names[j][1] && !strcmp(c[i], names[j][1])))
                col[j] = i;
    }
}

/* The rows of a TSV whose first columns are length, layer, head (and W at
 * column 3 when W > 0: rows of other W skipped) into dst[j][i * NH + head]
 * for the named columns (NaN where a column is missing).  Returns rows read;
 * *has[j] (may be NULL): column j exists. */
static long read_rows(const char *path, const long *lens, int nlen, int H, int NH, long W,
                      const char *const (*names)[2], int nc, double **dst, int *has)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096], *c[64];
    int col[16];
    long n = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    find_cols(line, names, nc, col);
    for (int j = 0; has && j < nc; j++)
        has[j] = col[j] >= 0;
    while (fgets(line, sizeof line, f)) {
        const int m = rl_tsv_fields(line, c, 64);
        if (m < 3 || (W > 0 && (m < 4 || (long)rl_tsv_num(c[3]) != W)))
            continue;
        const int i = len_at(lens, nlen, (long)rl_tsv_num(c[0])), l = (int)rl_tsv_num(c[1]),
                  h = (int)rl_tsv_num(c[2]);
        if (i < 0 || h < 0 || h >= H || l < 0 || l * H + h >= NH)
            continue;
        for (int j = 0; j < nc; j++)
            dst[j][(long)i * NH + l * H + h] = col[j] >= 0 && col[j] < m ? rl_tsv_num(c[col[j]]) : NAN;
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

static double *nan_array(long n)
{
    double *x = rl_xmalloc(sizeof(double) * n);
    for (long i = 0; i < n; i++)
        x[i] = NAN;
    return x;
}

static void read_model(const rl_repro *r, int v, int k, const long *lens, int nlen, int H, int NH, model_fm *m)
{
    const long n = (long)nlen * NH;
    for (int j = 0; j < NPRED; j++)
        m->p[j] = nan_array(n);
    for (int j = 0; j < NMEAS; j++)
        m->m[j] = nan_array(n);
    m->mixes = rl_xcalloc(NH, 1);
    char *d = rl_repro_model_dir(r, v, k), *fp = rl_path_join(d, "farpred/farpred.tsv"),
         *pp = rl_path_join(d, "farpred/probe/probe.tsv"), *bp = rl_path_join(d, "farpred/blocks.tsv");
    int has[NPRED];
    const long a = read_rows(fp, lens, nlen, H, NH, 0, PRED_COLS, NPRED, m->p, has);
    const long b = read_rows(pp, lens, nlen, H, NH, r->g.train.ctx, MEAS_COLS, NMEAS, m->m, NULL);
    read_mixes(bp, H, NH, m->mixes);
    m->ok = a == n && b == n;
    m->route = m->ok && has[P_ROUTE] && has[P_NOMIX];
    free(d);
    free(fp);
    free(pp);
    free(bp);
}

static void free_model(model_fm *m)
{
    for (int j = 0; j < NPRED; j++)
        free(m->p[j]);
    for (int j = 0; j < NMEAS; j++)
        free(m->m[j]);
    free(m->mixes);
}

/* Whether variant pos is a Householder transport (a path code, config.h:
 * path, random-hh): it transports scores, not SO(2) blocks, so farpred makes
 * no prediction for it. */
static int transports(const char *pos)
{
    rl_pos_config pc;
    char err[256];
    return rl_pos_parse(pos, -1, &pc, err, sizeof err) == 0 && pc.path;
}

/* ---- summarise ----------------------------------------------------------- */

/* Mean over heads (mixing heads only when only_mix) at length i. */
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

/* Mean absolute error of pred against the measured far mass at length i
 * over the heads (mixing heads only when only_mix); NaN without any. */
static double mae_at(const model_fm *m, const double *pred, int only_mix, int i, int NH)
{
    double s = 0;
    int n = 0;
    for (int h = 0; h < NH; h++)
        if (!only_mix || m->mixes[h]) {
            s += fabs(pred[(long)i * NH + h] - m->m[M_FAR][(long)i * NH + h]);
            n++;
        }
    return n ? s / n : NAN;
}

/* One variant at one length: the mean over its seeds (with routelab's
 * predictor) of each prediction's error on every head, and on its mixing
 * heads the per-seed paired differences d = MAE(ablation) - MAE(routelab),
 * decided by farpred's rule (rl_farpred_decide): mixing switched off, and
 * dilution. */
typedef struct {
    int seeds, mixing;        /* seeds with the route; most mixing heads of a seed */
    double measured;          /* head-mean far mass */
    double mae[5];            /* route, nomix, meanfield, dilution, bound (every head) */
    rl_order mix, dil;        /* on the mixing heads */
    int need_mix;             /* seeds that would decide an unresolved mixing row (-1: none) */
} len_summary;

static void summarise_length(const model_fm *M, int K, int i, int NH, len_summary *s)
{
    double dm[RL_GRID_MAX_SEEDS], dd[RL_GRID_MAX_SEEDS], meas = 0;
    memset(s, 0, sizeof *s);
    for (int k = 0; k < K; k++) {
        const model_fm *m = &M[k];
        if (!m->route)
            continue;
        int mix = 0;
        for (int h = 0; h < NH; h++)
            mix += m->mixes[h];
        s->mixing = mix > s->mixing ? mix : s->mixing;
        const int js[5] = { P_ROUTE, P_NOMIX, P_MEANFIELD, P_DILUTION, P_BOUND };
        for (int j = 0; j < 5; j++)
            s->mae[j] += mae_at(m, m->p[js[j]], 0, i, NH);
        meas += head_mean(m->m[M_FAR], m->mixes, 0, i, NH);
        const double er = mae_at(m, m->p[P_ROUTE], 1, i, NH);
        dm[s->seeds] = mae_at(m, m->p[P_NOMIX], 1, i, NH) - er;
        dd[s->seeds] = mae_at(m, m->p[P_DILUTION], 1, i, NH) - er;
        s->seeds++;
    }
    for (int j = 0; j < 5; j++)
        s->mae[j] = s->seeds ? s->mae[j] / s->seeds : NAN;
    s->measured = s->seeds ? meas / s->seeds : NAN;
    s->mix = rl_farpred_decide(dm, s->seeds);
    s->dil = rl_farpred_decide(dd, s->seeds);
    s->need_mix = -1;
    if (s->mix.v == RL_V_UNRESOLVED && s->seeds >= 2) {
        rl_verdict target;
        s->need_mix = rl_order_seeds_needed(s->mix.mean, s->mix.se * sqrt((double)s->seeds), RL_FARPRED_MARGIN,
                                            0.8, RL_GRID_MAX_SEEDS * 4, &target);
    }
}

/* The study's far-mass bound with the realised lambda (the probe's
 * bound_mean, each row's own largest |logit|) against the measured far mass
 * of the same rows: a proved lower bound, so a row below it is a bug.  Rows
 * of every model, length and head of a variant, and the probe's own count
 * of single rows (of every window) below their bound. */
typedef struct {
    long cells, below, rows, violations;
} bound_count;

static bound_count count_bound(const model_fm *M, int K, int nlen, int NH)
{
    bound_count c = { 0, 0, 0, 0 };
    for (int k = 0; k < K; k++)
        if (M[k].ok)
            for (long j = 0; j < (long)nlen * NH; j++) {
                c.cells++;
                c.below += M[k].m[M_BOUND][j] <= M[k].m[M_FAR][j];
                c.rows += (long)M[k].m[M_ROWS][j];
                c.violations += (long)M[k].m[M_VIOL][j];
            }
    return c;
}

/* ---- render --------------------------------------------------------------- */

/* farpred.tsv (every model's rows by length and head) and
 * farpred_summary.tsv (its head means by length, for the figure). */
static void write_model_rows(const rl_repro *r, const rl_outdir *od, const model_fm *M, const long *lens, int nlen,
                             int NH, int H)
{
    rl_tsv *t = rl_tsv_open(od, "farpred.tsv", "variant\tseed\tlength\tlayer\thead\tmixes\tmeasured\tmeasured_se"
                                                "\troute\tnomix\tmeanfield\tdilution\tbound\tbound_realised"
                                                "\tentropy\tentropy_route\tentropy_meanfield\tentropy_dilution");
    rl_tsv *s = rl_tsv_open(od, "farpred_summary.tsv", "variant\tseed\tlength\tmult\tmeasured\troute\tnomix"
                                                        "\tmeanfield\tdilution\tbound");
    for (int v = 0; v < r->nvar; v++)
        for (int k = 0; k < r->g.seeds; k++) {
            const model_fm *m = &M[v * r->g.seeds + k];
            if (!m->ok)
                continue;
            for (int i = 0; i < nlen; i++) {
                for (int h = 0; h < NH; h++) {
                    const long j = (long)i * NH + h;
                    rl_tsv_row(t, "%s\t%ld\t%ld\t%d\t%d\t%d\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g"
                                  "\t%.6g\t%.6g",
                               r->var[v], rl_repro_seed(r, k), lens[i], h / H, h % H, m->mixes[h], m->m[M_FAR][j],
                               m->m[M_SE][j], m->p[P_ROUTE][j], m->p[P_NOMIX][j], m->p[P_MEANFIELD][j],
                               m->p[P_DILUTION][j], m->p[P_BOUND][j], m->m[M_BOUND][j], m->m[M_ENT][j],
                               m->p[P_ENT_ROUTE][j], m->p[P_ENT_MEANFIELD][j], m->p[P_ENT_DILUTION][j]);
                }
                rl_tsv_row(s, "%s\t%ld\t%ld\t%ld\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", r->var[v], rl_repro_seed(r, k),
                           lens[i], lens[i] / r->g.train.ctx, head_mean(m->m[M_FAR], m->mixes, 0, i, NH),
                           head_mean(m->p[P_ROUTE], m->mixes, 0, i, NH), head_mean(m->p[P_NOMIX], m->mixes, 0, i, NH),
                           head_mean(m->p[P_MEANFIELD], m->mixes, 0, i, NH),
                           head_mean(m->p[P_DILUTION], m->mixes, 0, i, NH), head_mean(m->p[P_BOUND], m->mixes, 0, i, NH));
            }
        }
    rl_tsv_close(t);
    rl_tsv_close(s);
}

/* "+0.0123 ± 0.0045" or a dash. */
static const char *d_cell(char *buf, size_t n, const rl_order *o)
{
    if (isnan(o->mean))
        snprintf(buf, n, "–");
    else if (isnan(o->se))
        snprintf(buf, n, "%+.4f (one seed)", o->mean);
    else
        snprintf(buf, n, "%+.4f ± %.4f", o->mean, o->se);
    return buf;
}

/* The bound row: the study's far-mass bound with the realised lambda. */
static void render_bound(const rl_repro *r, FILE *fp, const model_fm *M, int nlen, int NH)
{
    fprintf(fp, RL_PROSE_GRID_FARMASS_BOUND "\n\n| variant | model × length × head cells with the bound ≤ the "
                "measured far mass | single rows below their bound | kind |\n|---|---|---|---|\n");
    bound_count all = { 0, 0, 0, 0 };
    for (int v = 0; v < r->nvar; v++) {
        const bound_count c = count_bound(M + v * r->g.seeds, r->g.seeds, nlen, NH);
        if (!c.cells)
            continue;
        all.cells += c.cells;
        all.below += c.below;
        all.rows += c.rows;
        all.violations += c.violations;
        const rl_verdict vd = rl_rule_decide(&rl_rule_exact, c.below == c.cells && c.violations == 0);
        fprintf(fp, "| %s | %ld of %ld | %ld of %ld | %s |\n", r->var[v], c.below, c.cells, c.violations, c.rows,
                rl_verdict_name(vd));
    }
    fprintf(fp, "| all | %ld of %ld | %ld of %ld | %s |\n\n", all.below, all.cells, all.violations, all.rows,
            rl_verdict_name(rl_rule_decide(&rl_rule_exact, all.below == all.cells && all.violations == 0)));
}

/* The lengths the mixing verdict is read at: 8T, 16T, 32T (those the grid has). */
static int verdict_length(long L, long T)
{
    return L == 8 * T || L == 16 * T || L == 32 * T;
}

static void render_errors(const rl_repro *r, FILE *fp, const rl_outdir *od, const model_fm *M, const long *lens,
                          int nlen, int NH)
{
    const long T = r->g.train.ctx;
    fprintf(fp, RL_PROSE_GRID_FARMASS_ERRORS "\n\n",
            RL_FARPRED_MARGIN, RL_FARPRED_MIXES);
    fprintf(fp, "| variant | length | seeds | measured | routelab | mixing off | mean-field | dilution | bound (λ within T) "
                "| mixing heads | d (mixing off − routelab) | mixing verdict | d (dilution − routelab) | vs dilution "
                "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    rl_tsv *vt = rl_tsv_open(od, "farpred_verdicts.tsv", "variant\tlength\tmult\tseeds\tmeasured\tmae_route"
                                                          "\tmae_nomix\tmae_meanfield\tmae_dilution\tmae_bound"
                                                          "\tmixing_heads\td_mix\td_mix_se\tx_mix\tverdict_mix\td_dil"
                                                          "\td_dil_se\tx_dil\tverdict_dil");
    for (int v = 0; v < r->nvar; v++)
        for (int i = 0; i < nlen; i++) {
            len_summary s;
            summarise_length(M + v * r->g.seeds, r->g.seeds, i, NH, &s);
            if (!s.seeds) {
                if (i == 0)
                    fprintf(fp, "| %s | – | 0 | – | – | – | – | – | – | – | – | %s | – | – |\n", r->var[v],
                            !transports(r->pos[v]) ? "no model has routelab's predictor yet"
                                                   : RL_PROSE_GRID_FARMASS_NO_PREDICTION_HH);
                continue;
            }
            const int decided = verdict_length(lens[i], T) && s.mixing > 0;
            char dm[64], dd[64], vm[128], vdl[64];
            if (!s.mixing)
                snprintf(vm, sizeof vm, "no prediction (no block mixes beyond T)");
            else if (!decided)
                snprintf(vm, sizeof vm, "shown, not decided");
            else if (s.mix.v == RL_V_UNRESOLVED && s.need_mix > 0)
                snprintf(vm, sizeof vm, "unresolved (%d seeds for 80%% power)", s.need_mix);
            else
                snprintf(vm, sizeof vm, "%s", rl_verdict_name(s.mix.v));
            snprintf(vdl, sizeof vdl, "%s", decided ? rl_verdict_name(s.dil.v) : "–");
            fprintf(fp, "| %s | %ldT | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d of %d | %s | %s | %s | %s |\n",
                    r->var[v], lens[i] / T, s.seeds, s.measured, s.mae[0], s.mae[1], s.mae[2], s.mae[3], s.mae[4],
                    s.mixing, NH, d_cell(dm, sizeof dm, &s.mix), vm, d_cell(dd, sizeof dd, &s.dil), vdl);
            rl_tsv_row(vt, "%s\t%ld\t%ld\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%.6g\t%.6g\t%.4g\t%s\t%.6g\t%.6g"
                           "\t%.4g\t%s",
                       r->var[v], lens[i], lens[i] / T, s.seeds, s.measured, s.mae[0], s.mae[1], s.mae[2], s.mae[3],
                       s.mae[4], s.mixing, s.mix.mean, s.mix.se, s.mix.x,
                       decided ? rl_verdict_name(s.mix.v) : "not decided", s.dil.mean, s.dil.se, s.dil.x,
                       decided ? rl_verdict_name(s.dil.v) : "not decided");
        }
    rl_tsv_close(vt);
}

/* The seed-mean, head-mean prediction of column j at length i, over the
 * seeds with routelab's predictor (n of them into *n). */
static double seed_head_mean(const model_fm *M, int K, int j, int i, int NH, int *n)
{
    double s = 0;
    *n = 0;
    for (int k = 0; k < K; k++)
        if (M[k].route) {
            s += head_mean(M[k].p[j], M[k].mixes, 0, i, NH);
            (*n)++;
        }
    return *n ? s / *n : NAN;
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

static void render_horizons(const rl_repro *r, FILE *fp, const rl_outdir *od, const model_fm *M, const long *lens,
                            int nlen, int NH, const double *newlr, int nall, int off)
{
    const int K = r->g.seeds;
    const long T = r->g.train.ctx;
    fprintf(fp, "\n" RL_PROSE_GRID_FARMASS_LOSS_HORIZONS
                "\n\n| variant | measured | routelab | dilution |\n|---|---|---|---|\n",
            RL_HORIZON_EFFECT, RL_HORIZON_FAR);
    rl_tsv *ht = rl_tsv_open(od, "loss_horizons.tsv", "variant\tseeds\tmeasured\tpredicted_route\tpredicted_dilution");
    for (int v = 0; v < r->nvar; v++) {
        double x[64 * RL_GRID_MAX_SEEDS];
        for (int i = 0; i < nlen; i++)
            for (int k = 0; k < K; k++)
                x[i * K + k] = newlr[((long)v * K + k) * nall + off + i];
        int und, n = 0, ht_i = -1, hd_i = -1;
        const int hm = rl_horizon_first(x, nlen, K, log(RL_HORIZON_EFFECT), &und);
        for (int i = 0; i < nlen; i++) {
            const double st = seed_head_mean(M + v * K, K, P_ROUTE, i, NH, &n),
                         sd = seed_head_mean(M + v * K, K, P_DILUTION, i, NH, &n);
            if (n && ht_i < 0 && st >= RL_HORIZON_FAR)
                ht_i = i;
            if (n && hd_i < 0 && sd >= RL_HORIZON_FAR)
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
}

static void render_figure(const rl_repro *r, FILE *fp, const rl_outdir *od)
{
    char names[2048];
    int o = 0;
    names[0] = 0;
    for (int v = 0; v < r->nvar && o < (int)sizeof names; v++)
        o += snprintf(names + o, sizeof names - o, v ? " %s" : "%s", r->var[v]);
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_I("ctx", r->g.train.ctx) };
    rl_plot(od, "reproduce_farpred", "farpred", vars, RL_NVARS(vars));
    fprintf(fp, "\n![Far mass predicted and measured](farpred.png)\n\n*" RL_PROSE_GRID_FARMASS_FIG_FARPRED "*\n\n");
}

void rl_repro_farmass_section(const rl_repro *r, FILE *fp, const rl_outdir *od, const double *newlr,
                              const long *lens_all, int nall)
{
    if (!r->g.farpred)
        return;
    const int nv = r->nvar, K = r->g.seeds, H = r->g.train.heads, NH = r->g.train.layers * H;
    const long T = r->g.train.ctx;
    long lens[64]; /* the lengths beyond T */
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
    int have = 0, route = 0;
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            read_model(r, v, k, lens, nlen, H, NH, &M[v * K + k]);
            have += M[v * K + k].ok;
            route += M[v * K + k].route;
        }
    fprintf(fp, "## Far mass predicted from within T (docs/theory/farpred.md#far-mass-prediction)\n\n");
    fprintf(fp, RL_PROSE_GRID_FARMASS_INTRO "\n\n",
            r->g.max_mult, have, nv * K, route);
    if (have == 0) {
        fprintf(fp, RL_PROSE_GRID_FARMASS_NO_MODEL "\n\n");
        free(M);
        return;
    }
    write_model_rows(r, od, M, lens, nlen, NH, H);
    render_bound(r, fp, M, nlen, NH);
    render_errors(r, fp, od, M, lens, nlen, NH);
    render_horizons(r, fp, od, M, lens, nlen, NH, newlr, nall, off);
    render_figure(r, fp, od);
    for (int i = 0; i < nv * K; i++)
        free_model(&M[i]);
    free(M);
}
