/* farmass.h: the grid report's far-mass prediction section (issue 22,
 * NOTES.md §17): every model's far mass at 2T .. max_mult T predicted from
 * within T (routelab farpred: the theory, dilution, the bound) against the
 * probe's measurement at the same lengths, the rule's verdict per variant,
 * and the loss horizons measured and predicted. */
#ifndef RL_REPRO_FARMASS_H
#define RL_REPRO_FARMASS_H

#include <stdio.h>

#include "../report/outdir.h"
#include "../report/verdict.h"
#include "grid.h"

/* The margin of the rule (fixed before the committed run): on the heads
 * where blocks mix, the theory's mean absolute far-mass error is below
 * dilution's by more than this, decided by rule sign across seeds. */
#define RL_FARPRED_MARGIN 0.02
/* A block mixes beyond T when its coherence falls by at least this much
 * between the band (|chi|^{T/2}) and 128 T. */
#define RL_FARPRED_MIXES 0.1
/* The measured loss horizon: the first length whose newest-position log
 * ratio exceeds log(this) by rule sign across seeds (x >= 3). */
#define RL_HORIZON_EFFECT 1.10
/* The predicted loss horizon: the first length whose predicted head-mean
 * far mass reaches this (the far keys weigh as much as the near ones). */
#define RL_HORIZON_FAR 0.5

/* The verdict of the rule on per-seed values d[0..k-1] = mean |err
 * dilution| - mean |err theory| over a variant's mixing heads and lengths:
 * rule sign on z((mean - RL_FARPRED_MARGIN)/SE) (k - 1 df). */
rl_verdict rl_farpred_decide(const double *d, int k, double *mean, double *se, double *x);

/* The first of n lengths (index) where the per-seed values x[i * k + s]
 * exceed threshold by rule sign across the k seeds, or -1; *undecided
 * receives the first length before it (or, with none, anywhere) that the
 * rule leaves unresolved, or -1 (then every earlier length is decided
 * below the threshold). */
int rl_horizon_first(const double *x, int n, int k, double threshold, int *undecided);

/* Writes farpred.tsv, farpred_summary.tsv, farpred_verdicts.tsv,
 * loss_horizons.tsv and farpred.png into od, and the section into fp.
 * newlr[(v * K + k) * nlen + i]: the newest-position log ratio of variant v,
 * seed k at lens[i] (NaN where not evaluated). */
void rl_repro_farmass_section(const rl_repro *r, FILE *fp, const rl_outdir *od, const double *newlr,
                              const long *lens, int nlen);

#endif
