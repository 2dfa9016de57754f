/* attention.h: the one causal multi-head attention kernel.
 *
 * It knows only how the logits are formed (a logits provider, below), the
 * values, the causal mask and an optional per-head ALiBi slope.  Position
 * schemes that rotate (RoPE and the accumulated schemes) are applied to q, k
 * (and v, and the output) by position.h before and after the standard
 * provider; PaTH (path.h) is a second provider whose logits are not a fixed
 * transform of q and k.  Softmax, P V, the online-softmax streaming loop and
 * the softmax backward are shared by both.
 *
 * Layout: row (b*T + t) of q, k, v has head h at columns h*hd .. h*hd+hd-1,
 * rows ld floats apart (q, k, v may be the three thirds of one qkv buffer).
 * Logit of query i and key j <= i:  s_ij = (q_i . k_j) / sqrt(hd) - m_h (i - j)
 * (the bias after the scaling, as ALiBi specifies); p_i = softmax_j(s_ij). */
#ifndef RL_MODEL_ATTENTION_H
#define RL_MODEL_ATTENTION_H

#include "../base/core/err.h"

/* A diagnostic observer of the streaming forward: it sees every block of
 * scaled logits of queries [i0, i1) against keys [j0, j1) of (b, h) as the
 * provider formed them, before the ALiBi bias (entries j > i are
 * meaningless), key blocks in decreasing order down to j0 = 0.  Called from
 * the worker threads; one (b, h, query block) is always on one thread. */
typedef struct {
    void (*fn)(void *ctx, int b, int h, long i0, long i1, long j0, long j1, const float *S,
               long lds);
    void *ctx;
} rl_attn_observer;

/* Pruning with a proof (the streaming forward with ALiBi;
 * docs/speed/reproduction-and-pruning.md#pruned-attention).  Row i's scaled logits obey |s_ij| <=
 * qn_i kn_j (the provider's bound), and the softmax's denominator holds e^(m_i), m_i the row's
 * largest biased logit found so far (the key blocks run from the diagonal down), so the
 * keys j < j1 carry a share of row i's mass of at most
 *     rho_i <= e^(qn_i K - m_i - m_h (i - j1 + 1)) min(j1, 1 / (1 - e^(-m_h))),
 * K = max_{j < j1} kn_j (n terms each at most the nearest one, or their
 * geometric tail).  The keys below a key block are skipped when rho_i <= eps
 * for every row of the query block (with a margin for float rounding);
 * renormalising over the kept keys then moves the head's output
 * o_i = sum_j p_ij v_j by
 *     |o'_i - o_i| <= 2 rho_i max_{j <= i} |v_j|.
 * At eps <= RL_ATTN_PRUNE_EXACT every skipped weight is one the softmax
 * stores as exact 0 anyway (RL_SOFTMAX_FLUSH, softmax_row.h), so the output
 * is the unpruned one byte for byte: that is the default of the
 * evaluation. */
#define RL_ATTN_PRUNE_EXACT 7.888609052210118e-31 /* 2^-100 = e^(RL_SOFTMAX_FLUSH) */

/* What pruning did in one or more streaming forwards (added up). */
typedef struct {
    double pairs;   /* causal (query, key) pairs of the heads that could prune (ALiBi) */
    double skipped; /* of which skipped */
    double mass;    /* the largest bound rho on a row's skipped mass (0: none skipped) */
    double out;     /* the largest bound 2 rho max|v| on a head output's change */
} rl_attn_prune;

typedef struct {
    int B, T, H, hd;
    const float *slopes;              /* H ALiBi slopes m_h, or NULL for no bias */
    const rl_attn_observer *observe;  /* streaming forward only (or NULL) */
    double prune_eps;                 /* streaming with slopes: skip keys whose mass is provably <= this (0: never) */
    rl_attn_prune *prune;             /* what pruning did, added to (or NULL) */
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
 * rl_attention_forward to float rounding.  RL_ENOMEM when the threads'
 * score blocks cannot be allocated (out is then not written). */
rl_status rl_attention_forward_streaming(float *out, long ldo, const float *q, const float *k,
                                    const float *v, long ld, const rl_attn_shape *s);

/* ---- logits providers: the shared kernel with another score ---------- */

/* Streaming blocks: queries [i0, i1) with i0 a multiple of RL_ATTN_SQ and
 * i1 <= i0 + RL_ATTN_SQ; keys [j0, j1) with j0 a multiple of RL_ATTN_SK. */
#define RL_ATTN_SQ 64
#define RL_ATTN_SK 512

/* How the scaled logits (q_i.k_j / sqrt(hd) for the standard kernel; the
 * ALiBi bias is added by the kernel afterwards) of batch b, head h are
 * formed, and their gradient.
 *
 * block: logits of queries [i0, i1) against keys [j0, j1) into S (row
 *   stride lds, column 0 = key j0); entries with j > i are ignored.  The
 *   training forward calls it once per (b, h) with i0 = j0 = 0, i1 = j1 = T
 *   and state NULL, right after prepare(b, h).  The streaming forward calls
 *   it per query block with the key blocks in DECREASING order, from the
 *   one holding the diagonal (j1 = i1) down to j0 = 0, passing the same
 *   per-thread state (state_floats floats) to the calls of one query block,
 *   so a provider may carry a running quantity from block to block (PaTH
 *   carries the query transported back to key j1).
 * prepare (or NULL): per-(b, h) set-up before any block call of that (b, h);
 *   the streaming forward runs it for every (b, h) first.
 * grad: from dS (T x T, row stride T, zero above the diagonal), the
 *   gradient of L with respect to the scaled logits of (b, h), write the
 *   gradients of whatever made the logits (the provider's own outputs).
 * Each call touches only (b, h)'s data: calls for different (b, h) run in
 * parallel, each (b, h) on one thread. */
typedef struct rl_attn_logits rl_attn_logits;
struct rl_attn_logits {
    void (*prepare)(const rl_attn_logits *lg, int b, int h);
    void (*block)(const rl_attn_logits *lg, float *S, long lds, int b, int h, long i0, long i1,
                  long j0, long j1, float *state);
    void (*grad)(const rl_attn_logits *lg, const float *dS, int b, int h);
    long state_floats;
    void *ctx;
    /* (or NULL: the streaming forward never prunes) factors of a bound on
     * (b, h)'s scaled logits, |s_ij| <= qn[i] kn[j] for every i, j < T */
    void (*bound)(const rl_attn_logits *lg, int b, int h, float *qn, float *kn);
};

/* rl_attention_forward with the logits of lg (saves att the same way). */
void rl_attention_forward_logits(float *out, long ldo, float *att, const float *v, long ld,
                                 const rl_attn_shape *s, const rl_attn_logits *lg);
/* The shared backward: dv (written), then dS of every (b, h) into datt and
 * lg->grad(dS) for the rest. */
void rl_attention_backward_logits(float *dv, long ldd, float *datt, const float *dout,
                                  long lddo, const float *att, const float *v, long ld,
                                  const rl_attn_shape *s, const rl_attn_logits *lg);
/* The streaming forward with the logits of lg (RL_ENOMEM as above). */
rl_status rl_attention_forward_streaming_logits(float *out, long ldo, const float *v, long ld,
                                           const rl_attn_shape *s, const rl_attn_logits *lg);

#endif
