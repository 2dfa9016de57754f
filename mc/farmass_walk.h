/* farmass_walk.h: one replicate of the stylized far-mass model (routelab farmass).
 *
 * A unit query q; every key equals q (one shared key direction, so that the
 * route is the only thing that tells keys apart: NoPE sees score 1 everywhere,
 * a transport decorrelates far keys as much as it can).  The key at distance
 * delta is seen through one chain, P_delta = M_i ... M_{i-delta+1} (routes share
 * their steps as in attention), with score s_delta = q^T P_delta q = <P_delta^T q, q>. */
#ifndef RL_FARMASS_WALK_H
#define RL_FARMASS_WALK_H

#include <gsl/gsl_rng.h>

#include "chain.h"
#include "softmax_mass.h"

/* Walk delta = 1 .. grid[ng-1] (f == NULL: no transport, s = 1).  ch tracks one
 * vector; q (d) is drawn here.  rho (ng x nlam x nconf) gets rho_D at each
 * grid distance L (= K + M); far_mom[0], far_mom[1] get the mean of s and s^2
 * over delta >= far_from (NAN when no such delta).  srange (ng x 3, may be
 * NULL) gets the realised scores at each grid L: max near score (delta <= K),
 * min far score (K < delta <= L) and max |score| (delta <= L); the logits are
 * lambda times these, so the data-dependent bounds need nothing else.
 * RL_OK, or RL_ECANCEL when the caller asked to stop (rl_cancelled, read
 * every 1024 keys: a walk can be 1e8 keys long; the outputs are then
 * partial, for the caller to drop). */
rl_status rl_farmass_walk(const rl_family *f, rl_chain *ch, gsl_rng *r, double *q, rl_mass *acc, const long *grid,
                          int ng, long far_from, double *rho, double *far_mom, double *srange);

#endif
