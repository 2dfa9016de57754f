/* test_check_orderings.c: tools/scripts/check_orderings.py, the independent
 * recomputation of a grid's orderings from its table.tsv
 * (docs/grids/vtraj-and-reruns.md#bpe-grid-rerun).  It must agree with reproduce's own rules
 * (program/reproduce/order.c) on every outcome of both rules it recomputes, each driven here on crafted
 * seeds; it must say DIFFERENT (status 1) when a file's verdict or mean is not what its
 * table gives; every committed grid passes it; a bad input is status 2 in one
 * line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../program/reproduce/order.h"
#include "../program/reproduce/orderings.h" /* RL_ORDER_DELTA */
#include "helpers.h"

#define K 6

static int check(const char *dir, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tools/scripts/check_orderings.py '%s' 2>&1", dir);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run tools/scripts/check_orderings.py");
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One crafted case: variant "va"'s ratio at 16x per seed is exp(d[s]) written
 * to 4 digits (as reproduce writes it), "vb"'s is 1; the ordering row carries
 * routelab's own decision (rl_order_effect or rl_order_below) on the same
 * rounded numbers, or the verdict given in force (non-NULL). */
static rl_verdict craft(const char *dir, const double *d, int below, const char *force)
{
    char *tp = th_path(dir, "table.tsv"), *op = th_path(dir, "orderings.tsv");
    FILE *t = fopen(tp, "w"), *o = fopen(op, "w");
    cr_assert(t && o);
    fputs("variant\tseed\tmult\tratio\n", t);
    double x[K];
    for (int s = 0; s < K; s++) {
        char r[32];
        snprintf(r, sizeof r, "%.4f", exp(d[s]));
        x[s] = log(atof(r));
        fprintf(t, "va\t%d\t1\t1.0000\nva\t%d\t16\t%s\nvb\t%d\t1\t1.0000\nvb\t%d\t16\t1.0000\n", 42 + s, 42 + s, r,
                42 + s, 42 + s);
    }
    rl_order od = below ? rl_order_below(x, K, log(1.25)) : rl_order_effect(x, K, RL_ORDER_DELTA);
    fputs("ordering\tmult\tseeds\tmean\tse\tdelta\tverdict\n", o);
    fprintf(o, "%s\t16\t%d\t%.6g\t%.6g\t%s\t%s\n", below ? "va near flat (ratio < 1.25)" : "va degrades more than vb",
            K, od.mean, od.se, below ? "nan" : "0.04879016416943205", force ? force : rl_verdict_name(od.v));
    fclose(t);
    fclose(o);
    free(tp);
    free(op);
    return od.v;
}

Test(check_orderings, agrees_with_the_rules_on_every_outcome)
{
    th_to_root();
    char *dir = th_tmpdir(), out[4096];
    /* per-seed values around a centre c with spread w: c + w * e[s] */
    static const double e[K] = { -1.0, 0.6, -0.2, 1.1, 0.3, -0.8 };
    struct {
        double c, w;
        int below;
        rl_verdict want;
    } cases[] = {
        { 0.5, 0.05, 0, RL_V_HOLDS },         { -0.5, 0.05, 0, RL_V_CONTRADICTED },
        { 0.002, 0.004, 0, RL_V_ABSENT },     { 0.05, 0.1, 0, RL_V_UNRESOLVED },
        { 0.05, 0.01, 1, RL_V_HOLDS },        { 0.9, 0.05, 1, RL_V_CONTRADICTED },
        { 0.2, 0.1, 1, RL_V_UNRESOLVED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double d[K];
        for (int s = 0; s < K; s++)
            d[s] = cases[i].c + cases[i].w * e[s];
        rl_verdict v = craft(dir, d, cases[i].below, NULL);
        cr_expect_eq(v, cases[i].want, "case %zu: routelab's rule says %s", i, rl_verdict_name(v));
        cr_expect_eq(check(dir, out, sizeof out), 0, "case %zu: %s", i, out);
        cr_expect(strstr(out, "1 rows the same, 0 different"), "case %zu: %s", i, out);
        /* the same numbers under another verdict: the script must disagree */
        craft(dir, d, cases[i].below, v == RL_V_HOLDS ? "unresolved" : "holds");
        cr_expect_eq(check(dir, out, sizeof out), 1, "case %zu: %s", i, out);
        cr_expect(strstr(out, "DIFFERENT"), "case %zu: %s", i, out);
    }
    th_rmdir(dir);
}

Test(check_orderings, every_committed_grid_agrees)
{
    th_to_root();
    static const char *grids[] = { "grids", "grids/bpe", "grids/mechanism",
                                   "grids/vtraj" };
    char out[16384];
    for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
        cr_expect_eq(check(grids[i], out, sizeof out), 0, "%s: %s", grids[i], out);
        cr_expect(strstr(out, " 0 different"), "%s: %s", grids[i], out);
    }
}

Test(check_orderings, bad_inputs_are_status_2_in_one_line)
{
    th_to_root();
    char *dir = th_tmpdir(), out[4096];
    cr_expect_eq(check(dir, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "table.tsv"), "%s", out);
    cr_expect_eq(th_lines(out), 1, "%s", out);
    char *tp = th_path(dir, "table.tsv");
    FILE *t = fopen(tp, "w");
    cr_assert(t);
    fputs("variant\tseed\tmult\tratio\nva\t42\t16\tnot-a-number\n", t);
    fclose(t);
    char *op = th_path(dir, "orderings.tsv");
    FILE *o = fopen(op, "w");
    cr_assert(o);
    fputs("ordering\tmult\tseeds\tmean\tse\tdelta\tverdict\n", o);
    fclose(o);
    cr_expect_eq(check(dir, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "table.tsv"), "%s", out);
    cr_expect_eq(th_lines(out), 1, "%s", out);
    free(tp);
    free(op);
    th_rmdir(dir);
}
