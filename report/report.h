/* report.h: one report section (a claim's text, tables, figures and
 * verdicts), and how it is shown: markdown, a terminal verdict table, TSV
 * rows of its checks. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stdio.h>

typedef enum { RL_HOLDS_NO = 0, RL_HOLDS_YES = 1, RL_HOLDS_INFO = 2 } rl_holds;

typedef struct rl_report rl_report;

rl_report *rl_report_alloc(const char *title);
void rl_report_free(rl_report *r);
/* A paragraph of markdown (printf-style). */
void rl_report_text(rl_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One check: what, the predicted value, the measured value with its
 * uncertainty, and whether the claim holds. */
void rl_report_check(rl_report *r, rl_holds holds, const char *what, const char *predicted,
                     const char *measured);
/* A figure file (relative to the output folder) and its caption. */
void rl_report_figure(rl_report *r, const char *file, const char *caption);
/* A markdown table given as TSV text (header row first), shown in the report. */
void rl_report_table(rl_report *r, const char *caption, const char *tsv);
/* Verdict table on a terminal. */
void rl_report_print(const rl_report *r, FILE *fp);
/* The section in markdown. */
void rl_report_markdown(const rl_report *r, FILE *fp);
/* The checks as TSV rows: name, verdict (holds / does not hold / info),
 * what, predicted, measured (tabs and newlines inside become spaces). */
void rl_report_tsv(const rl_report *r, FILE *fp, const char *name);
/* Counts of checks that hold / do not. */
void rl_report_counts(const rl_report *r, int *yes, int *no);
const char *rl_report_title(const rl_report *r);

/* printf into a caller-owned buffer and return it (for building
 * predicted/measured strings). */
const char *rl_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
