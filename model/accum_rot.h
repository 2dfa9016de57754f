/* accum_rot.h: the accumulated rotation schemes random, pemb, pemb-shared
 * and lf (study, "Variants"): four scheme objects (scheme.h, registered in
 * scheme.c) whose angle tables feed rl_rotate around the one attention kernel through the
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
 *           order s = 1..T-1, p = 0..P-1 (key: the forward's key).  In
 *           general theta = (c + U) omega_p, U ~ U(-1, 1) from those streams,
 *           c the centre of the scheme's step_law (rl_acc_centre): 0 here,
 *           1 for random_pos (scheme_random_pos.c, theta ~ U(0, 2 omega_p)),
 *           whose tables are therefore random's plus t omega_p.
 *   pemb:   the study author's (docs/model/schemes.md#pemb-author): theta(b, s, h, p) = pi
 *           tanh(E_l[x_s, h, p]) + omega_p, one V x H hd/2 table per layer
 *           (each head its own angles), accumulated with the KEY's token on
 *           the path: A_l(b, t) = sum_{s<t} theta(b, s), so the relative
 *           angle A_i - A_j = sum_{s=j..i-1} holds x_j's step, not x_i's;
 *           with E_l = 0 it is RoPE's t omega_p.
 *   pemb-shared: routelab's first reading (code RL_ROT_PEMB, so its
 *           checkpoints load as they were): one V x hd/2 table per layer
 *           shared by the heads (no head index, sh = 0), the QUERY's token on
 *           the path: A_l(b, t) = sum_{s=1..t} theta(b, s), A_i - A_j =
 *           sum_{s=j+1..i}.  One kernel with the two parameters (per head
 *           or shared; key or query token).
 *   lf:     theta(b, s, h, p) = U(b, s, h, p) f_s[h P + p], U ~ U(-1, 1) from the
 *           same streams as random, f_s = |LN(W2 GELU(W1 n_s + b1) + b2)|,
 *           one MLP C -> C -> H P (with its LayerNorm) shared by all layers, n_s
 *           the layer's LN1 output (scale-free whatever the depth, already
 *           stored for the backward, and the same input the layer's q, k, v see).
 * Backward: dL/dA from the angle gradients of the rotated q, k (and v and
 * the inverse-rotated output in qkv mode), then dL/dtheta_s = sum_{t >= s}
 * dL/dA_t (the reverse running sum; pemb's step of x_s: sum_{t > s}), then
 * pemb: pi (1 - tanh^2) into E_l at the token ids; lf: times U, through |.|, the LayerNorm and the MLP into
 * the shared parameters and, added, into the LN1 output. */
#ifndef RL_MODEL_ACCUM_ROT_H
#define RL_MODEL_ACCUM_ROT_H

#include "scheme.h"
#include "scheme_rot.h"

extern const rl_scheme rl_scheme_random, rl_scheme_pemb, rl_scheme_pemb_shared, rl_scheme_lf;

/* The tensors of lf's shared MLP, in their order (rl_scheme_ctx.w[i]):
 * W1, b1 (C -> C), W2, b2 (C -> H*hd/2), the LayerNorm's gain and bias.
 * pemb's tensors: layer l's table E_l (V x H hd/2, row v: head h's hd/2
 * angles at h hd/2; pemb-shared: V x hd/2) is w[l]. */
enum { RL_LF_FCW, RL_LF_FCB, RL_LF_PROJW, RL_LF_PROJB, RL_LF_LNW, RL_LF_LNB, RL_LF_TENSORS };

/* What a training forward keeps (per layer: layer l's copy of each
 * per-layer buffer is at + l * block) and the scratch of the backward; the
 * state of every scheme of this file and of the closed-law schemes' own
 * files (state_bytes = sizeof(rl_acc_state)). */
typedef struct {
    rl_rot_state r;
    int eval;            /* a streaming evaluation's state (one window, one layer at a time) */
    size_t block;        /* floats from one layer's buffers to the next (0: eval, one layer) */
    float *cos, *sin;    /* the layer's table, B*T rows of the table's width */
    float *u;            /* lf: the noise U, N x HP (HP = H*hd/2 = C/2) */
    float *h, *hg;       /* lf: MLP hidden before / after GELU, N x C */
    float *z, *y;        /* lf: MLP output and its LayerNorm, N x HP; f = |y| */
    float *mean, *rstd;  /* lf: that LayerNorm's statistics, N */
    float *dz, *dh, *dx; /* lf backward: N x HP, N x C, N x C */
} rl_acc_state;

/* ---- the hooks of a closed-law scheme (steps_kind RL_STEPS_CLOSED):
 * theta = (c + U) omega_p with U ~ U(-1, 1) from random's streams, c =
 * rl_acc_centre(step_law); no parameters.  random's, shared with the
 * schemes in their own files (random_pos). */

/* The centre c of a closed law in units of omega: U(-omega, omega) = 0 +
 * U(-1, 1) omega; drift U(0, 2 omega) = (1 + U(-1, 1)) omega
 * (<routelab/family.h>); -1 for a law that is no shifted uniform. */
int rl_acc_centre(rl_angle_law law);

void rl_acc_closed_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a);
/* RL_ENOMEM when the noise generators cannot be allocated (scheme.h) */
rl_status rl_acc_closed_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                                const uint16_t *tok, long ld, int B, int T, uint64_t key,
                                float *scratch);
/* H hd/2 lanes, head-major (random, random_pos, lf) */
int rl_acc_head_lanes(const rl_scheme_ctx *x);
/* center c omega_p, halfw omega_p at every row and head */
rl_status rl_acc_closed_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok,
                              long n, double *center, double *halfw);

#endif
