/* test_eval_protocol.c: eval's protocol: token-matched windows with
 * disjoint targets, paired across models (the old protocol's windows depend
 * on the data, the length and the seed only; the full-stream protocol's,
 * test_eval_paired.c, on the data and the longest length alone), ppl(T)
 * checked against the run's final validation loss both ways, and the same
 * numbers for any thread count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../model/data.h"
#include "../model/valcheck.h"
#include "helpers.h"

static rl_tokens stream(long n, int fill)
{
    rl_tokens t = { rl_xmalloc(sizeof(uint16_t) * (size_t)n), n, { 0, 0 } };
    for (long i = 0; i < n; i++)
        t.tok[i] = (uint16_t)(fill ? (i * 31 + 7) % 256 : 0);
    return t;
}

/* Every window fits, starts ascend and the targets of two windows never overlap. */
static void expect_disjoint(const rl_eval_windows *w, long n)
{
    for (long i = 0; i < w->n; i++) {
        cr_expect(w->start[i] >= 0 && w->start[i] + w->L <= n - 1, "window %ld at %ld", i, w->start[i]);
        if (i)
            cr_expect_geq(w->start[i] - w->start[i - 1], w->L, "windows %ld, %ld overlap", i - 1, i);
    }
}

Test(eval_protocol, token_matched_counts)
{
    rl_tokens t = stream(200000, 1);
    rl_err err;
    const long Ls[] = { 16, 64, 256, 1024, 4096 };
    for (int i = 0; i < 5; i++) {
        rl_eval_windows w;
        cr_assert_eq(rl_eval_windows_plan(&t, Ls[i], 65536, 0, 42, &w, &err), RL_OK);
        cr_expect_eq(w.n * w.L, 65536, "L %ld: %ld windows", Ls[i], w.n);
        cr_expect_eq(w.n, w.wanted);
        expect_disjoint(&w, t.n);
        rl_eval_windows_free(&w);
    }
    /* a count that L does not divide: at least the targets asked for */
    rl_eval_windows w;
    cr_assert_eq(rl_eval_windows_plan(&t, 100, 65536, 0, 42, &w, &err), RL_OK);
    cr_expect_eq(w.n, 656);
    rl_eval_windows_free(&w);
    /* more than fit: every disjoint window, and the shortfall visible */
    cr_assert_eq(rl_eval_windows_plan(&t, 1024, 1L << 20, 0, 42, &w, &err), RL_OK);
    cr_expect_eq(w.wanted, 1024);
    cr_expect_eq(w.slots, (t.n - 1) / 1024);
    cr_expect_eq(w.n, w.slots);
    expect_disjoint(&w, t.n);
    rl_eval_windows_free(&w);
    /* the old count: windows, not targets */
    cr_assert_eq(rl_eval_windows_plan(&t, 64, 0, 20, 42, &w, &err), RL_OK);
    cr_expect_eq(w.n, 20);
    rl_eval_windows_free(&w);
    cr_expect_eq(rl_eval_windows_plan(&t, 200000, 1, 0, 42, &w, &err), RL_EINPUT);
    free(t.tok);
}

/* The layout depends on (the stream's length, L, seed) only: another text
 * of the same length gives the same starts, another seed other starts. */
Test(eval_protocol, windows_paired_by_seed)
{
    rl_tokens a = stream(50000, 1), b = stream(50000, 0);
    rl_err err;
    rl_eval_windows wa, wb, wc;
    cr_assert_eq(rl_eval_windows_plan(&a, 64, 8192, 0, 7, &wa, &err), RL_OK);
    cr_assert_eq(rl_eval_windows_plan(&b, 64, 8192, 0, 7, &wb, &err), RL_OK);
    cr_assert_eq(rl_eval_windows_plan(&a, 64, 8192, 0, 8, &wc, &err), RL_OK);
    cr_assert_eq(wa.n, 128);
    cr_expect_arr_eq(wa.start, wb.start, sizeof(long) * 128);
    cr_expect_arr_eq(wa.key, wb.key, sizeof(uint64_t) * 128);
    cr_expect(memcmp(wa.start, wc.start, sizeof(long) * 128) != 0, "seed 8 drew seed 7's windows");
    rl_eval_windows_free(&wa);
    rl_eval_windows_free(&wb);
    rl_eval_windows_free(&wc);
    free(a.tok);
    free(b.tok);
}

/* The check's arithmetic: se of the difference from both samples. */
Test(eval_protocol, val_check_rule)
{
    rl_val_check c;
    /* eval: 100 windows, se 0.01 (sd 0.1); validation: 25 windows (se 0.02) */
    rl_val_check_make(&c, 2.0, NULL, 25, 2.03, 0.01, 100);
    cr_expect_float_eq(c.se, sqrt(0.01 * 0.01 + 0.02 * 0.02), 1e-12);
    cr_expect_eq(c.verdict, RL_VAL_AGREE, "0.03 within 2 x 0.022");
    rl_val_check_make(&c, 2.0, NULL, 25, 2.05, 0.01, 100);
    cr_expect_eq(c.verdict, RL_VAL_DISAGREE, "0.05 beyond 2 x 0.022");
    rl_val_check_make(&c, NAN, "no log", 25, 2.05, 0.01, 100);
    cr_expect_eq(c.verdict, RL_VAL_UNAVAILABLE);
    cr_expect_str_eq(c.why, "no log");
    rl_val_check_make(&c, 2.0, NULL, 25, 2.05, NAN, 1);
    cr_expect_eq(c.verdict, RL_VAL_UNAVAILABLE, "one window: no standard error");
}

/* ---- through the binary, on a tiny trained model ---- */

#define TINY "--layers 1 --width 16 --heads 2 --ctx 16 --batch 4 --val-every 5 --val-batches 4 " \
             "--lr 3e-3:10 --pos rope --threads 1"

static char *train(const char *dir, const char *txt, const char *name, int seed)
{
    char args[2048], err[2048], *run = th_path(dir, name);
    snprintf(args, sizeof args, "train --data %s --out %s --seed %d " TINY, txt, run, seed);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    return run;
}

/* The value of column col (0-based) of the row of length L in a TSV. */
static void cell(const char *tsv, long L, int col, char *buf, size_t n)
{
    char key[32];
    snprintf(key, sizeof key, "\n%ld\t", L);
    const char *p = strstr(tsv, key);
    cr_assert(p, "no row %ld in %s", L, tsv);
    p++;
    for (int i = 0; i < col; i++)
        p = strchr(p, '\t') + 1;
    const size_t k = strcspn(p, "\t\n");
    cr_assert_lt(k, n);
    memcpy(buf, p, k);
    buf[k] = 0;
}

Test(eval_protocol, cli_paired_matched_checked, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[4096], out[8192], err[2048], c[64];
    th_write_text(txt, 400);
    char *a = train(d, txt, "a", 1), *b = train(d, txt, "b", 2);
    /* two checkpoints, two seeds: the same window lists (the full-stream
     * protocol's windows depend on the stream and the longest length alone,
     * model/evaluate.h; the old protocol's on the seed, windows_paired_by_seed) */
    const char *evalf = "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64,512 --targets 1024 "
                        "--seed %d --threads %d --out %s/%s.tsv --starts %s/%s.starts";
    snprintf(args, sizeof args, evalf, a, txt, 5, 1, d, "a1", d, "a1");
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, evalf, b, txt, 5, 1, d, "b", d, "b");
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, evalf, a, txt, 6, 1, d, "s6", d, "s6");
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    char *sa = rl_read_file(th_path(d, "a1.starts"), NULL), *sb = rl_read_file(th_path(d, "b.starts"), NULL);
    char *s6 = rl_read_file(th_path(d, "s6.starts"), NULL);
    cr_assert(sa && sb && s6);
    cr_expect_str_eq(sa, sb, "two models, one seed: different windows");
    cr_expect_str_eq(sa, s6, "another seed: other windows");
    /* the models differ, the windows do not */
    char *ta = rl_read_file(th_path(d, "a1.tsv"), NULL), *tb = rl_read_file(th_path(d, "b.tsv"), NULL);
    cr_assert(ta && tb);
    cr_expect_str_neq(ta, tb);

    /* token-matched: 1024 targets at 16 and 64 (64 and 16 windows); the
     * validation stream (about 2,500 tokens) holds 4 windows of 512, and
     * the TSV and the output say so */
    cell(ta, 16, 1, c, sizeof c); cr_expect_str_eq(c, "64");
    cell(ta, 16, 6, c, sizeof c); cr_expect_str_eq(c, "1024");
    cell(ta, 64, 6, c, sizeof c); cr_expect_str_eq(c, "1024");
    cell(ta, 64, 8, c, sizeof c); cr_expect_str_eq(c, "no");
    cell(ta, 512, 7, c, sizeof c); cr_expect_str_eq(c, "2");
    cell(ta, 512, 1, c, sizeof c); cr_expect_str_eq(c, "2");
    snprintf(args, sizeof args, evalf, a, txt, 5, 1, d, "big", d, "big");
    strcat(args, " --lengths 16,512 --targets 8192");
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *tg = rl_read_file(th_path(d, "big.tsv"), NULL);
    cell(tg, 512, 7, c, sizeof c); cr_expect_str_eq(c, "16");
    cell(tg, 512, 8, c, sizeof c); cr_expect_str_eq(c, "yes");
    cell(tg, 512, 1, c, sizeof c);
    cr_expect_lt(atol(c), 16);
    cr_expect(strstr(out, "length 512: the validation stream") != NULL, "shortfall not said: %s", out);

    /* the validation check, with the run's own log: agree */
    cell(ta, 16, 12, c, sizeof c); cr_expect_str_eq(c, "agree", "%s", ta);
    cell(ta, 64, 12, c, sizeof c); cr_expect_str_eq(c, "NA");

    /* ... with a log whose final validation loss is 1 nat too low: disagree */
    char *log = rl_read_file(th_path(a, "log.tsv"), NULL), *bad = th_path(d, "bad.tsv");
    cr_assert(log);
    FILE *f = fopen(bad, "w");
    cr_assert(f);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        long step;
        double tr, val;
        if (sscanf(line, "%ld\t%lf\t%lf", &step, &tr, &val) == 3 && step == 10)
            fprintf(f, "10\t%.17g\t%.17g\t0.001\t1\n", tr, val - 1);
        else
            fprintf(f, "%s\n", line);
    }
    fclose(f);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16 --targets 1024 "
             "--threads 1 --out %s/w.tsv --val-log %s", a, txt, d, bad);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *tw = rl_read_file(th_path(d, "w.tsv"), NULL);
    cell(tw, 16, 12, c, sizeof c); cr_expect_str_eq(c, "disagree", "%s", tw);
    cr_expect(strstr(out, "DISAGREE") != NULL, "%s", out);

    /* ... without a log beside the checkpoint: unavailable, said */
    snprintf(args, sizeof args, "rm %s/log.tsv", b);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16 --targets 256 "
             "--threads 1 --out %s/u.tsv", b, txt, d);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *tu = rl_read_file(th_path(d, "u.tsv"), NULL);
    cell(tu, 16, 12, c, sizeof c); cr_expect_str_eq(c, "unavailable");
    cr_expect(strstr(out, "validation check unavailable") != NULL, "%s", out);

    /* the same numbers with 2 threads */
    snprintf(args, sizeof args, evalf, a, txt, 5, 2, d, "a2", d, "a2");
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    char *t2 = rl_read_file(th_path(d, "a2.tsv"), NULL);
    cr_expect_str_eq(ta, t2, "1 vs 2 threads");
    th_rmdir(d);
}
