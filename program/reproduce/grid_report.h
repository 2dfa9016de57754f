/* grid_report.h: the report half of the grid (program/reproduce/grid_report.c): what a
 * finished grid's folder says, read back from its files. */
#ifndef RL_REPRO_REPORT_H
#define RL_REPRO_REPORT_H

#include "grid.h"

/* Write table.tsv, summary.tsv, orderings.tsv, valcheck.tsv, the figures
 * and REPORT.md from the finished grid (every model's eval.tsv; command:
 * the command line that ran the grid, named in REPORT.md). */
void rl_repro_report(const rl_repro *r, const char *command);

#endif
