/* test_exp_mixstay.c: the claim "mix or stay" (experiments/mixstay.c): its
 * files, the same bytes at one and two threads, the CPU head it uses, and
 * the verdict of each kind of row on hand-built measurements. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/claims.h"
#include "../experiments/mixstay.h"
#include "../program/report/report.h"
#include "../program/reproduce/preset.h"
#include "helpers.h"

Test(exp_mixstay, cli_writes_every_file_and_the_same_bytes, .timeout = 300)
{
    const char *files[] = { "mixstay.md", "mixstay_blocks.tsv", "mixstay_scores.tsv", "mixstay_curves.tsv",
                            "mixstay_mc.tsv", "mixstay_blocks.png", "mixstay_curves.png", NULL };
    const char *same[] = { "mixstay_blocks.tsv", "mixstay_scores.tsv", "mixstay_curves.tsv", "mixstay_mc.tsv", NULL };
    th_cli_quick("mixstay", files, same);
}

Test(exp_mixstay, bad_flags_exit_2)
{
    char err[1024];
    cr_assert_eq(th_run("mixstay --preset huge", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("mixstay --seed", NULL, 0, err, sizeof err), 2);
    cr_assert_eq(th_run("mixstay --text README.md", NULL, 0, err, sizeof err), 2);
}

/* The claim's CPU head is the cpu preset's (width / heads, ctx): written
 * twice (experiments may not include reproduce), checked here. */
Test(exp_mixstay, the_cpu_head_is_the_cpu_presets)
{
    rl_grid g;
    rl_err err;
    cr_assert_eq(rl_grid_preset("cpu", &g, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(g.train.width / g.train.heads, RL_MIXSTAY_CPU_D);
    cr_expect_eq(g.train.ctx, RL_MIXSTAY_CPU_T);
    cr_expect(g.matched, "the cpu preset trains at the matched base the claim recomputes");
    double base;
    cr_assert_eq(rl_mixstay_cpu_base(&base, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(base, g.train.rot_base, "the claim's base %.17g, the grid's %.17g", base, g.train.rot_base);
}

static rl_report *report(void)
{
    rl_report *r = rl_report_alloc("mixstay");
    rl_report_rules(r, rl_claim_find("mixstay")->rules);
    return r;
}

/* Monte Carlo rows: within 5 SE verified, beyond contradicted (a wrong
 * closed form), constant steps identity (no noise: a broken arithmetic is
 * contradicted), a NaN prediction no prediction. */
Test(exp_mixstay, mc_rows_decide_both_ways)
{
    rl_report *r = report();
    rl_mixstay_mc_row(r, RL_ANG_UNIFORM, 3, 0.1, 1000, 63, 0.02, 0.0203, 0.001, 32, 256);
    rl_mixstay_mc_row(r, RL_ANG_DRIFT, 3, 0.1, 1000, 63, 0.02, 0.0303, 0.001, 32, 256);
    rl_mixstay_mc_row(r, RL_ANG_CONSTANT, 3, 0.1, 1000, 63, 0.02, 0.02, 1e-18, 32, 256);
    rl_mixstay_mc_row(r, RL_ANG_CONSTANT, 3, 0.1, 1000, 63, 0.02, 0.03, 1e-18, 32, 256);
    rl_mixstay_mc_row(r, RL_ANG_GAUSS, 3, 0.1, 1000, 63, NAN, 0.02, 0.001, 32, 256);
    const rl_verdict want[] = { RL_V_VERIFIED, RL_V_CONTRADICTED, RL_V_IDENTITY, RL_V_CONTRADICTED, RL_V_NOPRED };
    cr_assert_eq(rl_report_nchecks(r), 5);
    for (int i = 0; i < 5; i++)
        cr_expect_eq(rl_report_verdict(r, i), want[i], "row %d: %s", i, rl_verdict_name(rl_report_verdict(r, i)));
    rl_report_free(r);
}

/* The equal-|chi| row is an identity (a broken construction is
 * contradicted); the score rows are info whatever the numbers. */
Test(exp_mixstay, identity_and_info_rows)
{
    rl_report *r = report();
    const double u[2] = { 0.08, 0.09 }, p[2] = { 0.3, 0.31 };
    rl_mixstay_chi_row(r, "head", 1e-16);
    rl_mixstay_chi_row(r, "head", 1e-3);
    rl_mixstay_score_row(r, "head", 16, u, p);
    rl_mixstay_score_row(r, "head", 16, p, u);
    const rl_verdict want[] = { RL_V_IDENTITY, RL_V_CONTRADICTED, RL_V_INFO, RL_V_INFO };
    for (int i = 0; i < 4; i++)
        cr_expect_eq(rl_report_verdict(r, i), want[i], "row %d", i);
    rl_report_free(r);
}

/* The summarise step on a hand-built run: a head of d = 4 at base 10000
 * (block 0 at omega = 1), so |chi_b(1)| is |sin 1| for the zero-mean and the
 * positive law alike and 1 for constant steps; a Monte Carlo check 0.1 from
 * its closed form at SE 0.02 is |z| = 5 (less the 1e-9 rounding floor). */
Test(exp_mixstay, summarise_a_hand_built_run)
{
    rl_ms_res *R = calloc(1, sizeof *R);
    R->reg[0] = (rl_ms_regime){ .name = "hand", .d = 4, .t = 4, .base = 10000 };
    R->cb[0] = 0;
    R->cb[1] = 1;
    R->mc[0] = (rl_ms_mc){ .pred = 0.2, .mean = 0.3, .se = 0.02 };
    rl_ms_summary S;
    rl_mixstay_summarise(R, &S);
    cr_assert_float_eq(S.reg[0].omega[0], 1.0, 1e-15);
    cr_assert_float_eq(S.curve_omega[0], 1.0, 1e-15);
    cr_assert_float_eq(S.curve_omega[1], 0.01, 1e-15);
    cr_assert_float_eq(S.reg[0].chi1[0][0], sin(1.0), 1e-12, "uniform U(-1, 1): sin 1");
    cr_assert_float_eq(S.reg[0].chi1[1][0], sin(1.0), 1e-12, "drift U(0, 2): the same modulus");
    cr_assert_float_eq(S.reg[0].chi1[4][0], 1.0, 1e-12, "constant steps: |e^{i omega}| = 1");
    cr_assert_float_eq(S.z[0], 5.0, 1e-6);
    cr_assert_eq(S.reg[1].omega[0], 0.0, "a head left empty has no blocks");
    free(R);
}
