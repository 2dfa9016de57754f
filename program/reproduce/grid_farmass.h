/* grid_farmass.h: the grid report's far-mass prediction section
 * (docs/theory/farpred.md#far-mass-prediction): every model's far mass at 2T .. max_mult T
 * predicted from within T (routelab farpred: routelab's predictor, the same with mixing switched
 * off, the mean-field form, dilution, the bound) against the probe's
 * measurement at the same lengths; the study's bound with the realised
 * lambda counted; the mixing verdict per variant and length; the loss
 * horizons measured and predicted. */
#ifndef RL_REPRO_FARMASS_H
#define RL_REPRO_FARMASS_H

#include <stdio.h>

#include "../report/outdir.h"
#include "../report/verdict.h"
#include "grid.h"
#include "order.h"

/* The minimal effect size of farpred's rule (two points of far mass): on
 * the heads where blocks mix, at 8T, 16T and 32T, the per-seed paired
 * difference d = MAE(ablation) - MAE(routelab's predictor) (the ablation:
 * mixing switched off, or dilution) decided by rule effect with this delta
 * (fixed before the grid that reads it: docs/theory/farpred.md#farpred-comparisons). */
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

/* The rule on per-seed values d[0..k-1] = MAE(ablation) - MAE(routelab)
 * over a variant's mixing heads at one length: rule effect with delta
 * RL_FARPRED_MARGIN (holds: routelab's predictor better; absent at this
 * scale: within +-delta; contradicted: worse; else unresolved). */
rl_order rl_farpred_decide(const double *d, int k);

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
