/* value_walk.h: the far value contribution of one query for every number of
 * far tokens at once.
 *
 * Values v_t = vbar + xi_t share a background vbar; xi_t has i.i.d. entries
 * +-sigma/sqrt(d) (Rademacher: zero mean, ||xi_t|| = sigma exactly).  The walk
 * accumulates Horner-style x_t = M_t (x_{t-1} + v_t), so after t tokens
 *   x_t = sum_{delta=1}^{t} M_t ... M_{t-delta+1} v_{t-delta+1}:
 * the token delta places back is transported by the product of the delta
 * latest steps, routes sharing their steps exactly as P(j->i) = M_i ... M_{j+1}.
 * One pass of O(t d) (SO(2), Householder) gives every grid length.  At a
 * grid length M the far tokens sit behind K near ones: the snapshot is
 * P_K x_M with P_K a product of K fresh steps (independent of the far steps,
 * as the near part of every far route is), so out = P_K sum_far P v. */
#ifndef RL_VALUE_WALK_H
#define RL_VALUE_WALK_H

#include <gsl/gsl_rng.h>

#include "../sampling/steps.h"

/* st == NULL: no value transport (P = I).  x, tmp: d scratch each.
 * out: ng x d, the un-normalised sums (r = (rho/M) out). */
void rl_value_walk(rl_stepper *st, gsl_rng *r, int d, const double *vbar, double sigma, long K,
                   const long *grid, int ng, double *x, double *tmp, double *out);

#endif
