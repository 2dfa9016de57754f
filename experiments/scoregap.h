/* scoregap.h: `routelab scoregap` in three steps, exposed so that tests can
 * drive each: the run's results (rl_sg_res), the summary of every number the
 * report shows (rl_scoregap_summarise: no files, no report), and the
 * decisions rendered from it (rl_scoregap_verdicts, fed hand-built summaries
 * in the tests: a counterexample for each decision), with the second-moment
 * certificate of a cell. */
#ifndef RL_SCOREGAP_H
#define RL_SCOREGAP_H

#include <stddef.h>

#include "../mc/gapchain.h"
#include "../program/report/report.h"
#include "../sampling/family.h"

enum { RL_SG_HOUSEHOLDER, RL_SG_CIRCLE, RL_SG_STUDY, RL_SG_NFAM };
#define RL_SG_MAXD 4
#define RL_SG_NNEAR 3 /* near distances n_near = 1, 4, 16 */

/* The run's size: d's, the largest M_L, the replicate budget. */
typedef struct {
    int nd, d[RL_SG_MAXD];
    long mmax;        /* largest M_L */
    double budget;    /* estimated single-core ns per family and d */
    long rmin, rmax;  /* replicates per family and d */
} rl_sg_size;

/* One (family, d) cell of a run: its chains' spec, closed forms and chains. */
typedef struct {
    rl_gc_spec gc;        /* family, delta0, lambda, near distances */
    int so2;
    double c;             /* dense: E[M] = c I */
    unsigned long stream; /* the case's stream domain (keyed by d) */
} rl_sg_spec;

typedef struct {
    double near[RL_SG_NNEAR]; /* E s_near */
    double *es;               /* E s at delta0 + j, j < M_L max */
    double *lm;               /* log E e^{lambda s} at delta0 + j */
    double s2;                /* sum_b a_b^2 of the query (Hoeffding) */
} rl_sg_pred;

typedef struct {
    rl_sg_spec sp;
    rl_sg_pred p;
    rl_gc_cell c;
} rl_sg_run_cell;

/* The results of one run. */
typedef struct {
    rl_sg_size z;
    long g[RL_GC_MAXG];
    int ng;
    rl_sg_run_cell cell[RL_SG_MAXD][RL_SG_NFAM]; /* [d index][family] */
    int run[RL_SG_NFAM];                         /* whether the family's row was run (a subset runs some) */
} rl_sg_res;

/* The checks whose derivation assumes far routes near Haar (sub-Gaussian
 * proxy 1/d), at one d; NaN / -inf where there is nothing to read. */
typedef struct {
    int d;
    char unmet[256];           /* "": certified at delta_0; else rl_moment2_unmet's phrase */
    double max_over;           /* max (E max s - sqrt(2 log M/d))/SE */
    double ratio_lo, ratio_hi; /* E max s / sqrt(2 log M/d), M >= 10 */
    double gap_over;           /* max (bound - gap)/SE */
    double union_over, union_worst; /* (frequency - delta)/SE, and the largest frequency */
    double logr_over;          /* max (bound - E log R)/SE */
} rl_sg_dsum;

/* One family's summary over its d's. */
typedef struct {
    double near_z;    /* max |z| of near scores against their closed form */
    double meanfar_z; /* max |z| of the mean far score */
    double gapu_over; /* max (gap - upper bound)/SE (any family) */
    double hunion_over, hunion_worst; /* Hoeffding union around E s_j (SO(2)) */
    double logr_slack_end; /* E log R - bound at the largest M and d, n_near = 4 */
    int logr_needs_mixing; /* the weight-ratio bound uses the sphere's mgf (not exact at each length) */
    int nd;
    rl_sg_dsum at[RL_SG_MAXD];
} rl_sg_sum;

/* One M_L of a cell: the numbers of its scoregap_far.tsv row. */
typedef struct {
    long M;
    double max, max_se, pred;           /* E max_j s_j and sqrt(2 log M / d) */
    double q95;                         /* the 1 - delta quantile of max_j |s_j| */
    double union_t, union_fr, union_se; /* Ball's threshold, how often it is reached, the SE at delta */
    double hoeff_t, hoeff_fr;           /* Hoeffding's threshold around E s_j, how often reached */
    double meanfar, meanfar_se, meanfar_pred;
    double maxcen, maxcen_se;           /* E max_j |s_j - E s_j| */
} rl_sg_far;

/* One (n_near, M_L) point of a cell: its scoregap_gap.tsv row. */
typedef struct {
    double gap, gap_se;
    double gap_bound; /* E s_near - sqrt(2 log M/d); NaN where the certificate fails */
    double gap_upper; /* E s_near - max_j E s_j */
    double logr, logr_se, logr_bound;
} rl_sg_gap;

/* Every number the report shows of one (family, d) cell. */
typedef struct {
    int d;
    long delta0, reps;
    double lambda;
    double near[RL_SG_NNEAR], near_se[RL_SG_NNEAR], near_pred[RL_SG_NNEAR];
    double es0; /* E s at delta0 */
    int ng;
    rl_sg_far far[RL_GC_MAXG];
    rl_sg_gap gap[RL_SG_NNEAR][RL_GC_MAXG];
    /* M_L where E log R = 0 at n_near = 4, predicted and measured: 0 below
     * 1, -1 beyond the grid */
    double mstar_pred, mstar_meas;
} rl_sg_cell;

/* The summary of a run: every number of its files, rows and table. */
typedef struct {
    rl_sg_sum fam[RL_SG_NFAM];
    rl_sg_cell cell[RL_SG_MAXD][RL_SG_NFAM]; /* [d index][family], where run[family] */
    int run[RL_SG_NFAM];
    int nd, dlast;
    long mmax;
} rl_sg_summary;

/* The family's labels in rows and TSV files. */
extern const char *const rl_sg_label[RL_SG_NFAM];

/* Claim 2's hypothesis for the far routes of family f starting at delta0:
 * NULL when rl_moment2_unmet certifies it, else its phrase in buf. */
const char *rl_scoregap_unmet(const rl_family *f, long delta0, char *buf, size_t len);

/* The summary of the run R into S (no files, no report). */
void rl_scoregap_summarise(const rl_sg_res *R, rl_sg_summary *S);

/* Every check of the section into rep (dlast, mmax: where logr_slack_end
 * was read). */
void rl_scoregap_verdicts(const rl_sg_sum S[RL_SG_NFAM], int dlast, long mmax, rl_report *rep);

#endif
