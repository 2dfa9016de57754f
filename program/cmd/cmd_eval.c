/* cmd_eval.c: `routelab eval`, the study's length-extrapolation protocol:
 * the full-stream, token-paired evaluation (model/evaluate.h) and ppl(T)
 * checked against the run's final validation loss (model/valcheck.h). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "../../base/core/lock.h"
#include "../../base/core/opts.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../model/ckpt.h"
#include "../../model/data.h"
#include "../../model/evalpos.h"
#include "../../model/evaluate.h"
#include "../../model/valcheck.h"

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

/* One evaluation: the flags, then what they led to. */
typedef struct {
    /* the flags */
    const char *ckpath, *data, *lengths, *out, *logp, *starts, *positions;
    long batches, seed, targets;
    int windows;  /* RL_EVAL_SPANS | RL_EVAL_SAMPLED (--windows) */
    long wseed;   /* the sampled spans' seed (--windows-seed; default --seed) */
    double prune_eps; /* the streaming attention's pruning (--prune-eps; attention.h) */
    int bsize, full, force;
    int legacy;       /* --batches / --batch-size: the old protocol */
    int explicit_log; /* --val-log given: it must be readable */
    long Ls[MAX_LENGTHS];
    int nl;
    char *def, *deflog; /* the default --out and --val-log, beside the checkpoint */
    /* the model, its data and the windows every length reads */
    rl_ckpt_meta meta;
    rl_dataset ds;
    rl_gpt *m;
    long maxL, T;
    rl_eval_windows win[MAX_LENGTHS]; /* the old protocol's */
    rl_eval_spans sp;                 /* the paired protocol's */
    float *keep;                      /* every target's loss at the longest length (--positions) */
} eval_run;

/* The flags into e (each bad one: one line, exit 2). */
static void parse_flags(eval_run *e, int argc, char **argv)
{
    e->ckpath = NULL, e->data = NULL, e->lengths = "512,1024,2048", e->out = NULL, e->logp = NULL,
    e->starts = NULL, e->positions = NULL;
    e->batches = 20, e->seed = 42, e->targets = 65536;
    e->windows = RL_EVAL_SPANS, e->wseed = 0;
    e->prune_eps = RL_ATTN_PRUNE_EXACT;
    e->bsize = 1, e->full = 0, e->force = 0;
    int threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &e->ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &e->data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &e->lengths, "comma-separated window lengths L (the first: ratio 1)"),
        RL_OPT_LONG_("targets", &e->targets, "at least this many targets per length: ceil(targets / Lmax) "
                                             "spans of the longest length Lmax, spread over the stream", 1, 1e12),
        RL_OPT_FLAG_("full", &e->full, "every span the validation stream holds (the full stream)"),
        RL_OPT_CHOICE_("windows", &e->windows, "where the spans lie: spans (spread evenly, the same for every "
                                               "seed) or sampled (at random over the stream from --windows-seed)",
                       RL_EVAL_WINDOWS_CHOICES),
        RL_OPT_LONG_("windows-seed", &e->wseed, "--windows sampled: the seed of the spans' draw (default: --seed)",
                     0, 9.2e18),
        RL_OPT_STR_("positions", &e->positions, "also write the per-position loss and prefix perplexity at the "
                                                "longest length to this TSV"),
        RL_OPT_LONG_("batches", &e->batches, "old protocol: batches of random windows per length (unpaired)", 1, 1e9),
        RL_OPT_INT_("batch-size", &e->bsize, "old protocol: windows per batch", 1, 1 << 20),
        RL_OPT_DBL_("prune-eps", &e->prune_eps, "with a distance bias (ALiBi): skip the keys whose share of a "
                    "row's attention is provably at most this (0: never; the default 2^-100 skips only "
                    "weights the softmax stores as 0: the numbers of no pruning, byte for byte)", 0, 1,
                    RL_LO | RL_HI_OPEN),
        RL_OPT_STR_("val-log", &e->logp, "training log with the final validation loss "
                                         "(default: log.tsv beside the checkpoint)"),
        RL_OPT_STR_("out", &e->out, "TSV output (default: eval.tsv beside the checkpoint)"),
        RL_OPT_STR_("starts", &e->starts, "also write every window (length, window, start) to this TSV"),
        RL_OPT_FLAG_("force", &e->force, "replace outputs that exist already (without it, an existing "
                                         "eval.tsv is refused, as train refuses a run's folder)"),
        RL_OPT_SEED_(&e->seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("eval", "--ckpt FILE --data DIR|FILE --lengths 512,1024,... [--targets 65536 | --full] "
                          "[--windows spans|sampled] [--seed 42]",
                  "The validation stream is cut from its first token into spans of Lmax + 1\n"
                  "tokens (Lmax: the longest length); --full uses every span, --targets N the\n"
                  "ceil(N / Lmax) spans spread evenly over the stream.  At every length L each\n"
                  "span is tiled by Lmax / L windows of L, so all lengths score the same\n"
                  "targets, and every model, seed and variant reads the same windows.\n"
                  "--windows sampled places the same number of spans at random over the whole\n"
                  "stream (disjoint targets), drawn from --windows-seed (default --seed): every\n"
                  "model evaluated with that seed reads the same windows.  --positions FILE:\n"
                  "the loss at each position of the longest windows (log-spaced bins) and the\n"
                  "prefix perplexity exp(mean loss of positions < l) at each l.  The\n"
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
                  "error and whether they agree within 2 SE.  Schemes with noise (random,\n"
                  "random_pos, lf: angles; random-hh: reflections) draw it per window from\n"
                  "--seed.  --batches / --batch-size: the old protocol (random windows per\n"
                  "length from --seed, no pairing).",
                  opts, argc, argv, NULL, 0);
    rl_err err;
    e->legacy = rl_opt_seen(opts, "batches") || rl_opt_seen(opts, "batch-size");
    if (e->legacy && (rl_opt_seen(opts, "targets") || e->full)) {
        rl_fail(&err, RL_EINPUT, "--targets/--full and --batches/--batch-size exclude each other");
        fail(&err);
    }
    if (e->full && rl_opt_seen(opts, "targets")) {
        rl_fail(&err, RL_EINPUT, "--targets and --full exclude each other");
        fail(&err);
    }
    if (e->legacy && (rl_opt_seen(opts, "windows") || rl_opt_seen(opts, "windows-seed") || e->positions)) {
        rl_fail(&err, RL_EINPUT, "--windows, --windows-seed and --positions do not apply to --batches/--batch-size");
        fail(&err);
    }
    if (rl_opt_seen(opts, "windows-seed") && e->windows != RL_EVAL_SAMPLED) {
        rl_fail(&err, RL_EINPUT, "--windows-seed applies to --windows sampled only");
        fail(&err);
    }
    if (!rl_opt_seen(opts, "windows-seed"))
        e->wseed = e->seed;
    rl_set_threads(threads);
    e->nl = rl_parse_longs("--lengths", e->lengths, e->Ls, MAX_LENGTHS);
}

/* The outputs (default: beside the checkpoint) against the inputs and each
 * other, before any work. */
static void check_paths(eval_run *e)
{
    rl_err err;
    e->def = NULL, e->deflog = NULL;
    if (e->ckpath) {
        char *tmp = strdup(e->ckpath), *dir = dirname(tmp);
        e->def = e->out ? NULL : rl_path_join(dir, "eval.tsv");
        e->deflog = e->logp ? NULL : rl_path_join(dir, "log.tsv");
        free(tmp);
    }
    e->explicit_log = e->logp != NULL;
    e->out = e->out ? e->out : e->def;
    e->logp = e->logp ? e->logp : e->deflog;
    rl_path_use in[6], outs[3] = { { "--out", e->out, 0 }, { "--starts", e->starts, 0 },
                                   { "--positions", e->positions, 0 } };
    char *keep[2];
    in[0] = (rl_path_use){ "--ckpt", e->ckpath, 0 };
    in[1] = (rl_path_use){ "--val-log", e->logp, 0 };
    rl_paths_data("--data", e->data, in + 2, keep);
    rl_status st = rl_paths_check(in, 5, outs, 3, &err);
    for (int k = 0; st == RL_OK && k < 3; k++)
        if (outs[k].path) {
            st = rl_output_check(outs[k].path, &err);
            /* an earlier evaluation is a result: replaced only when asked */
            if (st == RL_OK && !e->force && access(outs[k].path, F_OK) == 0)
                st = rl_fail(&err, RL_EINPUT, "%s %s exists (an earlier evaluation): --force replaces it, or "
                                              "choose another %s", outs[k].flag, outs[k].path, outs[k].flag);
        }
    free(keep[0]);
    free(keep[1]);
    if (st)
        fail(&err);
}

/* Every length's windows before any evaluation: the same for every model
 * (a stream too short for what was asked is said, per length). */
static void plan_windows(eval_run *e)
{
    rl_err err;
    const long *Ls = e->Ls, maxL = e->maxL;
    const rl_eval_spans *sp = &e->sp;
    if (e->legacy) {
        for (int i = 0; i < e->nl; i++)
            if (rl_eval_windows_plan(&e->ds.val, Ls[i], 0, e->batches * e->bsize, (uint64_t)e->seed, &e->win[i],
                                     &err))
                fail(&err);
        return;
    }
    const long targets = e->full ? 0 : e->targets;
    if (e->windows == RL_EVAL_SAMPLED ? rl_eval_spans_sample(&e->ds.val, maxL, targets, (uint64_t)e->wseed, &e->sp, &err)
                                      : rl_eval_spans_plan(&e->ds.val, maxL, targets, &e->sp, &err))
        fail(&err);
    if (sp->n < sp->wanted)
        for (int i = 0; i < e->nl; i++)
            printf("eval: length %ld: the validation stream (%ld tokens) holds %ld disjoint windows, %ld "
                   "wanted: %ld targets, not %ld\n", Ls[i], e->ds.val.n, sp->n * (maxL / Ls[i]),
                   sp->wanted * (maxL / Ls[i]), sp->n * (maxL / Ls[i]) * Ls[i], sp->wanted * (maxL / Ls[i]) * Ls[i]);
    for (int i = 0; i < e->nl; i++)
        if (maxL % Ls[i])
            printf("eval: length %ld does not divide the longest (%ld): its windows cover %ld of each "
                   "span's %ld targets\n", Ls[i], maxL, maxL / Ls[i] * Ls[i], maxL);
}

/* Into the checkpoint's own folder (the default, reproduce's): that run
 * folder's lock, held to the exit, so that no train or other eval writes
 * there meanwhile. */
static void lock_run_folder(const eval_run *e)
{
    rl_err err;
    char *tmp = strdup(e->ckpath), *dir = dirname(tmp);
    char *otmp = strdup(e->out), *odir = dirname(otmp);
    struct stat a, b;
    rl_lock *lk = NULL;
    if (stat(odir, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
        rl_lock_out(odir, &lk, &err))
        fail(&err);
    free(otmp);
    free(tmp);
}

/* Length i's windows: how many, and where window w starts. */
static long windows_of(const eval_run *e, int i)
{
    return e->legacy ? e->win[i].n : e->sp.n * (e->maxL / e->Ls[i]);
}

static long window_start(const eval_run *e, int i, long w)
{
    const long per = e->maxL / e->Ls[i];
    return e->legacy ? e->win[i].start[w] : rl_eval_window_start(&e->sp, w / per, e->Ls[i], w % per);
}

/* Both outputs through temporaries, a failure leaves neither behind; the
 * windows into *so (--starts), to check that two evaluations read the same
 * text. */
static void open_outputs(const eval_run *e, rl_outfile **o, rl_outfile **so, rl_outfile **po)
{
    rl_err err;
    *so = *po = NULL;
    if (rl_outfile_create(e->out, o, &err))
        fail(&err);
    if (e->starts && rl_outfile_create(e->starts, so, &err)) {
        rl_outfile_abort(*o);
        fail(&err);
    }
    if (e->positions && rl_outfile_create(e->positions, po, &err)) {
        rl_outfile_abort(*o);
        if (*so)
            rl_outfile_abort(*so);
        fail(&err);
    }
    if (*so) {
        fprintf((*so)->f, "length\twindow\tstart\n");
        for (int i = 0; i < e->nl; i++) {
            const long nw = windows_of(e, i);
            for (long w = 0; w < nw; w++)
                fprintf((*so)->f, "%ld\t%ld\t%ld\n", e->Ls[i], w, window_start(e, i, w));
        }
    }
    fprintf((*o)->f, "length\twindows\tmean_loss\tstderr\tppl\tratio\ttargets\twindows_wanted\tshort\t"
                     "val_loss\tval_diff\tval_diff_se\tval_check\tref_loss\tpaired_logratio\tpaired_se\t"
                     "paired_ratio\tnew_targets\tnew_loss\tnew_ref_loss\tnew_logratio\tnew_se\tnew_ratio\t"
                     "unigram_loss\tspans\tslots\tprune_eps\tpruned\tprune_mass\tprune_out\n");
}

/* What is evaluated, and on which windows. */
static void print_plan(const eval_run *e, const rl_gpt_eval *ev)
{
    const rl_gpt *m = e->m;
    printf("eval: %s (%s, rotation base %g, %d layers width %d, trained at %ld), %s val %ld tokens; "
           "workspace %.0f MiB\n", e->ckpath, rl_pos_name(m->cfg.pos), m->cfg.rot_base, m->cfg.layers,
           m->cfg.width, e->T, e->data, e->ds.val.n, rl_gpt_eval_bytes(ev) / 1048576.0);
    if (e->legacy) {
        printf("eval: old protocol: %ld random windows per length (--batches x --batch-size), seed %ld, "
               "unpaired\n", e->batches * e->bsize, e->seed);
        for (int i = 0; i < e->nl; i++) {
            const rl_eval_windows *w = &e->win[i];
            if (w->n < w->wanted)
                printf("eval: length %ld: the validation stream (%ld tokens) holds %ld disjoint windows, %ld "
                       "wanted: %ld targets, not %ld\n", e->Ls[i], e->ds.val.n, w->slots, w->wanted,
                       w->n * e->Ls[i], w->wanted * e->Ls[i]);
        }
    } else {
        char how[96];
        if (e->windows == RL_EVAL_SAMPLED)
            snprintf(how, sizeof how, "spans sampled over the stream (windows seed %ld)", e->wseed);
        else
            snprintf(how, sizeof how, "%s", e->full ? "full stream" : "spans spread over the stream");
        printf("eval: %s: %ld of the %ld spans of %ld + 1 tokens (%ld targets per length), token-paired "
               "against the last %ld tokens of context, seed %ld\n", how, e->sp.n, e->sp.slots, e->maxL,
               e->sp.n * e->maxL, e->T, e->seed);
    }
}

/* One length's row of eval.tsv: its numbers, the validation check's
 * columns (vc: at L = T, else NULL), the paired and newest columns, and
 * what pruning did at that length (pr: NA without a distance bias). */
static void write_row(FILE *f, const eval_run *e, const rl_eval_row *r, long wanted, double ppl, double ppl0,
                      const rl_val_check *vc, const rl_attn_prune *pr)
{
    fprintf(f, "%ld\t%ld\t%.6f\t%.6f\t%.4f\t%.4f\t%ld\t%ld\t%s", r->L, r->windows, r->loss, r->se, ppl,
            ppl / ppl0, r->targets, wanted, r->windows < wanted ? "yes" : "no");
    if (vc)
        fprintf(f, "\t%.6f\t%.6f\t%.6f\t%s", vc->val, vc->diff, vc->se, rl_val_verdict_name(vc->verdict));
    else
        fprintf(f, "\tNA\tNA\tNA\tNA");
    put(f, r->ref);
    put(f, r->dlog);
    put(f, r->dlog_se);
    put(f, exp(r->dlog));
    fprintf(f, "\t%ld", r->new_targets);
    put(f, r->new_loss);
    put(f, r->new_ref);
    put(f, r->new_dlog);
    put(f, r->new_se);
    put(f, exp(r->new_dlog));
    put(f, r->unigram);
    fprintf(f, "\t%ld\t%ld", e->legacy ? 0 : e->sp.n, e->legacy ? 0 : e->sp.slots);
    if (pr->pairs > 0) /* a bound is a bound: %.3g rounds it to nearest, so print it to 17 digits */
        fprintf(f, "\t%.3g\t%.6f\t%.17g\t%.17g\n", e->prune_eps, pr->skipped / pr->pairs, pr->mass, pr->out);
    else
        fputs("\tNA\tNA\tNA\tNA\n", f);
}

/* Every length in turn, a row of o and a line on stdout each; at the first
 * L = T the validation check against val (why: why val is missing) into
 * *vc.  Returns whether there was such a length. */
static int eval_lengths(const eval_run *e, rl_gpt_eval *ev, const float *ref, const float *uni, double val,
                        const char *why, rl_outfile *o, rl_val_check *vc)
{
    printf("%8s %8s %10s %9s %10s %8s %9s %9s %8s %8s\n", "length", "windows", "mean_loss", "stderr", "ppl",
           "ratio", "paired", "newest", "unigram", "sec");
    double ppl0 = 0;
    int have_T = 0, kept = 0;
    for (int i = 0; i < e->nl; i++) {
        const double t0 = now();
        /* the longest length's losses, once, for --positions */
        float *keep = e->keep && !kept && e->Ls[i] == e->maxL ? e->keep : NULL;
        kept |= keep != NULL;
        rl_gpt_eval_prune_take(ev); /* this length's alone */
        const rl_eval_row r = e->legacy ? legacy_length(e->m, ev, &e->ds.val, &e->win[i])
                                        : rl_eval_length(e->m, ev, &e->ds.val, &e->sp, ref, uni, e->Ls[i], e->T,
                                                         (uint64_t)e->seed, keep);
        if (rl_gpt_eval_nomem(ev)) {
            rl_outfile_abort(o);
            rl_fatal("eval: out of memory at length %ld", e->Ls[i]);
        }
        if (rl_gpt_eval_bad_layer(ev) >= 0) { /* -nan in eval.tsv with exit 0 before */
            rl_outfile_abort(o);
            char what[64];
            rl_die("eval: %s: the activations of %s are not finite at length %ld (its weights overflow float)",
                   e->ckpath, rl_gpt_eval_bad_what(e->m, ev, what, sizeof what), e->Ls[i]);
        }
        const long wanted = e->legacy ? e->win[i].wanted : e->sp.wanted * (e->maxL / e->Ls[i]);
        const double ppl = exp(r.loss);
        if (i == 0)
            ppl0 = ppl;
        const int at_T = r.L == e->T && !have_T;
        if (at_T) {
            have_T = 1;
            rl_val_check_make(vc, val, why, e->meta.val_batches * e->meta.batch, r.loss, r.se, r.windows);
        }
        const rl_attn_prune pr = rl_gpt_eval_prune_take(ev);
        write_row(o->f, e, &r, wanted, ppl, ppl0, at_T ? vc : NULL, &pr);
        printf("%8ld %8ld %10.4f %9.4f %10.3f %8.3f %9.3f %9.3f %8.3f %8.1f\n", r.L, r.windows, r.loss, r.se,
               ppl, ppl / ppl0, exp(r.dlog), exp(r.new_dlog), r.unigram, now() - t0);
        fflush(stdout);
    }
    return have_T;
}

/* The validation check's line (or why there is none). */
static void print_val_check(const eval_run *e, int have_T, const rl_val_check *vc)
{
    const long T = e->T;
    if (!have_T)
        printf("eval: validation check unavailable: the trained context T = %ld is not among --lengths\n", T);
    else if (vc->verdict == RL_VAL_UNAVAILABLE)
        printf("eval: validation check unavailable: %s\n", vc->why);
    else
        printf("eval: validation check at L = T = %ld: eval loss - final validation loss (%s, step %ld, "
               "%ld windows) = %.4f - %.4f = %+.4f (se %.4f): %s within 2 SE\n", T, e->logp,
               e->meta.step, vc->nval, vc->val + vc->diff, vc->val, vc->diff, vc->se,
               vc->verdict == RL_VAL_AGREE ? "AGREE" : "DISAGREE, not");
}

int cmd_eval(int argc, char **argv)
{
    eval_run e = { 0 };
    parse_flags(&e, argc, argv);
    check_paths(&e);
    rl_err err;
    if (rl_ckpt_open_eval("eval", e.ckpath, e.data, &e.m, &e.meta, &e.ds, &err) ||
        rl_eval_check_lengths(e.m, e.Ls, e.nl, 1, &e.ds, e.data, &e.maxL, &err))
        fail(&err);
    e.T = e.m->cfg.ctx;
    plan_windows(&e);
    lock_run_folder(&e);
    char why[512] = "";
    const double val = read_val(e.logp, e.explicit_log, e.meta.step, why, sizeof why);
    rl_gpt_eval *ev = rl_gpt_eval_alloc(e.m, e.maxL);
    if (!ev) {
        rl_fail(&err, RL_ENOMEM, "no memory for the evaluation workspace");
        fail(&err);
    }
    rl_outfile *o, *so, *po;
    open_outputs(&e, &o, &so, &po);
    if (po)
        e.keep = rl_xmalloc(sizeof(float) * (size_t)(e.sp.n * e.maxL));
    rl_gpt_eval_prune_eps(ev, e.prune_eps);
    print_plan(&e, ev);
    double t0 = now();
    float *ref = e.legacy ? NULL : rl_eval_reference(e.m, &e.ds.val, &e.sp, (uint64_t)e.seed);
    if (!e.legacy && !ref) {
        rl_outfile_abort(o);
        if (so)
            rl_outfile_abort(so);
        if (po)
            rl_outfile_abort(po);
        rl_fail(&err, RL_EINTERNAL, "no memory for the reference's %d windows of %ld tokens", rl_eval_ref_batch(e.T),
                e.T);
        fail(&err);
    }
    float *uni = e.legacy ? NULL : rl_eval_unigram(&e.ds.train, e.m->cfg.vocab);
    if (!e.legacy && !uni)
        rl_fatal("eval: out of memory (the unigram losses)"); /* the outputs' temporaries go at exit */
    if (ref)
        printf("eval: reference (each target beyond T with its last %ld tokens): %.1f s\n", e.T, now() - t0);
    rl_val_check vc;
    const int have_T = eval_lengths(&e, ev, ref, uni, val, why, o, &vc);
    if (po)
        rl_evalpos_write(po->f, e.keep, e.sp.n, e.maxL);
    if (so && rl_outfile_close(so, &err)) {
        rl_outfile_abort(o);
        if (po)
            rl_outfile_abort(po);
        fail(&err);
    }
    if (po && rl_outfile_close(po, &err)) {
        rl_outfile_abort(o);
        fail(&err);
    }
    rl_outfile_commit(o);
    print_val_check(&e, have_T, &vc);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("eval: wrote %s; peak resident memory %.0f MiB\n", e.out, ru.ru_maxrss / 1024.0);
    if (e.legacy)
        for (int i = 0; i < e.nl; i++)
            rl_eval_windows_free(&e.win[i]);
    rl_eval_spans_free(&e.sp);
    free(ref);
    free(uni);
    free(e.keep);
    free(e.def);
    free(e.deflog);
    rl_gpt_eval_free(ev);
    rl_gpt_free(e.m);
    rl_data_free(&e.ds);
    return 0;
}
