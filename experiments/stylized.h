/* stylized.h: claim 5's experiment (experiments/stylized.c) in the steps
 * that the tests can drive: the run's results (rl_sty_res), and the summary
 * of every number the report shows (rl_stylized_summarise: no files, no
 * report), which the report's render step only formats. */
#ifndef RL_EXP_STYLIZED_H
#define RL_EXP_STYLIZED_H

#include "../mc/stylized_model.h"
#include "../theory/study.h"

typedef struct {
    int d;
    long T;      /* training window */
    int steps, batch;
    long nq;     /* evaluation queries per fit */
    long lmax;   /* longest context */
    int nfit;    /* independent fits (model directions, fitted queries, evaluation draws) */
} rl_sty_size;

/* The results of one run: per fit its model (directions), its fitted
 * queries (nfit x STY_NFIT x d) and their fitting curves (nfit x STY_NFIT x
 * steps), and its queries' measurements res on the grid L = T 2^k (nfit x nq
 * x STY_NSCHEME x ng x STY_NQ); gT, g16, g128: the grid indices of T, 16T,
 * 128T. */
typedef struct {
    rl_sty_size z;
    sty_model *M; /* z.nfit */
    long grid[32];
    int ng, gT, g16, g128;
    double *Q, *curves, *res;
} rl_sty_res;

/* A quantity across fits: its mean and SE over the per-fit values, and how
 * many fits have it > 0. */
typedef struct {
    double mean, se;
    int pos;
} rl_sty_est;

/* A per-fit difference the sign rule decides: t = mean/SE, x the same as a
 * normal quantile across nfit fits (the rule's statistic), need: the fits
 * that would decide it at this mean and spread (-1: none up to 100,000). */
typedef struct {
    rl_sty_est d;
    double t, x;
    long need;
} rl_sty_sign;

/* One scheme at one L: its stylized.tsv line. */
typedef struct {
    rl_sty_est a, rho, nll, snr, bg, sig, lr, pr; /* lr, pr: loss and ppl ratios to L = T */
    double viol;                                  /* bound violations over every fit and query */
    double rho_bound, rho_alibi;                  /* rl_farmass_lower, rl_farmass_alibi at M = L - K */
} rl_sty_point;

#define RL_STY_NSTUDY 4 /* the study's variants of the ratio figure */

typedef struct {
    rl_sty_size z;
    double lambda, slope, key_noise, value_noise; /* the model's constants (those of every fit) */
    int k_near;
    long grid[32];
    int ng, gT, g16, g128;
    long window;                 /* W(0.1) of Householder transport, (1 - 2/d) */
    /* stylized_query.tsv: [(fit f, block b) * 9 + column], omega per block */
    int qh;
    double *q_omega, *q_mu, *q_se;
    /* stylized_logit.tsv: [(f, length g) * 2 + (u, w)] on lgrid */
    int lng;
    long *lgrid;
    double *l_mu, *l_se;
    /* stylized_fit.tsv: [f * steps + step] */
    double *c_mu, *c_se;
    rl_sty_point *pt;            /* [scheme * ng + g] */
    /* the study's ratios: per scheme at 8K/512 and 65K/512, per variant of the figure */
    int has_study[STY_NSCHEME];
    double study8[STY_NSCHEME], study65[STY_NSCHEME];
    const char *sv_name[RL_STY_NSTUDY];
    double sv_ppl[RL_STY_NSTUDY][RL_STUDY_NLEN], sv_ratio[RL_STY_NSTUDY][RL_STUDY_NLEN];
    /* the checks */
    long viol, nviol;            /* rotation-only lower bound: violations in nviol queries */
    rl_sty_sign more[3];         /* rope > random_qk at 16T, 128T; rope > haar at 16T */
    rl_sty_est grow_d;           /* random_qk: nll(128T) - nll(16T) */
    double grow;                 /* its least value over fits and queries */
    double wd;                   /* max |alpha(random_qk) - alpha(random_qkv)| */
    rl_sty_sign snr[2];          /* random_qkv SNR - random_qk SNR at 16T, 128T */
    double B;                    /* ALiBi's mass beyond 16T at 128T, closed form */
    rl_sty_est dr, dn;           /* ALiBi: rho and nll from 16T to 128T */
    double slack, flat;          /* their least slack over fits */
    double lb, cross;            /* rotation-only bound at the longest L, the L where it overtakes ALiBi's rho */
    rl_sty_sign below, control;  /* lb - rho(alibi); rho(nope) - rho(alibi) at the longest L */
    int ord[STY_NSCHEME];        /* schemes by ppl ratio at 128T, largest first */
} rl_sty_summary;

/* The summary of the run R into S (no files, no report); its arrays are
 * freed by rl_stylized_summary_free. */
void rl_stylized_summarise(const rl_sty_res *R, rl_sty_summary *S);
void rl_stylized_summary_free(rl_sty_summary *S);

#endif
