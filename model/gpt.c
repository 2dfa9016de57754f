/* gpt.c: parameter and activation layout, forward, backward, long-window
 * evaluation of the decoder (equations in gpt.h and layers.h). */
#include "gpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../sampling/rng.h"
#include "accum_rot.h"
#include "attention.h"
#include "layers.h"
#include "path.h"

/* ---- layout ---------------------------------------------------------- */

static void add_tensor(rl_gpt *m, const char *name, int layer, long n, rl_tensor_kind kind)
{
    rl_tensor *t = &m->tensors[m->ntensors++];
    if (layer >= 0)
        snprintf(t->name, sizeof t->name, "h%d.%s", layer, name);
    else
        snprintf(t->name, sizeof t->name, "%s", name);
    t->off = m->nparams;
    t->n = n;
    t->kind = kind;
    m->nparams += n;
}

static void build_tensors(rl_gpt *m)
{
    const long C = m->cfg.width, V = m->cfg.vocab;
    static const char *names[RL_BLOCK_TENSORS] = { "ln1.w", "ln1.b", "qkv.w", "qkv.b", "proj.w",
                                                   "proj.b", "ln2.w", "ln2.b", "fc.w", "fc.b",
                                                   "fc2.w", "fc2.b" };
    const long sizes[RL_BLOCK_TENSORS] = { C, C, 3 * C * C, 3 * C, C * C, C,
                                           C, C, 4 * C * C, 4 * C, 4 * C * C, C };
    const rl_tensor_kind kinds[RL_BLOCK_TENSORS] = {
        RL_T_NORM_W, RL_T_NORM_B, RL_T_MATRIX, RL_T_BIAS, RL_T_RESID_MATRIX, RL_T_BIAS,
        RL_T_NORM_W, RL_T_NORM_B, RL_T_MATRIX, RL_T_BIAS, RL_T_RESID_MATRIX, RL_T_BIAS
    };
    m->tensors = rl_xcalloc(4 + (RL_BLOCK_TENSORS + 1 + RL_PATH_TENSORS) * (size_t)m->cfg.layers +
                                RL_LF_TENSORS, sizeof(rl_tensor));
    add_tensor(m, "wte", -1, V * C, RL_T_EMBED);
    for (int l = 0; l < m->cfg.layers; l++)
        for (int i = 0; i < RL_BLOCK_TENSORS; i++)
            add_tensor(m, names[i], l, sizes[i], kinds[i]);
    add_tensor(m, "lnf.w", -1, C, RL_T_NORM_W);
    add_tensor(m, "lnf.b", -1, C, RL_T_NORM_B);
    add_tensor(m, "head.w", -1, V * C, RL_T_MATRIX);
    add_tensor(m, "head.b", -1, V, RL_T_BIAS);
    /* the position scheme's parameters last: the other tensors keep their
     * offsets whatever the scheme (accum_rot.h) */
    if (m->cfg.pos.rot == RL_ROT_PEMB)
        for (int l = 0; l < m->cfg.layers; l++)
            add_tensor(m, "pemb", l, V * (m->hd / 2), RL_T_TABLE);
    if (m->cfg.pos.rot == RL_ROT_LF) {
        const long HP = C / 2;
        add_tensor(m, "lf.fc.w", -1, C * C, RL_T_MATRIX);
        add_tensor(m, "lf.fc.b", -1, C, RL_T_BIAS);
        add_tensor(m, "lf.proj.w", -1, HP * C, RL_T_MATRIX);
        add_tensor(m, "lf.proj.b", -1, HP, RL_T_BIAS);
        add_tensor(m, "lf.ln.w", -1, HP, RL_T_NORM_W);
        add_tensor(m, "lf.ln.b", -1, HP, RL_T_NORM_B);
    }
    if (m->cfg.pos.path) {
        /* beta's bias 0 gives beta = 2 sigmoid(~0) ~ 1 at start: every step a
         * projection, a locality prior that training turns into reflections
         * (beta -> 2) or identities (beta -> 0) */
        const long H = m->cfg.heads;
        for (int l = 0; l < m->cfg.layers; l++) {
            add_tensor(m, "path.w", l, C * C, RL_T_MATRIX);
            add_tensor(m, "path.wb", l, C, RL_T_BIAS);
            add_tensor(m, "path.u", l, H * C, RL_T_MATRIX);
            add_tensor(m, "path.ub", l, H, RL_T_BIAS);
        }
    }
}

static void bind_weights(rl_gpt_weights *w, const rl_gpt *m, float *base)
{
    const rl_tensor *t = m->tensors;
    w->wte = base + t[0].off;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int i = 0; i < RL_BLOCK_TENSORS; i++)
            w->blk[l][i] = base + t[1 + l * RL_BLOCK_TENSORS + i].off;
    const int g = 1 + m->cfg.layers * RL_BLOCK_TENSORS;
    w->lnfw = base + t[g].off;
    w->lnfb = base + t[g + 1].off;
    w->headw = base + t[g + 2].off;
    w->headb = base + t[g + 3].off;
    for (int i = 0; m->cfg.pos.rot == RL_ROT_PEMB && i < m->cfg.layers; i++)
        w->pemb[i] = base + t[g + 4 + i].off;
    for (int i = 0; m->cfg.pos.rot == RL_ROT_LF && i < RL_LF_TENSORS; i++)
        w->lf[i] = base + t[g + 4 + i].off;
    for (int l = 0; m->cfg.pos.path && l < m->cfg.layers; l++)
        for (int i = 0; i < RL_PATH_TENSORS; i++)
            w->path[l][i] = base + t[g + 4 + l * RL_PATH_TENSORS + i].off;
}

/* Carve n floats (64-byte aligned) from the arena; with a NULL base only
 * count, so one function both sizes and binds the single allocation. */
static float *carve(float *base, size_t *used, size_t n)
{
    float *p = base ? base + *used : NULL;
    *used += (n + 15) & ~(size_t)15;
    return p;
}

static size_t layout_acts(rl_gpt *m, float *base)
{
    const size_t B = m->B, T = m->T, C = m->cfg.width, V = m->cfg.vocab, H = m->cfg.heads;
    const size_t N = B * T, att = B * H * T * T;
    size_t u = 0;
    for (int l = 0; l < m->cfg.layers; l++) {
        rl_block_acts *a = &m->a[l];
        a->ln1 = carve(base, &u, N * C);
        a->ln1_mean = carve(base, &u, N);
        a->ln1_rstd = carve(base, &u, N);
        a->qkv = carve(base, &u, 3 * N * C);
        a->att = carve(base, &u, att);
        a->atty = carve(base, &u, N * C);
        a->res2 = carve(base, &u, N * C);
        a->ln2 = carve(base, &u, N * C);
        a->ln2_mean = carve(base, &u, N);
        a->ln2_rstd = carve(base, &u, N);
        a->fch = carve(base, &u, 4 * N * C);
        a->fch_gelu = carve(base, &u, 4 * N * C);
        a->res3 = carve(base, &u, N * C);
        a->pw = carve(base, &u, m->cfg.pos.path ? N * C : 0);
        a->prn = carve(base, &u, m->cfg.pos.path ? N * H : 0);
        a->pbeta = carve(base, &u, m->cfg.pos.path ? N * H : 0);
    }
    m->enc = carve(base, &u, N * C);
    m->lnf = carve(base, &u, N * C);
    m->lnf_mean = carve(base, &u, N);
    m->lnf_rstd = carve(base, &u, N);
    m->logits = carve(base, &u, N * V);
    m->losses = carve(base, &u, N);
    m->dres = carve(base, &u, N * C);
    m->dC1 = carve(base, &u, N * C);
    m->dC2 = carve(base, &u, N * C);
    m->d3C = carve(base, &u, 3 * N * C);
    m->d4C = carve(base, &u, 4 * N * C);
    m->datt = carve(base, &u, att);
    m->rope_cos = carve(base, &u, T * m->hd / 2);
    m->rope_sin = carve(base, &u, T * m->hd / 2);
    m->slopes = carve(base, &u, H);
    /* accumulated schemes: each layer's table (and lf's activations) */
    const size_t w = rl_acc_width(&m->cfg), lf = m->cfg.pos.rot == RL_ROT_LF ? C / 2 : 0;
    for (int l = 0; l < m->cfg.layers; l++) {
        struct rl_rot_acts *r = &m->ra[l];
        r->cos = carve(base, &u, N * w);
        r->sin = carve(base, &u, N * w);
        r->u = carve(base, &u, N * lf);
        r->h = carve(base, &u, lf ? N * C : 0);
        r->hg = carve(base, &u, lf ? N * C : 0);
        r->z = carve(base, &u, N * lf);
        r->y = carve(base, &u, N * lf);
        r->mean = carve(base, &u, lf ? N : 0);
        r->rstd = carve(base, &u, lf ? N : 0);
    }
    m->dang = carve(base, &u, rl_acc_learned(&m->cfg) ? N * w : 0);
    const rl_attn_shape cap = { (int)B, (int)T, (int)H, m->hd, NULL, NULL };
    m->path_work = carve(base, &u, m->cfg.pos.path ? rl_path_work_floats(&cap) : 0);
    m->dbeta = carve(base, &u, m->cfg.pos.path ? N * H : 0);
    return u;
}

rl_gpt *rl_gpt_alloc(const rl_gpt_config *cfg, int B)
{
    char why[160];
    if (rl_gpt_config_check(cfg, why, sizeof why))
        rl_die("model: %s", why);
    rl_gpt *m = rl_xcalloc(1, sizeof *m);
    m->cfg = *cfg;
    m->B = B;
    m->T = cfg->ctx;
    m->hd = cfg->width / cfg->heads;
    build_tensors(m);
    const size_t L = cfg->layers;
    m->p.blk = rl_xcalloc(L, sizeof *m->p.blk);
    m->g.blk = rl_xcalloc(L, sizeof *m->g.blk);
    m->p.pemb = rl_xcalloc(L, sizeof *m->p.pemb);
    m->g.pemb = rl_xcalloc(L, sizeof *m->g.pemb);
    m->p.path = rl_xcalloc(L, sizeof *m->p.path);
    m->g.path = rl_xcalloc(L, sizeof *m->g.path);
    m->params = rl_xcalloc(m->nparams, sizeof(float));
    m->grads = rl_xcalloc(m->nparams, sizeof(float));
    m->adam = rl_xcalloc(2 * (size_t)m->nparams, sizeof(float));
    bind_weights(&m->p, m, m->params);
    bind_weights(&m->g, m, m->grads);
    m->a = rl_xcalloc(L, sizeof *m->a);
    m->ra = rl_xcalloc(L, sizeof *m->ra);
    m->nacts = layout_acts(m, NULL);
    m->acts = rl_xcalloc(m->nacts, sizeof(float));
    layout_acts(m, m->acts);
    rl_rope_table(m->rope_cos, m->rope_sin, 0, m->T, m->hd);
    m->rope = rl_rope_rotation(m->rope_cos, m->rope_sin, m->hd);
    rl_alibi_slopes(m->slopes, cfg->heads);
    return m;
}

void rl_gpt_free(rl_gpt *m)
{
    if (!m)
        return;
    free(m->tensors);
    free(m->p.blk);
    free(m->g.blk);
    free(m->p.pemb);
    free(m->g.pemb);
    free(m->p.path);
    free(m->g.path);
    free(m->ra);
    free(m->params);
    free(m->grads);
    free(m->adam);
    free(m->a);
    free(m->acts);
    free(m);
}

void rl_gpt_init(rl_gpt *m, uint64_t seed)
{
    const double sd = 0.02, sd_resid = 0.02 / sqrt(2.0 * m->cfg.layers);
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < m->ntensors; i++) {
            const rl_tensor *t = &m->tensors[i];
            float *w = m->params + t->off;
            rl_rng_stream(r, seed, (uint64_t)i);
            for (long j = 0; j < t->n; j++)
                switch (t->kind) {
                case RL_T_EMBED:
                case RL_T_MATRIX: w[j] = (float)(sd * rl_normal(r)); break;
                case RL_T_RESID_MATRIX: w[j] = (float)(sd_resid * rl_normal(r)); break;
                case RL_T_NORM_W: w[j] = 1.0f; break;
                case RL_T_BIAS:
                case RL_T_NORM_B:
                case RL_T_TABLE: w[j] = 0.0f; break;
                }
        }
        gsl_rng_free(r);
    }
    rl_gpt_zero_grad(m);
    memset(m->adam, 0, sizeof(float) * 2 * (size_t)m->nparams);
    m->adam_t = 0;
}

void rl_gpt_zero_grad(rl_gpt *m)
{
    memset(m->grads, 0, sizeof(float) * (size_t)m->nparams);
}

rl_layer_rot rl_gpt_layer_rot(const rl_gpt *m, int l, const rl_rotation *tab)
{
    (void)l; /* the caller passes layer l's own table */
    rl_layer_rot r = { NULL, NULL };
    if (m->cfg.pos.rot != RL_ROT_NONE)
        r.qk = tab;
    if (m->cfg.pos.mode == RL_MODE_QKV)
        r.v = r.qk;
    return r;
}

/* Layer l's angle table in the last training forward: RoPE's (positions
 * only) or the layer's accumulated one. */
static rl_rotation train_table(const rl_gpt *m, int l)
{
    if (!rl_acc_active(&m->cfg))
        return m->rope;
    return rl_acc_rotation(&m->cfg, m->ra[l].cos, m->ra[l].sin, m->fT);
}

/* ---- sublayers shared by training and evaluation ---------------------- */

/* Rotate q and k (and v) of a qkv buffer by dir; t0 is the table offset. */
static void rotate_qkv(const rl_gpt *m, float *qkv, int B, int T, const rl_layer_rot *r,
                       long t0, int dir)
{
    const int C = m->cfg.width, H = m->cfg.heads;
    if (r->qk) {
        rl_rotate(qkv, 3L * C, B, T, H, m->hd, r->qk, t0, dir);
        rl_rotate(qkv + C, 3L * C, B, T, H, m->hd, r->qk, t0, dir);
    }
    if (r->v)
        rl_rotate(qkv + 2 * C, 3L * C, B, T, H, m->hd, r->v, t0, dir);
}

static rl_attn_shape attn_shape(const rl_gpt *m, int B, int T)
{
    rl_attn_shape s = { B, T, m->cfg.heads, m->hd, m->cfg.pos.alibi ? m->slopes : NULL, NULL };
    return s;
}

/* PaTH's per-position inputs of a layer (NULL for the other schemes). */
typedef struct {
    float *w, *rnorm, *beta;
} path_bufs;

/* PaTH: w = normalise(ln W_w^T + b_w) per head, beta = 2 sigmoid(ln u^T + b). */
static void path_inputs(const rl_gpt *m, int l, const float *ln, long N, const path_bufs *pb)
{
    float *const *pw = m->p.path[l];
    const int C = m->cfg.width, H = m->cfg.heads;
    rl_matmul_forward(pb->w, ln, pw[RL_PATH_WW], pw[RL_PATH_WB], N, C, C);
    rl_path_wnorm_forward(pb->w, pb->rnorm, C, N, H, m->hd);
    rl_matmul_forward(pb->beta, ln, pw[RL_PATH_UW], pw[RL_PATH_UB], N, C, H);
    rl_path_beta_forward(pb->beta, pb->beta, N * H);
}

/* qkv = ln Wqkv^T + b (ln = LN1(x), which the caller computes: lf's angles
 * depend on it); rotations; attention (plain, saving att, or streaming when
 * att is NULL; PaTH's when pb is set); inverse value rotation of the output;
 * out = atty Wproj^T + b (out may be ln). */
static void attn_forward(const rl_gpt *m, int l, const float *ln, float *qkv, float *att,
                         float *atty, float *out, int B, int T, const rl_layer_rot *r,
                         const path_bufs *pb, const rl_attn_observer *obs)
{
    float *const *w = m->p.blk[l];
    const int C = m->cfg.width;
    const long N = (long)B * T;
    rl_matmul_forward(qkv, ln, w[RL_QKVW], w[RL_QKVB], N, C, 3 * C);
    rotate_qkv(m, qkv, B, T, r, 0, +1);
    rl_attn_shape s = attn_shape(m, B, T);
    s.observe = obs;
    if (pb) {
        path_inputs(m, l, ln, N, pb);
        if (att)
            rl_path_forward(atty, C, att, m->path_work, qkv, qkv + C, qkv + 2 * C, 3L * C, pb->w, C,
                            pb->beta, &s);
        else
            rl_path_forward_streaming(atty, C, qkv, qkv + C, qkv + 2 * C, 3L * C, pb->w, C, pb->beta, &s);
    } else if (att) {
        rl_attention_forward(atty, C, att, qkv, qkv + C, qkv + 2 * C, 3L * C, &s);
    } else {
        rl_attention_forward_streaming(atty, C, qkv, qkv + C, qkv + 2 * C, 3L * C, &s);
    }
    if (r->v)
        rl_rotate(atty, C, B, T, m->cfg.heads, m->hd, r->v, 0, -1);
    rl_matmul_forward(out, atty, w[RL_PROJW], w[RL_PROJB], N, C, C);
}

/* ln = LN2(x); h = ln Wfc^T + b; hg = GELU(h) (hg may be h); out = hg Wfc2^T + b. */
static void mlp_forward(const rl_gpt *m, int l, const float *x, float *ln, float *mean,
                        float *rstd, float *h, float *hg, float *out, long N)
{
    float *const *w = m->p.blk[l];
    const int C = m->cfg.width;
    rl_layernorm_forward(ln, mean, rstd, x, w[RL_LN2W], w[RL_LN2B], N, C);
    rl_matmul_forward(h, ln, w[RL_FCW], w[RL_FCB], N, C, 4 * C);
    rl_gelu_forward(hg, h, N * 4 * C);
    rl_matmul_forward(out, hg, w[RL_FC2W], w[RL_FC2B], N, 4 * C, C);
}

/* Dropout key of (layer, site): site 0 embedding, 1 attention branch, 2 MLP. */
static uint64_t site_key(const rl_gpt *m, int l, int site)
{
    return rl_stream_key(m->drop_key, (uint64_t)(l + 1) * 4 + (uint64_t)site);
}

/* ---- training forward / backward -------------------------------------- */

double rl_gpt_forward(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, int train,
                      uint64_t drop_key)
{
    if (B > m->B || T > m->T)
        rl_die("model: forward on %d x %d exceeds the allocated %d x %d", B, T, m->B, m->T);
    const int C = m->cfg.width, V = m->cfg.vocab;
    const long N = (long)B * T;
    m->tok = tok;
    m->ldtok = ld;
    m->fB = B;
    m->fT = T;
    m->drop = train ? m->cfg.dropout : 0.0f;
    m->drop_key = drop_key;
    rl_embed_forward(m->enc, tok, ld, B, T, m->p.wte, C);
    rl_dropout(m->enc, N * C, m->drop, site_key(m, -1, 0));
    const float *x = m->enc;
    for (int l = 0; l < m->cfg.layers; l++) {
        rl_block_acts *a = &m->a[l];
        float *const *w = m->p.blk[l];
        rl_layernorm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, x, w[RL_LN1W], w[RL_LN1B], N, C);
        rl_rotation tab = m->rope;
        if (rl_acc_active(&m->cfg))
            tab = rl_acc_forward(m, l, &m->ra[l], a->ln1, tok, ld, B, T, drop_key);
        rl_layer_rot r = rl_gpt_layer_rot(m, l, &tab);
        const path_bufs pb = { a->pw, a->prn, a->pbeta };
        attn_forward(m, l, a->ln1, a->qkv, a->att, a->atty, a->res2, B, T, &r,
                     m->cfg.pos.path ? &pb : NULL, NULL);
        rl_dropout(a->res2, N * C, m->drop, site_key(m, l, 1));
        rl_residual_forward(a->res2, a->res2, x, N * C);
        mlp_forward(m, l, a->res2, a->ln2, a->ln2_mean, a->ln2_rstd, a->fch, a->fch_gelu,
                    a->res3, N);
        rl_dropout(a->res3, N * C, m->drop, site_key(m, l, 2));
        rl_residual_forward(a->res3, a->res3, a->res2, N * C);
        x = a->res3;
    }
    rl_layernorm_forward(m->lnf, m->lnf_mean, m->lnf_rstd, x, m->p.lnfw, m->p.lnfb, N, C);
    rl_matmul_forward(m->logits, m->lnf, m->p.headw, m->p.headb, N, C, V);
    rl_xent_forward(m->logits, m->losses, tok + 1, ld, B, T, V);
    double sum = 0;
    for (long i = 0; i < N; i++)
        sum += m->losses[i];
    return sum / (double)N;
}

/* The gradient through a dropout site: dres masked into buf (or dres itself
 * when dropout is off). */
static const float *dropout_grad(rl_gpt *m, float *buf, long n, uint64_t key)
{
    if (m->drop <= 0)
        return m->dres;
    memcpy(buf, m->dres, sizeof(float) * n);
    rl_dropout(buf, n, m->drop, key);
    return buf;
}

void rl_gpt_backward(rl_gpt *m, float scale)
{
    const int B = m->fB, T = m->fT, C = m->cfg.width, V = m->cfg.vocab, H = m->cfg.heads;
    const long N = (long)B * T, NC = N * C;
    rl_xent_backward(m->logits, m->tok + 1, m->ldtok, B, T, V, scale);
    const float *xL = m->cfg.layers ? m->a[m->cfg.layers - 1].res3 : m->enc;
    rl_matmul_backward(m->dC1, m->g.headw, m->g.headb, m->logits, m->lnf, m->p.headw, N, C, V);
    memset(m->dres, 0, sizeof(float) * NC);
    rl_layernorm_backward(m->dres, m->g.lnfw, m->g.lnfb, m->dC1, xL, m->p.lnfw, m->lnf_mean,
                          m->lnf_rstd, N, C);
    rl_attn_shape s = attn_shape(m, B, T);
    for (int l = m->cfg.layers - 1; l >= 0; l--) {
        rl_block_acts *a = &m->a[l];
        float *const *w = m->p.blk[l];
        float *const *g = m->g.blk[l];
        const float *x = l ? m->a[l - 1].res3 : m->enc;
        const rl_rotation tab = train_table(m, l);
        rl_layer_rot r = rl_gpt_layer_rot(m, l, &tab);
        float *dang = rl_acc_learned(&m->cfg) ? m->dang : NULL; /* dL/dA of this layer */
        if (dang)
            memset(dang, 0, sizeof(float) * N * rl_acc_width(&m->cfg));
        /* MLP branch: res3 = res2 + Drop(FC2(GELU(FC(LN2(res2))))) */
        const float *d = dropout_grad(m, m->dC2, NC, site_key(m, l, 2));
        rl_matmul_backward(m->d4C, g[RL_FC2W], g[RL_FC2B], d, a->fch_gelu, w[RL_FC2W], N,
                           4 * C, C);
        rl_gelu_backward(m->d4C, a->fch, m->d4C, 4 * NC);
        rl_matmul_backward(m->dC1, g[RL_FCW], g[RL_FCB], m->d4C, a->ln2, w[RL_FCW], N, C,
                           4 * C);
        rl_layernorm_backward(m->dres, g[RL_LN2W], g[RL_LN2B], m->dC1, a->res2, w[RL_LN2W],
                              a->ln2_mean, a->ln2_rstd, N, C);
        /* attention branch: res2 = x + Drop(Proj(Rot^-1(Attn(Rot(QKV(LN1(x))))))) */
        d = dropout_grad(m, m->dC2, NC, site_key(m, l, 1));
        rl_matmul_backward(m->dC1, g[RL_PROJW], g[RL_PROJB], d, a->atty, w[RL_PROJW], N, C, C);
        if (r.v && dang)
            rl_acc_grad_out(dang, &tab, a->atty, m->dC1, B, T, H, m->hd);
        if (r.v)
            rl_rotate(m->dC1, C, B, T, H, m->hd, r.v, 0, +1);
        if (m->cfg.pos.path) {
            /* d(q, k, v), dw into dC2 (free again: the projection's backward has
             * consumed the branch gradient), dbeta; then back through the
             * normalisation and the sigmoid */
            rl_path_backward(m->d3C, m->d3C + C, m->d3C + 2 * C, 3L * C, m->dC2, C, m->dbeta, m->datt,
                             m->path_work, m->dC1, C, a->att, a->qkv, a->qkv + C, a->qkv + 2 * C, 3L * C,
                             a->pw, C, a->pbeta, &s);
            rl_path_wnorm_backward(m->dC2, C, a->pw, C, a->prn, N, H, m->hd);
            rl_path_beta_backward(m->dbeta, m->dbeta, a->pbeta, N * H);
        } else {
            rl_attention_backward(m->d3C, m->d3C + C, m->d3C + 2 * C, 3L * C, m->datt, m->dC1, C,
                                  a->att, a->qkv, a->qkv + C, a->qkv + 2 * C, 3L * C, &s);
        }
        if (dang)
            rl_acc_grad_qkv(dang, &tab, a->qkv, m->d3C, B, T, H, m->hd, r.v != NULL);
        rotate_qkv(m, m->d3C, B, T, &r, 0, -1);
        rl_matmul_backward(m->dC1, g[RL_QKVW], g[RL_QKVB], m->d3C, a->ln1, w[RL_QKVW], N, C,
                           3 * C);
        if (m->cfg.pos.path) { /* dln1 += dw_raw W_w + dz u */
            float *const *pw = m->p.path[l], *const *pg = m->g.path[l];
            rl_matmul_backward(m->d4C, pg[RL_PATH_WW], pg[RL_PATH_WB], m->dC2, a->ln1, pw[RL_PATH_WW], N, C, C);
            rl_residual_forward(m->dC1, m->dC1, m->d4C, NC);
            rl_matmul_backward(m->d4C, pg[RL_PATH_UW], pg[RL_PATH_UB], m->dbeta, a->ln1, pw[RL_PATH_UW], N, C, H);
            rl_residual_forward(m->dC1, m->dC1, m->d4C, NC);
        }
        if (dang) /* learned angles: into their parameters (lf: and into ln1) */
            rl_acc_backward(m, l, &m->ra[l], a->ln1, dang, m->dC1, m->d4C);
        rl_layernorm_backward(m->dres, g[RL_LN1W], g[RL_LN1B], m->dC1, x, w[RL_LN1W],
                              a->ln1_mean, a->ln1_rstd, N, C);
    }
    const float *d = dropout_grad(m, m->dC2, NC, site_key(m, -1, 0));
    rl_embed_backward(m->g.wte, d, m->tok, m->ldtok, B, T, C);
}

/* ---- long-window evaluation ------------------------------------------- */

#define EVAL_CHUNK 256 /* positions per MLP / head chunk */

struct rl_gpt_eval {
    long L;
    float *arena, *x, *ln, *qkv, *atty, *h, *out, *logits, *losses, *cos, *sin;
    float *pw, *prn, *pbeta; /* PaTH's w, 1/|w_raw| and beta for one window */
    size_t n;
    rl_gpt_observe_fn observe; /* diagnostics (or NULL) */
    void *observe_ctx;
    int layer;                 /* the layer being evaluated, for observe */
};

/* rl_attn_observer -> rl_gpt_observe_fn: add the layer */
static void observe_layer(void *ctx, int b, int h, long i0, long i1, long j0, long j1, const float *S,
                          long lds)
{
    const rl_gpt_eval *e = ctx;
    e->observe(e->observe_ctx, e->layer, b, h, i0, i1, j0, j1, S, lds);
}

void rl_gpt_eval_observe(rl_gpt_eval *e, rl_gpt_observe_fn fn, void *ctx)
{
    e->observe = fn;
    e->observe_ctx = ctx;
}

static size_t layout_eval(rl_gpt_eval *e, const rl_gpt *m, float *base)
{
    const size_t L = e->L, C = m->cfg.width, V = m->cfg.vocab, ch = EVAL_CHUNK;
    size_t u = 0;
    e->x = carve(base, &u, L * C);
    e->ln = carve(base, &u, L * C);
    e->qkv = carve(base, &u, 3 * L * C);
    e->atty = carve(base, &u, L * C);
    e->h = carve(base, &u, ch * 4 * C);
    e->out = carve(base, &u, ch * C);
    e->logits = carve(base, &u, ch * V);
    e->losses = carve(base, &u, ch);
    /* RoPE's table, or one layer's accumulated table at a time (O(L H hd/2)) */
    const size_t w = m->cfg.pos.rot == RL_ROT_ROPE ? (size_t)m->hd / 2 : (size_t)rl_acc_width(&m->cfg);
    e->cos = carve(base, &u, L * w);
    e->sin = carve(base, &u, L * w);
    const size_t H = m->cfg.pos.path ? (size_t)m->cfg.heads : 0;
    e->pw = carve(base, &u, H ? L * C : 0);
    e->prn = carve(base, &u, L * H);
    e->pbeta = carve(base, &u, L * H);
    return u;
}

rl_gpt_eval *rl_gpt_eval_alloc(const rl_gpt *m, long L)
{
    rl_gpt_eval *e = rl_xcalloc(1, sizeof *e);
    e->L = L;
    e->n = layout_eval(e, m, NULL);
    e->arena = rl_xmalloc(sizeof(float) * e->n);
    layout_eval(e, m, e->arena);
    if (m->cfg.pos.rot == RL_ROT_ROPE)
        rl_rope_table(e->cos, e->sin, 0, L, m->hd);
    return e;
}

void rl_gpt_eval_free(rl_gpt_eval *e)
{
    if (!e)
        return;
    free(e->arena);
    free(e);
}

size_t rl_gpt_eval_bytes(const rl_gpt_eval *e)
{
    return e->n * sizeof(float);
}

double rl_gpt_eval_window(const rl_gpt *m, rl_gpt_eval *e, const uint16_t *tok, long L,
                          uint64_t key)
{
    if (L > e->L)
        rl_die("model: window of %ld exceeds the evaluation workspace of %ld", L, e->L);
    const int C = m->cfg.width, V = m->cfg.vocab;
    rl_embed_forward(e->x, tok, L, 1, (int)L, m->p.wte, C);
    for (int l = 0; l < m->cfg.layers; l++) {
        float *const *w = m->p.blk[l];
        rl_layernorm_forward(e->ln, NULL, NULL, e->x, w[RL_LN1W], w[RL_LN1B], L, C);
        rl_rotation tab = rl_rope_rotation(e->cos, e->sin, m->hd);
        if (rl_acc_active(&m->cfg)) /* lf's MLP in chunks through the MLP's buffers */
            tab = rl_acc_forward_window(m, l, e->cos, e->sin, e->ln, tok, L, key, e->h, e->out,
                                        EVAL_CHUNK);
        rl_layer_rot r = rl_gpt_layer_rot(m, l, &tab);
        const path_bufs pb = { e->pw, e->prn, e->pbeta };
        const rl_attn_observer obs = { observe_layer, e };
        e->layer = l;
        attn_forward(m, l, e->ln, e->qkv, NULL, e->atty, e->ln, 1, (int)L, &r,
                     m->cfg.pos.path ? &pb : NULL, e->observe ? &obs : NULL);
        rl_residual_forward(e->x, e->x, e->ln, L * C);
        for (long r0 = 0; r0 < L; r0 += EVAL_CHUNK) {
            const long n = L - r0 < EVAL_CHUNK ? L - r0 : EVAL_CHUNK;
            float *xc = e->x + r0 * C;
            mlp_forward(m, l, xc, e->ln, NULL, NULL, e->h, e->h, e->out, n);
            rl_residual_forward(xc, xc, e->out, n * C);
        }
    }
    double sum = 0;
    for (long r0 = 0; r0 < L; r0 += EVAL_CHUNK) {
        const long n = L - r0 < EVAL_CHUNK ? L - r0 : EVAL_CHUNK;
        rl_layernorm_forward(e->ln, NULL, NULL, e->x + r0 * C, m->p.lnfw, m->p.lnfb, n, C);
        rl_matmul_forward(e->logits, e->ln, m->p.headw, m->p.headb, n, C, V);
        rl_xent_forward(e->logits, e->losses, tok + r0 + 1, n, 1, (int)n, V);
        for (long i = 0; i < n; i++)
            sum += e->losses[i];
    }
    return sum;
}
