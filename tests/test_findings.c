/* test_findings.c: orderings grouped into independent findings
 * (program/reproduce/findings.h): each link on constructed rows, the verdict of a
 * finding, and the committed cpu grid's rows as they were committed. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../program/reproduce/findings.h"

static rl_finding_row row(const char *what, const char *a, const char *b, long mult, int corr, const double *x,
                          int k, rl_verdict v)
{
    rl_finding_row r;
    memset(&r, 0, sizeof r);
    r.what = what, r.a = a, r.b = b, r.mult = mult, r.corr = corr, r.k = k, r.v = v;
    for (int i = 0; i < k; i++)
        r.x[i] = x[i];
    return r;
}

/* Pearson r against hand values: a line is 1, its mirror -1; a NaN seed is
 * left out; three shared seeds, or a constant, form none. */
Test(findings, pearson_r)
{
    const double x[5] = { 1, 2, 3, 4, 5 }, y[5] = { 2, 4, 6, 8, 10 }, z[5] = { 5, 4, 3, 2, 1 };
    cr_expect_float_eq(rl_findings_r(x, y, 5), 1.0, 1e-15);
    cr_expect_float_eq(rl_findings_r(x, z, 5), -1.0, 1e-15);
    /* x = 1..4, w = 1, 3, 2, 4 (the fifth NaN): sxy = 4, sxx = syy = 5, r = 0.8 */
    const double w[5] = { 1, 3, 2, 4, NAN };
    cr_expect_float_eq(rl_findings_r(x, w, 5), 0.8, 1e-15);
    cr_expect(isnan(rl_findings_r(x, y, 3)));
    const double c[5] = { 1, 1, 1, 1, 1 };
    cr_expect(isnan(rl_findings_r(x, c, 5)));
}

/* The shared link: the same pair in either order at the same multiple;
 * another multiple is another finding (when the seeds do not link them). */
Test(findings, same_pair_same_multiple_is_one_finding)
{
    const double p[6] = { 1, -1, 1, -1, 1, -1 }, q[6] = { 1, 1, -1, -1, 1, 1 };
    rl_finding_row r[3] = { row("a>b@16", "a", "b", 16, 1, p, 6, RL_V_HOLDS),
                            row("b<a@16", "b", "a", 16, 1, q, 6, RL_V_UNRESOLVED),
                            row("a>b@128", "a", "b", 128, 1, q, 6, RL_V_HOLDS) };
    /* r(p, q) = 0: only the shared link joins rows 0 and 1; row 2 shares q
     * with row 1 exactly (r = 1), so it joins them too */
    int g[3];
    cr_expect_eq(rl_findings_group(r, 3, g), 1);
    /* with row 2's seeds unrelated it stands alone */
    const double u[6] = { 1, -1, -1, 1, 0, 0 };
    r[2] = row("a>b@128", "a", "b", 128, 1, u, 6, RL_V_HOLDS);
    cr_expect_float_eq(rl_findings_r(q, u, 6), 0.0, 1e-15);
    cr_expect_float_eq(rl_findings_r(p, u, 6), 0.0, 1e-15);
    cr_expect_eq(rl_findings_group(r, 3, g), 2);
    cr_expect_eq(g[0], 0);
    cr_expect_eq(g[1], 0);
    cr_expect_eq(g[2], 1);
}

/* The correlation link at its level: |r| just above RL_FINDINGS_R joins,
 * just below does not; a rank row (another scale) never joins by r. */
Test(findings, correlation_link_at_its_level)
{
    /* y = x + e with e orthogonal to x and to 1: r = |x| / sqrt(|x|^2 + |e|^2) */
    const double x[4] = { -3, -1, 1, 3 }, e[4] = { 1, -1, -1, 1 };
    double hi[4], lo[4];
    /* |x|^2 = 20, |e|^2 = 4: r(s) = sqrt(20 / (20 + 4 s^2)); r = 0.9 at s^2 = 5 (1/0.81 - 1) */
    const double s0 = sqrt(5.0 * (1 / 0.81 - 1));
    for (int i = 0; i < 4; i++)
        hi[i] = x[i] + 0.99 * s0 * e[i], lo[i] = x[i] + 1.01 * s0 * e[i];
    cr_assert_gt(rl_findings_r(x, hi, 4), RL_FINDINGS_R);
    cr_assert_lt(rl_findings_r(x, lo, 4), RL_FINDINGS_R);
    int g[2];
    rl_finding_row r[2] = { row("p", "a", "b", 16, 1, x, 4, RL_V_HOLDS), row("q", "a", "d", 16, 1, hi, 4, RL_V_HOLDS) };
    cr_expect_eq(rl_findings_group(r, 2, g), 1);
    /* rows with no variant in common are not linked, whatever their r */
    r[1] = row("q", "c", "d", 16, 1, x, 4, RL_V_HOLDS);
    cr_expect_eq(rl_findings_group(r, 2, g), 2);
    r[1] = row("q", "a", "d", 16, 1, lo, 4, RL_V_HOLDS);
    cr_expect_eq(rl_findings_group(r, 2, g), 2);
    /* anticorrelated rows carry the same information */
    double neg[4];
    for (int i = 0; i < 4; i++)
        neg[i] = -hi[i];
    r[1] = row("q", "d", "a", 16, 1, neg, 4, RL_V_HOLDS);
    cr_expect_eq(rl_findings_group(r, 2, g), 1);
    r[1] = row("rank", "(rank)", NULL, 16, 0, x, 4, RL_V_HOLDS);
    cr_expect_eq(rl_findings_group(r, 2, g), 2);
}

/* A finding's verdict: its rows' when they agree, mixed with the counts
 * otherwise; findings are numbered in the order of their first rows. */
Test(findings, verdict_of_a_finding)
{
    const double x[4] = { 1, 2, 3, 4 }, y[4] = { 4, -1, 2, 0 }, z[4] = { 0, 1, -1, 0 };
    rl_finding_row r[4] = { row("u", "a", "b", 16, 1, z, 4, RL_V_UNRESOLVED), row("h1", "c", "d", 16, 1, x, 4, RL_V_HOLDS),
                            row("h2", "e", "c", 16, 1, x, 4, RL_V_HOLDS), row("c", "d", "c", 16, 1, y, 4,
                                                                                    RL_V_CONTRADICTED) };
    int g[4], c[RL_NVERDICT];
    /* rows 1, 2 (r = 1) and row 3 (the pair of row 1) are one finding; row 0
     * alone (r(x, z) = -0.32, r(y, z) = -0.55) */
    cr_assert_lt(fabs(rl_findings_r(x, z, 4)), RL_FINDINGS_R);
    cr_assert_lt(fabs(rl_findings_r(y, z, 4)), RL_FINDINGS_R);
    cr_assert_eq(rl_findings_group(r, 4, g), 2);
    cr_expect_eq(g[0], 0);
    cr_expect_eq(g[1], 1);
    cr_expect_eq(g[2], 1);
    cr_expect_eq(g[3], 1);
    cr_expect_eq(rl_findings_verdict(r, 4, g, 0, c), RL_V_UNRESOLVED);
    cr_expect_eq(c[RL_V_UNRESOLVED], 1);
    cr_expect_eq(rl_findings_verdict(r, 4, g, 1, c), RL_NVERDICT);
    cr_expect_eq(c[RL_V_HOLDS], 2);
    cr_expect_eq(c[RL_V_CONTRADICTED], 1);
    cr_expect_eq(c[RL_V_UNRESOLVED], 0);
}

/* The committed cpu grid's 16x rows (grids/orderings.tsv at commit
 * be10d8e, per-seed values as committed): the five "rope degrades more than
 * X" rows are one finding (rope's own log ratio drives them; their r is
 * 0.99 and more), value transport, pemb's flatness and lf's flatness stand
 * apart. */
Test(findings, the_cpu_grids_rope_rows_are_one_finding)
{
    static const double v[][6] = {
        { 1.21742, 1.66999, 1.41891, 1.31155, 1.20861, 1.29771 },     /* rope > random_qk */
        { 1.21375, 1.60573, 1.43403, 1.32608, 1.22385, 1.29526 },     /* rope > random_qkv */
        { -0.003664, -0.064266, 0.015121, 0.014527, 0.015234, -0.002446 }, /* random_qk > random_qkv */
        { 0.319325, 0.358815, 0.526698, 0.621606, 0.289974, 0.501515 }, /* rope > pemb */
        { 1.22052, 1.61266, 1.42092, 1.30864, 1.21222, 1.30625 },     /* rope > lf_qk */
        { 1.29034, 1.68672, 1.48345, 1.38332, 1.27703, 1.36731 },     /* rope > alibi */
        { 0.974487, 1.3307, 0.958404, 0.76393, 0.990035, 0.866849 },  /* pemb < 1.25 */
        { 0.07329, 0.076857, 0.06418, 0.076895, 0.067791, 0.062116 }, /* lf < 1.25 */
    };
    static const char *const ab[][2] = { { "rope", "random_qk" }, { "rope", "random_qkv" },
                                         { "random_qk", "random_qkv" }, { "rope", "pemb_qk" },
                                         { "rope", "lf_qk" }, { "rope", "alibi" }, { "pemb_qk", NULL },
                                         { "lf_qk", NULL } };
    rl_finding_row r[8];
    for (int i = 0; i < 8; i++)
        r[i] = row("row", ab[i][0], ab[i][1], 16, 1, v[i], 6, RL_V_HOLDS);
    int g[8];
    const int ng = rl_findings_group(r, 8, g);
    cr_expect_eq(g[1], g[0]);
    cr_expect_eq(g[4], g[0]);
    cr_expect_eq(g[5], g[0]);
    cr_expect_neq(g[2], g[0]);
    cr_expect_neq(g[7], g[0]);
    cr_log_info("cpu grid 16x rows: %d findings; rope>pemb with the rope rows: %s; pemb<1.25 with rope>pemb: %s",
                ng, g[3] == g[0] ? "yes" : "no", g[6] == g[3] ? "yes" : "no");
}
