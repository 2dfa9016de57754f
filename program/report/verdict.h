/* verdict.h: the kinds of verdict a check can get, and the decision rules
 * that give them.
 *
 * A verdict is evidence only if it could have come out the other way, so the
 * kinds keep apart what would otherwise share one word:
 *   holds / contradicted  the measurement decided a claim that could have
 *                         failed (empirical evidence, counted);
 *   verified              a numerical confirmation of a closed form or a
 *                         proved bound (rules agree, bound, exact, ...): worth
 *                         having, but not evidence about the study's claims,
 *                         so counted apart from holds; a verification that
 *                         fails is still contradicted (a wrong formula or a
 *                         bug);
 *   no prediction         the prediction or the statistic is not finite (the
 *                         family has no closed form, or a NaN reached the
 *                         rule): never a verdict, shown with its reason;
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
 * A rule maps one statistic to holds (verified for a rule of verification
 * evidence) / contradicted / unresolved / no prediction (the effect rule three
 * statistics, adding absent at this scale); the rules, and which of them are
 * verifications, are written once, in the claims table
 * (experiments/claims.c), before any run, and a claim may use only the rules
 * its row names. */
#ifndef RL_VERDICT_H
#define RL_VERDICT_H

typedef enum {
    RL_V_HOLDS,
    RL_V_VERIFIED, /* a closed form or proved bound confirmed numerically */
    RL_V_CONTRADICTED,
    RL_V_UNRESOLVED,
    RL_V_NOPRED, /* no prediction: prediction or statistic not finite */
    RL_V_HYPOTHESIS, /* hypothesis not met */
    RL_V_IDENTITY,
    RL_V_INFO,
    RL_V_ABSENT, /* absent at this scale (rule effect: the effect lies within +-delta) */
    RL_NVERDICT
} rl_verdict;

/* "holds", "verified", "contradicted", "unresolved", "no prediction",
 * "hypothesis not met", "identity", "info", "absent at this scale". */
const char *rl_verdict_name(rl_verdict v);

/* How a rule reads its statistic x with its threshold k:
 *   RL_RULE_ABS   |x| <= k holds, otherwise contradicted (x: a z-score
 *                 against an exact value; +-inf, a difference with SE 0, is
 *                 contradicted; NaN is no prediction);
 *   RL_RULE_LE    x <= k holds, otherwise contradicted (x: the excess over a
 *                 bound in standard errors; NaN is no prediction);
 *   RL_RULE_SIGN  x >= k holds, x <= -k contradicted, otherwise unresolved
 *                 (x: an effect predicted positive over its SE across
 *                 repeats; +-inf when the SE is 0);
 *   RL_RULE_BAND  x <= -k holds (below the threshold by more than k SE),
 *                 x > k contradicted, otherwise unresolved (x: (measured -
 *                 threshold)/SE for a quantity predicted below a threshold
 *                 that the noise may hide);
 *   RL_RULE_TRUE  x != 0 holds, x == 0 contradicted (a comparison of exact
 *                 values, no sampling noise; NaN is no prediction);
 *   RL_RULE_EFFECT four outcomes on x = t(m), x_lo = t(m + delta), x_hi =
 *                 t(m - delta) (rl_rule_decide_effect): x_lo >= k and x_hi
 *                 <= -k absent at this scale (the effect lies within +-delta:
 *                 two one-sided tests); otherwise as SIGN on x; NaN in any of
 *                 the three unresolved.  rl_rule_decide on one x reads it as
 *                 SIGN (it cannot see delta).
 * SIGN, BAND and EFFECT give NaN a meaning of their own (the statistic could
 * not be formed at this size: one repeat, too few replicates): unresolved. */
typedef enum { RL_RULE_ABS, RL_RULE_LE, RL_RULE_SIGN, RL_RULE_BAND, RL_RULE_TRUE, RL_RULE_EFFECT } rl_rule_kind;

/* What a rule's positive outcome is evidence of, fixed with the rule:
 *   RL_EV_CLAIM   empirical support for a claim that could have failed
 *                 (its pass is *holds*);
 *   RL_EV_VERIFY  a numerical confirmation of a closed form, an exact law
 *                 or a proved bound (its pass is *verified*). */
typedef enum { RL_EV_CLAIM, RL_EV_VERIFY } rl_evidence;

typedef struct {
    const char *id;   /* short name, shown in each row */
    rl_rule_kind kind;
    double k;
    const char *text; /* the rule in words, shown under the claim's checks */
    rl_evidence evidence;
} rl_rule;

/* The verdict of rule r on x: its pass (holds, or verified for a rule of
 * RL_EV_VERIFY), contradicted, unresolved or no prediction (above). */
rl_verdict rl_rule_decide(const rl_rule *r, double x);

/* The verdict of a rule of kind RL_RULE_EFFECT on x, x_lo, x_hi (above):
 * absent at this scale, holds, contradicted or unresolved; any other kind
 * is rl_rule_decide(r, x). */
rl_verdict rl_rule_decide_effect(const rl_rule *r, double x, double x_lo, double x_hi);

/* What would decide an effect the sign rule leaves unresolved: the least
 * number of repeats n' > n (at most nmax) at which the same mean, with the
 * SE shrinking as 1/sqrt(n') (se sqrt(n/n')), gives |z| >= k
 * (rl_effect_z_repeats); -1 when none up to nmax (a mean of 0, NaN). */
long rl_effect_repeats_needed(double mean, double se, int n, double k, long nmax);

/* The running worst (largest) of statistics that are all to pass: max(worst,
 * x), but NaN in either is NaN, so that one statistic without a prediction
 * cannot vanish from the maximum (fmax drops a NaN). */
double rl_worst(double worst, double x);

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
