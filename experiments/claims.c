/* claims.c: the claims table, the one place a claim's number, title and
 * experiment are written. */
#include "claims.h"

#include <stdio.h>
#include <string.h>

#include "claim_fns.h"

const rl_rule rl_rule_agree = { "agree", RL_RULE_ABS, 5,
                                 "a measurement against an exact value (a closed form or an exact law), z = "
                                 "(measured − exact)/SE: |z| ≤ 5 verified, otherwise contradicted; z not finite for want of a prediction (NaN): "
                                 "no prediction",
                                 RL_EV_VERIFY };
const rl_rule rl_rule_bound = { "bound", RL_RULE_LE, 5,
                                "a measurement against a bound, x = (measured − bound)/SE on the side the bound "
                                "forbids: x ≤ 5 verified, otherwise contradicted; NaN: no prediction",
                                RL_EV_VERIFY };
const rl_rule rl_rule_sign = { "sign", RL_RULE_SIGN, 3,
                               "an effect the claim predicts positive, from n independent repeats (fits, seeds): "
                               "t = mean/SE, read as z, the normal quantile of its Student tail with n − 1 degrees "
                               "of freedom: z ≥ 3 holds, z ≤ −3 contradicted, otherwise unresolved (the run is too "
                               "small to decide)",
                               RL_EV_CLAIM };
const rl_rule rl_rule_below = { "below", RL_RULE_BAND, 3,
                                "a quantity predicted below a threshold, x = (measured − threshold)/SE: x ≤ −3 "
                                "holds, x > 3 contradicted, otherwise unresolved (the noise hides the threshold)",
                                RL_EV_CLAIM };
/* effect: the four-outcome rule with a minimal effect size delta (written
 * per ordering in reproduce/orderings.c, before any run).  The per-seed
 * values d_1..d_K (paired differences of log ratios, or a log ratio) give
 * the mean m and SE s (sample sd / sqrt K); x = z(m/s), x_lo = z((m +
 * delta)/s), x_hi = z((m - delta)/s), each t read as the normal quantile of
 * its Student tail with K - 1 df (rl_effect_z_repeats).  x_lo >= 3 and x_hi
 * <= -3 is two one-sided tests (TOST) at the x = 3 standard: the interval m
 * +- c s lies inside +-delta, the effect is absent at this scale; otherwise
 * the sign rule on x.  NaN (one seed, a value missing) is unresolved. */
const rl_rule rl_rule_effect = { "effect", RL_RULE_EFFECT, 3,
                                 "an effect the claim predicts positive, with a minimal effect size δ, from n "
                                 "independent repeats (seeds): x = z(mean/SE), x_lo = z((mean + δ)/SE), x_hi = "
                                 "z((mean − δ)/SE), each t read as the normal quantile of its Student tail with "
                                 "n − 1 degrees of freedom; x_lo ≥ 3 and x_hi ≤ −3 is absent at this scale (the "
                                 "whole interval at the 3 standard lies within ±δ: two one-sided tests); otherwise "
                                 "x ≥ 3 holds, x ≤ −3 contradicted, else unresolved (the run is too small to decide)",
                                 RL_EV_CLAIM };
const rl_rule rl_rule_exact = { "exact", RL_RULE_TRUE, 0,
                                "closed forms compared without sampling noise: true verified, false contradicted",
                                RL_EV_VERIFY };
/* window: BAND at the 3 standard on a bracket of the crossing, the test
 * lengths chosen from the prediction where its margin to eps is 2k = 6 SE
 * (SE measured there): k for the rule's threshold, k more so that under the
 * prediction the row decides with probability Phi(3) = 0.9987 on each side.
 * Tested at n = W itself (the earlier rule *below*) the prediction sat
 * within the noise of eps and the row could not be decided by design.  The
 * lower side exists only when W > 1 (a family with E M = 0 has W = 1 for
 * every eps, and its row checks only the sampler's mean step). */
const rl_rule rl_rule_window = { "window", RL_RULE_BAND, 3,
                                 "the window W(ε) bracketed where the noise cannot hide ε: n_hi the first length ≥ W "
                                 "with predicted ‖E M‖ⁿ ≤ ε − 6 SE, n_lo (only when W > 1) the last length < W with "
                                 "predicted ≥ ε + 6 SE (SE measured there: 3 for the threshold, 3 more so that the "
                                 "prediction decides); x = max((|E P| at n_hi − ε)/SE, (ε − |E P| at n_lo)/SE): x ≤ −3 "
                                 "verified, x > 3 contradicted, otherwise unresolved; no such length in the run: x "
                                 "not formed, unresolved, and the row says how many replicates would form it "
                                 "(SE ∝ 1/√replicates)",
                                 RL_EV_VERIFY };
/* BAND with k = 0: x <= 0 holds, x > 0 contradicted, NaN unresolved */
const rl_rule rl_rule_agree_n = { "agree-n", RL_RULE_BAND, 0,
                                  "a measurement against an exact value through z-scores of means of skewed terms "
                                  "(sums of squares, near χ²₂): a 5-SE test only from 256 replicates on (skewness "
                                  "2/√n ≤ 1/8), x = max |z| − 5: x ≤ 0 verified, x > 0 contradicted; with fewer "
                                  "replicates x is not formed and the row is unresolved (the run is too small to decide)",
                                  RL_EV_VERIFY };

/* rank: a score written before the run (from the step law alone, no
 * evaluation) against the variants' measured log ratios, per seed Kendall's
 * tau_b across the variants (core/stats.h, ties counted as neither), the
 * sign rule on (mean tau_b - tau0)/SE across seeds with tau0 the entry's
 * stated threshold (reproduce/orderings.c).  Contradicted means the score
 * orders the variants worse than tau0 at 3 SE, which includes no order at
 * all. */
const rl_rule rl_rule_rank = { "rank", RL_RULE_SIGN, 3,
                               "a prediction written before the run orders the variants' measured values: per seed "
                               "Kendall's τ_b between the predicted scores and the measured values across the variants "
                               "(ties neither concordant nor discordant), x = t((mean τ_b − τ₀)/SE) across seeds read as "
                               "the normal quantile of its Student tail (n − 1 degrees of freedom), τ₀ the entry's "
                               "stated threshold: x ≥ 3 holds, x ≤ −3 contradicted, otherwise unresolved",
                               RL_EV_CLAIM };

#define RULES_(...) ((const rl_rule *const[]){ __VA_ARGS__, NULL })

#define ROW_(id, number, title, uses, rules, help) \
    { #id, number, title, help, uses, rules, rl_exp_##id##_run, rl_exp_##id##_report, rl_exp_##id##_free }

const rl_claim rl_claims[] = {
    ROW_(mixing, 1, "Mixing window", RL_CLAIM_TEXT,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_window, &rl_rule_exact),
         "Mean route E[P_n] against E[M]^n for every step family, the mixing window W(eps),\n"
         "the study's U(-w_b, w_b) variant block by block (d = 64, 96), text-driven steps,\n"
         "and positive-drift angles.  TSV files, figures and mixing.md go to --out."),
    ROW_(mixstay, 1, "Mix or stay: far angle laws against those met within T (routelab's)", 0,
         RULES_(&rl_rule_agree),
         "Routelab's condition for accumulated rotations: per SO(2) block, the Watson distance of\n"
         "each far angle law (T <= delta < 16T) to the nearest law met within T, D_b, and the\n"
         "score S = mean_b D_b, for the laws uniform, drift, pm, gauss and constant (RoPE) in the\n"
         "CPU grid's head (hd 32, T = 64, matched base and 10000) and the study's (hd 96, T = 512);\n"
         "the closed form checked by Monte Carlo on sampled steps.  TSV files, figures and\n"
         "mixstay.md go to --out."),
    ROW_(concentration, 2, "Score concentration of far routes", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_exact),
         "Tails P(|q^T P k| >= t) for d = 8 ... 512: Haar transport and every step family far\n"
         "beyond its window against the exact Beta law and the cap bound (Ball); SO(2) block scores\n"
         "against Hoeffding (q, k spread evenly or in the low-frequency blocks).  TSV files,\n"
         "figures and concentration.md go to --out."),
    ROW_(scoregap, 2, "Score gap: near target against far distractors", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound),
         "One chain back from a query: the target key on a near route (n = 1, 4, 16), M_L aligned\n"
         "distractors on far routes.  Near score, maximum far score against sqrt(2 log M_L / d)\n"
         "and the union bound, the gap and the softmax weight ratio, for d = 16, 64, 256.  TSV\n"
         "files, figures and scoregap.md go to --out."),
    ROW_(farmass, 3, "Far-mass lower bound", 0,
         RULES_(&rl_rule_agree),
         "Far mass rho_D against context length (64 .. 65,536) for rotation-only attention\n"
         "(Householder, SO(2) circle, the study's U(-w_b, w_b), NoPE) with logits bounded by\n"
         "lambda, against the lower bound M/(M + K e^{2 lambda}); the same with ALiBi biases.\n"
         "TSV files, figures and farmass.md go to --out."),
    ROW_(values, 4, "Value-side incoherence", 0,
         RULES_(&rl_rule_agree, &rl_rule_bound, &rl_rule_exact, &rl_rule_agree_n),
         "The far contribution r = sum_far alpha_j P(j->i) v_j of values sharing a background\n"
         "component, without value transport, with SO(2) transport (circle-uniform angles and the\n"
         "study's U(-w_b, w_b), block by block), Householder and Haar, against the exact\n"
         "E||r||^2 = (rho/M)^2 sum_b ||v_b||^2 S(chi_b, M); covariance and the near target.\n"
         "TSV files, figures and values.md go to --out."),
    ROW_(stylized, 5, "Length extrapolation of one stylized attention layer", 0,
         RULES_(&rl_rule_sign, &rl_rule_bound),
         "Retrieval of a target value on a near route among L - 1 distractors with queries\n"
         "fitted inside a training window: target weight, far mass, output SNR and a\n"
         "perplexity-like ratio against L (up to 65,536) for nope, rope, random_qk,\n"
         "random_qkv, haar (accumulated Householder), alibi and alibi+random_qkv, next to\n"
         "the study's language-model ratios.  TSV files, figures and stylized.md go to --out."),
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
