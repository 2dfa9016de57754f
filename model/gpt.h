/* gpt.h: a GPT-style decoder over one parameter, one gradient, one optimizer
 * and one activation allocation (llm.c style).
 *
 * Pre-LN block:  x += Drop(Proj(Rot^-1(Attn(Rot(QKV(LN1(x)))))));
 *                x += Drop(FC2(GELU(FC(LN2(x)))));
 * then LNf and an untied head with bias.  No absolute position embedding:
 * positions enter only through the position scheme (config.h: a rotation of
 * q and k, and in qkv mode of v with the inverse rotation of the output;
 * and/or the ALiBi bias on the logits).  Training forward/backward work on B windows of
 * T <= ctx tokens; long evaluation runs one window of any length L through
 * the streaming attention with memory O(L * width). */
#ifndef RL_MODEL_GPT_H
#define RL_MODEL_GPT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "position.h"

/* Tensors of one block, in their order in the parameter buffer. */
enum { RL_LN1W, RL_LN1B, RL_QKVW, RL_QKVB, RL_PROJW, RL_PROJB,
       RL_LN2W, RL_LN2B, RL_FCW, RL_FCB, RL_FC2W, RL_FC2B, RL_BLOCK_TENSORS };

/* The tensors of lf's shared MLP (accum_rot.h), after the head. */
enum { RL_LF_FCW, RL_LF_FCB, RL_LF_PROJW, RL_LF_PROJB, RL_LF_LNW, RL_LF_LNB, RL_LF_TENSORS };

/* The per-layer tensors of PaTH attention (model/path.h), after the head:
 * w = normalise(LN1(x) W_w^T + b_w) per head, beta = 2 sigmoid(LN1(x) u^T + b). */
enum { RL_PATH_WW, RL_PATH_WB, RL_PATH_UW, RL_PATH_UB, RL_PATH_TENSORS };

/* What a tensor is, for initialisation and weight decay.  RL_T_TABLE:
 * pemb's angle tables, zero-initialised and not decayed (decay would pull
 * them toward E = 0, i.e. toward RoPE's position-indexed angles). */
typedef enum { RL_T_EMBED, RL_T_MATRIX, RL_T_RESID_MATRIX, RL_T_BIAS, RL_T_NORM_W,
               RL_T_NORM_B, RL_T_TABLE } rl_tensor_kind;

typedef struct {
    char name[24];
    long off, n;
    rl_tensor_kind kind;
} rl_tensor;

/* Views of the tensors inside a flat buffer (parameters or gradients). */
typedef struct {
    float *wte, *lnfw, *lnfb, *headw, *headb;
    float *(*blk)[RL_BLOCK_TENSORS]; /* blk[l][RL_QKVW] ... */
    float **pemb;                    /* pemb: per-layer tables V x hd/2 (else NULL) */
    float *lf[RL_LF_TENSORS];        /* lf: the shared MLP (else NULL) */
    float *(*path)[RL_PATH_TENSORS]; /* path: path[l][RL_PATH_WW] ... (else NULL) */
} rl_gpt_weights;

typedef struct {
    float *ln1, *ln1_mean, *ln1_rstd, *qkv, *att, *atty, *res2;
    float *ln2, *ln2_mean, *ln2_rstd, *fch, *fch_gelu, *res3;
    float *pw, *prn, *pbeta; /* PaTH: normalised w (N x C), 1/|w_raw| and beta (N x H) */
} rl_block_acts;

/* Rotations a layer applies around the attention kernel (NULL: none):
 * qk turns q and k; v turns the values and, inversely at the query's
 * position, each head's output (value transport). */
typedef struct {
    const rl_rotation *qk, *v;
} rl_layer_rot;

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
    float *rope_cos, *rope_sin, *slopes;
    rl_rotation rope;
    struct rl_rot_acts *ra; /* accumulated schemes: per-layer tables (accum_rot.h) */
    float *dang;            /* learned angles: dL/dA of one layer, B*T x table width */
    float *path_work, *dbeta; /* PaTH: the kernel's scratch, dL/dbeta of one layer */
    /* set by the last forward, read by the backward */
    const uint16_t *tok;
    long ldtok;
    int fB, fT;
    float drop;            /* dropout in force (0 outside training) */
    uint64_t drop_key;     /* per micro-step key of the dropout masks and of the
                            * rotation noise (random, lf) */
} rl_gpt;

/* Allocate for B windows of cfg->ctx tokens (dies on a bad configuration). */
rl_gpt *rl_gpt_alloc(const rl_gpt_config *cfg, int B);
void rl_gpt_free(rl_gpt *m);

/* GPT-2 initialisation: matrices and embedding N(0, 0.02), residual output
 * projections N(0, 0.02/sqrt(2 layers)), biases 0, norms (1, 0); tensor i
 * draws from stream i of seed.  Zeroes gradients and optimizer state. */
void rl_gpt_init(rl_gpt *m, uint64_t seed);

/* Forward on B windows of T tokens: inputs tok[b*ld + t], targets
 * tok[b*ld + t + 1] (t < T).  Dropout applies when train is set, with masks
 * keyed by drop_key; the rotation noise of random and lf is drawn from
 * streams of drop_key at every forward, training or not.  Returns the mean cross-entropy (summed in double, in
 * row order); per-position losses stay in m->losses. */
double rl_gpt_forward(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, int train,
                      uint64_t drop_key);

/* Accumulate into m->grads the gradient of scale * (sum of the losses of the
 * last forward); scale = 1/(B T accum) gives the mean over an accumulated
 * batch. */
void rl_gpt_backward(rl_gpt *m, float scale);

void rl_gpt_zero_grad(rl_gpt *m);

/* The rotations of layer l given its angle table tab (RoPE's, or the
 * layer's accumulated one): qk for every rotation, v as well in qkv mode;
 * NULL for schemes that do not rotate. */
rl_layer_rot rl_gpt_layer_rot(const rl_gpt *m, int l, const rl_rotation *tab);

/* Long-window evaluation workspace for windows of up to L tokens. */
typedef struct rl_gpt_eval rl_gpt_eval;
rl_gpt_eval *rl_gpt_eval_alloc(const rl_gpt *m, long L);
void rl_gpt_eval_free(rl_gpt_eval *e);
/* Diagnostics (routelab probe): fn sees every block of layer's scaled
 * logits in the streaming attention of the next windows (rl_attn_observer,
 * with the layer added); NULL fn stops it. */
typedef void (*rl_gpt_observe_fn)(void *ctx, int layer, int b, int h, long i0, long i1, long j0,
                                  long j1, const float *S, long lds);
void rl_gpt_eval_observe(rl_gpt_eval *e, rl_gpt_observe_fn fn, void *ctx);
/* Bytes the workspace holds (for reports). */
size_t rl_gpt_eval_bytes(const rl_gpt_eval *e);
/* Sum of the cross-entropies at every position of one window: inputs
 * tok[0..L-1], targets tok[1..L]; streaming attention, positions in chunks.
 * key draws the rotation noise (random, lf) as a forward with drop_key =
 * key does for a single window: same key, same numbers. */
double rl_gpt_eval_window(const rl_gpt *m, rl_gpt_eval *e, const uint16_t *tok, long L,
                          uint64_t key);

#endif
