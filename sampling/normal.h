/* normal.h: bulk standard normals by the ziggurat method (Marsaglia & Tsang
 * 2000), drawn straight from the xoshiro stream: about twice as fast as one
 * gsl_ran_gaussian_ziggurat call per number, which matters for Haar sampling
 * at small d where filling the Gaussian matrix rivals the QR itself. */
#ifndef RL_NORMAL_H
#define RL_NORMAL_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define RL_ZIG_LAYERS 128

/* Layer tables, computed once by rl_ziggurat_init and then read-only. */
typedef struct {
    uint32_t k[RL_ZIG_LAYERS]; /* acceptance thresholds |h| < k[i] */
    double w[RL_ZIG_LAYERS];   /* x = h * w[i] */
    double f[RL_ZIG_LAYERS];   /* f[i] = exp(-x_i^2 / 2) at the layer edges */
} rl_ziggurat;

void rl_ziggurat_init(rl_ziggurat *z);

/* n i.i.d. N(0,1) numbers into out, from r (any GSL generator; the
 * project's own xoshiro generator takes the fast path). */
void rl_ziggurat_fill(const rl_ziggurat *z, gsl_rng *r, double *out, long n);

#endif
