/* grid_report.c: table.tsv, figures and REPORT.md of a finished grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../base/core/paths.h"
#include "../../base/core/stats.h"
#include "../../base/core/util.h"
#include "../report/plot.h"
#include "../report/report.h"
#include "../report/tsv.h"
#include "grid_farmass.h"
#include "findings.h"
#include "horizon.h"
#include "order.h"
#include "orderings.h"
#include "positions.h"
#include "training.h"
#include "grid_report.h"
#include "trajectory.h"
#include "../../experiments/claims.h"
#include "../../model/scheme.h"
#include "../../model/train.h"
#include "../../theory/matched.h"
#include "../../theory/study.h"
#include "prose_reproduce.h"

#define MAXLEN 32

/* One model's evaluation: ppl and the standard error of the mean loss by
 * length. */
typedef enum { VC_UNAVAILABLE, VC_AGREE, VC_DISAGREE } valcheck;
static const char *const vc_name[] = { "unavailable", "agree", "disagree" };

typedef struct {
    int n;
    long len[MAXLEN], targets[MAXLEN];
    double loss[MAXLEN], se[MAXLEN], ppl[MAXLEN];
    /* the token-paired evaluation (model/evaluate.h): D(L) and its SE over
     * windows, the newest positions' D_new(L) and SE, the no-context loss;
     * NaN in an eval.tsv of the old protocol (no such columns), whose log
     * ratio is then loss(L) - loss(T) on other windows */
    double dlog[MAXLEN], dlog_se[MAXLEN], new_dlog[MAXLEN], new_se[MAXLEN], unigram[MAXLEN];
    /* eval's check of the loss at L = T against the final validation loss
     * (the L = T row's val_* columns): the validation loss, eval
     * loss - it, its SE, the verdict; NaN and unavailable when eval.tsv
     * has no such row or columns (an evaluation before the check) */
    double val, vdiff, vse;
    valcheck vc;
} evalrow;

/* The columns of eval.tsv the report reads, found by their header names
 * (so that an eval.tsv of the old protocol, without the paired columns,
 * still reads: those are NaN). */
enum { C_LEN, C_LOSS, C_SE, C_PPL, C_TARGETS, C_VAL, C_VDIFF, C_VSE, C_VCHECK, C_DLOG, C_DLOG_SE,
       C_NEW, C_NEW_SE, C_UNI, C_N };
static const char *const col_name[C_N] = { "length", "mean_loss", "stderr", "ppl", "targets", "val_loss",
                                           "val_diff", "val_diff_se", "val_check", "paired_logratio",
                                           "paired_se", "new_logratio", "new_se", "unigram_loss" };

/* eval.tsv of one model; the validation check is read from the row whose
 * length is T (ctx). */
static int read_eval(const char *path, long ctx, evalrow *e)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    memset(e, 0, sizeof *e);
    e->val = e->vdiff = e->vse = NAN;
    e->vc = VC_UNAVAILABLE;
    if (!f)
        return -1;
    char *c[64];
    int at[C_N];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    const int nh = rl_tsv_fields(line, c, 64);
    for (int k = 0; k < C_N; k++) {
        at[k] = -1;
        for (int j = 0; j < nh; j++)
            if (!strcmp(c[j], col_name[k]))
                at[k] = j;
    }
    if (at[C_LEN] < 0 || at[C_LOSS] < 0) {
        fclose(f);
        return -1;
    }
    while (e->n < MAXLEN && fgets(line, sizeof line, f)) {
        const int nc = rl_tsv_fields(line, c, 64);
        double x[C_N];
        for (int k = 0; k < C_N; k++)
            x[k] = at[k] >= 0 && at[k] < nc ? rl_tsv_num(c[at[k]]) : NAN;
        const double L = x[C_LEN];
        if (isnan(L) || L < 1)
            continue;
        const int i = e->n++;
        e->len[i] = (long)L;
        e->loss[i] = x[C_LOSS];
        e->se[i] = x[C_SE];
        e->ppl[i] = x[C_PPL];
        e->targets[i] = isnan(x[C_TARGETS]) ? 0 : (long)x[C_TARGETS];
        e->dlog[i] = x[C_DLOG];
        e->dlog_se[i] = x[C_DLOG_SE];
        e->new_dlog[i] = x[C_NEW];
        e->new_se[i] = x[C_NEW_SE];
        e->unigram[i] = x[C_UNI];
        if (e->len[i] == ctx && e->vc == VC_UNAVAILABLE && isnan(e->val) && at[C_VCHECK] >= 0 &&
            at[C_VCHECK] < nc) {
            e->val = x[C_VAL];
            e->vdiff = x[C_VDIFF];
            e->vse = x[C_VSE];
            const char *vc = c[at[C_VCHECK]];
            e->vc = !strcmp(vc, "agree") ? VC_AGREE : !strcmp(vc, "disagree") ? VC_DISAGREE : VC_UNAVAILABLE;
        }
    }
    fclose(f);
    return 0;
}

/* The index of length mult x the first length, or -1. */
static int len_index(const evalrow *e, long mult)
{
    for (int i = 0; i < e->n; i++)
        if (e->len[i] == e->len[0] * mult)
            return i;
    return -1;
}

/* The log ratio at mult: the token-paired D(L) where eval measured it, else
 * loss(L) - loss(T) (the old protocol); *se its SE over windows (the old:
 * both losses' SEs combined as independent). */
static double logratio_se(const evalrow *e, long mult, double *se)
{
    const int i = len_index(e, mult);
    if (i < 0) {
        *se = NAN;
        return NAN;
    }
    if (i == 0) {
        *se = 0;
        return 0;
    }
    if (!isnan(e->dlog[i])) {
        *se = e->dlog_se[i];
        return e->dlog[i];
    }
    *se = hypot(e->se[i], e->se[0]);
    return e->loss[i] - e->loss[0];
}

/* The newest positions' paired log ratio at mult (NaN where not measured). */
static double new_logratio(const evalrow *e, long mult, double *se)
{
    const int i = len_index(e, mult);
    *se = i < 0 ? NAN : e->new_se[i];
    return i < 0 ? NAN : e->new_dlog[i];
}

/* The ratio ppl(L)/ppl(T) = exp(log ratio) at mult, its SE by the delta method. */
static double ratio_at(const evalrow *e, long mult, double *se)
{
    double lse, l = logratio_se(e, mult, &lse);
    if (se)
        *se = exp(l) * lse;
    return exp(l);
}

static int find(const rl_repro *r, const char *name)
{
    for (int v = 0; v < r->nvar; v++)
        if (!strcmp(r->var[v], name))
            return v;
    return -1;
}

/* The summary table of the theory report (its first markdown table), with
 * its links pointed into theory/. */
static void copy_theory_summary(const rl_repro *r, FILE *fp)
{
    char *td = rl_path_join(r->out, "theory/theory.md");
    FILE *f = fopen(td, "r");
    free(td);
    if (!f) {
        fprintf(fp, "No theory report in this run (`--theory none`).\n\n");
        return;
    }
    char line[4096];
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '|') {
            in = 1;
            char *p = line;
            while ((p = strstr(p, "](#"))) {
                fprintf(fp, "%.*s](theory/theory.md#", (int)(p - line), line);
                memmove(line, p + 3, strlen(p + 3) + 1);
                p = line;
            }
            fputs(line, fp);
        } else if (in) {
            break;
        }
    }
    fclose(f);
    fputc('\n', fp);
}

static const char *fmt_ratio(char *buf, size_t n, double r, double se)
{
    if (isnan(r))
        return "–";
    if (isnan(se))
        snprintf(buf, n, "%.2f×", r);
    else
        snprintf(buf, n, "%.2f× ± %.2f", r, se);
    return buf;
}

/* The name of variant v in the report's tables: a control arm says so. */
static const char *row_name(const rl_repro *r, int v, char *buf, size_t n)
{
    if (r->control[v])
        snprintf(buf, n, "%s (control: base %.17g)", r->var[v], r->base[v]);
    else
        snprintf(buf, n, "%s", r->var[v]);
    return buf;
}

/* ---- seeds ---- */

/* The grid's models: ev[v * K + k] is variant v, seed k. */
typedef struct {
    const rl_repro *r;
    const evalrow *ev;
    int K;
} grid_evals;

static const evalrow *ev_of(const grid_evals *G, int v, int k)
{
    return &G->ev[v * G->K + k];
}

/* The log ratio of one model at mult (logratio_se); NaN when not evaluated there. */
static double logratio_at(const evalrow *e, long mult)
{
    double se;
    return logratio_se(e, mult, &se);
}

/* The per-seed log ratios of variant v at mult into x[0..K-1]. */
static void seed_logratios(const grid_evals *G, int v, long mult, double *x)
{
    for (int k = 0; k < G->K; k++)
        x[k] = logratio_at(ev_of(G, v, k), mult);
}

/* Mean ratio across seeds at mult, with the seed SE; with one seed the
 * ratio and its SE over evaluation windows (*over says which). */
static double mean_ratio(const grid_evals *G, int v, long mult, double *se, const char **over)
{
    if (G->K == 1) {
        *over = "windows";
        return ratio_at(ev_of(G, v, 0), mult, se);
    }
    double x[RL_GRID_MAX_SEEDS], m;
    for (int k = 0; k < G->K; k++)
        x[k] = ratio_at(ev_of(G, v, k), mult, NULL);
    rl_seed_mean_se(x, G->K, &m, se);
    *over = "seeds";
    return m;
}

/* Mean across seeds of the newest positions' paired ratio at mult (with
 * one seed: its SE over windows). */
static double mean_new_ratio(const grid_evals *G, int v, long mult, double *se)
{
    double x[RL_GRID_MAX_SEEDS], m, wse;
    for (int k = 0; k < G->K; k++)
        x[k] = exp(new_logratio(ev_of(G, v, k), mult, &wse));
    if (G->K == 1) {
        *se = x[0] * wse;
        return x[0];
    }
    rl_seed_mean_se(x, G->K, &m, se);
    return m;
}

/* The dynamic range of variant v: the no-context perplexity of the targets
 * at T, and exp(no-context loss - loss(T)), the ratio a model reaches that
 * loses every use of context (means over seeds). */
static double dyn_range(const grid_evals *G, int v, double *uppl)
{
    double u = 0, l = 0;
    for (int k = 0; k < G->K; k++) {
        u += ev_of(G, v, k)->unigram[0];
        l += ev_of(G, v, k)->loss[0];
    }
    *uppl = exp(u / G->K);
    return exp((u - l) / G->K);
}

/* Mean ppl at the evaluation length index i across seeds, likewise. */
static double mean_ppl(const grid_evals *G, int v, int i, double *se)
{
    if (G->K == 1) {
        const evalrow *e = ev_of(G, v, 0);
        *se = e->ppl[i] * e->se[i];
        return e->ppl[i];
    }
    double x[RL_GRID_MAX_SEEDS], m;
    for (int k = 0; k < G->K; k++)
        x[k] = ev_of(G, v, k)->ppl[i];
    rl_seed_mean_se(x, G->K, &m, se);
    return m;
}

/* ---- orderings ---- */

/* The study's ratio of variant name at mult into buf ("–" when the study
 * has none). */
static const char *study_cell(const char *name, long mult, char *buf, size_t n)
{
    const double x = rl_study_ratio(rl_study_find(name), mult);
    if (isnan(x))
        snprintf(buf, n, "–");
    else
        snprintf(buf, n, "%.2f×", x);
    return buf;
}

/* What an entry compares, with the study's ratios at the entry's multiple
 * (theory/study.h) and the expectation written in the registry. */
static void order_note(const rl_ordering *e, const char *a, char *note, size_t n)
{
    const long sm = rl_ordering_study_mult(e);
    char sa[32], sb[32];
    int off = 0;
    switch (e->kind) {
    case RL_ORDK_ABOVE:
        off = snprintf(note, n, "log ratio of %s − that of %s (study at %ld×: %s vs %s)", a, e->b, sm,
                       study_cell(a, sm, sa, sizeof sa), study_cell(e->b, sm, sb, sizeof sb));
        break;
    case RL_ORDK_POSITIVE:
        off = snprintf(note, n, "log ratio above 0 (study at %ld×: %s)", sm, study_cell(a, sm, sa, sizeof sa));
        break;
    case RL_ORDK_BELOW:
        off = snprintf(note, n, "log ratio against log %g (study at %ld×: %s)", e->threshold, sm,
                       study_cell(a, sm, sa, sizeof sa));
        break;
    case RL_ORDK_RANK:
        off = snprintf(note, n, RL_PROSE_GRID_REPORT_KENDALL, a, e->threshold);
        break;
    }
    if (e->expect && off < (int)n)
        snprintf(note + off, n - off, "; expected: %s", e->expect);
}

/* The seeds-needed cell of a row: for an unresolved one, the K of
 * rl_order_seeds_needed at the measured mean and sd (power 0.8) with the
 * outcome it targets; *kn (-1: never within 1000; 0: not computed) and
 * *target for orderings.tsv. */
static void needed_cell(const rl_ordering *e, const rl_order *o, char *cell, size_t n, int *kn,
                        const char **target)
{
    *kn = 0;
    *target = "NA";
    if (o->v != RL_V_UNRESOLVED) {
        snprintf(cell, n, "—");
        return;
    }
    if (o->k < 2) {
        snprintf(cell, n, "– (one seed: no seed sd)");
        return;
    }
    if (isnan(o->mean) || isnan(o->se)) {
        snprintf(cell, n, "– (a value missing)");
        return;
    }
    const double sd = o->se * sqrt((double)o->k);
    rl_verdict t;
    /* below: the effect toward holds is log(threshold) - mean, no equivalence outcome */
    const int k = e->kind == RL_ORDK_BELOW  ? rl_order_seeds_needed(log(e->threshold) - o->mean, sd, 0, 0.8, 1000, &t)
                  : e->kind == RL_ORDK_RANK ? rl_order_seeds_needed(o->mean - e->threshold, sd, 0, 0.8, 1000, &t)
                                            : rl_order_seeds_needed(o->mean, sd, o->delta, 0.8, 1000, &t);
    *kn = k;
    if (k < 0) {
        snprintf(cell, n, "> 1000");
        return;
    }
    *target = rl_verdict_name(t);
    snprintf(cell, n, "%d (%s)", k, *target);
}

/* The rows of the orderings table as findings.h reads them, gathered
 * while the table is written and grouped above it. */
#define MAX_FROWS 256
typedef struct {
    int n;
    rl_finding_row row[MAX_FROWS];
    char name[MAX_FROWS][160]; /* row[i].what: a copy (a per-variant row's name is a local buffer) */
} frows;

static void frow_push(frows *f, const char *what, const char *a, const char *b, long mult, int corr,
                      const double *x, int K, rl_verdict v)
{
    if (f->n >= MAX_FROWS)
        return;
    rl_finding_row *w = &f->row[f->n++];
    snprintf(f->name[f->n - 1], sizeof f->name[0], "%s", what);
    w->what = f->name[f->n - 1], w->a = a, w->b = b, w->mult = mult, w->corr = corr, w->k = K, w->v = v;
    for (int k = 0; k < K; k++)
        w->x[k] = x[k];
}

/* One ordering: a row of REPORT.md's table and of orderings.tsv.  x: the
 * per-seed statistic the decision read (K values); note: what the row
 * compares, the study's numbers, the expectation. */
static void order_row(FILE *fp, rl_tsv *t, const grid_evals *G, const rl_ordering *e, const char *what, long mult,
                      const double *x, const rl_order *o, const char *note)
{
    char per[1024] = "", tper[1024] = "";
    int off = 0, toff = 0;
    for (int k = 0; k < G->K && off < (int)sizeof per - 40; k++) {
        off += snprintf(per + off, sizeof per - off, "%s%+.3f", k ? ", " : "", x[k]);
        toff += snprintf(tper + toff, sizeof tper - toff, "%s%.6g", k ? "," : "", x[k]);
    }
    char ms[96], ds[32], xs[96], need[96];
    if (isnan(o->se))
        snprintf(ms, sizeof ms, "%+.3f (one seed: no seed SE)", o->mean);
    else
        snprintf(ms, sizeof ms, "%+.3f ± %.3f", o->mean, o->se);
    const int effect = e->kind != RL_ORDK_BELOW && e->kind != RL_ORDK_RANK;
    if (effect) {
        snprintf(ds, sizeof ds, "%.3f", o->delta);
        snprintf(xs, sizeof xs, "%.2f [%.2f, %.2f]", o->x, o->x_lo, o->x_hi);
    } else {
        snprintf(ds, sizeof ds, "–");
        snprintf(xs, sizeof xs, "%.2f", o->x);
    }
    int kn;
    const char *target;
    needed_cell(e, o, need, sizeof need, &kn, &target);
    fprintf(fp, "| %s | %ld× | %s | %s | %s | %s | %s | **%s** | %s | %s | %s |\n", what, mult, per, ms, ds, xs,
            o->rule, rl_verdict_name(o->v), rl_verdict_name(e->expected), need, note);
    if (o->v == RL_V_UNRESOLVED) /* said on the terminal too: what the next run would need */
        printf("reproduce: unresolved: %s at %ld×: mean %+.4f, SE %.4f over %d seed%s; seeds needed: %s\n", what,
               mult, o->mean, o->se, o->k, o->k == 1 ? "" : "s", need);
    char kcell[16];
    if (kn)
        snprintf(kcell, sizeof kcell, "%d", kn);
    else
        snprintf(kcell, sizeof kcell, "NA");
    rl_tsv_row(t, "%s\t%ld\t%d\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%s\t%s\t%s\t%s", what, mult, o->k, tper,
               o->mean, o->se, o->delta, o->x, o->x_lo, o->x_hi, o->rule, rl_verdict_name(o->v),
               rl_verdict_name(e->expected), kcell, target);
}

/* The decision of entry e for variant ia (and ib) at multiple m: the
 * per-seed statistic into d[0..K-1] (from seed_logratios), the rule's
 * outcome; unresolved when the grid stops short of the multiple the entry
 * is about.  Shared by the orderings and the trajectory's stages. */
static rl_order decide(const grid_evals *G, const rl_ordering *e, int ia, int ib, long m, double *d)
{
    const int K = G->K;
    double a[RL_GRID_MAX_SEEDS], b[RL_GRID_MAX_SEEDS];
    rl_order o;
    seed_logratios(G, ia, m, a);
    switch (e->kind) {
    case RL_ORDK_ABOVE:
        seed_logratios(G, ib, m, b);
        for (int k = 0; k < K; k++)
            d[k] = a[k] - b[k];
        o = rl_order_above_delta(a, b, K, e->delta);
        break;
    case RL_ORDK_POSITIVE:
        memcpy(d, a, sizeof *d * K);
        o = rl_order_effect(a, K, e->delta);
        break;
    default:
        memcpy(d, a, sizeof *d * K);
        o = rl_order_below(a, K, log(e->threshold));
        break;
    }
    /* a grid stopping short of the multiple the ordering is about cannot show it */
    if (e->needs > 0 && G->r->g.max_mult < e->needs)
        o.v = RL_V_UNRESOLVED;
    return o;
}

/* Whether the grid reaches the multiple entry e is about: a grid that stops
 * short of it (the quick grid's 32x against a "degrades by 128x" row) can
 * never decide it, whatever its numbers, so the row is not shown as one of
 * its results but named beneath the table. */
static int grid_reaches(const rl_repro *r, const rl_ordering *e)
{
    return !(e->needs > 0 && r->g.max_mult < e->needs);
}

/* The names of the rows a grid cannot reach, "a; b; c" (one line beneath
 * the table). */
typedef struct {
    char text[2048];
    int n;
} unreached;

static void unreached_add(unreached *u, const char *what)
{
    const size_t off = strlen(u->text);
    if (off < sizeof u->text)
        snprintf(u->text + off, sizeof u->text - off, "%s%s", u->n++ ? "; " : "", what);
}

/* One entry of the registry read for variant a (and e->b): the per-seed
 * statistic and the decision (decide), the row; only named in u when the
 * grid does not reach its multiple. */
static void order_entry(FILE *fp, rl_tsv *t, frows *f, unreached *u, const grid_evals *G, const rl_ordering *e,
                        int ia, int ib, const char *what)
{
    const rl_repro *r = G->r;
    const int K = G->K;
    if (!grid_reaches(r, e)) {
        unreached_add(u, what);
        return;
    }
    const long mtop = r->g.max_mult, m = rl_ordering_mult(e, mtop);
    double d[RL_GRID_MAX_SEEDS];
    const rl_order o = decide(G, e, ia, ib, m, d);
    char note[768];
    order_note(e, r->var[ia], note, sizeof note);
    order_row(fp, t, G, e, what, m, d, &o, note);
    frow_push(f, what, r->var[ia], e->kind == RL_ORDK_ABOVE ? r->var[ib] : NULL, m, 1, d, K, o.v);
}

/* The rank entry: per seed, Kendall's tau_b between the mix-or-stay score
 * of each model that has one (its horizon.tsv) and its log ratio at the
 * entry's multiple, over the variants with both; rule rank across seeds. */
static void rank_entry(FILE *fp, rl_tsv *t, frows *f, const grid_evals *G, const rl_ordering *e)
{
    const rl_repro *r = G->r;
    const int K = G->K;
    const long m = rl_ordering_mult(e, r->g.max_mult);
    double tau[RL_GRID_MAX_SEEDS], lr[RL_GRID_MAX_SEEDS];
    double *sc = rl_xmalloc(sizeof(double) * r->nvar), *y = rl_xmalloc(sizeof(double) * r->nvar);
    char names[512] = "";
    int nn = 0, n0 = 0;
    for (int k = 0; k < K; k++) {
        int n = 0;
        for (int v = 0; v < r->nvar; v++) {
            /* PaTH's transport reading keeps the first harmonic only, a lower
             * bound on another scale than the SO(2) laws' Watson distances
             * (docs/model/path-transport.md#path-mix-or-stay): reported by horizon, not ranked */
            rl_pos_config pc;
            char perr[256];
            if (rl_pos_parse(r->pos[v], -1, &pc, perr, sizeof perr) == 0 && pc.path)
                continue;
            const double s = rl_repro_mixstay_score(r, v, k);
            seed_logratios(G, v, m, lr);
            if (isnan(s) || isnan(lr[k]))
                continue;
            sc[n] = s;
            y[n++] = lr[k];
            if (k == 0) {
                nn += snprintf(names + nn, sizeof names - nn > 0 ? sizeof names - nn : 0, "%s%s", nn ? ", " : "",
                               r->var[v]);
                n0++;
            }
        }
        tau[k] = n >= 3 ? rl_kendall_tau_b(sc, y, n) : NAN;
    }
    free(sc);
    free(y);
    if (n0 < 3) { /* tau_b orders three variants at least: said, not decided */
        /* the row's cells up to its note, the same for both reasons */
#define RANK_ABSENT_ROW "| %s | %ld× | – | – | – | – | %s | **not in this grid** | %s | — | "
        if (!n0)
            fprintf(fp, RANK_ABSENT_ROW RL_PROSE_GRID_REPORT_RANK_NO_SCORE " |\n",
                    e->what, m, rl_ordering_rule(e)->id, rl_verdict_name(e->expected));
        else
            fprintf(fp, RANK_ABSENT_ROW RL_PROSE_GRID_REPORT_RANK_TOO_FEW " |\n",
                    e->what, m, rl_ordering_rule(e)->id, rl_verdict_name(e->expected), n0, n0 == 1 ? "" : "s", names);
#undef RANK_ABSENT_ROW
        return;
    }
    const rl_order o = rl_order_rank(tau, K, e->threshold);
    char note[768];
    order_note(e, names, note, sizeof note);
    order_row(fp, t, G, e, e->what, m, tau, &o, note);
    frow_push(f, e->what, "(rank)", NULL, m, 0, tau, K, o.v);
}

/* The findings above the orderings table (findings.h): one line each, its
 * verdict (the rows' common one, or mixed with the counts) and its rows. */
static void findings_lines(FILE *fp, const frows *f)
{
    if (!f->n)
        return;
    int *g = rl_xmalloc(sizeof(int) * f->n);
    const int ng = rl_findings_group(f->row, f->n, g);
    fprintf(fp, RL_PROSE_GRID_REPORT_FINDINGS "\n\n",
            ng, ng == 1 ? "" : "s", f->n, f->n == 1 ? "" : "s", RL_FINDINGS_R, RL_FINDINGS_MIN_SEEDS);
    for (int k = 0; k < ng; k++) {
        int c[RL_NVERDICT];
        const rl_verdict v = rl_findings_verdict(f->row, f->n, g, k, c);
        fprintf(fp, "%d. **", k + 1);
        if (v == RL_NVERDICT) {
            fputs("mixed:", fp);
            for (int j = 0; j < RL_NVERDICT; j++)
                if (c[j])
                    fprintf(fp, " %d %s", c[j], rl_verdict_name(j));
        } else {
            fputs(rl_verdict_name(v), fp);
        }
        fputs("**:", fp);
        int first = 1;
        for (int i = 0; i < f->n; i++)
            if (g[i] == k) {
                fprintf(fp, "%s %s (%ld×)", first ? "" : ";", f->row[i].what, f->row[i].mult);
                first = 0;
            }
        fputs("\n", fp);
    }
    fputs("\n", fp);
    free(g);
}

/* The study's orderings, the entries of the registry (orderings.h) in its
 * order, each decided on seed-level statistics (order.h): between two
 * variants the per-seed difference of their log ratios (same seed, same
 * windows); for one variant its per-seed log ratio. */
static void orderings_section(FILE *fp, const grid_evals *G)
{
    const rl_repro *r = G->r;
    const int K = G->K;
    const rl_outdir od = { r->out };
    rl_tsv *t = rl_tsv_open(&od, "orderings.tsv", "ordering\tmult\tseeds\tper_seed\tmean\tse\tdelta\tx\tx_lo\tx_hi\t"
                                                  "rule\tverdict\texpected\tseeds_needed\ttarget");
    fprintf(fp, "## The study's orderings in this run\n\n" RL_PROSE_GRID_REPORT_ORDERINGS_INTRO "\n\n",
            K, K == 1 ? "" : "s", rl_repro_seed(r, 0), rl_repro_seed(r, K - 1),
            K == 1 ? RL_PROSE_GRID_REPORT_ONE_SEED
                   : "");
    /* the table is written to memory and printed beneath the findings it
     * is grouped into */
    char *tabbuf = NULL;
    size_t tablen = 0;
    FILE *tab = open_memstream(&tabbuf, &tablen);
    if (!tab)
        rl_fatal("out of memory for the orderings table");
    frows *f = rl_xcalloc(1, sizeof *f);
    unreached *u = rl_xcalloc(1, sizeof *u);
    fprintf(tab, "| ordering | at | per seed | mean ± SE | δ | x [x_lo, x_hi] | rule | verdict | expected | seeds "
                 "needed | compares |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < rl_norderings; i++) {
        const rl_ordering *e = &rl_orderings[i];
        if (!rl_ordering_applies(e, r->g.name)) /* another grid's own question */
            continue;
        if (e->kind == RL_ORDK_RANK) {
            rank_entry(tab, t, f, G, e);
            continue;
        }
        if (!e->a) {
            /* every rotation-only variant of the grid (controls included) */
            for (int v = 0; v < r->nvar; v++) {
                if (!rl_ordering_rotation_only(r->pos[v]))
                    continue;
                char what[160];
                snprintf(what, sizeof what, e->what, r->var[v]);
                order_entry(tab, t, f, u, G, e, v, -1, what);
            }
            continue;
        }
        const int ia = find(r, e->a), ib = e->kind == RL_ORDK_ABOVE ? find(r, e->b) : 0;
        if (ia < 0 || ib < 0) /* a variant not in this grid */
            continue;
        order_entry(tab, t, f, u, G, e, ia, ib, e->what);
    }
    if (u->n)
        fprintf(tab, "\n" RL_PROSE_GRID_REPORT_NOT_IN_GRID "\n",
                r->g.max_mult, u->n == 1 ? "this row is" : "these rows are", u->n == 1 ? "it" : "them", u->text);
    rl_tsv_close(t);
    fclose(tab);
    findings_lines(fp, f);
    fputs(tabbuf, fp);
    free(tabbuf);
    free(f);
    free(u);
    fprintf(fp, "\n" RL_PROSE_GRID_REPORT_RULES "\n\n",
            rl_rule_effect.id, RL_ORDER_DELTA, rl_rule_effect.text, rl_rule_below.id, rl_rule_below.text);
}

/* The theory report's verdicts on the experiments of one claim (a
 * NULL-terminated list; holds and verified counted apart), with every
 * contradicted, unresolved or no-prediction check spelled out. */
static void theory_checks(const rl_repro *r, FILE *fp, const char *const *exps)
{
    char *p = rl_path_join(r->out, "theory/checks.tsv");
    FILE *f = fopen(p, "r");
    free(p);
    if (!f) {
        fprintf(fp, "(no theory report in this run) ");
        return;
    }
    char line[4096];
    static char fails[1 << 14];
    for (; *exps; exps++) {
        const char *exp = *exps;
        int n[RL_NVERDICT] = { 0 }, off = 0;
        size_t len = strlen(exp);
        fails[0] = 0;
        rewind(f);
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, exp, len) || line[len] != '\t')
                continue;
            /* experiment, verdict, rule, check, predicted, measured */
            char *col[6] = { line };
            int nc = 1;
            for (char *q = line; nc < 6 && (q = strchr(q, '\t')); q++) {
                *q = 0;
                col[nc++] = q + 1;
            }
            if (nc < 6)
                continue;
            col[5][strcspn(col[5], "\n")] = 0;
            int k = 0;
            while (k < RL_NVERDICT && strcmp(col[1], rl_verdict_name(k)))
                k++;
            if (k == RL_NVERDICT)
                continue;
            n[k]++;
            if ((k == RL_V_CONTRADICTED || k == RL_V_UNRESOLVED || k == RL_V_NOPRED) && off < (int)sizeof fails - 600)
                off += snprintf(fails + off, sizeof fails - off, "%s%s: %s (predicted %s; measured %s)", off ? "; " : "",
                                rl_verdict_name(k), col[3], col[4], col[5]);
        }
        char ph[256];
        fprintf(fp, "Monte Carlo (`theory/theory.md#%s`): %s%s%s. ", exp, rl_report_kinds_phrase(n, ph, sizeof ph),
                off ? ": " : "", off ? fails : "");
    }
    fclose(f);
}

/* Mean far mass and bound over the layers and heads of one probed model, at
 * its longest probed length and the largest W <= the training context. */
static int probe_summary(const rl_repro *r, int v, double *rho, double *bound, long *len, long *w)
{
    char *d = rl_repro_model_dir(r, v, 0), *p = rl_path_join(d, "probe/probe.tsv");
    FILE *f = fopen(p, "r");
    free(p);
    free(d);
    if (!f)
        return 0;
    char line[1024];
    long bl = 0, bw = 0;
    double sr = 0, sb = 0;
    int cnt = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        long L, W;
        int layer, head;
        double fm, fse, b;
        if (sscanf(line, "%ld\t%d\t%d\t%ld\t%lf\t%lf\t%lf", &L, &layer, &head, &W, &fm, &fse, &b) != 7)
            continue;
        if (W > r->g.train.ctx)
            continue;
        if (L > bl || (L == bl && W > bw)) {
            bl = L;
            bw = W;
            sr = sb = 0;
            cnt = 0;
        }
        if (L == bl && W == bw) {
            sr += fm;
            sb += b;
            cnt++;
        }
    }
    fclose(f);
    if (!cnt)
        return 0;
    *rho = sr / cnt;
    *bound = sb / cnt;
    *len = bl;
    *w = bw;
    return 1;
}

/* What the trained models of this grid add to claim 3: the probed far mass
 * against its bound, and the distance bias's ratio at the longest multiple. */
static void claim3_models(const grid_evals *G, FILE *fp)
{
    const rl_repro *r = G->r;
    for (int v = 0; v < r->nvar; v++) {
        double rho, b;
        long L, W;
        if (probe_summary(r, v, &rho, &b, &L, &W))
            fprintf(fp, RL_PROSE_GRID_REPORT_PROBE_MEAN " ", r->var[v], L, W, rho, b);
    }
    int ial = find(r, "alibi");
    if (ial >= 0) {
        double s;
        const char *over;
        double x = mean_ratio(G, ial, r->g.max_mult, &s, &over);
        fprintf(fp, RL_PROSE_GRID_REPORT_ALIBI_RATIO, (long)r->g.max_mult, x, s, over);
    }
}

/* ... to claim 4: each registered rotation's qk / qkv pair (without ALiBi)
 * at the longest multiple, value transport's effect on the log ratio. */
static void claim4_models(const grid_evals *G, FILE *fp)
{
    const rl_repro *r = G->r;
    const long mtop = r->g.max_mult;
    for (const rl_scheme *const *sc = rl_schemes; *sc; sc++) {
        const char *const *pair = (*sc)->names[0];
        int a = pair[1] ? find(r, pair[0]) : -1, b = pair[1] ? find(r, pair[1]) : -1;
        if (a < 0 || b < 0)
            continue;
        double sa, sb;
        const char *over;
        double xa = mean_ratio(G, a, mtop, &sa, &over), xb = mean_ratio(G, b, mtop, &sb, &over);
        double la[RL_GRID_MAX_SEEDS], lb[RL_GRID_MAX_SEEDS];
        seed_logratios(G, a, mtop, la);
        seed_logratios(G, b, mtop, lb);
        rl_order o = rl_order_above(la, lb, G->K);
        fprintf(fp, RL_PROSE_GRID_REPORT_VALUE_TRANSPORT " ",
                mtop, pair[0], xa, sa, pair[1], xb, sb, over, o.mean, o.se, o.rule, rl_verdict_name(o.v));
    }
}

/* ... to claim 5: the orderings section is its trained-model half. */
static void claim5_models(const grid_evals *G, FILE *fp)
{
    (void)G;
    fprintf(fp, "Its trained-model half: the orderings above.");
}

/* A paragraph per claim number of the claims table (experiments/claims.c),
 * titled by its first row: the theory report's verdicts on every row of that
 * number, then what this grid's trained models add where they bear on it. */
static void claims_section(const grid_evals *G, FILE *fp)
{
    static const struct {
        int number;
        void (*models)(const grid_evals *G, FILE *fp);
    } adds[] = { { 3, claim3_models }, { 4, claim4_models }, { 5, claim5_models } };
    fprintf(fp, "## Claim by claim\n\n");
    for (int i = 0; i < rl_nclaims; i++) {
        const int num = rl_claims[i].number;
        if (i && rl_claims[i - 1].number == num)
            continue; /* the table lists a claim's rows together */
        const char *ids[rl_nclaims + 1];
        int n = 0;
        for (int j = i; j < rl_nclaims && rl_claims[j].number == num; j++)
            ids[n++] = rl_claims[j].id;
        ids[n] = NULL;
        fprintf(fp, "%s**%d. %s.** ", i ? "\n\n" : "", num, rl_claims[i].title);
        theory_checks(G->r, fp, ids);
        for (size_t k = 0; k < sizeof adds / sizeof *adds; k++)
            if (adds[k].number == num)
                adds[k].models(G, fp);
    }
    fprintf(fp, "\n");
}

/* ---- ppl(T) against the final validation loss ---- */

/* The cell of variant v: agree for every seed, or each disagreeing (and
 * unavailable) seed spelled out; counts into n[VC_*]. */
static void val_cell(const grid_evals *G, int v, char *cell, size_t len, int *n)
{
    int c[3] = { 0 }, off = 0;
    for (int k = 0; k < G->K; k++)
        c[ev_of(G, v, k)->vc]++;
    for (int i = 0; i < 3; i++)
        n[i] += c[i];
    cell[0] = 0;
    if (c[VC_AGREE] == G->K) {
        snprintf(cell, len, "agree (%d/%d)", G->K, G->K);
        return;
    }
    if (c[VC_DISAGREE])
        off += snprintf(cell + off, len - off, "**disagree**");
    for (int k = 0, j = 0; k < G->K && off < (int)len - 80; k++) {
        const evalrow *e = ev_of(G, v, k);
        if (e->vc == VC_DISAGREE)
            off += snprintf(cell + off, len - off, "%s seed %ld: %+.3f ± %.3f", j++ ? "," : "",
                            rl_repro_seed(G->r, k), e->vdiff, e->vse);
    }
    if (c[VC_UNAVAILABLE])
        off += snprintf(cell + off, len - off, "%sunavailable for %d/%d", off ? "; " : "", c[VC_UNAVAILABLE], G->K);
    if (c[VC_AGREE])
        snprintf(cell + off, len - off, "; agree %d/%d", c[VC_AGREE], G->K);
}

/* valcheck.tsv: every model's check; returns the counts in n[VC_*]. */
static void val_table(const grid_evals *G, int *n)
{
    const rl_repro *r = G->r;
    const rl_outdir od = { r->out };
    rl_tsv *t = rl_tsv_open(&od, "valcheck.tsv", "variant\tseed\teval_loss_T\tval_loss\tval_diff\tval_diff_se"
                                                 "\tval_check");
    for (int v = 0; v < r->nvar; v++)
        for (int k = 0; k < G->K; k++) {
            const evalrow *e = ev_of(G, v, k);
            rl_tsv_row(t, "%s\t%ld\t%.6f\t%.6f\t%.6f\t%.6f\t%s", r->var[v], rl_repro_seed(r, k), e->loss[0],
                       e->val, e->vdiff, e->vse, vc_name[e->vc]);
            n[e->vc]++;
        }
    rl_tsv_close(t);
}

/* A seed whose every variant disagrees, all with one sign, points at the
 * text that seed's windows read, not at a training: the variants of a seed
 * share their windows (paired), not their weights' fate. The windows' SE
 * treats windows as independent, while a seed's windows come from a few
 * contiguous spans; their shared offset is what the sentence names. */
static void seed_text_line(FILE *fp, const grid_evals *G)
{
    const rl_repro *r = G->r;
    if (r->nvar < 2)
        return;
    for (int k = 0; k < G->K; k++) {
        int dis = 0, pos = 0;
        double lo = 1e300, hi = -1e300;
        for (int v = 0; v < r->nvar; v++) {
            const evalrow *e = ev_of(G, v, k);
            dis += e->vc == VC_DISAGREE;
            pos += e->vdiff > 0;
            lo = e->vdiff < lo ? e->vdiff : lo;
            hi = e->vdiff > hi ? e->vdiff : hi;
        }
        if (dis == r->nvar && (pos == 0 || pos == r->nvar))
            fprintf(fp, " " RL_PROSE_GRID_REPORT_SEED_TEXT,
                    rl_repro_seed(r, k), lo, hi, pos ? "harder" : "easier");
    }
}

/* The summary line: what the ratios divide by, and how many models' ppl(T)
 * agree with their final validation loss. */
static void val_line(FILE *fp, const grid_evals *G, const int *n)
{
    const rl_repro *r = G->r;
    const int M = r->nvar * G->K;
    fprintf(fp, RL_PROSE_GRID_REPORT_DENOMINATOR,
            n[VC_DISAGREE] ? "DISAGREE for some models" : n[VC_UNAVAILABLE] ? "incomplete" : "all agree",
            n[VC_AGREE], M, n[VC_DISAGREE]);
    int first = 1;
    for (int v = 0; v < r->nvar; v++)
        for (int k = 0; k < G->K; k++)
            if (ev_of(G, v, k)->vc == VC_DISAGREE) {
                fprintf(fp, "%s%s seed %ld", first ? " (" : ", ", r->var[v], rl_repro_seed(r, k));
                first = 0;
            }
    fprintf(fp, "%s, unavailable for %d.", first ? "" : ")", n[VC_UNAVAILABLE]);
    seed_text_line(fp, G);
    fprintf(fp, "\n\n");
}

/* ---- the matched scale ---- */

static void frac(char *buf, size_t n, int c, int nb)
{
    snprintf(buf, n, "%d of %d (%.4f)", c, nb, (double)c / nb);
}

/* One row: a configuration's blocks mixing within T and mult T at base. */
static void matched_row(FILE *fp, const char *what, int d, long T, double base, const char *used, rl_err *err)
{
    const long mult = rl_study_mult();
    int c1, c2;
    char a[64], b[64];
    if (rl_match_count(d, base, RL_GRID_MATCH_EPS, T, &c1, err) ||
        rl_match_count(d, base, RL_GRID_MATCH_EPS, T * mult, &c2, err)) {
        fprintf(fp, "| %s | %d | %ld | %.6g | – | – | %s (%s) |\n", what, d, T, base, used, err->msg);
        return;
    }
    frac(a, sizeof a, c1, d / 2);
    frac(b, sizeof b, c2, d / 2);
    fprintf(fp, "| %s | %d | %ld | %.6g | %s | %s | %s |\n", what, d, T, base, a, b, used);
}

/* The variants trained with base b, as a list (or "none"). */
static const char *users(const rl_repro *r, double b, char *buf, size_t n)
{
    int off = 0;
    buf[0] = 0;
    for (int v = 0; v < r->nvar && off < (int)n - 40; v++)
        if (r->base[v] == b)
            off += snprintf(buf + off, n - off, "%s%s", off ? ", " : "", r->var[v]);
    if (!off)
        snprintf(buf, n, "none of this grid's models");
    return buf;
}

/* The fractions of SO(2) blocks that mix within T and 128T (theory/
 * matched.h): the study's, this grid's at the study's base, at the base the
 * theory chooses for its head dim and T, and at every other base trained. */
static void matched_section(FILE *fp, const rl_repro *r)
{
    const rl_train_opts *t = &r->g.train;
    const int d = t->width / t->heads;
    const long T = t->ctx, mult = rl_study_mult();
    rl_err err;
    char u[1024];
    fprintf(fp, "## The matched scale\n\n" RL_PROSE_GRID_REPORT_MATCHED,
            mult, RL_GRID_MATCH_EPS, r->g.train.rot_base,
            r->g.matched ? "the matched base below" : "the study's; not the matched scale");
    int nc = 0;
    for (int v = 0; v < r->nvar; v++)
        nc += r->control[v];
    if (nc) {
        fprintf(fp, "; control arms with their own base:");
        for (int v = 0, j = 0; v < r->nvar; v++)
            if (r->control[v])
                fprintf(fp, "%s %s", j++ ? "," : "", r->var[v]);
    }
    fprintf(fp, ".\n\n| configuration | head dim | T | base | blocks mixing within T | within %ldT | trained here (a scheme without rotations ignores its base) |\n"
                "|---|---|---|---|---|---|---|\n", mult);
    matched_row(fp, "the study", RL_STUDY_HEAD_DIM, rl_study_lengths[0], RL_STUDY_BASE, "(the study's models)", &err);
    matched_row(fp, "this grid at the study's base", d, T, RL_STUDY_BASE, users(r, RL_STUDY_BASE, u, sizeof u),
                &err);
    rl_match m;
    if (rl_grid_match(&r->g, &m, &err) == RL_OK) {
        char what[160];
        snprintf(what, sizeof what, RL_PROSE_GRID_REPORT_MATCHED_BASE, m.cost, m.lo, m.hi);
        matched_row(fp, what, d, T, m.base, users(r, m.base, u, sizeof u), &err);
    } else {
        fprintf(fp, "| the matched base | %d | %ld | – | – | – | not available: %s |\n", d, T, err.msg);
        m.base = NAN;
    }
    for (int v = 0; v < r->nvar; v++) {
        int seen = r->base[v] == RL_STUDY_BASE || r->base[v] == m.base;
        for (int w = 0; w < v; w++)
            seen |= r->base[w] == r->base[v];
        if (!seen)
            matched_row(fp, "this grid at another base", d, T, r->base[v], users(r, r->base[v], u, sizeof u), &err);
    }
    fprintf(fp, "\n");
}

/* Every model's eval.tsv into ev[v * K + k]: each must be there, with the
 * lengths of the first seed's. */
/* Whether the grid's evaluations are token-paired (model/evaluate.h): the
 * first model's eval.tsv has the paired columns. */
static int paired_evals(const grid_evals *G)
{
    const evalrow *e00 = ev_of(G, 0, 0);
    return e00->n > 1 && !isnan(e00->dlog[1]);
}

/* Every model's evaluation at stage step (rl_repro_stages; the final
 * model's eval.tsv at the run's last step). */
static void read_evals_at(const rl_repro *r, evalrow *ev, long step)
{
    const int nv = r->nvar, K = r->g.seeds;
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            char *d = rl_repro_model_dir(r, v, k), *p = rl_repro_stage_eval(r, v, k, step);
            evalrow *e = &ev[v * K + k];
            if (read_eval(p, r->g.train.ctx, e) != 0 || e->n == 0)
                rl_die("reproduce: %s is missing or empty; run the grid first", p);
            if (e->n != ev[v * K].n || e->len[0] != ev[v * K].len[0])
                rl_die("reproduce: %s has other lengths than seed %ld's; run the grid first", p, rl_repro_seed(r, 0));
            free(p);
            free(d);
        }
}

/* The final models' evaluations (eval.tsv). */
static void read_evals(const rl_repro *r, evalrow *ev)
{
    read_evals_at(r, ev, rl_repro_steps(r));
}

/* table.tsv (every model) and summary.tsv (across seeds). */
static void write_tables(const grid_evals *G, const rl_outdir *od)
{
    const rl_repro *r = G->r;
    const int nv = r->nvar, K = r->g.seeds;
    rl_tsv *t = rl_tsv_open(od, "table.tsv", "variant\tseed\tlength\tmult\tmean_loss\tstderr\tppl\tratio\tratio_se"
                                              "\tstudy_ppl\tstudy_ratio\tnew_ratio\tnew_ratio_se\tunigram_loss");
    rl_tsv *sm = rl_tsv_open(od, "summary.tsv", "variant\tlength\tmult\tseeds\tppl\tppl_se\tratio\tratio_se\tse_over"
                                                 "\tstudy_ppl\tstudy_ratio\tnew_ratio\tnew_ratio_se\tunigram_ppl"
                                                 "\trange");
    for (int v = 0; v < nv; v++) {
        const rl_study_row *s = rl_study_find(r->var[v]);
        const evalrow *e0 = ev_of(G, v, 0);
        for (int k = 0; k < K; k++) {
            const evalrow *e = ev_of(G, v, k);
            for (int i = 0; i < e->n; i++) {
                long mult = e->len[i] / e->len[0];
                double se, ra = ratio_at(e, mult, &se), nse, nl = new_logratio(e, mult, &nse);
                double sr = rl_study_ratio(s, mult), sp = isnan(sr) ? NAN : sr * s->ppl[0];
                rl_tsv_row(t, "%s\t%ld\t%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\t%.4f\t%.2f\t%.4f\t%.4f\t%.4f\t%.6f",
                           r->var[v], rl_repro_seed(r, k), e->len[i], mult, e->loss[i], e->se[i], e->ppl[i], ra, se,
                           sp, sr, exp(nl), exp(nl) * nse, e->unigram[i]);
            }
        }
        for (int i = 0; i < e0->n; i++) {
            long mult = e0->len[i] / e0->len[0];
            double pse, rse, sr = rl_study_ratio(s, mult), sp = isnan(sr) ? NAN : sr * s->ppl[0];
            const char *over;
            double pm = mean_ppl(G, v, i, &pse), rm = mean_ratio(G, v, mult, &rse, &over);
            double nse, nm = mean_new_ratio(G, v, mult, &nse), uppl, range = dyn_range(G, v, &uppl);
            rl_tsv_row(sm, "%s\t%ld\t%ld\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%.2f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f",
                       r->var[v], e0->len[i], mult, K, pm, pse, rm, rse, over, sp, sr, nm, nse, uppl, range);
        }
    }
    rl_tsv_close(t);
    rl_tsv_close(sm);
}

/* The figures, the variant names and seeds passed to gnuplot as word lists;
 * returns the variants the training figure could not draw (NULL: none). */
static char *draw_figures(const rl_repro *r, const rl_outdir *od)
{
    const int nv = r->nvar, K = r->g.seeds;
    char names[2048], study[1024], seeds[2048];
    int off = 0, so = 0, sd = 0;
    names[0] = study[0] = seeds[0] = 0;
    for (int v = 0; v < nv; v++) {
        off += snprintf(names + off, sizeof names - off, v ? " %s" : "%s", r->var[v]);
        if (rl_study_find(r->var[v]))
            so += snprintf(study + so, sizeof study - so, so ? " %s" : "%s", r->var[v]);
        if (off >= (int)sizeof names || so >= (int)sizeof study)
            rl_fatal("reproduce: too many variants to plot");
    }
    for (int k = 0; k < K && sd < (int)sizeof seeds; k++)
        sd += snprintf(seeds + sd, sizeof seeds - sd, k ? " seed%ld" : "seed%ld", rl_repro_seed(r, k));
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_S("study", study), RL_PV_S("seeds", seeds),
                                RL_PV_I("ctx", r->g.train.ctx), RL_PV_I("bytes", r->g.train.vocab == 256) };
    rl_plot(od, "reproduce_ppl", "ppl", vars, RL_NVARS(vars));
    rl_plot(od, "reproduce_ratio", "ratio", vars, RL_NVARS(vars));
    rl_plot(od, "reproduce_ratio_study", "ratio_study", vars, RL_NVARS(vars));
    return rl_repro_training(r, od); /* training.tsv and its figure */
}

/* REPORT.md's title and its Configuration table (the evaluation protocol
 * read from the first model's eval.tsv: paired or not). */
static void config_section(FILE *fp, const grid_evals *G, const char *command)
{
    const rl_repro *r = G->r;
    const int K = r->g.seeds;
    const rl_grid *g = &r->g;
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&tt));
    fprintf(fp, "# routelab reproduction report (preset %s)\n\n" RL_PROSE_GRID_REPORT_OPENING "\n\n",
            g->name, command, r->report_only ? " (this text rewritten from its files by `--report-only`)" : "", date);
    char evald[768];
    const evalrow *e00 = ev_of(G, 0, 0);
    const char *pairing = paired_evals(G) ? RL_PROSE_GRID_REPORT_PAIRED : RL_PROSE_GRID_REPORT_UNPAIRED;
    if (g->eval_batches > 0)
        snprintf(evald, sizeof evald, RL_PROSE_GRID_REPORT_PROTOCOL_BATCHES, g->eval_batches);
    else if (g->eval_windows == RL_EVAL_SAMPLED)
        snprintf(evald, sizeof evald, RL_PROSE_GRID_REPORT_PROTOCOL_SAMPLED,
                 (long)g->train.ctx * g->max_mult, e00->targets[0], pairing);
    else
        snprintf(evald, sizeof evald, RL_PROSE_GRID_REPORT_PROTOCOL_SPANS,
                 g->eval_full ? "every span of the validation stream" : "spans spread evenly over the validation stream",
                 e00->targets[0],
                 (long)g->train.ctx * g->max_mult, pairing);
    fprintf(fp, "## Configuration\n\n" RL_PROSE_GRID_REPORT_CONFIGURATION "\n\n",
            g->variants, g->train.layers, g->train.width, g->train.heads, g->train.width / g->train.heads,
            g->train.vocab, g->train.dropout, g->train.rot_base,
            g->matched ? "the matched scale: see below; NAME@BASE variants their own" : "the study's; NAME@BASE "
                                                                                      "variants their own",
            g->train.ctx, g->train.batch, g->train.accum, rl_repro_steps(r), g->train.lr, g->data, K,
            rl_repro_seed(r, 0), rl_repro_seed(r, K - 1), g->train.ctx, g->max_mult, evald, g->theory,
            g->train.seed);
}

/* Our ratios next to the study's, the newest positions' (paired
 * evaluations), and the figures of both. */
static void ratios_section(FILE *fp, const grid_evals *G, const char *untrained)
{
    const rl_repro *r = G->r;
    const rl_grid *g = &r->g;
    const int nv = r->nvar, K = r->g.seeds;
    const int paired = paired_evals(G);
    char b1[64], b2[64], b3[64];
    long mults[MAXLEN];
    int nm = 0;
    for (long m = 1; m <= g->max_mult; m *= 2)
        mults[nm++] = m;
    fprintf(fp, "## Perplexity ratio ppl(L)/ppl(T) against the study's\n\n" RL_PROSE_GRID_REPORT_RATIO_INTRO " ",
            g->train.ctx);
    if (K == 1)
        fprintf(fp, RL_PROSE_GRID_REPORT_ONE_SEED_SE "\n\n");
    else
        fprintf(fp, RL_PROSE_GRID_REPORT_SEEDS_SE "\n\n", K, K,
                g->eval_batches > 0                   ? RL_PROSE_GRID_REPORT_SPREAD_BATCHES
                : g->eval_windows == RL_EVAL_SAMPLED ? RL_PROSE_GRID_REPORT_SPREAD_SAMPLED
                                                      : RL_PROSE_GRID_REPORT_SPREAD_SPANS);
    int nvc[3] = { 0 }, nvc_cells[3] = { 0 };
    val_table(G, nvc);
    val_line(fp, G, nvc);
    fprintf(fp, "| variant | ppl(T) | no-context ppl | range | ppl(T) vs validation |");
    for (int i = 1; i < nm; i++)
        fprintf(fp, " %ld× |", mults[i]);
    fprintf(fp, " study 16× | study 128× |\n|---|---|---|---|---|");
    for (int i = 1; i < nm; i++)
        fprintf(fp, "---|");
    fprintf(fp, "---|---|\n");
    for (int v = 0; v < nv; v++) {
        const rl_study_row *s = rl_study_find(r->var[v]);
        double pse, pm = mean_ppl(G, v, 0, &pse);
        char rname[160], vcell[512];
        row_name(r, v, rname, sizeof rname);
        val_cell(G, v, vcell, sizeof vcell, nvc_cells);
        double uppl, range = dyn_range(G, v, &uppl);
        char ub[32] = "–", rb[32] = "–";
        if (!isnan(range)) {
            snprintf(ub, sizeof ub, "%.2f", uppl);
            snprintf(rb, sizeof rb, "%.2f×", range);
        }
        if (K == 1)
            fprintf(fp, "| %s | %.3f | %s | %s | %s |", rname, pm, ub, rb, vcell);
        else
            fprintf(fp, "| %s | %.3f ± %.3f | %s | %s | %s |", rname, pm, pse, ub, rb, vcell);
        for (int i = 1; i < nm; i++) {
            double se;
            const char *over;
            double ra = mean_ratio(G, v, mults[i], &se, &over);
            fprintf(fp, " %s |", fmt_ratio(b1, sizeof b1, ra, se));
        }
        fprintf(fp, " %s | %s |\n", fmt_ratio(b2, sizeof b2, rl_study_ratio(s, 16), NAN),
                fmt_ratio(b3, sizeof b3, rl_study_ratio(s, 128), NAN));
    }
    fprintf(fp, "\n" RL_PROSE_GRID_REPORT_NO_CONTEXT "\n\n");
    if (paired) {
        fprintf(fp, "### The newest positions\n\n" RL_PROSE_GRID_REPORT_NEWEST "\n\n| variant |",
                K == 1 ? "over windows" : "across seeds");
        for (int i = 1; i < nm; i++)
            fprintf(fp, " %ld× |", mults[i]);
        fprintf(fp, "\n|---|");
        for (int i = 1; i < nm; i++)
            fprintf(fp, "---|");
        fprintf(fp, "\n");
        for (int v = 0; v < nv; v++) {
            char rname[160];
            fprintf(fp, "| %s |", row_name(r, v, rname, sizeof rname));
            for (int i = 1; i < nm; i++) {
                double se, ra = mean_new_ratio(G, v, mults[i], &se);
                fprintf(fp, " %s |", fmt_ratio(b1, sizeof b1, ra, se));
            }
            fprintf(fp, "\n");
        }
        fprintf(fp, "\n");
    }
    fprintf(fp, RL_PROSE_GRID_REPORT_FULL_NUMBERS "\n\n");
    fprintf(fp, "![Validation perplexity against evaluation length](ppl.png)\n\n*" RL_PROSE_GRID_REPORT_FIG_PPL "*\n\n");
    fprintf(fp, "![Perplexity ratio against the multiple of the training context](ratio.png)\n\n*"
                RL_PROSE_GRID_REPORT_FIG_RATIO "*\n\n![Our ratios beside the study's](ratio_study.png)\n\n*"
                RL_PROSE_GRID_REPORT_FIG_RATIO_STUDY "*\n\n", K == 1 ? "over windows" : "across seeds");
    fprintf(fp, "![Training curves](training.png)\n\n*" RL_PROSE_GRID_REPORT_FIG_TRAINING "*\n\n",
            RL_TRAINING_SMOOTH, untrained ? " " RL_PROSE_GRID_REPORT_NOT_DRAWN " " : "",
            untrained ? untrained : "", untrained ? "." : "");
}

/* The far-mass figures of the probed models of the first seed. */
static void probes_section(FILE *fp, const rl_repro *r)
{
    const int nv = r->nvar;
    const long s0 = rl_repro_seed(r, 0);
    fprintf(fp, "## Far mass inside the trained models\n\n" RL_PROSE_GRID_REPORT_PROBES "\n\n", s0);
    for (int v = 0; v < nv; v++) {
        char *d = rl_repro_model_dir(r, v, 0), *pp = rl_path_join(d, "probe/probe.png");
        if (access(pp, R_OK) == 0)
            fprintf(fp, "![Far mass in %s against the bound](models/%s/seed%ld/probe/probe.png)\n\n*"
                        RL_PROSE_GRID_REPORT_FIG_PROBE "*\n\n",
                    r->var[v], r->var[v], s0, r->var[v], r->var[v], s0);
        free(pp);
        free(d);
    }
}

/* The far-mass prediction (grid_farmass.c), given every model's newest-position
 * log ratios by length. */
static void farmass_section(const grid_evals *G, FILE *fp, const rl_outdir *od)
{
    const rl_repro *r = G->r;
    const int nv = r->nvar, K = G->K;
    const evalrow *e0 = ev_of(G, 0, 0);
    const int n = e0->n;
    double *x = rl_xmalloc(sizeof(double) * (size_t)nv * K * (n ? n : 1));
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < n; i++) {
                double se;
                x[((long)v * K + k) * n + i] = new_logratio(ev_of(G, v, k), e0->len[i] / e0->len[0], &se);
            }
    rl_repro_farmass_section(r, fp, od, x, e0->len, n);
    free(x);
}

/* The orderings read at every stage (their `stages` flag, in this grid),
 * each stage's evaluations read and decided as the final model's
 * (decide), into the trajectory section (program/reproduce/trajectory.h).  Nothing
 * without stages (train --keep-ckpt). */
static void trajectory(FILE *fp, const rl_repro *r, const rl_outdir *od)
{
    long st[RL_GRID_MAX_STAGES];
    const int ns = rl_repro_stages(r, st), nv = r->nvar, K = r->g.seeds;
    if (ns < 2)
        return;
    const rl_ordering *e[64];
    const char *what[64];
    int ia[64], ib[64], ne = 0;
    for (int i = 0; i < rl_norderings && ne < 64; i++) {
        const rl_ordering *x = &rl_orderings[i];
        if (!x->stages || !x->a || x->kind == RL_ORDK_RANK || !rl_ordering_applies(x, r->g.name))
            continue;
        const int a = find(r, x->a), b = x->kind == RL_ORDK_ABOVE ? find(r, x->b) : 0;
        if (a < 0 || b < 0) /* a variant not in this grid */
            continue;
        e[ne] = x, what[ne] = x->what, ia[ne] = a, ib[ne++] = b;
    }
    if (!ne)
        return;
    rl_lr_schedule sched;
    long total;
    rl_err err;
    if (rl_lr_plan(r->g.train.lr, r->g.train.steps, &sched, &total, &err) != RL_OK) {
        rl_err_prefix(&err, "reproduce");
        rl_err_exit(&err);
    }
    rl_traj_point *pts = rl_xcalloc((size_t)ne * ns, sizeof *pts);
    evalrow *ev = rl_xcalloc((size_t)nv * K, sizeof *ev);
    const grid_evals G = { r, ev, K };
    for (int j = 0; j < ns; j++) {
        read_evals_at(r, ev, st[j]);
        for (int i = 0; i < ne; i++) {
            rl_traj_point *p = &pts[i * ns + j];
            p->step = st[j];
            p->lr = rl_lr_at(&sched, st[j] - 1, total);
            p->mult = rl_ordering_mult(e[i], r->g.max_mult);
            p->o = decide(&G, e[i], ia[i], ib[i], p->mult, p->d);
        }
    }
    rl_repro_trajectory_section(r, fp, od, e, what, ne, pts, ns);
    free(ev);
    free(pts);
}

void rl_repro_report(const rl_repro *r, const char *command)
{
    const int nv = r->nvar, K = r->g.seeds;
    evalrow *ev = rl_xcalloc((size_t)nv * K, sizeof *ev);
    const grid_evals G = { r, ev, K };
    read_evals(r, ev);
    const rl_outdir od = { r->out };
    write_tables(&G, &od);
    char *untrained = draw_figures(r, &od);

    char *path = rl_path_join(r->out, "REPORT.md");
    rl_outfile *o = rl_outfile_open(path);
    FILE *fp = o->f;
    config_section(fp, &G, command);
    matched_section(fp, r);
    ratios_section(fp, &G, untrained);
    orderings_section(fp, &G);
    trajectory(fp, r, &od);
    farmass_section(&G, fp, &od);
    rl_repro_horizon_section(r, fp);
    rl_repro_positions_section(r, fp, &od);

    /* theory */
    fprintf(fp, "## The theory report\n\n" RL_PROSE_GRID_REPORT_THEORY "\n\n", r->g.theory);
    copy_theory_summary(r, fp);
    probes_section(fp, r);
    claims_section(&G, fp);
    rl_outfile_commit(o);
    printf("reproduce: wrote %s, table.tsv, summary.tsv, orderings.tsv, valcheck.tsv, training.tsv and the figures\n",
           path);
    free(path);
    free(ev);
    free(untrained);
}
