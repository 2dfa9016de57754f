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
 *                                                 (no noise): identity.
 * The report is two steps: rl_mixstay_summarise computes every number of
 * its files and rows from the run's results (rl_ms_res) into rl_ms_summary,
 * and the render step only formats that summary. */
#ifndef RL_EXP_MIXSTAY_H
#define RL_EXP_MIXSTAY_H

#include "../base/core/err.h"
#include "../program/report/report.h"
#include "../sampling/family.h"
#include "../theory/mixstay_forms.h"
#include "../theory/study.h"

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

/* ---------- the results of one run ---------- */

#define RL_MS_NLAWS 5 /* uniform, drift, pm, gauss, constant (mixstay.c) */
#define RL_MS_NREG 3  /* cpu-matched, cpu-10000, study */
#define RL_MS_MAXB (RL_STUDY_HEAD_DIM / 2)
/* The Monte Carlo checks: each law at two blocks of the CPU head (matched
 * base), a quarter of the way down and the slowest, at the block's arg max
 * pair. */
#define RL_MS_NMC (2 * RL_MS_NLAWS)

typedef struct {
    long m, reps; /* samples per law and replicate, replicates */
} rl_ms_size;

/* One head: its blocks' out-of-range distances and each law's score. */
typedef struct {
    const char *name, *what;
    int d;
    long t, l;
    double base;
    long nfar; /* far lengths searched (l - t: exact) */
    rl_mixstay_block blk[RL_MS_NLAWS][RL_MS_MAXB];
    double score[RL_MS_NLAWS][2];
} rl_ms_regime;

/* One Monte Carlo check: law index, block, the pair, d_N^2 closed form and estimate. */
typedef struct {
    int law, block;
    double omega;
    long far, near;
    double pred, mean, se;
} rl_ms_mc;

typedef struct {
    rl_ms_size z;
    rl_ms_regime reg[RL_MS_NREG];
    double gap; /* max ||chi_uniform| - |chi_drift|| over the CPU head's blocks and harmonics */
    /* the min-distance curves of two blocks of the CPU head (matched base) */
    int cb[2];
    long ncurve, *grid;
    double *curve[2][RL_MS_NLAWS];
    rl_ms_mc mc[RL_MS_NMC];
} rl_ms_res;

/* ---------- the summary: every number the report shows ---------- */

typedef struct {
    double omega[RL_MS_MAXB];               /* each block's frequency */
    double chi1[RL_MS_NLAWS][RL_MS_MAXB];   /* |chi_b(1)| of each law */
} rl_ms_regime_sum;

typedef struct {
    rl_ms_regime_sum reg[RL_MS_NREG];
    double curve_omega[2]; /* the curves' blocks' frequencies */
    double z[RL_MS_NMC];   /* |z| of each Monte Carlo check against its closed form */
} rl_ms_summary;

/* The summary of the run R into S (no files, no report). */
void rl_mixstay_summarise(const rl_ms_res *R, rl_ms_summary *S);

#endif
