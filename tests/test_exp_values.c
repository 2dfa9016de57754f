/* test_exp_values.c: the value walk against the exact formulas, and `routelab values`. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/claims.h"
#include "../experiments/values.h"
#include "../mc/value_walk.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "helpers.h"

/* No transport, no noise: the sum of M values is exactly M vbar (a count off
 * by one would show at once). */
Test(exp_values, no_transport_sums_exactly_m_values)
{
    const int d = 6;
    const long grid[4] = { 1, 2, 7, 100 };
    double vbar[6] = { 1, -2, 0.5, 3, 0, 1 }, x[6], tmp[6], out[4 * 6];
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 1, 1);
    rl_value_walk(NULL, r, d, vbar, 0.0, 16, grid, 4, x, tmp, out);
    for (int g = 0; g < 4; g++)
        for (int i = 0; i < d; i++)
            cr_assert_float_eq(out[g * d + i], grid[g] * vbar[i], 1e-12);
    gsl_rng_free(r);
}

/* Circle-uniform SO(2) transport (chi = 0 on every block): E||x_M||^2 =
 * M (||vbar||^2 + sigma^2), so ||r|| = ||x_M||/M falls with slope -1/2. */
Test(exp_values, so2_value_transport_slope_is_minus_half)
{
    const int d = 8;
    const long grid[2] = { 16, 1024 };
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    f.law = RL_ANG_CIRCLE;
    rl_stepper *st = rl_stepper_alloc(&f, 1);
    double vbar[8], x[8], tmp[8], out[16];
    for (int i = 0; i < d; i++)
        vbar[i] = 1 / sqrt(d);
    gsl_rng *r = rl_rng_alloc();
    th_acc a[2] = { { 0 }, { 0 } };
    for (long rep = 0; rep < 400; rep++) {
        rl_rng_stream(r, 2, (uint64_t)rep);
        rl_value_walk(st, r, d, vbar, 0.1, 4, grid, 2, x, tmp, out);
        for (int g = 0; g < 2; g++) {
            double n2 = 0;
            for (int i = 0; i < d; i++)
                n2 += out[g * d + i] * out[g * d + i];
            th_add(&a[g], n2 / ((double)grid[g] * grid[g]));
        }
    }
    for (int g = 0; g < 2; g++)
        cr_assert_lt(fabs(a[g].mean - 1.01 / grid[g]), 5 * th_se(&a[g]), "M = %ld: %g +- %g, exact %g", grid[g], a[g].mean,
                     th_se(&a[g]), 1.01 / grid[g]);
    /* slope of log rms = (1/2) log(msq) against log M, delta-method SE */
    double slope = 0.5 * log(a[1].mean / a[0].mean) / log(1024.0 / 16.0);
    double se = 0.5 * hypot(th_se(&a[0]) / a[0].mean, th_se(&a[1]) / a[1].mean) / log(64.0);
    cr_assert_lt(fabs(slope + 0.5), 5 * se, "slope %g +- %g", slope, se);
    gsl_rng_free(r);
    rl_stepper_free(st);
}

/* Householder transport with K = 3 near steps: E||x_M||^2 = ||vbar||^2 S(c, M)
 * + M sigma^2 (the K steps do not change norms) and <E x_M, vbar> =
 * c^K sum_{delta=1}^{M} c^delta ||vbar||^2, c = 1 - 2/d: a route one step too
 * long or short changes the latter by a factor c (12.5% at d = 16). */
Test(exp_values, householder_second_moment_and_mean_are_exact)
{
    const int d = 16, K = 3;
    const long grid[3] = { 1, 5, 50 };
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, d);
    rl_stepper *st = rl_stepper_alloc(&f, 1);
    double vbar[16], x[16], tmp[16], out[3 * 16];
    for (int i = 0; i < d; i++)
        vbar[i] = 1 / sqrt(d);
    gsl_rng *r = rl_rng_alloc();
    th_acc m2[3] = { { 0 }, { 0 }, { 0 } }, pr[3] = { { 0 }, { 0 }, { 0 } };
    for (long rep = 0; rep < 20000; rep++) {
        rl_rng_stream(r, 3, (uint64_t)rep);
        rl_value_walk(st, r, d, vbar, 0.2, K, grid, 3, x, tmp, out);
        for (int g = 0; g < 3; g++) {
            double n2 = 0, p = 0;
            for (int i = 0; i < d; i++) {
                n2 += out[g * d + i] * out[g * d + i];
                p += out[g * d + i] * vbar[i];
            }
            th_add(&m2[g], n2);
            th_add(&pr[g], p);
        }
    }
    const double c = 1 - 2.0 / d;
    for (int g = 0; g < 3; g++) {
        double s = rl_value_pair_sum(c, grid[g]) + grid[g] * 0.04, mean = 0;
        for (long k = 1; k <= grid[g]; k++)
            mean += pow(c, K + k);
        cr_assert_lt(fabs(m2[g].mean - s), 5 * th_se(&m2[g]), "M = %ld: E||x||^2 %g +- %g, exact %g", grid[g],
                     m2[g].mean, th_se(&m2[g]), s);
        cr_assert_lt(fabs(pr[g].mean - mean), 5 * th_se(&pr[g]), "M = %ld: <E x, v> %g +- %g, exact %g", grid[g],
                     pr[g].mean, th_se(&pr[g]), mean);
    }
    gsl_rng_free(r);
    rl_stepper_free(st);
}

Test(exp_values, cli_writes_every_promised_file, .timeout = 240)
{
    const char *files[] = { "values.md", "values_norm.tsv", "values_blocks.tsv", "values_slopes.tsv",
                            "values_near.tsv", "values_norm.png", "values_blocks.png", "values_slopes.png",
                            "values_cov.png", NULL };
    const char *same[] = { "values_norm.tsv", "values_blocks.tsv", "values_near.tsv", NULL };
    th_cli_quick("values", files, same);
}

Test(exp_values, bad_flags_exit_2)
{
    char err[1024];
    cr_assert_eq(th_run("values --preset huge", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("values --seed", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("values --bogus 1", NULL, 0, err, sizeof err), 2);
}

/* ---------- the verdict of each check (experiments/values.h) ---------- */

/* The verdicts of r's rows, in order; returns how many. */
static int row_verdicts(const rl_report *r, rl_verdict *v, int max)
{
    int n = rl_report_nchecks(r);
    for (int i = 0; i < n && i < max; i++)
        v[i] = rl_report_verdict(r, i);
    return n < max ? n : max;
}

static rl_report *values_report(void)
{
    rl_report *r = rl_report_alloc("values");
    rl_report_rules(r, rl_claim_find("values")->rules);
    return r;
}

/* Per-block E||r_b||^2: from 256 replicates on, |z| <= 5 holds and beyond is
 * contradicted; with fewer the z is no 5-SE test and the run cannot decide,
 * unresolved whatever z is (the old report called it info). */
Test(exp_values, block_row_unresolved_below_256_replicates)
{
    rl_report *r = values_report();
    rl_val_block_row(r, "a", 32, 10, 512, 4.0);
    rl_val_block_row(r, "b", 32, 10, 512, 7.0);
    rl_val_block_row(r, "c", 32, 10, 48, 4.0);
    rl_val_block_row(r, "d", 32, 10, 48, 70.0);
    rl_val_block_row(r, "e", 32, 10, 256, NAN);
    rl_verdict v[5];
    cr_assert_eq(row_verdicts(r, v, 5), 5);
    cr_assert_eq(v[0], RL_V_VERIFIED);
    cr_assert_eq(v[1], RL_V_CONTRADICTED);
    cr_assert_eq(v[2], RL_V_UNRESOLVED);
    cr_assert_eq(v[3], RL_V_UNRESOLVED);
    cr_assert_eq(v[4], RL_V_UNRESOLVED);
    rl_report_free(r);
}

/* The slope: measured against the exact formula (agree), then the exact
 * slope against the named law (exact, no noise: 0.05 for the finite-M
 * correction); no law named: one row.  Without value transport every row
 * follows from the construction: identity (a broken one is contradicted). */
Test(exp_values, slope_rows_agree_exact_identity)
{
    rl_report *r = values_report();
    rl_val_slope_rows(r, "circle", 0, 1024, 65536, -0.49, 0.01, -0.5, -0.5);  /* z = 1; law met */
    rl_val_slope_rows(r, "circle", 0, 1024, 65536, -0.40, 0.01, -0.5, -0.5);  /* z = 10 */
    rl_val_slope_rows(r, "hh", 0, 1024, 65536, -0.30, 0.01, -0.30, -0.5);     /* agrees; law off by 0.2 */
    rl_val_slope_rows(r, "study", 0, 1024, 65536, -0.04, 0.01, -0.04, NAN);   /* no law: one row */
    rl_val_slope_rows(r, "none", 1, 1024, 65536, 0.0, 1e-4, 0.0, 0.0);
    rl_val_slope_rows(r, "none", 1, 1024, 65536, 0.1, 1e-4, 0.0, 0.0);
    rl_verdict v[12];
    cr_assert_eq(row_verdicts(r, v, 12), 11);
    const rl_verdict want[11] = { RL_V_VERIFIED,    RL_V_VERIFIED,        RL_V_CONTRADICTED, RL_V_VERIFIED,
                                  RL_V_VERIFIED,    RL_V_CONTRADICTED, RL_V_VERIFIED,        RL_V_IDENTITY,
                                  RL_V_IDENTITY, RL_V_CONTRADICTED, RL_V_IDENTITY };
    for (int i = 0; i < 11; i++)
        cr_assert_eq(v[i], want[i], "row %d: %s", i, rl_verdict_name(v[i]));
    rl_report_free(r);
}

/* tr Cov(r): agree with the exact value and a one-sided bound (an excess of
 * 6 SE over the bound is contradicted, a deficit of any size holds). */
Test(exp_values, cov_rows_agree_and_bound)
{
    rl_report *r = values_report();
    rl_val_cov_rows(r, "hh", 0, 2.0, -40.0, "m");
    rl_val_cov_rows(r, "hh", 0, 9.0, 6.0, "m");
    rl_val_cov_rows(r, "none", 1, 2.0, -3.0, "m");
    rl_verdict v[6];
    cr_assert_eq(row_verdicts(r, v, 6), 6);
    const rl_verdict want[6] = { RL_V_VERIFIED, RL_V_VERIFIED, RL_V_CONTRADICTED, RL_V_CONTRADICTED, RL_V_IDENTITY,
                                 RL_V_IDENTITY };
    for (int i = 0; i < 6; i++)
        cr_assert_eq(v[i], want[i], "row %d: %s", i, rl_verdict_name(v[i]));
    rl_report_free(r);
}

/* An exact law on a transported family is evidence (agree); on the family
 * without transport it is an identity. */
Test(exp_values, agree_row_identity_without_transport)
{
    rl_report *r = values_report();
    rl_val_agree_row(r, 0, 4.9, "w", "p", "m");
    rl_val_agree_row(r, 0, 5.1, "w", "p", "m");
    rl_val_agree_row(r, 1, 0.0, "w", "p", "m");
    rl_verdict v[3];
    cr_assert_eq(row_verdicts(r, v, 3), 3);
    cr_assert_eq(v[0], RL_V_VERIFIED);
    cr_assert_eq(v[1], RL_V_CONTRADICTED);
    cr_assert_eq(v[2], RL_V_IDENTITY);
    rl_report_free(r);
}

/* ---- the summary: every number of the report from a hand-built run ---- */

/* Two families on M = 16, 256, 4096 (mmax 4096: the slopes are fitted over
 * all three).  so2-study, d = 4: block 0 has not mixed (chi = 1, exact
 * slope near 0: coherent), block 1 has (chi = 0, exact slope -1/2:
 * incoherent); the group sums make block 0 measure flat, block 1 and the
 * total fall as 1/M (slope -1/2, every jackknife fit the same: SE 0).  So
 * block 1 agrees, block 0 (off its exact slope with no spread) does not,
 * and the reading counts one incoherent block holding 3/4 of ||vbar||^2.
 * householder, d = 4: its near target measured at chi^n v_t exactly but
 * for one coordinate 3 SE off at n = 4: the worst |z| is 3. */
Test(exp_values, summary_of_a_hand_built_run)
{
    enum { NG = 3 };
    long grid[NG] = { 16, 256, 4096 };
    double ones[2 * NG * 2], grp0[3 * RL_VAL_NGROUP * NG], grp1[2 * RL_VAL_NGROUP * NG];
    for (int i = 0; i < 2 * NG * 2; i++)
        ones[i] = 1;
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < RL_VAL_NGROUP; i++)
            for (int g = 0; g < NG; g++)
                grp0[(b * RL_VAL_NGROUP + i) * NG + g] = b == 0 ? 2.0 : 3.0 / grid[g];
    for (int i = 0; i < 2 * RL_VAL_NGROUP * NG; i++)
        grp1[i] = 1;
    rl_val_res *R = calloc(1, sizeof *R);
    R->z = (rl_val_size){ 32, 4, 4096, 4, 4096, 32, 1000 };
    R->nfam = 2;
    R->fa[0] = (rl_val_fam){ "so2-study", 0, rl_family_default(RL_FAM_SO2, 4), 32, 4096, 0, 0 };
    R->fa[1] = (rl_val_fam){ "householder", 0, rl_family_default(RL_FAM_HOUSEHOLDER, 4), 32, 4096, 1, 1 };
    R->far[0] = (rl_val_far){ NG, 2, 2, grid, { 1, 0 }, { 0.25, 0.75 }, ones, ones, ones, ones, ones, ones, grp0 };
    const double c = rl_family_mean_norm(&R->fa[1].f, NULL, NULL);
    R->far[1] = (rl_val_far){ NG, 1, 4, grid, { c }, { 1 }, ones, ones, ones, ones, ones, ones, grp1 };
    rl_val_near *nr = &R->near[1];
    nr->vt[0] = 1;
    const long ns[RL_VAL_NNEAR] = { 1, 2, 4, 8, 16 };
    for (int j = 0; j < RL_VAL_NNEAR; j++) {
        for (int i = 0; i < 4; i++) {
            nr->mean[j][i] = pow(c, (double)ns[j]) * nr->vt[i];
            nr->se[j][i] = 0.01;
        }
        nr->dev2[j] = 2 * (1 - pow(c, (double)ns[j]));
        nr->dev2_se[j] = 0.02;
    }
    nr->mean[2][1] += 0.03;

    rl_val_summary *S = rl_values_summary_alloc(R);
    rl_values_summarise(R, S);
    const rl_val_famsum *s = &S->fam[0];
    cr_assert_eq(s->g0, 0);
    cr_assert_float_eq(s->slope, -0.5, 1e-12);
    cr_assert_float_eq(s->slope_se, 0, 1e-12);
    cr_assert_float_eq(s->bslope[0], 0, 1e-12);
    cr_assert_float_eq(s->bslope[1], -0.5, 1e-12);
    cr_assert_float_eq(s->bslope_pred[1], -0.5, 1e-12);
    cr_assert_gt(s->bslope_pred[0], -0.1, "an unmixed block stays coherent: %g", s->bslope_pred[0]);
    cr_assert_lt(s->bslope_pred[0], 0);
    cr_assert_eq(s->bslope_z[1], 0);
    cr_assert_gt(s->bslope_z[0], 5);
    cr_assert_eq(s->bagree, 1);
    cr_assert(s->bclass[0] == 1 && s->bclass[1] == 0 && s->bclass[2] == 1);
    cr_assert_eq(s->bwindow[1], 1, "chi = 0 mixes in one step");
    cr_assert_eq(S->study, 0);
    cr_assert_eq(S->circle, -1);
    cr_assert_eq(S->inc, 1);
    cr_assert_float_eq(S->wsum, 0.75, 1e-15);
    cr_assert(isnan(s->target), "the blocks differ: no single law");
    /* the near target */
    const rl_val_famsum *h = &S->fam[1];
    cr_assert_float_eq(h->near_chi, c, 1e-15);
    cr_assert_float_eq(h->near_worst, 3, 1e-9);
    cr_assert_float_eq(h->near[2].zmax, 3, 1e-9);
    cr_assert_eq(h->near[3].zmax, 0);
    cr_assert_float_eq(h->near[3].pres_pred, pow(c, 8.0), 1e-15);
    cr_assert_float_eq(h->near[3].pres_se, 0.01, 1e-15);
    cr_assert_float_eq(h->target, -0.5, 0);
    rl_values_summary_free(S);
    free(R);
}
