/* cmd_eval.c: `routelab eval`, the study's length-extrapolation protocol:
 * the full-stream, token-paired evaluation (model/evaluate.h) and ppl(T)
 * checked against the run's final validation loss (model/valcheck.h). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "../core/lock.h"
#include "../core/opts.h"
#include "../core/paths.h"
#include "../core/util.h"
#include "../model/ckpt.h"
#include "../model/data.h"
#include "../model/evaluate.h"
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

/* One length of the old protocol (--batches): the windows of rl_eval_windows_plan,
 * no pairing (the paired and newest fields NaN). */
static rl_eval_row legacy_length(const rl_gpt *m, rl_gpt_eval *ev, const rl_tokens *val, const rl_eval_windows *w)
{
    const long L = w->L, nw = w->n;
    rl_eval_row row = { .L = L, .windows = nw, .targets = nw * L, .ref = NAN, .dlog = NAN, .dlog_se = NAN,
                        .new_loss = NAN, .new_ref = NAN, .new_dlog = NAN, .new_se = NAN, .unigram = NAN };
    double mean = 0, var = 0;
    double *wl = rl_xmalloc(sizeof(double) * (size_t)nw);
    for (long i = 0; i < nw; i++) {
        wl[i] = rl_gpt_eval_window(m, ev, val->tok + w->start[i], L, w->key[i]) / (double)L;
        mean += wl[i];
    }
    mean /= nw;
    for (long i = 0; i < nw; i++)
        var += (wl[i] - mean) * (wl[i] - mean);
    free(wl);
    row.loss = mean;
    row.se = nw > 1 ? sqrt(var / (nw - 1) / nw) : NAN;
    return row;
}

/* "%.6f", or NA for NaN (a field a row does not have) */
static void put(FILE *f, double x)
{
    if (isnan(x))
        fputs("\tNA", f);
    else
        fprintf(f, "\t%.6f", x);
}

int cmd_eval(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *lengths = "512,1024,2048", *out = NULL, *logp = NULL,
               *starts = NULL;
    long batches = 20, seed = 42, targets = 65536;
    int bsize = 1, threads = rl_ncores(), full = 0;
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &lengths, "comma-separated window lengths L (the first: ratio 1)"),
        RL_OPT_LONG_("targets", &targets, "at least this many targets per length: ceil(targets / Lmax) "
                                          "spans of the longest length Lmax, spread over the stream", 1, 1e12),
        RL_OPT_FLAG_("full", &full, "every span the validation stream holds (the full stream)"),
        RL_OPT_LONG_("batches", &batches, "old protocol: batches of random windows per length (unpaired)", 1, 1e9),
        RL_OPT_INT_("batch-size", &bsize, "old protocol: windows per batch", 1, 1 << 20),
        RL_OPT_STR_("val-log", &logp, "training log with the final validation loss "
                                      "(default: log.tsv beside the checkpoint)"),
        RL_OPT_STR_("out", &out, "TSV output (default: eval.tsv beside the checkpoint)"),
        RL_OPT_STR_("starts", &starts, "also write every window (length, window, start) to this TSV"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("eval", "--ckpt FILE --data DIR|FILE --lengths 512,1024,... [--targets 65536 | --full] [--seed 42]",
                  "The validation stream is cut from its first token into spans of Lmax + 1\n"
                  "tokens (Lmax: the longest length); --full uses every span, --targets N the\n"
                  "ceil(N / Lmax) spans spread evenly over the stream.  At every length L each\n"
                  "span is tiled by Lmax / L windows of L, so all lengths score the same\n"
                  "targets, and every model, seed and variant reads the same windows.  The\n"
                  "model runs on the whole window with full causal attention (streaming,\n"
                  "memory O(L width)).  Token-paired: each target at window position p >= T\n"
                  "(the trained context) is scored again with only its last T tokens of\n"
                  "context (a window of T ending before it); the paired ratio exp(mean of the\n"
                  "differences) is ppl(L)/ppl(T) on the same tokens (1 for a model that cannot\n"
                  "see past T), and the newest positions p >= T alone give their own ratio.\n"
                  "Beside them: mean cross-entropy and ppl over all positions, ppl /\n"
                  "ppl(first length), and the no-context (add-one unigram of the training\n"
                  "split) loss of the same targets: the dynamic range at this scale.\n"
                  "Standard errors are over windows.  At L = T the mean is checked against the\n"
                  "run's final validation loss (--val-log): the difference, its standard\n"
                  "error and whether they agree within 2 SE.  Schemes with rotation noise\n"
                  "(random, lf) draw it per window from --seed.  --batches / --batch-size:\n"
                  "the old protocol (random windows per length from --seed, no pairing).",
                  opts, argc, argv, NULL, 0);
    rl_err err;
    const int legacy = rl_opt_seen(opts, "batches") || rl_opt_seen(opts, "batch-size");
    if (legacy && (rl_opt_seen(opts, "targets") || full)) {
        rl_fail(&err, RL_EINPUT, "--targets/--full and --batches/--batch-size exclude each other");
        fail(&err);
    }
    if (full && rl_opt_seen(opts, "targets")) {
        rl_fail(&err, RL_EINPUT, "--targets and --full exclude each other");
        fail(&err);
    }
    rl_set_threads(threads);
    long Ls[MAX_LENGTHS];
    int nl = rl_parse_longs("--lengths", lengths, Ls, MAX_LENGTHS);
    /* the outputs against the inputs and each other, before any work */
    char *def = NULL, *deflog = NULL;
    if (ckpath) {
        char *tmp = strdup(ckpath), *dir = dirname(tmp);
        def = out ? NULL : rl_path_join(dir, "eval.tsv");
        deflog = logp ? NULL : rl_path_join(dir, "log.tsv");
        free(tmp);
    }
    const int explicit_log = logp != NULL;
    out = out ? out : def;
    logp = logp ? logp : deflog;
    {
        rl_path_use in[6], outs[2] = { { "--out", out, 0 }, { "--starts", starts, 0 } };
        char *keep[2];
        in[0] = (rl_path_use){ "--ckpt", ckpath, 0 };
        in[1] = (rl_path_use){ "--val-log", logp, 0 };
        rl_paths_data("--data", data, in + 2, keep);
        rl_status st = rl_paths_check(in, 5, outs, 2, &err);
        for (int k = 0; st == RL_OK && k < 2; k++)
            if (outs[k].path)
                st = rl_output_check(outs[k].path, &err);
        free(keep[0]);
        free(keep[1]);
        if (st)
            fail(&err);
    }
    rl_ckpt_meta meta;
    rl_dataset ds;
    rl_gpt *m;
    long maxL;
    if (rl_ckpt_open_eval("eval", ckpath, data, &m, &meta, &ds, &err) ||
        rl_eval_check_lengths(m, Ls, nl, 1, &ds, data, &maxL, &err))
        fail(&err);
    const long T = m->cfg.ctx;
    /* every length's windows before any evaluation: the same for every model */
    rl_eval_windows win[MAX_LENGTHS];
    rl_eval_spans sp = { 0 };
    if (legacy) {
        for (int i = 0; i < nl; i++)
            if (rl_eval_windows_plan(&ds.val, Ls[i], 0, batches * bsize, (uint64_t)seed, &win[i], &err))
                fail(&err);
    } else {
        if (rl_eval_spans_plan(&ds.val, maxL, full ? 0 : targets, &sp, &err))
            fail(&err);
        if (sp.n < sp.wanted)
            for (int i = 0; i < nl; i++)
                printf("eval: length %ld: the validation stream (%ld tokens) holds %ld disjoint windows, %ld "
                       "wanted: %ld targets, not %ld\n", Ls[i], ds.val.n, sp.n * (maxL / Ls[i]),
                       sp.wanted * (maxL / Ls[i]), sp.n * (maxL / Ls[i]) * Ls[i], sp.wanted * (maxL / Ls[i]) * Ls[i]);
        for (int i = 0; i < nl; i++)
            if (maxL % Ls[i])
                printf("eval: length %ld does not divide the longest (%ld): its windows cover %ld of each "
                       "span's %ld targets\n", Ls[i], maxL, maxL / Ls[i] * Ls[i], maxL);
    }
    /* into the checkpoint's own folder (the default, reproduce's): that run
     * folder's lock, so that no train or other eval writes there meanwhile */
    {
        char *tmp = strdup(ckpath), *dir = dirname(tmp);
        char *otmp = strdup(out), *odir = dirname(otmp);
        struct stat a, b;
        rl_lock *lk = NULL;
        if (stat(odir, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
            rl_lock_out(odir, &lk, &err))
            fail(&err);
        free(otmp);
        free(tmp);
    }
    char why[512] = "";
    const double val = read_val(logp, explicit_log, meta.step, why, sizeof why);
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
        for (int i = 0; i < nl; i++) {
            const long nw = legacy ? win[i].n : sp.n * (maxL / Ls[i]);
            for (long w = 0; w < nw; w++)
                fprintf(so->f, "%ld\t%ld\t%ld\n", Ls[i], w,
                        legacy ? win[i].start[w]
                               : rl_eval_window_start(&sp, w / (maxL / Ls[i]), Ls[i], w % (maxL / Ls[i])));
        }
    }
    fprintf(o->f, "length\twindows\tmean_loss\tstderr\tppl\tratio\ttargets\twindows_wanted\tshort\t"
                  "val_loss\tval_diff\tval_diff_se\tval_check\tref_loss\tpaired_logratio\tpaired_se\t"
                  "paired_ratio\tnew_targets\tnew_loss\tnew_ref_loss\tnew_logratio\tnew_se\tnew_ratio\t"
                  "unigram_loss\tspans\tslots\n");
    printf("eval: %s (%s, rotation base %g, %d layers width %d, trained at %ld), %s val %ld tokens; "
           "workspace %.0f MiB\n", ckpath, rl_pos_name(m->cfg.pos), m->cfg.rot_base, m->cfg.layers,
           m->cfg.width, T, data, ds.val.n, rl_gpt_eval_bytes(ev) / 1048576.0);
    if (legacy) {
        printf("eval: old protocol: %ld random windows per length (--batches x --batch-size), seed %ld, "
               "unpaired\n", batches * bsize, seed);
        for (int i = 0; i < nl; i++)
            if (win[i].n < win[i].wanted)
                printf("eval: length %ld: the validation stream (%ld tokens) holds %ld disjoint windows, %ld "
                       "wanted: %ld targets, not %ld\n", Ls[i], ds.val.n, win[i].slots, win[i].wanted,
                       win[i].n * Ls[i], win[i].wanted * Ls[i]);
    } else {
        printf("eval: %s: %ld of the %ld spans of %ld + 1 tokens (%ld targets per length), token-paired "
               "against the last %ld tokens of context, seed %ld\n", full ? "full stream" : "spans spread "
               "over the stream", sp.n, sp.slots, maxL, sp.n * maxL, T, seed);
    }
    double t0 = now();
    float *ref = legacy ? NULL : rl_eval_reference(m, &ds.val, &sp, (uint64_t)seed);
    if (!legacy && !ref) {
        rl_outfile_abort(o);
        if (so)
            rl_outfile_abort(so);
        rl_fail(&err, RL_EINTERNAL, "no memory for the reference's %d windows of %ld tokens", rl_eval_ref_batch(T), T);
        fail(&err);
    }
    float *uni = legacy ? NULL : rl_eval_unigram(&ds.train, m->cfg.vocab);
    if (ref)
        printf("eval: reference (each target beyond T with its last %ld tokens): %.1f s\n", T, now() - t0);
    printf("%8s %8s %10s %9s %10s %8s %9s %9s %8s %8s\n", "length", "windows", "mean_loss", "stderr", "ppl",
           "ratio", "paired", "newest", "unigram", "sec");
    double ppl0 = 0;
    rl_val_check vc;
    int have_T = 0;
    for (int i = 0; i < nl; i++) {
        t0 = now();
        const rl_eval_row r = legacy ? legacy_length(m, ev, &ds.val, &win[i])
                                     : rl_eval_length(m, ev, &ds.val, &sp, ref, uni, Ls[i], T, (uint64_t)seed);
        const long wanted = legacy ? win[i].wanted : sp.wanted * (maxL / Ls[i]);
        const double ppl = exp(r.loss);
        if (i == 0)
            ppl0 = ppl;
        fprintf(o->f, "%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\t%ld\t%ld\t%s", r.L, r.windows, r.loss, r.se, ppl,
                ppl / ppl0, r.targets, wanted, r.windows < wanted ? "yes" : "no");
        if (r.L == T && !have_T) {
            have_T = 1;
            rl_val_check_make(&vc, val, why, meta.val_batches * meta.batch, r.loss, r.se, r.windows);
            fprintf(o->f, "\t%.6f\t%.6f\t%.6f\t%s", vc.val, vc.diff, vc.se, rl_val_verdict_name(vc.verdict));
        } else {
            fprintf(o->f, "\tNA\tNA\tNA\tNA");
        }
        put(o->f, r.ref);
        put(o->f, r.dlog);
        put(o->f, r.dlog_se);
        put(o->f, exp(r.dlog));
        fprintf(o->f, "\t%ld", r.new_targets);
        put(o->f, r.new_loss);
        put(o->f, r.new_ref);
        put(o->f, r.new_dlog);
        put(o->f, r.new_se);
        put(o->f, exp(r.new_dlog));
        put(o->f, r.unigram);
        fprintf(o->f, "\t%ld\t%ld\n", legacy ? 0 : sp.n, legacy ? 0 : sp.slots);
        printf("%8ld %8ld %10.4f %9.4f %10.3f %8.3f %9.3f %9.3f %8.3f %8.1f\n", r.L, r.windows, r.loss, r.se,
               ppl, ppl / ppl0, exp(r.dlog), exp(r.new_dlog), r.unigram, now() - t0);
        fflush(stdout);
    }
    if (so && rl_outfile_close(so, &err)) {
        rl_outfile_abort(o);
        fail(&err);
    }
    rl_outfile_commit(o);
    if (!have_T)
        printf("eval: validation check unavailable: the trained context T = %ld is not among --lengths\n", T);
    else if (vc.verdict == RL_VAL_UNAVAILABLE)
        printf("eval: validation check unavailable: %s\n", vc.why);
    else
        printf("eval: validation check at L = T = %ld: eval loss - final validation loss (%s, step %ld, "
               "%ld windows) = %.4f - %.4f = %+.4f (se %.4f): %s within 2 SE\n", T, logp,
               meta.step, vc.nval, vc.val + vc.diff, vc.val, vc.diff, vc.se,
               vc.verdict == RL_VAL_AGREE ? "AGREE" : "DISAGREE, not");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("eval: wrote %s; peak resident memory %.0f MiB\n", out, ru.ru_maxrss / 1024.0);
    if (legacy)
        for (int i = 0; i < nl; i++)
            rl_eval_windows_free(&win[i]);
    rl_eval_spans_free(&sp);
    free(ref);
    free(uni);
    free(def);
    free(deflog);
    rl_gpt_eval_free(ev);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return 0;
}
