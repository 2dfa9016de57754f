/* scheme_random_hh.c: random-hh, the Householder counterpart of random
 * (docs/model/path-transport.md#random-hh): PaTH's kernel (path.h) with steps
 *     M_t = I - 2 w_t w_t^T,   w_t uniform on the sphere S^(hd-1),
 * i.i.d. over window, position, head and layer and redrawn at every forward
 * (training and evaluation), as random redraws its angles.  beta = 2
 * exactly: every step a reflection (orthogonal, det -1), so the transport
 * preserves norms; PaTH's beta = 2 sigmoid(z) only approaches 2.  The
 * directions are not learned: no parameters, nothing added to d(LN1); q and
 * k get their gradients through the kernel as in PaTH (the kernel's dw and
 * dbeta go to scratch and are dropped).
 *
 * The noise: layer l, window b, head h draw w_t for t = 1 .. T-1 in order
 * from the stream (key ^ RL_STREAM_HH_DIRS, (l, b, h)) (rl_unit_vector: hd
 * normals, normalised in double, stored in float), so the directions depend
 * on neither the thread count nor B (window b of a batch and a lone window
 * with the same key and b = 0 agree: the evaluation's window is b = 0).
 * Position 0 takes no step (H_0 never enters a score, path.h); its w is
 * e_0, a unit vector the kernel's block form may read but no score uses.
 *
 * Why beta = 2 is safe in the UT form (path.c): the kernel takes any beta
 * (X solves (I + D stril(G)) X = D with no division by beta); its
 * float error grows with the alignment of one block's w and beta -> 2, the
 * worst case (all w equal, beta = 2) 2.4e-4 on logits of 4 (docs/model/path.md#path-accuracy).
 * Uniform directions are the opposite of aligned: the test
 * random_hh/kernel_matches_explicit_transport measures the fast path
 * against the product of the reflections formed in double (docs/model/path-transport.md#random-hh).
 *
 * The theory's reading: kind TRANSPORT, as PaTH's, but closed: routelab's
 * closed form of the mean transport, E[P(j -> i)] = (1 - 2/hd)^(i-j) I
 * (rl_random_hh_log_mean_norm, theory/theory.h), through the hook
 * transport_log_mean (rl_steplaw_transport_closed); the transport hook
 * still exposes the drawn steps (path_transport.h measures them). */
#include <stdlib.h>
#include <string.h>

#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "path.h"
#include "scheme.h"

/* Per layer (layer l's at + l * block) the directions (N x C); the evaluation
 * keeps one layer's.  beta (N x H, all 2) is shared by the layers.  Training
 * scratch: the kernel's work and its dw, dbeta (written, not used). */
typedef struct {
    size_t block;
    float *w, *beta;
    float *work, *dw, *dbeta;
} hh_state;

static void hh_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    hh_state *p = st;
    const size_t N = (size_t)B * T, C = x->cfg->width, H = x->cfg->heads;
    p->block = eval ? 0 : rl_carve_stride(N * C);
    p->w = rl_carve(a, (eval ? 1 : (size_t)x->cfg->layers) * rl_carve_stride(N * C));
    p->beta = rl_carve(a, N * H);
    if (!eval) {
        const rl_attn_shape cap = { .B = (int)B, .T = (int)T, .H = (int)H, .hd = x->hd };
        p->work = rl_carve(a, rl_path_work_floats(&cap));
        p->dw = rl_carve(a, N * C);
        p->dbeta = rl_carve(a, N * H);
    }
    if (a->base)
        for (size_t i = 0; i < N * H; i++)
            p->beta[i] = 2.0f;
}

/* Layer l's directions of B windows of T into w (row stride C); RL_ENOMEM
 * when a thread's generator or vector cannot be allocated (w incomplete). */
static rl_status draw_directions(const rl_gpt_config *c, int l, float *w, int B, long T, uint64_t key)
{
    const int H = c->heads, hd = c->width / c->heads;
    const long C = c->width;
    int nomem = 0; /* a thread could not allocate: its heads are skipped, the call fails */
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
        double *u = rl_alloc_array((size_t)hd, sizeof(double), NULL);
        if (!r || !u) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(static)
        for (long bh = 0; bh < (long)B * H; bh++) {
            if (!r || !u)
                continue;
            const long b = bh / H, h = bh % H;
            float *wb = w + b * T * C + h * hd;
            rl_rng_stream(r, key ^ RL_STREAM_HH_DIRS,
                          rl_stream_key(rl_stream_key((uint64_t)l, (uint64_t)b), (uint64_t)h));
            memset(wb, 0, sizeof(float) * (size_t)hd);
            wb[0] = 1.0f; /* position 0: no step */
            for (long t = 1; t < T; t++) {
                rl_unit_vector(r, hd, u);
                for (int i = 0; i < hd; i++)
                    wb[t * C + i] = (float)u[i];
            }
        }
        free(u);
        if (r)
            gsl_rng_free(r);
    }
    return nomem ? RL_ENOMEM : RL_OK;
}

static rl_status hh_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                            const uint16_t *tok, long ld, int B, int T, uint64_t key, float *scratch)
{
    (void)ln, (void)tok, (void)ld, (void)scratch;
    hh_state *p = st;
    return draw_directions(x->cfg, l, p->w + l * p->block, B, T, key);
}

static rl_status hh_attend(void *st, const rl_scheme_ctx *x, int l, float *qkv, float *att, float *atty,
                           const rl_attn_shape *s)
{
    hh_state *p = st;
    const long C = x->cfg->width;
    const float *w = p->w + l * p->block;
    if (!att)
        return rl_path_forward_streaming(atty, C, qkv, qkv + C, qkv + 2 * C, 3 * C, w, C, p->beta, s);
    rl_path_forward(atty, C, att, p->work, qkv, qkv + C, qkv + 2 * C, 3 * C, w, C, p->beta, s);
    return RL_OK;
}

/* d(q, k, v) from the kernel; its dw, dbeta are dropped (not learned) */
static void hh_attend_backward(void *st, const rl_scheme_ctx *x, int l, float *datty, float *dqkv,
                               float *datt, const float *att, const float *qkv, const float *atty,
                               const rl_attn_shape *s)
{
    (void)atty;
    hh_state *p = st;
    const long C = x->cfg->width;
    rl_path_backward(dqkv, dqkv + C, dqkv + 2 * C, 3 * C, p->dw, C, p->dbeta, datt, p->work, datty, C,
                     att, qkv, qkv + C, qkv + 2 * C, 3 * C, p->w + l * p->block, C, p->beta, s);
}

/* the steps the training forward drew for layer l (path_transport.h) */
static void hh_transport(const void *st, const rl_scheme_ctx *x, int l, const float **w,
                         const float **beta)
{
    (void)x;
    const hh_state *p = st;
    *w = p->w + l * p->block;
    *beta = p->beta;
}

/* log(1 - 2/hd): one step's mean (1 - 2/hd) I (-inf at hd 2: mean 0; NAN
 * at hd 1, where the step is -I, no mean of this form) */
static double hh_log_mean(int hd)
{
    return rl_random_hh_log_mean_norm(hd, 1);
}

const rl_scheme rl_scheme_random_hh = {
    .name = "random-hh",
    .names = { { "random-hh", NULL }, { NULL, NULL } },
    .rot = RL_ROT_NONE,
    .path = RL_PATH_RANDOM_HH,
    .logits = "q_i M_i ... M_(j+1) k_j / sqrt(hd), M_t = I - 2 w_t w_t^T, w_t uniform on the sphere, "
              "redrawn every forward",
    .state_bytes = sizeof(hh_state),
    .layout = hh_layout,
    .prepare = hh_prepare,
    .attend = hh_attend,
    .attend_backward = hh_attend_backward,
    .steps_kind = RL_STEPS_TRANSPORT,
    .transport = hh_transport,
    .transport_log_mean = hh_log_mean,
    .logit_madds = rl_path_logit_madds, /* PaTH's kernel */
};
