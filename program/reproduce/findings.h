/* findings.h: the orderings of a grid grouped into independent findings.
 *
 * Rows of the orderings table are not independent pieces of evidence when
 * they compare the same variants at the same multiple, or when their
 * per-seed statistics move together across seeds (the cpu grid's four
 * "rope degrades more than X" rows correlate 0.993-0.999: rope's own log
 * ratio drives them all).  A finding is a connected group of rows under
 * the two links below, fixed before any run (docs/grids/seed-question.md#findings):
 *   shared   the same variant pair {a, b} (order ignored) at the same multiple;
 *   r        the rows share a variant and |Pearson r| >= RL_FINDINGS_R of their
 *            per-seed statistics, over the seeds both rows have (at least
 *            RL_FINDINGS_MIN_SEEDS): the shared variant's own log ratio moving
 *            both (between rows with no variant in common a 0.9 is chance,
 *            p = 0.015 a pair at six seeds, and a grid has ~100 pairs).
 * The verdict of a finding is its rows' verdict when they agree, otherwise
 * "mixed" with the counts: the table stays beneath, row by row. */
#ifndef RL_FINDINGS_H
#define RL_FINDINGS_H

#include "../report/verdict.h"
#include "grid.h"

/* The correlation across seeds above which two rows are one finding; with
 * 6 seeds a true r = 0 gives |r| >= 0.9 with probability 0.015. */
#define RL_FINDINGS_R 0.9
/* Below this many shared seeds no correlation is formed (r of 3 points is
 * too loose to link on). */
#define RL_FINDINGS_MIN_SEEDS 4

typedef struct {
    const char *what;     /* the row's name */
    const char *a, *b;    /* its variants (b NULL for a one-variant row) */
    long mult;            /* the multiple read */
    int corr;             /* 1: its per-seed statistic may be correlated with others' (a
                           * difference or a log ratio); 0: another scale (a rank's tau) */
    int k;                /* seeds */
    double x[RL_GRID_MAX_SEEDS]; /* the per-seed statistic (NaN: missing) */
    rl_verdict v;
} rl_finding_row;

/* Pearson r of x and y over the indices where both are finite; NaN when
 * fewer than RL_FINDINGS_MIN_SEEDS or a variance is 0. */
double rl_findings_r(const double *x, const double *y, int k);

/* Group rows[0..n-1] into findings: group[i] is the finding of row i,
 * numbered 0.. in the order of each finding's first row; returns their
 * number. */
int rl_findings_group(const rl_finding_row *rows, int n, int *group);

/* The verdict of finding g: the rows' common verdict, or RL_NVERDICT when
 * they differ (mixed; counts[v] says how many of each). */
rl_verdict rl_findings_verdict(const rl_finding_row *rows, int n, const int *group, int g,
                               int counts[RL_NVERDICT]);

#endif
