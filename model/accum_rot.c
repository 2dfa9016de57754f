/* accum_rot.c: the schemes random, pemb (and pemb-shared) and lf: their angle tables, the
 * backward of the learned ones, their steps as the theory reads them
 * (equations in accum_rot.h); random's hooks serve every closed-law scheme. */
#include "accum_rot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "layers.h"

typedef rl_acc_state acc_state;

#define AT(st, p, l) ((p) + (size_t)(l) * (st)->block)

/* The rotation reading the tables of T positions per window, w floats per
 * position: H*hd/2 with head stride sh = hd/2 (random, lf, pemb), or hd/2
 * with sh = 0 (pemb-shared: no head index). */
static rl_rotation acc_rotation(const acc_state *st, long T, long w, long sh)
{
    rl_rotation r = { st->cos, st->sin, T * w, w, sh };
    return r;
}

/* Carve the tables (and lf's buffers, lf set) of every layer, in training,
 * or one layer's in the evaluation; the angle gradient when learned. */
static void acc_layout(acc_state *st, const rl_scheme_ctx *x, long B, long T, int eval,
                       rl_arena *a, size_t w, int lf, int learned)
{
    const size_t N = (size_t)B * T, C = x->cfg->width, HP = C / 2;
    const size_t layers = eval ? 1 : (size_t)x->cfg->layers;
    rl_arena sub = { a->base ? a->base + a->used : NULL, 0 };
    st->eval = eval;
    st->cos = rl_carve(&sub, N * w);
    st->sin = rl_carve(&sub, N * w);
    if (lf && !eval) {
        st->u = rl_carve(&sub, N * HP);
        st->h = rl_carve(&sub, N * C);
        st->hg = rl_carve(&sub, N * C);
        st->z = rl_carve(&sub, N * HP);
        st->y = rl_carve(&sub, N * HP);
        st->mean = rl_carve(&sub, N);
        st->rstd = rl_carve(&sub, N);
    }
    a->used += layers * sub.used;
    st->block = eval ? 0 : sub.used;
    st->r.layer = (long)st->block;
    if (learned && !eval)
        st->r.dang = rl_carve(a, N * w);
    if (lf && !eval) {
        st->dz = rl_carve(a, N * HP);
        st->dh = rl_carve(a, N * C);
        st->dx = rl_carve(a, N * C);
    }
}

/* A uniform draw in the open interval (-1, 1) from 53 random bits. */
static inline double uniform_pm1(gsl_rng *r)
{
    return ((double)(rl_rng_next64(r) >> 11) + 0.5) * 0x1p-52 - 1.0;
}

static inline void put_angle(float *cos_out, float *sin_out, long i, double a)
{
    double s, c;
    sincos(a, &s, &c);
    cos_out[i] = (float)c;
    sin_out[i] = (float)s;
}

/* The closed laws (f == NULL): theta = (centre + U) omega_p, centre
 * rl_acc_centre of the law (random 0, random_pos 1: the same U, so the same
 * table plus t omega_p); lf: theta = U |f| (centre 0).  Lane (b, h) of
 * layer l draws U from its own stream, t = 1..T-1 and p in order, so the
 * numbers depend on neither the thread count nor B (window b of a batch and
 * a lone window with the same key and b = 0 agree).  f may be cos itself
 * (evaluation): entry i is read before it is written.  u (or NULL) keeps U.
 * RL_ENOMEM when a thread's generator or angles cannot be allocated (the
 * table is then incomplete). */
static rl_status accumulate_noise(const rl_gpt_config *c, int l, float *cos_out, float *sin_out,
                                  const float *f, double centre, float *u, int B, long T, uint64_t key)
{
    const int H = c->heads, hd = c->width / c->heads, P = hd / 2;
    const long w = (long)H * P;
    double om[P > 0 ? P : 1];
    rl_so2_freqs(hd, c->rot_base, 1.0, om); /* RoPE's omega_p */
    int nomem = 0; /* a thread could not allocate: its lanes are skipped, the call fails */
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
        double *a = rl_alloc_array((size_t)P, sizeof(double), NULL);
        if (!r || !a) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(static)
        for (long bh = 0; bh < (long)B * H; bh++) {
            if (!r || !a)
                continue;
            const long b = bh / H, h = bh % H, row0 = b * T * w + h * P;
            rl_rng_stream(r, key ^ RL_STREAM_ROT_NOISE, rl_stream_key(rl_stream_key((uint64_t)l, (uint64_t)b),
                                                            (uint64_t)h));
            for (int p = 0; p < P; p++) {
                a[p] = 0;
                cos_out[row0 + p] = 1.0f;
                sin_out[row0 + p] = 0.0f;
                if (u)
                    u[row0 + p] = 0.0f;
            }
            for (long t = 1; t < T; t++) {
                const long off = row0 + t * w;
                for (int p = 0; p < P; p++) {
                    const double U = uniform_pm1(r);
                    const double th = f ? U * fabs((double)f[off + p]) : (centre + U) * om[p];
                    if (u)
                        u[off + p] = (float)U;
                    a[p] = rl_angle_add(a[p], th);
                    put_angle(cos_out, sin_out, off + p, a[p]);
                }
            }
        }
        free(a);
        if (r)
            gsl_rng_free(r);
    }
    return nomem ? RL_ENOMEM : RL_OK;
}

/* pemb: lane j of a w-wide table (w = H hd/2 head-major per head, or hd/2
 * shared by the heads) steps by theta = pi tanh(E[x, j]) + omega_{j mod hd/2},
 * x the token k positions back: k = 0, the query's token (A_t = sum_{s<=t}
 * theta(x_s)), or k = 1, the key's (A_t = sum_{s<t} theta(x_s)); summed in
 * double (with E = 0 exactly t omega_p, RoPE's angle, either way, up to the
 * rounding of the sum).  docs/model/schemes.md#pemb-author. */
static void accumulate_pemb(const rl_gpt_config *c, const float *E, long w, int k, float *cos_out,
                            float *sin_out, const uint16_t *tok, long ld, int B, long T)
{
    const int hd = c->width / c->heads, P = hd / 2;
    double om[P > 0 ? P : 1];
    rl_so2_freqs(hd, c->rot_base, 1.0, om); /* RoPE's omega_p */
#pragma omp parallel for schedule(static)
    for (long bj = 0; bj < (long)B * w; bj++) {
        const long b = bj / w, j = bj % w;
        double a = 0;
        cos_out[b * T * w + j] = 1.0f;
        sin_out[b * T * w + j] = 0.0f;
        for (long t = 1; t < T; t++) {
            const double th = M_PI * tanh((double)E[(long)tok[b * ld + t - k] * w + j]) + om[j % P];
            a = rl_angle_add(a, th);
            put_angle(cos_out, sin_out, (b * T + t) * w + j, a);
        }
    }
}

/* lf's MLP on n rows of LN1 output: h = ln W1^T + b1, hg = GELU(h) (hg may
 * be h), z = hg W2^T + b2, y = LN(z) (mean, rstd kept unless NULL). */
static void lf_mlp_forward(const rl_scheme_ctx *x, const float *ln, long n, float *h, float *hg,
                           float *z, float *y, float *mean, float *rstd)
{
    const int C = x->cfg->width, HP = C / 2;
    float *const *w = x->w;
    const rl_tile_after gelu = { .gelu_to = hg };
    rl_matmul_forward(h, ln, w[RL_LF_FCW], w[RL_LF_FCB], n, C, C, &gelu);
    rl_matmul_forward(z, hg, w[RL_LF_PROJW], w[RL_LF_PROJB], n, C, HP, NULL);
    rl_layernorm_forward(y, mean, rstd, z, w[RL_LF_LNW], w[RL_LF_LNB], n, HP);
}

/* The gradient of the step that enters A_t from row t - k on (k = 0: the
 * step of position s, in A_t for t >= s; k = 1: the step of the token at s,
 * pemb's key convention, in A_t for t > s), in place, summed in double from
 * the end of each window: row s becomes sum_{t >= s + k} dL/dA_t; a row
 * whose step enters no table gets 0 (position 0 for k = 0, T - 1 for k = 1). */
static void reverse_running_sum(float *d, int B, long T, long w, int k)
{
#pragma omp parallel for schedule(static)
    for (long bj = 0; bj < (long)B * w; bj++) {
        const long b = bj / w, j = bj % w;
        double acc = 0;
        for (long t = T - 1; t >= 0; t--) {
            float *x = d + (b * T + t) * w + j;
            const double g = *x;
            if (!k)
                acc += g;
            *x = t >= 1 - k ? (float)acc : 0.0f;
            if (k)
                acc += g;
        }
    }
}

/* ---- random: theta = U omega_p; every closed law: (c + U) omega_p ------ */

int rl_acc_centre(rl_angle_law law)
{
    return law == RL_ANG_UNIFORM ? 0 : law == RL_ANG_DRIFT ? 1 : -1;
}

int rl_acc_head_lanes(const rl_scheme_ctx *x)
{
    return x->cfg->width / 2; /* H * hd/2, head-major, as the tables */
}

void rl_acc_closed_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    acc_layout(st, x, B, T, eval, a, (size_t)x->cfg->width / 2, 0, 0);
}

rl_status rl_acc_closed_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                                const uint16_t *tok, long ld, int B, int T, uint64_t key,
                                float *scratch)
{
    (void)ln, (void)tok, (void)ld, (void)scratch;
    acc_state *a = st;
    const long P = x->hd / 2;
    RL_TRY(accumulate_noise(x->cfg, l, AT(a, a->cos, l), AT(a, a->sin, l), NULL,
                            rl_acc_centre(x->s->step_law), NULL, B, T, key));
    a->r.tab = acc_rotation(a, T, x->cfg->heads * P, P);
    return RL_OK;
}

/* The same steps as the law: centre c omega_p, half-width omega_p. */
rl_status rl_acc_closed_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok,
                              long n, double *center, double *halfw)
{
    (void)l, (void)ln, (void)tok;
    const int P = x->hd / 2, lanes = rl_acc_head_lanes(x);
    const double c = rl_acc_centre(x->s->step_law);
    double om[P > 0 ? P : 1];
    rl_so2_freqs(x->hd, x->cfg->rot_base, 1.0, om); /* RoPE's omega_p */
    for (long i = 0; i < n; i++)
        for (int j = 0; j < lanes; j++) {
            center[i * lanes + j] = c * om[j % P];
            halfw[i * lanes + j] = om[j % P];
        }
    return RL_OK;
}

const rl_scheme rl_scheme_random = {
    .name = "random",
    .names = { { "random_qk", "random_qkv" }, { "alibi+random_qk", "alibi+random_qkv" } },
    .rot = RL_ROT_RANDOM,
    .logits = "q.k / sqrt(hd), q and k turned by running sums of random angles",
    .state_bytes = sizeof(acc_state),
    .layout = rl_acc_closed_layout,
    .prepare = rl_acc_closed_prepare,
    .attend = rl_rot_attend,
    .attend_backward = rl_rot_attend_backward,
    .alibi_qkv = 1,
    .steps_kind = RL_STEPS_CLOSED,
    .step_law = RL_ANG_UNIFORM,
    .step_lanes = rl_acc_head_lanes,
    .steps = rl_acc_closed_steps,
};

/* ---- pemb and pemb-shared: theta = pi tanh(E_l[x, j]) + omega_p ------- */

/* The two tables of one kernel (docs/model/schemes.md#pemb-author): pemb, the study author's
 * (a V x H hd/2 table per layer, row v holding head h's hd/2 angles at
 * h hd/2; the key's token on the path, k = 1), and pemb-shared, routelab's
 * first reading (V x hd/2 per layer shared by the heads; the query's token,
 * k = 0), kept under RL_ROT_PEMB so that its checkpoints load as what they
 * were. */
typedef struct {
    int per_head; /* 1: H hd/2 lanes head-major, head stride hd/2; 0: hd/2, stride 0 */
    int key;      /* k: the token k positions back steps the angle of position t */
} pemb_form;

static pemb_form pemb_form_of(const rl_scheme *s)
{
    return s == &rl_scheme_pemb ? (pemb_form){ 1, 1 } : (pemb_form){ 0, 0 };
}

/* lanes of the table and of the steps: H hd/2 or hd/2 */
static int pemb_lanes(const rl_scheme_ctx *x)
{
    return pemb_form_of(x->s).per_head ? x->cfg->width / 2 : x->hd / 2;
}

static void pemb_params(const rl_gpt_config *c, rl_tensor_fn add, void *ctx)
{
    const long P = c->width / c->heads / 2;
    const long w = pemb_form_of(rl_scheme_of(c->pos)).per_head ? (long)c->heads * P : P;
    for (int l = 0; l < c->layers; l++)
        add(ctx, "pemb", l, (long)c->vocab, w, RL_T_TABLE);
}

static void pemb_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    acc_layout(st, x, B, T, eval, a, (size_t)pemb_lanes(x), 0, 1);
}

static rl_status pemb_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                              const uint16_t *tok, long ld, int B, int T, uint64_t key,
                              float *scratch)
{
    (void)ln, (void)key, (void)scratch;
    acc_state *a = st;
    const pemb_form f = pemb_form_of(x->s);
    const long w = pemb_lanes(x);
    accumulate_pemb(x->cfg, x->w[l], w, f.key, AT(a, a->cos, l), AT(a, a->sin, l), tok, ld, B, T);
    a->r.tab = acc_rotation(a, T, w, f.per_head ? x->hd / 2 : 0);
    return RL_OK;
}

/* theta = pi tanh(e) + omega: dtheta/de = pi (1 - tanh^2 e), into E_l at
 * the token ids (row s of the summed gradient is the step of x_s: the
 * reverse running sum with the scheme's k) */
static void pemb_input_backward(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                                const uint16_t *tok, long ld, int B, int T, float *dln)
{
    (void)ln, (void)dln;
    float *dang = ((acc_state *)st)->r.dang;
    const int w = pemb_lanes(x);
    const long N = (long)B * T;
    reverse_running_sum(dang, B, T, w, pemb_form_of(x->s).key);
    const float *E = x->w[l];
#pragma omp parallel for schedule(static)
    for (long row = 0; row < N; row++) {
        const float *e = E + (long)tok[(row / T) * ld + row % T] * w;
        for (int j = 0; j < w; j++) {
            const float th = tanhf(e[j]);
            dang[row * w + j] *= (float)M_PI * (1.0f - th * th);
        }
    }
    rl_embed_backward(x->g[l], dang, tok, ld, B, T, w);
}

/* The step of row i as the theory reads it (routes j -> i take the steps of
 * positions j+1..i, model/farpred.h): the point pi tanh(E_l[x_{i-k}, j]) +
 * omega_p that pemb_prepare adds at position i.  With the key's token (k =
 * 1) row 0 has no token before it; its step is omega_p (E's term 0), which
 * no route takes: position 0 of a window starts no step (the callers skip
 * it, steplaw.c, farpred.c), and a row i > 0 at a window's start reads the
 * previous window's token for the same reason harmlessly. */
static rl_status pemb_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                            double *center, double *halfw)
{
    (void)ln;
    const int P = x->hd / 2, w = pemb_lanes(x), k = pemb_form_of(x->s).key;
    double om[P > 0 ? P : 1];
    rl_so2_freqs(x->hd, x->cfg->rot_base, 1.0, om); /* RoPE's omega_p */
    const float *E = x->w[l];
    for (long i = 0; i < n; i++)
        for (int j = 0; j < w; j++) {
            const double e = i >= k ? tanh((double)E[(long)tok[i - k] * w + j]) : 0.0;
            center[i * w + j] = M_PI * e + om[j % P];
            halfw[i * w + j] = 0;
        }
    return RL_OK;
}

/* the hooks of both: the kernel reads its form from the object (pemb_form_of) */
#define PEMB_HOOKS                                                                                 \
    .params = pemb_params, .state_bytes = sizeof(acc_state), .layout = pemb_layout,                \
    .prepare = pemb_prepare, .attend = rl_rot_attend, .attend_backward = rl_rot_attend_backward,  \
    .input_backward = pemb_input_backward, .steps_kind = RL_STEPS_MEASURED,                       \
    .step_lanes = pemb_lanes, .steps = pemb_steps

const rl_scheme rl_scheme_pemb = {
    .name = "pemb",
    .names = { { "pemb_qk", "pemb_qkv" }, { "alibi+pemb_qk", "alibi+pemb_qkv" } },
    .rot = RL_ROT_PEMB_KEY,
    .logits = "q.k / sqrt(hd), q and k turned by running sums of learned per-token, per-head "
              "angles, the key's token on the path",
    PEMB_HOOKS,
};

const rl_scheme rl_scheme_pemb_shared = {
    .name = "pemb-shared",
    .names = { { "pemb-shared_qk", "pemb-shared_qkv" },
               { "alibi+pemb-shared_qk", "alibi+pemb-shared_qkv" } },
    .rot = RL_ROT_PEMB,
    .logits = "q.k / sqrt(hd), q and k turned by running sums of learned per-token angles shared "
              "by the heads, the query's token on the path",
    PEMB_HOOKS,
};

/* ---- lf: theta = U |LN(MLP(LN1 output))| -------------------------------- */

static void lf_params(const rl_gpt_config *c, rl_tensor_fn add, void *ctx)
{
    const long C = c->width, HP = C / 2;
    add(ctx, "lf.fc.w", -1, C, C, RL_T_MATRIX);
    add(ctx, "lf.fc.b", -1, C, 0, RL_T_BIAS);
    add(ctx, "lf.proj.w", -1, HP, C, RL_T_MATRIX);
    add(ctx, "lf.proj.b", -1, HP, 0, RL_T_BIAS);
    add(ctx, "lf.ln.w", -1, HP, 0, RL_T_NORM_W);
    add(ctx, "lf.ln.b", -1, HP, 0, RL_T_NORM_B);
}

/* the shared MLP runs once per layer */
static double lf_matmul_weights(const rl_gpt_config *c)
{
    const double C = c->width, L = c->layers;
    return L * (C * C + C * C / 2);
}

static void lf_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    acc_layout(st, x, B, T, eval, a, (size_t)x->cfg->width / 2, 1, 1);
}

static rl_status lf_prepare(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                            const uint16_t *tok, long ld, int B, int T, uint64_t key, float *scratch)
{
    (void)tok, (void)ld;
    acc_state *a = st;
    const int C = x->cfg->width, HP = C / 2;
    const long N = (long)B * T;
    if (!a->eval) { /* training: keep the activations of layer l */
        lf_mlp_forward(x, ln, N, AT(a, a->h, l), AT(a, a->hg, l), AT(a, a->z, l), AT(a, a->y, l),
                       AT(a, a->mean, l), AT(a, a->rstd, l));
        RL_TRY(accumulate_noise(x->cfg, l, AT(a, a->cos, l), AT(a, a->sin, l), AT(a, a->y, l), 0,
                                AT(a, a->u, l), B, T, key));
    } else {
        /* evaluation: y = LN(MLP(ln)) row chunk by row chunk into cos (hidden
         * layer and z in the lent scratch), then the angles in place */
        float *h = scratch, *z = scratch + (size_t)RL_EVAL_CHUNK * C;
        for (long r0 = 0; r0 < N; r0 += RL_EVAL_CHUNK) {
            const long n = N - r0 < RL_EVAL_CHUNK ? N - r0 : RL_EVAL_CHUNK;
            lf_mlp_forward(x, ln + r0 * C, n, h, h, z, a->cos + r0 * HP, NULL, NULL);
        }
        RL_TRY(accumulate_noise(x->cfg, l, a->cos, a->sin, a->cos, 0, NULL, B, T, key));
    }
    a->r.tab = acc_rotation(a, T, HP, x->hd / 2);
    return RL_OK;
}

/* theta = U |y|: dy = U sign(y) dtheta; then the LayerNorm, the MLP, and
 * into the LN1 output */
static void lf_input_backward(void *st, const rl_scheme_ctx *x, int l, const float *ln,
                              const uint16_t *tok, long ld, int B, int T, float *dln)
{
    (void)tok, (void)ld;
    acc_state *a = st;
    const int C = x->cfg->width, HP = C / 2;
    const long N = (long)B * T;
    float *dang = a->r.dang, *const *pw = x->w, *const *gw = x->g;
    const float *u = AT(a, a->u, l), *y = AT(a, a->y, l);
    reverse_running_sum(dang, B, T, HP, 0);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N * HP; i++)
        dang[i] *= u[i] * (float)((y[i] > 0) - (y[i] < 0));
    memset(a->dz, 0, sizeof(float) * N * HP);
    rl_layernorm_backward(a->dz, gw[RL_LF_LNW], gw[RL_LF_LNB], dang, AT(a, a->z, l), pw[RL_LF_LNW],
                          AT(a, a->mean, l), AT(a, a->rstd, l), N, HP);
    const rl_tile_after gelu = { .gelu_at = AT(a, a->h, l) }, into_dln = { .sum_to = dln, .sum_with = dln };
    rl_matmul_backward(a->dh, gw[RL_LF_PROJW], gw[RL_LF_PROJB], a->dz, AT(a, a->hg, l),
                       pw[RL_LF_PROJW], N, C, HP, &gelu);
    rl_matmul_backward(a->dx, gw[RL_LF_FCW], gw[RL_LF_FCB], a->dh, ln, pw[RL_LF_FCW], N, C, C,
                       &into_dln);
}

/* U(-|y|, |y|), y = LN(MLP(ln)) computed as lf_prepare does (in float,
 * then |y| in double); RL_ENOMEM when its chunk buffers cannot be allocated */
static rl_status lf_steps(const rl_scheme_ctx *x, int l, const float *ln, const uint16_t *tok, long n,
                          double *center, double *halfw)
{
    (void)l, (void)tok;
    const int C = x->cfg->width, lanes = rl_acc_head_lanes(x);
    float *h = rl_alloc_array((size_t)RL_EVAL_CHUNK * C, sizeof(float), NULL);
    float *z = rl_alloc_array((size_t)RL_EVAL_CHUNK * lanes, sizeof(float), NULL);
    float *y = rl_alloc_array((size_t)RL_EVAL_CHUNK * lanes, sizeof(float), NULL);
    if (!h || !z || !y) {
        free(y);
        free(z);
        free(h);
        return RL_ENOMEM;
    }
    for (long r0 = 0; r0 < n; r0 += RL_EVAL_CHUNK) {
        const long k = n - r0 < RL_EVAL_CHUNK ? n - r0 : RL_EVAL_CHUNK;
        lf_mlp_forward(x, ln + r0 * C, k, h, h, z, y, NULL, NULL);
        for (long i = 0; i < k * lanes; i++) {
            center[r0 * lanes + i] = 0;
            halfw[r0 * lanes + i] = fabs((double)y[i]);
        }
    }
    free(h);
    free(z);
    free(y);
    return RL_OK;
}

const rl_scheme rl_scheme_lf = {
    .name = "lf",
    .names = { { "lf_qk", "lf_qkv" }, { "alibi+lf_qk", "alibi+lf_qkv" } },
    .rot = RL_ROT_LF,
    .logits = "q.k / sqrt(hd), q and k turned by running sums of noise scaled by an MLP of the input",
    .params = lf_params,
    .matmul_weights = lf_matmul_weights,
    .state_bytes = sizeof(acc_state),
    .layout = lf_layout,
    .prepare = lf_prepare,
    .attend = rl_rot_attend,
    .attend_backward = rl_rot_attend_backward,
    .input_backward = lf_input_backward,
    .steps_kind = RL_STEPS_MEASURED,
    .steps_read_ln = 1,
    .step_lanes = rl_acc_head_lanes,
    .steps = lf_steps,
};
