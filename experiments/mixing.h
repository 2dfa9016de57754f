/* mixing.h: the verdict rows of claim 1 (experiments/mixing.c), one
 * function per kind of check, so that the tests can feed each decision a
 * hand-built measurement.  Each row's kind follows from what it checks:
 *   mean route = (mean step)^n   agree (|z| <= 5), verified; deterministic steps:
 *                                identity; no closed form: no prediction;
 *   window W(eps)                window: the crossing bracketed at lengths where
 *                                the prediction is 6 SE from eps (rule window,
 *                                claims.c), verified; no such length in the run:
 *                                unresolved, with the replicates that would
 *                                decide it; E M = 0 (W = 1): a check of the
 *                                sampler, labelled so; W past the longest route:
 *                                info (the claim says nothing there);
 *   the study's blocks           agree (max |z| over blocks, n = 512 and nmax);
 *   text-driven steps            info (steps along text are not independent);
 *   positive drift               info (not a claim of the study), its phase agree. */
#ifndef RL_EXP_MIXING_H
#define RL_EXP_MIXING_H

#include <complex.h>

#include "../mc/family_mean.h"
#include "../report/report.h"
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
