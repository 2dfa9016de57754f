/* test_exp_mixing.c: claim 1's experiment and the theory report. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "../experiments/claims.h"
#include "../experiments/mixing.h"
#include "../mc/routes.h"
#include "../mc/textsteps.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/theory.h"
#include "helpers.h"

/* The study's variant at d = 64: the block classes the report states follow
 * from sin(w)/w: 7 blocks reach 0.1 within 512 steps, 11 stay above 0.9 at
 * 65,536. */
Test(exp_mixing, study_block_classes)
{
    int mixed = 0, coherent = 0;
    for (int b = 0; b < 32; b++) {
        double w = pow(10000.0, -2.0 * b / 64), c = sin(w) / w;
        long W = rl_mixing_window(c, 0.1);
        mixed += W > 0 && W <= 512;
        coherent += pow(c, 65536) >= 0.9;
    }
    cr_assert_eq(mixed, 7);
    cr_assert_eq(coherent, 11);
}

/* Text-driven routes over an i.i.d. token sequence: the mean of e^{i Phi}
 * over start positions estimates chi^n (independent steps), within 5 SE. */
Test(exp_mixing, text_routes_of_iid_tokens_follow_chi_power)
{
    const long n = 1 << 16;
    int *tok = malloc(sizeof(int) * n);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 4, 4);
    for (long i = 0; i < n; i++)
        tok[i] = (int)gsl_rng_uniform_int(r, 16);
    double table[16 * 2];
    rl_family f = rl_family_default(RL_FAM_TOKEN_SO2, 4);
    f.vocab = 16;
    f.table = table;
    for (int i = 0; i < 32; i++)
        table[i] = 1.3 * (2 * gsl_rng_uniform(r) - 1);
    long grid[] = { 1, 2, 3, 5, 8 };
    rl_textsteps_stats *s = NULL;
    rl_err err;
    cr_assert_eq(rl_textsteps_run(&f, tok, n, 4096, grid, 5, &s, &err), RL_OK);
    for (int b = 0; b < 2; b++) {
        double complex chi = 0;
        for (int v = 0; v < 16; v++)
            chi += cexp(I * table[v * 2 + b]) / 16;
        for (int g = 0; g < 5; g++) {
            double complex want = cpow(chi, grid[g]);
            double e = cabs(s->chi[g * 2 + b] - want);
            cr_assert_lt(e, 5 * s->se[g * 2 + b] + 1e-3, "block %d n %ld: %g off (SE %g)", b, grid[g], e,
                         s->se[g * 2 + b]);
        }
    }
    rl_textsteps_free(s);
    gsl_rng_free(r);
    free(tok);
}

/* Second moment of the self-score: Haar value 1/d; fully mixed SO(2)
 * blocks 2/(d+2) (docs/theory/claim1-mixing.md#mixing-experiment). */
Test(exp_mixing, self_score_second_moments)
{
    long grid[] = { 1, 3 };
    rl_family h = rl_family_default(RL_FAM_HAAR, 6);
    rl_route_stats *s = NULL;
    cr_assert_eq(rl_routes_run(&h, grid, 2, 20000, 7, 1, NULL, 0, &s, NULL), RL_OK);
    cr_assert_lt(fabs(s->sq[0] - 1.0 / 6), 5 * s->sq_se[0], "Haar: %g +- %g", s->sq[0], s->sq_se[0]);
    rl_route_stats_free(s);
    rl_family c = rl_family_default(RL_FAM_SO2, 6);
    c.law = RL_ANG_CIRCLE;
    cr_assert_eq(rl_routes_run(&c, grid, 2, 20000, 7, 2, NULL, 0, &s, NULL), RL_OK);
    for (int g = 0; g < 2; g++)
        cr_assert_lt(fabs(s->sq[g] - 2.0 / 8), 5 * s->sq_se[g], "SO(2): %g +- %g", s->sq[g], s->sq_se[g]);
    rl_route_stats_free(s);
}

Test(exp_mixing, bad_flags_exit_2)
{
    char err[4096];
    cr_assert_eq(th_run("mixing --preset huge", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("mixing --text /nonexistent/file --out /tmp/rl-none", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("theory --only mixing,nope", NULL, 0, err, sizeof err), 2);
    cr_assert(strstr(err, "nope"));
}

/* The whole quick report: theory.md, every figure it links and every TSV
 * the experiments promise. */
Test(exp_mixing, theory_quick_writes_every_file, .timeout = 600)
{
    static char out[1 << 20];
    char *dir = th_tmpdir(), cmd[512], err[8192];
    snprintf(cmd, sizeof cmd, "theory --preset quick --threads 2 --out %s", dir);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    char path[1024];
    snprintf(path, sizeof path, "%s/theory.md", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no theory.md");
    static char md[1 << 20];
    size_t n = fread(md, 1, sizeof md - 1, f);
    md[n] = 0;
    fclose(f);
    /* one section per row of the claims table (`routelab claims`), in its
     * order, titled by rl_claim_heading (the count and titles are the table's) */
    cr_assert_geq(rl_nclaims, 7, "the claims table is read");
    const char *at = md;
    for (int i = 0; i < rl_nclaims; i++) {
        char head[512], sec[520];
        snprintf(sec, sizeof sec, "## %s", rl_claim_heading(&rl_claims[i], head, sizeof head));
        const char *s = strstr(at, sec);
        cr_assert(s, "theory.md lacks the section '%s' (after the previous one)", sec);
        at = s + strlen(sec);
    }
    int figures = 0;
    for (char *img = md; (img = strstr(img, "![")); img += 2) {
        char *p = strstr(img, "](");
        cr_assert(p);
        char *end = strchr(p + 2, ')');
        cr_assert(end);
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)(end - p - 2), p + 2);
        cr_assert_eq(access(path, R_OK), 0, "figure %s is missing", path);
        figures += strstr(path, ".png") != NULL;
    }
    cr_assert_geq(figures, 20, "only %d figures", figures);
    const char *tsv[] = { "mixing_families", "mixing_blocks_d64", "mixing_blocks_d96", "mixing_block_curves",
                          "mixing_tokens", "concentration_haar", "concentration_families", "concentration_so2",
                          "scoregap_near", "scoregap_far", "scoregap_gap", "farmass", "farmass_alibi",
                          "farmass_extremal", "farmass_half", "values_norm", "values_blocks", "values_slopes",
                          "values_near", "stylized", "stylized_table", "stylized_query", "mixing_windows",
                          "mixstay_blocks", "mixstay_scores", "mixstay_curves", "mixstay_mc" };
    for (size_t i = 0; i < sizeof tsv / sizeof *tsv; i++) {
        snprintf(path, sizeof path, "%s/%s.tsv", dir, tsv[i]);
        f = fopen(path, "r");
        cr_assert(f, "%s is missing", path);
        char line[4096];
        cr_assert(fgets(line, sizeof line, f) && strchr(line, '\t'), "%s has no header row", path);
        cr_assert(fgets(line, sizeof line, f), "%s has no data row", path);
        fclose(f);
    }
    cr_assert(strstr(out, "theory report"));
    /* the text-driven paragraph names the text it read, a readable file (it
     * once printed a pointer into a returned-from frame: garbage bytes) */
    const char *tx = strstr(md, "tokens the first ");
    cr_assert(tx, "theory.md names no text for the text-driven steps");
    const char *q = strchr(tx, '`'), *qe = q ? strchr(q + 1, '`') : NULL;
    cr_assert(q && qe && qe - q < 1024, "the text's path is not quoted");
    snprintf(path, sizeof path, "%.*s", (int)(qe - q - 1), q + 1);
    cr_assert_eq(access(path, R_OK), 0, "the text-driven steps name '%s', no readable file", path);
    th_rmdir(dir);
    free(dir);
}

/* ---------- the verdict of each check (experiments/mixing.h) ---------- */

/* The verdicts of r's rows, in order; returns how many. */
static int row_verdicts(const rl_report *r, rl_verdict *v, int max)
{
    int n = rl_report_nchecks(r);
    for (int i = 0; i < n && i < max; i++)
        v[i] = rl_report_verdict(r, i);
    return n < max ? n : max;
}

static rl_report *mixing_report(void)
{
    rl_report *r = rl_report_alloc("mixing");
    rl_report_rules(r, rl_claim_find("mixing")->rules);
    return r;
}

/* The window row at eps = 0.01 of a family with ||E M|| = 0.5 (W = 7) on
 * the grid 1..16, 1024 replicates, the estimate the exact 0.5^n but at n =
 * n7 (est7) and n = 6 (est6), every SE se; the row's TSV line into line. */
static rl_verdict window_row(double est6, double est7, double se, char *line, size_t len)
{
    long grid[16];
    double est[16], sev[16];
    for (int g = 0; g < 16; g++) {
        grid[g] = g + 1;
        est[g] = pow(0.5, g + 1);
        sev[g] = se;
    }
    est[5] = est6;
    est[6] = est7;
    rl_report *r = mixing_report();
    rl_mix_window_row(r, "test", 0.5, 0.01, grid, est, sev, 16, 1024);
    rl_verdict v[2];
    cr_assert_eq(row_verdicts(r, v, 2), 1);
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    rl_report_tsv(r, fp, "mixing");
    fclose(fp);
    snprintf(line, len, "%s", buf);
    free(buf);
    rl_report_free(r);
    return v[0];
}

static rl_verdict window_verdict(double est6, double est7, double se)
{
    char line[2048];
    return window_row(est6, est7, se, line, sizeof line);
}

/* The crossing bracketed (rule window): with SE 2e-4 the margin 6 SE =
 * 0.0012 puts n_hi at 7 (0.5^7 = 0.0078 <= 0.0088) and n_lo at 6 (0.0156 >=
 * 0.0112).  At the prediction: verified (x = max(-11, -28)); above eps at
 * n_hi, or below it at n_lo, by more than 3 SE: contradicted; inside the
 * band: unresolved, saying how many replicates would decide; a noise (6 SE)
 * larger than eps leaves no length to test: unresolved, whatever the
 * estimate, with the replicates that would form the test. */
Test(exp_mixing, window_row_has_three_outcomes)
{
    char line[2048];
    cr_assert_eq(rl_mixing_window(0.5, 0.01), 7);
    cr_assert_eq(window_verdict(0.015625, 0.0078, 0.0002), RL_V_VERIFIED);
    cr_assert_eq(window_verdict(0.015625, 0.05, 0.0002), RL_V_CONTRADICTED);  /* x_hi = +200 */
    cr_assert_eq(window_verdict(0.0, 0.0078, 0.0002), RL_V_CONTRADICTED);      /* x_lo = +50: crossed early */
    cr_assert_eq(window_row(0.015625, 0.0095, 0.0002, line, sizeof line), RL_V_UNRESOLVED); /* x_hi = -2.5 */
    cr_assert(strstr(line, "needs about 1475 replicates at this margin"), "%s", line);
    cr_assert_eq(window_verdict(0.0105, 0.0078, 0.0002), RL_V_UNRESOLVED);     /* x_lo = -2.5 */
    cr_assert_eq(window_row(0.015625, 0.0078, 0.005, line, sizeof line), RL_V_UNRESOLVED);
    cr_assert(strstr(line, "x not formed") && strstr(line, "needs about"), "%s", line);
    cr_assert_eq(window_verdict(0.015625, 0.0, 0.005), RL_V_UNRESOLVED); /* even an estimate of 0 */
    cr_assert(strstr(line, "n_lo = 6") == NULL && strstr(line, "n_hi: none"), "%s", line);
}

/* E M = 0 (Haar, circle angles): W = 1 for every eps, the row checks only
 * the sampler (labelled so), with no lower side; no closed form (nrm NaN):
 * no prediction, never a verdict. */
Test(exp_mixing, window_row_sampler_and_no_prediction)
{
    long grid[4] = { 1, 2, 3, 4 };
    double est[4] = { 0.001, 0.002, 0.001, 0.0 }, bad[4] = { 0.05, 0.002, 0.001, 0.0 };
    double se[4] = { 2e-4, 2e-4, 2e-4, 2e-4 };
    rl_report *r = mixing_report();
    rl_mix_window_row(r, "haar", 0.0, 0.01, grid, est, se, 4, 1024);
    rl_mix_window_row(r, "haar", 0.0, 0.01, grid, bad, se, 4, 1024);
    rl_mix_window_row(r, "none", NAN, 0.01, grid, est, se, 4, 1024);
    rl_verdict v[3];
    cr_assert_eq(row_verdicts(r, v, 3), 3);
    cr_assert_eq(v[0], RL_V_VERIFIED);
    cr_assert_eq(v[1], RL_V_CONTRADICTED);
    cr_assert_eq(v[2], RL_V_NOPRED);
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    rl_report_tsv(r, fp, "mixing");
    fclose(fp);
    cr_assert(strstr(buf, "a check of the sampler") && strstr(buf, "n_lo: none (W = 1)"), "%s", buf);
    cr_assert(strstr(buf, "no prediction: no closed form here"), "%s", buf);
    free(buf);
    rl_report_free(r);
}

/* A window past the longest route: the claim says nothing there (info),
 * whether or not the estimate reached eps. */
Test(exp_mixing, window_past_the_run_is_info)
{
    long grid[4] = { 1, 2, 3, 4 };
    double est[4] = { 0.99, 0.98, 0.97, 0.96 }, low[4] = { 0.5, 0.1, 0.001, 0.0 }, se[4] = { 1e-3, 1e-3, 1e-3, 1e-3 };
    rl_report *r = mixing_report();
    rl_mix_window_row(r, "slow", 0.99, 0.1, grid, est, se, 4, 1024);
    rl_mix_window_row(r, "slow", 0.99, 0.1, grid, low, se, 4, 1024);
    rl_mix_window_row(r, "never", 1.0, 0.1, grid, est, se, 4, 1024);
    rl_verdict v[3];
    cr_assert_eq(row_verdicts(r, v, 3), 3);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(v[i], RL_V_INFO, "row %d: %s", i, rl_verdict_name(v[i]));
    rl_report_free(r);
}

/* Mean route = (mean step)^n: rule agree (|z| <= 5 verified, beyond is
 * contradicted); fixed steps (RoPE's constant law): identity, and a broken
 * product is still caught (contradicted); a NaN z, or no closed form (the
 * norm NaN, even with a z of 0, which fmax used to leave), no prediction. */
Test(exp_mixing, mean_route_row_agree_or_identity)
{
    rl_report *r = mixing_report();
    rl_mix_mean_row(r, "a", 16, 100, 10, 0.5, 3.9, 0);
    rl_mix_mean_row(r, "b", 16, 100, 10, 0.5, 6.1, 0);
    rl_mix_mean_row(r, "c", 16, 100, 10, 1.0, 0.0, 1);
    rl_mix_mean_row(r, "d", 16, 100, 10, 1.0, 50.0, 1);
    rl_mix_mean_row(r, "e", 16, 100, 10, 0.5, NAN, 0);
    rl_mix_mean_row(r, "f", 16, 100, 10, NAN, 0.0, 0);
    rl_verdict v[6];
    cr_assert_eq(row_verdicts(r, v, 6), 6);
    cr_assert_eq(v[0], RL_V_VERIFIED);
    cr_assert_eq(v[1], RL_V_CONTRADICTED);
    cr_assert_eq(v[2], RL_V_IDENTITY);
    cr_assert_eq(v[3], RL_V_CONTRADICTED);
    cr_assert_eq(v[4], RL_V_NOPRED);
    cr_assert_eq(v[5], RL_V_NOPRED);
    rl_report_free(r);
}

/* ---------- the top-up of a window row ---------- */

/* The row of report r as one TSV text (malloc'ed). */
static char *rows_text(rl_report *r)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    rl_report_tsv(r, fp, "mixing");
    fclose(fp);
    return buf;
}

/* The plan from a constructed base run: ||E M|| = 0.5, eps = 0.01 (W = 7),
 * grid 1..16, 1024 replicates, SE 0.005 everywhere, so 6 SE = 0.03 > eps
 * and no length of the base run decides.  Replicates at length n:
 * R(n) = ceil(1024 (6 SE / |0.5^n - eps|)^2); the upper length is the one of
 * least cost R(n) n: 10,187 x 11 = 112,057 against 11,319 x 10 and 9,684 x
 * 12; the lower side needs ceil(1024 (0.03/0.49)^2) = 4 at n = 1, so the
 * need is R(11) = 10,187 and the top-up 1.5 x that = 15,281.  Its lengths
 * are the rule's bracket at the SE of the need, 0.005 sqrt(1024/10187) =
 * 0.00159: n_hi = 11, n_lo = 5 (0.03125 >= 0.01 + 0.0095; 0.0156 is not).
 * A base run that decides (SE 2e-4) plans nothing; a cost over the cap is
 * planned but marked capped. */
Test(exp_mixing, topup_replicates_from_the_base_se)
{
    long grid[16];
    double se[16], small[16];
    for (int g = 0; g < 16; g++)
        grid[g] = g + 1, se[g] = 0.005, small[g] = 0.0002;
    rl_mix_topup tu;
    cr_assert_eq(rl_mix_topup_plan(0.5, 0.01, grid, se, 16, 1024, 2.0, 1e12, &tu), 1);
    const long need = (long)ceil(1024 * pow(0.03 / (0.01 - pow(0.5, 11)), 2));
    cr_assert_eq(need, 10187);
    cr_assert_eq(tu.need, need);
    cr_assert_eq(tu.reps, (long)ceil(1.5 * need));
    cr_assert_eq(tu.ng, 2);
    cr_assert_eq(tu.n[0], 5);
    cr_assert_eq(tu.n[1], 11);
    cr_assert_float_eq(tu.cost, 15281.0 * 11 * 2.0, 1e-6);
    cr_assert_eq(tu.capped, 0);
    cr_assert_eq(rl_mix_topup_plan(0.5, 0.01, grid, se, 16, 1024, 2.0, 1e5, &tu), 1);
    cr_assert_eq(tu.capped, 1);
    cr_assert_eq(rl_mix_topup_plan(0.5, 0.01, grid, small, 16, 1024, 2.0, 1e12, &tu), 0);
    cr_assert_eq(tu.ng, 0);
    /* W = 1 (E M = 0): one upper length, the cheapest (n = 1), no lower side */
    cr_assert_eq(rl_mix_topup_plan(0.0, 0.01, grid, se, 16, 1024, 2.0, 1e12, &tu), 1);
    cr_assert_eq(tu.ng, 1);
    cr_assert_eq(tu.n[0], 1);
    cr_assert_eq(tu.need, (long)ceil(1024 * pow(0.03 / 0.01, 2)));
    /* no window check: past the run, or no closed form */
    cr_assert_eq(rl_mix_topup_plan(0.999, 0.01, grid, se, 16, 1024, 2.0, 1e12, &tu), 0);
    cr_assert_eq(rl_mix_topup_plan(NAN, 0.01, grid, se, 16, 1024, 2.0, 1e12, &tu), 0);
}

/* The base run above leaves the row unresolved by design; the top-up's
 * estimates at n = 5, 11 (SE 0.005 sqrt(1024/15281) = 0.0013) decide it:
 * at the prediction verified, and the row says so; a family that mixes
 * slower than its prediction (|E P_11| = 0.02, 7.7 SE above eps): contradicted;
 * a capped top-up leaves the row unresolved, naming the replicates it needs. */
Test(exp_mixing, topup_decides_an_unresolved_row)
{
    long grid[16];
    double est[16], se[16];
    for (int g = 0; g < 16; g++)
        grid[g] = g + 1, est[g] = pow(0.5, g + 1), se[g] = 0.005;
    rl_mix_topup tu, wrong, capped;
    cr_assert_eq(rl_mix_topup_plan(0.5, 0.01, grid, se, 16, 1024, 2.0, 1e12, &tu), 1);
    cr_assert_eq(rl_mix_topup_plan(0.5, 0.01, grid, se, 16, 1024, 2.0, 1e5, &capped), 1);
    const double s = 0.005 * sqrt(1024.0 / (double)tu.reps);
    tu.est[0] = 0.5 * 0.5 * 0.5 * 0.5 * 0.5, tu.est[1] = pow(0.5, 11), tu.se[0] = tu.se[1] = s;
    wrong = tu;
    wrong.est[1] = 0.02;
    rl_report *r = mixing_report();
    rl_mix_window_row(r, "t", 0.5, 0.01, grid, est, se, 16, 1024);
    rl_mix_window_row_tu(r, "t", 0.5, 0.01, grid, est, se, 16, 1024, &tu);
    rl_mix_window_row_tu(r, "t", 0.5, 0.01, grid, est, se, 16, 1024, &wrong);
    rl_mix_window_row_tu(r, "t", 0.5, 0.01, grid, est, se, 16, 1024, &capped);
    rl_verdict v[4];
    cr_assert_eq(row_verdicts(r, v, 4), 4);
    cr_assert_eq(v[0], RL_V_UNRESOLVED);
    cr_assert_eq(v[1], RL_V_VERIFIED);
    cr_assert_eq(v[2], RL_V_CONTRADICTED);
    cr_assert_eq(v[3], RL_V_UNRESOLVED);
    char *buf = rows_text(r);
    cr_assert(strstr(buf, "top-up: 15281 routes at n = 5, 11") && strstr(buf, "n_lo = 5") &&
                  strstr(buf, "n_hi = 11"), "%s", buf);
    /* the capped row keeps the base run's need, at its longest route n = 16 */
    char nd[64];
    snprintf(nd, sizeof nd, "needs about %ld replicates", (long)ceil(1024 * pow(0.03 / (0.01 - pow(0.5, 16)), 2)));
    cr_assert(strstr(buf, "top-up not run: 15281 routes to n = 11") && strstr(buf, nd), "%s", buf);
    free(buf);
    rl_report_free(r);
}

/* A real top-up (Householder, d = 16: E M = (1 - 2/d) I, W(0.01) = 35,
 * from a constructed base SE of 0.002 on 1..105) writes the same bytes of
 * mixing_windows.tsv at 1 and 2 threads, and measures (1 - 2/d)^n within
 * 5 SE. */
Test(exp_mixing, topup_same_bytes_at_one_and_two_threads)
{
    const rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 16);
    const double nrm = 1 - 2.0 / 16;
    long grid[105];
    double se[105];
    for (int g = 0; g < 105; g++)
        grid[g] = g + 1, se[g] = 0.002;
    char *text[2];
    for (int t = 0; t < 2; t++) {
        rl_mix_topup tu;
        cr_assert_eq(rl_mix_topup_plan(nrm, 0.01, grid, se, 105, 1024, 1.0, 1e12, &tu), 1);
        cr_assert_eq(tu.ng, 2);
        rl_set_threads(t + 1);
        rl_err err;
        cr_assert_eq(rl_mix_topup_run(&f, 1234, 1, 5, &tu, &err), RL_OK, "%s", err.msg);
        for (int g = 0; g < 2; g++)
            cr_assert_leq(fabs(tu.est[g] - pow(nrm, (double)tu.n[g])), 5 * tu.se[g], "n = %ld: %g ± %g", tu.n[g],
                          tu.est[g], tu.se[g]);
        char *dir = th_tmpdir(), path[1024];
        rl_outdir out = { dir };
        rl_tsv *w = rl_tsv_open(&out, "mixing_windows.tsv", "family\teps\tn\treps\testimate\tse\tpredicted");
        rl_mix_topup_rows(w, "householder", 0.01, nrm, &tu);
        rl_tsv_close(w);
        snprintf(path, sizeof path, "%s/mixing_windows.tsv", dir);
        FILE *fp = fopen(path, "r");
        cr_assert(fp);
        text[t] = calloc(1, 1 << 16);
        fread(text[t], 1, (1 << 16) - 1, fp);
        fclose(fp);
        th_rmdir(dir);
        free(dir);
    }
    cr_assert(strstr(text[0], "householder\t0.01\t"), "%s", text[0]);
    cr_assert_str_eq(text[0], text[1]);
    free(text[0]);
    free(text[1]);
}

/* The running worst keeps a NaN (fmax would drop it). */
Test(exp_mixing, worst_keeps_nan)
{
    cr_assert(isnan(rl_worst(0, NAN)));
    cr_assert(isnan(rl_worst(NAN, 3)));
    cr_assert(isnan(fmax(0, NAN)) == 0);
    cr_assert_eq(rl_worst(2, 3), 3);
    cr_assert_eq(rl_worst(3, -INFINITY), 3);
}

/* The study's blocks: z against (sin w/w)^n with a 1e-9 rounding floor. */
Test(exp_mixing, block_z_has_a_rounding_floor)
{
    cr_assert_eq(rl_mix_z(0.5, 0.5 + 5e-10, 1e-12), 0);
    cr_assert_float_eq(rl_mix_z(0.5, 0.4, 0.01), (0.1 - 1e-9) / 0.01, 1e-9);
    cr_assert_gt(rl_mix_z(0.5, 0.4, 0), 1e300);
    cr_assert(isnan(rl_mix_z(NAN, 0.4, 0.01)));
}

/* Positive drift: "drift mixes at the zero-mean rate" is a reading of ours,
 * info however the moduli compare (the old report counted it, inverted, as
 * a failure); its phase n w against the exact law is evidence (agree). */
Test(exp_mixing, drift_rows_info_and_phase_agree)
{
    const long grid[3] = { 1, 2, 4 };
    double complex u[3], d[3], bad[3], far[3];
    double se[3] = { 0.01, 0.01, 0.01 };
    for (int g = 0; g < 3; g++) {
        double c = pow(sin(1.0) / 1.0, (double)grid[g]);
        u[g] = c;
        d[g] = c * cexp(I * (double)grid[g]);
        bad[g] = c * cexp(I * (0.5 * grid[g]));   /* phase n w / 2: wrong law */
        far[g] = 0.5 * d[g];                      /* a modulus far from the uniform law's */
    }
    rl_report *r = mixing_report();
    rl_mix_drift_rows(r, grid, 3, u, se, d, se);
    rl_mix_drift_rows(r, grid, 3, u, se, bad, se);
    rl_mix_drift_rows(r, grid, 3, u, se, far, se);
    rl_verdict v[6];
    cr_assert_eq(row_verdicts(r, v, 6), 6);
    cr_assert_eq(v[0], RL_V_INFO);
    cr_assert_eq(v[1], RL_V_VERIFIED);
    cr_assert_eq(v[2], RL_V_INFO);
    cr_assert_eq(v[3], RL_V_CONTRADICTED);
    cr_assert_eq(v[4], RL_V_INFO);
    cr_assert_eq(v[5], RL_V_VERIFIED);
    rl_report_free(r);
}

/* Text-driven steps are not independent: the windows are a reading, info
 * even when the two contexts disagree. */
Test(exp_mixing, text_rows_are_info)
{
    rl_report *r = mixing_report();
    rl_mix_text_row(r, 0, 19, 19, 14);
    rl_mix_text_row(r, 1, 19, 400, 14);
    rl_verdict v[2];
    cr_assert_eq(row_verdicts(r, v, 2), 2);
    cr_assert_eq(v[0], RL_V_INFO);
    cr_assert_eq(v[1], RL_V_INFO);
    rl_report_free(r);
}

/* The summarise step on a hand-built run of one Haar family at d = 4 (E M =
 * 0, so (mean step)^n = 0 at every n): the worst |z| of the mean route is
 * the largest |tr P_n / d| / SE, and W(0.1) = 1 is bracketed at n = 1 with
 * x = (0.01 - 0.1) / 0.01; the parts left NULL are left out. */
Test(exp_mixing, summarise_a_hand_built_family)
{
    long grid[3] = { 1, 2, 4 };
    double tr[3] = { 0.01, -0.02, 0.003 }, se[3] = { 0.01, 0.01, 0.01 }, zero[3] = { 0 };
    rl_route_stats st = { .ng = 3, .n = grid, .reps = 100, .tr = tr, .tr_se = se, .op = zero, .coh = zero,
                          .coh_se = zero, .sq = zero, .sq_se = zero };
    rl_mix_res *R = calloc(1, sizeof *R);
    R->z.reps = 100;
    R->nfam = 1;
    R->fam[0] = (rl_mix_fam){ .sp = { "haar", rl_family_default(RL_FAM_HAAR, 4), 0 }, .nmax = 4, .grid = grid,
                              .ng = 3, .st = &st };
    rl_mix_summary *S = calloc(1, sizeof *S);
    rl_mixing_summarise(R, S);
    const rl_mix_fam_sum *o = &S->fam[0];
    cr_assert(o->has_mean && o->windows);
    cr_assert_float_eq(o->worst_z, 2.0, 1e-12);
    cr_assert_float_eq(o->pt[1].norm, 0.02, 1e-15, "the window's statistic is |tr P_n| / d");
    cr_assert_eq(o->pt[1].norm_pred, 0.0);
    cr_assert_eq(o->win[0].wp, 1);
    cr_assert_eq(o->win[0].n_hi, 1);
    cr_assert_eq(o->win[0].need, 0);
    cr_assert_float_eq(o->win[0].x, -9.0, 1e-9);
    cr_assert_eq(S->has_tokens, 0);
    cr_assert_eq(S->has_drift, 0);
    cr_assert_eq(S->study[0].nb, 0);
    rl_mixing_summary_free(S);
    free(S);
    free(R);
}
