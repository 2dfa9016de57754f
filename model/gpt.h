/* gpt.h: a GPT-style decoder over one parameter, one gradient, one optimizer
 * and one activation allocation (llm.c style).
 *
 * Pre-LN block:  x += Drop(Proj(Rot^-1(Attn(Rot(QKV(LN1(x)))))));
 *                x += Drop(FC2(GELU(FC(LN2(x)))));
 * then LNf and an untied head with bias.  No absolute position embedding:
 * positions enter only through the position scheme (config.h: a rotation of
 * q and k, and in qkv mode of v with the inverse rotation of the output;
 * PaTH's transport of the scores; and/or the ALiBi bias on the logits),
 * an object behind one interface (scheme.h) that this decoder calls
 * without knowing which it is.  Training forward/backward work on B windows of
 * T <= ctx tokens; long evaluation runs one window of any length L through
 * the streaming attention with memory O(L * width). */
#ifndef RL_MODEL_GPT_H
#define RL_MODEL_GPT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/core/err.h"
#include "config.h"
#include "scheme.h"
#include "shape.h"

/* Tensors of one block, in their order in the parameter buffer. */
enum { RL_LN1W, RL_LN1B, RL_QKVW, RL_QKVB, RL_PROJW, RL_PROJB,
       RL_LN2W, RL_LN2B, RL_FCW, RL_FCB, RL_FC2W, RL_FC2B, RL_BLOCK_TENSORS };

typedef struct {
    char name[24];
    long off, n;
    long rows, cols; /* its shape: rows x cols, row-major; cols = 0 for a vector of n = rows */
    rl_tensor_kind kind;
} rl_tensor;

/* Views of the tensors inside a flat buffer (parameters or gradients). */
typedef struct {
    float *wte, *lnfw, *lnfb, *headw, *headb;
    float *(*blk)[RL_BLOCK_TENSORS]; /* blk[l][RL_QKVW] ... */
    float **pos;                     /* the position scheme's tensors, in the order it
                                      * declares them (accum_rot.h, scheme_path.c) */
} rl_gpt_weights;

typedef struct {
    float *ln1, *ln1_mean, *ln1_rstd, *qkv, *att, *atty, *res2;
    float *ln2, *ln2_mean, *ln2_rstd, *fch, *fch_gelu, *res3;
} rl_block_acts;

typedef struct rl_gpt {
    rl_gpt_config cfg;
    int B, T, hd;          /* activation capacity: B windows of T = ctx */
    long nparams;
    int ntensors;
    rl_tensor *tensors;
    float *params, *grads; /* nparams each, same layout */
    float *adam;           /* AdamW moments m then v: 2 nparams */
    long adam_t;           /* AdamW steps taken */
    rl_gpt_weights p, g;
    float *acts;           /* every activation and scratch buffer */
    size_t nacts;
    rl_block_acts *a;
    float *enc, *lnf, *lnf_mean, *lnf_rstd, *logits, *losses;
    float *dres, *dC1, *dC2, *d3C, *d4C, *datt;
    float *slopes;          /* H ALiBi slopes (used when the configuration asks) */
    int npos;               /* tensors of the position scheme (the last npos) */
    rl_scheme_ctx sx;       /* the position scheme and its view of the model */
    rl_scheme_state ss;     /* its training activations */
    /* set by the last forward, read by the backward */
    const uint16_t *tok;
    long ldtok;
    int fB, fT;
    float drop;            /* dropout in force (0 outside training) */
    int nomem;             /* the last forward ran out of memory (its loss NAN):
                            * the position scheme's noise generators */
    uint64_t drop_key;     /* per micro-step key of the dropout masks and of the
                            * rotation noise (random, lf) */
} rl_gpt;

/* Bytes a model of cfg with activations for B windows of cfg->ctx (B = 0:
 * none, for evaluation) holds: parameters, gradients, AdamW moments, the
 * decoder's and the scheme's activations, counted without allocating.
 * RL_EINPUT for a configuration that rl_gpt_config_check or the ranges of
 * the training flags (trainopts.h) refuse, for a count that overflows, and
 * for one above rl_mem_limit (base/core/mem.h), naming the bytes. */
rl_status rl_gpt_bytes(const rl_gpt_config *cfg, int B, size_t *bytes, rl_err *err);

/* Allocate for B windows of cfg->ctx tokens (B = 0: no training
 * activations; for evaluation); RL_EINPUT when rl_gpt_bytes refuses,
 * RL_ENOMEM when memory runs out (nothing is left allocated). */
rl_status rl_gpt_new(rl_gpt **out, const rl_gpt_config *cfg, int B, rl_err *err);
/* The same for a configuration already checked: NULL when it is not valid
 * or when memory runs out. */
rl_gpt *rl_gpt_alloc(const rl_gpt_config *cfg, int B);
void rl_gpt_free(rl_gpt *m);

/* GPT-2 initialisation: matrices and embedding N(0, 0.02), residual output
 * projections N(0, 0.02/sqrt(2 layers)), biases 0, norms (1, 0); tensor i
 * draws from stream i of seed.  Zeroes gradients and optimizer state. */
void rl_gpt_init(rl_gpt *m, uint64_t seed);

/* Forward on B <= m->B windows of T <= ctx tokens (NAN beyond): inputs tok[b*ld + t], targets
 * tok[b*ld + t + 1] (t < T).  Dropout applies when train is set, with masks
 * keyed by drop_key; the rotation noise of random and lf is drawn from
 * streams of drop_key at every forward, training or not.  Returns the mean cross-entropy (summed in double, in
 * row order); per-position losses stay in m->losses.  NAN with m->nomem
 * set when the position scheme runs out of memory (no backward then). */
double rl_gpt_forward(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, int train,
                      uint64_t drop_key);

/* rl_gpt_forward without training (no dropout, no backward after it), the
 * loss of each window's last position alone: m->losses[b] is the loss of
 * target tok[b ld + T] after the T tokens before it, as rl_gpt_forward's
 * m->losses[b T + T - 1] (within float rounding: the last block's MLP and
 * the head multiply B rows, not B T, docs/speed/kernels.md#training-attention-kernels); returns
 * their mean.  The token-paired reference needs nothing else (model/evaluate.c), and
 * this skips the head's V C and the last MLP's 8 C^2 multiply-adds at
 * every other position. */
double rl_gpt_forward_last(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, uint64_t key);

/* Accumulate into m->grads the gradient of scale * (sum of the losses of the
 * last forward); scale = 1/(B T accum) gives the mean over an accumulated
 * batch. */
void rl_gpt_backward(rl_gpt *m, float scale);

void rl_gpt_zero_grad(rl_gpt *m);

/* What probe asks of the scheme: the ALiBi slopes the kernel adds
 * (-m_h (i - j) after the scaling), or NULL without a bias. */
const float *rl_gpt_alibi_slopes(const rl_gpt *m);

/* Long-window evaluation workspace for windows of up to L tokens. */
typedef struct rl_gpt_eval rl_gpt_eval;
/* RL_EINPUT when the workspace for L overflows or exceeds rl_mem_limit
 * (naming the bytes); call before rl_gpt_eval_alloc. */
rl_status rl_gpt_eval_check(const rl_gpt *m, long L, rl_err *err);
/* NULL when memory runs out (the caller returns RL_ENOMEM). */
rl_gpt_eval *rl_gpt_eval_alloc(const rl_gpt *m, long L);
void rl_gpt_eval_free(rl_gpt_eval *e);
/* Diagnostics (routelab probe): fn sees every block of layer's scaled
 * logits in the streaming attention of the next windows (rl_attn_observer,
 * with the layer added); NULL fn stops it. */
typedef void (*rl_gpt_observe_fn)(void *ctx, int layer, int b, int h, long i0, long i1, long j0,
                                  long j1, const float *S, long lds);
void rl_gpt_eval_observe(rl_gpt_eval *e, rl_gpt_observe_fn fn, void *ctx);
/* Copy the per-position cross-entropies of the next windows into losses
 * (L floats for a window of L; NULL stops it). */
void rl_gpt_eval_keep_losses(rl_gpt_eval *e, float *losses);
/* Copy the logits of every position of the next windows into logits (L x V
 * floats for a window of L, row-major; NULL stops it). */
void rl_gpt_eval_keep_logits(rl_gpt_eval *e, float *logits);
/* The streaming attention's pruning in the next windows (attention.h,
 * docs/speed/reproduction-and-pruning.md#pruned-attention): keys skipped where a distance bias
 * (ALiBi) makes their share of a row's mass provably <= eps; 0: never.  The default,
 * RL_ATTN_PRUNE_EXACT, skips only what the softmax would store as 0, so the
 * numbers are those of no pruning byte for byte. */
void rl_gpt_eval_prune_eps(rl_gpt_eval *e, double eps);
/* What pruning did since the last call (summed over windows, layers and
 * heads; the bounds the largest), and start again from nothing. */
rl_attn_prune rl_gpt_eval_prune_take(rl_gpt_eval *e);
/* The first layer whose activations were not finite in a window so far (its
 * window returned NAN), layers for the output head, -1 for none: a
 * checkpoint whose finite weights overflow float. */
int rl_gpt_eval_bad_layer(const rl_gpt_eval *e);
/* That layer in words for a message ("layer 2", "the output head, after
 * layer 3") into buf; "" when none was. */
const char *rl_gpt_eval_bad_what(const rl_gpt *m, const rl_gpt_eval *e, char *buf, size_t n);
/* Whether memory ran out in a window so far (the position scheme's
 * generators, the streaming kernel's blocks: the window returned NAN) or in
 * a reader of the workspace that marked it (rl_eval_length, rl_probe_length:
 * their results are then not valid); the caller returns RL_ENOMEM.  Sticky,
 * as rl_gpt_eval_bad_layer. */
int rl_gpt_eval_nomem(const rl_gpt_eval *e);
void rl_gpt_eval_set_nomem(rl_gpt_eval *e);
/* Bytes the workspace holds (for reports). */
size_t rl_gpt_eval_bytes(const rl_gpt_eval *e);
/* Sum of the cross-entropies at every position of one window of L <=
 * the workspace's length (NAN beyond): inputs
 * tok[0..L-1], targets tok[1..L]; streaming attention, positions in chunks.
 * key draws the rotation noise (random, lf) as a forward with drop_key =
 * key does for a single window: same key, same numbers.  NAN when memory
 * runs out (rl_gpt_eval_nomem). */
double rl_gpt_eval_window(const rl_gpt *m, rl_gpt_eval *e, const uint16_t *tok, long L,
                          uint64_t key);

#endif
