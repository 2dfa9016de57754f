/* family_mean.h: an independent Monte Carlo estimate of ||E M|| for a family
 * with no closed form (sampling/family_ops.h: mean NULL), labelled as such
 * wherever it is used: it sets a route length, never a verdict's prediction. */
#ifndef RL_FAMILY_MEAN_H
#define RL_FAMILY_MEAN_H

#include "../base/core/err.h"
#include "../sampling/family.h"

typedef struct {
    double norm; /* the estimate of ||E M||: |mean tr(M)/d| (E[M] = cI), or max_b |mean e^{i theta_b}| (SO(2)) */
    double se;   /* its standard error (the slowest block's for SO(2)) */
    long n;      /* steps drawn */
} rl_family_mean_est;

/* n steps of f from stream `stream` of seed (token-dependent steps read
 * token 0).  RL_OK, or the failure of a draw, RL_ENOMEM when memory runs
 * out or RL_ECANCEL when the caller asked to stop (rl_cancelled, read every
 * 1024 steps); *e is then not set. */
rl_status rl_family_mean_mc(const rl_family *f, long n, unsigned long seed, unsigned long stream,
                            rl_family_mean_est *e, rl_err *err);

#endif
