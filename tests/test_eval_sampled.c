/* test_eval_sampled.c: eval --windows sampled and --positions
 * (docs/protocol.md#sampled-windows): the sampled spans depend on the windows' seed and the
 * stream's length, never on the text or the model (every variant of a seed reads the
 * same windows), lie inside the stream with disjoint targets, cover it
 * uniformly, and are the same bytes on 1 and 2 threads; the spans mode (the
 * default) reads the windows it always read; the per-position file's bins
 * tile the window and its prefix perplexity at l = L is exp of the window's
 * mean loss. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "../model/evalpos.h"
#include "../model/evaluate.h"
#include "helpers.h"
#include "test_model_util.h"

static rl_tokens stream(long n, int fill)
{
    rl_tokens t = { rl_xmalloc(sizeof(uint16_t) * (size_t)n), n, { 0, 0 } };
    for (long i = 0; i < n; i++)
        t.tok[i] = (uint16_t)(fill ? (i * 31 + 7) % 256 : 0);
    return t;
}

/* Every span's targets (start + 1 .. start + Lmax) inside the stream, the
 * starts ascending, two spans' targets never shared. */
static void expect_inside_disjoint(const rl_eval_spans *s, long n)
{
    for (long i = 0; i < s->n; i++) {
        cr_expect(s->start[i] >= 0 && s->start[i] + s->Lmax <= n - 1, "span %ld at %ld", i, s->start[i]);
        if (i)
            cr_expect_geq(s->start[i] - s->start[i - 1], s->Lmax, "spans %ld, %ld overlap", i - 1, i);
    }
}

Test(eval_sampled, spans_inside_the_stream_and_disjoint)
{
    rl_tokens t = stream(100003, 1);
    rl_err err;
    const long Ls[] = { 64, 1000, 8192, 33333 };
    const long targets[] = { 4096, 16384, 0, 1L << 40 }; /* 0: every slot; 2^40: more than fit */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (uint64_t seed = 0; seed < 20; seed++) {
                rl_eval_spans s, p;
                cr_assert_eq(rl_eval_spans_sample(&t, Ls[i], targets[j], seed, &s, &err), RL_OK);
                cr_assert_eq(rl_eval_spans_plan(&t, Ls[i], targets[j], &p, &err), RL_OK);
                /* the counts are the spans plan's: the same targets per length */
                cr_expect_eq(s.n, p.n);
                cr_expect_eq(s.slots, p.slots);
                cr_expect_eq(s.wanted, p.wanted);
                expect_inside_disjoint(&s, t.n);
                rl_eval_spans_free(&s);
                rl_eval_spans_free(&p);
            }
    rl_eval_spans s;
    cr_expect_eq(rl_eval_spans_sample(&t, 100003, 1, 1, &s, &err), RL_EINPUT);
    cr_expect_eq(rl_eval_spans_sample(&t, 0, 1, 1, &s, &err), RL_EINPUT);
    free(t.tok);
}

/* The draw depends on (seed, Lmax, the stream's length): another text of
 * the same length gives the same spans (so does another model: nothing of
 * it is an argument), another seed other spans. */
Test(eval_sampled, spans_from_the_seed_not_the_text)
{
    rl_tokens a = stream(60000, 1), b = stream(60000, 0);
    rl_err err;
    rl_eval_spans sa, sb, sc;
    cr_assert_eq(rl_eval_spans_sample(&a, 512, 4096, 7, &sa, &err), RL_OK);
    cr_assert_eq(rl_eval_spans_sample(&b, 512, 4096, 7, &sb, &err), RL_OK);
    cr_assert_eq(rl_eval_spans_sample(&a, 512, 4096, 8, &sc, &err), RL_OK);
    cr_assert_eq(sa.n, 8);
    cr_expect_arr_eq(sa.start, sb.start, sizeof(long) * 8);
    cr_expect(memcmp(sa.start, sc.start, sizeof(long) * 8) != 0, "seeds 7 and 8 drew the same spans");
    rl_eval_spans_free(&sa);
    rl_eval_spans_free(&sb);
    rl_eval_spans_free(&sc);
    free(a.tok);
    free(b.tok);
}

/* One span is uniform over its F + 1 places (F = n - 1 - Lmax): over M
 * seeds its mean start is F/2 within 5 standard errors, sqrt(((F + 1)^2 -
 * 1) / 12 / M); and a span's place is not the spans plan's slot 0. */
Test(eval_sampled, one_span_is_uniform_over_the_stream)
{
    rl_tokens t = stream(20001, 1);
    rl_err err;
    const long Lmax = 1000, F = t.n - 1 - Lmax, M = 4000;
    double sum = 0;
    long lo = 0, hi = 0;
    for (long m = 0; m < M; m++) {
        rl_eval_spans s;
        cr_assert_eq(rl_eval_spans_sample(&t, Lmax, Lmax, (uint64_t)m, &s, &err), RL_OK);
        cr_assert_eq(s.n, 1);
        sum += (double)s.start[0];
        lo += s.start[0] < F / 4;
        hi += s.start[0] > 3 * F / 4;
        rl_eval_spans_free(&s);
    }
    const double se = sqrt((((double)F + 1) * ((double)F + 1) - 1) / 12.0 / M);
    cr_expect_lt(fabs(sum / M - F / 2.0), 5 * se, "mean start %g, F/2 = %g, SE %g", sum / M, F / 2.0, se);
    /* each quarter holds a quarter of the draws: binomial(M, 1/4), 5 SE */
    const double bse = sqrt(M * 0.25 * 0.75);
    cr_expect_lt(fabs(lo - M / 4.0), 5 * bse, "first quarter %ld of %ld", lo, M);
    cr_expect_lt(fabs(hi - M / 4.0), 5 * bse, "last quarter %ld of %ld", hi, M);
    free(t.tok);
}

/* The spans mode is the plan it always was: slot floor(i slots / n). */
Test(eval_sampled, spans_mode_is_the_even_plan)
{
    rl_tokens t = stream(100003, 1);
    rl_err err;
    rl_eval_spans s;
    cr_assert_eq(rl_eval_spans_plan(&t, 1000, 7000, &s, &err), RL_OK);
    cr_assert_eq(s.slots, 100);
    cr_assert_eq(s.n, 7);
    for (long i = 0; i < 7; i++)
        cr_expect_eq(s.start[i], (i * 100 / 7) * 1000, "span %ld at %ld", i, s.start[i]);
    rl_eval_spans_free(&s);
    free(t.tok);
}

/* Bins: contiguous, from 0 to L, at most RL_EVALPOS_BINS, one position each
 * up to that many positions, single positions first, log-spaced ends. */
Test(eval_sampled, position_bins_tile_the_window)
{
    const long Ls[] = { 1, 7, 64, 65, 100, 512, 8192, 65536, 1L << 30 };
    for (int i = 0; i < 9; i++) {
        long end[RL_EVALPOS_BINS];
        const int nb = rl_evalpos_bins(Ls[i], end);
        cr_assert(nb >= 1 && nb <= RL_EVALPOS_BINS, "L %ld: %d bins", Ls[i], nb);
        cr_expect_eq(end[nb - 1], Ls[i]);
        cr_expect_eq(end[0], 1, "L %ld: position 0 not alone", Ls[i]);
        for (int k = 1; k < nb; k++)
            cr_expect_gt(end[k], end[k - 1]);
        if (Ls[i] <= RL_EVALPOS_BINS)
            cr_expect_eq(nb, Ls[i]);
        else
            cr_expect_geq(nb, RL_EVALPOS_BINS / 2, "L %ld: only %d bins", Ls[i], nb);
    }
}

/* The file from known losses: loss at window w, position i = i + w, so L(i)
 * = i + (nw - 1)/2 and the prefix loss at l = (l - 1)/2 + (nw - 1)/2,
 * exactly; the SE of a bin over windows is that of 0, 1, ..., nw - 1. */
Test(eval_sampled, positions_file_from_known_losses)
{
    const long L = 300, nw = 5;
    float *loss = rl_xmalloc(sizeof(float) * L * nw);
    for (long w = 0; w < nw; w++)
        for (long i = 0; i < L; i++)
            loss[w * L + i] = (float)(i + w);
    char *d = th_tmpdir(), *p = th_path(d, "pos.tsv");
    FILE *f = fopen(p, "w");
    cr_assert(f);
    rl_evalpos_write(f, loss, nw, L);
    fclose(f);
    f = fopen(p, "r");
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, RL_EVALPOS_HEADER);
    long next = 0, rows = 0;
    const double wse = sqrt(2.5 / nw); /* var of 0..4 = 2.5 */
    while (fgets(line, sizeof line, f)) {
        long first, last, np, w, pl;
        double lo, se, pf, pp;
        cr_assert_eq(sscanf(line, "%ld\t%ld\t%ld\t%ld\t%lf\t%lf\t%ld\t%lf\t%lf", &first, &last, &np, &w, &lo, &se,
                            &pl, &pf, &pp), 9, "%s", line);
        cr_expect_eq(first, next);
        cr_expect_eq(np, last - first + 1);
        cr_expect_eq(w, nw);
        cr_expect_eq(pl, last + 1);
        cr_expect_lt(fabs(lo - ((first + last) / 2.0 + 2)), 1e-6, "%s", line);
        cr_expect_lt(fabs(se - wse), 1e-6, "%s", line);
        cr_expect_lt(fabs(pf - ((pl - 1) / 2.0 + 2)), 1e-6, "%s", line);
        cr_expect_lt(fabs(log(pp) - pf), 1e-6 * pf + 1e-6, "%s", line);
        next = last + 1;
        rows++;
    }
    fclose(f);
    cr_expect_eq(next, L);
    cr_expect_leq(rows, RL_EVALPOS_BINS);
    free(loss);
    free(p);
    th_rmdir(d);
}

/* On a model: the losses kept at Lmax give a prefix perplexity at l = Lmax
 * equal to exp of the mean over the windows of each window's total loss
 * (rl_gpt_eval_window, computed here without the kept losses). */
Test(eval_sampled, prefix_at_L_is_exp_of_the_window_mean, .timeout = 60)
{
    const int T = 16, V = 32;
    const long Lmax = 128;
    rl_gpt_config cfg = { 1, 16, 2, T, V, 0.0f, tm_pos("rope"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    cr_assert(m);
    rl_gpt_init(m, 3);
    tm_randn(m->params, m->nparams, 4, 0.15f);
    rl_tokens val = { rl_xmalloc(sizeof(uint16_t) * 5000), 5000, { 0, 0 } };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)((i * 7 + i / 13) % V);
    rl_err err;
    rl_eval_spans s;
    cr_assert_eq(rl_eval_spans_sample(&val, Lmax, 4 * Lmax, 11, &s, &err), RL_OK);
    cr_assert_eq(s.n, 4);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, Lmax);
    float *keep = rl_xmalloc(sizeof(float) * (size_t)(s.n * Lmax));
    const rl_eval_row row = rl_eval_length(m, e, &val, &s, NULL, NULL, Lmax, T, 9, keep);
    /* independently: each window's summed loss, the same noise key */
    double tot = 0;
    for (long i = 0; i < s.n; i++)
        tot += rl_gpt_eval_window(m, e, val.tok + s.start[i], Lmax, rl_eval_window_key(9, Lmax, s.start[i]));
    const double mean = tot / (double)(s.n * Lmax);
    char *d = th_tmpdir(), *p = th_path(d, "pos.tsv");
    FILE *f = fopen(p, "w");
    cr_assert(f);
    rl_evalpos_write(f, keep, s.n, Lmax);
    fclose(f);
    char *txt = rl_read_file(p, NULL), *lastrow = txt + strlen(txt) - 1;
    *lastrow = 0;
    lastrow = strrchr(txt, '\n') + 1;
    long first, last, np, w, pl;
    double lo, pf, pp;
    char se[32];
    cr_assert_eq(sscanf(lastrow, "%ld\t%ld\t%ld\t%ld\t%lf\t%31s\t%ld\t%lf\t%lf", &first, &last, &np, &w, &lo, se, &pl,
                        &pf, &pp), 9, "%s", lastrow);
    cr_expect_eq(pl, Lmax);
    cr_expect_eq(w, 4);
    /* printed to 6 decimals: the loss to 5e-7, the perplexity to 5e-7 of ~V */
    cr_expect_lt(fabs(pf - mean), 1e-6, "prefix loss %.9f, windows' mean %.9f", pf, mean);
    cr_expect_lt(fabs(pp - exp(mean)), 1e-6 * exp(mean) + 1e-6, "prefix ppl %.9f, exp(mean) %.9f", pp, exp(mean));
    cr_expect_lt(fabs(row.loss - mean), 1e-9, "the row's mean %.12f, %.12f", row.loss, mean);
    free(txt);
    free(p);
    th_rmdir(d);
    free(keep);
    rl_gpt_eval_free(e);
    rl_eval_spans_free(&s);
    free(val.tok);
    rl_gpt_free(m);
}

/* ---- through the binary, on tiny trained models ---- */

#define TINY "--layers 1 --width 16 --heads 2 --ctx 16 --batch 4 --val-every 5 --val-batches 4 --lr 3e-3:10 " \
             "--threads 1"

static char *train(const char *dir, const char *txt, const char *name, const char *pos)
{
    char args[2048], err[2048], *run = th_path(dir, name);
    snprintf(args, sizeof args, "train --data %s --out %s --seed 1 --pos %s " TINY, txt, run, pos);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    return run;
}

static char *slurp(const char *d, const char *name)
{
    char *p = th_path(d, name), *s = rl_read_file(p, NULL);
    cr_assert(s, "cannot read %s", p);
    free(p);
    return s;
}

/* eval ckpt of run with flags, its outputs NAME.tsv, NAME.starts, NAME.pos */
static void eval(const char *d, const char *txt, const char *run, const char *name, const char *flags)
{
    char args[4096], err[2048];
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64,256 --targets 1024 "
             "--out %s/%s.tsv --starts %s/%s.starts --positions %s/%s.pos %s", run, txt, d, name, d, name, d, name,
             flags);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
}

Test(eval_sampled, cli_same_windows_for_every_variant_and_thread_count, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt");
    th_write_text(txt, 400);
    char *a = train(d, txt, "a", "rope"), *b = train(d, txt, "b", "alibi");
    eval(d, txt, a, "a5", "--windows sampled --seed 5 --threads 1");
    eval(d, txt, b, "b5", "--windows sampled --seed 5 --threads 1");
    eval(d, txt, a, "a6", "--windows sampled --seed 6 --threads 1");
    eval(d, txt, a, "w5", "--windows sampled --seed 6 --windows-seed 5 --threads 1");
    eval(d, txt, a, "a5t2", "--windows sampled --seed 5 --threads 2");
    eval(d, txt, a, "sp", "--threads 1");
    char *sa = slurp(d, "a5.starts"), *sb = slurp(d, "b5.starts"), *s6 = slurp(d, "a6.starts");
    char *sw = slurp(d, "w5.starts"), *sp = slurp(d, "sp.starts");
    cr_expect_str_eq(sa, sb, "two variants, one seed: other windows");
    cr_expect_str_neq(sa, s6, "another seed: the same windows");
    cr_expect_str_eq(sa, sw, "--windows-seed 5 under --seed 6: not seed 5's windows");
    cr_expect_str_neq(sa, sp, "sampled: the spans plan's windows");
    /* 1 and 2 threads: the same bytes, windows, losses and curves */
    char *t1 = slurp(d, "a5.tsv"), *t2 = slurp(d, "a5t2.tsv"), *p1 = slurp(d, "a5.pos"), *p2 = slurp(d, "a5t2.pos");
    char *st2 = slurp(d, "a5t2.starts");
    cr_expect_str_eq(sa, st2);
    cr_expect_str_eq(t1, t2);
    cr_expect_str_eq(p1, p2);
    /* the curve at l = 256 against eval.tsv's mean loss at 256 */
    const char *r256 = strstr(t1, "\n256\t");
    cr_assert(r256);
    double mean;
    cr_assert_eq(sscanf(r256 + 1, "%*d\t%*d\t%lf", &mean), 1);
    const char *lastrow = p1 + strlen(p1) - 2;
    while (*lastrow != '\n')
        lastrow--;
    double pf, pp;
    long pl;
    cr_assert_eq(sscanf(lastrow + 1, "%*d\t%*d\t%*d\t%*d\t%*f\t%*s\t%ld\t%lf\t%lf", &pl, &pf, &pp), 3);
    cr_expect_eq(pl, 256);
    cr_expect_lt(fabs(pf - mean), 2e-6, "prefix loss %f, eval.tsv %f", pf, mean);
    th_rmdir(d);
}

/* The spans mode (eval's default) reads the windows it read before
 * --windows existed, and the old protocol (--batches) its own: the starts
 * below are those of the binary before this change on the same text. */
Test(eval_sampled, spans_and_old_protocol_windows_unchanged, .timeout = 60)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[4096], err[2048];
    th_write_text(txt, 400);
    char *a = train(d, txt, "a", "rope");
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64 --targets 256 --threads 1 "
             "--out %s/o1.tsv --starts %s/o1.starts", a, txt, d, d);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64 --targets 256 --threads 1 "
             "--windows spans --out %s/o3.tsv --starts %s/o3.starts", a, txt, d, d);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64 --batches 3 --seed 9 "
             "--threads 1 --out %s/o2.tsv --starts %s/o2.starts", a, txt, d, d);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    char *o1 = slurp(d, "o1.starts"), *o2 = slurp(d, "o2.starts"), *o3 = slurp(d, "o3.starts");
    cr_expect_str_eq(o1, "length\twindow\tstart\n16\t0\t0\n16\t1\t16\n16\t2\t32\n16\t3\t48\n16\t4\t576\n16\t5\t592\n"
                         "16\t6\t608\n16\t7\t624\n16\t8\t1216\n16\t9\t1232\n16\t10\t1248\n16\t11\t1264\n16\t12\t1856\n"
                         "16\t13\t1872\n16\t14\t1888\n16\t15\t1904\n64\t0\t0\n64\t1\t576\n64\t2\t1216\n64\t3\t1856\n");
    cr_expect_str_eq(o2, "length\twindow\tstart\n16\t0\t515\n16\t1\t1491\n16\t2\t2483\n64\t0\t128\n64\t1\t576\n"
                         "64\t2\t2176\n");
    cr_expect_str_eq(o1, o3);
    cr_expect_str_eq(slurp(d, "o1.tsv"), slurp(d, "o3.tsv"));
    th_rmdir(d);
}

/* ---- the grid: reproduce --eval-windows ---- */

/* Column col (0-based) of eval.tsv's row of length L in the model folder
 * NAME/seedS of grid g, as a number. */
static double eval_cell(const char *g, const char *model, long L, int col)
{
    char rel[256];
    snprintf(rel, sizeof rel, "models/%s/eval.tsv", model);
    char *t = slurp(g, rel), key[32];
    snprintf(key, sizeof key, "\n%ld\t", L);
    const char *p = strstr(t, key);
    cr_assert(p, "no row %ld in %s", L, rel);
    p++;
    for (int i = 0; i < col; i++)
        p = strchr(p, '\t') + 1;
    const double x = atof(p);
    free(t);
    return x;
}

/* A new grid evaluates on sampled spans (config.txt says so): the
 * no-context loss of the targets, a function of the windows alone, is the
 * same for both variants of a seed and differs between seeds; every model
 * has positions.tsv, and the report draws the curves.  A grid whose
 * config.txt has no eval-windows line (made before the option) reads as
 * spans, refuses another --eval-windows, and a report without per-position
 * files says so. */
Test(reproduce_windows, sampled_by_default_paired_within_a_seed, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g"), args[4096], err[2048];
    static char out[1 << 16];
    th_write_text(txt, 300);
    const char *flags = "--variants rope,alibi --eval-targets 64 --probe none --seeds 2";
    th_mini_grid(d, txt, flags, out, sizeof out);
    char *cfg = slurp(g, "config.txt");
    cr_expect(strstr(cfg, "\neval-windows\tsampled\n") != NULL, "%s", cfg);
    const int UNI = 23; /* eval.tsv's unigram_loss */
    const double r42 = eval_cell(g, "rope/seed42", 32, UNI), a42 = eval_cell(g, "alibi/seed42", 32, UNI);
    const double r43 = eval_cell(g, "rope/seed43", 32, UNI), a43 = eval_cell(g, "alibi/seed43", 32, UNI);
    cr_expect_eq(r42, a42, "seed 42: rope and alibi read other targets (%g, %g)", r42, a42);
    cr_expect_eq(r43, a43, "seed 43: rope and alibi read other targets (%g, %g)", r43, a43);
    cr_expect_neq(r42, r43, "seeds 42 and 43 read the same targets");
    char *pos = slurp(g, "models/alibi/seed43/positions.tsv");
    cr_expect(strncmp(pos, RL_EVALPOS_HEADER, strlen(RL_EVALPOS_HEADER)) == 0, "%s", pos);
    char *rep = slurp(g, "REPORT.md");
    cr_expect(strstr(rep, "placed at random over the whole validation stream by each seed") != NULL, "%s", rep);
    cr_expect(strstr(rep, "## Per-position loss and prefix perplexity\n\nEach model's windows of the longest "
                          "length, L = 32") != NULL, "%s", rep);
    cr_expect(strstr(rep, "\n| rope | ") != NULL && strstr(rep, "](positions.png)") != NULL, "%s", rep);
    char *pt = slurp(g, "positions.tsv");
    cr_expect(strstr(pt, "\nalibi\t31\t31\t32\t2\t") != NULL, "%s", pt);
    char *png = th_path(g, "positions.png");
    cr_expect_eq(access(png, R_OK), 0);

    /* --report-only reads the protocol from config.txt: still sampled */
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " %s --report-only", txt, g, flags);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    rep = slurp(g, "REPORT.md");
    cr_expect(strstr(rep, "placed at random over the whole validation stream by each seed") != NULL, "%s", rep);

    /* the grid's config.txt from before the option: spans, and another
     * --eval-windows refused in one line */
    FILE *f = fopen(th_path(g, "config.txt"), "w");
    cr_assert(f);
    *strstr(cfg, "eval-windows\tsampled\n") = 0;
    fputs(cfg, f);
    fclose(f);
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " %s --eval-windows sampled "
             "--report-only", txt, g, flags);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2);
    cr_expect(strstr(err, "was evaluated with --eval-windows spans") != NULL && th_lines(err) == 1, "%s", err);
    /* a model without positions.tsv: the section says so */
    char *pp = th_path(g, "models/rope/seed43/positions.tsv");
    cr_assert_eq(unlink(pp), 0);
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " %s --report-only", txt, g, flags);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    rep = slurp(g, "REPORT.md");
    cr_expect(strstr(rep, "Not in this grid: 1 of its 4 models have no `positions.tsv`") != NULL, "%s", rep);
    cr_expect(strstr(rep, "spans spread evenly over the validation stream") != NULL, "%s", rep);
    /* the grid run again (nothing left to do) keeps spans in its config.txt */
    th_mini_grid(d, txt, flags, out, sizeof out);
    cfg = slurp(g, "config.txt");
    cr_expect(strstr(cfg, "\neval-windows\tspans\n") != NULL, "%s", cfg);
    th_rmdir(d);
}
