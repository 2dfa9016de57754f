/* test_exp_farmass.c: the far-mass accumulator, the stylized walk and `routelab farmass`. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mc/farmass_walk.h"
#include "../mc/softmax_mass.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "helpers.h"

/* Near logits +lambda and far -lambda meet the lower bound exactly; equal
 * logits give M/(M+K) and, with ALiBi, the geometric closed form at lambda = 0.
 * A near/far boundary off by one would change rho at every M by a factor
 * ~ e^{2 lambda}/K. */
Test(exp_farmass, extremal_and_equal_logits_match_closed_forms)
{
    const double lam[2] = { 0.5, 3.0 }, slope[2] = { 0.3, 0.01 };
    const int K = 4;
    rl_mass_spec *sp = rl_mass_spec_alloc(K, 2, lam, 2, slope, 300);
    rl_mass *ext = rl_mass_alloc(sp), *eq = rl_mass_alloc(sp);
    rl_mass_reset(ext);
    rl_mass_reset(eq);
    for (long delta = 1; delta <= 300; delta++) {
        rl_mass_add(ext, delta, delta <= K ? 1.0 : -1.0);
        rl_mass_add(eq, delta, 1.0);
        if (delta <= K)
            continue;
        double M = (double)(delta - K);
        for (int l = 0; l < 2; l++) {
            cr_assert_float_eq(rl_mass_rho(ext, l, 0), rl_farmass_lower(M, K, lam[l]), 1e-14, "M = %g", M);
            cr_assert_float_eq(rl_mass_rho(eq, l, 0), M / (M + K), 1e-14);
            for (int c = 1; c <= 2; c++)
                cr_assert_float_eq(rl_mass_rho(eq, l, c), rl_farmass_alibi(M, K, 0, slope[c - 1], 0), 1e-14);
        }
    }
    rl_mass_free(ext);
    rl_mass_free(eq);
    rl_mass_spec_free(sp);
}

/* Householder chain: every replicate respects the bound; far scores are
 * Haar-like (E s^2 = 1/d). */
Test(exp_farmass, householder_walk_respects_bound_and_far_scores_are_haar_like)
{
    const int d = 16, K = 8, ng = 3;
    const long grid[3] = { 64, 512, 2048 };
    const double lam[3] = { 1, 2, 4 };
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, d);
    rl_mass_spec *sp = rl_mass_spec_alloc(K, 3, lam, 0, NULL, 2048);
    rl_mass *acc = rl_mass_alloc(sp);
    rl_chain *ch = rl_chain_alloc(&f, 1);
    gsl_rng *r = rl_rng_alloc();
    double q[16], rho[3 * 3], mom[2];
    th_acc s2 = { 0 };
    for (long rep = 0; rep < 200; rep++) {
        rl_rng_stream(r, 5, (uint64_t)rep);
        rl_farmass_walk(&f, ch, r, q, acc, grid, ng, 512, rho, mom, NULL);
        for (int g = 0; g < ng; g++)
            for (int l = 0; l < 3; l++)
                cr_assert_geq(rho[g * 3 + l] - rl_farmass_lower((double)(grid[g] - K), K, lam[l]), -1e-12);
        th_add(&s2, mom[1]);
    }
    cr_assert_lt(fabs(s2.mean - 1.0 / d), 5 * th_se(&s2), "E s^2 = %g +- %g, Haar %g", s2.mean, th_se(&s2), 1.0 / d);
    gsl_rng_free(r);
    rl_chain_free(ch);
    rl_mass_free(acc);
    rl_mass_spec_free(sp);
}

/* SO(2) uniform angles, d = 4: the mean far score over delta = 4..8 is
 * (1/5) sum_delta (1/2) sum_b (sin w_b / w_b)^delta (E w_b = 2/d); a route one
 * step too long or too short changes it by ~16%. NoPE: rho = M/(M+K). */
Test(exp_farmass, so2_far_score_follows_route_length)
{
    rl_family f = rl_family_default(RL_FAM_SO2, 4);
    f.base = 4; /* w = 1, 1/2 */
    const long grid[2] = { 5, 8 };
    const double lam[1] = { 1 };
    rl_mass_spec *sp = rl_mass_spec_alloc(2, 1, lam, 0, NULL, 8);
    rl_mass *acc = rl_mass_alloc(sp);
    rl_chain *ch = rl_chain_alloc(&f, 1);
    gsl_rng *r = rl_rng_alloc();
    double q[4], rho[2], mom[2];
    th_acc s1 = { 0 };
    for (long rep = 0; rep < 40000; rep++) {
        rl_rng_stream(r, 6, (uint64_t)rep);
        rl_farmass_walk(&f, ch, r, q, acc, grid, 2, 4, rho, mom, NULL);
        th_add(&s1, mom[0]);
    }
    double pred = 0;
    for (int delta = 4; delta <= 8; delta++)
        pred += 0.5 * (pow(sin(1.0), delta) + pow(sin(0.5) / 0.5, delta)) / 5;
    cr_assert_lt(fabs(s1.mean - pred), 5 * th_se(&s1), "mean far score %g +- %g, predicted %g", s1.mean, th_se(&s1), pred);
    rl_farmass_walk(NULL, ch, r, q, acc, grid, 2, 4, rho, mom, NULL);
    cr_assert_float_eq(rho[0], 3.0 / 5.0, 1e-15);
    cr_assert_float_eq(rho[1], 6.0 / 8.0, 1e-15);
    gsl_rng_free(r);
    rl_chain_free(ch);
    rl_mass_free(acc);
    rl_mass_spec_free(sp);
}

Test(exp_farmass, cli_writes_every_promised_file, .timeout = 240)
{
    const char *files[] = { "farmass.md", "farmass.tsv", "farmass_extremal.tsv", "farmass_scores.tsv",
                            "farmass_half.tsv", "farmass_alibi.tsv", "farmass_families.png", "farmass_alibi.png",
                            "farmass_looseness.png", NULL };
    const char *same[] = { "farmass.tsv", "farmass_scores.tsv", NULL };
    th_cli_quick("farmass", files, same);
}

Test(exp_farmass, bad_flags_exit_2)
{
    char err[1024];
    cr_assert_eq(th_run("farmass --preset huge", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("farmass --no-such-flag", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("farmass --threads 0", NULL, 0, err, sizeof err), 2);
}
