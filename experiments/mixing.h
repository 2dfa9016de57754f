/* mixing.h: the verdict rows of claim 1 (experiments/mixing.c), one
 * function per kind of check, so that the tests can feed each decision a
 * hand-built measurement.  Each row's kind follows from what it checks:
 *   mean route = (mean step)^n   agree (|z| <= 5), verified; deterministic steps:
 *                                identity; no closed form: no prediction;
 *   window W(eps)                window: the crossing bracketed at lengths where
 *                                the prediction is 6 SE from eps (rule window,
 *                                claims.c), verified; no such length in the run:
 *                                unresolved, with the replicates that would
 *                                decide it, unless a top-up (rl_mix_topup) at
 *                                the bracket's lengths with those replicates
 *                                decides it; E M = 0 (W = 1): a check of the
 *                                sampler, labelled so; W past the longest route:
 *                                info (the claim says nothing there);
 *   the study's blocks           agree (max |z| over blocks, n = 512 and nmax);
 *   text-driven steps            info (steps along text are not independent);
 *   positive drift               info (not a claim of the study), its phase agree. */
#ifndef RL_EXP_MIXING_H
#define RL_EXP_MIXING_H

#include <complex.h>

#include "../mc/family_mean.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "../sampling/family.h"

/* The claim's statement for one family: x = max |z| of the mean route
 * against (mean step)^n over ng lengths up to nmax (NaN kept: rl_worst);
 * nrm the closed-form mean step's norm (NaN: no closed form, no
 * prediction); deterministic: the steps are fixed (a check of the
 * construction, shown as identity). */
void rl_mix_mean_row(rl_report *rep, const char *label, int d, long nmax, int ng, double nrm, double worst_z,
                     int deterministic);

/* The window W(eps) of a family whose slowest mean step has norm nrm (NaN:
 * no prediction), against the measured |E P_n| (est, se on grid[0..ng-1],
 * from reps replicates: the row says how many would decide it). */
void rl_mix_window_row(rl_report *rep, const char *label, double nrm, double eps, const long *grid,
                       const double *est, const double *se, int ng, long reps);

/* The top-up of one window row that the base run cannot decide by design
 * (no length where the prediction is 6 SE from eps): independent routes at
 * just the bracket's lengths, with the replicates the rule needs, planned
 * before the run from the base run's SE (rl_mix_topup_plan). */
typedef struct {
    int ng;             /* lengths: 1 (n_hi; W = 1) or 2 (n_lo, n_hi); 0: no top-up */
    long n[2];          /* the lengths, increasing */
    long need;          /* replicates the rule needs there, from the base SE */
    long reps;          /* replicates planned: ceil(1.5 need) */
    double cost;        /* reps x n_hi x the family's cost of a step */
    double cap;         /* the cap it was planned under */
    int capped;         /* cost over the cap: not run, the row stays unresolved */
    double est[2], se[2]; /* measured (when run) */
} rl_mix_topup;

/* Plans the top-up of the window W(eps) row of a family with slowest mean
 * step norm nrm, from the base run (se on grid[0..ng-1], reps replicates):
 * 1 with the plan in *tu when the base run has no bracket, 0 (tu->ng = 0)
 * when it has one or the row is no window check.  unit: the cost of one
 * step of a route; cap: the most reps x n_hi x unit a top-up may cost. */
int rl_mix_topup_plan(double nrm, double eps, const long *grid, const double *se, int ng, long reps,
                      double unit, double cap, rl_mix_topup *tu);

/* Runs the planned top-up tu of family f (unless capped or empty): tu->reps
 * routes at tu->n on the stream (seed, key(key(RL_STREAM_MIX_TOPUP + e,
 * stream), replicate)), e the window's index (0: eps 0.1, 1: 0.01), stream
 * the case's; its estimates into tu->est, tu->se (the statistic of the base
 * run: |tr P_n|/d, SO(2) the largest block modulus). */
rl_status rl_mix_topup_run(const rl_family *f, unsigned long stream, int e, unsigned long seed, rl_mix_topup *tu,
                           rl_err *err);

/* The lines of mixing_windows.tsv for one top-up that ran (family, eps, n,
 * reps, estimate, se, predicted nrm^n). */
void rl_mix_topup_rows(rl_tsv *t, const char *label, double eps, double nrm, const rl_mix_topup *tu);

/* rl_mix_window_row, decided from the top-up tu when it ran (NULL, or
 * tu->ng = 0: from the base run); a capped top-up is named in the row. */
void rl_mix_window_row_tu(rl_report *rep, const char *label, double nrm, double eps, const long *grid,
                          const double *est, const double *se, int ng, long reps, const rl_mix_topup *tu);

/* The rows of one family of the sweep: its mean route (rl_mix_mean_row) and
 * windows W(0.1), W(0.01) (rl_mix_window_row) from its closed form
 * (sampling/family_ops.h); reps: the routes per length; a family with no
 * closed form gets one *no prediction* row and no verdict, naming the Monte Carlo estimate mc that
 * set its route length (NULL: none). */
void rl_mix_family_rows(rl_report *rep, const rl_family *f, const char *label, long nmax, int ng, double worst_z,
                        const long *grid, const double *est, const double *se, long reps,
                        const rl_family_mean_est *mc);

/* |measured - predicted| in SE; differences up to 1e-9 are rounding (the
 * slow blocks' SE can be that small), 0/0 is 0. */
double rl_mix_z(double measured, double predicted, double se);

/* Positive drift U(0, 2w) against U(-w, w) on one block (w = 1): the means of
 * e^{i Phi_n} on grid[0..ng-1] with their SE. */
void rl_mix_drift_rows(rl_report *rep, const long *grid, int ng, const double complex *chi_u, const double *se_u,
                       const double complex *chi_d, const double *se_d);

/* One block of text-driven steps: W(0.1) in the 512- and 65,536-token
 * contexts (w0, w1; -1: not reached) and from the unigram law (wp). */
void rl_mix_text_row(rl_report *rep, int block, long w0, long w1, long wp);

#endif
