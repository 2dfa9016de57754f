/* test_reproduce.c: `routelab reproduce` on a miniature grid (two variants,
 * a few steps, tiny sizes) writes every promised file, an interrupted grid
 * continues without retraining the models it had finished, and a grid trains
 * exactly what `routelab train` trains for the same flags. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/util.h"
#include "helpers.h"

/* The miniature grid: 1 layer of width 16, context 8, 8 steps, evaluated
 * at 8, 16, 32; no theory report (its own tests cover it); one seed (42,
 * the quick preset's), unless a test adds its own --seeds after it. */
#define MINI                                                                                                   \
    "--layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --lr 1e-3:8 --val-every 4 --val-batches 1 "           \
    "--ckpt-every 2 --max-mult 4 --eval-batches 2 --theory none --probe-mult 4 --threads 1 --seeds 1"

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
    char args[2048], err[4096];
    snprintf(args, sizeof args, "reproduce --data %s --out %s/g " MINI " %s", txt, d, extra);
    int st = th_run(args, out, outlen, err, sizeof err);
    cr_assert_eq(st, 0, "routelab %s: status %d: %s", args, st, err);
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
                           "Claim by claim", "Configuration" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(rep, want[i]) != NULL, "REPORT.md lacks '%s'", want[i]);
    char *cfg = rl_read_file(th_path(g, "config.txt"), NULL);
    cr_assert(cfg);
    cr_expect(strstr(cfg, "variants\trope,alibi") && strstr(cfg, "width\t16") && strstr(cfg, "steps\t8"),
              "%s", cfg);

    /* --report-only rewrites the report from the files, trains nothing */
    struct timespec ck = mtime(g, "models/rope/seed42/ckpt.bin");
    run_grid(d, txt, "--variants rope,alibi --probe rope --report-only", out, sizeof out);
    cr_expect(strstr(out, "training") == NULL, "--report-only trained:\n%s", out);
    cr_expect(same_time(ck, mtime(g, "models/rope/seed42/ckpt.bin")));
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
