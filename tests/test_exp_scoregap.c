/* test_exp_scoregap.c: `routelab scoregap`: near and far scores on one chain
 * against their closed forms within 5 standard errors, the moment generating
 * functions behind the weight-ratio prediction, the subcommand's files, and
 * every decision of its report (rule, hypothesis label) made to come out
 * the other way on a hand-built summary. */
#include <criterion/criterion.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/claims.h"
#include "../experiments/scoregap.h"
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
    char *dir = th_tmpdir(), line[1024];
    snprintf(line, sizeof line, "scoregap --preset quick --threads 2 --out %s", dir);
    cr_assert_eq(th_run(line, out, sizeof out, err, sizeof err), 0, "%s", err);
    for (const char *const *f = files; *f; f++) {
        char *p = th_path(dir, *f);
        cr_assert_eq(access(p, R_OK), 0, "missing %s", *f);
        free(p);
    }
    /* the run's cells wired to the certificate: the study's slow blocks are
     * unmixed at 512, Householder and circle angles are certified; the
     * Householder weight-ratio bound is the one that needs mixing */
    char *md = th_path(dir, "scoregap.md");
    FILE *fp = fopen(md, "r");
    cr_assert_not_null(fp);
    static char row[1 << 14];
    int study_unmet = 0, householder_ratio = 0;
    while (fgets(row, sizeof row, fp)) {
        cr_assert_null(strstr(row, "Lévy"), "%s", row);
        if (strstr(row, "| so2-study: P(max_j") || strstr(row, "| so2-study: E max_j"))
            study_unmet += strstr(row, "| hypothesis not met |") != NULL;
        if (strstr(row, "| householder: ") || strstr(row, "| so2-circle: "))
            cr_assert_null(strstr(row, "hypothesis not met"), "%s", row);
        if (strstr(row, "| householder: log weight ratio"))
            householder_ratio += strstr(row, "sphere's mgf") != NULL;
    }
    fclose(fp);
    free(md);
    cr_assert_eq(study_unmet, 2);
    cr_assert_eq(householder_ratio, 1);
    th_rmdir(dir);
    free(dir);
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

/* ---- the report half: verdicts on hand-built summaries ---- */

/* A summary where every check holds comfortably and every d is certified. */
static void good_sums(rl_sg_sum S[RL_SG_NFAM])
{
    memset(S, 0, sizeof(rl_sg_sum) * RL_SG_NFAM);
    for (int f = 0; f < RL_SG_NFAM; f++) {
        rl_sg_sum *s = &S[f];
        s->near_z = s->meanfar_z = 1.0;
        s->gapu_over = s->hunion_over = -1.0;
        s->hunion_worst = 0.01;
        s->logr_needs_mixing = f == RL_SG_HOUSEHOLDER;
        s->nd = 3;
        for (int k = 0; k < 3; k++) {
            rl_sg_dsum *t = &s->at[k];
            t->d = 16 << (2 * k);
            t->max_over = t->gap_over = t->union_over = t->logr_over = 0.5;
            t->ratio_lo = 0.5;
            t->ratio_hi = 0.9;
            t->union_worst = 0.02;
        }
    }
}

/* The verdicts as rl_report_tsv rows, in buf. */
static char *verdict_rows(const rl_sg_sum S[RL_SG_NFAM])
{
    const rl_claim *c = rl_claim_find("scoregap");
    cr_assert_not_null(c);
    rl_report *rep = rl_report_alloc("scoregap");
    rl_report_rules(rep, c->rules);
    rl_scoregap_verdicts(S, 256, 10000, rep);
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    rl_report_tsv(rep, fp, "scoregap");
    fclose(fp);
    rl_report_free(rep);
    return buf;
}

/* The verdict of the one row whose check contains every one of key1, key2
 * (key2 may be NULL), copied into v; the number of such rows is returned. */
static int verdict_of(const char *rows, const char *key1, const char *key2, char *v, size_t vn)
{
    int hits = 0;
    for (const char *line = rows; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = strndup(line, len);
        char *f1 = strchr(l, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL, *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
        char *f4 = f3 ? strchr(f3 + 1, '\t') : NULL;
        if (f4) {
            *f4 = 0;
            if (strstr(f3 + 1, key1) && (!key2 || strstr(f3 + 1, key2))) {
                *f2 = 0;
                snprintf(v, vn, "%s", f1 + 1);
                hits++;
            }
        }
        free(l);
        line = end ? end + 1 : line + len;
    }
    return hits;
}

static void expect(const char *rows, const char *k1, const char *k2, const char *verdict)
{
    char v[64] = "";
    cr_assert_eq(verdict_of(rows, k1, k2, v, sizeof v), 1, "one row for [%s][%s] in\n%s", k1, k2 ? k2 : "", rows);
    cr_assert_str_eq(v, verdict, "[%s][%s]: %s, expected %s", k1, k2 ? k2 : "", v, verdict);
}

#define UNMET_ "second-moment rate 0.999 at d = 16: rate^n = 0.6 > 1/d at n = 512"

Test(exp_scoregap, verdicts_hold_on_a_good_summary)
{
    rl_sg_sum S[RL_SG_NFAM];
    good_sums(S);
    char *rows = verdict_rows(S);
    cr_assert_null(strstr(rows, "contradicted"), "%s", rows);
    cr_assert_null(strstr(rows, "hypothesis not met"), "%s", rows);
    cr_assert_null(strstr(rows, "Lévy"), "Ball's cap bound is not Lévy's: %s", rows);
    expect(rows, "householder: P(max_j", "cap bounds (Ball)", "verified");
    expect(rows, "so2-study: E max_j", NULL, "verified");
    expect(rows, "householder: log weight ratio", "sphere's mgf", "verified");
    expect(rows, "so2-circle: log weight ratio", "exact mgf", "verified");
    free(rows);
}

/* Closed forms decide by agree (|z| <= 5); bounds by bound (excess <= 5 SE):
 * one step past the threshold is contradicted, whatever the certificate. */
Test(exp_scoregap, an_excess_beyond_five_se_is_contradicted)
{
    rl_sg_sum S[RL_SG_NFAM];
    good_sums(S);
    S[RL_SG_HOUSEHOLDER].near_z = 5.1;
    S[RL_SG_CIRCLE].meanfar_z = 7;
    S[RL_SG_CIRCLE].at[1].max_over = 5.2;
    S[RL_SG_HOUSEHOLDER].at[2].gap_over = 6;
    S[RL_SG_CIRCLE].at[0].union_over = 5.01;
    S[RL_SG_HOUSEHOLDER].at[1].logr_over = 9;
    S[RL_SG_STUDY].at[2].logr_over = 9;
    S[RL_SG_STUDY].gapu_over = 5.5;
    S[RL_SG_STUDY].hunion_over = 12;
    S[RL_SG_STUDY].near_z = 4.99; /* inside */
    char *rows = verdict_rows(S);
    expect(rows, "householder: near score", NULL, "contradicted");
    expect(rows, "so2-circle: mean far score", NULL, "contradicted");
    expect(rows, "so2-circle: E max_j", NULL, "contradicted");
    expect(rows, "householder: gap s_near − max_j s_j ≥", NULL, "contradicted");
    expect(rows, "so2-circle: P(max_j |s_j| ≥", NULL, "contradicted");
    expect(rows, "householder: log weight ratio", NULL, "contradicted");
    expect(rows, "so2-study: log weight ratio", NULL, "contradicted");
    expect(rows, "so2-study: gap s_near − max_j s_j ≤", NULL, "contradicted");
    expect(rows, "so2-study: centered", NULL, "contradicted");
    expect(rows, "so2-study: near score", NULL, "verified");
    expect(rows, "householder: mean far score", NULL, "verified");
    expect(rows, "so2-circle: near score", NULL, "verified");
    free(rows);
}

/* Where the certificate fails at every d, the checks that assume mixed far
 * routes are "hypothesis not met" (with the phrase) even far past 5 SE;
 * the checks that hold at any length are still decided by their rule. */
Test(exp_scoregap, unmet_certificate_labels_only_the_mixing_checks)
{
    rl_sg_sum S[RL_SG_NFAM];
    good_sums(S);
    for (int f = 0; f < RL_SG_NFAM; f++)
        for (int k = 0; k < 3; k++) {
            rl_sg_dsum *t = &S[f].at[k];
            snprintf(t->unmet, sizeof t->unmet, UNMET_);
            t->max_over = t->gap_over = t->union_over = t->logr_over = 40;
        }
    S[RL_SG_STUDY].gapu_over = 8;
    char *rows = verdict_rows(S);
    for (int f = 0; f < RL_SG_NFAM; f++) {
        char k[64];
        const char *lab = rl_sg_label[f];
        expect(rows, rl_fmt(k, sizeof k, "%s: E max_j", lab), NULL, "hypothesis not met");
        expect(rows, rl_fmt(k, sizeof k, "%s: gap s_near − max_j s_j ≥", lab), NULL, "hypothesis not met");
        expect(rows, rl_fmt(k, sizeof k, "%s: P(max_j |s_j| ≥", lab), NULL, "hypothesis not met");
        expect(rows, rl_fmt(k, sizeof k, "%s: near score", lab), NULL, "verified");
    }
    cr_assert_not_null(strstr(rows, UNMET_), "the phrase is in the row: %s", rows);
    expect(rows, "householder: log weight ratio", NULL, "hypothesis not met");
    /* exact mgf at each length, Hoeffding, E max >= max E: no mixing needed */
    expect(rows, "so2-study: log weight ratio", NULL, "contradicted");
    expect(rows, "so2-circle: log weight ratio", NULL, "contradicted");
    expect(rows, "so2-study: gap s_near − max_j s_j ≤", NULL, "contradicted");
    expect(rows, "so2-circle: centered", NULL, "verified");
    free(rows);
    /* the same numbers with the certificate met: contradicted, not excused */
    for (int f = 0; f < RL_SG_NFAM; f++)
        for (int k = 0; k < 3; k++)
            S[f].at[k].unmet[0] = 0;
    rows = verdict_rows(S);
    expect(rows, "so2-study: P(max_j |s_j| ≥", NULL, "contradicted");
    expect(rows, "householder: log weight ratio", NULL, "contradicted");
    cr_assert_null(strstr(rows, "hypothesis not met"), "%s", rows);
    free(rows);
}

/* A certificate met at some d's only: one row decided on those d's, one
 * "hypothesis not met" row for the others; an excess where unmet does not
 * leak into the decided row. */
Test(exp_scoregap, certificate_splits_the_ds)
{
    rl_sg_sum S[RL_SG_NFAM];
    good_sums(S);
    rl_sg_dsum *t = &S[RL_SG_HOUSEHOLDER].at[0];
    snprintf(t->unmet, sizeof t->unmet, UNMET_);
    t->union_over = 30;
    char *rows = verdict_rows(S);
    expect(rows, "householder: P(max_j |s_j| ≥", "(d = 64, 256)", "verified");
    expect(rows, "householder: P(max_j |s_j| ≥", "(d = 16)", "hypothesis not met");
    expect(rows, "householder: E max_j", "(d = 16)", "hypothesis not met");
    expect(rows, "so2-circle: P(max_j |s_j| ≥", NULL, "verified");
    free(rows);
    S[RL_SG_HOUSEHOLDER].at[2].union_over = 5.3;
    rows = verdict_rows(S);
    expect(rows, "householder: P(max_j |s_j| ≥", "(d = 64, 256)", "contradicted");
    free(rows);
}

/* The certificate of the run's cells: Householder at 3 W(0.01) and circle
 * angles at 64 are certified, the study's U(-w_b, w_b) at 512 is not (its
 * slow blocks), nor Householder after one step. */
Test(exp_scoregap, certificate_of_the_runs_families)
{
    char buf[256];
    for (int d = 16; d <= 256; d *= 4) {
        rl_family h = rl_family_default(RL_FAM_HOUSEHOLDER, d);
        long w = 3 * rl_mixing_window(1 - 2.0 / d, 0.01);
        cr_assert_null(rl_scoregap_unmet(&h, w, buf, sizeof buf), "householder d = %d: %s", d, buf);
        cr_assert_not_null(rl_scoregap_unmet(&h, 1, buf, sizeof buf));
        rl_family c = rl_family_default(RL_FAM_SO2, d);
        c.law = RL_ANG_CIRCLE;
        cr_assert_null(rl_scoregap_unmet(&c, 64, buf, sizeof buf), "circle d = %d: %s", d, buf);
        rl_family s = rl_family_default(RL_FAM_SO2, d);
        cr_assert_eq(s.law, RL_ANG_UNIFORM);
        cr_assert_not_null(rl_scoregap_unmet(&s, 512, buf, sizeof buf));
        cr_assert_not_null(strstr(buf, "second-moment rate"), "%s", buf);
    }
}

/* ---- the summary: every number of the report from a hand-built run ---- */

/* One Householder cell at d = 16 (certified: delta0 = 3 W(0.01)), M_L = 10
 * far keys, four chains with known scores: the summary's z-scores,
 * frequencies, gaps and bounds are those of the formulas on these numbers. */
Test(exp_scoregap, summary_of_a_hand_built_cell)
{
    const int d = 16;
    const long reps = 4, M = 10;
    double near[4 * RL_SG_NNEAR] = { 1.0, 0.8, 0.5, 2.0, 0.7, 0.3, 3.0, 0.9, 0.4, 4.0, 0.6, 0.6 };
    double maxs[4] = { 0.2, 0.4, 0.1, 0.3 }, maxabs[4] = { 0.1, 0.9, 1.0, 0.2 };
    double maxcen[4] = { 0.1, 0.1, 0.1, 0.1 }, lf[4] = { 2.0, 2.5, 2.2, 2.4 }, meanfar[4] = { 0.0, 0.1, -0.1, 0.2 };
    double es[10], lm[10];
    for (int j = 0; j < 10; j++) {
        es[j] = 0.01 * j;
        lm[j] = 0.1;
    }
    rl_sg_res *R = calloc(1, sizeof *R);
    R->z.nd = 1;
    R->z.d[0] = d;
    R->ng = 1;
    R->g[0] = M;
    R->run[RL_SG_HOUSEHOLDER] = 1;
    rl_sg_run_cell *rc = &R->cell[0][RL_SG_HOUSEHOLDER];
    rc->sp.gc = (rl_gc_spec){ rl_family_default(RL_FAM_HOUSEHOLDER, d), 3 * rl_mixing_window(1 - 2.0 / d, 0.01), 4.0,
                              RL_SG_NNEAR, { 1, 4, 16 } };
    rc->sp.c = 1 - 2.0 / d;
    rc->p = (rl_sg_pred){ { 2.0, 0.75, 0.45 }, es, lm, 1.0 };
    rc->c = (rl_gc_cell){ reps, 1, RL_SG_NNEAR, { M }, near, maxs, maxabs, maxcen, lf, meanfar };
    rl_sg_summary *S = malloc(sizeof *S);
    rl_scoregap_summarise(R, S);
    const rl_sg_sum *s = &S->fam[RL_SG_HOUSEHOLDER];
    const rl_sg_cell *o = &S->cell[0][RL_SG_HOUSEHOLDER];
    cr_assert_eq(S->nd, 1);
    cr_assert_eq(S->dlast, d);
    cr_assert_eq(S->mmax, M);
    cr_assert_eq(s->nd, 1);
    cr_assert_str_empty(s->at[0].unmet, "certified at 3 W(0.01): %s", s->at[0].unmet);
    /* near: max_i |mean - E s_near|/SE over the three distances */
    double zmax = 0;
    for (int i = 0; i < RL_SG_NNEAR; i++) {
        double m, se;
        mean_se(near + i, reps, RL_SG_NNEAR, &m, &se);
        cr_assert_float_eq(o->near[i], m, 1e-12);
        cr_assert_float_eq(o->near_se[i], se, 1e-12);
        zmax = fmax(zmax, fabs(m - rc->p.near[i]) / se);
    }
    cr_assert_float_eq(s->near_z, zmax, 1e-12);
    cr_assert_gt(s->near_z, 0);
    /* far: Ball's threshold sqrt(2 log(2M/0.05)/d) = 0.865 is reached by two
     * of the four chains */
    const rl_sg_far *f = &o->far[0];
    cr_assert_eq(f->M, M);
    cr_assert_float_eq(f->union_t, sqrt(2 * log(2 * M / 0.05) / d), 1e-12);
    cr_assert_float_eq(f->union_fr, 0.5, 1e-12);
    cr_assert_float_eq(f->union_se, sqrt(0.05 * 0.95 / reps), 1e-12);
    cr_assert_float_eq(s->at[0].union_over, (0.5 - 0.05) / f->union_se, 1e-12);
    cr_assert_float_eq(s->at[0].union_worst, 0.5, 1e-12);
    cr_assert_float_eq(f->pred, sqrt(2 * log(10.0) / d), 1e-12);
    cr_assert_float_eq(f->max, 0.25, 1e-12);
    cr_assert_float_eq(f->meanfar_pred, 0.045, 1e-12); /* (0 + 0.01 + ... + 0.09)/10 */
    /* gap at n_near = 1: mean of s_near - max_j s_j, its bounds */
    const rl_sg_gap *e = &o->gap[0][0];
    cr_assert_float_eq(e->gap, 2.5 - 0.25, 1e-12);
    cr_assert_float_eq(e->gap_bound, 2.0 - f->pred, 1e-12);
    cr_assert_float_eq(e->gap_upper, 2.0 - 0.09, 1e-12);
    cr_assert_float_eq(e->logr_bound, 4.0 * 2.0 - (0.1 + log(10.0)), 1e-12);
    /* the last d's slack at n_near = 4 and the predicted crossing
     * M* = e^{lambda E s_near - lm} */
    cr_assert_float_eq(s->logr_slack_end, o->gap[1][0].logr - o->gap[1][0].logr_bound, 1e-12);
    cr_assert_float_eq(o->mstar_pred, exp(4.0 * 0.75 - 0.1), 1e-9);
    cr_assert_eq(S->run[RL_SG_CIRCLE], 0);
    free(S);
    free(R);
}
