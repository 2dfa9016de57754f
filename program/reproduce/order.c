/* order.c: seed-level decisions of the study's orderings (order.h). */
#include "order.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "../../base/core/stats.h"
#include "../../base/core/util.h"
#include "../../experiments/claims.h"

/* base/core/stats.h's mean and SE; one seed has no SE (NaN, not stats.h's 0),
 * so that no rule can read it as certainty. */
void rl_seed_mean_se(const double *x, int k, double *mean, double *se)
{
    *mean = *se = NAN;
    if (k < 1)
        return;
    rl_mean_se(x, k, 1, mean, se);
    if (k < 2 || isnan(*mean))
        *se = NAN;
}

static rl_order decide(const double *d, int k, double threshold, const rl_rule *rule)
{
    rl_order o = { .k = k, .rule = rule->id, .delta = NAN, .x_lo = NAN, .x_hi = NAN };
    rl_seed_mean_se(d, k, &o.mean, &o.se);
    /* t across k seeds as the normal quantile of its tail (Student, k - 1
     * df): the rule's 3 means the same tail at any k; NaN below 2 seeds */
    o.x = rl_effect_z_repeats(o.mean - threshold, o.se, k);
    o.v = rl_rule_decide(rule, o.x);
    return o;
}

rl_order rl_order_above(const double *a, const double *b, int k)
{
    double *d = rl_xmalloc(sizeof *d * (k > 0 ? k : 1));
    for (int i = 0; i < k; i++)
        d[i] = a[i] - b[i];
    rl_order o = decide(d, k, 0, &rl_rule_sign);
    free(d);
    return o;
}

rl_order rl_order_positive(const double *x, int k)
{
    return decide(x, k, 0, &rl_rule_sign);
}

rl_order rl_order_exceeds(const double *x, int k, double threshold)
{
    return decide(x, k, threshold, &rl_rule_sign);
}

rl_order rl_order_rank(const double *tau, int k, double tau0)
{
    return decide(tau, k, tau0, &rl_rule_rank);
}

rl_order rl_order_below(const double *x, int k, double threshold)
{
    return decide(x, k, threshold, &rl_rule_below);
}

rl_order rl_order_effect(const double *d, int k, double delta)
{
    rl_order o = { .k = k, .rule = rl_rule_effect.id, .delta = delta };
    rl_seed_mean_se(d, k, &o.mean, &o.se);
    /* each t across k seeds as the normal quantile of its Student tail
     * (k - 1 df); NaN below 2 seeds, and NaN with a NaN delta */
    o.x = rl_effect_z_repeats(o.mean, o.se, k);
    o.x_lo = rl_effect_z_repeats(o.mean + delta, o.se, k);
    o.x_hi = rl_effect_z_repeats(o.mean - delta, o.se, k);
    o.v = rl_rule_decide_effect(&rl_rule_effect, o.x, o.x_lo, o.x_hi);
    return o;
}

rl_order rl_order_above_delta(const double *a, const double *b, int k, double delta)
{
    double *d = rl_xmalloc(sizeof *d * (k > 0 ? k : 1));
    for (int i = 0; i < k; i++)
        d[i] = a[i] - b[i];
    rl_order o = rl_order_effect(d, k, delta);
    free(d);
    return o;
}

/* Power of the rule's x >= 3 standard at K seeds, for a true effect e > 0
 * over a per-seed sd sigma.  x >= 3 is t >= c_K, with c_K the Student
 * (K - 1 df) quantile of the one-sided tail Phi(-3):
 *     c_K = gsl_cdf_tdist_Qinv(gsl_cdf_ugaussian_Q(3), K - 1);
 * t = m/(s_d/sqrt K) is noncentral t with K - 1 df and noncentrality
 *     ncp = e sqrt(K) / sigma,
 * and t >= c_K is Z + ncp - c_K S >= 0 with Z standard normal and S =
 * s_d/sigma, nearly N(1, 1/(2 (K - 1))); taking Z - c_K (S - 1) as normal
 * (the noncentral-t normal approximation) gives
 *     power(K) = Phi((ncp - c_K) / sqrt(1 + c_K^2 / (2 (K - 1)))).
 * sigma = 0 with e > 0 is power 1 (t is infinite).  At 2 and 3 seeds c_K
 * is large (236, 19) and the approximation has a floor, Phi(-sqrt(2 (K -
 * 1))) = 0.08, 0.02 however small e: it rises with K only above that, which
 * leaves every power a decision asks for (0.8) unaffected; at small K it
 * tends to ask for a seed more than the exact law would (a Monte Carlo of
 * the rule, tests/test_order.c, reaches the power at the K given). */
double rl_order_power(double effect, double sd, int k)
{
    if (k < 2 || isnan(effect) || isnan(sd) || !(effect > 0) || sd < 0)
        return 0;
    if (sd == 0)
        return 1;
    const double c = gsl_cdf_tdist_Qinv(gsl_cdf_ugaussian_Q(3), k - 1);
    const double ncp = effect * sqrt((double)k) / sd;
    return gsl_cdf_ugaussian_P((ncp - c) / sqrt(1 + c * c / (2.0 * (k - 1))));
}

double rl_order_detectable(double sd, int k, double power)
{
    if (k < 2 || isnan(sd) || sd < 0 || !(power > 0 && power < 1))
        return NAN;
    if (sd == 0)
        return 0;
    /* power(e) rises from its floor (below any asked power at k >= 4; at 2
     * or 3 seeds the floor is 0.08, 0.02) to 1: bracket, then bisect */
    double lo = 0, hi = sd;
    while (rl_order_power(hi, sd, k) < power)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; i++) { /* 200: a power below the floor sends hi to 0 */
        const double mid = 0.5 * (lo + hi);
        if (rl_order_power(mid, sd, k) >= power)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The directional outcome (holds or contradicted: x >= 3 or x <= -3) has
 * effect |mean| against 0.  The equivalence outcome (absent at this scale)
 * needs both one-sided tests: x_hi <= -3, whose effect is the near margin
 * delta - |mean|, and x_lo >= 3, the far margin delta + |mean|; their joint
 * power is taken as power(near) + power(far) - 1 (Bonferroni: a lower
 * bound of the joint power were the two exact, so the K is not optimistic; at mean 0
 * the two sides fail about equally often, at |mean| near delta the far side
 * is nearly sure and this is power(near)).  Only a positive near margin
 * has an equivalence outcome.  Absent is decided before the sign, so with a
 * positive near margin a directional outcome is only reached while the
 * equivalence one is not: its power is then taken as power(dir) -
 * power(near) (power(near) is at least the absent outcome's probability).
 * The answer is the smaller K of the two, the outcome reached first. */
int rl_order_seeds_needed(double mean, double sd, double delta, double power, int kmax, rl_verdict *target)
{
    if (target)
        *target = RL_V_UNRESOLVED;
    if (isnan(mean) || isnan(sd) || sd < 0 || !(power > 0 && power < 1) || kmax < 2)
        return -1;
    const double dir = fabs(mean), near = delta > 0 ? delta - fabs(mean) : 0, far = delta + fabs(mean);
    for (int k = 2; k <= kmax; k++) {
        const double pn = near > 0 ? rl_order_power(near, sd, k) : 0;
        const double pe = near > 0 ? pn + rl_order_power(far, sd, k) - 1 : 0;
        const double pd = rl_order_power(dir, sd, k) - pn;
        if (pd >= power || pe >= power) {
            if (target)
                *target = pe >= pd ? RL_V_ABSENT : mean >= 0 ? RL_V_HOLDS : RL_V_CONTRADICTED;
            return k;
        }
    }
    return -1;
}
