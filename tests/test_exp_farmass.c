/* test_exp_farmass.c: the far-mass accumulator, the stylized walk and `routelab farmass`. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/claims.h"
#include "../experiments/farmass.h"
#include "../mc/farmass_walk.h"
#include "../mc/softmax_mass.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "../program/report/verdict.h"
#include "helpers.h"

/* The last occurrence of needle in s, or NULL. */
static char *strrstr_(char *s, const char *needle)
{
    char *last = NULL;
    for (char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        last = p;
    return last;
}

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
    double q[16], rho[3 * 3], mom[2], sr[3 * 3];
    th_acc s2 = { 0 };
    for (long rep = 0; rep < 200; rep++) {
        rl_rng_stream(r, 5, (uint64_t)rep);
        rl_farmass_walk(&f, ch, r, q, acc, grid, ng, 512, rho, mom, sr);
        for (int g = 0; g < ng; g++)
            for (int l = 0; l < 3; l++) {
                /* the identities the report no longer counts: rho >= (c) >= (b) >= (a) */
                const double M = (double)(grid[g] - K);
                const double ba = rl_farmass_lower(M, K, lam[l]);
                const double bb = rl_farmass_range(M, K, 2 * lam[l] * sr[3 * g + 2]);
                const double bc = rl_farmass_range(M, K, lam[l] * (sr[3 * g] - sr[3 * g + 1]));
                cr_assert_geq(rho[g * 3 + l] - bc, -1e-12);
                cr_assert_geq(bc - bb, -1e-15);
                cr_assert_geq(bb - ba, -1e-15);
            }
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
    double sr[6];
    rl_farmass_walk(NULL, ch, r, q, acc, grid, 2, 4, rho, mom, sr);
    cr_assert_float_eq(rho[0], 3.0 / 5.0, 1e-15);
    cr_assert_float_eq(rho[1], 6.0 / 8.0, 1e-15);
    /* NoPE: every score 1, Delta = 0, and the range form is exact */
    for (int g = 0; g < 2; g++) {
        cr_assert(sr[3 * g] == 1 && sr[3 * g + 1] == 1 && sr[3 * g + 2] == 1);
        cr_assert_float_eq(rho[g], rl_farmass_range((double)(grid[g] - 2), 2, 0), 1e-15);
    }
    gsl_rng_free(r);
    rl_chain_free(ch);
    rl_mass_free(acc);
    rl_mass_spec_free(sp);
}

Test(exp_farmass, cli_writes_every_promised_file, .timeout = 240)
{
    const char *files[] = { "farmass.md", "farmass.tsv", "farmass_extremal.tsv", "farmass_scores.tsv",
                            "farmass_half.tsv", "farmass_admissible.tsv", "farmass_alibi.tsv", "farmass_families.png", "farmass_alibi.png",
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

/* Far mass of K near logits all equal to hi and M far ones all equal to lo,
 * summed directly. */
static double far_mass_two_levels(long K, long M, double hi, double lo)
{
    double n = 0, f = 0;
    for (long j = 0; j < K; j++)
        n += exp(hi);
    for (long j = 0; j < M; j++)
        f += exp(lo);
    return f / (f + n);
}

/* Near logits all at their max, far all at their min: the realised-range form
 * (c) is met exactly, while (b) (max |logit|) and (a) (lambda as set) are
 * strictly looser.  The logits are shifted (hi = 1.5, lo = 0.5): only the
 * difference enters (c), the shift makes max |logit| 1.5, Delta = 1. */
Test(exp_farmass, range_form_is_tight_where_the_others_are_loose)
{
    const double hi = 1.5, lo = 0.5, lam_set = 2.0;
    const long Ks[3] = { 1, 16, 64 }, Ms[3] = { 1, 100, 5000 };
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const double K = (double)Ks[a], M = (double)Ms[b];
            const double rho = far_mass_two_levels(Ks[a], Ms[b], hi, lo);
            const double c = rl_farmass_range(M, K, hi - lo);
            const double bo = rl_farmass_range(M, K, 2 * fmax(fabs(hi), fabs(lo)));
            const double ba = rl_farmass_lower(M, K, lam_set);
            cr_assert_float_eq(rho / c, 1.0, 1e-13, "K %g M %g: rho %.17g (c) %.17g", K, M, rho, c);
            cr_assert_gt(rho / bo, 1.001, "(b) should be loose: %g", rho / bo);
            cr_assert_gt(bo / ba, 1.001, "(a) should be looser than (b): %g", bo / ba);
            /* (c) = M e^{lo} / (M e^{lo} + K e^{hi}) literally */
            cr_assert_float_eq(c, M * exp(lo) / (M * exp(lo) + K * exp(hi)), 1e-15);
        }
    /* log space: finite where e^{Delta} overflows */
    const double lg = rl_farmass_range_log(65536, 16, 2000);
    cr_assert(isfinite(lg));
    cr_assert_float_eq(lg, log(65536.0) - log(16.0) - 2000, 1e-9);
    cr_assert_float_eq(rl_farmass_range_log(1e6, 1, -50), -log1p(exp(-50) / 1e6), 1e-25);
}

/* L*(p): the far keys M* where M/(M + K e^{Delta}) = p, against a bisection
 * on the bound itself (to 1e-10: near p = 1 the bound is flat, and the
 * bisection only finds M* to the bound's rounding). */
Test(exp_farmass, admissible_length_matches_bisection)
{
    const double Ks[3] = { 1, 16, 512 }, ps[4] = { 0.1, 0.5, 0.9, 0.999 }, Ds[4] = { -3, 0, 5.779, 30 };
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                const double K = Ks[a], p = ps[b], D = Ds[c];
                double lo = 0, hi = 1;
                while (rl_farmass_range(hi, K, D) < p)
                    hi *= 2;
                for (int i = 0; i < 200; i++) {
                    const double mid = 0.5 * (lo + hi);
                    if (rl_farmass_range(mid, K, D) < p)
                        lo = mid;
                    else
                        hi = mid;
                }
                const double Ms = rl_farmass_admissible(K, p, D);
                cr_assert_float_eq(Ms / hi, 1.0, 1e-10, "K %g p %g D %g: %.17g vs bisection %.17g", K, p, D, Ms, hi);
                cr_assert_float_eq(rl_farmass_admissible_log(K, p, D), log(hi), 1e-9);
            }
    /* delta = 1/2: M* = K e^{Delta}; at Delta = 2 lambda, rl_farmass_half */
    cr_assert_float_eq(rl_farmass_admissible(16, 0.5, 8), rl_farmass_half(16, 4), 1e-9);
}

/* One verdict row of a section's markdown ("| what | predicted | measured |
 * verdict | rule |"): the kind and rule cells into kind and rule, what's
 * cell into what; 0 if the line is not such a row.  A '|' inside a cell is
 * written "\|", so " | " only separates cells. */
static int md_verdict_row(const char *line, rl_verdict *kind, char *rule, size_t rl, char *what, size_t wl)
{
    if (strncmp(line, "| ", 2) != 0)
        return 0;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", line);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '|'))
        buf[--n] = 0;
    char *r = strrstr_(buf, " | ");
    if (!r)
        return 0;
    *r = 0;
    snprintf(rule, rl, "%s", r + 3);
    char *v = strrstr_(buf, " | ");
    if (!v)
        return 0;
    for (int k = 0; k < RL_NVERDICT; k++)
        if (!strcmp(v + 3, rl_verdict_name((rl_verdict)k))) {
            *kind = (rl_verdict)k;
            char *e = strstr(buf + 2, " | ");
            snprintf(what, wl, "%.*s", e ? (int)(e - buf - 2) : 0, buf + 2);
            return 1;
        }
    return 0;
}

/* farmass.md's verdicts: every identity row is of kind identity, the
 * counted rows are exactly the two far-score rows (rule agree), ALiBi below
 * the rotation-only bound (not a claim of the study) is never counted, and
 * the "Verdicts:" line counts the rows.  Returns the number of problems (the
 * first one in why). */
static int farmass_md_problems(const char *path, char *why, size_t wl)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    static char row[8192], verdicts[8192];
    char rule[64], what[1024];
    int n[RL_NVERDICT] = { 0 }, far = 0, bad = 0;
    rl_verdict v;
    verdicts[0] = why[0] = 0;
#define BAD_(...) (bad++ ? 0 : snprintf(why, wl, __VA_ARGS__))
    while (fgets(row, sizeof row, f)) {
        if (!strncmp(row, "Verdicts: ", 10)) {
            snprintf(verdicts, sizeof verdicts, "%s", row + 10);
            continue;
        }
        if (!md_verdict_row(row, &v, rule, sizeof rule, what, sizeof what))
            continue;
        n[v]++;
        if (strstr(what, "far scores")) {
            far++;
            if (strcmp(rule, "agree") || (v != RL_V_VERIFIED && v != RL_V_CONTRADICTED))
                BAD_("far score not by agree: %.300s", row);
        } else if (strcmp(rule, "–")) {
            BAD_("a rule on a row that is no evidence: %.300s", row);
        } else if (strstr(what, "below the rotation-only lower bound") ? v != RL_V_IDENTITY && v != RL_V_INFO
                                                                       : v != RL_V_IDENTITY) {
            BAD_("identity of kind %s: %.300s", rl_verdict_name(v), row);
        }
    }
    fclose(f);
    if (far != 2)
        BAD_("%d far-score rows", far);
    if (n[RL_V_HOLDS] + n[RL_V_VERIFIED] + n[RL_V_CONTRADICTED] + n[RL_V_UNRESOLVED] + n[RL_V_NOPRED] +
            n[RL_V_HYPOTHESIS] !=
        far)
        BAD_("counted rows other than the far scores");
    if (n[RL_V_IDENTITY] < 10)
        BAD_("%d identities", n[RL_V_IDENTITY]);
    char ph[256], want[300];
    snprintf(want, sizeof want, "%s.\n", rl_report_kinds_phrase(n, ph, sizeof ph));
    if (strcmp(verdicts, want))
        BAD_("Verdicts line \"%.300s\", rows give \"%s\"", verdicts, want);
#undef BAD_
    return bad;
}

Test(exp_farmass, report_does_not_count_identities, .timeout = 240)
{
    char *dir = th_tmpdir(), line[1024], out[1 << 14];
    static char err[1 << 14];
    snprintf(line, sizeof line, "farmass --preset quick --threads 2 --out %s", dir);
    cr_assert_eq(th_run(line, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *p = th_path(dir, "farmass.md"), why[1024];
    cr_assert_eq(farmass_md_problems(p, why, sizeof why), 0, "%s", why);
    free(p);
    th_rmdir(dir);
    free(dir);
}

/* The checker above refuses each kind of broken farmass.md. */
Test(exp_farmass, md_checker_refuses_broken_reports)
{
    static const char *const head = "Verdicts: %s.\n\n| check | predicted | measured | verdict | rule |\n"
                                    "|---|---|---|---|---|\n"
                                    "| householder: far scores (δ ≥ 1024) are Haar-like | p | m | verified | agree |\n"
                                    "| so2-circle: far scores (δ ≥ 1024) are fully mixed | p | m | verified | agree |\n";
    static const char *const ids = "| x%d: bound \\| never violated | p | m | identity | – |\n";
    struct {
        const char *verdicts, *extra;
        int nid, ok;
    } cases[] = {
        { "2 verified, 10 identities (not counted), 1 info", "| ALiBi below the rotation-only lower bound | p | m | info | – |\n", 10, 1 },
        { "2 verified, 10 identities (not counted)", "", 10, 1 },
        { "2 verified, 9 identities (not counted), 1 info", "| y: a bound | p | m | info | – |\n", 9, 0 },
        { "1 holds, 2 verified, 10 identities (not counted)", "| y: a bound | p | m | holds | – |\n", 10, 0 },
        { "3 verified, 10 identities (not counted)", "| y: a bound | p | m | verified | agree |\n", 10, 0 },
        { "1 holds, 2 verified, 10 identities (not counted)", "| y: a bound | p | m | holds | agree |\n", 10, 0 },
        { "2 verified, 1 no prediction, 10 identities (not counted)", "| y: a bound | p | m | no prediction | agree |\n", 10, 0 },
        { "2 verified, 10 identities (not counted), 1 contradicted", "| y: a bound | p | m | contradicted | – |\n", 10, 0 },
        { "2 verified, 11 identities (not counted)", "", 10, 0 },
        { "2 verified, 9 identities (not counted)", "", 9, 0 },
    };
    char *dir = th_tmpdir(), why[1024];
    char *p = th_path(dir, "farmass.md");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(p, "w");
        cr_assert(f);
        fprintf(f, head, cases[c].verdicts);
        for (int k = 0; k < cases[c].nid; k++)
            fprintf(f, ids, k);
        fputs(cases[c].extra, f);
        fclose(f);
        const int bad = farmass_md_problems(p, why, sizeof why);
        cr_assert_eq(bad == 0, cases[c].ok, "case %zu: %d problems (%s)", c, bad, why);
    }
    free(p);
    th_rmdir(dir);
    free(dir);
}

/* The decisions farmass makes, each made to come out the other way: the far
 * score's agree rule at |z| = 4.9 / 5.1 (and a zero SE with a difference),
 * an identity that fails (contradicted, counted), and the parser above on
 * rows that must be refused: a counted identity and an extra hold. */
Test(exp_farmass, each_decision_fails_on_a_counterexample)
{
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_effect_z(0.0049, 0.001)), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_effect_z(-0.0049, 0.001)), RL_V_VERIFIED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_effect_z(0.0051, 0.001)), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_effect_z(-0.0051, 0.001)), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, rl_effect_z(1e-9, 0)), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_agree, NAN), RL_V_NOPRED); /* never a verdict */

    const rl_claim *c = rl_claim_find("farmass");
    cr_assert(c);
    rl_report *rep = rl_report_alloc("farmass");
    rl_report_rules(rep, c->rules);
    rl_report_identity(rep, 1, "extremal meets the bound", "0", "0");
    rl_report_identity(rep, 0, "bound never violated", "≥ 0", "−0.1");
    rl_report_info(rep, "ALiBi below the rotation-only bound", "-", "-");
    rl_report_decide(rep, &rl_rule_agree, 5.1, NULL, "householder: far scores are Haar-like", "1/d", "off");
    int n[RL_NVERDICT];
    rl_report_kinds(rep, n);
    cr_assert_eq(n[RL_V_IDENTITY], 1);
    cr_assert_eq(n[RL_V_CONTRADICTED], 2);
    cr_assert_eq(n[RL_V_INFO], 1);
    cr_assert_eq(n[RL_V_HOLDS] + n[RL_V_VERIFIED], 0);

    /* the row parser */
    rl_verdict v;
    char rule[64], what[256];
    cr_assert(md_verdict_row("| a \\| b | p | m | identity | – |\n", &v, rule, sizeof rule, what, sizeof what));
    cr_assert_eq(v, RL_V_IDENTITY);
    cr_assert_str_eq(rule, "–");
    cr_assert_str_eq(what, "a \\| b");
    cr_assert(md_verdict_row("| x: far scores | p | m | contradicted | agree |\n", &v, rule, sizeof rule, what,
                             sizeof what));
    cr_assert_eq(v, RL_V_CONTRADICTED);
    cr_assert(!md_verdict_row("| check | predicted | measured | verdict | rule |\n", &v, rule, sizeof rule, what,
                              sizeof what));
    rl_report_free(rep);
}

/* ---- the summary: every number of the report from a hand-built run ---- */

/* Two families (NoPE, one replicate; Householder, three) at K = 2 near keys,
 * lambda = 1, L = 4, 8, 16 and the eight ALiBi slopes.  Householder's
 * rotation-only far masses are base[g] + 0.01 (r - 1) for replicate r, so
 * the mean is base[g] with SE 0.01/sqrt 3, and the least rho_D - bound over
 * replicates is that of replicate 0 at L = 8 (0.39 against 6/(6 + 2e^2));
 * its scores have max near 0.5, min far -0.5: lambda_obs = 1/2, Delta = 1
 * and L*(1/2) of the range form K (1 + e^Delta).  The mean crosses 1/2
 * between L = 8 (0.4) and 16 (0.6): at 8 sqrt 2 on the log scale; NoPE (0.25)
 * never.  Under ALiBi slope c every far mass is 0.01 c, below the bound at
 * every L, so the worst family's mean at L_max is 0.01 c and it is below from
 * the first length on. */
Test(exp_farmass, summary_of_a_hand_built_run)
{
    const int K = 2, d = 16, ng = 3, nc = RL_FM_NSLOPE + 1;
    const double lam = 1, base[3] = { 0.3, 0.4, 0.6 };
    long grid[3] = { 4, 8, 16 };
    double ext_rho[3], ext_bound[3];
    rl_fm_res *R = calloc(1, sizeof *R);
    R->z = (rl_fm_size){ 3, d, K, 16, 1, 1, { lam } };
    for (int h = 1; h <= RL_FM_NSLOPE; h++)
        R->slopes[h - 1] = pow(2.0, -h);
    R->grid = grid;
    R->ng = ng;
    R->far_from = 8;
    R->sp = rl_mass_spec_alloc(K, 1, &lam, RL_FM_NSLOPE, R->slopes, 16);
    cr_assert(R->sp);
    cr_assert_eq(rl_mass_nconf(R->sp), nc);
    R->nfam = 2;
    R->fa[0] = (rl_fm_fam){ "none", 1, rl_family_default(RL_FAM_HOUSEHOLDER, d), 0 };
    R->fa[1] = (rl_fm_fam){ "householder", 0, rl_family_default(RL_FAM_HOUSEHOLDER, d), 1 };
    for (int g = 0; g < ng; g++) {
        ext_bound[g] = rl_farmass_lower((double)(grid[g] - K), K, lam);
        ext_rho[g] = ext_bound[g] + (g == 1 ? 3e-13 : 0);
    }
    R->ext_rho = ext_rho;
    R->ext_bound = ext_bound;
    const long per = (long)ng * nc;
    double rho0[27], rho1[3 * 27], mom0[2] = { 1, 1 }, mom1[6] = { 0.1, 0.05, 0.0, 0.07, -0.1, 0.06 };
    double rng0[9], rng1[27];
    for (int g = 0; g < ng; g++)
        for (int c = 0; c < nc; c++) {
            rho0[g * nc + c] = c ? 0.0 : 0.25;
            for (int r = 0; r < 3; r++)
                rho1[r * per + g * nc + c] = c ? 0.01 * c : base[g] + 0.01 * (r - 1);
        }
    for (int i = 0; i < 9; i++)
        rng0[i] = 1;
    for (int i = 0; i < 9; i++) {
        rng1[3 * i] = 0.5;
        rng1[3 * i + 1] = -0.5;
        rng1[3 * i + 2] = 0.5;
    }
    R->run[0] = (rl_fm_run){ 1, rho0, mom0, rng0 };
    R->run[1] = (rl_fm_run){ 3, rho1, mom1, rng1 };

    rl_fm_summary *S = rl_farmass_summary_alloc(R);
    rl_farmass_summarise(R, S);
    cr_assert_eq(S->per, per);
    cr_assert_float_eq(S->ext_worst, 3e-13, 1e-15);
    const rl_fm_famsum *h = &S->fam[1];
    /* the cells: mean and SE over the replicates, the bound, its ratio */
    const rl_fm_cell *o = &S->cell[1 * per + 1 * nc];
    cr_assert_float_eq(o->mean, 0.4, 1e-15);
    cr_assert_float_eq(o->sem, 0.01 / sqrt(3.0), 1e-15);
    cr_assert_float_eq(o->min, 0.39, 1e-15);
    cr_assert_float_eq(o->low, 6 / (6 + 2 * exp(2.0)), 1e-15);
    cr_assert_float_eq(o->ratio, 0.4 / o->low, 1e-15);
    cr_assert(isnan(o->alibi) && !isnan(S->cell[1 * per + 1 * nc + 3].alibi));
    /* the worst case is one replicate's, not the mean's */
    cr_assert_float_eq(h->worst_low, 0.39 - o->low, 1e-15);
    cr_assert_eq(h->wl_L, 8);
    cr_assert_eq(h->wl_lam, lam);
    double wa = -INFINITY;
    for (int g = 0; g < ng; g++)
        for (int c = 1; c < nc; c++)
            wa = fmax(wa, 0.01 * c - rl_farmass_alibi((double)(grid[g] - K), K, lam, R->slopes[c - 1], 0));
    cr_assert_float_eq(h->worst_alibi, wa, 1e-15);
    /* the data-dependent forms at L_max and the admissible lengths */
    const double *f = S->cell[1 * per + 2 * nc].fo;
    cr_assert_float_eq(f[RL_FM_LOBS], 0.5, 1e-15);
    cr_assert_float_eq(f[RL_FM_DELTA], 1.0, 1e-15);
    cr_assert_float_eq(h->L_star[0][2], K * (1 + exp(1.0)), 1e-12);
    cr_assert_float_eq(h->L_star[0][0], K * (1 + exp(2.0)), 1e-12);
    cr_assert(isnan(S->cell[1 * per + 2 * nc + 1].fo[RL_FM_DELTA]), "forms only for rotation-only cells");
    /* the far scores: Haar-like, E s^2 = 1/d */
    cr_assert_eq(h->mixed, 1);
    cr_assert_float_eq(h->m2, 0.06, 1e-15);
    cr_assert_float_eq(h->s2_pred, 1.0 / d, 1e-15);
    /* where the mean reaches 1/2: log-interpolated, never for NoPE */
    cr_assert_float_eq(h->L_half[0], 8 * sqrt(2.0), 1e-12);
    cr_assert_eq(S->fam[0].L_half[0], -1);
    cr_assert_float_eq(S->L_half[0], K + K * exp(2.0), 1e-12);
    cr_assert(S->half_ok, "the bound's L(1/2) is beyond L_max: nothing to violate");
    /* ALiBi: the worst family's mean at L_max, below from the first length */
    for (int c = 1; c <= RL_FM_NSLOPE; c++) {
        const rl_fm_alibi *a = &S->alibi[0][c - 1];
        cr_assert_float_eq(a->worst, 0.01 * c, 1e-15);
        cr_assert_eq(a->first_below, 4);
        cr_assert(a->below);
        cr_assert_eq(a->flat_change, 0);
    }
    cr_assert_eq(S->below[0], RL_FM_NSLOPE);
    cr_assert(S->flat_ok);
    rl_farmass_summary_free(S);
    rl_mass_spec_free(R->sp);
    free(R);
}
