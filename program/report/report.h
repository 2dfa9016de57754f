/* report.h: one report section (a claim's text, tables, figures and
 * verdicts), and how it is shown: markdown, a terminal verdict table, TSV
 * rows of its checks. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stdio.h>

#include "verdict.h"


typedef struct rl_report rl_report;

rl_report *rl_report_alloc(const char *title);
void rl_report_free(rl_report *r);
/* A paragraph of markdown (printf-style). */
void rl_report_text(rl_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The decision rules this section may use (its claim's row in the claims
 * table; NULL-terminated, kept by pointer).  They are printed under the
 * checks; a check by any other rule is a programming error (rl_die). */
void rl_report_rules(rl_report *r, const rl_rule *const *rules);
/* One check decided by rule on the statistic x.  unmet != NULL: the
 * theorem's hypothesis is not met here (unmet says which, e.g. "slow blocks
 * unmixed at n: rate^n > 1/d") and the row is *hypothesis not met* whatever
 * x says.  what: the claim checked; predicted, measured: shown as given.
 * A rule's pass is *holds* or *verified* as the rule's evidence says; a NaN
 * statistic under a rule that gives NaN no meaning (agree, bound, exact) is
 * *no prediction*, its reason appended to measured. */
void rl_report_decide(rl_report *r, const rl_rule *rule, double x, const char *unmet, const char *what,
                      const char *predicted, const char *measured);
/* The same with the numeric prediction pred the statistic was formed
 * against: pred not finite (the family has no closed form) is *no
 * prediction* whatever x says, never a verdict. */
void rl_report_decide_pred(rl_report *r, const rl_rule *rule, double pred, double x, const char *unmet,
                           const char *what, const char *predicted, const char *measured);
/* A check that follows from the construction: *identity* when ok (shown,
 * never counted as evidence); when not ok the construction is broken (a bug)
 * and the row is *contradicted*. */
void rl_report_identity(rl_report *r, int ok, const char *what, const char *predicted, const char *measured);
/* A reading that is ours, not the study's claim: *info*. */
void rl_report_info(rl_report *r, const char *what, const char *predicted, const char *measured);

/* A figure file (relative to the output folder) and its caption. */
void rl_report_figure(rl_report *r, const char *file, const char *caption);
/* A markdown table given as TSV text (header row first), shown in the report. */
void rl_report_table(rl_report *r, const char *caption, const char *tsv);
/* Verdict table on a terminal. */
void rl_report_print(const rl_report *r, FILE *fp);
/* The section in markdown. */
void rl_report_markdown(const rl_report *r, FILE *fp);
/* The checks as TSV rows: name, verdict (rl_verdict_name), rule (its id;
 * "-" for identity / info), what, predicted, measured (tabs and newlines
 * inside become spaces).  RL_REPORT_TSV_HEADER names the columns. */
#define RL_REPORT_TSV_HEADER "experiment\tverdict\trule\tcheck\tpredicted\tmeasured\n"
void rl_report_tsv(const rl_report *r, FILE *fp, const char *name);
/* The checks in order: how many, and the kind of check i. */
int rl_report_nchecks(const rl_report *r);
rl_verdict rl_report_verdict(const rl_report *r, int i);
/* Number of checks of each kind: n[RL_NVERDICT]. */
void rl_report_kinds(const rl_report *r, int n[RL_NVERDICT]);
/* The counts as one phrase ("3 hold, 5 verified, 1 contradicted, 2
 * identities (not counted)"; kinds with no check left out) into buf. */
const char *rl_report_kinds_phrase(const int n[RL_NVERDICT], char *buf, size_t len);
const char *rl_report_title(const rl_report *r);

/* printf into a caller-owned buffer and return it (for building
 * predicted/measured strings). */
const char *rl_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
