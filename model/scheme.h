/* scheme.h: a position scheme is one object behind this interface, and the
 * registry of the schemes (docs/model/transformer.md#cpu-transformer,
 * docs/model/schemes.md#accumulated-rotation, docs/model/path.md#path-attention).
 *
 * The decoder (gpt.c) knows one attention sublayer:
 *     qkv = LN1(x) Wqkv^T + b;  atty = Attend_l(qkv);  out = atty Wproj^T + b
 * and every position scheme is what sits in Attend_l and feeds it:
 *   params     its tensors (count, shapes, kinds: initialisation and weight
 *              decay follow the kind), after the decoder's own;
 *   layout     its activations and scratch, for training (B windows of T)
 *              or for the streaming evaluation of one window of L;
 *   prepare    layer l's per-position inputs from the LN1 output and the
 *              tokens (a rotation table, PaTH's w and beta);
 *   attend     q, k, v -> the attention output: a rotation scheme turns q,
 *              k (and v, and back the output) around the standard logits;
 *              PaTH is a logits provider of the same kernel (attention.h).
 *              att != NULL: the training forward (saves att); att == NULL:
 *              the streaming evaluation;
 *   attend_backward  d(atty) -> d(qkv) (and its own inputs' gradients);
 *   input_backward   its parameters' gradients, and what it adds to d(LN1).
 * ALiBi is a composition, not a scheme: the kernel adds -m_h (i - j) when
 * the configuration asks for it (rl_scheme_ctx.slopes), for every scheme
 * whose names[1] allows it.  What probe asks of a scheme: the bias (the
 * slopes, or NULL: rl_gpt_alibi_slopes) and how its logits are formed
 * (`logits`; the streaming kernel's observer hands probe the logits
 * themselves, whichever the scheme).
 *
 * A configuration (rl_pos_config, stored in the checkpoint) names a scheme
 * by its code (rot, path), a mode (qk, or qkv: value transport) and the
 * ALiBi bit; rl_scheme_of maps it to the object.  Adding a scheme: write
 * model/scheme_NAME.c defining `const rl_scheme rl_scheme_NAME` (its .name
 * "NAME", the word `--pos` lists) with a new code at the end of rl_rot_kind
 * (config.h), or of rl_path_kind for a Householder transport (rot 0: path,
 * random-hh), and add X(ID, "NAME") to the registry in scheme.c.  Everything else
 * that depends on the scheme reads the object: the names --pos takes, the
 * checkpoint's code, and the theory's reading of its steps (steps_kind,
 * step_law, step_lanes, steps: steplaw.h, farpred.h). */
#ifndef RL_MODEL_SCHEME_H
#define RL_MODEL_SCHEME_H

#include <stddef.h>
#include <stdint.h>

#include "../api/include/routelab/family.h"
#include "attention.h"
#include "config.h"

/* What a tensor is, for initialisation and weight decay.  RL_T_TABLE:
 * pemb's angle tables, zero-initialised and not decayed (decay would pull
 * them toward E = 0, i.e. toward RoPE's position-indexed angles). */
typedef enum { RL_T_EMBED, RL_T_MATRIX, RL_T_RESID_MATRIX, RL_T_BIAS, RL_T_NORM_W,
               RL_T_NORM_B, RL_T_TABLE } rl_tensor_kind;

/* Declare one tensor ("h<layer>.name" when layer >= 0): a rows x cols
 * matrix, row-major, or with cols = 0 a vector of rows floats (its shape is
 * what <routelab/model.h>'s rl_model_tensor_shape reports). */
typedef void (*rl_tensor_fn)(void *ctx, const char *name, int layer, long rows, long cols, rl_tensor_kind kind);

/* Rows per chunk of the streaming evaluation's per-position layers. */
#define RL_EVAL_CHUNK 1024

/* A bump allocator over one float arena, 64-byte aligned pieces; with a
 * NULL base it only counts, so one layout function both sizes and binds. */
typedef struct {
    float *base;
    size_t used;
} rl_arena;

static inline float *rl_carve(rl_arena *a, size_t n)
{
    float *p = a->base ? a->base + a->used : NULL;
    a->used += (n + 15) & ~(size_t)15;
    return p;
}

/* Floats between per-layer copies of n floats carved as one piece. */
static inline size_t rl_carve_stride(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

typedef struct rl_scheme rl_scheme;

/* How the theory reads a scheme's steps (docs/theory/claim1-mixing.md#mixing-window;
 * model/steplaw.h): the one-step law of each SO(2) block, theta_t = A_t - A_{t-1}. */
typedef enum {
    RL_STEPS_NONE,     /* no accumulated rotation (none, alibi): no prediction */
    RL_STEPS_CONSTANT, /* constant angles (rope, fixed-rope): no block mixes */
    RL_STEPS_CLOSED,   /* i.i.d. steps theta ~ step_law(omega_b) (random: uniform,
                        * random_pos: drift): the closed form */
    RL_STEPS_MEASURED, /* pemb, lf: the model's own steps on text */
    RL_STEPS_TRANSPORT /* path: no angles; the first harmonic (the mean) of the
                        * accumulated Householder transport, measured on text
                        * (path_transport.h): one reading per (layer, head) */
} rl_steps_kind;

/* What the hooks see of the model. */
typedef struct {
    const rl_scheme *s;
    const rl_gpt_config *cfg;
    int hd;
    float *const *w;     /* the scheme's tensors in the parameters, in declaration order */
    float *const *g;     /* the same tensors in the gradients */
    const float *slopes; /* H ALiBi slopes when the configuration has ALiBi, else NULL */
} rl_scheme_ctx;

struct rl_scheme {
    const char *name;        /* the base name --pos takes ("rope", "random", "path") */
    const char *names[2][2]; /* canonical name [alibi][mode]; NULL: not allowed.  A
                              * scheme with names[0][1] rotates (value transport,
                              * even head dimension); names[1][0] composes with ALiBi */
    int rot, path;           /* its code in rl_pos_config (the checkpoint); unique */
    const char *logits;      /* how the scheme forms the logits (reports, probe) */
    /* parameters (NULL: none) and their model FLOPs: matmul weights per token
     * beyond the decoder's (PaLM accounting, see rl_gpt_flops_per_token) */
    void (*params)(const rl_gpt_config *c, rl_tensor_fn add, void *ctx);
    double (*matmul_weights)(const rl_gpt_config *c);
    /* (or NULL: none) the scheme's own logit arithmetic beyond standard
     * attention's: forward multiply-adds of one head and window of T at head
     * dim hd (PaTH's Householder products), counted by
     * rl_gpt_flops_per_token and rl_gpt_eval_flops */
    double (*logit_madds)(long T, int hd);
    /* activations: state is state_bytes (zeroed); layout carves from a for B
     * windows of T (eval: 1 window of T, streaming) and, once a->base is
     * set, fills what is constant (RoPE's table) */
    size_t state_bytes;
    /* layout and prepare may be NULL (nothing to carve, nothing per layer) */
    void (*layout)(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a);
    /* scratch: in the evaluation, RL_EVAL_CHUNK x 4C floats that the decoder
     * lends (its MLP chunk buffer, free while the attention sublayer runs);
     * NULL in training.  prepare and attend return RL_ENOMEM when memory
     * runs out (the noise generators of random, lf and random-hh; the
     * streaming kernel's per-thread blocks): the layer's output is then
     * not written */
    rl_status (*prepare)(void *st, const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok,
                    long ld, int B, int T, uint64_t key, float *scratch);
    rl_status (*attend)(void *st, const rl_scheme_ctx *x, int l, float *qkv, float *att, float *atty,
                   const rl_attn_shape *s);
    /* datty (row stride C) may be overwritten; dqkv (row stride 3C) written;
     * datt: B*H*T*T scratch; att, qkv, atty as the training forward left them */
    void (*attend_backward)(void *st, const rl_scheme_ctx *x, int l, float *datty, float *dqkv,
                            float *datt, const float *att, const float *qkv, const float *atty,
                            const rl_attn_shape *s);
    /* NULL: no parameters and no dependence on LN1 */
    void (*input_backward)(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                           const uint16_t *tok, long ld, int B, int T, float *dln);
    /* 1: "alibi+NAME" without a suffix means alibi+NAME_qkv, whatever
     * --mode's default (alibi+random: the study's remedy, far-mass control
     * plus value transport) */
    int alibi_qkv;
    /* ---- the theory's reading of the steps (steplaw.h, farpred.h); all
     * zero: RL_STEPS_NONE ---- */
    rl_steps_kind steps_kind;
    /* CONSTANT and CLOSED: block b steps by theta ~ step_law(omega_b), i.i.d.
     * (<routelab/family.h>: CONSTANT omega_b, UNIFORM U(-omega_b, omega_b),
     * DRIFT U(0, 2 omega_b)); its |chi| gives the windows in closed form
     * (rl_steplaw_closed, through rl_family_log_mean_norm) */
    rl_angle_law step_law;
    /* MEASURED: steps reads the layer's LN1 output (lf), so a measurement
     * runs the forward first */
    int steps_read_ln;
    /* CLOSED and MEASURED: see rl_scheme_step_lanes and rl_scheme_steps */
    int (*step_lanes)(const rl_scheme_ctx *x);
    rl_status (*steps)(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                       double *center, double *halfw);
    /* TRANSPORT: layer l's steps H_t = I - beta_t w_t w_t^T after a training
     * forward (rl_gpt_forward) over B windows of T: *w rows b T + t of
     * cfg->width floats (head h at columns h hd), *beta rows b T + t of
     * cfg->heads floats (path_transport.h reads them) */
    void (*transport)(const void *st, const rl_scheme_ctx *x, int l, const float **w, const float **beta);
    /* TRANSPORT with a closed mean: log a of one step whose mean is E M = a I
     * (0 <= a < 1) at head dimension hd, NAN where it has none; the theory's
     * reading is then closed (rl_steplaw_transport_closed).  NULL: measured
     * on text (path) */
    double (*transport_log_mean)(int hd);
};

/* ---- the registry ------------------------------------------------------ */

extern const rl_scheme *const rl_schemes[]; /* NULL-terminated */

/* The scheme of a configuration, or NULL when no scheme has its code. */
const rl_scheme *rl_scheme_of(rl_pos_config p);

/* The help of `--pos`: the names it takes (see rl_pos_parse), the
 * schemes' base names listed from the registry. */
extern const char rl_pos_help[];

/* Parse a scheme name (from the registry); mode is RL_MODE_QK/QKV
 * when --mode was given, else -1.
 * 0, or -1 with a one-line reason in err (unknown name, a mode that
 * contradicts the name, path). */
int rl_pos_parse(const char *name, int mode, rl_pos_config *out, char *err, size_t n);

/* The study's name of a scheme: "rope", "fixed-rope", "random_qkv",
 * "alibi", "alibi+random_qkv", ... ("?" for an invalid one). */
const char *rl_pos_name(rl_pos_config p);

/* The theory's reading of a scheme's table (model/steplaw.h): the step theta
 * that layer l accumulates at a position, as a law theta = center +
 * U(-halfw, halfw) per lane, from what prepare reads there (ln: the layer's
 * LN1 output row, for lf; tok: the tokens, for pemb, whose row i reads
 * x_{i-1}: the key's token, docs/model/schemes.md#pemb-author; NULL when unused).
 * Lanes per row: rl_scheme_step_lanes (random, random_pos, lf, pemb: H
 * hd/2, head-major as the tables; pemb-shared: hd/2; 0: x's scheme accumulates no
 * steps, rl_scheme_steps then writes nothing).  n rows into center, halfw
 * (n x lanes).  Both dispatch to the scheme's hooks; rl_scheme_steps
 * returns RL_ENOMEM when memory runs out (lf's MLP chunks). */
int rl_scheme_step_lanes(const rl_scheme_ctx *x);
rl_status rl_scheme_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                     double *center, double *halfw);

/* Parameters of the position scheme: the floats of the tensors its object
 * declares (pemb's per-layer tables, lf's shared MLP, PaTH's projections). */
long rl_pos_param_count(const rl_gpt_config *c);

/* NULL when p names a registered scheme with a mode and ALiBi bit it
 * allows, on a head dimension it can use; else a one-line reason in buf. */
const char *rl_scheme_check(rl_pos_config p, int hd, char *buf, size_t n);

/* The hooks' view of a model: w, g its tensors; slopes_buf (H floats)
 * receives the ALiBi slopes when p asks for them. */
rl_scheme_ctx rl_scheme_ctx_make(const rl_gpt_config *c, float *const *w, float *const *g,
                                 float *slopes_buf);

/* Number of tensors the scheme of c declares (their floats:
 * rl_pos_param_count). */
int rl_scheme_ntensors(const rl_gpt_config *c);

/* A scheme's state with its arena (training: B windows of T; eval: one
 * window of T).  rl_scheme_state_alloc returns RL_ENOMEM (no message: the
 * caller names what it was making) when memory runs out, ss then empty
 * (rl_scheme_state_free may still be called on it). */
typedef struct {
    void *st;
    float *arena;
    size_t n; /* floats in the arena */
} rl_scheme_state;
rl_status rl_scheme_state_alloc(rl_scheme_state *ss, const rl_scheme_ctx *x, long B, long T, int eval);
void rl_scheme_state_free(rl_scheme_state *ss);

#endif
