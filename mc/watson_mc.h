/* watson_mc.h: Watson's distance between two accumulated-angle laws by
 * Monte Carlo on sampled steps (claim mixstay's verified rows,
 * experiments/mixstay.c): an unbiased estimate of the truncated sum
 *
 *   d_N^2(mu_delta, mu_delta') = (1/2pi^2) sum_{k=1}^{N} |phi_delta(k) - phi_delta'(k)|^2 / k^2,
 *
 * whose closed form is chi(k)^delta against chi(k)^delta' (theory/mixstay_forms.h,
 * rl_watson_dist), from m sample angles of each law.  With A_k = sum_i
 * e^{i k X_i} over X_1..X_m ~ mu_delta and B_k the same over an independent
 * Y_1..Y_m ~ mu_delta':
 *   (|A_k|^2 - m) / (m (m - 1)) = sum_{i != j} e^{ik(X_i - X_j)} / (m (m-1)) is unbiased for |phi_delta(k)|^2,
 *   Re(A_k conj B_k) / m^2 is unbiased for Re(phi_delta(k) conj phi_delta'(k)) (X and Y independent),
 * so their combination |a|^2 + |b|^2 - 2 Re(a conj b), summed with weights
 * 1/(2 pi^2 k^2), is unbiased for d_N^2.  Each sample angle is the sum of
 * delta steps drawn by the project's sampler (rl_so2_draw_angle), added with
 * compensation and reduced to (-pi, pi]. */
#ifndef RL_WATSON_MC_H
#define RL_WATSON_MC_H

#include "../base/core/err.h"
#include "../sampling/family.h"

/* reps independent replicates, each with m >= 2 samples of each law (law,
 * omega), delta and delta2 steps (>= 0), n harmonics: est[r] the estimate of
 * replicate r (reps values), drawn from the streams rl_stream_key(stream,
 * 2 r) (the delta samples) and rl_stream_key(stream, 2 r + 1) (delta2) of
 * seed; any thread count gives the same numbers (mc/sweep.h).  RL_EINPUT for
 * m < 2, reps < 1, a negative delta, n outside [1,
 * RL_MIXSTAY_MAX_HARMONICS], an unknown law, a non-finite omega, or a
 * request beyond the machine's memory. */
rl_status rl_watson_mc(rl_angle_law law, double omega, long delta, long delta2, int n, long m, long reps,
                       unsigned long seed, unsigned long stream, double *est, rl_err *err);

#endif
