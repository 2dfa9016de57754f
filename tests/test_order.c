/* test_order.c: the four-outcome rule effect on seed-level statistics
 * (program/reproduce/order.h: rl_order_effect), the seeds a decision needs
 * (rl_order_seeds_needed) against an exact Monte Carlo of the rule, and the
 * orderings registry (program/reproduce/orderings.h). */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../model/config.h"
#include "../model/scheme.h"
#include "../program/reproduce/order.h"
#include "../program/reproduce/grid.h"
#include "../program/reproduce/orderings.h"
#include "../theory/study.h"

#define DELTA log(1.05)

/* Kendall's tau_b against hand counts: every pair concordant, every pair
 * discordant, ties in one variable (excluded from its denominator). */
Test(order, kendall_tau_b)
{
    const double x[5] = { 1, 2, 3, 4, 5 }, up[5] = { 0.1, 0.4, 0.5, 0.9, 2 }, down[5] = { 5, 4, 3, 2, 1 };
    cr_expect_float_eq(rl_kendall_tau_b(x, up, 5), 1.0, 1e-15);
    cr_expect_float_eq(rl_kendall_tau_b(x, down, 5), -1.0, 1e-15);
    /* x with one tie (3, 3): n0 = 10, n1 = 1; y: C = 7 of the untied pairs, D = 2 */
    const double xt[5] = { 1, 2, 3, 3, 5 }, y[5] = { 1, 3, 2, 4, 5 };
    /* pairs (i<j) of xt: (1,2)C (1,3)C (1,4)C (1,5)C (2,3)D (2,4)C (2,5)C (3,4) tie (3,5)C (4,5)C: C 8, D 1 */
    cr_expect_float_eq(rl_kendall_tau_b(xt, y, 5), (8.0 - 1.0) / sqrt(9.0 * 10.0), 1e-15);
    const double same[3] = { 2, 2, 2 }, nan3[3] = { 1, NAN, 3 };
    cr_expect(isnan(rl_kendall_tau_b(same, x, 3)), "every x tied: no order");
    cr_expect(isnan(rl_kendall_tau_b(nan3, x, 3)));
    cr_expect(isnan(rl_kendall_tau_b(x, up, 1)));
}

/* The rank rule driven to each outcome on constructed data: per seed the
 * scores of five variants (the mix-or-stay scores of rope, a drifting
 * random law, pemb, random_qk, lf: the first three high) against their log
 * ratios at 16T.  A score that orders them in every seed holds; one whose
 * order is the ratios' reversed is contradicted; one that orders them in
 * some seeds only is unresolved; one seed alone is unresolved. */
Test(order, rank_rule_gives_each_outcome)
{
    const double score[5] = { 0.31, 0.28, 0.20, 0.04, 0.05 };
    const double lr[6][5] = { { 1.40, 1.10, 0.90, 0.06, 0.08 }, { 1.35, 1.20, 0.85, 0.05, 0.07 },
                              { 1.45, 1.00, 0.95, 0.07, 0.06 }, { 1.38, 1.15, 0.80, 0.04, 0.09 },
                              { 1.42, 1.05, 0.92, 0.06, 0.05 }, { 1.36, 1.12, 0.88, 0.05, 0.08 } };
    double tau[6], rev[6], mixed[6];
    for (int k = 0; k < 6; k++) {
        double neg[5], sh[5];
        for (int v = 0; v < 5; v++) {
            neg[v] = -lr[k][v];
            sh[v] = lr[(k + v) % 6][(v + 2 * k) % 5]; /* shuffled: the order changes from seed to seed */
        }
        tau[k] = rl_kendall_tau_b(score, lr[k], 5);
        rev[k] = rl_kendall_tau_b(score, neg, 5);
        mixed[k] = k % 2 ? tau[k] : rl_kendall_tau_b(score, sh, 5);
    }
    rl_order o = rl_order_rank(tau, 6, 0.5);
    cr_expect_eq(o.v, RL_V_HOLDS, "mean %g se %g x %g", o.mean, o.se, o.x);
    cr_expect_str_eq(o.rule, "rank");
    o = rl_order_rank(rev, 6, 0.5);
    cr_expect_eq(o.v, RL_V_CONTRADICTED, "mean %g se %g x %g", o.mean, o.se, o.x);
    o = rl_order_rank(mixed, 6, 0.5);
    cr_expect_eq(o.v, RL_V_UNRESOLVED, "mean %g se %g x %g", o.mean, o.se, o.x);
    o = rl_order_rank(tau, 1, 0.5);
    cr_expect_eq(o.v, RL_V_UNRESOLVED, "one seed");
    /* exactly at tau0 with no spread is no hold */
    const double at[3] = { 0.5, 0.5, 0.5 };
    cr_expect_neq(rl_order_rank(at, 3, 0.5).v, RL_V_HOLDS);
}

/* Each outcome on constructed per-seed values. */
Test(order, effect_gives_each_outcome)
{
    /* a clear effect well beyond delta: holds */
    const double up[6] = { 0.30, 0.32, 0.29, 0.31, 0.30, 0.33 };
    rl_order o = rl_order_effect(up, 6, DELTA);
    cr_expect_eq(o.v, RL_V_HOLDS, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    cr_expect_str_eq(o.rule, "effect");
    cr_expect_eq(o.k, 6);
    cr_expect_float_eq(o.delta, DELTA, 1e-15);
    cr_expect(o.x_lo > o.x && o.x > o.x_hi, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    cr_expect(o.x_hi >= 3, "x_hi %g: the interval is above delta", o.x_hi);
    /* the same below 0: contradicted */
    const double down[6] = { -0.30, -0.32, -0.29, -0.31, -0.30, -0.33 };
    o = rl_order_effect(down, 6, DELTA);
    cr_expect_eq(o.v, RL_V_CONTRADICTED, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    /* 6 seeds of +-0.002 about 0: the interval lies inside +-log 1.05 */
    const double flat[6] = { 0.002, -0.002, 0.001, -0.001, 0.002, -0.002 };
    o = rl_order_effect(flat, 6, DELTA);
    cr_expect_eq(o.v, RL_V_ABSENT, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    cr_expect(o.x_lo >= 3 && o.x_hi <= -3, "x_lo %g x_hi %g", o.x_lo, o.x_hi);
    cr_expect_str_eq(rl_verdict_name(o.v), "absent at this scale");
    /* a spread that hides both the sign and the interval: unresolved */
    const double mixed[6] = { 0.30, -0.20, 0.10, -0.10, 0.25, -0.15 };
    o = rl_order_effect(mixed, 6, DELTA);
    cr_expect_eq(o.v, RL_V_UNRESOLVED, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    /* an effect inside delta with too few seeds to show it: unresolved */
    o = rl_order_effect((const double[]){ 0.01, -0.01, 0.0 }, 3, DELTA);
    cr_expect_eq(o.v, RL_V_UNRESOLVED, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    /* significantly positive (x >= 3) but tiny, inside +-delta: absent, not a hold */
    const double tiny[6] = { 0.010, 0.011, 0.009, 0.010, 0.0105, 0.0095 };
    o = rl_order_effect(tiny, 6, DELTA);
    cr_expect(o.x >= 3, "x %g", o.x);
    cr_expect_eq(o.v, RL_V_ABSENT, "x %g [%g, %g]", o.x, o.x_lo, o.x_hi);
    /* a missing value: unresolved */
    const double gap[6] = { 0.30, NAN, 0.29, 0.31, 0.30, 0.33 };
    o = rl_order_effect(gap, 6, DELTA);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    /* one seed, however clear: no SE, every x NaN, unresolved */
    o = rl_order_effect((const double[]){ 5.0 }, 1, DELTA);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    cr_expect(isnan(o.se) && isnan(o.x) && isnan(o.x_lo) && isnan(o.x_hi));
    o = rl_order_effect((const double[]){ 0.0 }, 1, DELTA);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    /* a NaN delta: unresolved */
    o = rl_order_effect(up, 6, NAN);
    cr_expect_eq(o.v, RL_V_UNRESOLVED);
    /* the paired form is the rule on the differences */
    const double b[6] = { 0.10, 0.30, 0.20, 0.25, 0.05, 0.15 };
    double a[6], d[6];
    for (int i = 0; i < 6; i++) {
        a[i] = b[i] + up[i];
        d[i] = a[i] - b[i];
    }
    rl_order p = rl_order_above_delta(a, b, 6, DELTA), q = rl_order_effect(d, 6, DELTA);
    cr_expect_eq(p.v, RL_V_HOLDS);
    cr_expect_float_eq(p.mean, q.mean, 1e-12);
    cr_expect_float_eq(p.x, q.x, 1e-9);
    cr_expect_float_eq(p.x_lo, q.x_lo, 1e-9);
    cr_expect_float_eq(p.x_hi, q.x_hi, 1e-9);
    /* the old rules keep their NaN fields for the effect's statistics */
    o = rl_order_below(flat, 6, log(1.25));
    cr_expect_eq(o.v, RL_V_HOLDS);
    cr_expect(isnan(o.delta) && isnan(o.x_lo) && isnan(o.x_hi));
}

/* The seeds needed move the right way, and refuse what cannot be computed. */
Test(order, seeds_needed_monotone)
{
    rl_verdict t;
    int prev = 1 << 30;
    /* a larger effect (no equivalence outcome: delta 0) needs no more seeds */
    for (double m = 0.05; m <= 0.5; m += 0.05) {
        int k = rl_order_seeds_needed(m, 0.2, 0, 0.8, 1000, &t);
        cr_expect(k >= 2 && k <= prev, "mean %g: %d after %d", m, k, prev);
        cr_expect_eq(t, RL_V_HOLDS);
        prev = k;
    }
    /* a larger sd, or a higher power, needs no fewer */
    prev = 0;
    for (double sd = 0.05; sd <= 0.5; sd += 0.05) {
        int k = rl_order_seeds_needed(0.1, sd, 0, 0.8, 1000, &t);
        cr_expect(k >= prev, "sd %g: %d after %d", sd, k, prev);
        prev = k;
    }
    prev = 0;
    for (double pw = 0.5; pw < 0.99; pw += 0.05) {
        int k = rl_order_seeds_needed(0.1, 0.2, 0, pw, 1000, &t);
        cr_expect(k >= prev, "power %g: %d after %d", pw, k, prev);
        prev = k;
    }
    /* the power itself rises with the seeds, and with the effect, wherever it
     * is above the normal approximation's floor at 2 and 3 seeds
     * (Phi(-sqrt(2 (K - 1))): 0.08, 0.02; order.c) */
    for (int k = 2; k < 60; k++) {
        const double pk = rl_order_power(0.1, 0.2, k);
        cr_expect(pk < 0.1 || rl_order_power(0.1, 0.2, k + 1) >= pk, "k %d", k);
        cr_expect(rl_order_power(0.2, 0.2, k) >= pk, "k %d", k);
    }
    cr_expect_lt(rl_order_power(0.1, 0.2, 2), 0.1);
    cr_expect_gt(rl_order_power(0.1, 0.2, 200), 0.99);
    /* equivalence: the nearer the mean to delta, the more seeds */
    prev = 0;
    for (double m = 0; m < 0.02; m += 0.004) {
        int k = rl_order_seeds_needed(m, 0.02, DELTA, 0.8, 1000, &t);
        cr_expect(k >= prev, "mean %g: %d after %d", m, k, prev);
        cr_expect_eq(t, RL_V_ABSENT, "mean %g: %s", m, rl_verdict_name(t));
        prev = k;
    }
    /* a negative effect targets contradicted */
    cr_expect_gt(rl_order_seeds_needed(-0.3, 0.2, DELTA, 0.8, 1000, &t), 0);
    cr_expect_eq(t, RL_V_CONTRADICTED);
    /* never: no sd, no effect, too small an effect for kmax, a bad power */
    cr_expect_eq(rl_order_seeds_needed(0.1, NAN, DELTA, 0.8, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(NAN, 0.1, DELTA, 0.8, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(0, 0, 0, 0.8, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(0, 0.2, 0, 0.8, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(1e-4, 1, 0, 0.8, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(0.1, 0.2, 0, 0.8, 5, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(0.1, 0.2, 0, 0, 1000, &t), -1);
    cr_expect_eq(rl_order_seeds_needed(0.1, 0.2, 0, 1, 1000, &t), -1);
    /* sd 0 with an effect: decided at 2 seeds */
    cr_expect_eq(rl_order_seeds_needed(0.1, 0, 0, 0.8, 1000, &t), 2);
    cr_expect_eq(t, RL_V_HOLDS);
    cr_expect_eq(rl_order_seeds_needed(0.01, 0, DELTA, 0.8, 1000, &t), 2);
    cr_expect_eq(t, RL_V_ABSENT);
}

/* The rate at which rl_order_effect gives want on k seeds of N(mean, sd^2),
 * over n replicates (fixed seed). */
static double mc_rate(double mean, double sd, double delta, int k, int n, rl_verdict want)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20240611);
    double d[64];
    int hit = 0;
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < k; s++)
            d[s] = mean + sd * gsl_ran_gaussian_ziggurat(r, 1);
        hit += rl_order_effect(d, k, delta).v == want;
    }
    gsl_rng_free(r);
    return (double)hit / n;
}

/* The K it gives reaches its outcome at the power asked in an exact Monte
 * Carlo of the rule (within 5 SE), and K - 1 seeds reach it less often. */
Test(order, seeds_needed_against_monte_carlo, .timeout = 30)
{
    const struct {
        double mean, sd;
        rl_verdict want;
    } c[] = {
        { 0.1, 0.1, RL_V_HOLDS },           /* directional, beyond delta */
        { -0.2, 0.15, RL_V_CONTRADICTED },  /* the other sign */
        { 0.0, 0.02, RL_V_ABSENT },         /* equivalence, both margins alike */
        { 0.03, 0.01, RL_V_ABSENT },        /* inside delta: x >= 3 comes early but absent decides */
    };
    const int n = 20000;
    const double power = 0.8, se = sqrt(power * (1 - power) / n);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        rl_verdict t;
        int k = rl_order_seeds_needed(c[i].mean, c[i].sd, DELTA, power, 60, &t);
        cr_assert(k > 2 && k <= 60, "case %zu: K %d", i, k);
        cr_expect_eq(t, c[i].want, "case %zu: target %s", i, rl_verdict_name(t));
        const double at = mc_rate(c[i].mean, c[i].sd, DELTA, k, n, t);
        const double before = mc_rate(c[i].mean, c[i].sd, DELTA, k - 1, n, t);
        cr_expect_geq(at, power - 5 * se, "case %zu: K %d reaches %s at %.4f", i, k, rl_verdict_name(t), at);
        cr_expect_lt(before, at, "case %zu: K - 1 = %d at %.4f, K at %.4f", i, k - 1, before, at);
    }
}

/* Every entry names known schemes, effect rows have delta = log 1.05 > 0,
 * below rows a threshold above 1; ids unique; the multiples as documented. */
Test(order, registry_entries_are_well_formed)
{
    cr_assert_gt(rl_norderings, 0);
    cr_expect_float_eq(RL_ORDER_DELTA, log(1.05), 1e-15);
    int each = 0;
    for (int i = 0; i < rl_norderings; i++) {
        const rl_ordering *e = &rl_orderings[i];
        char err[256];
        rl_pos_config p;
        cr_expect(e->id && e->what && *e->id && *e->what, "entry %d", i);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(e->id, rl_orderings[j].id);
        const char *names[2] = { e->a, e->kind == RL_ORDK_ABOVE ? e->b : NULL };
        for (int j = 0; j < 2; j++)
            if (names[j]) {
                /* NAME@BASE: the scheme NAME at a base of the grid's
                 * range, read as the grid reads it */
                char name[64];
                size_t nlen;
                double base;
                rl_err verr;
                cr_expect_eq(rl_repro_variant_split(names[j], &nlen, &base, &verr), RL_OK, "%s: %s", e->id, verr.msg);
                snprintf(name, sizeof name, "%.*s", (int)nlen, names[j]);
                cr_expect_eq(rl_pos_parse(name, -1, &p, err, sizeof err), 0, "%s: %s: %s", e->id, names[j], err);
                /* a variant the study has no numbers for (path, random-hh,
                 * random_pos_qk) is compared only with the reason written */
                cr_expect(rl_study_find(names[j]) != NULL || e->expect != NULL,
                          "%s: the study has no row for %s and the entry gives no reason", e->id, names[j]);
            }
        if (e->kind == RL_ORDK_ABOVE)
            cr_expect(e->a && e->b, "%s: above needs two variants", e->id);
        if (!e->a && e->kind != RL_ORDK_RANK) {
            each++;
            cr_expect_eq(e->kind, RL_ORDK_POSITIVE, "%s", e->id);
            cr_expect(strstr(e->what, "%s") != NULL, "%s", e->id);
        }
        if (e->kind == RL_ORDK_RANK) {
            cr_expect(e->threshold > 0 && e->threshold < 1, "%s: tau0 %g", e->id, e->threshold);
            cr_expect_str_eq(rl_ordering_rule(e)->id, "rank");
            cr_expect(e->expect != NULL, "%s: a rank entry says what it expects", e->id);
        } else if (e->kind == RL_ORDK_BELOW) {
            cr_expect_gt(e->threshold, 1, "%s", e->id);
            cr_expect_str_eq(rl_ordering_rule(e)->id, "below");
        } else {
            cr_expect_gt(e->delta, 0, "%s", e->id);
            /* log 1.05 everywhere but the algebra's equivalence rows, whose
             * wider margin is fixed in orderings.h (log 1.10) */
            if (e->delta != RL_ORDER_DELTA) {
                cr_expect_float_eq(e->delta, log(1.10), 1e-15, "%s", e->id);
                cr_expect_float_eq(RL_ORDER_DELTA_ALGEBRA, log(1.10), 1e-15);
                cr_expect_eq(e->expected, RL_V_ABSENT, "%s: the wider margin is an equivalence row's", e->id);
            }
            cr_expect_str_eq(rl_ordering_rule(e)->id, "effect");
        }
        cr_expect(e->mult == 16 || e->mult == 128 || e->mult == 0, "%s: mult %ld", e->id, e->mult);
        /* a row about 128x needs a grid that reaches it */
        if (e->mult == 128)
            cr_expect_eq(e->needs, 128, "%s", e->id);
        cr_expect(e->expected == RL_V_HOLDS || e->expected == RL_V_ABSENT || e->expected == RL_V_CONTRADICTED ||
                      e->expected == RL_V_UNRESOLVED,
                  "%s", e->id);
    }
    cr_expect_eq(each, 1);
    /* value transport in every grid: absent at this scale expected, with
     * its reason; the vtraj grid's own entries (16T absent, 128T holds,
     * each read at every stage) are that grid's alone */
    int vt = 0, own = 0;
    for (int i = 0; i < rl_norderings; i++)
        if (rl_orderings[i].a && !strcmp(rl_orderings[i].a, "random_qk") && rl_orderings[i].b &&
            !strcmp(rl_orderings[i].b, "random_qkv")) {
            const rl_ordering *e = &rl_orderings[i];
            if (!e->grid) {
                vt++;
                cr_expect_eq(e->expected, RL_V_ABSENT);
                cr_expect(e->expect && strstr(e->expect, "late, low-learning-rate"));
                cr_expect(rl_ordering_applies(e, "cpu") && !rl_ordering_applies(e, "vtraj"));
                continue;
            }
            own++;
            cr_expect_str_eq(e->grid, "vtraj");
            cr_expect(e->stages && e->expect && e->kind == RL_ORDK_ABOVE, "%s", e->id);
            cr_expect(rl_ordering_applies(e, "vtraj") && !rl_ordering_applies(e, "cpu"), "%s", e->id);
            cr_expect_eq(e->needs, e->mult ? e->mult : 128, "%s", e->id);
            cr_expect_eq(e->expected, e->mult == 16 ? RL_V_ABSENT : RL_V_HOLDS, "%s", e->id);
        }
    cr_expect_eq(vt, 1);
    cr_expect_eq(own, 2);
    /* a grid with no entries of its own reads every entry without a grid */
    cr_expect(rl_ordering_applies(&rl_orderings[0], "quick") && rl_ordering_applies(&rl_orderings[0], NULL));
    /* the multiples: 16 (the grid's top below it), or the top up to 128 */
    const rl_ordering *e16 = &rl_orderings[0], top = { .mult = 0 };
    cr_expect_eq(rl_ordering_mult(e16, 4), 4);
    cr_expect_eq(rl_ordering_mult(e16, 128), 16);
    cr_expect_eq(rl_ordering_mult(&top, 32), 32);
    cr_expect_eq(rl_ordering_mult(&top, 256), 128);
    cr_expect_eq(rl_ordering_study_mult(&top), 128);
    /* rotation-only: not alibi*, none, path, random-hh (no rotation: Householder steps) */
    cr_expect(rl_ordering_rotation_only("rope") && rl_ordering_rotation_only("random_qkv") &&
              rl_ordering_rotation_only("fixed-rope"));
    /* random-hh's reflections are orthogonal: claim 3 reads them; PaTH's do not */
    cr_expect(rl_ordering_rotation_only("random-hh"));
    cr_expect(!rl_ordering_rotation_only("alibi") && !rl_ordering_rotation_only("alibi+random_qkv") &&
              !rl_ordering_rotation_only("none") && !rl_ordering_rotation_only("path"));
}
