/* moment2_mc.h: the second-moment operator T = E[M (x) M] estimated from
 * sampled steps, for any family (token-driven ones included), and its norm
 * on the complement of a fixed space (theory/moment2.h). */
#ifndef RL_MOMENT2_MC_H
#define RL_MOMENT2_MC_H

#include <gsl/gsl_rng.h>

#include "../base/core/err.h"
#include "../sampling/family.h"

/* The estimate is formed from d^2 x d^2 matrices: d at most this. */
#define RL_MOMENT2_MAX_D 16
/* Batches of the jackknife. */
#define RL_MOMENT2_BATCHES 20

typedef struct {
    double rate;      /* ||Pi T_hat Pi||_op */
    double se;        /* jackknife standard error over the batches */
    double noise;     /* ||Pi (T_hat - T) Pi|| as the batches show it: the upward
                       * bias of the norm of a noisy matrix when the top singular
                       * value is 0 or repeated (Haar, Householder), which the SE
                       * does not cover; compare |rate - truth| with noise + 5 se */
    double mean_norm; /* ||mean of the sampled M||_op */
    long n;           /* steps drawn */
} rl_moment2_est;

/* Draws one d x d step (row-major) into M. */
typedef void (*rl_moment2_draw)(void *ctx, gsl_rng *r, double *M);

/* Estimate from n >= RL_MOMENT2_BATCHES steps; batch j draws from stream j of
 * seed.  basis: k orthonormal rows of d*d spanning the fixed space to project
 * out (k = 0: none).  RL_EINPUT when d or n is out of range, RL_ENOMEM
 * when memory runs out, RL_ECANCEL when the caller asked to stop
 * (rl_cancelled, read every 1024 draws). */
rl_status rl_moment2_estimate(int d, rl_moment2_draw draw, void *ctx, long n, unsigned long seed,
                              int k, const double *basis, rl_moment2_est *out, rl_err *err);

/* The same for the steps of family f, projecting out its nominal fixed space
 * (rl_moment2_fixed_basis).  token-so2: each step reads a token drawn from
 * tokens[0..ntok) at a uniform position (the empirical unigram law), or
 * uniformly from the vocabulary when tokens is NULL. */
rl_status rl_moment2_estimate_family(const rl_family *f, const int *tokens, long ntok, long n,
                                     unsigned long seed, rl_moment2_est *out, rl_err *err);

#endif
