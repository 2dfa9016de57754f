/* attention.h: the one causal multi-head attention kernel.
 *
 * It knows only q, k, v, the causal mask and an optional per-head ALiBi
 * slope.  Position schemes that rotate (RoPE and the accumulated schemes) are
 * applied to q, k (and v, and the output) by position.h before and after it.
 *
 * Layout: row (b*T + t) of q, k, v has head h at columns h*hd .. h*hd+hd-1,
 * rows ld floats apart (q, k, v may be the three thirds of one qkv buffer).
 * Logit of query i and key j <= i:  s_ij = (q_i . k_j) / sqrt(hd) - m_h (i - j)
 * (the bias after the scaling, as ALiBi specifies); p_i = softmax_j(s_ij). */
#ifndef RL_MODEL_ATTENTION_H
#define RL_MODEL_ATTENTION_H

typedef struct {
    int B, T, H, hd;
    const float *slopes; /* H ALiBi slopes m_h, or NULL for no bias */
} rl_attn_shape;

/* out_i = sum_j p_ij v_j; att receives the B*H*T*T probabilities (rows i,
 * zero above the diagonal) that the backward pass needs. */
void rl_attention_forward(float *out, long ldo, float *att, const float *q, const float *k,
                          const float *v, long ld, const rl_attn_shape *s);

/* Gradients of q, k, v (written, row stride ldd) from dout, with the
 * B*H*T*T scratch datt:  dv = P^T dout,  dP = dout V^T,
 * dS_ij = p_ij (dP_ij - sum_l p_il dP_il),  dq = dS K / sqrt(hd),
 * dk = dS^T Q / sqrt(hd).  The ALiBi bias is a constant: no gradient. */
void rl_attention_backward(float *dq, float *dk, float *dv, long ldd, float *datt,
                           const float *dout, long lddo, const float *att, const float *q,
                           const float *k, const float *v, long ld, const rl_attn_shape *s);

/* The same forward streaming over blocks of keys with an online softmax
 * (running max m, running sum l, rescaled accumulator): memory O(T*hd) per
 * head plus a block of scores per thread, never T x T.  Equal to
 * rl_attention_forward to float rounding. */
void rl_attention_forward_streaming(float *out, long ldo, const float *q, const float *k,
                                    const float *v, long ld, const rl_attn_shape *s);

#endif
