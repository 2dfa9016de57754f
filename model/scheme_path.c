/* scheme_path.c: PaTH attention as a position scheme (docs/model/path.md#path-integration):
 * per layer w = normalise(LN1(x) W_w^T + b_w) per head and
 * beta = 2 sigmoid(LN1(x) u^T + b) feed PaTH's logits provider (path.h) in
 * place of the standard logits; no rotation, no value transport, no ALiBi.
 * The theory reads its steps as a transport (steps kind TRANSPORT:
 * path_transport.h through the hook path_transport). */
#include <string.h>

#include "layers.h"
#include "path.h"
#include "scheme.h"

/* The tensors of layer l: w[l * PATH_TENSORS + i]. */
enum { PATH_WW, PATH_WB, PATH_UW, PATH_UB, PATH_TENSORS };

/* beta's bias 0 gives beta = 2 sigmoid(~0) ~ 1 at start: every step a
 * projection, a locality prior that training turns into reflections
 * (beta -> 2) or identities (beta -> 0) */
static void path_params(const rl_gpt_config *c, rl_tensor_fn add, void *ctx)
{
    const long C = c->width, H = c->heads;
    for (int l = 0; l < c->layers; l++) {
        add(ctx, "path.w", l, C, C, RL_T_MATRIX);
        add(ctx, "path.wb", l, C, 0, RL_T_BIAS);
        add(ctx, "path.u", l, H, C, RL_T_MATRIX);
        add(ctx, "path.ub", l, H, 0, RL_T_BIAS);
    }
}

/* the projections to w and beta (the Householder products: logit_madds) */
static double path_matmul_weights(const rl_gpt_config *c)
{
    const double C = c->width, L = c->layers;
    return L * (C * C + c->heads * C);
}

/* Per layer (layer l's at + l * block): the normalised w (N x C), 1/|w_raw|
 * and beta (N x H); the evaluation keeps one layer's.  Training scratch,
 * shared by the layers: the kernel's work, dL/dbeta, dL/dw and one N x C
 * product of the input backward. */
typedef struct {
    size_t block;
    float *w, *rnorm, *beta;
    float *work, *dbeta, *dw, *dx;
} path_state;

static void path_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    path_state *p = st;
    const size_t N = (size_t)B * T, C = x->cfg->width, H = x->cfg->heads;
    rl_arena sub = { a->base ? a->base + a->used : NULL, 0 };
    p->w = rl_carve(&sub, N * C);
    p->rnorm = rl_carve(&sub, N * H);
    p->beta = rl_carve(&sub, N * H);
    a->used += (eval ? 1 : (size_t)x->cfg->layers) * sub.used;
    p->block = eval ? 0 : sub.used;
    if (eval)
        return;
    const rl_attn_shape cap = { .B = (int)B, .T = (int)T, .H = (int)H, .hd = x->hd };
    p->work = rl_carve(a, rl_path_work_floats(&cap));
    p->dbeta = rl_carve(a, N * H);
    p->dw = rl_carve(a, N * C);
    p->dx = rl_carve(a, N * C);
}

/* w = normalise(ln W_w^T + b_w) per head, beta = 2 sigmoid(ln u^T + b). */
static rl_status path_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                              const uint16_t *tok, long ld, int B, int T, uint64_t key,
                              float *scratch)
{
    (void)tok, (void)ld, (void)key, (void)scratch;
    path_state *p = st;
    float *const *pw = x->w + l * PATH_TENSORS;
    const int C = x->cfg->width, H = x->cfg->heads;
    const long N = (long)B * T;
    float *w = p->w + l * p->block, *rnorm = p->rnorm + l * p->block, *beta = p->beta + l * p->block;
    rl_matmul_forward(w, ln, pw[PATH_WW], pw[PATH_WB], N, C, C, NULL);
    rl_path_wnorm_forward(w, rnorm, C, N, H, x->hd);
    rl_matmul_forward(beta, ln, pw[PATH_UW], pw[PATH_UB], N, C, H, NULL);
    rl_path_beta_forward(beta, beta, N * H);
    return RL_OK;
}

static rl_status path_attend(void *st, const rl_scheme_ctx *x, int l, float *qkv, float *att,
                             float *atty, const rl_attn_shape *s)
{
    path_state *p = st;
    const long C = x->cfg->width;
    const float *w = p->w + l * p->block, *beta = p->beta + l * p->block;
    if (!att)
        return rl_path_forward_streaming(atty, C, qkv, qkv + C, qkv + 2 * C, 3 * C, w, C, beta, s);
    rl_path_forward(atty, C, att, p->work, qkv, qkv + C, qkv + 2 * C, 3 * C, w, C, beta, s);
    return RL_OK;
}

/* d(q, k, v), dw, dbeta from the kernel; then back through the
 * normalisation and the sigmoid to the raw projections */
static void path_attend_backward(void *st, const rl_scheme_ctx *x, int l, float *datty,
                                 float *dqkv, float *datt, const float *att, const float *qkv,
                                 const float *atty, const rl_attn_shape *s)
{
    (void)atty;
    path_state *p = st;
    const long C = x->cfg->width, N = (long)s->B * s->T;
    const float *w = p->w + l * p->block, *beta = p->beta + l * p->block;
    rl_path_backward(dqkv, dqkv + C, dqkv + 2 * C, 3 * C, p->dw, C, p->dbeta, datt, p->work, datty,
                     C, att, qkv, qkv + C, qkv + 2 * C, 3 * C, w, C, beta, s);
    rl_path_wnorm_backward(p->dw, C, w, C, p->rnorm + l * p->block, N, s->H, x->hd);
    rl_path_beta_backward(p->dbeta, p->dbeta, beta, N * s->H);
}

/* dln += dw_raw W_w + dz u, and the projections' parameter gradients */
static void path_input_backward(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                                const uint16_t *tok, long ld, int B, int T, float *dln)
{
    (void)tok, (void)ld;
    path_state *p = st;
    float *const *pw = x->w + l * PATH_TENSORS, *const *pg = x->g + l * PATH_TENSORS;
    const int C = x->cfg->width, H = x->cfg->heads;
    const long N = (long)B * T;
    const rl_tile_after into_dln = { .sum_to = dln, .sum_with = dln };
    rl_matmul_backward(p->dx, pg[PATH_WW], pg[PATH_WB], p->dw, ln, pw[PATH_WW], N, C, C, &into_dln);
    rl_matmul_backward(p->dx, pg[PATH_UW], pg[PATH_UB], p->dbeta, ln, pw[PATH_UW], N, C, H,
                       &into_dln);
}

/* the steps the training forward left for layer l (path_transport.h) */
static void path_transport(const void *st, const rl_scheme_ctx *x, int l, const float **w, const float **beta)
{
    (void)x;
    const path_state *p = st;
    *w = p->w + l * p->block;
    *beta = p->beta + l * p->block;
}

const rl_scheme rl_scheme_path = {
    .name = "path",
    .names = { { "path", NULL }, { NULL, NULL } },
    .rot = RL_ROT_NONE,
    .path = RL_PATH_PATH,
    .logits = "q_i H_i ... H_(j+1) k_j / sqrt(hd): Householder transport (PaTH)",
    .params = path_params,
    .matmul_weights = path_matmul_weights,
    .logit_madds = rl_path_logit_madds,
    .state_bytes = sizeof(path_state),
    .layout = path_layout,
    .prepare = path_prepare,
    .attend = path_attend,
    .attend_backward = path_attend_backward,
    .input_backward = path_input_backward,
    .steps_kind = RL_STEPS_TRANSPORT,
    .transport = path_transport,
};
