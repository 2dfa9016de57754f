/* verdict.h: the kinds of verdict a check can get, and the decision rules
 * that give them.
 *
 * A verdict is evidence only if it could have come out the other way, so the
 * kinds keep apart what would otherwise share one word:
 *   holds / contradicted  the measurement decided the claim (counted);
 *   unresolved            the run's size cannot decide it (counted apart);
 *   hypothesis not met    the theorem does not apply here (which hypothesis
 *                         is said in the row); not evidence either way;
 *   identity              follows from the construction: a unit test, shown
 *                         for the reader, never counted;
 *   info                  a reading of ours, not a claim of the study;
 *   absent at this scale  an effect shown within +-delta of 0 (an equivalence
 *                         test, rule effect): decided, and counted apart from
 *                         holds and contradicted, since it says the effect the
 *                         claim predicts is too small to see at this scale.
 * A rule maps one statistic to holds / contradicted / unresolved (the effect
 * rule three statistics, adding absent at this scale); the rules
 * are written once, in the claims table (experiments/claims.c), before any
 * run, and a claim may use only the rules its row names. */
#ifndef RL_VERDICT_H
#define RL_VERDICT_H

typedef enum {
    RL_V_HOLDS,
    RL_V_CONTRADICTED,
    RL_V_UNRESOLVED,
    RL_V_HYPOTHESIS, /* hypothesis not met */
    RL_V_IDENTITY,
    RL_V_INFO,
    RL_V_ABSENT, /* absent at this scale (rule effect: the effect lies within +-delta) */
    RL_NVERDICT
} rl_verdict;

/* "holds", "contradicted", "unresolved", "hypothesis not met", "identity", "info",
 * "absent at this scale". */
const char *rl_verdict_name(rl_verdict v);

/* How a rule reads its statistic x with its threshold k:
 *   RL_RULE_ABS   |x| <= k holds, otherwise contradicted (x: a z-score
 *                 against an exact value; NaN is contradicted);
 *   RL_RULE_LE    x <= k holds, otherwise contradicted (x: the excess over a
 *                 bound in standard errors);
 *   RL_RULE_SIGN  x >= k holds, x <= -k contradicted, otherwise unresolved
 *                 (x: an effect predicted positive over its SE across
 *                 repeats; +-inf when the SE is 0);
 *   RL_RULE_BAND  x <= -k holds (below the threshold by more than k SE),
 *                 x > k contradicted, otherwise unresolved (x: (measured -
 *                 threshold)/SE for a quantity predicted below a threshold
 *                 that the noise may hide);
 *   RL_RULE_TRUE  x != 0 holds, x == 0 contradicted (a comparison of exact
 *                 values, no sampling noise);
 *   RL_RULE_EFFECT four outcomes on x = t(m), x_lo = t(m + delta), x_hi =
 *                 t(m - delta) (rl_rule_decide_effect): x_lo >= k and x_hi
 *                 <= -k absent at this scale (the effect lies within +-delta:
 *                 two one-sided tests); otherwise as SIGN on x; NaN in any of
 *                 the three unresolved.  rl_rule_decide on one x reads it as
 *                 SIGN (it cannot see delta). */
typedef enum { RL_RULE_ABS, RL_RULE_LE, RL_RULE_SIGN, RL_RULE_BAND, RL_RULE_TRUE, RL_RULE_EFFECT } rl_rule_kind;

typedef struct {
    const char *id;   /* short name, shown in each row */
    rl_rule_kind kind;
    double k;
    const char *text; /* the rule in words, shown under the claim's checks */
} rl_rule;

/* The verdict of rule r on x (holds, contradicted or unresolved). */
rl_verdict rl_rule_decide(const rl_rule *r, double x);

/* The verdict of a rule of kind RL_RULE_EFFECT on x, x_lo, x_hi (above):
 * absent at this scale, holds, contradicted or unresolved; any other kind
 * is rl_rule_decide(r, x). */
rl_verdict rl_rule_decide_effect(const rl_rule *r, double x, double x_lo, double x_hi);

/* z of an effect: mean / se, +-inf when se is 0 and mean is not, 0 for 0/0,
 * NaN when either is NaN. */
double rl_effect_z(double mean, double se);

/* The same effect across n independent repeats (fits, seeds) whose SE is
 * itself estimated from them: t = mean / se has Student's law with n - 1
 * degrees of freedom, not the normal one, so a rule's thresholds (read as
 * normal quantiles: 3 is a one-sided tail of 0.00135) are applied to the
 * normal quantile of the same tail, z = Phi^-1(F_{t,n-1}(t)).  With 2
 * repeats t = 12.7 is only z = 1.96.  NaN for n < 2 or a NaN t; +-inf kept. */
double rl_effect_z_repeats(double mean, double se, int n);

#endif
