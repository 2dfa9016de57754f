/* order.c: seed-level decisions of the study's orderings (order.h). */
#include "order.h"

#include <math.h>
#include <stdlib.h>

#include "../core/stats.h"
#include "../core/util.h"
#include "../experiments/claims.h"

/* core/stats.h's mean and SE; one seed has no SE (NaN, not stats.h's 0),
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
    rl_order o = { .k = k, .rule = rule->id };
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

rl_order rl_order_below(const double *x, int k, double threshold)
{
    return decide(x, k, threshold, &rl_rule_below);
}
