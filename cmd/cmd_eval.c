/* cmd_eval.c: `routelab eval`, the study's length-extrapolation protocol. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "commands.h"
#include "../core/mem.h"
#include "../core/opts.h"
#include "../core/util.h"
#include "../sampling/rng.h"
#include "../model/ckpt.h"
#include "../model/data.h"

#define MAX_LENGTHS 64

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int cmd_eval(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *lengths = "512,1024,2048", *out = NULL;
    long batches = 20, seed = 42;
    int bsize = 1, threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &lengths, "comma-separated window lengths L"),
        RL_OPT_LONG_("batches", &batches, "batches of windows per length", 1, 1e9),
        RL_OPT_INT_("batch-size", &bsize, "windows per batch", 1, 1 << 20),
        RL_OPT_STR_("out", &out, "TSV output (default: eval.tsv beside the checkpoint)"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("eval", "--ckpt FILE --data DIR|FILE --lengths 512,1024,... [--batches 20] [--seed 42]",
                  "For each length L: batches x batch-size validation windows of L tokens at\n"
                  "uniform random starts (stream seed+L), the model run on the whole window\n"
                  "with full causal attention (streaming, memory O(L width)), cross-entropy at\n"
                  "every position; mean, its standard error over windows, ppl = exp(mean),\n"
                  "and ppl / ppl(first length).  Schemes with rotation noise (random, lf)\n"
                  "draw it per window from the seed: the same seed gives the same numbers.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    long Ls[MAX_LENGTHS];
    int nl = rl_parse_longs("--lengths", lengths, Ls, MAX_LENGTHS);
    rl_ckpt_meta meta;
    rl_dataset ds;
    rl_gpt *m;
    long maxL;
    rl_err err;
    /* one loss per window: batches x batch-size doubles, checked like the
     * model's own memory before anything is loaded */
    int over = 0;
    const long nw = batches * bsize; /* at most 1e9 x 2^20: fits in a long */
    const size_t wl_bytes = rl_szmul(sizeof(double), (size_t)nw, &over);
    if (rl_mem_check("a loss for each of the --batches x --batch-size windows", wl_bytes, over, &err) ||
        rl_ckpt_open_eval("eval", ckpath, data, &m, &meta, &ds, &err) ||
        rl_eval_check_lengths(m, Ls, nl, 1, &ds, data, &maxL, &err)) {
        rl_err_prefix(&err, "eval");
        rl_err_exit(&err);
    }
    char *def = NULL;
    if (!out) {
        char *tmp = strdup(ckpath);
        def = rl_path_join(dirname(tmp), "eval.tsv");
        free(tmp);
        out = def;
    }
    rl_gpt_eval *ev = rl_gpt_eval_alloc(m, maxL);
    double *wl = rl_xmalloc(sizeof(double) * nw), ppl0 = 0;
    rl_outfile *o = rl_outfile_open(out);
    fprintf(o->f, "length\twindows\tmean_loss\tstderr\tppl\tratio\n");
    printf("eval: %s (%s, %d layers width %d, trained at %d), %s val %ld tokens; workspace %.0f MiB\n",
           ckpath, rl_pos_name(m->cfg.pos), m->cfg.layers, m->cfg.width, m->cfg.ctx, data,
           ds.val.n, rl_gpt_eval_bytes(ev) / 1048576.0);
    printf("%8s %8s %10s %9s %10s %8s %8s\n", "length", "windows", "mean_loss", "stderr", "ppl",
           "ratio", "sec");
    for (int i = 0; i < nl; i++) {
        const long L = Ls[i];
        double t0 = now(), mean = 0, var = 0;
        for (long w = 0; w < nw; w++) {
            uint64_t key; /* the rotation noise of window w (random, lf) */
            long start = rl_data_window(&ds.val, L, (uint64_t)seed, w, &key);
            wl[w] = rl_gpt_eval_window(m, ev, ds.val.tok + start, L, key) / (double)L;
            mean += wl[w];
        }
        mean /= nw;
        for (long w = 0; w < nw; w++)
            var += (wl[w] - mean) * (wl[w] - mean);
        double se = nw > 1 ? sqrt(var / (nw - 1) / nw) : 0, ppl = exp(mean);
        if (i == 0)
            ppl0 = ppl;
        fprintf(o->f, "%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\n", L, nw, mean, se, ppl, ppl / ppl0);
        printf("%8ld %8ld %10.4f %9.4f %10.3f %8.3f %8.1f\n", L, nw, mean, se, ppl, ppl / ppl0,
               now() - t0);
        fflush(stdout);
    }
    rl_outfile_commit(o);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("eval: wrote %s; peak resident memory %.0f MiB\n", out, ru.ru_maxrss / 1024.0);
    free(wl);
    free(def);
    rl_gpt_eval_free(ev);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return 0;
}
