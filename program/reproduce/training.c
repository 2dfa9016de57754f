/* training.c: the grid's training curves, a mean and a seed band per
 * variant (training.h). */
#include "training.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/core/util.h"
#include "../report/plot.h"
#include "../report/tsv.h"
#include "order.h"

/* One model's log.tsv: train_loss and val_loss (NaN for NA) by row; the
 * steps must be 1, 2, ..., n (every grid logs every step). */
typedef struct {
    long n;
    double *train, *val;
} trainlog;

static int read_log(const char *path, trainlog *g)
{
    g->n = 0, g->train = g->val = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024], *col[16];
    long cap = 0;
    int ok = fgets(line, sizeof line, f) != NULL && rl_tsv_fields(line, col, 16) >= 3 &&
             !strcmp(col[0], "step") && !strcmp(col[1], "train_loss") && !strcmp(col[2], "val_loss");
    while (ok && fgets(line, sizeof line, f)) {
        if (rl_tsv_fields(line, col, 16) < 3 || atol(col[0]) != g->n + 1) {
            ok = 0;
            break;
        }
        if (g->n == cap) {
            cap = cap ? 2 * cap : 4096;
            g->train = rl_xrealloc(g->train, sizeof(double) * (size_t)cap);
            g->val = rl_xrealloc(g->val, sizeof(double) * (size_t)cap);
        }
        g->train[g->n] = rl_tsv_num(col[1]);
        g->val[g->n] = strcmp(col[2], "NA") ? rl_tsv_num(col[2]) : NAN;
        g->n++;
    }
    fclose(f);
    if (!ok || g->n == 0) {
        free(g->train), free(g->val);
        g->train = g->val = NULL;
        return -1;
    }
    return 0;
}

char *rl_repro_training(const rl_repro *r, const rl_outdir *od)
{
    const int K = r->g.seeds;
    rl_tsv *t = rl_tsv_open(od, "training.tsv", "variant\tstep\tseeds\ttrain\ttrain_se\tval\tval_se");
    char *missing = NULL, names[2048] = "";
    size_t mlen = 0;
    int nd = 0;
    trainlog *lg = rl_xcalloc((size_t)K, sizeof *lg);
    for (int v = 0; v < r->nvar; v++) {
        /* every variant in the word list, drawn or not: a variant keeps its
         * colour (its place in the grid) in every figure */
        const size_t off = strlen(names);
        snprintf(names + off, sizeof names - off, "%s%s", v ? " " : "", r->var[v]);
        long n = -1;
        int ok = 1;
        for (int k = 0; k < K; k++) {
            char *d = rl_repro_model_dir(r, v, k), *p = rl_path_join(d, "log.tsv");
            ok &= read_log(p, &lg[k]) == 0 && (n < 0 || lg[k].n == n);
            n = lg[k].n;
            free(p), free(d);
        }
        if (ok) {
            /* the curve thinned to about RL_TRAINING_ROWS steps, every validation step kept */
            const long every = n / RL_TRAINING_ROWS > 1 ? n / RL_TRAINING_ROWS : 1;
            double x[RL_GRID_MAX_SEEDS], y[RL_GRID_MAX_SEEDS];
            for (long s = 0; s < n; s++) {
                const int val = !isnan(lg[0].val[s]);
                if (!val && (s + 1) % every && s != n - 1)
                    continue;
                /* the moving average of the RL_TRAINING_SMOOTH steps up to s + 1 */
                const long a = s + 1 >= RL_TRAINING_SMOOTH ? s + 1 - RL_TRAINING_SMOOTH : 0;
                for (int k = 0; k < K; k++) {
                    double sum = 0;
                    for (long q = a; q <= s; q++)
                        sum += lg[k].train[q];
                    x[k] = sum / (double)(s + 1 - a);
                    y[k] = lg[k].val[s];
                }
                double tm, tse, vm = NAN, vse = NAN;
                rl_seed_mean_se(x, K, &tm, &tse);
                if (val)
                    rl_seed_mean_se(y, K, &vm, &vse);
                char vb[64] = "NA", vsb[64] = "NA", tsb[64] = "NA";
                if (!isnan(vm))
                    snprintf(vb, sizeof vb, "%.6f", vm);
                if (!isnan(vse))
                    snprintf(vsb, sizeof vsb, "%.6f", vse);
                if (!isnan(tse))
                    snprintf(tsb, sizeof tsb, "%.6f", tse);
                rl_tsv_row(t, "%s\t%ld\t%d\t%.6f\t%s\t%s\t%s", r->var[v], s + 1, K, tm, tsb, vb, vsb);
            }
            nd++;
        } else {
            const size_t need = mlen + strlen(r->var[v]) + 3;
            missing = rl_xrealloc(missing, need);
            snprintf(missing + mlen, need - mlen, "%s%s", mlen ? ", " : "", r->var[v]);
            mlen = strlen(missing);
        }
        for (int k = 0; k < K; k++)
            free(lg[k].train), free(lg[k].val);
    }
    free(lg);
    rl_tsv_close(t);
    if (nd) {
        const rl_plotvar vars[] = { RL_PV_S("vars", names), RL_PV_I("seeds", K), RL_PV_I("smooth", RL_TRAINING_SMOOTH),
                                    RL_PV_I("bytes", r->g.train.vocab == 256) };
        rl_plot(od, "reproduce_train", "training", vars, RL_NVARS(vars));
    }
    return missing;
}
