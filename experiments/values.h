/* values.h: the verdict rows of claim 4 (experiments/values.c), one function
 * per kind of check, so that the tests can feed each decision a hand-built
 * measurement.  Kinds, from what each row checks:
 *   E||r||^2, tr Cov(r), slopes, the near target against exact laws: agree;
 *   tr Cov(r) below the study's bound on S: bound;
 *   the exact formula's slope against the law the claim names: exact;
 *   E||r_b||^2 per block (skewed terms): agree-n (unresolved below 256
 *   replicates);
 *   every row of the family without value transport (P = I) follows from the
 *   construction (r = rho vbar + noise): identity. */
#ifndef RL_EXP_VALUES_H
#define RL_EXP_VALUES_H

#include "../program/report/report.h"

/* Replicates from which a per-block z is a 5-SE test (rl_rule_agree_n). */
#define RL_VAL_BLOCK_REPS 256

/* A check of an exact law on family `label`: x = max |z| (rl_rule_agree), or
 * an identity when the family has no value transport (none). */
void rl_val_agree_row(rl_report *rep, int none, double x, const char *what, const char *predicted,
                      const char *measured);

/* E||r_b||^2 per block: max |z| over blocks and lengths from reps replicates. */
void rl_val_block_row(rl_report *rep, const char *label, int nb, int ng, long reps, double worst_bz);

/* The log-log slope of ||r||_rms: measured slope ± se against the exact
 * formula's (pred) over mlo..mhi, and (target not NaN) the exact slope
 * against the law the claim names, within 0.05 (the finite-M correction). */
void rl_val_slope_rows(rl_report *rep, const char *label, int none, long mlo, long mhi, double slope, double se,
                       double pred, double target);

/* tr Cov(r): max |z| against the exact value (worst_cz), and the largest
 * excess over the bound in SE (worst_cb); measured: the numbers to show. */
void rl_val_cov_rows(rl_report *rep, const char *label, int none, double worst_cz, double worst_cb,
                     const char *measured);

#endif
