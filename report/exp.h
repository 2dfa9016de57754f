/* exp.h: what every Monte Carlo experiment shares: its context (output
 * folder, seed, threads, preset), its tab-separated outputs, its figures and
 * its verdicts.  Each experiment is a function rl_exp_NAME(ctx, report) that
 * both its own subcommand and `routelab theory` call. */
#ifndef RL_EXP_H
#define RL_EXP_H

#include <stdio.h>

#include "../core/opts.h"
#include "../core/stats.h"

typedef enum { RL_PRESET_QUICK, RL_PRESET_FULL } rl_preset;
#define RL_PRESET_NAMES "quick|full"

typedef struct {
    const char *out;    /* output folder (created) */
    long seed;
    int threads;
    int svg;            /* figures also as SVG */
    int preset;         /* rl_preset: sizes of the Monte Carlo */
    const char *text;   /* a text file for token-driven steps (NULL: default) */
} rl_exp_ctx;

/* The flags every experiment takes. */
#define RL_EXP_OPTS_(c)                                                                     \
    RL_OPT_STR_("out", &(c)->out, "output folder for the TSV files and figures"),                  \
    RL_OPT_SEED_(&(c)->seed),                                                                           \
    RL_OPT_THREADS_(&(c)->threads),                                                                \
    RL_OPT_CHOICE_("preset", &(c)->preset, "Monte Carlo size", RL_PRESET_NAMES),                   \
    RL_OPT_FLAG_("svg", &(c)->svg, "also write each figure as SVG")

/* Parse an experiment's flags (its own table, ending with RL_EXP_OPTS_),
 * create the output folder, set the threads. */
void rl_exp_parse(const char *cmd, const char *synopsis, const char *description, rl_opt *opts,
                  int argc, char **argv, rl_exp_ctx *ctx);

/* The defaults: out = results/NAME, seed 1, all cores, quick preset. */
rl_exp_ctx rl_exp_default(const char *out);

/* ---- verdicts and report sections ---- */

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

/* ---- tab-separated output files ---- */

typedef struct rl_tsv rl_tsv;
/* DIR/NAME with the header row (tab-separated column names). */
rl_tsv *rl_tsv_open(const rl_exp_ctx *ctx, const char *name, const char *header);
void rl_tsv_row(rl_tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rl_tsv_close(rl_tsv *t);

/* ---- figures ---- */

/* Run plots/SCRIPT.gp with gnuplot: variables `plotdir`, `dir` (the output folder),
 * `out` (the image file), `term` ("png" or "svg") and the extra definitions
 * in vars ("a='x'; b=2", may be NULL).  Writes OUTNAME.png (and .svg when
 * ctx->svg) through a temporary file; dies if gnuplot fails. */
void rl_plot(const rl_exp_ctx *ctx, const char *script, const char *outname, const char *vars);

/* printf into a static-free, caller-owned buffer and return it (for
 * building predicted/measured strings). */
const char *rl_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
