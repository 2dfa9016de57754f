/* fam_brownian.h: the Brownian family's closed form, exported for the
 * claims that quote it with its error. */
#ifndef RL_FAM_BROWNIAN_H
#define RL_FAM_BROWNIAN_H

/* E[exp(sigma A)] = c I for the Brownian family, exactly (a sum of Laguerre
 * polynomials, see fam_brownian.c), in [-1, 1]; *err (may be NULL) estimates
 * its rounding error (distance to the same sum carried in double). */
double rl_brownian_mean(int d, double sigma, double *err);

#endif
