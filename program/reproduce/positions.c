/* positions.c: the grid's per-position curves (positions.h). */
#include "positions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/core/paths.h"
#include "../../base/core/stats.h"
#include "../../base/core/util.h"
#include "../../model/evalpos.h"
#include "../report/plot.h"
#include "../report/tsv.h"
#include "prose_reproduce.h"

/* One model's positions.tsv: its bins' first, last, prefix_len, loss and
 * prefix_ppl columns (found by header name). */
typedef struct {
    int n;
    long first[RL_EVALPOS_BINS], last[RL_EVALPOS_BINS];
    double loss[RL_EVALPOS_BINS], pppl[RL_EVALPOS_BINS];
} posfile;

enum { P_FIRST, P_LAST, P_LOSS, P_PPPL, P_N };
static const char *const pcol[P_N] = { "first", "last", "loss", "prefix_ppl" };

/* 0 when read; -1 when missing or not a positions file. */
static int read_pos(const char *path, posfile *p)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024], *col[32];
    int at[P_N], ok = fgets(line, sizeof line, f) != NULL;
    const int nc = ok ? rl_tsv_fields(line, col, 32) : 0;
    for (int j = 0; j < P_N; j++) {
        at[j] = -1;
        for (int c = 0; c < nc; c++)
            if (!strcmp(col[c], pcol[j]))
                at[j] = c;
        ok &= at[j] >= 0;
    }
    p->n = 0;
    while (ok && fgets(line, sizeof line, f)) {
        const int m = rl_tsv_fields(line, col, 32);
        if (p->n == RL_EVALPOS_BINS || m < nc) {
            ok = 0;
            break;
        }
        p->first[p->n] = atol(col[at[P_FIRST]]);
        p->last[p->n] = atol(col[at[P_LAST]]);
        p->loss[p->n] = rl_tsv_num(col[at[P_LOSS]]);
        p->pppl[p->n] = rl_tsv_num(col[at[P_PPPL]]);
        p->n++;
    }
    fclose(f);
    return ok && p->n > 0 ? 0 : -1;
}

/* mean and SE over the K values x[0..K-1] (rl_mean_se; SE NaN for K < 2:
 * one seed has no spread to show) */
static double mean_se(const double *x, int K, double *se)
{
    double m;
    rl_mean_se(x, K, 1, &m, se);
    if (K < 2)
        *se = NAN;
    return m;
}

/* "%.4f", or nan (gnuplot's missing value, plots/common.gp) */
static const char *num(char *buf, size_t n, double x)
{
    if (isnan(x))
        snprintf(buf, n, "nan");
    else
        snprintf(buf, n, "%.4f", x);
    return buf;
}

/* Every model's file into P (nv x K); the number of models without a
 * readable one, and whether the bins agree, into *missing and *same. */
static void read_all(const rl_repro *r, posfile *P, int *missing, int *same)
{
    const int nv = r->nvar, K = r->g.seeds;
    *missing = 0, *same = 1;
    for (int v = 0; v < nv; v++)
        for (int k = 0; k < K; k++) {
            char *d = rl_repro_model_dir(r, v, k), *p = rl_path_join(d, "positions.tsv");
            posfile *q = &P[v * K + k];
            if (read_pos(p, q))
                ++*missing;
            else if (!*missing && (q->n != P[0].n || memcmp(q->last, P[0].last, sizeof(long) * (size_t)q->n)))
                *same = 0;
            free(p);
            free(d);
        }
}

void rl_repro_positions_section(const rl_repro *r, FILE *fp, const rl_outdir *od)
{
    const int nv = r->nvar, K = r->g.seeds;
    posfile *P = rl_xmalloc(sizeof(posfile) * (size_t)nv * K);
    int missing, same;
    read_all(r, P, &missing, &same);
    fprintf(fp, "## Per-position loss and prefix perplexity\n\n");
    if (missing || !same) {
        if (missing)
            fprintf(fp, RL_PROSE_POSITIONS_MISSING "\n\n", missing, nv * K);
        else
            fprintf(fp, RL_PROSE_POSITIONS_UNEQUAL_BINS "\n\n");
        free(P);
        return;
    }
    const int n = P[0].n;
    const long Lmax = P[0].last[n - 1] + 1, T = r->g.train.ctx;
    rl_tsv *t = rl_tsv_open(od, "positions.tsv", "variant\tfirst\tlast\tprefix_len\tseeds\tloss\tloss_se"
                                                 "\tprefix_ppl\tprefix_ppl_se");
    /* the bin whose prefix ends nearest T (from below) for the table */
    int iT = 0;
    for (int i = 0; i < n; i++)
        if (P[0].last[i] + 1 <= T)
            iT = i;
    fprintf(fp, RL_PROSE_POSITIONS_INTRO
                "\n\n| variant | prefix ppl at l = %ld | prefix ppl at l = %ld | loss at positions %ld … %ld |\n"
                "|---|---|---|---|\n",
            Lmax, RL_EVALPOS_BINS, K, K == 1 ? "" : "s", P[0].last[iT] + 1, Lmax, P[0].first[n - 1], Lmax - 1);
    double *x = rl_xmalloc(sizeof(double) * (size_t)K);
    for (int v = 0; v < nv; v++) {
        const posfile *p0 = &P[v * K];
        double ci[3] = { NAN, NAN, NAN }, cs[3] = { NAN, NAN, NAN }; /* prefix at T, at L, loss of the last bin */
        for (int i = 0; i < n; i++) {
            double lse, pse, lm, pm;
            for (int k = 0; k < K; k++)
                x[k] = P[v * K + k].loss[i];
            lm = mean_se(x, K, &lse);
            for (int k = 0; k < K; k++)
                x[k] = P[v * K + k].pppl[i];
            pm = mean_se(x, K, &pse);
            char b1[32], b2[32];
            rl_tsv_row(t, "%s\t%ld\t%ld\t%ld\t%d\t%.4f\t%s\t%.4f\t%s", r->var[v], p0->first[i], p0->last[i],
                       p0->last[i] + 1, K, lm, num(b1, sizeof b1, lse), pm, num(b2, sizeof b2, pse));
            if (i == iT)
                ci[0] = pm, cs[0] = pse;
            if (i == n - 1)
                ci[1] = pm, cs[1] = pse, ci[2] = lm, cs[2] = lse;
        }
        fprintf(fp, "| %s | %.3f ± %.3f | %.3f ± %.3f | %.4f ± %.4f |\n", r->var[v], ci[0], cs[0], ci[1], cs[1],
                ci[2], cs[2]);
    }
    rl_tsv_close(t);
    free(x);
    char names[2048];
    int off = 0;
    names[0] = 0;
    for (int v = 0; v < nv && off < (int)sizeof names; v++)
        off += snprintf(names + off, sizeof names - off, v ? " %s" : "%s", r->var[v]);
    const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_I("ctx", T), RL_PV_I("bytes", r->g.train.vocab == 256) };
    rl_plot(od, "reproduce_positions", "positions", vars, RL_NVARS(vars));
    fprintf(fp, "\n![Prefix perplexity and per-position loss](positions.png)\n\n*" RL_PROSE_POSITIONS_FIG_POSITIONS
                "*\n\n", T);
    free(P);
}
