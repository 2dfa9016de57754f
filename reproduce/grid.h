/* grid.h: running a grid of models (train, evaluate, probe) resumably. */
#ifndef RL_GRID_H
#define RL_GRID_H

#include "preset.h"

typedef struct {
    rl_grid g;          /* the preset after the command line's overrides */
    const char *out;    /* output folder */
    int threads;
    long stop_at;       /* stop every training at this step (0: never) */
    int report_only;    /* rewriting the report of a grid run earlier */
    int nvar;
    char **var;         /* the variants, split from g.variants */
} rl_repro;

/* Every model's optimizer steps: rl_train_opts_steps of g.train, the rule
 * `routelab train` itself follows (dies on a bad schedule, which the command
 * checks before any work). */
long rl_repro_steps(const rl_repro *r);

/* The model folder of variant v: OUT/models/NAME (malloc'ed). */
char *rl_repro_model_dir(const rl_repro *r, int v);

/* Evaluation lengths: ctx * 1, 2, 4, ..., max_mult; returns the count. */
int rl_repro_lengths(const rl_repro *r, long *len, int max);

/* Every input of the grid, checked before any folder is made or child run,
 * so that no child fails on them: each variant is a distinct scheme whose
 * model can be built, the data set loads with the grid's vocabulary and
 * holds the tokens that training (T + 1 in each split), every evaluation
 * length and the probe need.  RL_EINPUT naming the problem. */
rl_status rl_repro_check(const rl_repro *r, rl_err *err);

/* Train, evaluate and probe every variant, reusing what is finished and
 * resuming a half-trained model from its checkpoint; then the theory report.
 * Returns 0 when the grid is complete, 1 when --stop-at interrupted it. */
int rl_repro_run(const rl_repro *r);

/* Write table.tsv, the figures and REPORT.md from the finished grid. */
void rl_repro_report(const rl_repro *r, const char *command);

#endif
