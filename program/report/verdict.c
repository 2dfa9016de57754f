/* verdict.c: verdict kinds and the decision rules (verdict.h). */
#include "verdict.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

const char *rl_verdict_name(rl_verdict v)
{
    static const char *const name[RL_NVERDICT] = { "holds",         "verified",           "contradicted",
                                                   "unresolved",    "no prediction",      "hypothesis not met",
                                                   "identity",      "info",               "absent at this scale" };
    return (unsigned)v < RL_NVERDICT ? name[v] : "?";
}

double rl_effect_z(double mean, double se)
{
    if (isnan(se)) /* no standard error: no z (a sign rule leaves it unresolved) */
        return NAN;
    if (se > 0)
        return mean / se;
    return mean > 0 ? INFINITY : mean < 0 ? -INFINITY : 0;
}

double rl_effect_z_repeats(double mean, double se, int n)
{
    const double t = rl_effect_z(mean, se);
    if (n < 2 || isnan(t))
        return NAN;
    if (isinf(t))
        return t;
    /* from the smaller tail, so that the quantile keeps its digits far out */
    const double nu = n - 1;
    return t >= 0 ? -gsl_cdf_ugaussian_Pinv(gsl_cdf_tdist_Q(t, nu)) : gsl_cdf_ugaussian_Pinv(gsl_cdf_tdist_P(t, nu));
}

long rl_effect_repeats_needed(double mean, double se, int n, double k, long nmax)
{
    if (!(fabs(mean) > 0) || !(se > 0) || n < 1)
        return -1;
    /* |z| grows with n' (the t grows as sqrt(n'), its tail thins): the least
     * n' by doubling, then bisection */
    long lo = n, hi = n + 1;
    while (hi <= nmax && fabs(rl_effect_z_repeats(mean, se * sqrt((double)n / hi), (int)hi)) < k) {
        lo = hi;
        hi = 2 * hi;
    }
    if (hi > nmax) {
        hi = nmax;
        if (hi <= lo || fabs(rl_effect_z_repeats(mean, se * sqrt((double)n / hi), (int)hi)) < k)
            return -1;
    }
    while (hi - lo > 1) {
        const long mid = lo + (hi - lo) / 2;
        if (fabs(rl_effect_z_repeats(mean, se * sqrt((double)n / mid), (int)mid)) >= k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

double rl_worst(double worst, double x)
{
    return isnan(worst) || isnan(x) ? NAN : x > worst ? x : worst;
}

/* The pass of rule r: what its positive outcome is evidence of (verdict.h). */
static rl_verdict pass(const rl_rule *r)
{
    return r->evidence == RL_EV_VERIFY ? RL_V_VERIFIED : RL_V_HOLDS;
}

rl_verdict rl_rule_decide(const rl_rule *r, double x)
{
    switch (r->kind) {
    case RL_RULE_ABS:
        /* NaN: nothing was compared (no closed form, or a NaN measured) */
        if (isnan(x))
            return RL_V_NOPRED;
        return fabs(x) <= r->k ? pass(r) : RL_V_CONTRADICTED;
    case RL_RULE_LE:
        if (isnan(x))
            return RL_V_NOPRED;
        return x <= r->k ? pass(r) : RL_V_CONTRADICTED;
    case RL_RULE_SIGN:
    case RL_RULE_EFFECT:
        /* NaN compares false both ways: unresolved, never a hold */
        return x >= r->k ? pass(r) : x <= -r->k ? RL_V_CONTRADICTED : RL_V_UNRESOLVED;
    case RL_RULE_BAND:
        return x <= -r->k ? pass(r) : x > r->k ? RL_V_CONTRADICTED : RL_V_UNRESOLVED;
    case RL_RULE_TRUE:
        if (isnan(x))
            return RL_V_NOPRED;
        return x != 0 ? pass(r) : RL_V_CONTRADICTED;
    }
    return RL_V_CONTRADICTED;
}

rl_verdict rl_rule_decide_effect(const rl_rule *r, double x, double x_lo, double x_hi)
{
    if (r->kind != RL_RULE_EFFECT)
        return rl_rule_decide(r, x);
    if (isnan(x) || isnan(x_lo) || isnan(x_hi))
        return RL_V_UNRESOLVED;
    /* the whole interval at the k standard inside +-delta: equivalence first,
     * so that a significant but tiny effect is absent, not a hold */
    if (x_lo >= r->k && x_hi <= -r->k)
        return RL_V_ABSENT;
    return x >= r->k ? pass(r) : x <= -r->k ? RL_V_CONTRADICTED : RL_V_UNRESOLVED;
}
