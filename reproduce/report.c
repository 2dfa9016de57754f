/* report.c: table.tsv, figures and REPORT.md of a finished grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/util.h"
#include "../report/plot.h"
#include "../report/report.h"
#include "../report/tsv.h"
#include "grid.h"
#include "../theory/study.h"

#define MAXLEN 32

/* One model's evaluation: ppl and the standard error of the mean loss by
 * length. */
typedef struct {
    int n;
    long len[MAXLEN];
    double loss[MAXLEN], se[MAXLEN], ppl[MAXLEN];
} evalrow;

static int read_eval(const char *path, evalrow *e)
{
    FILE *f = fopen(path, "r");
    char line[512];
    e->n = 0;
    if (!f)
        return -1;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (e->n < MAXLEN && fgets(line, sizeof line, f)) {
        long L, w;
        double m, s, p, ra;
        if (sscanf(line, "%ld\t%ld\t%lf\t%lf\t%lf\t%lf", &L, &w, &m, &s, &p, &ra) == 6) {
            e->len[e->n] = L;
            e->loss[e->n] = m;
            e->se[e->n] = s;
            e->ppl[e->n] = p;
            e->n++;
        }
    }
    fclose(f);
    return 0;
}

/* ratio ppl(L)/ppl(ctx) = exp(loss(L) - loss(ctx)); its standard error by the
 * delta method from the two (independent) loss standard errors. */
static double ratio_at(const evalrow *e, long mult, double *se)
{
    for (int i = 0; i < e->n; i++)
        if (e->len[i] == e->len[0] * mult) {
            double r = exp(e->loss[i] - e->loss[0]);
            if (se)
                *se = r * hypot(e->se[i], e->se[0]);
            return r;
        }
    if (se)
        *se = NAN;
    return NAN;
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

/* One claim about the ordering, checked on our ratios at a multiple. */
static void ordering_line(FILE *fp, const char *claim, int holds, const char *detail)
{
    fprintf(fp, "- **%s** — %s. %s\n", claim, holds < 0 ? "not measurable in this grid" : holds ? "reproduced" : "NOT reproduced", detail);
}

/* The theory report's verdicts on the experiments of one claim (a
 * NULL-terminated list), with every contradicted or unresolved check spelled out. */
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
            if ((k == RL_V_CONTRADICTED || k == RL_V_UNRESOLVED) && off < (int)sizeof fails - 600)
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
    char *d = rl_repro_model_dir(r, v), *p = rl_path_join(d, "probe/probe.tsv");
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

/* A paragraph per claim: the Monte Carlo verdicts and what the trained
 * models of this grid say. */
static void claims_section(const rl_repro *r, FILE *fp, const evalrow *ev)
{
    long mtop = r->g.max_mult;
    fprintf(fp, "## Claim by claim\n\n");
    fprintf(fp, "**1. Mixing window.** ");
    theory_checks(r, fp, (const char *[]){ "mixing", NULL });
    fprintf(fp, "\n\n**2. Score gap.** ");
    theory_checks(r, fp, (const char *[]){ "concentration", "scoregap", NULL });
    fprintf(fp, "\n\n**3. Far-mass lower bound.** ");
    theory_checks(r, fp, (const char *[]){ "farmass", NULL });
    for (int v = 0; v < r->nvar; v++) {
        double rho, b;
        long L, W;
        if (probe_summary(r, v, &rho, &b, &L, &W))
            fprintf(fp, "Inside the trained %s model at L = %ld, the attention mass beyond the last %ld positions "
                        "averages %.3f over layers and heads, against a mean bound of %.3g (λ = the largest "
                        "logit magnitude of each row). ",
                    r->var[v], L, W, rho, b);
    }
    int ial = find(r, "alibi");
    if (ial >= 0) {
        double s, x = ratio_at(&ev[ial], mtop, &s);
        fprintf(fp, "With the distance bias (alibi), the ratio at %ld× is %.2f× ± %.2f.", mtop, x, s);
    }
    fprintf(fp, "\n\n**4. Value-side incoherence.** ");
    theory_checks(r, fp, (const char *[]){ "values", NULL });
    const char *pairs[][2] = { { "random_qk", "random_qkv" }, { "rope", "fixed-rope" }, { "pemb_qk", "pemb_qkv" },
                               { "lf_qk", "lf_qkv" } };
    for (int i = 0; i < 4; i++) {
        int a = find(r, pairs[i][0]), b = find(r, pairs[i][1]);
        if (a < 0 || b < 0)
            continue;
        double sa, sb, xa = ratio_at(&ev[a], mtop, &sa), xb = ratio_at(&ev[b], mtop, &sb);
        fprintf(fp, "At %ld×, %s %.2f× ± %.2f vs %s %.2f× ± %.2f (value transport %s). ", mtop, pairs[i][0], xa, sa,
                pairs[i][1], xb, sb,
                xa - xb > 2 * hypot(sa, sb) ? "helps" : xb - xa > 2 * hypot(sa, sb) ? "hurts" : "makes no significant difference");
    }
    fprintf(fp, "\n\n**5. Experiments.** The orderings above; the one-layer counterpart: ");
    theory_checks(r, fp, (const char *[]){ "stylized", NULL });
    fprintf(fp, "\n");
}

void rl_repro_report(const rl_repro *r, const char *command)
{
    const int nv = r->nvar;
    evalrow *ev = rl_xcalloc(nv, sizeof *ev);
    for (int v = 0; v < nv; v++) {
        char *d = rl_repro_model_dir(r, v), *p = rl_path_join(d, "eval.tsv");
        if (read_eval(p, &ev[v]) != 0 || ev[v].n == 0)
            rl_die("reproduce: %s is missing or empty; run the grid first", p);
        free(p);
        free(d);
    }
    /* ---- table.tsv ---- */
    const rl_outdir od = { r->out, 0 };
    rl_tsv *t = rl_tsv_open(&od, "table.tsv",
                            "variant\tlength\tmult\tmean_loss\tstderr\tppl\tratio\tratio_se\tstudy_ppl\tstudy_ratio");
    for (int v = 0; v < nv; v++) {
        const rl_study_row *s = rl_study_find(r->var[v]);
        for (int i = 0; i < ev[v].n; i++) {
            long mult = ev[v].len[i] / ev[v].len[0];
            double se, ra = ratio_at(&ev[v], mult, &se);
            double sr = rl_study_ratio(s, mult), sp = isnan(sr) ? NAN : sr * s->ppl[0];
            rl_tsv_row(t, "%s\t%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\t%.4f\t%.2f\t%.4f", r->var[v], ev[v].len[i], mult,
                       ev[v].loss[i], ev[v].se[i], ev[v].ppl[i], ra, se, sp, sr);
        }
    }
    rl_tsv_close(t);

    /* ---- figures ---- */
    /* the variant names as two word lists, passed to gnuplot as data */
    char names[2048], study[1024];
    int off = 0, so = 0;
    names[0] = study[0] = 0;
    for (int v = 0; v < nv; v++) {
        off += snprintf(names + off, sizeof names - off, v ? " %s" : "%s", r->var[v]);
        if (rl_study_find(r->var[v]))
            so += snprintf(study + so, sizeof study - so, so ? " %s" : "%s", r->var[v]);
        if (off >= (int)sizeof names || so >= (int)sizeof study)
            rl_fatal("reproduce: too many variants to plot");
    }
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_S("study", study), RL_PV_I("ctx", r->g.train.ctx) };
    rl_plot(&od, "reproduce_ppl", "ppl", vars, RL_NVARS(vars));
    rl_plot(&od, "reproduce_ratio", "ratio", vars, RL_NVARS(vars));
    rl_plot(&od, "reproduce_train", "training", vars, RL_NVARS(vars));

    /* ---- REPORT.md ---- */
    char *path = rl_path_join(r->out, "REPORT.md");
    rl_outfile *o = rl_outfile_open(path);
    FILE *fp = o->f;
    const rl_grid *g = &r->g;
    time_t tt = time(NULL);
    char date[64], b1[64], b2[64], b3[64], b4[64];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&tt));
    fprintf(fp, "# routelab reproduction report (preset %s)\n\nProduced by `%s`%s on %s. Every number is "
                "measured in this run, except the study's columns, copied from the study's table "
                "(`../shared/reference/study.md`: trained at 512, evaluated to 65,536).\n\n",
            g->name, command, r->report_only ? " (this text rewritten from its files by `--report-only`)" : "", date);
    fprintf(fp, "## Configuration\n\n| setting | value |\n|---|---|\n| variants | %s |\n| model | %d layers, "
                "width %d, %d heads (head dim %d), vocabulary %d, dropout %g |\n| training | context %d, "
                "batch %d × %d, %ld steps, lr `%s`, seed %ld, data `%s` |\n| evaluation | lengths %d × 1, 2, "
                "4, ..., %d; %d windows per length (the study's protocol: random validation windows, seed + L, "
                "full causal attention, mean cross-entropy over every position) |\n| theory report | preset %s "
                "|\n\n",
            g->variants, g->train.layers, g->train.width, g->train.heads, g->train.width / g->train.heads,
            g->train.vocab, g->train.dropout, g->train.ctx, g->train.batch, g->train.accum, rl_repro_steps(r),
            g->train.lr, g->train.seed, g->data, g->train.ctx, g->max_mult, g->eval_batches, g->theory);

    /* our table next to the study's */
    long mults[MAXLEN];
    int nm = 0;
    for (long m = 1; m <= g->max_mult; m *= 2)
        mults[nm++] = m;
    fprintf(fp, "## Perplexity ratio ppl(L)/ppl(T) against the study's\n\nT = %d is our training context; "
                "the study's ratios at the same multiples of its T = 512 are beside ours (16× = its 8K/512, "
                "128× = its 65K/512). ± is one standard error (delta method over the evaluation windows).\n\n",
            g->train.ctx);
    fprintf(fp, "| variant | ppl(T) |");
    for (int i = 1; i < nm; i++)
        fprintf(fp, " %ld× |", mults[i]);
    fprintf(fp, " study 16× | study 128× |\n|---|---|");
    for (int i = 1; i < nm; i++)
        fprintf(fp, "---|");
    fprintf(fp, "---|---|\n");
    for (int v = 0; v < nv; v++) {
        const rl_study_row *s = rl_study_find(r->var[v]);
        fprintf(fp, "| %s | %.3f |", r->var[v], ev[v].ppl[0]);
        for (int i = 1; i < nm; i++) {
            double se, ra = ratio_at(&ev[v], mults[i], &se);
            fprintf(fp, " %s |", fmt_ratio(b1, sizeof b1, ra, se));
        }
        fprintf(fp, " %s | %s |\n", fmt_ratio(b2, sizeof b2, rl_study_ratio(s, 16), NAN),
                fmt_ratio(b3, sizeof b3, rl_study_ratio(s, 128), NAN));
    }
    fprintf(fp, "\nFull numbers: `table.tsv` (every length, mean loss, standard error, ppl, ratio, study).\n\n");
    fprintf(fp, "![Validation perplexity against evaluation length](ppl.png)\n\n*Validation perplexity against "
                "evaluation length (log axes), one curve per variant.*\n\n");
    fprintf(fp, "![Perplexity ratio against the multiple of the training context, ours and the study's](ratio.png)"
                "\n\n*ppl(L)/ppl(T) against L/T: ours (solid, ± SE) and the study's at the same multiples "
                "(dashed).*\n\n");
    fprintf(fp, "![Training curves](training.png)\n\n*Training (thin) and validation (points) loss against "
                "step.*\n\n");

    /* orderings */
    long m16 = g->max_mult >= 16 ? 16 : g->max_mult, mtop = g->max_mult;
    char at[64];
    if (m16 == mtop)
        snprintf(at, sizeof at, "At %ld×", mtop);
    else
        snprintf(at, sizeof at, "At %ld× and %ld×", m16, mtop);
    fprintf(fp, "## The study's orderings in this run\n\n%s the training context (the study "
                "compares 8K/512 = 16× and 65K/512 = 128×). A difference counts when it exceeds 2 standard "
                "errors of the difference.\n\n",
            at);
    int irope = find(r, "rope"), iqk = find(r, "random_qk"), iqkv = find(r, "random_qkv"), ial = find(r, "alibi");
    double sa, sb, sc;
    double ra = irope >= 0 ? ratio_at(&ev[irope], m16, &sa) : NAN;
    double rb = iqk >= 0 ? ratio_at(&ev[iqk], m16, &sb) : NAN;
    double rc = iqkv >= 0 ? ratio_at(&ev[iqkv], m16, &sc) : NAN;
    char det[512];
    /* the study's first ordering, in its two parts: rope far above the
     * random rotations, and value transport lowering random's ratio */
    if (irope >= 0 && iqk >= 0) {
        snprintf(det, sizeof det, "At %ld×: rope %.2f× ± %.2f, random_qk %.2f× ± %.2f (study at 16×: 16.2×, "
                 "1.60×).", m16, ra, sa, rb, sb);
        ordering_line(fp, "rope ≫ random_qk", ra - rb > 2 * hypot(sa, sb), det);
    }
    if (iqk >= 0 && iqkv >= 0) {
        snprintf(det, sizeof det, "At %ld×: random_qk %.2f× ± %.2f, random_qkv %.2f× ± %.2f (study at 16×: "
                 "1.60×, 1.03×).", m16, rb, sb, rc, sc);
        ordering_line(fp, "random_qk > random_qkv", rb - rc > 2 * hypot(sb, sc), det);
    } else if (irope >= 0 && iqkv >= 0) {
        snprintf(det, sizeof det, "At %ld×: rope %.2f× ± %.2f, random_qkv %.2f× ± %.2f (random_qk not in this "
                 "grid).", m16, ra, sa, rc, sc);
        ordering_line(fp, "rope ≫ random_qkv", ra - rc > 2 * hypot(sa, sc), det);
    }
    /* learned variants near flat to 16x: within 25% of flat */
    const char *learned[] = { "pemb_qk", "pemb_qkv", "lf_qk", "lf_qkv" };
    int nl = 0, flat = 0, o2 = 0;
    char list[512] = "";
    for (int i = 0; i < 4; i++) {
        int v = find(r, learned[i]);
        if (v < 0)
            continue;
        double s, x = ratio_at(&ev[v], m16, &s);
        nl++;
        flat += x <= 1.25;
        o2 += snprintf(list + o2, sizeof list - o2, "%s%s %.2f×", o2 ? ", " : "", learned[i], x);
    }
    snprintf(det, sizeof det, "\"Near flat\" is taken as a ratio ≤ 1.25 at %ld×: %s (study at 16×: pemb_qk "
             "1.17×, pemb_qkv 1.18×, lf_qk 0.96×, lf_qkv 1.00×).", m16, nl ? list : "none in this grid");
    ordering_line(fp, "learned variants near flat to 16×", nl ? flat == nl : -1, det);
    /* every rotation-only model degrading by 128x */
    int nr = 0, deg = 0;
    o2 = 0;
    list[0] = 0;
    for (int v = 0; v < nv; v++) {
        /* rotation-only: a rotation scheme without a distance bias (not
         * alibi*, not none, not PaTH's Householder transport) */
        if (strstr(r->var[v], "alibi") || !strcmp(r->var[v], "none") || !strcmp(r->var[v], "path"))
            continue;
        double s, x = ratio_at(&ev[v], mtop, &s);
        nr++;
        deg += x - 1 > 2 * s;
        o2 += snprintf(list + o2, sizeof list - o2, "%s%s %.2f×", o2 ? ", " : "", r->var[v], x);
    }
    /* a grid that stops short of 128x cannot show a degradation by 128x:
     * say what it shows at its top instead of a verdict */
    if (mtop < 128)
        snprintf(det, sizeof det, "This grid stops at %ld×; ratios there: %s (%d of %d above 1 by more than 2 SE).",
                 mtop, list, deg, nr);
    else
        snprintf(det, sizeof det, "Ratios at %ld×: %s.", mtop, list);
    ordering_line(fp, "every rotation-only model degrades by 128×", nr && mtop >= 128 ? deg == nr : -1, det);
    if (ial >= 0) {
        double s, x = ratio_at(&ev[ial], mtop, &s);
        /* flat: within 10% of 1, or not distinguishable from 1 (the 2 SE
         * rule of every other line) */
        snprintf(det, sizeof det, "alibi at %ld×: %.2f× ± %.2f (study at 128×: 0.96×); \"flat\" = within 10%% "
                 "of 1 or within 2 standard errors of it.", mtop, x, s);
        ordering_line(fp, "alibi flat", fabs(x - 1) <= fmax(0.1, 2 * s), det);
    }
    fputc('\n', fp);

    /* theory */
    fprintf(fp, "## The theory report\n\nThe Monte Carlo checks of the claims (`theory/theory.md`, preset %s):\n\n",
            g->theory);
    copy_theory_summary(r, fp);

    /* probes */
    fprintf(fp, "## Far mass inside the trained models\n\n`routelab probe` on the probed models: per layer "
                "and head, the attention mass beyond the last W positions (ρ_D) against the bound "
                "M_L/(M_L + K e^{2λ}) evaluated with the largest logit magnitude λ observed.\n\n");
    for (int v = 0; v < nv; v++) {
        char *d = rl_repro_model_dir(r, v), *pp = rl_path_join(d, "probe/probe.png");
        if (access(pp, R_OK) == 0)
            fprintf(fp, "![Far mass in %s against the bound](models/%s/probe/probe.png)\n\n*%s: measured far "
                        "mass per layer and head against the bound (`models/%s/probe/`).*\n\n",
                    r->var[v], r->var[v], r->var[v], r->var[v]);
        free(pp);
        free(d);
    }
    claims_section(r, fp, ev);
    (void)b4;
    rl_outfile_commit(o);
    printf("reproduce: wrote %s, table.tsv and the figures\n", path);
    free(path);
    free(ev);
}
