/* mixstay_forms.h: routelab's mix-or-stay condition (the public calls, with
 * their formulas, are in <routelab/bounds.h>; this header adds the search's
 * workspace and the helpers the command and the experiment share).
 *
 * Why.  The study's condition for length extrapolation is a spectral gap,
 * |chi(1)| < 1 for each block's step law.  It cannot tell zero-mean steps
 * U(-w, w) (chi(k) = sin(kw)/(kw)) from positive steps U(0, 2w) (chi(k) =
 * e^{ikw} sin(kw)/(kw)): the moduli are equal, yet the first stays flat far
 * beyond T and the second degrades like RoPE.  What differs is where a block
 * that has not mixed by T goes: the zero-mean law spreads as sqrt(delta)
 * around 0, near laws the model met within T (it *stays*); the positive law
 * and RoPE move their mean angle delta w to angles never seen in training
 * (they *drift*).  routelab's condition: a block is safe beyond T when each
 * far law mu_delta (T <= delta <= L - 1) is close to some law met within T
 * (0 <= delta' <= T - 1); "mixed by T" (both near uniform) is the special
 * case where that law is the last one.
 *
 * Distance.  Watson's d_U (the circular Cramér–von Mises distance; formula in
 * bounds.h, derivation in watson.c): for any smooth f of the block's angle
 * (its score contribution Re(A e^{i Theta}), its softmax weight
 * e^{Re(A e^{i Theta})}), integrating by parts on the circle,
 *   |E_mu f - E_nu f| = |int f'(x) (G(x) - mean G) dx| <= ||f'||_{L2[0,2pi]} sqrt(2 pi) d_U(mu, nu),
 * so a small d_U bounds every smooth read-out of the block at once.  It is
 * finite for point masses (RoPE's laws), where total variation is 1 and
 * Kullback–Leibler infinite for any two distinct angles, and it sees an arc
 * (two point masses an arc fraction x apart are sqrt(x(1 - x)) apart), which
 * Kolmogorov's and total variation distances do not.
 *
 * The search (mixstay_forms.c).  D_b = max_far min_near d_U needs, for every far
 * length, the nearest of T near laws: far x T sums of N terms.  The rows
 * chi(k)^delta / k are formed by repeated multiplication (far lengths in
 * chunks); each sum is taken as differences, sum_k |a_k - b_k|^2 (no
 * cancellation).  Two prunings keep it exact for the truncated sums, the
 * same numbers as the full double loop:
 *   - a far length is first summed against the near law that was nearest
 *     to the far length before it; when that sum is already at or below the
 *     running maximum, its minimum is too, it cannot be the arg max, and it
 *     is dropped after that one sum (far lengths from the far end, where
 *     drifting and spreading laws are farthest, so the maximum is high early);
 *   - for the far lengths left, the first RL_MIXSTAY_SCREEN harmonics of
 *     every pair come from one zgemm (|a|^2 + |b|^2 - 2 Re(a . conj b)), a
 *     lower bound of the full sum (its terms are nonnegative), and only the
 *     near laws that bound cannot rule out are summed in full.
 * Measured (NOTES: mixstay): the study's head (hd 96, T = 512, L = 16T, 48
 * blocks) in about 1 s of CPU per law on its grid; with every far length
 * and the screen alone it took 4-13 s.  */
#ifndef RL_MIXSTAY_H
#define RL_MIXSTAY_H

#include <complex.h>

#include "../base/core/err.h"
#include "../api/include/routelab/bounds.h"

/* The far length of the claim and of `routelab bound mixstay`: L = 16 T
 * (the study's models degrade by 16T; docs/grids/design.md#study-grid). */
#define RL_MIXSTAY_MULT 16

/* Harmonics of the screen (its zgemm's inner dimension) and far lengths per
 * zgemm (the rows of one chunk). */
#define RL_MIXSTAY_SCREEN 32
#define RL_MIXSTAY_CHUNK 128

/* The workspace of one block's search: N harmonics, T near laws (the rows
 * chi(k)^delta / k of every near law, a chunk of far rows, the screen). */
typedef struct rl_mixstay_ws rl_mixstay_ws;

/* Checks n and t and the memory (base/core/mem.h) before allocating: RL_EINPUT
 * with the reason; RL_ENOMEM (nothing kept) when memory runs out. */
rl_status rl_mixstay_alloc(int n, long t, rl_mixstay_ws **ws, rl_err *err);
void rl_mixstay_free(rl_mixstay_ws *ws);
/* Bytes of one workspace (0 with *over set when it overflows). */
size_t rl_mixstay_ws_bytes(int n, long t, int *over);

/* rl_mixstay_chi with ws (its n and t): no allocation but the far grid
 * (RL_ENOMEM when it cannot be). */
rl_status rl_mixstay_chi_ws(rl_mixstay_ws *ws, const double complex *chi, long l, rl_mixstay_block *out,
                            double *curve, rl_err *err);

/* RL_OK when phi[0 .. n-1] are characteristic function values (finite,
 * modulus <= 1 + RL_MIXSTAY_CHI_TOL) and n in [1, RL_MIXSTAY_MAX_HARMONICS];
 * else RL_EINPUT naming what (watson.c). */
rl_status rl_watson_check(const char *what, const double complex *phi, int n, rl_err *err);

/* d_U from s = sum_{k<=n} |c_k|^2 / k^2 (the lower end) and, into *hi (may
 * be NULL), the upper end sqrt(s + 4/n) / (pi sqrt 2) capped at 1/2: the one
 * place the scale and the bracket are written (watson.c). */
double rl_watson_from_sum(double s, int n, double *hi);

/* The arguments of the mix-or-stay search (T, L, n, the law's head), checked
 * as rl_mixstay_law does: RL_EINPUT with the reason; d < 0 skips the head's
 * checks (rl_mixstay_chi). */
rl_status rl_mixstay_check(rl_angle_law law, int d, double base, double scale, long t, long l, int n, rl_err *err);

/* The grid's rule as a phrase: "every delta in [T, L-1] (exact)" or "every
 * delta in [T, T+16383], then 64 per octave to L-1: a grid of K lengths",
 * into buf. */
const char *rl_mixstay_grid_text(long t, long l, char *buf, size_t n);

#endif
