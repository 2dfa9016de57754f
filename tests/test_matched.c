/* test_matched.c: the mixing-matched scale (theory/matched.h): the study's
 * fractions from its table, the cpu grid's at base 10000, the chooser against
 * a brute-force scan of bases, monotone counts, and the tie rule. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../theory/matched.h"
#include "../theory/study.h"
#include "helpers.h"

static int count(int d, double base, double eps, long len)
{
    int c = -1;
    rl_err err;
    cr_assert_eq(rl_match_count(d, base, eps, len, &c, &err), RL_OK, "%s", err.msg);
    return c;
}

/* The study's regime, computed from theory/study.h (head dim 96, base 10000,
 * T = 512, 128T = 65,536), as ../shared/reference/study.md quotes it. */
Test(matched, study_fractions_from_the_table)
{
    double fc, ff;
    cr_assert_eq(rl_study_mult(), 128);
    cr_assert_eq(rl_match_study(0.1, rl_study_mult(), &fc, &ff, NULL), RL_OK);
    cr_assert_eq(fc * 48, 10.0);
    cr_assert_eq(ff * 48, 23.0);
    cr_assert_eq(rl_match_study(0.01, 128, &fc, &ff, NULL), RL_OK);
    cr_assert_eq(fc * 48, 8.0);
    cr_assert_eq(ff * 48, 21.0);
}

Test(matched, cpu_grid_at_the_study_base)
{
    cr_assert_eq(count(32, 10000, 0.1, 64), 2);
    cr_assert_eq(count(32, 10000, 0.1, 64 * 128), 6);
    /* the worked example: head dim 32, T = 128, base 1,260 */
    cr_assert_eq(count(32, 1260, 0.1, 128), 3);
    cr_assert_eq(count(32, 1260, 0.1, 128 * 128), 8);
}

Test(matched, counts_fall_as_the_base_grows)
{
    const int dims[] = { 4, 32, 96, 256 };
    const long lens[] = { 8, 64, 512, 65536 };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int prev = dims[i] / 2 + 1;
            for (double lb = log(1.01); lb < log(1e9); lb += 0.01) {
                int c = count(dims[i], exp(lb), 0.1, lens[j]);
                cr_assert_leq(c, prev, "d %d, len %ld: %d blocks at base %g, %d below it", dims[i], lens[j], c,
                              exp(lb), prev);
                prev = c;
            }
        }
}

/* Brute force: n log-spaced bases over the chooser's range, and for each its
 * cost and distance to ref. */
typedef struct {
    double cost, base;
    int c1, c2;
} scan_pt;

static double cost_of(int c1, int c2, int nb, double f1, double f2)
{
    return fabs(c1 - nb * f1) + fabs(c2 - nb * f2);
}

static void check_against_scan(const rl_match_query *q, const rl_match *m)
{
    const int n = 20000, nb = q->d / 2;
    const double a = log(RL_MATCH_BASE_MIN), z = log(RL_MATCH_BASE_MAX);
    double best = INFINITY, near = INFINITY;
    scan_pt bp = { 0 };
    for (int i = 0; i < n; i++) {
        double base = exp(a + (z - a) * (i + 0.5) / n);
        int c1 = count(q->d, base, q->eps, q->ctx), c2 = count(q->d, base, q->eps, q->ctx * q->mult);
        double c = cost_of(c1, c2, nb, q->f_ctx, q->f_far), dist = fabs(log(base / q->ref_base));
        if (c < best - 1e-9 || (c <= best + 1e-9 && dist < near)) {
            best = fmin(best, c);
            near = dist;
            bp = (scan_pt){ c, base, c1, c2 };
        }
        /* inside the chosen interval every base has the chosen counts */
        if (base > m->lo && base < m->hi) {
            cr_assert_eq(c1, m->at_ctx, "base %g in (%g, %g)", base, m->lo, m->hi);
            cr_assert_eq(c2, m->at_far, "base %g in (%g, %g)", base, m->lo, m->hi);
        }
    }
    /* the chooser's cost is the scan's least, and the scan's base nearest ref
     * at that cost lies in the chosen interval (to the scan's spacing) */
    cr_assert_float_eq(m->cost, best, 1e-9, "chooser %g, scan %g", m->cost, best);
    const double step = (z - a) / n;
    cr_assert(log(bp.base) > log(m->lo) - step && log(bp.base) < log(m->hi) + step,
              "scan's nearest best base %g (counts %d, %d) outside (%g, %g)", bp.base, bp.c1, bp.c2, m->lo, m->hi);
    /* the chosen base gives the reported counts */
    cr_assert_eq(count(q->d, m->base, q->eps, q->ctx), m->at_ctx);
    cr_assert_eq(count(q->d, m->base, q->eps, q->ctx * q->mult), m->at_far);
    cr_assert_float_eq(cost_of(m->at_ctx, m->at_far, nb, q->f_ctx, q->f_far), m->cost, 1e-12);
}

/* The ends of the interval are steps: just outside, a count changes (or the
 * end is the end of the range). */
static void check_steps(const rl_match_query *q, const rl_match *m)
{
    const long far = q->ctx * q->mult;
    if (m->lo > RL_MATCH_BASE_MIN) {
        double b = m->lo * (1 - 1e-9);
        cr_assert(count(q->d, b, q->eps, q->ctx) != m->at_ctx || count(q->d, b, q->eps, far) != m->at_far,
                  "no step at lo %g", m->lo);
    }
    if (m->hi < RL_MATCH_BASE_MAX) {
        double b = m->hi * (1 + 1e-9);
        cr_assert(count(q->d, b, q->eps, q->ctx) != m->at_ctx || count(q->d, b, q->eps, far) != m->at_far,
                  "no step at hi %g", m->hi);
    }
}

Test(matched, chooser_is_the_best_of_a_scan, .timeout = 60)
{
    rl_match_query q = { 32, 128, rl_study_mult(), 0.1, 0, 0, RL_STUDY_BASE };
    rl_match m;
    rl_err err;
    cr_assert_eq(rl_match_study(q.eps, q.mult, &q.f_ctx, &q.f_far, &err), RL_OK);
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(m.nb, 16);
    cr_assert_eq(m.at_ctx, 3);
    cr_assert_eq(m.at_far, 8);
    cr_assert_float_eq(m.cost, 2.0 / 3, 1e-12);
    cr_assert(m.lo < 1260 && 1260 < m.hi, "the worked example's 1,260 outside (%g, %g)", m.lo, m.hi);
    /* 10000 is outside: the base is the interval's geometric midpoint */
    cr_assert_lt(m.hi, RL_STUDY_BASE);
    cr_assert_float_eq(m.base, sqrt(m.lo * m.hi), 1e-9 * m.base);
    check_against_scan(&q, &m);
    check_steps(&q, &m);
    /* the cpu grid's T = 64 too */
    q.ctx = 64;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_OK, "%s", err.msg);
    check_against_scan(&q, &m);
    check_steps(&q, &m);
}

/* The study's own configuration matches itself at cost 0, and the base
 * returned is the study's (the interval contains it). */
Test(matched, the_study_matches_itself)
{
    rl_match_query q = { RL_STUDY_HEAD_DIM, rl_study_lengths[0], rl_study_mult(), 0.1, 0, 0, RL_STUDY_BASE };
    rl_match m;
    cr_assert_eq(rl_match_study(q.eps, q.mult, &q.f_ctx, &q.f_far, NULL), RL_OK);
    cr_assert_eq(rl_match_choose(&q, &m, NULL), RL_OK);
    cr_assert_eq(m.cost, 0);
    cr_assert_eq(m.base, RL_STUDY_BASE);
    cr_assert(m.lo < RL_STUDY_BASE && RL_STUDY_BASE < m.hi);
    cr_assert_eq(m.at_ctx, 10);
    cr_assert_eq(m.at_far, 23);
}

/* No base matches exactly: the targets 3.5 and 9.5 of 16 lie between
 * counts, and at head dim 32, T = 128 the attainable pairs (4, 10), (3, 10)
 * and (3, 9) (bases about 290 to 1,190; (4, 9) is not attainable) all cost
 * 1 block; the tie goes to the interval nearest the reference base. */
Test(matched, a_tie_goes_to_the_base_nearest_the_reference, .timeout = 60)
{
    rl_match_query q = { 32, 128, 128, 0.1, 3.5 / 16, 9.5 / 16, RL_STUDY_BASE };
    rl_match hi_ref, lo_ref, in;
    cr_assert_eq(rl_match_choose(&q, &hi_ref, NULL), RL_OK);
    cr_assert_eq(hi_ref.cost, 1);
    cr_assert_eq(hi_ref.ties, 3);
    check_against_scan(&q, &hi_ref);
    /* from above (10000): the largest bases of the three, (3, 9) */
    cr_assert_eq(hi_ref.at_ctx, 3);
    cr_assert_eq(hi_ref.at_far, 9);
    cr_assert_float_eq(hi_ref.base, sqrt(hi_ref.lo * hi_ref.hi), 1e-9 * hi_ref.base);
    /* from below (2): the smallest, (4, 10) */
    q.ref_base = RL_MATCH_BASE_MIN;
    cr_assert_eq(rl_match_choose(&q, &lo_ref, NULL), RL_OK);
    check_against_scan(&q, &lo_ref);
    cr_assert_eq(lo_ref.cost, 1);
    cr_assert_eq(lo_ref.ties, 3);
    cr_assert_eq(lo_ref.at_ctx, 4);
    cr_assert_eq(lo_ref.at_far, 10);
    cr_assert_lt(lo_ref.hi, hi_ref.lo);
    /* a reference inside the middle one, (3, 10) between the two, is
     * returned as it is */
    q.ref_base = sqrt(lo_ref.hi * hi_ref.lo);
    cr_assert_eq(rl_match_choose(&q, &in, NULL), RL_OK);
    cr_assert_eq(in.base, q.ref_base);
    cr_assert_eq(in.at_ctx, 3);
    cr_assert_eq(in.at_far, 10);
    cr_assert_eq(in.lo, lo_ref.hi);
    cr_assert_eq(in.hi, hi_ref.lo);
}

Test(matched, pick_prefers_the_closer_regime)
{
    const int d[] = { 32, 32 };
    const long t[] = { 64, 128 };
    rl_match out[2];
    int best = -1;
    cr_assert_eq(rl_match_pick(d, t, 2, 128, 0.1, out, &best, NULL), RL_OK);
    cr_assert_eq(best, 1, "T = 64 cost %g, T = 128 cost %g", out[0].cost, out[1].cost);
    cr_assert_lt(out[1].cost, out[0].cost);
}

Test(matched, bad_queries_are_input_errors)
{
    rl_match m;
    rl_err err;
    int c;
    rl_match_query ok = { 32, 128, 128, 0.1, 0.2, 0.5, 10000 }, q;
    q = ok, q.d = 33;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    q = ok, q.d = 2 * RL_MATCH_MAX_D;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    q = ok, q.eps = 1;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    q = ok, q.ctx = 0;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    q = ok, q.ctx = 1000000000000L, q.mult = 100000;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, "beyond"), "%s", err.msg);
    q = ok, q.f_far = NAN;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    q = ok, q.ref_base = 1;
    cr_assert_eq(rl_match_choose(&q, &m, &err), RL_EINPUT);
    cr_assert_eq(rl_match_count(32, 1, 0.1, 64, &c, &err), RL_EINPUT);
    cr_assert_eq(rl_match_count(32, 100, 0.1, 0, &c, &err), RL_EINPUT);
    cr_assert_eq(rl_match_pick(NULL, NULL, 0, 128, 0.1, &m, &c, &err), RL_EINPUT);
}

/* The command prints the study's fractions, the control and the chosen base,
 * the base last, as the chooser gives it. */
Test(matched, bound_match_command)
{
    char out[4096], err[512];
    cr_assert_eq(th_run("bound match --head-dim 32 --ctx 128", out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_assert(strstr(out, "10 of 48 blocks mix within T"), "%s", out);
    cr_assert(strstr(out, "23 of 48 within 128T = 65536"), "%s", out);
    cr_assert(strstr(out, "3 of 16 within T (0.1875), 8 of 16 within 128T = 16384"), "%s", out);
    const char *last = strrchr(out, '#');
    last = strchr(last, '\n') + 1;
    rl_match_query q = { 32, 128, 128, 0.1, 0, 0, RL_STUDY_BASE };
    rl_match m;
    cr_assert_eq(rl_match_study(0.1, 128, &q.f_ctx, &q.f_far, NULL), RL_OK);
    cr_assert_eq(rl_match_choose(&q, &m, NULL), RL_OK);
    cr_assert_eq(strtod(last, NULL), m.base, "%s", out);
}
