/* farmass_run.h: the replicates of the stylized far-mass model (farmass_walk.h)
 * of one family, over the Monte Carlo sweep (sweep.h): `routelab farmass`'s
 * numbers and the public rl_mc_farmass (api/include/routelab/mc.h) from one copy. */
#ifndef RL_FARMASS_RUN_H
#define RL_FARMASS_RUN_H

#include "../base/core/err.h"
#include "../sampling/family.h"
#include "softmax_mass.h"

/* reps replicates, replicate r on the stream (seed, rl_stream_key(stream, r)):
 * rho_D at every grid length, logit scale and configuration of sp into
 * rho + r * ng * sp->nlam * nconf (grid-major, then lambda, then
 * configuration), the far scores' mean of s and s^2 over delta >= far_from
 * into mom + 2 r, the realised scores (max near, min far, max |s|) at each
 * grid length into srange + 3 ng r (rl_farmass_walk).  f is the transport;
 * the identity family (rl_family_fixed) is no transport: NoPE, every score
 * exactly 1, nothing drawn.
 * The failure of a draw is returned (the arrays then unspecified), RL_ENOMEM
 * when memory runs out and RL_ECANCEL when the caller asked to stop
 * (rl_cancelled, read between replicates and every 1024 keys of a walk). */
rl_status rl_farmass_replicates(const rl_family *f, unsigned long stream, long reps, unsigned long seed,
                                const rl_mass_spec *sp, const long *grid, int ng, long far_from, double *rho,
                                double *mom, double *srange, rl_err *err);

#endif
