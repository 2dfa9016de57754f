/* cmd_farpred.c: `routelab farpred`, a trained model's far mass at long
 * lengths predicted from what it does within T (model/farpred.h,
 * docs/theory/farpred.md#far-mass-prediction). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../../base/core/lock.h"
#include "../../base/core/opts.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../model/ckpt.h"
#include "../../model/data.h"
#include "../../model/farpred.h"

#define MAX_LENGTHS 16

/* A table that cannot be written: the temporaries go, and the folder when
 * this run made it. */
static void fail_outputs(char *made, rl_outfile **o, int n, rl_err *err)
{
    for (int i = 0; i < n; i++)
        if (o[i])
            rl_outfile_abort(o[i]);
    free(made);
    rl_check_in("farpred", err->status ? err->status : RL_EINTERNAL, err);
    abort(); /* not reached */
}

/* farpred.tsv: the predictions per length, layer, head: routelab's
 * predictor (route) with its Monte Carlo SE, the same with mixing switched
 * off (nomix), the mean-field form, dilution, the bound with lambda from
 * within T; the entropies. */
static void write_pred(FILE *f, const rl_farpred_row *r, long n)
{
    fprintf(f, "length\tlayer\thead\trho_route\trho_route_se\trho_nomix\trho_nomix_se\trho_meanfield"
               "\trho_dilution\trho_bound\tlambda_T\tentropy_route\tentropy_meanfield\tentropy_dilution\n");
    for (long k = 0; k < n; k++)
        fprintf(f, "%ld\t%d\t%d\t%.6g\t%.3g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.4g\t%.6g\t%.6g\t%.6g\n", r[k].L,
                r[k].layer, r[k].head, r[k].route, r[k].route_se, r[k].nomix, r[k].nomix_se, r[k].meanfield,
                r[k].dilution, r[k].bound, r[k].lambda, r[k].ent_route, r[k].ent_meanfield, r[k].ent_dilution);
}

/* within.tsv: the logit against distance within T, and at the band the
 * measured mean weight beside the theory's m(delta) (the check of F1). */
static void write_within(FILE *f, const rl_farpred_within *w, const double *logm_band)
{
    const long T = w->T, d0 = T / 2;
    fprintf(f, "layer\thead\tdelta\tmean_logit\tsd_logit\tmean_weight\ttheory_weight\n");
    for (long x = 0; x < (long)w->layers * w->heads; x++)
        for (long d = 0; d < T; d++) {
            const double n = w->dcount[d], mu = w->dsum[x * T + d] / n,
                         var = fmax(0, w->dsq[x * T + d] / n - mu * mu);
            fprintf(f, "%ld\t%ld\t%ld\t%.6g\t%.6g\t%.6g\t", x / w->heads, x % w->heads, d, mu, sqrt(var),
                    w->dexp[x * T + d] / n);
            if (d >= d0)
                fprintf(f, "%.6g\n", exp(logm_band[x * (T - d0) + d - d0]));
            else
                fprintf(f, "NA\n");
        }
}

/* blocks.tsv: per block its step law |chi(1)|, arg chi(1), the coherence
 * |chi|^{T/2} at the band and |chi|^{128 T}, and the content pairs' mean
 * alignment Re A_b and |A_b|. */
static void write_blocks(FILE *f, const rl_farpred_within *w)
{
    fprintf(f, "layer\thead\tblock\tabs_chi\targ_chi\tcoh_band\tcoh_128T\tmean_re_A\tmean_abs_A\n");
    const int P = w->nb;
    for (long x = 0; x < (long)w->layers * w->heads; x++)
        for (int b = 0; b < P; b++) {
            const double complex z = w->chi[(x * P + b) * w->nh];
            double re = 0, ab = 0;
            for (long p = 0; p < w->np; p++) {
                re += creal(w->A[(x * w->np + p) * P + b]);
                ab += cabs(w->A[(x * w->np + p) * P + b]);
            }
            fprintf(f, "%ld\t%ld\t%d\t%.10g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", x / w->heads, x % w->heads, b, cabs(z),
                    carg(z), pow(cabs(z), (double)(w->T / 2)), pow(cabs(z), 128.0 * (double)w->T), re / w->np,
                    ab / w->np);
        }
}

int cmd_farpred(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *lengths = NULL, *out = "results/farpred";
    long windows = 512, pairs = 512, seed = 42;
    int threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &lengths, "comma-separated lengths > T to predict (none: 2T, 4T, ..., 128T)"),
        RL_OPT_LONG_("windows", &windows, "windows of T tokens measured", 1, 1e6),
        RL_OPT_LONG_("pairs", &pairs, "content pairs per head from the far band [T/2, T)", 1, 1e6),
        RL_OPT_STR_("out", &out, "output folder: farpred.tsv, within.tsv, blocks.tsv"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("farpred", "--ckpt FILE --data DIR|FILE [--lengths L1,L2] [--windows 512] [--pairs 512] [--out DIR]",
                  "The far mass (attention on keys at distance >= T) of every layer and head at\n"
                  "lengths beyond the training context T, predicted from windows of T tokens\n"
                  "(docs/theory/farpred.md#far-mass-prediction).  routelab's predictor (ours, not\n"
                  "the study's; the route form, docs/theory/farpred.md#route-form): each window's\n"
                  "last query's row of a long window simulated from its measured near keys and\n"
                  "each block's realised angle at distance T - 1, the route continued with\n"
                  "measured windows' keys and steps (fresh noise); the same with\n"
                  "mixing switched off (every step at its law's mean direction: the ablation of the\n"
                  "mixing term); the mean-field form (far keys at the band's content turned by the\n"
                  "step law, Jacobi-Anger, law of large numbers); dilution (far keys weigh the\n"
                  "band's mean e^s) and the bound M/(M + K e^{2 lambda}) with lambda from within T.\n"
                  "The rows are the probe's (the last 64 queries of a window): compare with\n"
                  "`routelab probe` at W = T.  Writes farpred.tsv, within.tsv (logit against\n"
                  "distance) and blocks.tsv.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    rl_err err;
    long Ls[MAX_LENGTHS];
    int nl = 0;
    if (lengths)
        nl = rl_parse_longs("farpred: --lengths", lengths, Ls, MAX_LENGTHS);
    if (!ckpath || !data)
        rl_check_in("farpred", rl_fail(&err, RL_EINPUT, "--ckpt and --data are required"), &err);
    const rl_path_use in[] = { { "--ckpt", ckpath, 0 }, { "--data", data, 0 } }, outs[] = { { "--out", out, 1 } };
    rl_check_in("farpred", rl_paths_check(in, 2, outs, 1, &err), &err);
    rl_gpt *m;
    rl_ckpt_meta meta;
    rl_check_in("farpred", rl_ckpt_load(ckpath, 16, &m, &meta, &err), &err);
    rl_dataset ds;
    rl_check_in("farpred", rl_data_load(data, m->cfg.vocab, &ds, &err), &err);
    const long T = m->cfg.ctx;
    if (!lengths)
        for (long L = 2 * T; L <= 128 * T; L *= 2)
            Ls[nl++] = L;
    for (int k = 0; k < nl; k++)
        if (Ls[k] <= T)
            rl_check_in("farpred", rl_fail(&err, RL_EINPUT, "--lengths: %ld is not beyond T = %ld", Ls[k], T), &err);
    rl_check_in("farpred", rl_farpred_check(m, windows, Ls, nl, &err), &err);
    rl_farpred_within w;
    rl_check_in("farpred", rl_farpred_measure(m, &ds.val, windows, pairs, (uint64_t)seed, &w, &err), &err);
    const long NH = (long)w.layers * w.heads;
    rl_farpred_row *rows = rl_xmalloc(sizeof *rows * (size_t)nl * NH);
    double *band = rl_xmalloc(sizeof(double) * NH * (T - T / 2));
    rl_check_in("farpred", rl_farpred_predict(&w, Ls, nl, rows, band, &err), &err);
    char *made = NULL;
    rl_check_in("farpred", rl_mkdirs_new(out, &made, &err), &err);
    rl_lock *lk;
    rl_check_in("farpred", rl_lock_out(out, &lk, &err), &err);
    if (made)
        rl_cleanup_track(made, 1);
    static const char *const names[3] = { "farpred.tsv", "within.tsv", "blocks.tsv" };
    rl_outfile *o[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++) {
        char *p = rl_path_join(out, names[i]);
        rl_status st = rl_outfile_create(p, &o[i], &err);
        free(p);
        if (st != RL_OK)
            fail_outputs(made, o, i, &err);
    }
    write_pred(o[0]->f, rows, (long)nl * NH);
    write_within(o[1]->f, &w, band);
    write_blocks(o[2]->f, &w);
    for (int i = 0; i < 3; i++) {
        if (rl_outfile_close(o[i], &err) != RL_OK) {
            o[i] = NULL;
            fail_outputs(made, o + i + 1, 2 - i, &err);
        }
    }
    free(made);
    printf("farpred: %s (%s, T = %ld): %ld windows, %ld pairs per head; wrote %s/{farpred,within,blocks}.tsv\n",
           ckpath, rl_pos_name(m->cfg.pos), T, windows, pairs, out);
    for (int k = 0; k < nl; k++) {
        double ro = 0, nm = 0, mf = 0, di = 0;
        for (long x = 0; x < NH; x++) {
            ro += rows[(long)k * NH + x].route;
            nm += rows[(long)k * NH + x].nomix;
            mf += rows[(long)k * NH + x].meanfield;
            di += rows[(long)k * NH + x].dilution;
        }
        printf("farpred: L = %6ld  head-mean far mass: routelab %.4f  mixing off %.4f  mean-field %.4f  dilution "
               "%.4f\n", Ls[k], ro / NH, nm / NH, mf / NH, di / NH);
    }
    free(rows);
    free(band);
    rl_farpred_within_free(&w);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return 0;
}
