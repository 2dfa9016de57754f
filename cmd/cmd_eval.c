/* cmd_eval.c: `routelab eval`, the study's length-extrapolation protocol:
 * token-matched, paired windows (model/data.h) and ppl(T) checked against
 * the run's final validation loss (model/valcheck.h). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "commands.h"
#include "../core/opts.h"
#include "../core/util.h"
#include "../model/ckpt.h"
#include "../model/data.h"
#include "../model/valcheck.h"

#define MAX_LENGTHS 64

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void fail(rl_err *err)
{
    rl_err_prefix(err, "eval");
    rl_err_exit(err);
}

/* The run's final validation loss from its log: a log named by --val-log
 * must be readable (exit 2); the default one beside the checkpoint may be
 * missing (the check then says it is unavailable). */
static double read_val(const char *logp, int explicit_log, long step, char *why, size_t n)
{
    rl_err err;
    double val;
    if (rl_val_from_log(logp, step, &val, why, n, &err) == RL_OK)
        return val;
    if (explicit_log)
        fail(&err);
    snprintf(why, n, "%s", err.msg);
    return NAN;
}

int cmd_eval(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *lengths = "512,1024,2048", *out = NULL, *logp = NULL,
               *starts = NULL;
    long batches = 20, seed = 42, targets = 65536;
    int bsize = 1, threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &lengths, "comma-separated window lengths L (the first: ratio 1)"),
        RL_OPT_LONG_("targets", &targets, "next-token targets per length (token-matched)", 1, 1e12),
        RL_OPT_LONG_("batches", &batches, "old protocol: batches of windows per length", 1, 1e9),
        RL_OPT_INT_("batch-size", &bsize, "old protocol: windows per batch", 1, 1 << 20),
        RL_OPT_STR_("val-log", &logp, "training log with the final validation loss "
                                      "(default: log.tsv beside the checkpoint)"),
        RL_OPT_STR_("out", &out, "TSV output (default: eval.tsv beside the checkpoint)"),
        RL_OPT_STR_("starts", &starts, "also write every window (length, window, start) to this TSV"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("eval", "--ckpt FILE --data DIR|FILE --lengths 512,1024,... [--targets 65536] [--seed 42]",
                  "Token-matched: at every length L, ceil(targets / L) windows of L + 1\n"
                  "validation tokens (at least --targets next-token targets; short lengths\n"
                  "use many windows, long ones few).  The windows of one length have\n"
                  "disjoint targets, chosen from the stream laid out end to end from a\n"
                  "random offset; they depend only on the data, L and --seed, never on the\n"
                  "model, so every variant reads the same windows (paired).  When the\n"
                  "stream holds fewer, all that fit are used and the output says so.\n"
                  "--batches / --batch-size instead ask for batches x batch-size windows\n"
                  "per length (the old protocol's count).  The model runs on the whole\n"
                  "window with full causal attention (streaming, memory O(L width)); mean\n"
                  "cross-entropy, its standard error over windows, ppl = exp(mean), ppl /\n"
                  "ppl(first length).  At L = T (the trained context) the mean is checked\n"
                  "against the run's final validation loss (--val-log): the difference,\n"
                  "its standard error and whether they agree within 2 SE.  Schemes with\n"
                  "rotation noise (random, lf) draw it per window from the seed.",
                  opts, argc, argv, NULL, 0);
    rl_err err;
    const int legacy = rl_opt_seen(opts, "batches") || rl_opt_seen(opts, "batch-size");
    if (legacy && rl_opt_seen(opts, "targets")) {
        rl_fail(&err, RL_EINPUT, "--targets and --batches/--batch-size exclude each other");
        fail(&err);
    }
    rl_set_threads(threads);
    long Ls[MAX_LENGTHS];
    int nl = rl_parse_longs("--lengths", lengths, Ls, MAX_LENGTHS);
    rl_ckpt_meta meta;
    rl_dataset ds;
    rl_gpt *m;
    long maxL;
    if (rl_ckpt_open_eval("eval", ckpath, data, &m, &meta, &ds, &err) ||
        rl_eval_check_lengths(m, Ls, nl, 1, &ds, data, &maxL, &err))
        fail(&err);
    /* every length's windows before any evaluation: the same for every model */
    rl_eval_windows win[MAX_LENGTHS];
    for (int i = 0; i < nl; i++)
        if (rl_eval_windows_plan(&ds.val, Ls[i], legacy ? 0 : targets, legacy ? batches * bsize : 0,
                                 (uint64_t)seed, &win[i], &err))
            fail(&err);
    char *tmp = strdup(ckpath), *dir = dirname(tmp);
    char *def = out ? NULL : rl_path_join(dir, "eval.tsv");
    char *deflog = logp ? NULL : rl_path_join(dir, "log.tsv");
    free(tmp);
    out = out ? out : def;
    char why[512] = "";
    const double val = read_val(logp ? logp : deflog, logp != NULL, meta.step, why, sizeof why);
    logp = logp ? logp : deflog;
    rl_gpt_eval *ev = rl_gpt_eval_alloc(m, maxL);
    /* both outputs through temporaries; a failure leaves neither behind */
    rl_outfile *o, *so = NULL;
    if (rl_outfile_create(out, &o, &err))
        fail(&err);
    if (starts && rl_outfile_create(starts, &so, &err)) {
        rl_outfile_abort(o);
        fail(&err);
    }
    if (so) { /* the windows, to check that two evaluations read the same text */
        fprintf(so->f, "length\twindow\tstart\n");
        for (int i = 0; i < nl; i++)
            for (long w = 0; w < win[i].n; w++)
                fprintf(so->f, "%ld\t%ld\t%ld\n", Ls[i], w, win[i].start[w]);
    }
    fprintf(o->f, "length\twindows\tmean_loss\tstderr\tppl\tratio\ttargets\twindows_wanted\tshort\t"
                  "val_loss\tval_diff\tval_diff_se\tval_check\n");
    printf("eval: %s (%s, rotation base %g, %d layers width %d, trained at %d), %s val %ld tokens; "
           "workspace %.0f MiB\n", ckpath, rl_pos_name(m->cfg.pos), m->cfg.rot_base, m->cfg.layers,
           m->cfg.width, m->cfg.ctx, data,
           ds.val.n, rl_gpt_eval_bytes(ev) / 1048576.0);
    if (legacy)
        printf("eval: %ld windows per length (--batches x --batch-size), seed %ld\n", batches * bsize, seed);
    else
        printf("eval: token-matched, at least %ld targets per length, seed %ld\n", targets, seed);
    for (int i = 0; i < nl; i++)
        if (win[i].n < win[i].wanted)
            printf("eval: length %ld: the validation stream (%ld tokens) holds %ld disjoint windows, "
                   "%ld wanted: %ld targets, not %ld\n", Ls[i], ds.val.n, win[i].slots,
                   win[i].wanted, win[i].n * Ls[i], win[i].wanted * Ls[i]);
    printf("%8s %8s %10s %9s %10s %8s %10s %8s\n", "length", "windows", "mean_loss", "stderr", "ppl",
           "ratio", "targets", "sec");
    double ppl0 = 0;
    rl_val_check vc;
    int have_T = 0;
    for (int i = 0; i < nl; i++) {
        const long L = Ls[i], nw = win[i].n;
        double t0 = now(), mean = 0, var = 0;
        double *wl = rl_xmalloc(sizeof(double) * (size_t)nw);
        for (long w = 0; w < nw; w++) {
            wl[w] = rl_gpt_eval_window(m, ev, ds.val.tok + win[i].start[w], L, win[i].key[w]) / (double)L;
            mean += wl[w];
        }
        mean /= nw;
        for (long w = 0; w < nw; w++)
            var += (wl[w] - mean) * (wl[w] - mean);
        free(wl);
        double se = nw > 1 ? sqrt(var / (nw - 1) / nw) : NAN, ppl = exp(mean);
        if (i == 0)
            ppl0 = ppl;
        fprintf(o->f, "%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\t%ld\t%ld\t%s", L, nw, mean, se, ppl, ppl / ppl0,
                nw * L, win[i].wanted, nw < win[i].wanted ? "yes" : "no");
        if (L == m->cfg.ctx && !have_T) {
            have_T = 1;
            rl_val_check_make(&vc, val, why, meta.val_batches * meta.batch, mean, se, nw);
            fprintf(o->f, "\t%.6f\t%.6f\t%.6f\t%s\n", vc.val, vc.diff, vc.se, rl_val_verdict_name(vc.verdict));
        } else {
            fprintf(o->f, "\tNA\tNA\tNA\tNA\n");
        }
        printf("%8ld %8ld %10.4f %9.4f %10.3f %8.3f %10ld %8.1f\n", L, nw, mean, se, ppl, ppl / ppl0,
               nw * L, now() - t0);
        fflush(stdout);
    }
    if (so && rl_outfile_close(so, &err)) {
        rl_outfile_abort(o);
        fail(&err);
    }
    rl_outfile_commit(o);
    if (!have_T)
        printf("eval: validation check unavailable: the trained context T = %d is not among --lengths\n",
               m->cfg.ctx);
    else if (vc.verdict == RL_VAL_UNAVAILABLE)
        printf("eval: validation check unavailable: %s\n", vc.why);
    else
        printf("eval: validation check at L = T = %d: eval loss - final validation loss (%s, step %ld, "
               "%ld windows) = %.4f - %.4f = %+.4f (se %.4f): %s within 2 SE\n", m->cfg.ctx, logp,
               meta.step, vc.nval, vc.val + vc.diff, vc.val, vc.diff, vc.se,
               vc.verdict == RL_VAL_AGREE ? "AGREE" : "DISAGREE, not");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("eval: wrote %s; peak resident memory %.0f MiB\n", out, ru.ru_maxrss / 1024.0);
    for (int i = 0; i < nl; i++)
        rl_eval_windows_free(&win[i]);
    free(def);
    free(deflog);
    rl_gpt_eval_free(ev);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return 0;
}
