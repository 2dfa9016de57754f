/* trajectory.h: the grid report's training-trajectory section
 * (docs/grids/vtraj-and-reruns.md#vtraj): the orderings of the table (program/reproduce/orderings.h) that
 * are read at every stage (their `stages` flag), decided at each stage of the grid's
 * training (program/reproduce/grid.h, rl_repro_stages: the kept checkpoints, then
 * the final model) by the same rule on the same windows; a table per stage,
 * trajectory.tsv, the figure trajectory.png (the per-seed mean difference
 * against the training step, +- its seed SE), and a verdict line per
 * ordering that, where the effect does not show, says how many seeds (and,
 * by a stated extrapolation, steps) it would take. */
#ifndef RL_REPRO_TRAJECTORY_H
#define RL_REPRO_TRAJECTORY_H

#include <stdio.h>

#include "../report/outdir.h"
#include "grid.h"
#include "order.h"
#include "orderings.h"

/* One ordering at one stage: the decision and its per-seed statistic. */
typedef struct {
    long step;   /* the stage's last step */
    double lr;   /* the learning rate of that step */
    long mult;   /* the multiple of T read */
    rl_order o;  /* the rule's decision (program/reproduce/grid_report.c, the orderings' own) */
    double d[RL_GRID_MAX_SEEDS]; /* the per-seed statistic (o.k of them) */
} rl_traj_point;

/* The steps a trend must cover before the verdict line extrapolates it. */
#define RL_TRAJ_MIN_STAGES 2

/* The step at which a mean growing linearly from (s0, m0) to (s1, m1)
 * reaches target: s1 + (target - m1) (s1 - s0) / (m1 - m0) (routelab's
 * extrapolation, stated as such, never a prediction of the study); -1 when
 * the mean does not grow (m1 <= m0), s1 <= s0, or a value is NaN; s1 when
 * m1 already reaches target. */
long rl_traj_steps_to(long s0, double m0, long s1, double m1, double target);

/* Writes trajectory.tsv and trajectory.png into od and the section into
 * fp: ne orderings (their entries e[0..ne-1], named what[i]) at ns stages,
 * pts[i * ns + j] the point of ordering i at stage j (increasing steps, the
 * last the final model). */
void rl_repro_trajectory_section(const rl_repro *r, FILE *fp, const rl_outdir *od, const rl_ordering *const *e,
                                 const char *const *what, int ne, const rl_traj_point *pts, int ns);

#endif
