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
 *   positive drift               info (not a claim of the study), its phase agree.
 * The report is two steps: rl_mixing_summarise computes every number of its
 * files and rows from the run's results (rl_mix_res) into rl_mix_summary,
 * and the render step only formats that summary. */
#ifndef RL_EXP_MIXING_H
#define RL_EXP_MIXING_H

#include <complex.h>
#include <limits.h>

#include "../mc/family_mean.h"
#include "../mc/routes.h"
#include "../mc/sweep_cases.h"
#include "../mc/textsteps.h"
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

/* ---------- the results of one run ---------- */

typedef struct {
    long reps;        /* routes per family */
    int d;            /* dimension of the family sweep */
    long nmax;        /* longest route */
    long ntext;       /* tokens of text used */
    double topup_cap; /* the most one window row's top-up may cost (mixing.c) */
} rl_mix_size;

typedef struct {
    const char *label;
    rl_family f;
    unsigned long stream; /* the case's stream domain (registry) */
} rl_mix_spec;

/* One family of the sweep: its routes up to nmax. */
typedef struct {
    rl_mix_spec sp;
    long nmax, *grid;
    int ng;
    rl_route_stats *st;
    int has_mc;             /* no closed form: the estimate that set nmax */
    rl_family_mean_est mc;
    rl_mix_topup tu[2];     /* the top-ups of W(0.1), W(0.01) (ng = 0: none) */
} rl_mix_fam;

/* The study's variant at one d, block by block. */
typedef struct {
    int d, ng;
    long *grid;
    rl_route_stats *st;
} rl_mix_study;

/* The results of one run.  A part whose statistics are NULL (a study, the
 * text's, the drift's) has nothing to summarise and is left out of the
 * summary, so that a test can hand-build one part alone. */
typedef struct {
    rl_mix_size z;
    int nfam;
    rl_mix_fam fam[RL_SWEEP_CASES_MAX];
    rl_mix_study study[2];          /* d = 64, 96 */
    /* text-driven steps: n tokens of path, unigram norms per block, windows
     * inside a 512- and a 65,536-token context */
    char path[PATH_MAX]; /* the text's path, kept: rl_exp_text may return a buffer of the run's frame */
    long ntok, *tgrid;
    int tng;
    double norms[8];
    rl_textsteps_stats *ts[2];
    rl_route_stats *uni, *drift;    /* block 0 of d = 2, uniform and drift laws */
} rl_mix_res;

/* ---------- the summary: every number the report shows ---------- */

/* One window row W(eps): the base run's measurement, and the bracket the
 * row is decided on (from the top-up's lengths when one ran). */
typedef struct {
    double eps, nrm;        /* nrm: the slowest mean step's norm (NaN: no closed form) */
    long wp;                /* predicted window (-1: never) */
    long wm;                /* first base length at or below eps (-1: none) */
    long nmax, reps;        /* the base run's longest route and replicates */
    double est_last, se_last; /* |E P_n| at nmax */
    rl_mix_topup tu;        /* ng = 0: none */
    double tu_pred[2];      /* nrm^n at the top-up's lengths */
    /* the decision (when 1 <= wp <= nmax), on the base lengths or the top-up's */
    long dmax, dreps;       /* its longest length and its replicates */
    double dest_end, dse_end; /* the estimate at dmax */
    int lower;              /* W > the first length: the lower side is checked */
    long n_lo, n_hi;        /* the bracket's lengths (-1: none) */
    double p_lo, p_hi;      /* predicted nrm^n there */
    double est_lo, se_lo, est_hi, se_hi;
    double x;               /* the rule's statistic (NaN: not formed) */
    long need;              /* replicates that would form the bracket (0: formed) */
    long need_margin;       /* formed: replicates at which the closer side would be 3 SE (-1: none) */
} rl_mix_window_sum;

/* One length of a family: its mixing_families.tsv line. */
typedef struct {
    long n;
    double norm, norm_se, norm_pred; /* the window's statistic (fam_point) and nrm^n */
    double op, coh, coh_se, coh_pred, sq, sq_se, sq_pred;
    double b0, b0_se, b0_pred, b0_phase, b0_phase_pred; /* SO(2) block 0 (NaN otherwise) */
} rl_mix_point;

/* One family: its rows' numbers and its lengths. */
typedef struct {
    const char *label;
    int d, ng;
    long nmax, reps;
    int has_mean;      /* a closed form */
    int deterministic; /* fixed steps: the mean route row checks the arithmetic */
    int windows;       /* rows W(0.1), W(0.01) */
    int has_mc;
    rl_family_mean_est mc; /* no closed form: the estimate that set nmax */
    double nrm, worst_z;   /* slowest mean step's norm; max |z| of the mean route */
    rl_mix_window_sum win[2];
    rl_mix_point *pt;      /* ng lengths (NULL from rl_mix_family_rows) */
} rl_mix_fam_sum;

#define RL_MIX_STUDY_MAXB 48 /* blocks of the study's widest head (d = 96) */

/* One block of the study's variant. */
typedef struct {
    double omega, norm;      /* omega_b, sin(omega_b)/omega_b */
    long w1, w2, wm;         /* W(0.1), W(0.01) predicted; W(0.1) measured */
    double m512, s512, p512; /* |mean P_512|, its SE, the prediction */
    double mL, sL, pL;       /* the same at the longest route */
    int cls;                 /* 0: mixes within 512, 1: coherent past 65536, 2: between */
} rl_mix_block;

typedef struct {
    int d, nb, ng;
    long reps, nmax;
    const long *grid;        /* the run's (not owned) */
    rl_mix_block blk[RL_MIX_STUDY_MAXB];
    double *curve_est, *curve_se, *curve_pred; /* [b * ng + g] */
    int mixed, coherent, agree;
    double zmax;             /* max |z| over blocks at n = 512 and nmax */
    long wlast;              /* W(0.1) of the slowest block */
} rl_mix_study_sum;

/* Text-driven steps: per context, block and length, and each block's windows. */
typedef struct {
    int d, nb, ng;
    long ntok;
    const char *path;
    const long *grid;        /* the run's (not owned) */
    double *est[2], *se[2], *pred; /* [b * ng + g] */
    int shown[8];            /* a window reached in either context */
    long w0[8], w1[8], wp[8];
    int same, resolvable, close;
} rl_mix_tokens_sum;

typedef struct {
    long nmax;
    double worst, worst_phase; /* max |z| of |mean P_n| drift vs uniform, and of the phase */
} rl_mix_drift_sum;

typedef struct {
    rl_mix_size z;
    int nfam, has_tokens, has_drift; /* a study is present where its nb > 0 */
    rl_mix_fam_sum fam[RL_SWEEP_CASES_MAX];
    rl_mix_study_sum study[2];
    rl_mix_tokens_sum tok;
    rl_mix_drift_sum drift;
} rl_mix_summary;

/* The summary of the run R into S (no files, no report); its arrays are
 * freed by rl_mixing_summary_free. */
void rl_mixing_summarise(const rl_mix_res *R, rl_mix_summary *S);
void rl_mixing_summary_free(rl_mix_summary *S);

/* One window row's numbers (rl_mix_window_row_tu's arguments) into w. */
void rl_mix_window_summarise(double nrm, double eps, const long *grid, const double *est, const double *se, int ng,
                             long reps, const rl_mix_topup *tu, rl_mix_window_sum *w);

#endif
