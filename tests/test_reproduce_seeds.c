/* test_reproduce_seeds.c: seeds as the replication unit of `routelab
 * reproduce`: --seeds K trains K models per variant with
 * different weights, a larger K trains only the new seeds, the report gives
 * the mean ± SE across seeds, and the orderings are decided on paired
 * seed-level statistics by the claims table's rules (program/reproduce/order.h),
 * unresolved with one seed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/core/util.h"
#include "../program/reproduce/order.h"
#include "helpers.h"

/* The miniature grid of test_reproduce.c: 1 layer of width 16, context 8,
 * 8 steps, evaluated at 8, 16, 32, base seed 42; well under a second a model. */
#define GRID_FLAGS "--eval-batches 2 --probe none --seed 42 --variants rope,alibi"
#define MINI TH_MINI_GRID " " GRID_FLAGS

static void run_grid(const char *d, const char *txt, const char *extra, char *out, size_t outlen)
{
    char f[1024];
    snprintf(f, sizeof f, GRID_FLAGS " %s", extra);
    th_mini_grid(d, txt, f, out, outlen);
}

static struct timespec mtime_of(const char *path)
{
    struct stat st;
    cr_assert(stat(path, &st) == 0, "missing: %s", path);
    return st.st_mtim;
}

static int files_equal(const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    return system(cmd) == 0;
}

Test(reproduce_seeds, k_models_per_variant_and_a_new_seed_trains_alone, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    run_grid(d, txt, "--seeds 2", out, sizeof out);
    const char *var[] = { "rope", "alibi" };
    for (int v = 0; v < 2; v++) {
        char p42[256], p43[256], c42[256], c43[256];
        snprintf(p42, sizeof p42, "%s/models/%s/seed42/ckpt.bin", g, var[v]);
        snprintf(p43, sizeof p43, "%s/models/%s/seed43/ckpt.bin", g, var[v]);
        mtime_of(p42);
        mtime_of(p43);
        cr_expect(!files_equal(p42, p43), "%s: the two seeds' checkpoints are the same", var[v]);
        /* the two models differ by their seed only */
        snprintf(c42, sizeof c42, "%s/models/%s/seed42/config.txt", g, var[v]);
        snprintf(c43, sizeof c43, "%s/models/%s/seed43/config.txt", g, var[v]);
        char *a = rl_read_file(c42, NULL), *b = rl_read_file(c43, NULL);
        cr_assert(a && b);
        cr_expect(strstr(a, "--seed\n42\n") && strstr(b, "--seed\n43\n"), "%s\n%s", a, b);
        free(a);
        free(b);
    }
    /* table.tsv: every model (2 variants x 2 seeds x 3 lengths); summary.tsv:
     * across seeds, its SE over seeds */
    char *tab = rl_read_file(th_path(g, "table.tsv"), NULL), *sum = rl_read_file(th_path(g, "summary.tsv"), NULL);
    cr_assert(tab && sum);
    cr_expect_eq(th_lines(tab), 1 + 2 * 2 * 3, "%s", tab);
    cr_expect(strstr(tab, "rope\t42\t16\t2\t") && strstr(tab, "rope\t43\t16\t2\t"), "%s", tab);
    cr_expect_eq(th_lines(sum), 1 + 2 * 3, "%s", sum);
    /* the summary's mean ratio at 2x is the mean of the two seeds' ratios */
    double r2[2] = { NAN, NAN }, mean = NAN, se = NAN;
    for (char *line = strtok(tab, "\n"); line; line = strtok(NULL, "\n")) {
        long seed, L, mult;
        double loss, lse, ppl, ratio;
        if (sscanf(line, "rope %ld %ld %ld %lf %lf %lf %lf", &seed, &L, &mult, &loss, &lse, &ppl, &ratio) == 7 &&
            mult == 2)
            r2[seed - 42] = ratio;
    }
    for (char *line = strtok(sum, "\n"); line; line = strtok(NULL, "\n")) {
        long L, mult;
        int k;
        double ppl, pse;
        char over[16];
        if (sscanf(line, "rope %ld %ld %d %lf %lf %lf %lf %15s", &L, &mult, &k, &ppl, &pse, &mean, &se, over) == 8 &&
            mult == 2) {
            cr_expect_eq(k, 2);
            cr_expect_str_eq(over, "seeds");
            break;
        }
    }
    cr_expect(fabs(mean - 0.5 * (r2[0] + r2[1])) < 1e-3, "mean %g of %g, %g", mean, r2[0], r2[1]);
    cr_expect(fabs(se - 0.5 * fabs(r2[0] - r2[1])) < 1e-3, "SE %g of %g, %g", se, r2[0], r2[1]);
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    cr_assert(rep);
    char cell[64];
    snprintf(cell, sizeof cell, "| %.2f× ± %.2f |", mean, se);
    cr_expect(strstr(rep, "standard error across seeds") && strstr(rep, cell), "REPORT.md lacks '%s'", cell);
    cr_expect(strstr(rep, "One seed: no seed SE") == NULL);
    cr_expect(strstr(rep, "| 2 per variant: 42 … 43") != NULL || strstr(rep, "2 per variant: 42 … 43") != NULL);
    free(rep);

    /* --seeds 3: only seed 44 is trained and evaluated */
    char ck42[256], ev43[256];
    snprintf(ck42, sizeof ck42, "%s/models/rope/seed42/ckpt.bin", g);
    snprintf(ev43, sizeof ev43, "%s/models/alibi/seed43/eval.tsv", g);
    struct timespec t42 = mtime_of(ck42), t43 = mtime_of(ev43);
    run_grid(d, txt, "--seeds 3", out, sizeof out);
    for (int v = 0; v < 2; v++) {
        char want[64];
        snprintf(want, sizeof want, "%s seed 44: training", var[v]);
        cr_expect(strstr(out, want) != NULL, "%s not trained:\n%s", want, out);
        for (int s = 42; s <= 43; s++) {
            snprintf(want, sizeof want, "%s seed %d: ", var[v], s);
            cr_expect(strstr(out, want) == NULL, "'%s' redone:\n%s", want, out);
        }
    }
    cr_expect(strstr(out, "model 6/6") != NULL, "%s", out);
    struct timespec n42 = mtime_of(ck42), n43 = mtime_of(ev43);
    cr_expect(n42.tv_sec == t42.tv_sec && n42.tv_nsec == t42.tv_nsec, "seed 42's checkpoint rewritten");
    cr_expect(n43.tv_sec == t43.tv_sec && n43.tv_nsec == t43.tv_nsec, "seed 43's evaluation rewritten");
    tab = rl_read_file(th_path(g, "table.tsv"), NULL);
    cr_assert(tab);
    cr_expect_eq(th_lines(tab), 1 + 2 * 3 * 3, "%s", tab);
    free(tab);

    /* one seed: the report says there is no seed SE, and every ordering is
     * unresolved */
    run_grid(d, txt, "--seeds 1 --report-only", out, sizeof out);
    rep = rl_read_file(th_path(g, "REPORT.md"), NULL);
    char *ord = rl_read_file(th_path(g, "orderings.tsv"), NULL);
    cr_assert(rep && ord);
    cr_expect(strstr(rep, "One seed: no seed SE") != NULL, "%s", rep);
    cr_expect(strstr(ord, "alibi flat") != NULL, "%s", ord);
    /* a row about 128x, which this grid (to 4x) can never decide, is no row of
     * the table or of orderings.tsv: it is named beneath the table */
    cr_expect(strstr(ord, "degrades by 128×") == NULL, "%s", ord);
    const char *nig = strstr(rep, "Not in this grid (it stops at 4×");
    cr_expect(nig && strstr(nig, "rope degrades by 128×"), "%s", rep);
    cr_expect(!strstr(rep, "| rope degrades by 128× |"), "a row the grid cannot decide is in the table");
    /* every row's verdict (the verdict column: the expected and target
     * columns name outcomes too) is unresolved */
    int rows = 0;
    for (char *line = strtok(ord, "\n"); line; line = strtok(NULL, "\n"), rows++) {
        char *col[16] = { line };
        int nc = 1;
        for (char *q = line; nc < 16 && (q = strchr(q, '\t')); q++) {
            *q = 0;
            col[nc++] = q + 1;
        }
        cr_assert_eq(nc, 15, "orderings.tsv row %d has %d columns", rows, nc);
        if (rows == 0)
            cr_assert_str_eq(col[11], "verdict");
        else
            cr_expect_str_eq(col[11], "unresolved", "%s: %s", col[0], col[11]);
    }
    cr_expect_geq(rows, 3);
    free(rep);
    free(ord);
    th_rmdir(d);
}

/* The decision on constructed per-seed numbers: a paired difference well
 * above its spread holds, well below is contradicted, within it is
 * unresolved; one seed (no SE) and a missing value are unresolved, never a
 * hold. */
Test(reproduce_seeds, paired_decision_gives_each_verdict)
{
    const double b[4] = { 0.10, 0.30, 0.20, 0.25 };
    /* a - b = 1 + small noise: holds */
    const double up[4] = { 1.11, 1.29, 1.22, 1.24 };
    rl_order o = rl_order_above(up, b, 4);
    cr_expect_eq(o.v, RL_V_HOLDS, "x %g", o.x);
    cr_expect_str_eq(o.rule, "sign");
    cr_expect_eq(o.k, 4);
    cr_expect_float_eq(o.mean, (1.01 + 0.99 + 1.02 + 0.99) / 4, 1e-12);
    /* the paired SE: of the differences, not of either variant (whose own
     * spread, 0.08 across seeds, would leave it unresolved) */
    cr_expect(o.se < 0.01, "se %g", o.se);
    /* reversed: contradicted */
    o = rl_order_above(b, up, 4);
    cr_expect_eq(o.v, RL_V_CONTRADICTED, "x %g", o.x);
    /* differences of both signs: unresolved */
    const double mixed[4] = { 0.30, 0.10, 0.35, 0.15 };
    o = rl_order_above(mixed, b, 4);
    cr_expect_eq(o.v, RL_V_UNRESOLVED, "x %g", o.x);
    /* one seed, however large the difference: no SE, unresolved */
    const double big[1] = { 5.0 }, zero[1] = { 0.0 };
    o = rl_order_above(big, zero, 1);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    cr_expect(isnan(o.se) && isnan(o.x));
    o = rl_order_positive(big, 1);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    o = rl_order_below(zero, 1, log(1.1));
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    /* a missing value (a length not evaluated): unresolved */
    const double gap[4] = { 1.0, NAN, 1.2, 1.1 };
    o = rl_order_above(gap, b, 4);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    /* below a threshold: flat holds, a clear rise is contradicted */
    const double flat[3] = { 0.00, 0.002, -0.002 }, rise[3] = { 0.50, 0.52, 0.49 };
    cr_expect_eq(rl_order_below(flat, 3, log(1.1)).v, RL_V_HOLDS);
    cr_expect_eq(rl_order_below(rise, 3, log(1.1)).v, RL_V_CONTRADICTED);
    cr_expect_str_eq(rl_order_below(rise, 3, log(1.1)).rule, "below");
    cr_expect_eq(rl_order_positive(rise, 3).v, RL_V_HOLDS);
    /* with 3 seeds a spread of 0.01 about 0 is t = -16.5 against log 1.1, only
     * z = -2.9 with 2 degrees of freedom: not yet decided */
    const double loose[3] = { 0.00, 0.01, -0.01 };
    cr_expect_eq(rl_order_below(loose, 3, log(1.1)).v, RL_V_UNRESOLVED);
    /* two seeds of make run's rope (t = 18.4) are z = 1.8: unresolved, not a hold */
    cr_expect_eq(rl_order_positive((const double[]){ 1.08478, 1.20961 }, 2).v, RL_V_UNRESOLVED);
    /* mean and SE: sample sd / sqrt(k) */
    double m, se;
    rl_seed_mean_se((const double[]){ 1, 2, 3, 4 }, 4, &m, &se);
    cr_expect_float_eq(m, 2.5, 1e-12);
    cr_expect_float_eq(se, sqrt(5.0 / 3.0 / 4.0), 1e-12);
}

/* Bad --seeds: one line, status 2, nothing written. */
Test(reproduce_seeds, bad_seeds_write_nothing, .timeout = 60)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    th_write_text(txt, 50);
    const char *bad[][2] = {
        { "--seeds 0", "--seeds 0 is out of range" },
        { "--seeds 65", "--seeds 65 is out of range" },
        { "--seeds 99999999999", "--seeds" },
        { "--seeds x", "--seeds" },
        { "--seed 9200000000000000000 --seeds 2", "runs past the largest seed" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[2048], err[2048];
        snprintf(args, sizeof args, "reproduce --data %s --out %s " MINI " %s", txt, g, bad[i][0]);
        int st = th_run(args, NULL, 0, err, sizeof err);
        cr_expect_eq(st, 2, "%s: status %d", bad[i][0], st);
        cr_expect_eq(th_lines(err), 1, "%s: not one line: %s", bad[i][0], err);
        cr_expect(strstr(err, bad[i][1]) != NULL, "%s: stderr lacks '%s': %s", bad[i][0], bad[i][1], err);
        struct stat s;
        cr_expect(stat(g, &s) != 0, "%s: left %s behind", bad[i][0], g);
    }
    th_rmdir(d);
}
