/* test_verdict.c: the verdict kinds and decision rules (program/report/verdict.h,
 * program/report/report.h, the rules of experiments/claims.c) and claim 2's
 * hypothesis at a length (rl_moment2_unmet).  Each rule is driven to each of
 * its outcomes by a constructed statistic: a rule that could not come out
 * the other way would fail here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/claims.h"
#include "../program/report/report.h"
#include "../program/report/verdict.h"
#include "../theory/moment2.h"
#include "../theory/theory.h"
#include "helpers.h"

Test(verdict, names)
{
    cr_assert_str_eq(rl_verdict_name(RL_V_HOLDS), "holds");
    cr_assert_str_eq(rl_verdict_name(RL_V_VERIFIED), "verified");
    cr_assert_str_eq(rl_verdict_name(RL_V_CONTRADICTED), "contradicted");
    cr_assert_str_eq(rl_verdict_name(RL_V_UNRESOLVED), "unresolved");
    cr_assert_str_eq(rl_verdict_name(RL_V_NOPRED), "no prediction");
    cr_assert_str_eq(rl_verdict_name(RL_V_HYPOTHESIS), "hypothesis not met");
    cr_assert_str_eq(rl_verdict_name(RL_V_IDENTITY), "identity");
    cr_assert_str_eq(rl_verdict_name(RL_V_INFO), "info");
    cr_assert_str_eq(rl_verdict_name(RL_V_ABSENT), "absent at this scale");
    cr_assert_str_eq(rl_verdict_name(RL_NVERDICT), "?");
}

/* effect: four outcomes on x, x_lo, x_hi; absent is decided first (a
 * significant but tiny effect), NaN anywhere is unresolved; on one x the
 * kind reads as sign. */
Test(verdict, rule_effect_four_outcomes)
{
    cr_assert_str_eq(rl_rule_effect.id, "effect");
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 0.0, 5.0, -5.0), RL_V_ABSENT);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 4.0, 9.0, -3.0), RL_V_ABSENT);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 4.0, 9.0, -2.9), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 3.0, 5.0, 1.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, -3.0, 2.9, -5.0), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 2.9, 4.0, 1.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 0.0, 2.9, -2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, INFINITY, INFINITY, -INFINITY), RL_V_ABSENT);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, NAN, 5.0, -5.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 4.0, NAN, 1.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 0.0, 5.0, NAN), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_effect, 3.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_effect, -3.0), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_effect, NAN), RL_V_UNRESOLVED);
    /* another kind through the effect entry point reads x alone */
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_sign, 4.0, NAN, NAN), RL_V_HOLDS);
}

/* The phrase of counts: a kind with count 0 adds nothing, absent is named. */
Test(verdict, kinds_phrase_absent)
{
    char buf[256];
    int n[RL_NVERDICT] = { 0 };
    n[RL_V_HOLDS] = 2;
    n[RL_V_UNRESOLVED] = 1;
    cr_assert_str_eq(rl_report_kinds_phrase(n, buf, sizeof buf), "2 hold, 1 unresolved");
    n[RL_V_ABSENT] = 1;
    cr_assert_str_eq(rl_report_kinds_phrase(n, buf, sizeof buf), "2 hold, 1 unresolved, 1 absent at this scale");
}

/* agree: a verification; |z| <= 5 either side verified; beyond (a
 * difference with SE 0 included) contradicted; NaN, nothing compared, no
 * prediction: never a verdict. */
Test(verdict, rule_agree_both_outcomes)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, 0.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, 5.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, -5.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, 5.01), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, -5.01), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, NAN), RL_V_NOPRED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, INFINITY), RL_V_CONTRADICTED);
}

/* bound: one-sided; far below the bound verified, 5 SE above does not;
 * +-inf (SE 0) decides by its sign, NaN is no prediction. */
Test(verdict, rule_bound_one_sided)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, -100.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, 5.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, 5.01), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, -INFINITY), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, INFINITY), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_bound, NAN), RL_V_NOPRED);
}

/* sign: three outcomes; z = 4 in the predicted direction holds, z = 2.9 is
 * unresolved (not a failure, not a hold), the opposite sign contradicts. */
Test(verdict, rule_sign_three_outcomes)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 4.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 3.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 0.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, -2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, -3.0), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, NAN), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, rl_effect_z(1e-30, 0)), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, rl_effect_z(-1e-30, 0)), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, rl_effect_z(0, 0)), RL_V_UNRESOLVED);
    cr_assert_float_eq(rl_effect_z(1.0, 0.25), 4.0, 1e-15);
}

/* An effect over n repeats: t read through Student's tail with n - 1 df. */
Test(verdict, effect_over_repeats_is_student)
{
    /* t = 12.71 with 1 df is the 2.5 % tail: z = 1.96 */
    cr_assert_lt(fabs(rl_effect_z_repeats(12.706204736, 1, 2) - 1.959964), 1e-5);
    cr_assert_lt(fabs(rl_effect_z_repeats(-12.706204736, 1, 2) + 1.959964), 1e-5);
    /* many repeats: the normal law */
    cr_assert_lt(fabs(rl_effect_z_repeats(3.0, 1, 100000) - 3.0), 1e-3);
    /* 8 fits: t = 3 is z = 2.36, unresolved; t = 6 decides */
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, rl_effect_z_repeats(3.0, 1, 8)), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, rl_effect_z_repeats(6.0, 1, 8)), RL_V_HOLDS);
    cr_assert(isnan(rl_effect_z_repeats(1, 1, 1)));
    cr_assert(isinf(rl_effect_z_repeats(1, 0, 3)));
    cr_assert(fabs(rl_effect_z_repeats(1e-3, 1, 5)) < 1e-3);
}

/* below: a quantity under a threshold the noise may hide. */
Test(verdict, rule_below_three_outcomes)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_below, -3.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_below, -2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_below, 3.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_below, 3.1), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_below, NAN), RL_V_UNRESOLVED);
}

/* agree-n: x = max |z| - 5, NaN (too few replicates to form z) unresolved. */
Test(verdict, rule_agree_n_three_outcomes)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_agree_n, -0.1), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree_n, 0.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree_n, 0.1), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree_n, NAN), RL_V_UNRESOLVED);
}

Test(verdict, rule_exact)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_exact, 1), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_exact, 0), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_exact, NAN), RL_V_NOPRED);
}

/* window: the bracket statistic at the 3 standard, a verification: x <= -3
 * verified, x > 3 contradicted, between unresolved, NaN (no length where the
 * prediction is 6 SE from eps) unresolved, never a pass. */
Test(verdict, rule_window_three_outcomes)
{
    cr_assert_str_eq(rl_rule_window.id, "window");
    cr_assert_eq(rl_rule_decide(&rl_rule_window, -3.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_window, -2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_window, 3.0), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_window, 3.1), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_window, NAN), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_window, -INFINITY), RL_V_VERIFIED);
}

/* Each rule's evidence is fixed in the table: the verifications of closed
 * forms and bounds pass as verified, the empirical claims as holds; the
 * effect rule's pass too is a hold. */
Test(verdict, rules_have_their_evidence)
{
    const rl_rule *verify[] = { &rl_rule_agree, &rl_rule_bound, &rl_rule_exact, &rl_rule_agree_n, &rl_rule_window };
    const rl_rule *claim[] = { &rl_rule_sign, &rl_rule_below, &rl_rule_effect, &rl_rule_rank };
    for (size_t i = 0; i < sizeof verify / sizeof *verify; i++)
        cr_assert_eq(verify[i]->evidence, RL_EV_VERIFY, "%s", verify[i]->id);
    for (size_t i = 0; i < sizeof claim / sizeof *claim; i++)
        cr_assert_eq(claim[i]->evidence, RL_EV_CLAIM, "%s", claim[i]->id);
    cr_assert_eq(rl_rule_decide_effect(&rl_rule_effect, 4.0, 9.0, -2.9), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_below, -4.0), RL_V_HOLDS);
    /* the same kind of rule with the other evidence: only the pass differs */
    const rl_rule band_claim = { "t", RL_RULE_BAND, 3, "t", RL_EV_CLAIM };
    const rl_rule band_verify = { "t", RL_RULE_BAND, 3, "t", RL_EV_VERIFY };
    cr_assert_eq(rl_rule_decide(&band_claim, -4.0), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&band_verify, -4.0), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&band_claim, 4.0), rl_rule_decide(&band_verify, 4.0));
    cr_assert_eq(rl_rule_decide(&band_claim, 0.0), rl_rule_decide(&band_verify, 0.0));
}

/* The running worst of statistics keeps NaN (fmax drops it). */
Test(verdict, worst_keeps_nan)
{
    cr_assert_eq(rl_worst(1.0, 2.0), 2.0);
    cr_assert_eq(rl_worst(2.0, -INFINITY), 2.0);
    cr_assert(isnan(rl_worst(0.0, NAN)));
    cr_assert(isnan(rl_worst(NAN, 7.0)));
    /* the bug it replaces: the maximum of 0 and a z without a prediction */
    cr_assert_eq(fmax(0.0, NAN), 0.0);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_worst(0.0, NAN)), RL_V_NOPRED);
}

/* Every claim's row names at least one rule, each one of the table's. */
Test(verdict, claims_name_their_rules)
{
    const rl_rule *known[] = { &rl_rule_agree, &rl_rule_bound, &rl_rule_sign,    &rl_rule_below,
                               &rl_rule_exact, &rl_rule_agree_n, &rl_rule_window };
    for (int i = 0; i < rl_nclaims; i++) {
        cr_assert(rl_claims[i].rules && rl_claims[i].rules[0], "%s names no rule", rl_claims[i].id);
        for (const rl_rule *const *p = rl_claims[i].rules; *p; p++) {
            int ok = 0;
            for (size_t k = 0; k < sizeof known / sizeof *known; k++)
                ok |= *p == known[k];
            cr_assert(ok, "%s: unknown rule", rl_claims[i].id);
            cr_assert(strlen((*p)->text) > 20);
        }
    }
}

static const rl_rule *const only_agree[] = { &rl_rule_agree, NULL };
static const rl_rule *const agree_sign[] = { &rl_rule_agree, &rl_rule_sign, NULL };

/* The section's markdown and TSV for one check of every kind a report
 * makes (absent at this scale is the orderings', program/reproduce/order.h). */
static char *render(int tsv)
{
    rl_report *r = rl_report_alloc("t");
    rl_report_rules(r, agree_sign);
    rl_report_decide(r, &rl_rule_sign, 4.0, NULL, "s", "p", "m");              /* holds */
    rl_report_decide(r, &rl_rule_sign, 0.0, NULL, "u", "p", "m");              /* unresolved */
    rl_report_decide(r, &rl_rule_agree, 1.0, NULL, "a", "p", "m");             /* verified */
    rl_report_decide(r, &rl_rule_agree, 9.0, NULL, "b", "p", "m");             /* contradicted */
    rl_report_decide(r, &rl_rule_agree, 9.0, "rate^n > 1/d", "c", "p", "m");  /* hypothesis not met */
    rl_report_decide(r, &rl_rule_agree, NAN, NULL, "n", "p", "m");             /* no prediction */
    rl_report_decide_pred(r, &rl_rule_agree, NAN, 0.0, NULL, "q", "p", "m");   /* no prediction */
    rl_report_identity(r, 1, "d", "p", "m");
    rl_report_identity(r, 0, "e", "p", "m"); /* a broken identity is contradicted */
    rl_report_info(r, "f", "p", "m");
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (tsv)
        rl_report_tsv(r, fp, "x");
    else
        rl_report_markdown(r, fp);
    fclose(fp);
    int k[RL_NVERDICT];
    rl_report_kinds(r, k);
    cr_assert_eq(k[RL_V_HOLDS], 1);
    cr_assert_eq(k[RL_V_VERIFIED], 1);
    cr_assert_eq(k[RL_V_CONTRADICTED], 2);
    cr_assert_eq(k[RL_V_UNRESOLVED], 1);
    cr_assert_eq(k[RL_V_NOPRED], 2);
    cr_assert_eq(k[RL_V_HYPOTHESIS], 1);
    cr_assert_eq(k[RL_V_IDENTITY], 1);
    cr_assert_eq(k[RL_V_INFO], 1);
    cr_assert_eq(k[RL_V_ABSENT], 0);
    rl_report_free(r);
    return buf;
}

Test(verdict, report_counts_kinds)
{
    char *md = render(0);
    cr_assert(strstr(md, "Verdicts: 1 holds, 1 verified, 2 contradicted, 1 unresolved, 2 no prediction, 1 hypothesis "
                         "not met, 1 identity (not counted), 1 info."),
              "%s", md);
    cr_assert(strstr(md, "| c | p | m (hypothesis not met: rate^n > 1/d) | hypothesis not met | agree |"), "%s", md);
    cr_assert(strstr(md, "| n | p | m (no prediction: the statistic is not finite) | no prediction | agree |"), "%s", md);
    cr_assert(strstr(md, "| q | p | m (no prediction: no closed form here) | no prediction | agree |"), "%s", md);
    cr_assert(strstr(md, "the identity fails") && strstr(md, "| d | p | m | identity | – |"), "%s", md);
    cr_assert(strstr(md, "- *agree*: ") && strstr(md, "- *sign*: "), "rules not listed: %s", md);
    free(md);
    char *t = render(1);
    cr_assert(strstr(t, "x\tholds\tsign\ts\tp\tm\n"), "%s", t);
    cr_assert(strstr(t, "x\tverified\tagree\ta\tp\tm\n"), "%s", t);
    cr_assert(strstr(t, "x\tno prediction\tagree\tq\tp\tm (no prediction: no closed form here)\n"), "%s", t);
    cr_assert(strstr(t, "x\tidentity\t-\td\tp\tm\n"), "%s", t);
    int lines = 0;
    for (char *p = t; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 10);
    free(t);
}

/* No prediction comes before the rule (a non-finite prediction is never a
 * verdict, whatever x says: 0 would pass, 9 would fail), after the
 * hypothesis (which is decided by the parameters alone); infinities too. */
Test(verdict, no_prediction_is_never_a_verdict)
{
    rl_report *r = rl_report_alloc("t");
    rl_report_rules(r, only_agree);
    rl_report_decide_pred(r, &rl_rule_agree, NAN, 0.0, NULL, "a", "p", "m");
    rl_report_decide_pred(r, &rl_rule_agree, INFINITY, 9.0, NULL, "b", "p", "m");
    rl_report_decide_pred(r, &rl_rule_agree, -INFINITY, 0.0, NULL, "c", "p", "m");
    rl_report_decide_pred(r, &rl_rule_agree, NAN, 0.0, "unmixed", "d", "p", "m");
    rl_report_decide_pred(r, &rl_rule_agree, 0.3, 0.0, NULL, "e", "p", "m");
    rl_report_decide_pred(r, &rl_rule_agree, 0.3, 9.0, NULL, "f", "p", "m");
    const rl_verdict want[6] = { RL_V_NOPRED, RL_V_NOPRED, RL_V_NOPRED, RL_V_HYPOTHESIS, RL_V_VERIFIED,
                                 RL_V_CONTRADICTED };
    cr_assert_eq(rl_report_nchecks(r), 6);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(rl_report_verdict(r, i), want[i], "row %d: %s", i, rl_verdict_name(rl_report_verdict(r, i)));
    rl_report_free(r);
}

/* The phrase names the new kinds, singular and plural alike. */
Test(verdict, kinds_phrase_verified_and_no_prediction)
{
    char buf[256];
    int n[RL_NVERDICT] = { 0 };
    n[RL_V_VERIFIED] = 1;
    n[RL_V_NOPRED] = 1;
    cr_assert_str_eq(rl_report_kinds_phrase(n, buf, sizeof buf), "1 verified, 1 no prediction");
    n[RL_V_HOLDS] = 3;
    n[RL_V_VERIFIED] = 20;
    n[RL_V_NOPRED] = 2;
    cr_assert_str_eq(rl_report_kinds_phrase(n, buf, sizeof buf), "3 hold, 20 verified, 2 no prediction");
}

static void decide_undeclared(void *arg)
{
    (void)arg;
    rl_report *r = rl_report_alloc("t");
    rl_report_rules(r, only_agree);
    rl_report_decide(r, &rl_rule_agree, 4.0, NULL, "a", "p", "m"); /* declared: fine */
    rl_report_decide(r, &rl_rule_sign, 4.0, NULL, "a", "p", "m");
}

/* A rule the claim's row does not name is refused: one line on stderr, exit
 * 1 (in a child process: the refusal ends the process). */
Test(verdict, undeclared_rule_refused)
{
    char err[512];
    cr_assert_eq(th_in_child(decide_undeclared, NULL, err, sizeof err), 1);
    cr_assert(strstr(err, "rule \"sign\", which its claim's row does not name"), "%s", err);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "not one line: %s", err);
}

/* Claim 2's hypothesis: rate^n <= 1/d, met exactly from n = W2(1/d). */
Test(verdict, moment2_unmet_boundary)
{
    char buf[256];
    cr_assert_null(rl_moment2_unmet(0.0, 16, 1, buf, sizeof buf)); /* Haar */
    cr_assert_not_null(rl_moment2_unmet(1.0, 16, 1000000000L, buf, sizeof buf)); /* +-I: never */
    cr_assert(strstr(buf, "every n"), "%s", buf);
    cr_assert_not_null(rl_moment2_unmet(NAN, 16, 10, buf, sizeof buf));
    cr_assert(strstr(buf, "no second-moment certificate"), "%s", buf);
    const double rate = 0.6; /* Householder at d = 8 */
    long w = rl_mixing_window(rate, 1.0 / 8);
    cr_assert_eq(w, 5); /* 0.6^4 = 0.1296 > 1/8 >= 0.6^5 = 0.0778 */
    cr_assert_null(rl_moment2_unmet(rate, 8, w, buf, sizeof buf));
    cr_assert_not_null(rl_moment2_unmet(rate, 8, w - 1, buf, sizeof buf));
    cr_assert(strstr(buf, "met from n = 5"), "%s", buf);
}

/* What would decide an unresolved effect: the least number of repeats at
 * which the same mean, its SE shrinking as 1/sqrt(n), reaches |z| = 3. */
Test(verdict, repeats_needed_is_the_least)
{
    const double mean = 0.293, se = 0.261;
    const long need = rl_effect_repeats_needed(mean, se, 8, 3, 100000);
    cr_assert_gt(need, 8);
    cr_assert_geq(fabs(rl_effect_z_repeats(mean, se * sqrt(8.0 / need), (int)need)), 3);
    cr_assert_lt(fabs(rl_effect_z_repeats(mean, se * sqrt(8.0 / (need - 1)), (int)need - 1)), 3);
    /* the other sign needs as many */
    cr_assert_eq(rl_effect_repeats_needed(-mean, se, 8, 3, 100000), need);
    /* nothing decides a mean of 0, an SE of 0 or NaN, or within nmax */
    cr_assert_eq(rl_effect_repeats_needed(0, se, 8, 3, 100000), -1);
    cr_assert_eq(rl_effect_repeats_needed(mean, NAN, 8, 3, 100000), -1);
    cr_assert_eq(rl_effect_repeats_needed(NAN, se, 8, 3, 100000), -1);
    cr_assert_eq(rl_effect_repeats_needed(mean, se, 8, 3, need - 1), -1);
    cr_assert_eq(rl_effect_repeats_needed(mean, se, 8, 3, need), need);
}
