/* test_exp_concentration.c: `routelab concentration` (claim 2): aligned scores
 * after a route against the exact Beta law, c^n, the PaTH norm law and the
 * exact SO(2) moments, within 5 standard errors; the subcommand's files; the
 * report's decisions (the second-moment hypothesis, the scale bound, the
 * closed-form cap check) each turned the other way on a counterexample. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/claims.h"
#include "../experiments/concentration.h"
#include "../mc/scoretails.h"
#include "../mc/so2score.h"
#include "../theory/moment2.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "helpers.h"

static void mean_se(const double *x, long n, double *m, double *se)
{
    th_acc a = { 0, 0, 0 };
    for (long i = 0; i < n; i++)
        th_add(&a, x[i]);
    *m = a.mean;
    *se = th_se(&a);
}

/* x = t sqrt(d) = 0.5, 1, ..., 4 */
static int grid(int d, double *t)
{
    int n = 0;
    for (int k = 1; k <= 8; k++)
        if (0.5 * k / sqrt((double)d) < 1)
            t[n++] = 0.5 * k / sqrt((double)d);
    return n;
}

/* every testable point of c.abs within 5 SE of the Beta law; returns the
 * number tested */
static int against_beta(const rl_st_cell *c, int d)
{
    int tested = 0;
    for (int k = 0; k < c->nt; k++) {
        rl_tail_est e = rl_tails_est(c->abs, k);
        double p0 = rl_beta_tail(d, c->t[k]);
        if (!rl_tail_testable(&e, p0))
            continue;
        tested++;
        double z = (e.p - p0) / rl_tail_se_at(&e, p0);
        cr_assert_leq(fabs(z), 5, "d=%d t=%g: tail %g vs Beta %g (z = %.2f)", d, c->t[k], e.p, p0, z);
    }
    return tested;
}

Test(exp_concentration, haar_tail_d32_is_the_beta_law)
{
    const int d = 32, m = 8;
    double t[16];
    int nt = grid(d, t);
    double *Q = rl_st_queries(5, d, m);
    rl_st_spec sp = { RL_ST_CHAIN, rl_family_default(RL_FAM_HAAR, d), 1 };
    rl_st_cell c;
    cr_assert_eq(rl_st_run(&sp, t, nt, 1500, m, Q, 5, 1, &c, NULL), RL_OK);
    cr_assert_geq(against_beta(&c, d), 6);
    rl_st_free(&c);
    free(Q);
    /* the large-d equivalent: P k uniform on the sphere */
    Q = rl_st_queries(5, 200, m);
    rl_st_spec sph = { RL_ST_SPHERE, rl_family_default(RL_FAM_HAAR, 200), 1 };
    cr_assert_eq(rl_st_run(&sph, t, grid(200, t), 1500, m, Q, 5, 2, &c, NULL), RL_OK);
    cr_assert_geq(against_beta(&c, 200), 6);
    rl_st_free(&c);
    free(Q);
}

Test(exp_concentration, queries_are_orthonormal)
{
    const int d = 24, m = 12;
    double *Q = rl_st_queries(3, d, m);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int k = 0; k < d; k++)
                s += Q[i * d + k] * Q[j * d + k];
            cr_assert_float_eq(s, i == j, 1e-13);
        }
    free(Q);
}

Test(exp_concentration, householder_mean_score_is_c_to_the_n)
{
    /* E[P_n] = c^n I with c = 1 - 2/d, so E q^T P_n q = c^n: off by one step
     * (c^2 or c^4) is many SE away */
    const int d = 16, m = 8;
    const long n = 3, reps = 3000;
    double *Q = rl_st_queries(7, d, m), t[16];
    rl_st_spec sp = { RL_ST_CHAIN, rl_family_default(RL_FAM_HOUSEHOLDER, d), n };
    rl_st_cell c;
    cr_assert_eq(rl_st_run(&sp, t, grid(d, t), reps, m, Q, 7, 3, &c, NULL), RL_OK);
    double mu, se, cc = 1 - 2.0 / d;
    mean_se(c.mean, reps, &mu, &se);
    cr_assert_leq(fabs(mu - pow(cc, 3)), 5 * se, "E s = %g ± %g, c^3 = %g", mu, se, pow(cc, 3));
    cr_assert_gt(fabs(mu - pow(cc, 2)), 5 * se);
    cr_assert_gt(fabs(mu - pow(cc, 4)), 5 * se);
    rl_st_free(&c);
    free(Q);
}

Test(exp_concentration, path_norm_shrinks_as_predicted)
{
    /* |(I - b w w^T) x|^2 = |x|^2 - b(2-b)(w.x)^2 and E (w.x)^2 = |x|^2/d */
    const int d = 16, m = 4;
    const long n = 10, reps = 3000;
    rl_family f = rl_family_default(RL_FAM_PATH, d);
    f.beta = 1;
    double *Q = rl_st_queries(8, d, m), t[16];
    rl_st_spec sp = { RL_ST_CHAIN, f, n };
    rl_st_cell c;
    cr_assert_eq(rl_st_run(&sp, t, grid(d, t), reps, m, Q, 8, 4, &c, NULL), RL_OK);
    double mu, se, pred = pow(1 - 1.0 / d, (double)n);
    mean_se(c.nrm2, reps, &mu, &se);
    cr_assert_leq(fabs(mu - pred), 5 * se, "E|Pq|^2 = %g ± %g, predicted %g", mu, se, pred);
    mean_se(c.mean, reps, &mu, &se);
    cr_assert_leq(fabs(mu - pred), 5 * se, "PaTH E q^T P q = (1 - 1/d)^n: %g ± %g vs %g", mu, se, pred);
    rl_st_free(&c);
    free(Q);
}

Test(exp_concentration, so2_block_scores_have_the_exact_moments)
{
    /* the study's U(-w_b, w_b) at n = 4: E s and Var s from chi_b^n */
    const int d = 16, h = d / 2, m = 4;
    const long n = 4, reps = 6000;
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    double *Q = rl_st_queries(9, d, m), t[16];
    rl_st_spec sp = { RL_ST_SO2, f, n };
    rl_st_cell c;
    cr_assert_eq(rl_st_run(&sp, t, grid(d, t), reps, m, Q, 9, 5, &c, NULL), RL_OK);
    for (int g = 0; g < RL_NCFG; g++) {
        double a[h], mu, se;
        rl_st_cfg_weights(g, d, a);
        double Es = rl_so2score_mean(&f, a, n), V = rl_so2score_var(&f, a, n);
        mean_se(c.cfg_s[g], reps, &mu, &se);
        cr_assert_leq(fabs(mu - Es), 5 * se, "%s: E s = %g ± %g vs %g", rl_st_cfg_name[g], mu, se, Es);
        double *y = malloc(sizeof(double) * reps);
        for (long k = 0; k < reps; k++)
            y[k] = (c.cfg_s[g][k] - Es) * (c.cfg_s[g][k] - Es);
        mean_se(y, reps, &mu, &se);
        cr_assert_leq(fabs(mu - V), 5 * se, "%s: Var s = %g ± %g vs %g", rl_st_cfg_name[g], mu, se, V);
        free(y);
    }
    /* one step more or less is detectable in the spread configuration */
    double a[h], mu, se;
    rl_st_cfg_weights(RL_CFG_SPREAD, d, a);
    mean_se(c.cfg_s[RL_CFG_SPREAD], reps, &mu, &se);
    cr_assert_gt(fabs(mu - rl_so2score_mean(&f, a, n + 1)), 5 * se);
    cr_assert_gt(fabs(mu - rl_so2score_mean(&f, a, n - 1)), 5 * se);
    rl_st_free(&c);
    free(Q);
}

Test(exp_concentration, so2_centered_tails_below_hoeffding)
{
    const int d = 32, h = d / 2, m = 8;
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    f.law = RL_ANG_CIRCLE;
    double *Q = rl_st_queries(10, d, m), t[16];
    rl_st_spec sp = { RL_ST_SO2, f, 4 };
    rl_st_cell c;
    cr_assert_eq(rl_st_run(&sp, t, grid(d, t), 4000, m, Q, 10, 6, &c, NULL), RL_OK);
    for (int g = 0; g < RL_NCFG; g++) {
        double a[h];
        rl_st_cfg_weights(g, d, a);
        for (int k = 0; k < c.nt; k++) {
            rl_tail_est e = rl_tails_est(c.cfg_cen[g], k);
            double b = rl_hoeffding_so2(c.t[k], a, h);
            cr_assert_leq(e.p, b + 5 * e.se + 1e-12, "%s t=%g: %g above Hoeffding %g", rl_st_cfg_name[g], c.t[k], e.p, b);
        }
    }
    rl_st_free(&c);
    free(Q);
}

Test(exp_concentration, cluster_and_binomial_se_agree_for_independent_scores)
{
    const long reps = 4000;
    const int m = 10;
    double t[1] = { 0.5 }, s[10];
    rl_tails *T;
    cr_assert_eq(rl_tails_alloc(t, 1, reps, m, &T, NULL), RL_OK);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 11, 1);
    for (long k = 0; k < reps; k++) {
        for (int i = 0; i < m; i++)
            s[i] = gsl_rng_uniform(r);
        rl_tails_add(T, k, s, m);
    }
    rl_tail_est e = rl_tails_est(T, 0);
    cr_assert_float_eq(e.p, 0.5, 5 * e.se);
    cr_assert_float_eq(e.se_cluster / e.se_binom, 1.0, 0.1);
    gsl_rng_free(r);
    rl_tails_free(T);
}

Test(exp_concentration, cli_writes_every_file, .timeout = 120)
{
    static char out[1 << 16], err[1 << 14];
    const char *files[] = { "concentration.md", "concentration_haar.tsv", "concentration_curves.tsv",
                            "concentration_families.tsv", "concentration_moments.tsv", "concentration_so2.tsv",
                            "concentration_so2_scale.tsv", "concentration_haar.png", "concentration_families.png",
                            "concentration_so2.png", NULL };
    th_cli_quick("concentration", files, NULL);
    cr_assert_eq(th_run("concentration --no-such-flag", out, sizeof out, err, sizeof err), 2);
    cr_assert(strncmp(err, "routelab: ", 10) == 0, "stderr: %s", err);
    cr_assert_eq(th_run("concentration --preset huge", out, sizeof out, err, sizeof err), 2);
}

/* Counts are 16-bit: more than 65535 scores per replicate is a bad input. */
Test(exp_concentration, tails_refuse_more_than_65535_scores)
{
    double t[1] = { 0.5 };
    rl_tails *T = (rl_tails *)1;
    rl_err err;
    cr_assert_eq(rl_tails_alloc(t, 1, 4, 70000, &T, &err), RL_EINPUT);
    cr_assert_null(T);
    cr_assert(strstr(err.msg, "65535") != NULL, "message: %s", err.msg);
}

/* ---------- the report's decisions ---------- */

/* The report's TSV rows as one string (caller frees). */
static char *report_tsv(const rl_report *r)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    rl_report_tsv(r, fp, "concentration");
    fclose(fp);
    return buf;
}

static rl_report *conc_report(void)
{
    rl_report *r = rl_report_alloc("claim 2");
    rl_report_rules(r, rl_claim_find("concentration")->rules);
    return r;
}

Test(exp_concentration, hypothesis_follows_the_second_moment_rate)
{
    char buf[256];
    double rate;
    /* the study's U(-w_b, w_b) at n = 65,536: the slow blocks are unmixed */
    rl_family st = rl_family_default(RL_FAM_SO2, 64);
    const char *u = rl_conc_unmet(&st, 65536, &rate, buf, sizeof buf);
    cr_assert_not_null(u);
    cr_assert(rate > 0.999 && rate < 1, "rate %g", rate);
    cr_assert(strstr(u, "d = 64") != NULL, "%s", u);
    /* circle angles: rate 0, met at n = 16 */
    rl_family ci = st;
    ci.law = RL_ANG_CIRCLE;
    cr_assert_null(rl_conc_unmet(&ci, 16, &rate, buf, sizeof buf));
    cr_assert_float_eq(rate, 0, 1e-12);
    /* Householder: met far beyond its window, not after two steps */
    rl_family hh = rl_family_default(RL_FAM_HOUSEHOLDER, 32);
    cr_assert_null(rl_conc_unmet(&hh, 500, NULL, buf, sizeof buf));
    cr_assert_not_null(rl_conc_unmet(&hh, 2, NULL, buf, sizeof buf));
    /* Brownian at d >= 3: no closed form; the character estimate's upper end
     * certifies far routes and not one step */
    rl_family br = rl_family_default(RL_FAM_BROWNIAN, 8);
    br.sigma = 1 / sqrt(8.0);
    cr_assert_null(rl_conc_unmet(&br, 1000, &rate, buf, sizeof buf));
    cr_assert(rate > 0.3 && rate < 1, "rate %g", rate);
    cr_assert_not_null(rl_conc_unmet(&br, 1, NULL, buf, sizeof buf));
    /* and without any certificate (PaTH has one; a NaN rate never meets it) */
    cr_assert_not_null(rl_moment2_unmet(NAN, 8, 1000, buf, sizeof buf));
    /* Haar transport: one step suffices */
    rl_family ha = rl_family_default(RL_FAM_HAAR, 16);
    cr_assert_null(rl_conc_unmet(&ha, 1, NULL, buf, sizeof buf));
}

Test(exp_concentration, decisions_split_by_the_hypothesis)
{
    rl_conc_dstat s[3] = { { 8, 1.0, 0.2, 10, "" }, { 32, 2.0, 0.1, 10, "" }, { 128, 9.0, 0.05, 10, "" } };
    int n[RL_NVERDICT];
    /* all met: one row, holds; a met d above 5 SE: contradicted */
    rl_report *r = conc_report();
    rl_conc_decide(r, &rl_rule_agree, s, 2, "tail = Beta law", "|z| ≤ 5");
    rl_report_kinds(r, n);
    cr_assert_eq(n[RL_V_VERIFIED], 1);
    cr_assert_eq(n[RL_V_HYPOTHESIS], 0);
    rl_report_free(r);
    r = conc_report();
    rl_conc_decide(r, &rl_rule_agree, s, 3, "tail = Beta law", "|z| ≤ 5");
    rl_report_kinds(r, n);
    cr_assert_eq(n[RL_V_CONTRADICTED], 1);
    cr_assert_eq(n[RL_V_VERIFIED] + n[RL_V_HYPOTHESIS], 0);
    rl_report_free(r);
    /* the hypothesis fails at d = 128: that d leaves the decision (holds over
     * 8, 32) and gets its own row, hypothesis not met, naming it */
    snprintf(s[2].unmet, sizeof s[2].unmet, "second-moment rate 0.99 at d = 128: rate^n > 1/d");
    r = conc_report();
    rl_conc_decide(r, &rl_rule_agree, s, 3, "tail = Beta law", "|z| ≤ 5");
    rl_report_kinds(r, n);
    cr_assert_eq(n[RL_V_VERIFIED], 1);
    cr_assert_eq(n[RL_V_HYPOTHESIS], 1);
    cr_assert_eq(n[RL_V_CONTRADICTED], 0);
    char *tsv = report_tsv(r);
    cr_assert(strstr(tsv, "hypothesis not met") && strstr(tsv, "d ∈ {128}") && strstr(tsv, "rate 0.99 at d = 128"),
              "%s", tsv);
    cr_assert(strstr(tsv, "d ∈ {8, 32}"), "%s", tsv);
    free(tsv);
    rl_report_free(r);
    /* unmet everywhere (Brownian): only the hypothesis row, naming the others */
    for (int i = 0; i < 3; i++)
        snprintf(s[i].unmet, sizeof s[i].unmet, "no second-moment certificate (d = %d)", s[i].d);
    r = conc_report();
    rl_conc_decide(r, &rl_rule_bound, s, 3, "tail ≤ cap", "x ≤ 5");
    rl_report_kinds(r, n);
    cr_assert_eq(n[RL_V_HYPOTHESIS], 1);
    cr_assert_eq(n[RL_V_VERIFIED] + n[RL_V_CONTRADICTED], 0);
    tsv = report_tsv(r);
    cr_assert(strstr(tsv, "also not met at d = 32, 128"), "%s", tsv);
    free(tsv);
    rl_report_free(r);
}

Test(exp_concentration, scale_bound_decides_both_ways)
{
    /* q spread evenly over d/2 = 32 blocks: level = sum a_b^2 / 2 = 1/d */
    const int d = 64;
    const double level = 1.0 / d, se = 1e-4;
    double rate = 0.5;
    long n = 40; /* rate^n ~ 1e-12 */
    /* at the level: holds; 6 SE above level + rate^n: contradicted */
    double x = rl_conc_scale_excess(level, se, level, rate, n);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, x), RL_V_VERIFIED);
    x = rl_conc_scale_excess(level + pow(rate, n) + 6 * se, se, level, rate, n);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, x), RL_V_CONTRADICTED);
    /* the old ratio rule could not see this: a score at the O(1) scale is
     * far above the bound */
    x = rl_conc_scale_excess(0.5, 0.01, level, rate, n);
    cr_assert_gt(x, 5);
    /* an unmixed family's rate^n raises the bound (and its row is then
     * hypothesis not met: rl_conc_decide above) */
    cr_assert_lt(rl_conc_scale_excess(0.5, 0.01, level, 0.9999, n), 5);
    /* zero SE: the sign decides */
    cr_assert_eq(rl_conc_scale_excess(level + 1e-3, 0, level, 0, n), INFINITY);
}

Test(exp_concentration, beta_tail_below_the_cap_bound_not_a_tighter_one)
{
    double tw;
    for (int d = 8; d <= 512; d *= 4) {
        /* Ball's cap bound 2 exp(-d t^2/2) is above the exact tail */
        cr_assert_leq(rl_conc_beta_over_cap(d, 0.5, &tw), 0, "d = %d", d);
        /* the counterexample: 2 exp(-2 d t^2) is not a bound */
        cr_assert_gt(rl_conc_beta_over_cap(d, 2.0, &tw), 0, "d = %d", d);
    }
    cr_assert_eq(rl_rule_decide(&rl_rule_exact, rl_conc_beta_over_cap(32, 2.0, &tw) <= 0), RL_V_CONTRADICTED);
}

/* The summary of part (c) from hand-built configuration rows: per (law,
 * configuration) the worst |z| of mean and variance, the worst Hoeffding
 * excess, the scale check's reading per d (with the hypothesis carried), and
 * nothing for a group with no rows. */
Test(exp_concentration, so2_summary_of_hand_built_rows)
{
    rl_conc_so2_row r[3];
    memset(r, 0, sizeof r);
    /* study law, spread configuration, at d = 8 and 32 */
    r[0] = (rl_conc_so2_row){ .law = 1, .cfg = RL_CFG_SPREAD, .d = 8, .n = 100, .sum_a2 = 0.25, .mean = 0.11,
                              .mean_se = 0.01, .mean_pred = 0.10, .var = 0.05, .var_se = 0.01, .var_pred = 0.08,
                              .ms = 0.2, .ms_se = 0.01, .hcen_over = -2, .rate = 0.5 };
    r[1] = r[0];
    r[1].d = 32;
    r[1].mean = 0.07; /* |z| = 3 */
    r[1].hcen_over = 1.5;
    snprintf(r[1].unmet, sizeof r[1].unmet, "rate too slow");
    /* circle angles, low configuration, one d */
    r[2] = (rl_conc_so2_row){ .law = 0, .cfg = RL_CFG_LOW, .d = 8, .n = 64, .sum_a2 = 0.5, .mean = 0, .mean_se = 0.1,
                              .var = 0.1, .var_se = 0.05, .var_pred = 0.1, .ms = 0.5, .ms_se = 0.1, .hcen_over = 7,
                              .rate = 0 };
    rl_conc_so2_group g[2][RL_NCFG];
    rl_conc_so2_summarise(r, 3, g);
    const rl_conc_so2_group *s = &g[1][RL_CFG_SPREAD];
    cr_assert_eq(s->cnt, 2);
    cr_assert_float_eq(s->zm, 3.0, 1e-9);
    cr_assert_float_eq(s->zv, 3.0, 1e-9); /* |0.05 - 0.08| / 0.01 */
    cr_assert_float_eq(s->over, 1.5, 1e-12);
    cr_assert_eq(s->ds[0].d, 8);
    cr_assert_eq(s->ds[1].d, 32);
    cr_assert_float_eq(s->ds[0].x, rl_conc_scale_excess(0.2, 0.01, 0.125, 0.5, 100), 1e-12);
    cr_assert_float_eq(s->ds[0].x, (0.2 - 0.125 - pow(0.5, 100)) / 0.01, 1e-9);
    cr_assert_str_empty(s->ds[0].unmet);
    cr_assert_str_eq(s->ds[1].unmet, "rate too slow");
    const rl_conc_so2_group *c = &g[0][RL_CFG_LOW];
    cr_assert_eq(c->cnt, 1);
    cr_assert_float_eq(c->over, 7.0, 1e-12);
    cr_assert_float_eq(c->ds[0].x, (0.5 - 0.25) / 0.1, 1e-9);
    cr_assert_eq(g[0][RL_CFG_SPREAD].cnt, 0);
    cr_assert_eq(g[1][RL_CFG_LOW].cnt, 0);
    /* the derived numbers of the files and the table */
    rl_conc_so2_derive(&r[2]);
    cr_assert_float_eq(r[2].d_ms, 4.0, 1e-12);
    cr_assert_float_eq(r[2].d_ms_bound, 8 * 0.25, 1e-12);
    cr_assert_float_eq(r[2].rms_sqrtd, 2.0, 1e-12);
}
