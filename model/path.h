/* path.h: PaTH attention (accumulated data-dependent Householder transport),
 * a logits provider of the shared attention kernel (attention.h).
 *
 * Per batch b and head h, with H_t = I - beta_t w_t w_t^T:
 *   s_ij = q_i^T H_i H_(i-1) ... H_(j+1) k_j / sqrt(hd)   (j <= i; empty
 *   product for j = i), p_i = softmax_j(s_ij) (plus the ALiBi bias when the
 *   shape has slopes), out_i = sum_j p_ij v_j (values not transported).
 * H_0 never enters a score.  The kernel works for any w; the model feeds it
 * w normalised per head (rl_path_wnorm_forward) and beta = 2 sigmoid(z) in
 * (0, 2) (rl_path_beta_forward), so every H_t is a contraction (eigenvalues
 * 1 and 1 - beta in (-1, 1)).
 *
 * Layout as attention.h: row (b*T + t) of q, k, v has head h at columns
 * h*hd .., rows ld floats apart (q, k, v may be the thirds of one qkv
 * buffer); w likewise with its own row stride ldw (dw: lddw); beta (and
 * dbeta) has entry (b, t, h) at (b*T + t)*H + h.
 *
 * Fast path (the one the model uses): blocks of c = RL_PATH_C positions and
 * the compact WY (UT) form of a block's product, H_(e) ... H_(s) =
 * I - W^T X W with X lower triangular, so that everything is sgemm on c x c
 * and c x hd tiles; O(T^2 hd) like attention.  Naive reference: the walk of
 * each query back through the H's, O(T^2 hd), scalar.  Derivations in
 * path.c and docs/model/path.md#path-attention. */
#ifndef RL_MODEL_PATH_H
#define RL_MODEL_PATH_H

#include <stddef.h>

#include "attention.h"

#define RL_PATH_C RL_ATTN_SQ /* block of the UT transform = streaming query block */

/* Inputs, outputs and workspace of one PaTH call (for rl_path_logits; the
 * wrappers below fill it).  Gradient outputs are written (=), not added. */
typedef struct {
    rl_attn_shape s;
    const float *q, *k, *w, *beta;
    long ld, ldw;                /* rows of q, k, v; rows of w */
    float *dq, *dk, *dw, *dbeta; /* backward only */
    long ldd, lddw;              /* rows of dq, dk (dv); rows of dw */
    float *work;                 /* B*H*per floats, per (b, h) a region */
    int streaming;               /* 1: the streaming wrapper's smaller layout */
    long per;                    /* set by rl_path_logits */
} rl_path_ctx;

/* Scratch floats the training forward/backward need (B*H regions of
 * O(T (c + hd)) floats; pure scratch, nothing kept between calls, so one
 * buffer can serve every layer). */
/* PaTH's own logit arithmetic, beyond standard attention's q.k: forward
 * multiply-adds of one head and window of T at head dim hd, the blocks of
 * c = RL_PATH_C (docs/model/path.md#path-flops): the intra-block UT transform
 * (T/c)(9 c^2 hd + 2 c^3) and the sweep's transported queries (T^2/2)(hd^2/c).
 * The backward is about 3 times the forward (docs/model/path.md#path-speed). */
double rl_path_logit_madds(long T, int hd);

size_t rl_path_work_floats(const rl_attn_shape *s);

/* The provider over c (c->work must hold rl_path_work_floats(&c->s) floats
 * for the training forward/backward; the streaming wrapper allocates its
 * own).  naive = 1 gives the reference walk instead of the blockwise form
 * (slow: tests and the bench). */
rl_attn_logits rl_path_logits(rl_path_ctx *c, int naive);

/* Training forward: out_i = sum_j p_ij v_j, att as rl_attention_forward
 * (the B*H*T*T probabilities, all the backward needs besides the inputs);
 * work: rl_path_work_floats(s) floats of scratch. */
void rl_path_forward(float *out, long ldo, float *att, float *work, const float *q,
                     const float *k, const float *v, long ld, const float *w, long ldw,
                     const float *beta, const rl_attn_shape *s);

/* Gradients (written) of q, k, v (row stride ldd), w (row stride lddw)
 * and beta (layout of beta) from dout; datt: B*H*T*T scratch, work as for
 * the forward. */
void rl_path_backward(float *dq, float *dk, float *dv, long ldd, float *dw, long lddw,
                      float *dbeta, float *datt, float *work, const float *dout, long lddo,
                      const float *att, const float *q, const float *k, const float *v, long ld,
                      const float *w, long ldw, const float *beta, const rl_attn_shape *s);

/* Long evaluation: the same forward with the online softmax over key
 * blocks; memory per head O(T (c + 2 hd)) floats (the blocks' X, X W and the
 * keys transported to their block's end) plus a score block per thread,
 * never T x T.  Equal to rl_path_forward to float rounding.  RL_ENOMEM
 * when that memory cannot be allocated (out is then not written). */
rl_status rl_path_forward_streaming(float *out, long ldo, const float *q, const float *k,
                               const float *v, long ld, const float *w, long ldw,
                               const float *beta, const rl_attn_shape *s);

/* ---- inputs of the kernel ---------------------------------------------- */

/* In place: w_t <- w_t / sqrt(|w_t|^2 + 1e-12) per head (rows N = B*T, row
 * stride ld, H heads of hd); rnorm (N*H, entry (row, h)) keeps the factor. */
void rl_path_wnorm_forward(float *w, float *rnorm, long ld, long N, int H, int hd);
/* In place: dw (gradient wrt the normalised w) becomes the gradient wrt the
 * raw w:  dw_raw = r (dw - w^ (w^ . dw)), w^ the normalised w (as the
 * forward left it), r its rnorm. */
void rl_path_wnorm_backward(float *dw, long ldd, const float *w, long ld, const float *rnorm,
                            long N, int H, int hd);

/* The reference's short convolution on w (optional): per channel c of
 * each window b, causal, width 3, then SiLU:
 *   y[b,t,c] = silu(a[3c] x[b,t,c] + a[3c+1] x[b,t-1,c] + a[3c+2] x[b,t-2,c]),
 * x[b,t',c] = 0 for t' < 0 (rows b*T + t, row strides ldx, ldy; C channels;
 * a: C x 3).  a = (1, 0, 0) per channel makes it silu(x). */
void rl_path_conv_forward(float *y, long ldy, const float *x, long ldx, const float *a, int B,
                          int T, int C);
/* dx written (row stride lddx), da accumulated (+=, each channel summed
 * over (b, t) in order); the pre-activation is recomputed from x. */
void rl_path_conv_backward(float *dx, long lddx, float *da, const float *dy, long lddy,
                           const float *x, long ldx, const float *a, int B, int T, int C);

/* beta = 2 sigmoid(z) (n entries; beta may be z). */
void rl_path_beta_forward(float *beta, const float *z, long n);
/* dz = dbeta * beta (1 - beta/2)  (= dbeta * d(2 sigmoid)/dz; dz may be dbeta). */
void rl_path_beta_backward(float *dz, const float *dbeta, const float *beta, long n);

#endif
