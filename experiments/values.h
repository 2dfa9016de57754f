/* values.h: the verdict rows of claim 4 (experiments/values.c), one function
 * per kind of check, so that the tests can feed each decision a hand-built
 * measurement.  Kinds, from what each row checks:
 *   E||r||^2, tr Cov(r), slopes, the near target against exact laws: agree;
 *   tr Cov(r) below the study's bound on S: bound;
 *   the exact formula's slope against the law the claim names: exact;
 *   E||r_b||^2 per block (skewed terms): agree-n (unresolved below 256
 *   replicates);
 *   every row of the family without value transport (P = I) follows from the
 *   construction (r = rho vbar + noise): identity.
 * And the run's results and their summary (rl_values_summarise: every
 * number of the report, no files, no report), so that a test can summarise
 * a hand-built run. */
#ifndef RL_EXP_VALUES_H
#define RL_EXP_VALUES_H

#include <complex.h>

#include "../mc/sweep_cases.h"
#include "../program/report/report.h"
#include "../sampling/family.h"

/* Replicates from which a per-block z is a 5-SE test (rl_rule_agree_n). */
#define RL_VAL_BLOCK_REPS 256

#define RL_VAL_NFAM RL_SWEEP_CASES_MAX /* the sweep's cases, the baseline none among them */
#define RL_VAL_NGROUP 16 /* jackknife groups of replicates for slope errors */
#define RL_VAL_NNEAR 5   /* the near target's route lengths n = 1, 2, 4, 8, 16 */
#define RL_VAL_MAXD 64   /* the largest d of a family (SO(2): d/2 blocks) */

/* The run's size. */
typedef struct {
    long reps;       /* replicates per family, a multiple of RL_VAL_NGROUP */
    int d;           /* dimension of SO(2), Householder, none */
    long mmax;       /* most far tokens */
    int haar_d;      /* Haar: small d (O(d^3) per step) */
    long haar_mmax, haar_reps;
    long near_reps;  /* replicates of the near-target check */
} rl_val_size;

typedef struct {
    const char *label;
    int none;        /* no value transport */
    rl_family f;
    long reps, mmax;
    int slot;        /* its slot in the sweep: the near target's streams */
    unsigned long stream; /* the far walk's stream domain */
} rl_val_fam;

/* One family's far contribution as measured: the grid of M, the mean step
 * per block and ||vbar_b||^2, and the replicates reduced to means, SEs and
 * group sums (their sums themselves, reps x ng x d, are not kept). */
typedef struct {
    int ng, nb, width;          /* grid points, blocks, coordinates a block */
    long *grid;
    double complex chi[RL_VAL_MAXD];
    double vn2[RL_VAL_MAXD];
    double *msq, *msq_se;       /* ng: E||r||^2 */
    double *trcov, *trcov_se;   /* ng: trace of Cov(r) */
    double *bmsq, *bmsq_se;     /* ng x nb: E||r_b||^2 at [g nb + b] */
    double *grp;                /* (nb + 1) x NGROUP x ng: group i's sum of ||r_b||^2 at [(b NGROUP + i) ng + g],
                                 * b = nb: of ||r||^2 */
} rl_val_far;

/* One family's near target as measured: the unit target v_t and, per route
 * length, the coordinates of the mean of P_n v_t with their SEs and
 * E||P_n v_t - v_t||^2 with its SE. */
typedef struct {
    double vt[RL_VAL_MAXD];
    double mean[RL_VAL_NNEAR][RL_VAL_MAXD], se[RL_VAL_NNEAR][RL_VAL_MAXD];
    double dev2[RL_VAL_NNEAR], dev2_se[RL_VAL_NNEAR];
} rl_val_near;

/* The results of one run: every family's far contribution and near target. */
typedef struct {
    rl_val_size z;
    int nfam; /* none and the cases run */
    rl_val_fam fa[RL_VAL_NFAM];
    rl_val_far far[RL_VAL_NFAM];
    rl_val_near near[RL_VAL_NFAM];
} rl_val_res;

/* One family's near target after n steps: the preserved fraction <v, P_n v>
 * (SE from the deviation), its prediction, E||P_n v - v||^2 and the largest
 * |z| over the coordinates of E[P_n v]. */
typedef struct {
    double pres, pres_se, pres_pred, dev2, dev2_se, dev2_pred, zmax;
} rl_val_near_cell;

/* Every number the report shows of one family beside its measurements. */
typedef struct {
    double *msq_pred, *trcov_pred, *bound; /* ng: exact E||r||^2, tr Cov(r), and the bound on tr Cov */
    double *bmsq_pred;                     /* ng x nb */
    double worst_z, worst_bz, worst_cz;    /* max |z|: total, blocks, covariance */
    double worst_cb;                       /* max (tr Cov - bound)/SE */
    int g0;                                /* the slopes are fitted over grid[g0..ng-1] */
    double slope, slope_se, slope_pred;    /* log-log slope of ||r||_rms, jackknife SE, exact formula's */
    double target;                         /* the law the claim names: 0, -1/2, NaN (none) */
    double *bslope, *bslope_se, *bslope_pred, *bslope_z; /* nb: per block */
    long *bwindow;                         /* nb: W(0.1) of |chi_b| */
    double bslope_zmax;                    /* max over blocks of bslope_z */
    int bagree;                            /* blocks whose |z| <= 5 */
    int bclass[3];                         /* blocks incoherent, transitional, coherent (exact slope) */
    double near_chi;                       /* the scalar mean step (non-SO(2)) */
    double near_worst;                     /* max |z| over lengths, coordinates and the deviation */
    rl_val_near_cell near[RL_VAL_NNEAR];
} rl_val_famsum;

/* The summary of a run. */
typedef struct {
    int nfam;
    rl_val_famsum fam[RL_VAL_NFAM];
    /* the reading of the study's law against circle angles (families study
     * and circle, -1 when the subset lacks one): blocks incoherent and their
     * share of ||vbar||^2 */
    int study, circle, inc;
    double wsum;
} rl_val_summary;

/* A summary sized for R, to fill with rl_values_summarise. */
rl_val_summary *rl_values_summary_alloc(const rl_val_res *R);
void rl_values_summary_free(rl_val_summary *S);

/* The summary of the run R into S (from rl_values_summary_alloc(R)): the
 * exact laws, z-scores, slope fits, block classes and near-target
 * predictions; no files, no report. */
void rl_values_summarise(const rl_val_res *R, rl_val_summary *S);

/* A check of an exact law on family `label`: x = max |z| (rl_rule_agree), or
 * an identity when the family has no value transport (none). */
void rl_val_agree_row(rl_report *rep, int none, double x, const char *what, const char *predicted,
                      const char *measured);

/* E||r_b||^2 per block: max |z| over blocks and lengths from reps replicates. */
void rl_val_block_row(rl_report *rep, const char *label, int nb, int ng, long reps, double worst_bz);

/* The log-log slope of ||r||_rms: measured slope ± se against the exact
 * formula's (pred) over mlo..mhi, and (target not NaN) the exact slope
 * against the law the claim names, within 0.05 (the finite-M correction). */
void rl_val_slope_rows(rl_report *rep, const char *label, int none, long mlo, long mhi, double slope, double se,
                       double pred, double target);

/* tr Cov(r): max |z| against the exact value (worst_cz), and the largest
 * excess over the bound in SE (worst_cb); measured: the numbers to show. */
void rl_val_cov_rows(rl_report *rep, const char *label, int none, double worst_cz, double worst_cb,
                     const char *measured);

#endif
