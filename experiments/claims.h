/* claims.h: the claims table.  One row per experiment, in the order and with
 * the numbering used everywhere (theory.md, `routelab claims`, the per-claim
 * subcommands, NOTES.md, README).
 *
 * Each experiment is two halves: run(ctx, &res, err) does the Monte Carlo and
 * fills its results struct (no printing, no files; a failure is a status and
 * a message in err); report(res, out, rep) turns the
 * results into TSV files and figures in out->dir and a section (text,
 * figures, verdicts) in rep. */
#ifndef RL_CLAIMS_H
#define RL_CLAIMS_H

#include "../base/core/err.h"
#include "../program/report/outdir.h"
#include "../program/report/report.h"
#include "ctx.h"

typedef struct {
    const char *id;         /* the subcommand and the anchor in theory.md */
    int number;             /* the claim's number (two experiments may share one) */
    const char *title;
    const char *help;       /* the subcommand's --help text */
    unsigned uses;          /* RL_CLAIM_* flags it reads */
    const rl_rule *const *rules; /* the decision rules its checks may use (NULL-terminated) */
    rl_status (*run)(const rl_exp_ctx *ctx, void **res, rl_err *err);
    void (*report)(const void *res, const rl_outdir *out, rl_report *rep);
    void (*free)(void *res);
} rl_claim;

/* The decision rules (program/report/verdict.h), written here once, before any run;
 * each claim's row names the ones it uses, and docs/protocol.md#verdict-kinds records every
 * change with the verdicts before and after. */
/* Each rule's evidence (verdict.h) is fixed here too: the verifications of
 * closed forms and proved bounds (agree, bound, exact, agree-n, window) pass
 * as *verified*; only the claims that could fail empirically (sign, below,
 * effect: the stylized layer's and the trained models' orderings) as
 * *holds*. */
extern const rl_rule rl_rule_agree; /* |z| <= 5 against an exact value (verify) */
extern const rl_rule rl_rule_bound; /* excess over a bound <= 5 SE (verify) */
extern const rl_rule rl_rule_sign;  /* an effect predicted positive: +-3 SE across repeats, else unresolved (claim) */
extern const rl_rule rl_rule_below; /* a quantity predicted below a threshold the noise may hide (claim) */
extern const rl_rule rl_rule_exact; /* closed forms compared, no noise (verify) */
extern const rl_rule rl_rule_effect; /* an effect with a minimal size delta: holds, contradicted, absent at this scale (within +-delta), else unresolved (claim) */
extern const rl_rule rl_rule_agree_n; /* |z| <= 5 against an exact value on skewed terms; unresolved below 256 replicates (verify) */
extern const rl_rule rl_rule_window; /* the mixing window's crossing bracketed at 6 SE from eps, decided at 3 SE (verify) */
extern const rl_rule rl_rule_rank; /* a prediction orders variants: per-seed Kendall tau_b above tau0 at 3 SE (claim) */

extern const rl_claim rl_claims[];
extern const int rl_nclaims;

/* The row with this id, or NULL. */
const rl_claim *rl_claim_find(const char *id);

/* The section title "Claim N: title" into buf. */
const char *rl_claim_heading(const rl_claim *c, char *buf, size_t n);

/* The table as markdown: | claim | id | title | command |. */
void rl_claims_markdown(FILE *fp);

/* run, then report into rep (the output folder exists), then free the
 * results.  A failed run writes nothing and returns its status. */
rl_status rl_claim_do(const rl_claim *c, const rl_exp_ctx *ctx, rl_report *rep, rl_err *err);

#endif
