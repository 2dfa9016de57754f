/* accum_rot.h: the accumulated rotation schemes random, pemb and lf (study,
 * "Variants"), as angle tables that feed rl_rotate around the one attention
 * kernel, and the backward of the learned ones.
 *
 * Each layer l has its own table A_l(b, t, h, p) = sum_{s=1..t} theta_l(b, s, h, p)
 * with A_l(b, 0, h, p) = 0 (position 0 unrotated, as in RoPE), summed in
 * double and reduced mod 2 pi at every step (rl_angle_add), recomputed at
 * every forward (training and evaluation).  omega_p = 10000^(-2p/hd).
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

#include <stdint.h>

#include "gpt.h"

/* What a training forward keeps per layer. */
struct rl_rot_acts {
    float *cos, *sin;   /* the layer's table, B*T rows of rl_acc_width floats */
    float *u;           /* lf: the noise U, N x HP (HP = H*hd/2 = C/2) */
    float *h, *hg;      /* lf: MLP hidden before / after GELU, N x C */
    float *z, *y;       /* lf: MLP output and its LayerNorm, N x HP; f = |y| */
    float *mean, *rstd; /* lf: that LayerNorm's statistics, N */
};

/* Whether the scheme accumulates angles / has learned angles. */
int rl_acc_active(const rl_gpt_config *c);
int rl_acc_learned(const rl_gpt_config *c);
/* Floats of a layer's table per position: H*hd/2 (random, lf), hd/2
 * (pemb: no head index), 0 for other schemes. */
long rl_acc_width(const rl_gpt_config *c);
/* The rotation reading a table of T positions per window. */
rl_rotation rl_acc_rotation(const rl_gpt_config *c, const float *cos, const float *sin, long T);

/* Training: layer l's table for B windows of T tokens tok[b*ld + t], LN1
 * output ln (N x C); keeps lf's activations in ra. */
rl_rotation rl_acc_forward(const rl_gpt *m, int l, const struct rl_rot_acts *ra,
                           const float *ln, const uint16_t *tok, long ld, int B, int T,
                           uint64_t key);

/* Evaluation: layer l's table for one window of L tokens into cos, sin
 * (L x width each); lf's MLP runs in chunks of `chunk` rows through the
 * scratch h (chunk x C) and z (chunk x HP).  Same numbers as rl_acc_forward
 * with B = 1 and the same key. */
rl_rotation rl_acc_forward_window(const rl_gpt *m, int l, float *cos, float *sin,
                                  const float *ln, const uint16_t *tok, long L, uint64_t key,
                                  float *h, float *z, long chunk);

/* Angle gradients into dang (the table's layout): of the output y = R(-A) x
 * of the inverse rotation (qkv mode), given y and dy; and of the rotated
 * q, k (and v when values is set) of a qkv buffer (row stride 3C) given
 * their gradients. */
void rl_acc_grad_out(float *dang, const rl_rotation *tab, const float *y, const float *dy,
                     int B, int T, int H, int hd);
void rl_acc_grad_qkv(float *dang, const rl_rotation *tab, const float *qkv, const float *dqkv,
                     int B, int T, int H, int hd, int values);

/* Backward of layer l's learned angles from dang = dL/dA (overwritten):
 * pemb into m->g.pemb[l]; lf into m->g.lf and added into dln (N x C, the
 * gradient of the LN1 output ln).  scratch: N x (2 C + C/2) floats. */
void rl_acc_backward(rl_gpt *m, int l, const struct rl_rot_acts *ra, const float *ln,
                     float *dang, float *dln, float *scratch);

#endif
