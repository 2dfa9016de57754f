/* so2.h: block-diagonal SO(2) rotations with the study's half-split pairing. */
#ifndef RL_SO2_H
#define RL_SO2_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include "family.h"
#include "../core/err.h"

/* omega_b = scale * base^(-2b/d) (RoPE's frequencies): the one formula of
 * every SO(2) frequency in routelab (the model's rotation schemes, the
 * families, the claims' study base). */
double rl_so2_freq(int d, double base, double scale, int b);

/* omega_b = rl_so2_freq(d, base, scale, b) for b = 0 .. d/2-1. */
void rl_so2_freqs(int d, double base, double scale, double *omega);

/* One angle step theta ~ law(omega). */
double rl_so2_draw_angle(gsl_rng *r, rl_angle_law law, double omega);

/* Rotate each of the nvec vectors of X (row-major, nvec x d) block by block:
 * (x_b, x_{b+h}) <- (c x_b - s x_{b+h}, s x_b + c x_{b+h}),  h = d/2,
 * c = cos(sign*phi_b), s = sin(sign*phi_b).  sign = -1 applies the transpose. */
void rl_so2_rotate(int d, const double *phi, int sign, double *X, int nvec);

/* Neumaier-compensated accumulation sum += x: a constant angle added 65,536
 * times drifts by ~1e-8 rad in plain double summation (correlated rounding);
 * compensated, the error of sum + comp stays at a few ulps. */
static inline void rl_sum_add(double *sum, double *comp, double x)
{
    double t = *sum + x;
    *comp += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

/* Reduce an accumulated angle to (-pi, pi] (exact in double for |phi| < 2^52). */
double rl_angle_reduce(double phi);

/* A random token table: vocab x (d/2) entries, entry (v, b) ~ law(omega_b),
 * drawn from stream `stream` of `seed`. */
void rl_so2_table_draw(const rl_family *f, unsigned long seed, unsigned long stream, double *table);

/* Load a token table from a text file: one line per token, d/2 angles each
 * (blank lines and lines opening with # skipped).  *table receives a
 * malloc'ed vocab x (d/2) table and *vocab its rows; RL_EINPUT naming the
 * file and line when it cannot be read or is malformed. */
rl_status rl_so2_table_load(const char *path, int d, double **table, int *vocab, rl_err *err);

#endif
