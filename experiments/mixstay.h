/* mixstay.h: the claim "mix or stay" (number 1, beside the mixing window):
 * routelab's condition (theory/mixstay_forms.h) for five step laws in the CPU
 * grid's head and the study's, and its verification by Monte Carlo.  The
 * rows, one function per kind, so that the tests can feed each a hand-built
 * measurement:
 *   equal |chi| of zero-mean and positive steps   identity (by construction:
 *                                                 the study's condition cannot
 *                                                 tell the two laws apart);
 *   their scores S(16T) in each head               info (a reading of ours,
 *                                                 not the study's claim);
 *   d_N^2 at a block's arg max pair by Monte       agree (|z| <= 5 over
 *   Carlo against the closed form                  independent replicates),
 *                                                 verified; constant steps
 *                                                 (no noise): identity. */
#ifndef RL_EXP_MIXSTAY_H
#define RL_EXP_MIXSTAY_H

#include "../base/core/err.h"
#include "../program/report/report.h"
#include "../sampling/family.h"

/* The CPU grid's head (program/reproduce/preset.c, preset cpu: width 128 in 4 heads,
 * T = 64; tests/test_exp_mixstay.c checks these against the preset).  Its
 * base is the mixing-matched one (theory/matched.h), computed at run time. */
#define RL_MIXSTAY_CPU_D 32
#define RL_MIXSTAY_CPU_T 64

/* The CPU head's mixing-matched base into *base: rl_match_choose at the
 * study's fractions (eps RL_MATCH_STUDY_EPS, T and 128T), as the grid's
 * rl_grid_match for preset cpu (the test checks that the two agree). */
rl_status rl_mixstay_cpu_base(double *base, rl_err *err);

/* The identity row: max over blocks and harmonics of ||chi_uniform| -
 * |chi_drift|| (gap), in the head (d, base). */
void rl_mixstay_chi_row(rl_report *rep, const char *head, double gap);

/* The info row of one head: the scores [lo, hi] of the zero-mean (u) and
 * positive (p) laws at L = mult T. */
void rl_mixstay_score_row(rl_report *rep, const char *head, long mult, const double *u, const double *p);

/* The verified row of one Monte Carlo check: law (its name), block b with
 * frequency omega, the pair (far, near), the closed form's d_N^2 pred, the
 * estimate mean +- se over reps replicates of m samples. */
void rl_mixstay_mc_row(rl_report *rep, rl_angle_law law, int b, double omega, long far, long near, double pred,
                       double mean, double se, long reps, long m);

#endif
