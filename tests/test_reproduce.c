/* test_reproduce.c: `routelab reproduce` on a miniature grid (two variants,
 * a few steps, tiny sizes) writes every promised file, an interrupted grid
 * continues without retraining the models it had finished, and a grid trains
 * exactly what `routelab train` trains for the same flags. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "helpers.h"

/* The miniature grid: 1 layer of width 16, context 8, 8 steps, evaluated
 * at 8, 16, 32; no theory report (its own tests cover it); one seed (42,
 * the quick preset's), unless a test adds its own --seeds after it. */
#define MINI TH_MINI_GRID " --eval-batches 2 --probe-mult 4 --seeds 1"

/* A non-empty file under dir (a PNG must start with the PNG signature). */
static void expect_file(const char *dir, const char *name)
{
    char *p = th_path(dir, name);
    struct stat st;
    cr_expect(stat(p, &st) == 0 && st.st_size > 0, "missing or empty: %s", p);
    if (strstr(name, ".png")) {
        FILE *f = fopen(p, "rb");
        unsigned char sig[8] = { 0 };
        if (f) {
            cr_expect_eq(fread(sig, 1, 8, f), 8);
            fclose(f);
        }
        cr_expect(!memcmp(sig, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", p);
    }
    free(p);
}

static struct timespec mtime(const char *dir, const char *name)
{
    char *p = th_path(dir, name);
    struct stat st;
    cr_assert(stat(p, &st) == 0, "missing: %s", p);
    free(p);
    return st.st_mtim;
}

static int same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static void run_grid(const char *d, const char *txt, const char *extra, char *out, size_t outlen)
{
    char f[1024];
    snprintf(f, sizeof f, "--eval-batches 2 --probe-mult 4 --seeds 1 %s", extra);
    th_mini_grid(d, txt, f, out, outlen);
}

Test(reproduce, miniature_grid_writes_every_file, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_grid(d, txt, "--variants rope,alibi --probe rope", out, sizeof out);
    cr_expect(strstr(out, "ETA for the grid") != NULL, "no progress lines:\n%s", out);

    /* the grid's files */
    const char *top[] = { "config.txt", "table.tsv", "REPORT.md", "ppl.png", "ratio.png", "training.png" };
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        expect_file(g, top[i]);
    /* per model: configuration, checkpoint, training log, evaluation */
    const char *var[] = { "rope", "alibi" };
    const char *per[] = { "config.txt", "ckpt.bin", "log.tsv", "eval.tsv", "trained" };
    for (int v = 0; v < 2; v++) {
        char sub[64];
        snprintf(sub, sizeof sub, "models/%s/seed42", var[v]);
        char *md = th_path(g, sub);
        for (size_t i = 0; i < sizeof per / sizeof *per; i++)
            expect_file(md, per[i]);
        char *log = rl_read_file(th_path(md, "log.tsv"), NULL), *ev = rl_read_file(th_path(md, "eval.tsv"), NULL);
        cr_assert(log && ev);
        cr_expect_eq(th_lines(log), 1 + 8, "header + 8 steps:\n%s", log);
        cr_expect_eq(th_lines(ev), 1 + 3, "header + lengths 8, 16, 32:\n%s", ev);
        free(log);
        free(ev);
        free(md);
    }
    /* the probe of rope only */
    const char *probe[] = { "probe.tsv", "distance.tsv", "probe.png", "distance.png" };
    char *pd = th_path(g, "models/rope/seed42/probe");
    for (size_t i = 0; i < sizeof probe / sizeof *probe; i++)
        expect_file(pd, probe[i]);
    struct stat st;
    char *ap = th_path(g, "models/alibi/seed42/probe");
    cr_expect(stat(ap, &st) != 0, "alibi was probed though --probe rope");
    /* every model's far-mass prediction and its probe at 2T and 4T
     * (docs/theory/farpred.md#far-mass-prediction) */
    for (int v = 0; v < 2; v++) {
        char sub[96];
        snprintf(sub, sizeof sub, "models/%s/seed42/farpred", var[v]);
        char *fd = th_path(g, sub);
        const char *fpf[] = { "farpred.tsv", "within.tsv", "blocks.tsv", "probe/probe.tsv" };
        for (size_t i = 0; i < sizeof fpf / sizeof *fpf; i++)
            expect_file(fd, fpf[i]);
        char *fp = rl_read_file(th_path(fd, "farpred.tsv"), NULL);
        cr_assert(fp);
        cr_expect_eq(th_lines(fp), 1 + 2 * 2, "header + 2 lengths (2T, 4T) x 1 layer x 2 heads:\n%s", fp);
        free(fp);
        free(fd);
    }
    const char *fpt[] = { "farpred.tsv", "farpred_summary.tsv", "farpred_verdicts.tsv", "loss_horizons.tsv",
                          "farpred.png" };
    for (size_t i = 0; i < sizeof fpt / sizeof *fpt; i++)
        expect_file(g, fpt[i]);

    /* table.tsv: a row per variant and length, ratio 1 at T, the study's
     * numbers beside ours */
    char *tab = rl_read_file(th_path(g, "table.tsv"), NULL);
    cr_assert(tab);
    cr_expect_eq(th_lines(tab), 1 + 2 * 3, "%s", tab);
    cr_expect(strstr(tab, "study_ratio") != NULL);
    int rows = 0;
    for (char *line = strtok(tab, "\n"); line; line = strtok(NULL, "\n")) {
        char name[32];
        long seed, L, mult;
        double loss, se, ppl, ratio;
        if (sscanf(line, "%31s %ld %ld %ld %lf %lf %lf %lf", name, &seed, &L, &mult, &loss, &se, &ppl, &ratio) != 8)
            continue;
        rows++;
        cr_expect_eq(seed, 42, "%s", line);
        cr_expect_eq(L, 8 * mult);
        cr_expect(ppl > 1 && ppl < 1e6, "%s", line);
        if (mult == 1)
            cr_expect_float_eq(ratio, 1.0, 1e-9, "%s", line);
    }
    cr_expect_eq(rows, 6);

    /* REPORT.md: our table and the study's, the figures, the orderings, the
     * probe, a paragraph per claim; its command and configuration */
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);
    const char *want[] = { "routelab reproduce", "| rope |", "| alibi |", "16.22", "38.45", "(ppl.png)",
                           "(ratio.png)", "(training.png)", "models/rope/seed42/probe/probe.png", "orderings",
                           "Claim by claim", "Configuration", "Far mass predicted from within T", "(farpred.png)",
                           "Loss horizons", "(info)" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(rep, want[i]) != NULL, "REPORT.md lacks '%s'", want[i]);
    char *cfg = rl_read_file(th_path(g, "config.txt"), NULL);
    cr_assert(cfg);
    cr_expect(strstr(cfg, "variants\trope,alibi") && strstr(cfg, "width\t16") && strstr(cfg, "steps\t8"),
              "%s", cfg);

    /* --report-only rewrites the report from the files, trains nothing */
    struct timespec ck = mtime(g, "models/rope/seed42/ckpt.bin");
    run_grid(d, txt, "--variants rope,alibi --probe rope --report-only", out, sizeof out);
    /* a model's training line is "model i/n VARIANT seed S: training" (the
     * report's own line names training.tsv) */
    cr_expect(strstr(out, ": training") == NULL, "--report-only trained:\n%s", out);
    cr_expect(same_time(ck, mtime(g, "models/rope/seed42/ckpt.bin")));
    th_rmdir(d);
}

/* A grid of variants the study has no row for (none, path, a base of our
 * own): its report and every figure are written all the same (it once
 * trained everything, then failed at the study's figure, and --report-only
 * failed the same way). */
Test(reproduce, grid_without_study_variants_has_a_report, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_grid(d, txt, "--variants none,path,rope@500 --probe none", out, sizeof out);
    const char *top[] = { "REPORT.md", "ppl.png", "ratio.png", "ratio_study.png", "training.png" };
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        expect_file(g, top[i]);
    /* --probe none is the word, not the variant none (it was probed) */
    char *np = th_path(g, "models/none/seed42/probe");
    struct stat st;
    cr_expect(stat(np, &st) != 0, "the variant none was probed though --probe none");
    free(np);
    run_grid(d, txt, "--variants none,path,rope@500 --probe none --report-only", out, sizeof out);
    expect_file(g, "REPORT.md");
    th_rmdir(d);
}

Test(reproduce, interrupted_grid_resumes, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    /* rope finishes; then the grid grows by alibi and is interrupted at
     * step 4 of alibi's 8 */
    run_grid(d, txt, "--variants rope --probe none", out, sizeof out);
    struct timespec rope_ck = mtime(g, "models/rope/seed42/ckpt.bin"), rope_ev = mtime(g, "models/rope/seed42/eval.tsv");
    run_grid(d, txt, "--variants rope,alibi --probe none --stop-at 4", out, sizeof out);
    cr_expect(strstr(out, "rope seed 42: training") == NULL && strstr(out, "rope seed 42: resuming") == NULL,
              "the finished rope was trained again:\n%s", out);
    cr_expect(strstr(out, "alibi seed 42: training") != NULL, "%s", out);
    cr_expect(same_time(rope_ck, mtime(g, "models/rope/seed42/ckpt.bin")), "rope's checkpoint was rewritten");
    struct stat st;
    char *tr = th_path(g, "models/alibi/seed42/trained"), *ev = th_path(g, "models/alibi/seed42/eval.tsv");
    cr_expect(stat(tr, &st) != 0, "alibi marked trained after the interruption");
    cr_expect(stat(ev, &st) != 0, "alibi evaluated after the interruption");
    char *log = rl_read_file(th_path(g, "models/alibi/seed42/log.tsv"), NULL);
    cr_assert(log);
    cr_expect_eq(th_lines(log), 1 + 4, "interrupted at step 4:\n%s", log);
    free(log);

    /* the same command without the interruption: rope reused as it is,
     * alibi resumes from its step-4 checkpoint and finishes */
    run_grid(d, txt, "--variants rope,alibi --probe none", out, sizeof out);
    cr_expect(strstr(out, "rope seed 42: training") == NULL && strstr(out, "rope seed 42: evaluating") == NULL,
              "rope redone:\n%s", out);
    cr_expect(strstr(out, "alibi seed 42: resuming training from its checkpoint") != NULL, "%s", out);
    cr_expect(same_time(rope_ck, mtime(g, "models/rope/seed42/ckpt.bin")), "rope's checkpoint was rewritten");
    cr_expect(same_time(rope_ev, mtime(g, "models/rope/seed42/eval.tsv")), "rope was evaluated again");
    log = rl_read_file(th_path(g, "models/alibi/seed42/log.tsv"), NULL);
    cr_assert(log);
    cr_expect_eq(th_lines(log), 1 + 8, "steps 1..8 once each:\n%s", log);
    expect_file(g, "models/alibi/seed42/trained");
    expect_file(g, "models/alibi/seed42/eval.tsv");
    expect_file(g, "REPORT.md");

    /* once more: nothing left to do, nothing rewritten */
    struct timespec alibi_ck = mtime(g, "models/alibi/seed42/ckpt.bin");
    run_grid(d, txt, "--variants rope,alibi --probe none", out, sizeof out);
    cr_expect(strstr(out, ": training") == NULL && strstr(out, ": resuming") == NULL &&
                  strstr(out, ": evaluating") == NULL,
              "a finished grid did work again:\n%s", out);
    cr_expect(same_time(alibi_ck, mtime(g, "models/alibi/seed42/ckpt.bin")));

    /* other settings into the same folder are refused, one line, status 2 */
    char args[2048], err[2048];
    snprintf(args, sizeof args, "reproduce --data %s --out %s " MINI " --variants rope --width 32", txt, g);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "other settings") != NULL && th_lines(err) == 1, "%s", err);
    th_rmdir(d);
}

/* make faults found it: reproduce killed as it renamed a model's
 * horizon.tsv into place left horizon.tsv.tmp.PID.RANDOM in that model's
 * folder, and the rerun, which starts no child in a finished model's folder,
 * left it there for ever.  Now the next run takes and releases every model
 * and probe folder's lock first: a planted temporary and a lock file left by
 * a killed writer (kill -9 keeps DIR/.lock) are gone, the grid's table is
 * the same bytes, and a temporary of another name pattern stays. */
Test(reproduce, rerun_removes_what_an_interrupted_run_left_in_model_folders, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_grid(d, txt, "--variants rope --probe rope", out, sizeof out);
    char *table = rl_read_file(th_path(g, "table.tsv"), NULL);
    cr_assert(table);
    const char *planted[] = { "models/rope/seed42/horizon.tsv.tmp.999999.AbCd1234",
                              "models/rope/seed42/eval.tsv.tmp.999998",
                              "models/rope/seed42/.lock",
                              "models/rope/seed42/probe/probe.tsv.tmp.999997.ZzZz9999",
                              "models/rope/seed42/probe/.lock" };
    const int n = sizeof planted / sizeof *planted;
    for (int i = 0; i < n; i++) {
        char *p = th_path(g, planted[i]);
        FILE *f = fopen(p, "w");
        cr_assert(f, "%s", p);
        fputs("half", f);
        fclose(f);
        free(p);
    }
    char *keep = th_path(g, "models/rope/seed42/notes.tmp.txt");
    FILE *f = fopen(keep, "w");
    cr_assert(f);
    fclose(f);
    run_grid(d, txt, "--variants rope --probe rope", out, sizeof out);
    struct stat st;
    for (int i = 0; i < n; i++) {
        char *p = th_path(g, planted[i]);
        cr_expect(lstat(p, &st) != 0, "%s left by the rerun", planted[i]);
        free(p);
    }
    cr_expect(lstat(keep, &st) == 0, "a file that is no temporary was removed");
    char *again = rl_read_file(th_path(g, "table.tsv"), NULL);
    cr_assert(again);
    cr_expect_str_eq(again, table, "the rerun changed table.tsv");
    free(again);
    free(table);
    free(keep);
    th_rmdir(d);
}

/* train and reproduce share one table of training options and one rule for
 * a run's length: for every schedule form, with and without --steps, the
 * grid's model has as many log rows as the same `train` run, and the same
 * checkpoint bytes (the grid hands its options to train unchanged).  Before
 * the rule was shared, reproduce counted the numbers after each ':' and
 * trained cosine:1e-3:100 for 101 steps, train for 1000. */
Test(reproduce, same_run_as_train_for_every_schedule, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt");
    th_write_text(txt, 100);
    /* every training flag the two commands default differently is given */
    const char *same = "--layers 1 --width 16 --heads 2 --ctx 8 --vocab 256 --dropout 0 --batch 2 --accum 1 "
                       "--val-every 400 --val-batches 1 --ckpt-every 1000 --seed 7 --threads 1";
    const struct {
        const char *flags;
        int steps;
    } c[] = {
        { "--lr 5e-4", 1000 },
        { "--lr 5e-4 --steps 6", 6 },
        { "--lr 1e-3:10,5e-4:20", 30 },
        { "--lr 1e-3:10,5e-4:20 --steps 12", 12 },
        { "--lr cosine:1e-3:100", 1000 },
        { "--lr cosine:1e-3:2 --steps 9", 9 },
        { "--lr cosine:1e-3:100:1e-5", 1000 },
        { "--lr cosine:1e-3:2:1e-5 --steps 9", 9 },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char args[2048], err[4096];
        snprintf(args, sizeof args, "train --data %s --out %s/t%zu %s %s", txt, d, i, same, c[i].flags);
        cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "routelab %s: %s", args, err);
        snprintf(args, sizeof args, "reproduce --data %s --out %s/r%zu %s %s --variants rope --probe none "
                 "--theory none --max-mult 1 --eval-batches 1 --seeds 1", txt, d, i, same, c[i].flags);
        cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "routelab %s: %s", args, err);
        char tdir[64], rdir[64];
        snprintf(tdir, sizeof tdir, "t%zu", i);
        snprintf(rdir, sizeof rdir, "r%zu/models/rope/seed7", i);
        char *td = th_path(d, tdir), *rd = th_path(d, rdir);
        char *tl = th_path(td, "log.tsv"), *rl = th_path(rd, "log.tsv");
        char *tlog = rl_read_file(tl, NULL), *rlog = rl_read_file(rl, NULL);
        cr_assert(tlog && rlog);
        cr_expect_eq(th_lines(tlog), 1 + c[i].steps, "train %s: %d rows", c[i].flags, th_lines(tlog) - 1);
        cr_expect_eq(th_lines(rlog), 1 + c[i].steps, "reproduce %s: %d rows", c[i].flags, th_lines(rlog) - 1);
        snprintf(args, sizeof args, "cmp -s %s/ckpt.bin %s/ckpt.bin", td, rd);
        cr_expect_eq(system(args), 0, "%s: train's and reproduce's checkpoints differ", c[i].flags);
        free(tlog);
        free(rlog);
        free(tl);
        free(rl);
        free(td);
        free(rd);
    }
    th_rmdir(d);
}

/* Bad input: one line on stderr, status 2, and no output folder left. */
Test(reproduce, bad_input_writes_nothing, .timeout = 60)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    th_write_text(txt, 50);
    const char *bad[][2] = {
        { "--variants rope,bogus", "bogus" },
        { "--data %s/none.txt", "cannot read" },
        { "--data %s", "train.bin" }, /* a folder without train.bin */
        { "--width 10 --heads 4", "even dimension" },
        { "--max-mult 0", "out of range" },
        { "--ctx 1", "out of range [2," },
        { "--lr cosine:1e-3:2000", "warm-up" }, /* longer than its run of 1000 steps */
        { "--lr 1e-3:", "neither" },
        { "--frob", "unknown flag" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char extra[512], args[2048], err[2048];
        snprintf(extra, sizeof extra, bad[i][0], d);
        /* the data flag given last wins over the valid one */
        snprintf(args, sizeof args, "reproduce --data %s --out %s " MINI " %s", txt, g, extra);
        int st = th_run(args, NULL, 0, err, sizeof err);
        cr_expect_eq(st, 2, "%s: status %d", extra, st);
        cr_expect_eq(th_lines(err), 1, "%s: not one line: %s", extra, err);
        cr_expect(strstr(err, bad[i][1]) != NULL, "%s: stderr lacks '%s': %s", extra, bad[i][1], err);
        struct stat s;
        cr_expect(stat(g, &s) != 0, "%s: left %s behind", extra, g);
    }
    th_rmdir(d);
}

/* ---- the grid wired to token-matched evaluation, the validation check
 * and the matched scale ---- */

#include <math.h>

#include "../program/reproduce/grid.h"
#include "../program/reproduce/order.h"
#include "../theory/matched.h"
#include "../theory/study.h"
#include "../program/reproduce/horizon.h"

/* The miniature grid without its evaluation count, so that a test chooses
 * the protocol. */
static void run_flags(const char *d, const char *txt, const char *flags, char *out, size_t outlen)
{
    char f[1024];
    snprintf(f, sizeof f, "--probe none --seeds 1 %s", flags);
    th_mini_grid(d, txt, f, out, outlen);
}

/* The (windows, targets) of each row of an eval.tsv, in order. */
static int eval_counts(const char *path, long *win, long *tgt, int max)
{
    char *s = rl_read_file(path, NULL);
    cr_assert(s, "missing: %s", path);
    int n = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        long L, w, t, ww;
        double m, se, p, r;
        if (n < max && sscanf(line, "%ld %ld %lf %lf %lf %lf %ld %ld", &L, &w, &m, &se, &p, &r, &t, &ww) == 8) {
            win[n] = w;
            tgt[n++] = t;
        }
    }
    free(s);
    return n;
}

/* --eval-targets N reaches eval as --targets N: at L = 8, 16, 32 the
 * windows are ceil(64 / L) and every length has 64 targets; --eval-batches
 * still asks for a fixed count; the two together are refused. */
Test(reproduce, eval_targets_token_matched_and_exclusive, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    /* (the evenly spread spans, --eval-windows spans; a new grid's default,
     * sampled, is tests/test_eval_sampled.c's) */
    run_flags(d, txt, "--variants rope --eval-targets 64 --eval-windows spans", out, sizeof out);
    cr_expect(strstr(out, "(64 targets per length), token-paired") != NULL, "eval was not token-matched:\n%s", out);
    long w[8], t[8];
    char *ev = th_path(g, "models/rope/seed42/eval.tsv");
    cr_assert_eq(eval_counts(ev, w, t, 8), 3);
    const long want_w[] = { 8, 4, 2 };
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(w[i], want_w[i], "length %d: %ld windows", 8 << i, w[i]);
        cr_expect_eq(t[i], 64, "length %d: %ld targets", 8 << i, t[i]);
    }
    char *cfg = rl_read_file(th_path(g, "config.txt"), NULL), *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(cfg && rep);
    cr_expect(strstr(cfg, "eval-targets\t64\n") && !strstr(cfg, "eval-batches"), "%s", cfg);
    cr_expect(strstr(cfg, "eval-windows\tspans\n") != NULL, "%s", cfg);
    cr_expect(strstr(rep, "spans spread evenly over the validation stream (64 targets at every length") != NULL,
              "%s", rep);
    free(cfg);
    free(rep);
    th_rmdir(g);

    /* the old fixed count: 3 windows at every length, 3 L targets */
    run_flags(d, txt, "--variants rope --eval-batches 3", out, sizeof out);
    cr_expect(strstr(out, "3 random windows per length (--batches x --batch-size)") != NULL, "%s", out);
    cr_assert_eq(eval_counts(ev, w, t, 8), 3);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(w[i], 3);
        cr_expect_eq(t[i], 3L * (8 << i));
    }
    cfg = rl_read_file(th_path(g, "config.txt"), NULL);
    cr_expect(cfg && strstr(cfg, "eval-batches\t3\n") && !strstr(cfg, "eval-targets"), "%s", cfg);
    free(cfg);
    th_rmdir(g);

    /* both: one line, status 2, nothing written */
    char args[2048], err[2048];
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --probe none --seeds 1 --eval-targets 64 --eval-batches 3",
             txt, g);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "exclude each other") && th_lines(err) == 1, "%s", err);
    struct stat st;
    cr_expect(stat(g, &st) != 0, "left %s behind", g);
    free(ev);
    th_rmdir(d);
}

/* A constructed eval.tsv at T = 8 (columns 1-13, the check on the L = T
 * row). */
static void write_eval(const char *path, double loss, double val, double diff, double se, const char *check)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "length\twindows\tmean_loss\tstderr\tppl\tratio\ttargets\twindows_wanted\tshort\tval_loss\tval_diff"
               "\tval_diff_se\tval_check\n");
    fprintf(f, "8\t8\t%.6f\t0.01\t%.4f\t1\t64\t8\tno\t%.6f\t%.6f\t%.6f\t%s\n", loss, exp(loss), val, diff, se, check);
    fprintf(f, "16\t4\t%.6f\t0.01\t%.4f\t1.1\t64\t4\tno\tNA\tNA\tNA\tNA\n", loss + 0.1, exp(loss + 0.1));
    fprintf(f, "32\t2\t%.6f\t0.01\t%.4f\t1.2\t64\t2\tno\tNA\tNA\tNA\tNA\n", loss + 0.2, exp(loss + 0.2));
    fclose(f);
}

/* The report rewritten by --report-only from the grid's files as they are
 * now (rope and alibi, one seed); the caller frees it. */
static char *rewritten_report(const char *d, const char *txt, const char *g, char *out, size_t len)
{
    run_flags(d, txt, "--variants rope,alibi --eval-targets 64 --report-only", out, len);
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);
    return rep;
}

/* The report says, per model and in one line, whether ppl(T) agrees with
 * the final validation loss (eval.tsv columns 10-13), and what the ratios
 * divide by. */
Test(reproduce, report_states_the_validation_check, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_flags(d, txt, "--variants rope,alibi --eval-targets 64", out, sizeof out);
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);
    cr_expect(strstr(rep, "**Denominator.** Every ratio is ppl(L)/ppl(T) with ppl(T) from this evaluation's own "
                          "windows at L = T, not the final validation loss") != NULL, "%s", rep);
    free(rep);

    /* rope agrees, alibi disagrees by 0.5 ± 0.1 */
    char *er = th_path(g, "models/rope/seed42/eval.tsv"), *ea = th_path(g, "models/alibi/seed42/eval.tsv");
    write_eval(er, 2.0, 2.01, -0.01, 0.05, "agree");
    write_eval(ea, 2.5, 2.0, 0.5, 0.1, "disagree");
    rep = rewritten_report(d, txt, g, out, sizeof out);
    cr_expect(strstr(rep, "**Validation check: DISAGREE for some models** — ppl(T) agrees with the final "
                          "validation loss within 2 SE for 1 of 2 models, disagrees for 1 (alibi seed 42), "
                          "unavailable for 0.") != NULL, "%s", rep);
    /* (these hand-written eval.tsv have no no-context loss: its two columns say so) */
    cr_expect(strstr(rep, "| rope | 7.389 | – | – | agree (1/1) |") != NULL, "%s", rep);
    cr_expect(strstr(rep, "| alibi | 12.182 | – | – | **disagree** seed 42: +0.500 ± 0.100 |") != NULL, "%s", rep);
    char *vt = rl_read_file(th_path(g, "valcheck.tsv"), NULL);
    cr_assert(vt);
    cr_expect(strstr(vt, "rope\t42\t2.000000\t2.010000\t-0.010000\t0.050000\tagree\n") &&
                  strstr(vt, "alibi\t42\t2.500000\t2.000000\t0.500000\t0.100000\tdisagree\n"), "%s", vt);
    cr_expect(strstr(rep, "every variant disagrees") == NULL, "%s", rep);
    free(rep);
    free(vt);

    /* every variant of the seed disagrees, one sign: the seed's text, named;
     * opposite signs: no such sentence */
    write_eval(er, 2.3, 2.0, 0.3, 0.1, "disagree");
    rep = rewritten_report(d, txt, g, out, sizeof out);
    cr_expect(strstr(rep, "unavailable for 0. Seed 42: every variant disagrees, all by +0.300 to +0.500: the text "
                          "its windows read is harder than the validation average") != NULL, "%s", rep);
    free(rep);
    write_eval(er, 1.7, 2.0, -0.3, 0.1, "disagree");
    rep = rewritten_report(d, txt, g, out, sizeof out);
    cr_expect(strstr(rep, "disagrees for 2 (rope seed 42, alibi seed 42), unavailable for 0.\n") != NULL, "%s", rep);
    free(rep);
    write_eval(er, 2.0, 2.01, -0.01, 0.05, "agree");

    /* both agree: the line says so; an eval.tsv of six columns (before the
     * check) is unavailable */
    write_eval(ea, 2.5, 2.48, 0.02, 0.1, "agree");
    rep = rewritten_report(d, txt, g, out, sizeof out);
    cr_expect(strstr(rep, "**Validation check: all agree** — ppl(T) agrees with the final validation loss within "
                          "2 SE for 2 of 2 models, disagrees for 0, unavailable for 0.") != NULL, "%s", rep);
    cr_expect(strstr(rep, "| alibi | 12.182 | – | – | agree (1/1) |") != NULL, "%s", rep);
    free(rep);
    FILE *f = fopen(ea, "w");
    cr_assert(f);
    fprintf(f, "length\twindows\tmean_loss\tstderr\tppl\tratio\n8\t8\t2.5\t0.01\t12.1825\t1\n"
               "16\t4\t2.6\t0.01\t13.4637\t1.1\n32\t2\t2.7\t0.01\t14.8797\t1.2\n");
    fclose(f);
    rep = rewritten_report(d, txt, g, out, sizeof out);
    cr_expect(strstr(rep, "**Validation check: incomplete** — ppl(T) agrees with the final validation loss within "
                          "2 SE for 1 of 2 models, disagrees for 0, unavailable for 1.") != NULL, "%s", rep);
    cr_expect(strstr(rep, "| alibi | 12.182 | – | – | unavailable for 1/1 |") != NULL, "%s", rep);
    free(rep);
    free(er);
    free(ea);
    th_rmdir(d);
}

/* "k of nb (fraction)", as the report writes a count. */
static void frac_text(char *buf, size_t n, int c, int nb)
{
    snprintf(buf, n, "%d of %d (%.4f)", c, nb, (double)c / nb);
}

/* Lines of text that start with key (a "key<TAB>value" file). */
static int key_lines(const char *text, const char *key)
{
    int n = 0;
    const size_t k = strlen(key);
    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        n += !strncmp(p, key, k) && p[k] == '\t';
    return n;
}

/* OUT/config.txt names the rotation base once, whether it is train's
 * default (the training options leave it out) or given (they list it);
 * the cpu grid's config listed a matched base twice. */
Test(reproduce, config_lists_the_rotation_base_once, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    const char *flags[] = { "--variants rope --eval-targets 64", "--variants rope --eval-targets 64 --rot-base 500" };
    const char *want[] = { "\nrot-base\t10000\n", "\nrot-base\t500\n" };
    for (int i = 0; i < 2; i++) {
        run_flags(d, txt, flags[i], out, sizeof out);
        char *cfg = rl_read_file(th_path(g, "config.txt"), NULL);
        cr_assert(cfg);
        cr_expect_eq(key_lines(cfg, "rot-base"), 1, "%s", cfg);
        cr_expect(strstr(cfg, want[i]) != NULL, "%s", cfg);
        free(cfg);
        th_rmdir(g);
    }
    th_rmdir(d);
}

/* The report's matched-scale table holds rl_match_*'s numbers: the study's
 * counts, the grid's at base 10000 and at rl_match_choose's base for its
 * head dim and T, and a control arm's base (here 500) in a row of its own. */
Test(reproduce, matched_scale_table_is_the_choosers, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_flags(d, txt, "--variants rope,alibi --eval-targets 64", out, sizeof out);
    /* a control arm at another base cannot train before train has
     * --rot-base: its row comes from its own eval.tsv, written here */
    char *cd = th_path(g, "models/rope@500/seed42");
    rl_mkdir_p(cd);
    char *ce = th_path(cd, "eval.tsv");
    write_eval(ce, 2.0, 2.0, 0.0, 0.05, "agree");
    run_flags(d, txt, "--variants rope,alibi,rope@500 --eval-targets 64 --report-only", out, sizeof out);
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);

    rl_err err;
    double fc, ff;
    cr_assert_eq(rl_match_study(0.1, 128, &fc, &ff, &err), RL_OK);
    rl_match_query q = { 8, 8, 128, 0.1, fc, ff, RL_STUDY_BASE };
    rl_match m;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_OK);
    int s1, s2, c1, c2, o1, o2;
    cr_assert_eq(rl_match_count(96, 10000, 0.1, 512, &s1, &err), RL_OK);
    cr_assert_eq(rl_match_count(96, 10000, 0.1, 65536, &s2, &err), RL_OK);
    cr_assert_eq(rl_match_count(8, 10000, 0.1, 8, &c1, &err), RL_OK);
    cr_assert_eq(rl_match_count(8, 10000, 0.1, 1024, &c2, &err), RL_OK);
    cr_assert_eq(rl_match_count(8, 500, 0.1, 8, &o1, &err), RL_OK);
    cr_assert_eq(rl_match_count(8, 500, 0.1, 1024, &o2, &err), RL_OK);
    char a[64], b[64], row[512];
    frac_text(a, sizeof a, s1, 48), frac_text(b, sizeof b, s2, 48);
    snprintf(row, sizeof row, "| the study | 96 | 512 | 10000 | %s | %s |", a, b);
    cr_expect(strstr(rep, row) != NULL, "lacks '%s':\n%s", row, rep);
    frac_text(a, sizeof a, c1, 4), frac_text(b, sizeof b, c2, 4);
    snprintf(row, sizeof row, "| this grid at the study's base | 8 | 8 | 10000 | %s | %s | rope, alibi |", a, b);
    cr_expect(strstr(rep, row) != NULL, "lacks '%s':\n%s", row, rep);
    frac_text(a, sizeof a, m.at_ctx, 4), frac_text(b, sizeof b, m.at_far, 4);
    snprintf(row, sizeof row, "(cost %.4g blocks; any base in %.6g–%.6g gives the same counts) | 8 | 8 | %.6g | %s | "
             "%s | none of this grid's models |", m.cost, m.lo, m.hi, m.base, a, b);
    cr_expect(strstr(rep, row) != NULL, "lacks '%s':\n%s", row, rep);
    frac_text(a, sizeof a, o1, 4), frac_text(b, sizeof b, o2, 4);
    snprintf(row, sizeof row, "| this grid at another base | 8 | 8 | 500 | %s | %s | rope@500 |", a, b);
    cr_expect(strstr(rep, row) != NULL, "lacks '%s':\n%s", row, rep);
    cr_expect(strstr(rep, "| rope@500 (control: base 500) |") != NULL, "the control row:\n%s", rep);
    free(rep);
    free(ce);
    free(cd);
    th_rmdir(d);
}

/* The train command of each model: a NAME@BASE variant gets its own folder
 * and --rot-base BASE unless BASE is the study's 10000; every other variant
 * gets the grid's base, passed only when it is not 10000 (so the quick
 * preset's command lines are those it always had). */
Test(reproduce, at_base_variants_and_their_train_commands)
{
    rl_repro r = { .out = "OUT", .threads = 1 };
    rl_err err;
    cr_assert_eq(rl_grid_preset("quick", &r.g, &err), RL_OK);
    r.g.data = "DATA";
    r.g.variants = "rope,rope@500,random_qk@10000,alibi";
    cr_assert_eq(rl_repro_set_variants(&r, &err), RL_OK);
    cr_assert_eq(r.nvar, 4);
    char *c[4];
    for (int v = 0; v < 4; v++)
        c[v] = rl_repro_train_command(&r, v, 0);
    /* the quick preset's rope, exactly as the grid wrote it before --rot-base */
    cr_expect_str_eq(c[0], "routelab\ntrain\n--data\nDATA\n--out\nOUT/models/rope/seed42\n--pos\nrope\n--layers\n3\n"
                           "--width\n96\n--heads\n4\n--ctx\n64\n--vocab\n256\n--dropout\n0\n--batch\n16\n--accum\n1\n"
                           "--steps\n1200\n--lr\n2e-3:600,8e-4:300,2e-4:300\n--val-every\n150\n--val-batches\n8\n"
                           "--ckpt-every\n300\n--seed\n42\n");
    cr_expect(strstr(c[1], "--out\nOUT/models/rope@500/seed42\n--pos\nrope\n--layers\n") != NULL &&
                  strstr(c[1], "\n--rot-base\n500\n") != NULL,
              "%s", c[1]);
    cr_expect(strstr(c[2], "--out\nOUT/models/random_qk@10000/seed42\n--pos\nrandom_qk\n--layers\n") != NULL, "%s",
              c[2]);
    cr_expect(!strstr(c[0], "--rot-base") && !strstr(c[2], "--rot-base") && !strstr(c[3], "--rot-base"));
    cr_expect(r.control[1] && r.control[2] && !r.control[0] && !r.control[3]);
    for (int v = 0; v < 4; v++)
        free(c[v]);
    rl_repro_free_variants(&r);

    /* the bpe preset: the matched base for head dim 32 at T = 128, passed to
     * every variant but the control at 10000 */
    cr_assert_eq(rl_grid_preset("bpe", &r.g, &err), RL_OK);
    r.g.data = "DATA";
    double fc, ff;
    cr_assert_eq(rl_match_study(0.1, 128, &fc, &ff, &err), RL_OK);
    rl_match_query q = { 32, 128, 128, 0.1, fc, ff, RL_STUDY_BASE };
    rl_match m;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_OK);
    cr_expect_eq(r.g.train.ctx, 128);
    cr_expect_eq(r.g.train.width / r.g.train.heads, 32);
    cr_expect(r.g.train.rot_base == m.base && m.at_ctx == 3 && m.at_far == 8, "base %.17g (%d, %d)", r.g.train.rot_base,
              m.at_ctx, m.at_far);
    cr_expect(r.g.train.rot_base > 1185 && r.g.train.rot_base < 3260, "%g", r.g.train.rot_base);
    cr_expect_eq(r.g.eval_targets, 32768); /* docs/grids/vtraj-and-reruns.md#bpe-grid-rerun: the 150 minutes */
    cr_expect_eq(r.g.seeds, 3);
    cr_assert_eq(rl_repro_set_variants(&r, &err), RL_OK);
    char want[64];
    snprintf(want, sizeof want, "--rot-base\n%.17g\n", m.base);
    int controls = 0;
    for (int v = 0; v < r.nvar; v++) {
        char *t = rl_repro_train_command(&r, v, 2);
        if (r.control[v]) {
            controls++;
            cr_expect(r.base[v] == 10000 && !strstr(t, "--rot-base"), "%s", t);
        } else {
            cr_expect(strstr(t, want) != NULL, "%s lacks %s", t, want);
        }
        cr_expect(strstr(t, "--seed\n44\n") != NULL);
        free(t);
    }
    cr_expect_eq(controls, 1);
    cr_expect(strstr(r.g.variants, "rope@10000") != NULL);
    cr_expect_eq(r.nvar, 8); /* the seven variants of the matched-scale question and the control */
    rl_repro_free_variants(&r);

    /* paper: the study's own scale gives the study's base; the longest
     * length has at least 4 windows.  quick: 2^14 targets. */
    cr_assert_eq(rl_grid_preset("paper", &r.g, &err), RL_OK);
    cr_expect(r.g.train.rot_base == 10000.0, "%.17g", r.g.train.rot_base);
    long Lmax = (long)r.g.train.ctx * r.g.max_mult;
    cr_expect_eq(Lmax, 65536);
    cr_expect_geq((r.g.eval_targets + Lmax - 1) / Lmax, 4);
    cr_assert_eq(rl_grid_preset("quick", &r.g, &err), RL_OK);
    cr_expect(r.g.train.rot_base == 10000.0 && r.g.eval_targets == 4096 && !r.g.matched);
    /* make run decides its headline: the seeds its power computation gives
     * (rope - random_qkv at 16T, sd 0.150 over five seeds: 0.88 at four) */
    cr_expect_geq(r.g.seeds, 4);
    cr_expect_geq(rl_order_power(1.034, 0.150, r.g.seeds), 0.8);

    /* cpu, the phenomena grid: Brown bytes, 4 layers x 128 in at least 4
     * heads, T = 64, to 128T, every variant of the phenomena grid, at least 5 seeds */
    cr_assert_eq(rl_grid_preset("cpu", &r.g, &err), RL_OK);
    cr_expect(r.g.train.vocab == 256 && r.g.train.layers == 4 && r.g.train.width == 128 && r.g.train.heads >= 4 &&
              r.g.train.ctx == 64 && r.g.max_mult == 128);
    cr_expect_str_eq(r.g.data, "data/brown");
    cr_expect_geq(r.g.seeds, 5);
    /* both pembs: the author's, its verdict re-decided, and pemb-shared_qk,
     * the pemb the first committed grid ran (docs/model/schemes.md#pemb-author) */
    const char *need[] = { "rope", "random_qk", "random_qkv", "pemb_qk", "pemb-shared_qk", "lf_qk", "alibi", "none" };
    cr_assert_eq(rl_repro_set_variants(&r, &err), RL_OK);
    for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
        int found = 0;
        for (int v = 0; v < r.nvar; v++)
            found |= !strcmp(r.var[v], need[i]);
        cr_expect(found, "cpu lacks %s", need[i]);
    }
    int rope10k = r.g.train.rot_base == 10000.0;
    for (int v = 0; v < r.nvar; v++)
        rope10k |= !strcmp(r.pos[v], "rope") && r.base[v] == 10000.0;
    cr_expect(rope10k, "RoPE at the study's base 10000, at least as a control arm");
    rl_repro_free_variants(&r);

    /* bad bases */
    const char *bad[] = { "rope@", "rope@x", "rope@1", "rope@1e9", "rope@nan", "rope@inf", "rope@500x",
                          "rope@ 500", "rope@+500", "rope@\t500" }; /* strtod skipped the space */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r.g.variants = bad[i];
        cr_expect_eq(rl_repro_set_variants(&r, &err), RL_EINPUT, "%s accepted", bad[i]);
        cr_expect(strstr(err.msg, "the base after '@'") != NULL, "%s: %s", bad[i], err.msg);
        rl_repro_free_variants(&r);
    }
}

/* REPORT.md's claim paragraphs read theory/checks.tsv: holds and verified
 * counted apart, and every unresolved or no-prediction check spelled out
 * (a hand-written checks.tsv with one row of each). */
Test(reproduce, report_counts_theory_kinds_apart, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_flags(d, txt, "--variants rope,alibi --eval-targets 64", out, sizeof out);
    char *td = th_path(g, "theory"), *ct = th_path(td, "checks.tsv");
    cr_assert(mkdir(td, 0755) == 0 || errno == EEXIST);
    FILE *f = fopen(ct, "w");
    cr_assert(f);
    fprintf(f, "experiment\tverdict\trule\tcheck\tpredicted\tmeasured\n"
               "mixing\tverified\tagree\tmean route\tp1\tm1\n"
               "mixing\tunresolved\twindow\twindow W\tp2\tm2\n"
               "mixing\tno prediction\tagree\tno-closed-form family\tp3\tm3\n"
               "stylized\tholds\tsign\trope above\tp4\tm4\n"
               "stylized\tidentity\t-\tprefix\tp5\tm5\n");
    fclose(f);
    run_flags(d, txt, "--variants rope,alibi --eval-targets 64 --report-only", out, sizeof out);
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);
    cr_expect(strstr(rep, "Monte Carlo (`theory/theory.md#mixing`): 1 verified, 1 unresolved, 1 no prediction: "
                          "unresolved: window W (predicted p2; measured m2); no prediction: no-closed-form family "
                          "(predicted p3; measured m3).") != NULL,
              "%s", rep);
    cr_expect(strstr(rep, "Monte Carlo (`theory/theory.md#stylized`): 1 holds, 1 identity (not counted).") != NULL,
              "%s", rep);
    free(rep);
    free(ct);
    free(td);
    th_rmdir(d);
}

/* tools/scripts/grid_farpred.sh on a grid committed without its checkpoints:
 * each model is retrained from its config.txt into the folder that names,
 * the farpred stage runs there, and the far-mass files copied back into the
 * committed folder are the bytes the original grid wrote
 * (docs/theory/farpred.md#farpred-committed-grid). */
/* A miniature grid of variants in d/g, copied as it is into d/ref and as it
 * is committed into d/c (no checkpoints, markers or predictions), the
 * original folder gone; returns the binary's path (ROUTELAB). */
static const char *committed_grid(const char *d, const char *variants)
{
    char *txt = th_path(d, "t.txt"), flags[256], cmd[4096];
    static char out[1 << 16];
    th_write_text(txt, 300);
    snprintf(flags, sizeof flags, "--variants %s --probe none", variants);
    run_grid(d, txt, flags, out, sizeof out);
    const char *root = getenv("ROUTELAB");
    cr_assert(root);
    snprintf(cmd, sizeof cmd,
             "cp -r %s/g %s/ref && cp -r %s/g %s/c && rm -rf %s/c/models/*/seed*/ckpt.bin %s/c/models/*/seed*/trained "
             "%s/c/models/*/seed*/farpred && rm -rf %s/g",
             d, d, d, d, d, d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return root;
}

Test(reproduce, grid_farpred_script_restores_the_prediction, .timeout = 240)
{
    char *d = th_tmpdir();
    const char *root = committed_grid(d, "rope,random_qk");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/grid_farpred.sh %s/c 1 %s > %s/log 2>&1", d, root, d);
    cr_assert_eq(system(cmd), 0, "%s (see %s/log)", cmd, d);
    const char *var[] = { "rope", "random_qk" }, *files[] = { "farpred.tsv", "within.tsv", "probe/probe.tsv" };
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 3; i++) {
            snprintf(cmd, sizeof cmd, "cmp -s %s/ref/models/%s/seed42/farpred/%s %s/c/models/%s/seed42/farpred/%s", d,
                     var[v], files[i], d, var[v], files[i]);
            cr_expect_eq(system(cmd), 0, "%s %s differs from the original grid's", var[v], files[i]);
        }
    char *rep = rl_read_file(th_path(d, "c/REPORT.md"), NULL);
    cr_assert(rep);
    cr_expect(strstr(rep, "2 of 2 models are measured and predicted, 2 of them by routelab's predictor") != NULL,
              "the committed report lacks the predictions");
    free(rep);
    /* the grid's build and kernels are this binary's: no line about them */
    char *log = rl_read_file(th_path(d, "log"), NULL);
    cr_assert(log);
    cr_expect(strstr(log, "reproduce: this grid") == NULL, "a line about the build:\n%s", log);
    free(log);
    th_rmdir(d);
}

/* Run grid_farpred.sh on the grid copy d/c; it must refuse: status 2 and one
 * line on stderr, which is returned. */
static char *grid_farpred_refusal(const char *d, const char *root)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/grid_farpred.sh %s/c 1 %s > %s/log 2> %s/err", d, root, d, d);
    const int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d, not 2", cmd, st);
    char *err = rl_read_file(th_path(d, "err"), NULL);
    cr_assert(err);
    cr_expect_eq(th_lines(err), 1, "not one line:\n%s", err);
    return err;
}

/* The grid copy d/c is what it was before the script (d/before). */
static void expect_grid_as_before(const char *d)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "diff -r %s/before %s/c", d, d);
    cr_expect_eq(system(cmd), 0, "the committed grid was changed");
}

/* A retrained model whose log is not the committed one (another OpenBLAS kernel set trains
 * another model from the first step, docs/theory/farpred.md#farpred-committed-grid): the script
 * stops with one line naming the step and the kernels, status 2, and the committed grid is left as
 * it was. */
Test(reproduce, grid_farpred_script_refuses_another_model, .timeout = 240)
{
    char *d = th_tmpdir();
    const char *root = committed_grid(d, "rope");
    char cmd[4096];
    /* the committed copy, its step-2 loss changed in the last digit it prints */
    snprintf(cmd, sizeof cmd,
             "awk -F'\\t' 'BEGIN{OFS=FS} NR==3{$2=$2 \"1\"} {print}' %s/c/models/rope/seed42/log.tsv > %s/l && "
             "mv %s/l %s/c/models/rope/seed42/log.tsv && cp -r %s/c %s/before",
             d, d, d, d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *err = grid_farpred_refusal(d, root);
    cr_expect(strstr(err, "differs from") && strstr(err, "from step 2 on") && strstr(err, "OpenBLAS kernels ("),
              "the line names no step or kernels: %s", err);
    free(err);
    expect_grid_as_before(d);
    th_rmdir(d);
}

/* A committed model without its log: one line naming the file, status 2, and nothing
 * written (the retraining folder that config.txt names is not created). */
Test(reproduce, grid_farpred_script_refuses_a_model_without_its_log, .timeout = 240)
{
    char *d = th_tmpdir();
    const char *root = committed_grid(d, "rope");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm %s/c/models/rope/seed42/log.tsv && cp -r %s/c %s/before", d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *err = grid_farpred_refusal(d, root);
    cr_expect(strstr(err, "no readable log.tsv") != NULL, "the line names no file: %s", err);
    free(err);
    struct stat sb;
    cr_expect(stat(th_path(d, "g"), &sb) != 0, "the retraining folder was created");
    expect_grid_as_before(d);
    th_rmdir(d);
}

/* The grid's build record against the script's binary
 * (docs/speed/reproduction-and-pruning.md#reproduction-across-builds), compared by reproduce
 * --check-build before anything is written: a grid recorded with another kernel set gets one
 * line naming it (OPENBLAS_CORETYPE too) and this binary's, and the script goes on (here to the
 * end: only the record was edited, the models train as before); STRICT=1 refuses it, status 2,
 * one line, the grid as it was and no folder made; a STRICT other than 0 or 1 is a bad input. */
Test(reproduce, grid_farpred_script_compares_the_build, .timeout = 240)
{
    char *d = th_tmpdir();
    const char *root = committed_grid(d, "rope");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "sed -i 's/^kernels\t.*/kernels\tTestcore, OpenBLAS 0.0/' %s/c/config.txt && "
             "cp -r %s/c %s/before", d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    const char *strict[][2] = { { "yes", "STRICT must be 0 or 1, got 'yes'" },
                                { "1", "reproduce: --strict: this run (build " } };
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "STRICT=%s sh tools/scripts/grid_farpred.sh %s/c 1 %s > %s/log 2> %s/err", strict[i][0], d,
                 root, d, d);
        const int st = system(cmd);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "STRICT=%s: status %d, not 2", strict[i][0], st);
        char *err = rl_read_file(th_path(d, "err"), NULL);
        cr_assert(err);
        cr_expect(th_lines(err) == 1 && strstr(err, strict[i][1]), "STRICT=%s: %s", strict[i][0], err);
        if (i == 1)
            cr_expect(strstr(err, "kernels Testcore, OpenBLAS 0.0 (OPENBLAS_CORETYPE=Testcore)") != NULL, "%s", err);
        free(err);
        expect_grid_as_before(d);
        struct stat sb;
        cr_expect(stat(th_path(d, "g"), &sb) != 0, "STRICT=%s: the retraining folder was created", strict[i][0]);
    }
    snprintf(cmd, sizeof cmd, "STRICT=0 sh tools/scripts/grid_farpred.sh %s/c 1 %s > %s/log 2> %s/err", d, root, d, d);
    cr_assert_eq(system(cmd), 0, "%s (see %s/err)", cmd, d);
    char *err = rl_read_file(th_path(d, "err"), NULL);
    cr_assert(err);
    const char *line = strstr(err, "reproduce: this grid's files are bitwise from build ");
    cr_expect(line && (line == err || line[-1] == '\n') && strstr(line, "with kernels Testcore, OpenBLAS 0.0") &&
                  strstr(line + 1, "reproduce: this grid") == NULL,
              "not one line about the build:\n%s", err);
    free(err);
    th_rmdir(d);
}

/* tools/scripts/compare_builds.sh (docs/speed/eval-and-training.md#fused-elementwise): a bad argument,
 * missing data or a build whose run fails is one line and status 2, never a comparison of no
 * files that passes.  Run from a folder with tools/scripts/ and a stand-in data/brown,
 * so the failing build fails before reading any data. */
Test(reproduce, compare_builds_script_refuses_in_one_line, .timeout = 60)
{
    char *d = th_tmpdir(), cwd[4096], cmd[8192];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/w/data/brown %s/w/tools %s/nodata && : > %s/w/data/brown/train.bin && "
             "ln -s %s/tools/scripts %s/w/tools/scripts && "
             "printf '#!/bin/sh\\nexit 3\\n' > %s/bad && chmod +x %s/bad",
             d, d, d, d, cwd, d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    const struct {
        const char *dir, *args, *needle;
    } c[] = {
        { "w", "", "usage" },
        { "w", "fast BAD BAD", "unknown mode 'fast'" },
        { "w", "bytes BAD /nonexistent", "not an executable file" },
        { "w", "bytes BAD .", "not an executable file" },
        { "w", "speed BAD BAD 0", "ROUNDS '0'" },
        { "w", "speed BAD BAD 2x", "ROUNDS '2x'" },
        { "nodata", "bytes BAD BAD", "no data/brown" },
        { "w", "bytes BAD BAD", "failed on the own kernels" },
        { "w", "speed BAD BAD 1", "train at 4L w256 on 1 threads failed" },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char args[512] = "";
        for (const char *a = c[i].args; *a;) /* BAD: the failing build */
            if (strncmp(a, "BAD", 3) == 0) {
                snprintf(args + strlen(args), sizeof args - strlen(args), "%s/bad", d);
                a += 3;
            } else {
                const size_t n = strlen(args);
                args[n] = *a++;
                args[n + 1] = 0;
            }
        snprintf(cmd, sizeof cmd, "cd %s/%s && sh %s/tools/scripts/compare_builds.sh %s > %s/out 2> %s/err", d, c[i].dir,
                 cwd, args, d, d);
        const int st = system(cmd);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d, not 2", c[i].args, st);
        char *err = rl_read_file(th_path(d, "err"), NULL);
        cr_assert(err);
        cr_expect_eq(th_lines(err), 1, "%s: not one line:\n%s", c[i].args, err);
        cr_expect(strstr(err, c[i].needle) != NULL, "%s: the line lacks '%s': %s", c[i].args, c[i].needle, err);
        free(err);
    }
    th_rmdir(d);
}

/* The mix-or-stay rank entry (program/reproduce/orderings.c, rule rank) on a grid:
 * each rotation model's horizon.tsv carries its score (the drifting law's
 * above the zero-mean law's, RoPE's the highest), alibi has none and is
 * left out, and the report's row gives each seed's Kendall tau_b (three
 * variants: tau_b in {-1, -1/3, 1/3, 1}) and a verdict of rule rank. */
Test(reproduce, rank_row_from_the_models_scores, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt");
    static char out[1 << 16];
    th_write_text(txt, 300);
    th_mini_grid(d, txt, "--eval-batches 2 --probe none --seeds 2 --variants rope,random_qk,random_pos_qk,alibi", out,
                 sizeof out);
    double score[3];
    const char *var[] = { "rope", "random_qk", "random_pos_qk" };
    for (int v = 0; v < 3; v++) {
        char sub[96];
        snprintf(sub, sizeof sub, "g/models/%s/seed42/horizon.tsv", var[v]);
        score[v] = rl_horizon_read_mixstay(th_path(d, sub));
        cr_expect(isfinite(score[v]) && score[v] >= 0 && score[v] <= 0.5, "%s: score %g", var[v], score[v]);
    }
    cr_expect_gt(score[2], score[1], "drift %g, zero-mean %g", score[2], score[1]);
    cr_expect_geq(score[0], score[2], "rope %g, drift %g", score[0], score[2]);
    cr_expect(isnan(rl_horizon_read_mixstay(th_path(d, "g/models/alibi/seed42/horizon.tsv"))), "alibi has a score");
    char *rep = rl_read_file(th_path(d, "g/REPORT.md"), NULL), *ord = rl_read_file(th_path(d, "g/orderings.tsv"), NULL);
    cr_assert(rep && ord);
    char *row = strstr(rep, "| the mix-or-stay score orders the rotation variants' log ratios |");
    cr_assert(row, "REPORT.md has no rank row");
    *strchr(row, '\n') = 0;
    cr_expect(strstr(row, "| rank |") != NULL && strstr(row, "rope, random_qk, random_pos_qk") != NULL &&
                  strstr(row, "alibi") == NULL,
              "%.400s", row);
    const char *t = strstr(ord, "the mix-or-stay score orders");
    cr_assert(t, "orderings.tsv has no rank row");
    double tau[2];
    cr_assert_eq(sscanf(strchr(strchr(strchr(t, '\t') + 1, '\t') + 1, '\t') + 1, "%lf,%lf", &tau[0], &tau[1]), 2,
                 "%.200s", t);
    for (int k = 0; k < 2; k++)
        cr_expect(fabs(fabs(tau[k]) - 1.0 / 3) < 1e-9 || fabs(fabs(tau[k]) - 1) < 1e-9, "tau_b %g", tau[k]);
    free(rep);
    free(ord);
    th_rmdir(d);
}

/* Every argument of grid_farpred.sh and every value it reads from
 * the grid is checked before anything is written.  SEEDS -1 retrained all but the last seed and
 * exited 0, SEEDS 0 rewrote the report, "abc" exited 1 with head's message; a BIN that is missing
 * or not executable exited 1 or 126 with folders left; a model whose config.txt trains into
 * another folder made the script create, copy, train and remove there.  Each is now one line,
 * status 2, the grid as it was and no folder made. */
Test(reproduce, grid_farpred_script_checks_every_argument_first, .timeout = 240)
{
    char *d = th_tmpdir();
    const char *root = committed_grid(d, "rope");
    char cmd[8192], *err;
    snprintf(cmd, sizeof cmd, "cp -r %s/c %s/before", d, d);
    cr_assert_eq(system(cmd), 0);
    const char *bad[][2] = {
        { "-1", "SEEDS must be a whole number" }, { "0", "SEEDS must be a whole number" },
        { "abc", "SEEDS must be a whole number" }, { "99", "SEEDS 99: the grid has 1 seeds" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(cmd, sizeof cmd, "sh tools/scripts/grid_farpred.sh %s/c %s %s > %s/log 2> %s/err", d, bad[i][0], root, d, d);
        const int st = system(cmd);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "SEEDS %s: status %d", bad[i][0], st);
        err = rl_read_file(th_path(d, "err"), NULL);
        cr_expect(err && th_lines(err) == 1 && strstr(err, bad[i][1]), "SEEDS %s: %s", bad[i][0], err);
        free(err);
    }
    const char *bins[] = { "/nonexistent/routelab", "README.md" };
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "sh tools/scripts/grid_farpred.sh %s/c 1 %s > %s/log 2> %s/err", d, bins[i], d, d);
        const int st = system(cmd);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "BIN %s: status %d", bins[i], st);
        err = rl_read_file(th_path(d, "err"), NULL);
        cr_expect(err && th_lines(err) == 1 && strstr(err, "is no executable file"), "BIN %s: %s", bins[i], err);
        free(err);
    }
    /* a model whose config.txt trains elsewhere: refused, that folder never made */
    snprintf(cmd, sizeof cmd,
             "awk 'p {print \"%s/elsewhere\"; p = 0; next} /^--out$/ {p = 1} {print}' "
             "%s/c/models/rope/seed42/config.txt > %s/cfg && cp %s/cfg %s/c/models/rope/seed42/config.txt && "
             "cp %s/c/models/rope/seed42/config.txt %s/before/models/rope/seed42/config.txt",
             d, d, d, d, d, d, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    err = grid_farpred_refusal(d, root);
    cr_expect(strstr(err, "trains into") && strstr(err, "elsewhere"), "%s", err);
    free(err);
    snprintf(cmd, sizeof cmd, "test -e %s/elsewhere", d);
    cr_expect_neq(system(cmd), 0, "the script made the folder a config.txt named");
    expect_grid_as_before(d);
    th_rmdir(d);
}
