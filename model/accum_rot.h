/* accum_rot.h: the accumulated rotation schemes random, pemb and lf (study,
 * "Variants"): three scheme objects (scheme.h, registered in scheme.c) whose
 * angle tables feed rl_rotate around the one attention kernel through the
 * rotation schemes' shared sublayer (scheme_rot.h), and the backward of the
 * learned ones.
 *
 * Each layer l has its own table A_l(b, t, h, p) = sum_{s=1..t} theta_l(b, s, h, p)
 * with A_l(b, 0, h, p) = 0 (position 0 unrotated, as in RoPE), summed in
 * double and reduced mod 2 pi at every step (rl_angle_add), recomputed at
 * every forward (training and evaluation).  omega_p = B^(-2p/hd), B the
 * configuration's rot_base (rl_so2_freqs, as RoPE's table).
 *   random: theta ~ U(-omega_p, omega_p), i.i.d. over (b, s, h, p); layer l,
 *           window b, head h draw from stream (key ^ DOMAIN, (l, b, h)) in the
 *           order s = 1..T-1, p = 0..P-1 (key: the forward's key).
 *   pemb:   theta(b, s, p) = pi tanh(E_l[x_s, p]) + omega_p, one table per layer,
 *           shared by the heads (so the table has no head index, sh = 0);
 *           with E_l = 0 it is RoPE's t omega_p.
 *   lf:     theta(b, s, h, p) = U(b, s, h, p) f_s[h P + p], U ~ U(-1, 1) from the
 *           same streams as random, f_s = |LN(W2 GELU(W1 n_s + b1) + b2)|,
 *           one MLP C -> C -> H P (with its LayerNorm) shared by all layers, n_s
 *           the layer's LN1 output (scale-free whatever the depth, already
 *           stored for the backward, and the same input the layer's q, k, v see).
 * Backward: dL/dA from the angle gradients of the rotated q, k (and v and
 * the inverse-rotated output in qkv mode), then dL/dtheta_s = sum_{t >= s}
 * dL/dA_t (the reverse running sum), then pemb: pi (1 - tanh^2) into E_l at
 * the token ids; lf: times U, through |.|, the LayerNorm and the MLP into
 * the shared parameters and, added, into the LN1 output. */
#ifndef RL_MODEL_ACCUM_ROT_H
#define RL_MODEL_ACCUM_ROT_H

#include "scheme.h"

extern const rl_scheme rl_scheme_random, rl_scheme_pemb, rl_scheme_lf;

/* The tensors of lf's shared MLP, in their order (rl_scheme_ctx.w[i]):
 * W1, b1 (C -> C), W2, b2 (C -> H*hd/2), the LayerNorm's gain and bias.
 * pemb's tensors: layer l's table E_l (V x hd/2) is w[l]. */
enum { RL_LF_FCW, RL_LF_FCB, RL_LF_PROJW, RL_LF_PROJB, RL_LF_LNW, RL_LF_LNB, RL_LF_TENSORS };

/* The theory's reading of a table (model/steplaw.h): the step theta that
 * layer l accumulates at a position, as a law theta = center + U(-halfw,
 * halfw) per lane, from what prepare reads there (ln: the layer's LN1
 * output row, for lf; tok: the token, for pemb; NULL when unused).  Lanes
 * per row: rl_scheme_step_lanes (random, lf: H hd/2, head-major; pemb: hd/2;
 * 0: x's scheme accumulates no steps).  n rows into center, halfw (n x lanes). */
int rl_scheme_step_lanes(const rl_scheme_ctx *x);
void rl_scheme_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                     double *center, double *halfw);

#endif
