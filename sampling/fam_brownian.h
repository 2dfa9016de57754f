/* fam_brownian.h: the Brownian family's closed form, exported for the
 * claims that quote it with its error. */
#ifndef RL_FAM_BROWNIAN_H
#define RL_FAM_BROWNIAN_H

/* rl_brownian_mean (E[exp(sigma A)] = c I, a sum of Laguerre polynomials,
 * brownian_mean.c) is public: declared once in <routelab/bounds.h>. */
#include "../include/routelab/bounds.h"

#endif
