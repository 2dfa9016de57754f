/* scoregap.h: the report half of `routelab scoregap` that decides the
 * checks, exposed so that tests can feed it hand-built summaries (a
 * counterexample for each decision) and the second-moment certificate of a
 * cell. */
#ifndef RL_SCOREGAP_H
#define RL_SCOREGAP_H

#include <stddef.h>

#include "../program/report/report.h"
#include "../sampling/family.h"

enum { RL_SG_HOUSEHOLDER, RL_SG_CIRCLE, RL_SG_STUDY, RL_SG_NFAM };
#define RL_SG_MAXD 4

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

/* The family's labels in rows and TSV files. */
extern const char *const rl_sg_label[RL_SG_NFAM];

/* Claim 2's hypothesis for the far routes of family f starting at delta0:
 * NULL when rl_moment2_unmet certifies it, else its phrase in buf. */
const char *rl_scoregap_unmet(const rl_family *f, long delta0, char *buf, size_t len);

/* Every check of the section into rep (dlast, mmax: where logr_slack_end
 * was read). */
void rl_scoregap_verdicts(const rl_sg_sum S[RL_SG_NFAM], int dlast, long mmax, rl_report *rep);

#endif
