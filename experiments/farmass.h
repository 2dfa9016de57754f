/* farmass.h: `routelab farmass` (claim 3) in three steps, exposed so that a
 * test can drive the middle one on a hand-built run: the run's results
 * (rl_fm_res: every replicate's far masses, no statistic), the summary of
 * every number the report shows (rl_farmass_summarise: means, SEs, the
 * data-dependent forms, worst cases, crossings; no files, no report), and
 * the renderers in farmass.c, which only format the summary. */
#ifndef RL_FARMASS_H
#define RL_FARMASS_H

#include "../mc/softmax_mass.h"
#include "../mc/sweep_cases.h"
#include "../sampling/family.h"

#define RL_FM_MAXLAM 8
#define RL_FM_NSLOPE 8 /* the study's ALiBi slopes for H = 8 heads: m_h = 2^{-8h/H} = 2^{-h} */
#define RL_FM_NFAM RL_SWEEP_CASES_MAX /* the sweep's cases, the baseline none among them */

/* The data-dependent forms of one rotation-only cell (means over replicates):
 * the bounds at the observed max |logit| and at the realised range Delta,
 * rho_D over each (looseness, with SE), lambda_obs and Delta. */
enum { RL_FM_BOBS, RL_FM_BRANGE, RL_FM_ROBS, RL_FM_ROBS_SE, RL_FM_RRANGE, RL_FM_RRANGE_SE, RL_FM_LOBS,
       RL_FM_DELTA, RL_FM_FO_N };

typedef struct {
    long reps;     /* replicates per random family (NoPE is deterministic: 1) */
    int d, K;      /* dimension, near keys */
    long lmax;     /* longest context */
    int per_octave;
    int nlam;
    double lam[RL_FM_MAXLAM];
} rl_fm_size;

typedef struct {
    const char *label;
    int none;      /* NoPE: no transport */
    rl_family f;
    unsigned long stream; /* its random-stream domain */
} rl_fm_fam;

/* Per-replicate results of one family. */
typedef struct {
    long reps;
    double *rho;  /* reps x ng x nlam x nconf */
    double *mom;  /* reps x 2: mean far score and mean squared far score */
    double *rng;  /* reps x ng x 3: max near score, min far score, max |score| (logits: lambda times these) */
} rl_fm_run;

/* The results of one run: the sizes, the grid, every family's replicates,
 * and the extremal configuration and NoPE through the same accumulator. */
typedef struct {
    rl_fm_size z;
    double slopes[RL_FM_NSLOPE];
    long *grid;
    int ng;
    long far_from;
    rl_mass_spec *sp;
    int nfam;    /* none and the cases run */
    rl_fm_fam fa[RL_FM_NFAM];
    rl_fm_run run[RL_FM_NFAM];
    double *ext_rho, *ext_bound; /* nlam x ng: near logits +lambda, far -lambda, and the bound */
    double worst_nope;           /* max |rho - closed form| of NoPE (equal logits), with and without ALiBi */
} rl_fm_res;

/* One (family, length, lambda, configuration) cell: configuration 0 is
 * rotation only, c >= 1 ALiBi with slope c. */
typedef struct {
    double mean, sem, min, max; /* rho_D over the replicates */
    double low;                 /* the rotation-only lower bound M/(M + K e^{2 lambda}) */
    double alibi;               /* ALiBi's worst case (NaN at c = 0) */
    double ratio, ratio_se;     /* mean / low: the looseness of form (a) */
    double fo[RL_FM_FO_N];      /* rotation only: the data-dependent forms; NaN otherwise */
} rl_fm_cell;

/* One family's worst cases and far scores. */
typedef struct {
    double worst_low;         /* min over replicates, lambda, L of rho_D - lower bound */
    double wl_lam, wl_L;      /* where */
    double worst_range;       /* min of rho_D - realised-range bound */
    double worst_alibi;       /* max over replicates, lambda, L, m of rho_D - ALiBi's worst case */
    int mixed;                /* far scores: 0 no law, 1 Haar-like (E s^2 = 1/d), 2 fully mixed circle (2/(d+2)) */
    double m1, e1, m2, e2;    /* E s and E s^2 with SEs (the baseline none: unread) */
    double s2_pred;           /* NaN where mixed = 0 */
    double L_half[RL_FM_MAXLAM];            /* L where mean rho_D = 1/2: 0 at once, -1 never */
    double L_star[RL_FM_MAXLAM][3];         /* L*(1/2) of forms (a), (b), (c) */
} rl_fm_famsum;

/* ALiBi with one slope at one lambda, against the rotation-only bound. */
typedef struct {
    double B_inf;       /* sup_M of ALiBi's worst case */
    double L_star;      /* least L where the worst case is <= the rotation-only bound */
    double worst;       /* max over families of the mean rho_D at L_max */
    double low_max;     /* the rotation-only bound at L_max */
    long first_below;   /* the first grid L from which the worst family stays below; -1: none */
    double flat_change; /* max over replicates of |rho(L_max) - rho(L_max/4)| */
    double flat_bound;  /* e^{2 lambda - m L_max/4} / (1 - e^{-mK}) */
    int below;          /* worst < low_max */
    int guaranteed;     /* L_star <= L_max */
} rl_fm_alibi;

/* The summary of a run: every number of its files, rows and tables. */
typedef struct {
    int nfam, ng, nl, nc;
    long per;           /* cells a family: ng x nl x nc */
    long window;        /* the Householder chain's mixing window W(0.01) at d, in steps (the intro) */
    double ext_worst;   /* max |rho_D - bound| of the extremal configuration */
    double worst_nope;
    rl_fm_cell *cell;   /* nfam x per: cell[k per + (g nl + l) nc + c] */
    rl_fm_famsum fam[RL_FM_NFAM];
    double M_half[RL_FM_MAXLAM], L_half[RL_FM_MAXLAM]; /* where the lower bound is 1/2 */
    int half_ok;        /* every family's mean reaches 1/2 no later than the bound (within L_max) */
    int g_short;        /* the grid index of L = 1024 (0 if absent): the looseness table's short length */
    rl_fm_alibi alibi[RL_FM_MAXLAM][RL_FM_NSLOPE];
    int guaranteed[RL_FM_MAXLAM], below[RL_FM_MAXLAM], gbelow[RL_FM_MAXLAM]; /* slopes counted, per lambda */
    double worst_flat;
    int flat_ok;        /* every flat_change <= flat_bound */
} rl_fm_summary;

/* A summary sized for R (its cells allocated), to fill with rl_farmass_summarise. */
rl_fm_summary *rl_farmass_summary_alloc(const rl_fm_res *R);
void rl_farmass_summary_free(rl_fm_summary *S);

/* The summary of the run R into S (from rl_farmass_summary_alloc(R)): no
 * files, no report. */
void rl_farmass_summarise(const rl_fm_res *R, rl_fm_summary *S);

#endif
