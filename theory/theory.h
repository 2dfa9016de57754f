/* theory.h: closed forms and bounds of the study (derivations in NOTES.md). */
#ifndef RL_THEORY_H
#define RL_THEORY_H

#include <complex.h>
#include "../sampling/family.h"
#include "../sampling/fam_brownian.h"
#include "../sampling/so2.h"

/* The angle laws' characteristic functions and the Brownian mean are the
 * families' own closed forms, defined in sampling/ (so2.c, fam_brownian.c:
 * the families' objects need them, and sampling may not include theory).
 * The two that the claims index names are declared again here, the theory's
 * one header of closed forms; the compiler checks that the prototypes agree
 * with sampling/so2.h and sampling/fam_brownian.h, included above. */
double complex rl_angle_charfn(rl_angle_law law, double omega);
double rl_brownian_mean(int d, double sigma, double *err);

/* ||E[M]||_op in closed form, through the family's object (family_ops.h).
 * SO(2) families: the per-block norms |chi_b| go to blocks (d/2 values, may
 * be NULL) and the result is their maximum; token-so2 uses the token
 * probabilities probs (vocab values; NULL: uniform).  Returns 1 with the norm
 * in *norm and a bound on its error in *err (may be NULL), or 0 when the
 * family has no closed form (nothing written): never a NaN to be dropped. */
int rl_family_closed_mean_norm(const rl_family *f, const double *probs, double *blocks, double *norm,
                               double *err);
/* The same as a value, for callers that know the family has a closed form
 * (rl_family_has_mean); NAN when it has none. */
double rl_family_mean_norm(const rl_family *f, const double *probs, double *blocks);

/* log ||E[M]||_op: the family's cancellation-free form where it has one
 * (SO(2) laws per block from rl_angle_log_norm into logblocks, d/2 values,
 * may be NULL; householder, lazy-haar through log1p), else the log of the
 * norms (brownian log |c|, token-so2).  Returns 1, or 0 with no closed form. */
int rl_family_closed_log_mean_norm(const rl_family *f, const double *probs, double *logblocks,
                                   double *lognorm);
double rl_family_log_mean_norm(const rl_family *f, const double *probs, double *logblocks);

/* Whether ||E M|| (as_log 0) or its log (1) can be printed as a result:
 * RL_EINPUT when the family has no closed form, or when its error bound is
 * not below 1e-9 (norm) or 1e-7 (1 - |E M|) (log: the window divides by
 * 1 - |E M|), the reason in err. */
rl_status rl_family_norm_certain(const rl_family *f, int as_log, rl_err *err);

/* What the windows below return when their input is not a number (a norm
 * or an eps that is NaN): no window, and not "never" either; the
 * double is never cast to long out of range. */
#define RL_WINDOW_UNDEFINED (-2L)

/* W(eps) from log ||E M|| (<= 0): ceil(-log(eps) / -lognorm), at least 1;
 * -1 (never) for lognorm >= 0 or a window beyond 9e18.  Exact to the integer
 * when lognorm is good to a few ulps (rl_family_log_mean_norm), which a norm
 * near 1 stored as a double is not. */
long rl_mixing_window_log(double lognorm, double eps);

/* Mixing window W(eps) = ceil(log(1/eps) / log(1/norm)): the least n >= 1 with
 * norm^n <= eps.  Returns 1 for norm = 0, -1 (never) for norm >= 1 and
 * RL_WINDOW_UNDEFINED for a NaN norm. */
long rl_mixing_window(double norm, double eps);

/* The spherical-cap bound (Ball) for u uniform on S^{d-1}, one coordinate:
 * P(|<e,u>| >= t) <= 2 exp(-d t^2 / 2)  (Ball 1997, Lemma 2.2), capped at 1.
 * (Named "levy" in the code for history; Levy's bound on SO(d) is below.) */
double rl_levy_tail(int d, double t);
/* Levy's concentration on SO(d), d >= 3: P(|f - E f| >= t) <= 2 exp(-(d-2)
 * t^2 / 8) for f 1-Lipschitz in the Hilbert-Schmidt metric, capped at 1 (1
 * for d < 3).  f(U) = <q, U k>, unit q, k, is 1-Lipschitz, so this also bounds
 * the coordinate tail, looser than the cap bound by the factor 4 in d t^2. */
double rl_levy_so_tail(int d, double t);

/* Exact tail P(|<e,u>| >= t): <e,u>^2 ~ Beta(1/2, (d-1)/2). */
double rl_beta_tail(int d, double t);
/* Exact CDF P(<e,u> <= x), x in [-1, 1]. */
double rl_beta_coord_cdf(int d, double x);

/* Hoeffding for a sum of independent block scores s_b in [-a_b, a_b]:
 * P(|s - E s| >= t) <= 2 exp(-t^2 / (2 sum a_b^2)), capped at 1. */
double rl_hoeffding_so2(double t, const double *a, int nb);

/* Far-mass lower bound with logits in [-lambda, lambda], K near and M far
 * tokens: rho_D >= M / (M + K e^{2 lambda}); equality when every near logit is
 * +lambda and every far logit -lambda. */
double rl_farmass_lower(double m, double k, double lambda);
/* Its log, log M - logaddexp(log M, log K + 2 lambda): finite for every
 * finite lambda (rl_farmass_lower falls back to its exp when the direct form
 * is not a normal number; it underflows to 0 past lambda ~ 372). */
double rl_farmass_lower_log(double m, double k, double lambda);
/* The matching upper bound M / (M + K e^{-2 lambda}). */
double rl_farmass_upper(double m, double k, double lambda);
/* Far tokens M at which the lower bound reaches 1/2: M = K e^{2 lambda}. */
double rl_farmass_half(double k, double lambda);
/* Its log, log K + 2 lambda (the count overflows past lambda ~ 354). */
double rl_farmass_half_log(double k, double lambda);

/* Far mass under an ALiBi bias -slope * distance, near tokens at distances
 * 0..K-1 and far ones at K..K+M-1, logits in [-lambda, lambda] before the bias.
 * Worst case (far +lambda, near -lambda), a geometric series:
 *   rho <= 1 / (1 + e^{-2 lambda} N/F),  N/F = (e^{slope K} - 1) / (1 - e^{-slope M}).
 * best == 1 gives the matching lower bound (e^{+2 lambda}). */
double rl_farmass_alibi(double m, double k, double lambda, double slope, int best);
/* Its log, finite for every finite lambda and slope. */
double rl_farmass_alibi_log(double m, double k, double lambda, double slope, int best);

/* The far value contribution r = sum_far alpha_j P(j->i) v_j, alpha_j = rho/M,
 * every v_j = v (a shared background).  Without transport ||r|| = rho ||v||. */
double rl_value_coherent(double rho, double vnorm);

/* With transported values and i.i.d. orthogonal steps whose mean acts on block
 * b as chi_b (SO(2): chi_b = E e^{i theta}; a family with E[M] = cI: one block,
 * chi = c), exactly
 *   E||r||^2 = (rho/M)^2 sum_b ||v_b||^2 S(chi_b, M),
 *   S(chi, M) = M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta,
 * since <P(j->i)v, P(j'->i)v> = <P(j->j')v, v> for orthogonal steps.
 * Returns sqrt(E||r||^2).  vnorm2[b] = ||v_b||^2. */
double rl_value_incoherent(double rho, long m, int nb, const double complex *chi, const double *vnorm2);

/* z^n for an integer n >= 0 by repeated squaring (exact powers of the
 * characteristic functions: E[P_n] on a block is chi^n). */
double complex rl_cpow_n(double complex z, long n);

/* S(chi, M) above: summed term by term up to M = RL_PAIR_SUM_DIRECT_MAX,
 * beyond that by its geometric closed form (O(1) at any M). */
#define RL_PAIR_SUM_DIRECT_MAX 4096L
double rl_value_pair_sum(double complex chi, long m);

/* log E e^{lambda <e,u>} for u uniform on S^{d-1}, d >= 2: the moment
 * generating function of one coordinate, Gamma(d/2) (2/lambda)^{d/2-1}
 * I_{d/2-1}(lambda) = 0F1(; d/2; lambda^2/4) (NOTES.md §2.3.2).  The score of
 * a unit query against a Haar-transported unit key has this law, so the mean
 * softmax weight of a far token at logit scale lambda is exp(this).
 * Even in lambda; |lambda| <= 500. */
double rl_sphere_log_mgf(int d, double lambda);

/* log E e^{z cos Phi}, Phi the sum of n i.i.d. angle steps theta ~ law(omega):
 * by Jacobi-Anger e^{z cos Phi} = I_0(z) + 2 sum_{k>=1} I_k(z) cos(k Phi) and
 * E cos(k Phi) = Re chi(k omega)^n with chi(k omega) = E e^{i k theta}
 * (rl_angle_charfn at k omega).  n = 0 gives z.  z in [0, 500] (NAN below 0,
 * above 1e6 and for a NaN z). */
double rl_so2_cos_log_mgf(rl_angle_law law, double omega, long n, double z);
/* The same for n = n0, n0 + 1, ..., n0 + count - 1 into out[0..count-1]
 * (the powers chi^n carried from one n to the next: O(count sqrt z)). */
void rl_so2_cos_log_mgf_range(rl_angle_law law, double omega, long n0, long count, double z, double *out);

/* The shift-invariant far-mass bound for realised logits: with K near and M
 * far keys and Delta = max near logit - min far logit,
 *   rho_D >= M / (M + K e^{Delta})
 * (the proof is at the definition; equality when all near logits equal their
 * max and all far ones their min).  Delta = 2 lambda_obs (observed max
 * |logit|) or 2 lambda (as set) give the looser forms.  _log returns the log
 * (finite for every finite Delta). */
double rl_farmass_range(double m, double k, double delta_range);
double rl_farmass_range_log(double m, double k, double delta_range);
/* Far keys at which that bound forces rho_D >= p (0 < p < 1):
 * M*(p) = K p e^{Delta} / (1 - p); the context is L* = K + M*.  _log: its log. */
double rl_farmass_admissible(double k, double p, double delta_range);
double rl_farmass_admissible_log(double k, double p, double delta_range);

#endif
