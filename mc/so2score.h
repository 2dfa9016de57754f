/* so2score.h: the law of an SO(2) block score, from theory/'s closed forms.
 *
 * For a query q and the key k = q (aligned), transported by the block
 * rotations R(Phi_b), the score is s = sum_b a_b cos Phi_b with block weights
 * a_b = |q_b|^2 = |q_b| |k_b| (x^T R(phi) x = |x|^2 cos phi).  Phi_b is the
 * sum of n i.i.d. angle steps of law(omega_b), independent across blocks, and
 * E e^{i k Phi_b} = chi_b(k)^n with chi_b(k) = E e^{i k theta} (rl_angle_charfn
 * at k omega_b).  Hence, exactly:
 *   E s   = sum_b a_b Re chi_b(1)^n
 *   Var s = sum_b a_b^2 [ (1 + Re chi_b(2)^n)/2 - (Re chi_b(1)^n)^2 ]
 *           (cos^2 = (1 + cos 2 Phi)/2, blocks independent)
 *   log E e^{lambda s} = sum_b log E e^{lambda a_b cos Phi_b}
 *           (rl_so2_cos_log_mgf, Jacobi-Anger). */
#ifndef RL_SO2SCORE_H
#define RL_SO2SCORE_H

#include "../sampling/family.h"

/* f: an so2 family (its law, base, scale, d); a: d/2 block weights. */
double rl_so2score_mean(const rl_family *f, const double *a, long n);
double rl_so2score_var(const rl_family *f, const double *a, long n);
double rl_so2score_log_mgf(const rl_family *f, const double *a, long n, double lambda);

/* The same at n = n0 ... n0 + count - 1 into out[0..count-1]. */
void rl_so2score_mean_range(const rl_family *f, const double *a, long n0, long count, double *out);
void rl_so2score_log_mgf_range(const rl_family *f, const double *a, long n0, long count, double lambda,
                               double *out);

/* Block weights of a unit vector, a_b = x_b^2 + x_{b+d/2}^2 (half-split pairs). */
void rl_so2score_weights(int d, const double *x, double *a);

#endif
