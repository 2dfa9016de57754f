/* claims.c: the claims table, the one place a claim's number, title and
 * experiment are written.  The rules' descriptions and the claims' --help
 * texts are blocks of experiments/prose/claims.txt (tools/scripts/prose.sh). */
#include "claims.h"

#include <stdio.h>
#include <string.h>

#include "claim_fns.h"
#include "prose_experiments.h"

const rl_rule rl_rule_agree = { "agree", RL_RULE_ABS, 5, RL_PROSE_CLAIMS_RULE_AGREE, RL_EV_VERIFY };
const rl_rule rl_rule_bound = { "bound", RL_RULE_LE, 5, RL_PROSE_CLAIMS_RULE_BOUND, RL_EV_VERIFY };
const rl_rule rl_rule_sign = { "sign", RL_RULE_SIGN, 3, RL_PROSE_CLAIMS_RULE_SIGN, RL_EV_CLAIM };
const rl_rule rl_rule_below = { "below", RL_RULE_BAND, 3, RL_PROSE_CLAIMS_RULE_BELOW, RL_EV_CLAIM };
/* effect: the four-outcome rule with a minimal effect size delta (written
 * per ordering in program/reproduce/orderings.c, before any run).  The per-seed
 * values d_1..d_K (paired differences of log ratios, or a log ratio) give
 * the mean m and SE s (sample sd / sqrt K); x = z(m/s), x_lo = z((m +
 * delta)/s), x_hi = z((m - delta)/s), each t read as the normal quantile of
 * its Student tail with K - 1 df (rl_effect_z_repeats).  x_lo >= 3 and x_hi
 * <= -3 is two one-sided tests (TOST) at the x = 3 standard: the interval m
 * +- c s lies inside +-delta, the effect is absent at this scale; otherwise
 * the sign rule on x.  NaN (one seed, a value missing) is unresolved. */
const rl_rule rl_rule_effect = { "effect", RL_RULE_EFFECT, 3, RL_PROSE_CLAIMS_RULE_EFFECT, RL_EV_CLAIM };
const rl_rule rl_rule_exact = { "exact", RL_RULE_TRUE, 0, RL_PROSE_CLAIMS_RULE_EXACT, RL_EV_VERIFY };
/* window: BAND at the 3 standard on a bracket of the crossing, the test
 * lengths chosen from the prediction where its margin to eps is 2k = 6 SE
 * (SE measured there): k for the rule's threshold, k more so that under the
 * prediction the row decides with probability Phi(3) = 0.9987 on each side.
 * Tested at n = W itself (the earlier rule *below*) the prediction sat
 * within the noise of eps and the row could not be decided by design.  The
 * lower side exists only when W > 1 (a family with E M = 0 has W = 1 for
 * every eps, and its row checks only the sampler's mean step). */
const rl_rule rl_rule_window = { "window", RL_RULE_BAND, 3, RL_PROSE_CLAIMS_RULE_WINDOW, RL_EV_VERIFY };
/* BAND with k = 0: x <= 0 holds, x > 0 contradicted, NaN unresolved */
const rl_rule rl_rule_agree_n = { "agree-n", RL_RULE_BAND, 0, RL_PROSE_CLAIMS_RULE_AGREE_N, RL_EV_VERIFY };

/* rank: a score written before the run (from the step law alone, no
 * evaluation) against the variants' measured log ratios, per seed Kendall's
 * tau_b across the variants (base/core/stats.h, ties counted as neither), the
 * sign rule on (mean tau_b - tau0)/SE across seeds with tau0 the entry's
 * stated threshold (program/reproduce/orderings.c).  Contradicted means the score
 * orders the variants worse than tau0 at 3 SE, which includes no order at
 * all. */
const rl_rule rl_rule_rank = { "rank", RL_RULE_SIGN, 3, RL_PROSE_CLAIMS_RULE_RANK, RL_EV_CLAIM };

#define RULES_(...) ((const rl_rule *const[]){ __VA_ARGS__, NULL })

#define ROW_(id, number, title, uses, rules, help) \
    { #id, number, title, help, uses, rules, rl_exp_##id##_run, rl_exp_##id##_report, rl_exp_##id##_free }

const rl_claim rl_claims[] = {
    ROW_(mixing, 1, "Mixing window", RL_CLAIM_TEXT,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_window, &rl_rule_exact), RL_PROSE_CLAIMS_MIXING_HELP),
    ROW_(mixstay, 1, "Mix or stay: far angle laws against those met within T (routelab's)", 0,
         RULES_(&rl_rule_agree), RL_PROSE_CLAIMS_MIXSTAY_HELP),
    ROW_(concentration, 2, "Score concentration of far routes", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_exact), RL_PROSE_CLAIMS_CONCENTRATION_HELP),
    ROW_(scoregap, 2, "Score gap: near target against far distractors", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound), RL_PROSE_CLAIMS_SCOREGAP_HELP),
    ROW_(farmass, 3, "Far-mass lower bound", 0,
         RULES_(&rl_rule_agree), RL_PROSE_CLAIMS_FARMASS_HELP),
    ROW_(values, 4, "Value-side incoherence", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_exact, &rl_rule_agree_n), RL_PROSE_CLAIMS_VALUES_HELP),
    ROW_(stylized, 5, "Length extrapolation of one stylized attention layer", 0,
         RULES_(&rl_rule_sign, &rl_rule_bound), RL_PROSE_CLAIMS_STYLIZED_HELP),
};
const int rl_nclaims = sizeof rl_claims / sizeof *rl_claims;

const rl_claim *rl_claim_find(const char *id)
{
    for (int i = 0; i < rl_nclaims; i++)
        if (!strcmp(rl_claims[i].id, id))
            return &rl_claims[i];
    return NULL;
}

const char *rl_claim_heading(const rl_claim *c, char *buf, size_t n)
{
    snprintf(buf, n, "Claim %d: %s", c->number, c->title);
    return buf;
}

void rl_claims_markdown(FILE *fp)
{
    fprintf(fp, "| claim | id | title | command |\n|---|---|---|---|\n");
    for (int i = 0; i < rl_nclaims; i++)
        fprintf(fp, "| %d | %s | %s | `routelab %s` |\n", rl_claims[i].number, rl_claims[i].id, rl_claims[i].title,
                rl_claims[i].id);
}

rl_status rl_claim_do(const rl_claim *c, const rl_exp_ctx *ctx, rl_report *rep, rl_err *err)
{
    void *res = NULL;
    rl_report_rules(rep, c->rules);
    rl_status st = c->run(ctx, &res, err);
    if (st == RL_OK)
        c->report(res, &ctx->out, rep);
    c->free(res);
    return st;
}
