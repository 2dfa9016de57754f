/* routelab/bounds.h: closed forms, bounds, mixing windows and far-mass forms
 * (derivations: docs/theory/claim1-mixing.md#mixing-window,
 * docs/theory/claim2-concentration.md#concentration-closed-forms,
 * docs/theory/claim2-concentration.md#score-gap,
 * docs/theory/claim3-farmass.md#far-mass-closed-forms,
 * docs/theory/claim3-farmass.md#far-mass-three-forms, docs/theory/claim4-values.md#value-transport,
 * docs/verdicts.md#numerics, docs/sampling.md#step-families; routelab's mix-or-stay condition:
 * theory/mixstay_forms.h).
 *
 * Linking: every call here links with the C library's libm alone
 * (`gcc x.c libroutelab.a -lm`), except rl_beta_tail, rl_beta_coord_cdf and
 * rl_so2_cos_log_mgf(_range), which use GSL's special functions (add
 * `-lgsl -lgslcblas`), and rl_family_norm / rl_family_window and
 * rl_mixstay_chi / rl_mixstay_law (BLAS's zgemm, OpenMP), which link as the
 * samplers do: `pkg-config --libs routelab`.  Units: lengths (windows, counts of tokens) are numbers of
 * steps or tokens; angles and frequencies are radians per step; logits are
 * natural-log units; probabilities are in [0, 1]. */
#ifndef ROUTELAB_BOUNDS_H
#define ROUTELAB_BOUNDS_H

#include <complex.h>

#include "err.h"
#include "family.h"

/* ---- SO(2) frequencies and angle laws (docs/sampling.md#step-families) ---- */

/* omega_b = scale * base^(-2b/d), radians per step (RoPE's frequencies; the
 * one formula of every SO(2) frequency in routelab). */
double rl_so2_freq(int d, double base, double scale, int b);
/* omega_b for b = 0 .. d/2 - 1 into omega. */
void rl_so2_freqs(int d, double base, double scale, double *omega);

/* chi = E[e^{i theta}] for one angle step theta ~ law(omega): constant
 * e^{i omega}, uniform sin(omega)/omega, pm cos(omega), gauss
 * e^{-omega^2/2}, circle 0, drift e^{i omega} sin(omega)/omega.  The 2x2
 * block E[R(theta)] is |chi| times a rotation, so its norm is |chi|. */
double complex rl_angle_charfn(rl_angle_law law, double omega);
/* E[e^{2 i theta}] (the block's symmetric traceless part turns by 2 theta). */
double complex rl_angle_charfn2(rl_angle_law law, double omega);
/* 1 - sin(w)/w to about 1 ulp for every w (a series below |w| = 2). */
double rl_one_minus_sinc(double w);
/* log |chi| of rl_angle_charfn(law, w) without forming 1 - |chi| by
 * subtraction (exact for slow blocks, where |chi| rounds to 1). */
double rl_angle_log_norm(rl_angle_law law, double w);

/* E[exp(sigma A)] = c I for the brownian family, exactly: c = (2 e^{-x/2} S
 * + (d mod 2)) / d, S the sum of the Laguerre polynomials L_m(x), m <= d - 2,
 * m = d (mod 2), x = sigma^2; c in [-1, 1].  *err (may be NULL) estimates its
 * rounding error (the same sum carried in double).  d in [1, 4096] (every
 * family's d; the sum has d terms), NaN outside it or for a NaN sigma. */
double rl_brownian_mean(int d, double sigma, double *err);

/* ---- mixing windows (docs/theory/claim1-mixing.md#eq-mixing-window) ---- */

/* What the windows return for a NaN input: no window, and not "never". */
#define RL_WINDOW_UNDEFINED (-2L)

/* W(eps) = ceil(log(1/eps) / log(1/norm)) steps: the least n >= 1 with
 * norm^n <= eps.  1 for norm = 0, -1 (never) for norm >= 1,
 * RL_WINDOW_UNDEFINED for a NaN norm or eps, or eps <= 0 (no window). */
long rl_mixing_window(double norm, double eps);
/* The same from lognorm = log ||E M|| <= 0: ceil(-log(eps) / -lognorm), at
 * least 1; -1 (never) for lognorm >= 0 or a window beyond 9e18.  Exact to
 * the integer when lognorm is good to a few ulps. */
long rl_mixing_window_log(double lognorm, double eps);

/* ||E M||_op of family f in closed form (the slowest SO(2) block, or block
 * `block` in [0, d/2 - 1] of an SO(2) family; -1: the maximum): the number
 * `routelab bound norm --family ... [--block B]` prints.  RL_EINPUT when the
 * family has no closed form at these parameters, when its error bound is not
 * below 1e-9, or for a block out of range or on a family that is not SO(2). */
rl_status rl_family_norm(const rl_family *f, int block, double *norm, rl_err *err);
/* The mixing window W(eps) of family f in steps, from log ||E M||
 * (rl_mixing_window_log): the number `routelab bound window --family ...
 * --block B --eps E` prints; INFINITY when it never mixes.  eps in (0, 1);
 * the mean must be certain to 1e-7 (1 - |E M|). */
rl_status rl_family_window(const rl_family *f, int block, double eps, double *w, rl_err *err);

/* ---- concentration (docs/theory/claim2-concentration.md#concentration-closed-forms) ---- */

/* The spherical-cap bound (Ball 1997, Lemma 2.2) for u uniform on S^{d-1}:
 * P(|<e,u>| >= t) <= 2 exp(-d t^2 / 2), capped at 1. */
double rl_levy_tail(int d, double t);
/* Levy's concentration on SO(d), d >= 3: P(|f - E f| >= t) <= 2 exp(-(d-2)
 * t^2 / 8) for f 1-Lipschitz in the Hilbert-Schmidt metric, capped at 1 (1
 * for d < 3). */
double rl_levy_so_tail(int d, double t);
/* The exact tail P(|<e,u>| >= t), <e,u>^2 ~ Beta(1/2, (d-1)/2) (GSL);
 * d >= 2, NaN for a smaller d or a NaN t. */
double rl_beta_tail(int d, double t);
/* The exact CDF P(<e,u> <= x), x in [-1, 1] (GSL); d >= 2, NaN otherwise. */
double rl_beta_coord_cdf(int d, double x);
/* Hoeffding for a sum of independent block scores s_b in [-a_b, a_b]:
 * P(|s - E s| >= t) <= 2 exp(-t^2 / (2 sum a_b^2)), capped at 1 (nb blocks). */
double rl_hoeffding_so2(double t, const double *a, int nb);

/* log E e^{lambda <e,u>} for u uniform on S^{d-1}, d >= 2: Gamma(d/2)
 * (2/lambda)^{d/2-1} I_{d/2-1}(lambda) = 0F1(; d/2; lambda^2/4)
 * (docs/theory/claim2-concentration.md#eq-sphere-mgf), the log mean softmax weight of a far
 * token at logit scale lambda; |lambda| <= 500 and d >= 2 (NaN outside them). */
double rl_sphere_log_mgf(int d, double lambda);
/* log E e^{z cos Phi}, Phi the sum of n i.i.d. angle steps theta ~
 * law(omega): Jacobi-Anger, I_0(z) + 2 sum_k I_k(z) Re chi(k omega)^n (GSL's
 * Bessel functions).  z in [0, 500] (NAN below 0, above 1e6, for NaN);
 * n >= 0 steps (NAN for a negative n). */
double rl_so2_cos_log_mgf(rl_angle_law law, double omega, long n, double z);
/* The same for n = n0 .. n0 + count - 1 into out[0 .. count-1] (nothing
 * for count <= 0; NAN for n0 < 0 or n0 + count - 1 beyond LONG_MAX). */
void rl_so2_cos_log_mgf_range(rl_angle_law law, double omega, long n0, long count, double z, double *out);

/* ---- far mass (docs/theory/claim3-farmass.md#far-mass-closed-forms) ---- */

/* Domain of every far-mass form: counts m, k >= 0, lambda >= 0, slope >= 0,
 * 0 < p < 1; outside it (or at a NaN) the form is NaN. */

/* Far-mass lower bound, K near and M far tokens, logits in [-lambda,
 * lambda]: rho_D >= M / (M + K e^{2 lambda}) (a probability). */
double rl_farmass_lower(double m, double k, double lambda);
/* Its log, log M - logaddexp(log M, log K + 2 lambda): finite for every
 * finite lambda (the bound underflows past lambda ~ 372). */
double rl_farmass_lower_log(double m, double k, double lambda);
/* The matching upper bound M / (M + K e^{-2 lambda}). */
double rl_farmass_upper(double m, double k, double lambda);
/* Far tokens at which the lower bound reaches 1/2: M = K e^{2 lambda}. */
double rl_farmass_half(double k, double lambda);
/* Its log, log K + 2 lambda. */
double rl_farmass_half_log(double k, double lambda);
/* Far mass under an ALiBi bias -slope * distance (slope per token), near
 * tokens at distances 0..K-1, far ones at K..K+M-1: worst case rho <= 1 / (1
 * + e^{-2 lambda} N/F), N/F = (e^{slope K} - 1) / (1 - e^{-slope M}); best = 1
 * gives the matching lower bound (e^{+2 lambda}). */
double rl_farmass_alibi(double m, double k, double lambda, double slope, int best);
/* Its log, finite for every finite lambda and slope. */
double rl_farmass_alibi_log(double m, double k, double lambda, double slope, int best);
/* The shift-invariant bound for realised logits, Delta = max near logit -
 * min far logit: rho_D >= M / (M + K e^{Delta}); _log its log. */
double rl_farmass_range(double m, double k, double delta_range);
double rl_farmass_range_log(double m, double k, double delta_range);
/* Far tokens at which that bound forces rho_D >= p (0 < p < 1):
 * M*(p) = K p e^{Delta} / (1 - p); _log its log. */
double rl_farmass_admissible(double k, double p, double delta_range);
double rl_farmass_admissible_log(double k, double p, double delta_range);

/* ---- values (docs/theory/claim4-values.md#eq-value-transport) ---- */

/* Far value norm without transport: ||r|| = rho ||v||. */
double rl_value_coherent(double rho, double vnorm);
/* With transported values and i.i.d. orthogonal steps whose mean acts on
 * block b as chi_b: sqrt(E||r||^2), E||r||^2 = (rho/M)^2 sum_b ||v_b||^2
 * S(chi_b, M) over nb blocks, vnorm2[b] = ||v_b||^2, m = M far tokens.
 * NaN for m < 1, nb < 0, rho < 0, a vnorm2 < 0 or |chi_b| > 1. */
double rl_value_incoherent(double rho, long m, int nb, const double complex *chi, const double *vnorm2);
/* z^n, n >= 0, by repeated squaring. */
double complex rl_cpow_n(double complex z, long n);
/* S(chi, M) = M + 2 Re sum_{delta=1}^{M-1} (M - delta) chi^delta (NaN for
 * M < 0): summed
 * term by term up to M = RL_PAIR_SUM_DIRECT_MAX, beyond by its geometric
 * closed form (O(1) at any M). */
#define RL_PAIR_SUM_DIRECT_MAX 4096L
double rl_value_pair_sum(double complex chi, long m);

/* ---- the forms over arrays (one call per array) ------------------------- */

/* out[i] = rl_NAME(args[0][i], args[1][i], ...) for i < n: every scalar form
 * above whose arguments are numbers (levy_tail, levy_so_tail, beta_tail,
 * beta_coord_cdf, sphere_log_mgf, farmass_lower(_log), farmass_upper,
 * farmass_range(_log), farmass_admissible(_log), farmass_half(_log),
 * value_coherent, farmass_alibi(_log), mixing_window(_log)), the same
 * numbers point by point.  An int argument comes as an integral double.
 * Windows come back as doubles (their codes -1 and RL_WINDOW_UNDEFINED
 * too).  RL_EINPUT for an unknown name, a wrong nargs, NULL arrays, n < 0,
 * or an int argument that is not one (naming the point). */
rl_status rl_form_eval(const char *name, const double *const *args, int nargs, long n, double *out, rl_err *err);
/* rl_hoeffding_so2(t[i], a, nb) for i < n. */
rl_status rl_hoeffding_so2_array(const double *t, long n, const double *a, int nb, double *out, rl_err *err);

/* ---- routelab's mix-or-stay condition (theory/mixstay_forms.h) --------------- */

/* A block turns a key at distance delta by the accumulated angle Theta_delta
 * = theta_1 + ... + theta_delta of i.i.d. steps with characteristic function
 * chi(k) = E e^{i k theta}; the law mu_delta of Theta_delta (mod 2 pi) has
 * characteristic function chi(k)^delta.  The block is safe beyond the
 * training length T when every far law (T <= delta <= L - 1) lies close to
 * some law met within T (0 <= delta' <= T - 1): mixed by T (both near
 * uniform) or staying near laws seen in training.  Distances are Watson's
 * (the circular Cramér–von Mises distance), numbers in [0, 1/2]. */

/* Harmonics summed by default: the truncation adds at most 4/N to the sum
 * below, so a distance's bracket is at most sqrt(2/(pi^2 N)) = 0.00995 wide
 * (at distance 0; c/(2 d) at d) at N = 2048, the least power of two below
 * 0.01.  At most RL_MIXSTAY_MAX_HARMONICS. */
#define RL_MIXSTAY_HARMONICS 2048
#define RL_MIXSTAY_MAX_HARMONICS (1 << 20)
/* |phi(k)| may exceed 1 by this much (a closed form's rounding), no more. */
#define RL_MIXSTAY_CHI_TOL 1e-12
/* The far lengths: every delta in [T, L - 1] (exact) when (L - T) T <=
 * RL_MIXSTAY_EXACT_PAIRS (T = 64 to 16T, T = 128 to 16T); otherwise a stated
 * grid, every delta in [T, 4T - 1] and then RL_MIXSTAY_PER_OCTAVE lengths per
 * doubling up to L - 1, L - 1 included. */
#define RL_MIXSTAY_EXACT_PAIRS (1L << 20)
#define RL_MIXSTAY_PER_OCTAVE 64
/* The longest L and the most (far length, near length) pairs per block
 * (the search's cost: a bad input beyond it, never a run of hours). */
#define RL_MIXSTAY_MAX_LEN 1e15
#define RL_MIXSTAY_MAX_PAIRS (1L << 31)

/* chi[k - 1] = E e^{i k theta}, theta ~ law(omega), k = 1 .. n: the angle
 * law's characteristic function at integer harmonics, rl_angle_charfn(law,
 * k omega) (k theta ~ law(k omega) for every law; circle gives 0). */
void rl_angle_harmonics(rl_angle_law law, double omega, int n, double complex *chi);

/* Watson's distance between two laws mu, nu on the circle (radians), given
 * phi_mu(k), phi_nu(k) = E e^{i k X}, k = 1 .. n:
 *   d_U(mu, nu) = ((1/2pi) int_0^{2pi} (G(x) - mean G)^2 dx)^{1/2},
 *   G = F_mu - F_nu (CDFs in [0, 1] from any origin)
 *       = sqrt(sum_{k>=1} |phi_mu(k) - phi_nu(k)|^2 / k^2) / (pi sqrt 2).
 * A metric, invariant to the origin, finite for point masses, in [0, 1/2]:
 * a point mass against the uniform law 1/sqrt 12, two point masses an arc
 * fraction x apart sqrt(x (1 - x)).  *lo: the sum truncated at n harmonics;
 * *hi (may be NULL): sqrt(s + 4/n) / (pi sqrt 2) capped at 1/2 — the exact
 * distance lies in [*lo, *hi].  For any f of the angle, |E_mu f - E_nu f| <=
 * ||f'||_{L2[0, 2pi]} sqrt(2 pi) d_U.  RL_EINPUT for NULL arrays, n outside
 * [1, RL_MIXSTAY_MAX_HARMONICS], or a phi that is NaN or beyond 1 in modulus. */
rl_status rl_watson_dist(const double complex *phi_mu, const double complex *phi_nu, int n, double *lo, double *hi,
                         rl_err *err);

/* The far lengths delta of (T = t, L = l), ascending (rule above), into grid
 * (may be NULL: count only); returns their count, -1 for t < 1, l <= t or
 * l > RL_MIXSTAY_MAX_LEN.  Exact (every delta) iff the count is l - t. */
long rl_mixstay_grid(long t, long l, long *grid);

/* One block's out-of-range distance (steps, lengths in tokens):
 *   D_b(T, L) = max_{delta in far grid} min_{0 <= delta' <= T-1} d_U(mu_delta, mu_delta'),
 * with far the arg max delta and near its nearest delta' (ties: the first the
 * search meets). */
typedef struct {
    double lo, hi; /* D_b from the sum truncated at N harmonics, and its upper end */
    long far, near;
} rl_mixstay_block;
/* sizeof(rl_mixstay_block), for callers that mirror it (Python's ctypes). */
size_t rl_mixstay_block_sizeof(void);

/* D_b(T, L) of the block whose steps have chi[k - 1] = chi(k), k = 1 .. n,
 * T = t, L = l: the exact max-min over the grid of the truncated distances
 * (lo, its arg max and arg min) and hi = sqrt(lo^2 + 2/(pi^2 n)) capped at
 * 1/2.  curve (may be NULL): min_{delta'} d_U (lower end) at each far length
 * of rl_mixstay_grid.  RL_EINPUT for NULL, n, a chi as rl_watson_dist refuses,
 * t < 1, l <= t, l > RL_MIXSTAY_MAX_LEN, more than RL_MIXSTAY_MAX_PAIRS pairs
 * or more memory than the machine has. */
rl_status rl_mixstay_chi(const double complex *chi, int n, long t, long l, rl_mixstay_block *out, double *curve,
                         rl_err *err);

/* The blocks of an SO(2) head of dimension d (d/2 blocks, omega_b = scale
 * base^(-2b/d), steps theta_b ~ law(omega_b), chi_b(k) = rl_angle_charfn(law,
 * k omega_b)): blocks[b] = D_b(T, L) for b = 0 .. d/2 - 1, and the law's
 * out-of-range score S(T, L) = (1/(d/2)) sum_b D_b, unweighted ("from the
 * step law only"): score[0] from the lower ends, score[1] the upper ends.
 * n harmonics (RL_MIXSTAY_HARMONICS by default).  RL_EINPUT for an unknown
 * law, d odd or outside [2, 4096], base not in (1, inf), scale not in (0,
 * inf), and as rl_mixstay_chi. */
rl_status rl_mixstay_law(rl_angle_law law, int d, double base, double scale, long t, long l, int n,
                         rl_mixstay_block *blocks, double *score, rl_err *err);
/* The same for an so2 family named and set as on the command line
 * (rl_family_named(f, "so2", d), rl_family_set(f, "angles", ...): its law,
 * d, base and scale): the numbers `routelab bound mixstay --d D --angles A
 * --base B --scale S --ctx T --length L --harmonics N` prints.  RL_EINPUT
 * for a family that is not so2, and as rl_mixstay_law. */
rl_status rl_mixstay_family(const rl_family *f, long t, long l, int n, rl_mixstay_block *blocks, double *score,
                            rl_err *err);

#endif
