/* fam_brownian.h: the Brownian family's closed form, exported for the
 * claims that quote it with its error, and its step size, which cayley
 * shares. */
#ifndef RL_FAM_BROWNIAN_H
#define RL_FAM_BROWNIAN_H

/* rl_brownian_mean (E[exp(sigma A)] = c I, a sum of Laguerre polynomials,
 * brownian_mean.c) is public: declared once in <routelab/bounds.h>. */
#include "../api/include/routelab/bounds.h"

#include <stddef.h>

#include "family_ops.h"
#include "../base/core/opts.h"

/* The step size sigma of brownian (exp(sigma A)) and cayley ((I - sigma
 * A)^-1 (I + sigma A)): one entry for both, so the flag has one range,
 * [0, RL_BROWNIAN_SIGMA_MAX] (family.h says why it ends there). */
#define RL_FAMILY_PARAM_SIGMA_                                                                      \
    { "sigma", RL_PAR_DOUBLE, offsetof(rl_family, sigma), 0.1, 0, RL_BROWNIAN_SIGMA_MAX, RL_LO | RL_HI, \
      NULL, "step size (A Gaussian skew-symmetric)" }

#endif
