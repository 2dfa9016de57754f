/* test_exp_scoregap.c: `routelab scoregap`: near and far scores on one chain
 * against their closed forms within 5 standard errors, the moment generating
 * functions behind the weight-ratio prediction, and the subcommand's files. */
#include <criterion/criterion.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mc/gapchain.h"
#include "../mc/so2score.h"
#include "../theory/theory.h"
#include "helpers.h"

static void mean_se(const double *x, long n, long stride, double *m, double *se)
{
    th_acc a = { 0, 0, 0 };
    for (long i = 0; i < n; i++)
        th_add(&a, x[i * stride]);
    *m = a.mean;
    *se = th_se(&a);
}

/* the query spread evenly over the blocks */
static void spread_query(int d, double *q)
{
    for (int b = 0; b < d / 2; b++) {
        q[b] = sqrt(2.0 / d) * cos(0.7 * b);
        q[b + d / 2] = sqrt(2.0 / d) * sin(0.7 * b);
    }
}

Test(exp_scoregap, householder_near_and_far_scores_are_c_to_the_delta)
{
    const int d = 16;
    const long reps = 3000, g[] = { 1, 10, 40 };
    rl_gc_spec sp = { rl_family_default(RL_FAM_HOUSEHOLDER, d), 5, 4.0, 3, { 1, 2, 4 } };
    double q[16], c = 1 - 2.0 / d;
    spread_query(d, q);
    rl_gc_cell cell;
    cr_assert_eq(rl_gc_run(&sp, q, NULL, reps, g, 3, 1, 1, &cell, NULL), RL_OK);
    for (int i = 0; i < 3; i++) {
        double m, se, p = pow(c, (double)sp.near[i]);
        mean_se(cell.near + i, reps, 3, &m, &se);
        cr_assert_leq(fabs(m - p), 5 * se, "near %ld: %g ± %g vs c^n = %g", sp.near[i], m, se, p);
        cr_assert_gt(fabs(m - pow(c, sp.near[i] + 1.0)), 5 * se, "an off-by-one route would pass");
    }
    /* the first far key is at distance delta0 = 5; the mean of the first 10 */
    double m, se, p10 = 0;
    mean_se(cell.meanfar, reps, 3, &m, &se);
    cr_assert_leq(fabs(m - pow(c, 5)), 5 * se, "far key 1: %g ± %g vs %g", m, se, pow(c, 5));
    cr_assert_gt(fabs(m - pow(c, 6)), 5 * se);
    for (int j = 0; j < 10; j++)
        p10 += pow(c, 5.0 + j) / 10;
    mean_se(cell.meanfar + 1, reps, 3, &m, &se);
    cr_assert_leq(fabs(m - p10), 5 * se, "mean of 10 far keys: %g ± %g vs %g", m, se, p10);
    rl_gc_free(&cell);
}

Test(exp_scoregap, so2_study_scores_follow_the_block_characteristic_functions)
{
    const int d = 16;
    const long reps = 3000, g[] = { 8, 64 };
    rl_gc_spec sp = { rl_family_default(RL_FAM_SO2, d), 32, 4.0, 2, { 1, 4 } };
    double q[16], a[8], es[64];
    spread_query(d, q);
    rl_so2score_weights(d, q, a);
    rl_so2score_mean_range(&sp.f, a, 32, 64, es);
    cr_assert_float_eq(es[10], rl_so2score_mean(&sp.f, a, 42), 1e-12);
    rl_gc_cell cell;
    cr_assert_eq(rl_gc_run(&sp, q, es, reps, g, 2, 2, 2, &cell, NULL), RL_OK);
    for (int i = 0; i < 2; i++) {
        double m, se, p = rl_so2score_mean(&sp.f, a, sp.near[i]);
        mean_se(cell.near + i, reps, 2, &m, &se);
        cr_assert_leq(fabs(m - p), 5 * se, "near %ld: %g ± %g vs %g", sp.near[i], m, se, p);
        cr_assert_gt(fabs(m - rl_so2score_mean(&sp.f, a, sp.near[i] + 1)), 5 * se);
    }
    double m, se, p = 0;
    for (int j = 0; j < 64; j++)
        p += es[j] / 64;
    mean_se(cell.meanfar + 1, reps, 2, &m, &se);
    cr_assert_leq(fabs(m - p), 5 * se, "mean far: %g ± %g vs %g", m, se, p);
    rl_gc_free(&cell);
}

Test(exp_scoregap, circle_far_weights_and_max_match_predictions)
{
    /* circle angles, q spread: every far score is (2/d) sum_b cos Phi_b with
     * Phi_b uniform, so E e^{lambda s} = I_0(2 lambda/d)^{d/2} exactly, and
     * E max_j s_j <= sqrt(2 log M / d) (I_0(z) <= e^{z^2/4}) */
    const int d = 16;
    const long reps = 4000, g[] = { 50 };
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    f.law = RL_ANG_CIRCLE;
    rl_gc_spec sp = { f, 8, 4.0, 1, { 1 } };
    double q[16], a[8];
    spread_query(d, q);
    rl_so2score_weights(d, q, a);
    rl_gc_cell cell;
    cr_assert_eq(rl_gc_run(&sp, q, NULL, reps, g, 1, 3, 3, &cell, NULL), RL_OK);
    double *F = malloc(sizeof(double) * reps), m, se;
    for (long k = 0; k < reps; k++)
        F[k] = exp(cell.lf[k]) / 50;
    mean_se(F, reps, 1, &m, &se);
    double pred = exp(rl_so2score_log_mgf(&f, a, 9, sp.lambda));
    cr_assert_float_eq(pred, pow(gsl_sf_bessel_I0(2 * sp.lambda / d), d / 2), 1e-12);
    cr_assert_leq(fabs(m - pred), 5 * se, "E e^{lambda s} = %g ± %g vs %g", m, se, pred);
    mean_se(cell.maxs, reps, 1, &m, &se);
    cr_assert_leq(m, sqrt(2 * log(50.0) / d) + 5 * se);
    free(F);
    rl_gc_free(&cell);
}

static double sphere_mgf_quad(int d, double lambda)
{
    /* density of a coordinate c (1 - x^2)^{(d-3)/2}, midpoint rule after
     * x = sin(u) (smooth integrand) */
    const int n = 20000;
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        double u = -M_PI / 2 + M_PI * (i + 0.5) / n, x = sin(u), w = pow(cos(u), d - 2);
        num += w * exp(lambda * x);
        den += w;
    }
    return log(num / den);
}

Test(exp_scoregap, sphere_mgf_closed_form)
{
    cr_assert_float_eq(rl_sphere_log_mgf(2, 3.0), log(gsl_sf_bessel_I0(3.0)), 1e-12);
    cr_assert_float_eq(rl_sphere_log_mgf(3, 2.5), log(sinh(2.5) / 2.5), 1e-12);
    cr_assert_float_eq(rl_sphere_log_mgf(64, 8.0), sphere_mgf_quad(64, 8.0), 1e-8);
    cr_assert_float_eq(rl_sphere_log_mgf(256, -16.0), sphere_mgf_quad(256, 16.0), 1e-8);
    /* sub-Gaussian with variance proxy 1/d, and finite at large d, small lambda */
    for (int d = 2; d <= 1024; d *= 2)
        cr_assert_leq(rl_sphere_log_mgf(d, 7.0), 49.0 / (2 * d) + 1e-15);
    cr_assert(isfinite(rl_sphere_log_mgf(1024, 1e-3)));
}

Test(exp_scoregap, so2_cos_mgf_closed_form)
{
    /* one step of U(-w, w): (1/2w) int e^{z cos th} d th by the midpoint rule */
    const double w = 0.9, z = 1.7;
    double s = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++)
        s += exp(z * cos(-w + 2 * w * (i + 0.5) / n)) / n;
    cr_assert_float_eq(rl_so2_cos_log_mgf(RL_ANG_UNIFORM, w, 1, z), log(s), 1e-8);
    cr_assert_float_eq(rl_so2_cos_log_mgf(RL_ANG_CIRCLE, w, 5, z), log(gsl_sf_bessel_I0(z)), 1e-12);
    cr_assert_float_eq(rl_so2_cos_log_mgf(RL_ANG_UNIFORM, w, 0, z), z, 1e-12);
    /* two steps of +-w: Phi in {-2w, 0, 2w} with probabilities 1/4, 1/2, 1/4 */
    double two = 0.25 * exp(z * cos(2 * w)) * 2 + 0.5 * exp(z);
    cr_assert_float_eq(rl_so2_cos_log_mgf(RL_ANG_PM, w, 2, z), log(two), 1e-12);
    double r[5];
    rl_so2_cos_log_mgf_range(RL_ANG_UNIFORM, 0.05, 100, 5, 0.8, r);
    for (int j = 0; j < 5; j++)
        cr_assert_float_eq(r[j], rl_so2_cos_log_mgf(RL_ANG_UNIFORM, 0.05, 100 + j, 0.8), 1e-12);
}

Test(exp_scoregap, cli_writes_every_file, .timeout = 120)
{
    static char out[1 << 16], err[1 << 14];
    const char *files[] = { "scoregap.md", "scoregap_near.tsv", "scoregap_far.tsv", "scoregap_gap.tsv",
                            "scoregap_max.png", "scoregap_gap.png", NULL };
    th_cli_quick("scoregap", files, NULL);
    cr_assert_eq(th_run("scoregap --no-such-flag", out, sizeof out, err, sizeof err), 2);
    cr_assert(strncmp(err, "routelab: ", 10) == 0, "stderr: %s", err);
    cr_assert_eq(th_run("scoregap --seed", out, sizeof out, err, sizeof err), 2);
}

/* A near distance at or beyond delta0 (the far keys) is a bad input: a
 * status and a message, and an empty cell. */
Test(exp_scoregap, near_distance_beyond_delta0_is_a_bad_input)
{
    const int d = 8;
    const long g[] = { 4 };
    rl_gc_spec sp = { rl_family_default(RL_FAM_HOUSEHOLDER, d), 3, 1.0, 1, { 3 } };
    double q[8];
    spread_query(d, q);
    rl_gc_cell cell;
    rl_err err;
    cr_assert_eq(rl_gc_run(&sp, q, NULL, 8, g, 1, 1, 1, &cell, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, "gapchain") != NULL, "message: %s", err.msg);
    cr_assert_null(cell.near);
}
