/* moment2_brownian.h: the second-moment rate of Brownian steps
 * M = exp(sigma A), A skew with N(0, 1) entries above the diagonal, at any d,
 * from the characters of two scalars instead of d^2 x d^2 matrices. */
#ifndef RL_MOMENT2_BROWNIAN_H
#define RL_MOMENT2_BROWNIAN_H

#include "../base/core/err.h"
#include "moment2_mc.h"

/* The law of A is invariant under A -> O A O^T for every orthogonal O, so
 * T(X) = E[M X M^T] commutes with X -> O X O^T and (Schur) is a scalar on
 * each irreducible part of the d x d matrices: the trace (fixed, 1), the
 * symmetric traceless part S (dim d(d+1)/2 - 1) and the skew part K
 * (dim d(d-1)/2; fixed at d = 2, where K = span(J)).  With the characters
 *     chi_S(M) = ((tr M)^2 + tr M^2)/2 - 1,   chi_K(M) = ((tr M)^2 - tr M^2)/2,
 * t_S = E chi_S / dim S, t_K = E chi_K / dim K and
 *     rate = max(|t_S|, |t_K|)   (d >= 3);   |t_S|   (d = 2).
 * tr M = sum_i cos(sigma sqrt(mu_i)) over the eigenvalues mu_i of A^T A =
 * -A^2 (each lambda^2 of A's pair +-i lambda twice, 0 once for odd d).
 * Estimated from n draws of A (stream 0 of seed): out->rate, out->se (the
 * SE of the larger term; sampling, iid draws), out->noise = 0, out->mean_norm
 * = |mean tr M| / d.  RL_EINPUT for d < 2, d > 4096, n < 2 or n > 1e8, sigma
 * not finite and >= 0; RL_EINTERNAL when LAPACK fails. */
rl_status rl_moment2_brownian(int d, double sigma, long n, unsigned long seed, rl_moment2_est *out, rl_err *err);

/* The rate a certificate may use from an estimate: its upper end, rate + 5
 * SE, at most 1 (a rate read low would certify too early). */
double rl_moment2_upper(const rl_moment2_est *e);

#endif
