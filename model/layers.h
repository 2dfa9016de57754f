/* layers.h: the per-position layers of the decoder, each a forward/backward
 * pair over flat row-major float buffers of N rows.
 *
 * Determinism: every OpenMP loop here writes disjoint outputs from a static
 * partition, and every reduction over rows (bias and norm gradients) runs
 * over a column range in row order, so the numbers do not depend on the
 * thread count.  Gradients of parameters are accumulated (+=), gradients of
 * inputs are written (=) unless stated. */
#ifndef RL_MODEL_LAYERS_H
#define RL_MODEL_LAYERS_H

#include <stdint.h>

/* What a matmul does to each tile of its written product Y (forward: out
 * after its bias; backward: dinp) while the tile is still in cache, in this
 * order, each element by the operations of the separate layer it replaces
 * (so the same bits, docs/speed/eval-and-training.md#fused-elementwise); a NULL field does nothing,
 * a NULL rl_tile_after nothing at all:
 *   gelu_at:  Y = Y * gelu'(gelu_at)        (rl_gelu_backward in place)
 *   gelu_to:  gelu_to = GELU(Y)             (rl_gelu_forward; may be Y)
 *   sum_to:   sum_to = Y + sum_with         (rl_residual_forward; sum_to may
 *             be Y or sum_with)
 * Each array is indexed like Y (row stride: Y's columns). */
typedef struct {
    const float *gelu_at;
    float *gelu_to;
    float *sum_to;
    const float *sum_with;
} rl_tile_after;

/* out = inp W^T + b  (inp N x C, W OC x C, b OC or NULL), through sgemm,
 * the same bits for any thread count: OpenBLAS's own threading splits the
 * work by thread count and its edge kernels sum in another order, so out is
 * cut into fixed tiles (independent of the thread count), each computed by a
 * single-threaded sgemm call inside our OpenMP loop. */
void rl_matmul_forward(float *out, const float *inp, const float *w, const float *b,
                       long N, int C, int OC, const rl_tile_after *after);
/* dinp = dout W (written; skipped when dinp is NULL); dW += dout^T inp;
 * db += column sums of dout (skipped when db is NULL). */
void rl_matmul_backward(float *dinp, float *dw, float *db, const float *dout,
                        const float *inp, const float *w, long N, int C, int OC,
                        const rl_tile_after *after);

/* LayerNorm with bias: y = (x - mu) * rstd * w + b, rstd = 1/sqrt(var + 1e-5),
 * variance biased (divide by C).  mean and rstd are saved per row. */
void rl_layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                          const float *w, const float *b, long N, int C);
/* dinp += dx, with dx = rstd (w*dy - mean(w*dy) - xhat mean(w*dy*xhat));
 * dw += sum_rows dy*xhat; db += sum_rows dy. */
void rl_layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                           const float *inp, const float *w, const float *mean,
                           const float *rstd, long N, int C);

/* GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
void rl_gelu_forward(float *out, const float *inp, long n);
/* dinp = dout * gelu'(inp); dinp may be dout (in place). */
void rl_gelu_backward(float *dinp, const float *inp, const float *dout, long n);

/* out[i] = a[i] + b[i] (out may alias a or b). */
void rl_residual_forward(float *out, const float *a, const float *b, long n);

/* out row (b,t) = wte[tok[b*ld + t]]; N = B*T rows. */
void rl_embed_forward(float *out, const uint16_t *tok, long ld, int B, int T,
                      const float *wte, int C);
/* dwte[tok] += dout rows, each channel range summed in row order. */
void rl_embed_backward(float *dwte, const float *dout, const uint16_t *tok, long ld,
                       int B, int T, int C);

/* Softmax cross-entropy of logits rows against targets tgt[b*ld + t]:
 * logits become probabilities in place, losses[row] = -log p[target]. */
void rl_xent_forward(float *logits, float *losses, const uint16_t *tgt, long ld,
                     int B, int T, int V);
/* probs become dlogits = (p - onehot) * scale in place. */
void rl_xent_backward(float *probs, const uint16_t *tgt, long ld, int B, int T, int V,
                      float scale);

/* Inverted dropout in place: x *= keep / (1 - p), keep decided by a counter
 * hash of (key, element index), so the backward pass regenerates the same
 * mask from the key and applies it to the gradient. */
void rl_dropout(float *x, long n, float p, uint64_t key);

#endif
