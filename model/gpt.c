/* gpt.c: parameter and activation layout, forward, backward, long-window
 * evaluation of the decoder (equations in gpt.h and layers.h). */
#include "gpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/mem.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "attention.h"
#include "layers.h"

/* ---- layout ---------------------------------------------------------- */

static void add_tensor(void *ctx, const char *name, int layer, long rows, long cols, rl_tensor_kind kind)
{
    rl_gpt *m = ctx;
    rl_tensor *t = &m->tensors[m->ntensors++];
    const long n = cols ? rows * cols : rows;
    t->rows = rows, t->cols = cols;
    if (layer >= 0)
        snprintf(t->name, sizeof t->name, "h%d.%s", layer, name);
    else
        snprintf(t->name, sizeof t->name, "%s", name);
    t->off = m->nparams;
    t->n = n;
    t->kind = kind;
    m->nparams += n;
}

/* The tensor table; RL_ENOMEM (in err) when it cannot be allocated. */
static rl_status build_tensors(rl_gpt *m, rl_err *err)
{
    const long C = m->cfg.width, V = m->cfg.vocab;
    static const char *names[RL_BLOCK_TENSORS] = { "ln1.w", "ln1.b", "qkv.w", "qkv.b", "proj.w",
                                                   "proj.b", "ln2.w", "ln2.b", "fc.w", "fc.b",
                                                   "fc2.w", "fc2.b" };
    /* shapes (rows, cols; cols 0: a vector): a linear layer's weight is
     * (out, in), as the matmuls read it (layers.h) */
    const long rows[RL_BLOCK_TENSORS] = { C, C, 3 * C, 3 * C, C, C, C, C, 4 * C, 4 * C, C, C };
    const long cols[RL_BLOCK_TENSORS] = { 0, 0, C, 0, C, 0, 0, 0, C, 0, 4 * C, 0 };
    const rl_tensor_kind kinds[RL_BLOCK_TENSORS] = {
        RL_T_NORM_W, RL_T_NORM_B, RL_T_MATRIX, RL_T_BIAS, RL_T_RESID_MATRIX, RL_T_BIAS,
        RL_T_NORM_W, RL_T_NORM_B, RL_T_MATRIX, RL_T_BIAS, RL_T_RESID_MATRIX, RL_T_BIAS
    };
    m->npos = rl_scheme_ntensors(&m->cfg);
    m->tensors = rl_alloc_array(5 + RL_BLOCK_TENSORS * (size_t)m->cfg.layers + m->npos,
                                sizeof(rl_tensor), err);
    if (!m->tensors)
        return RL_ENOMEM;
    add_tensor(m, "wte", -1, V, C, RL_T_EMBED);
    for (int l = 0; l < m->cfg.layers; l++)
        for (int i = 0; i < RL_BLOCK_TENSORS; i++)
            add_tensor(m, names[i], l, rows[i], cols[i], kinds[i]);
    add_tensor(m, "lnf.w", -1, C, 0, RL_T_NORM_W);
    add_tensor(m, "lnf.b", -1, C, 0, RL_T_NORM_B);
    add_tensor(m, "head.w", -1, V, C, RL_T_MATRIX);
    add_tensor(m, "head.b", -1, V, 0, RL_T_BIAS);
    /* the position scheme's parameters last: the other tensors keep their
     * offsets whatever the scheme */
    const rl_scheme *s = rl_scheme_of(m->cfg.pos);
    if (s->params)
        s->params(&m->cfg, add_tensor, m);
    return RL_OK;
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
    for (int i = 0; i < m->npos; i++)
        w->pos[i] = base + t[g + 4 + i].off;
}

/* rl_carve with the count checked: *over is set instead of wrapping. */
static float *take(rl_arena *u, size_t n, int *over)
{
    float *p = u->base ? u->base + u->used : NULL;
    u->used = rl_szadd(u->used, rl_szadd(n, 15, over) & ~(size_t)15, over);
    return p;
}

/* The decoder's activations (the scheme carves its own, scheme.h); m->a
 * may be NULL when only counting (rl_gpt_bytes).  The products are
 * checked: B, T, H come from flags and checkpoint headers. */
static size_t layout_acts(rl_gpt *m, float *base, int *over)
{
    const size_t B = m->B, T = m->T, C = m->cfg.width, V = m->cfg.vocab, H = m->cfg.heads;
    const size_t N = rl_szmul(B, T, over), NC = rl_szmul(N, C, over);
    const size_t att = rl_szmul(rl_szmul(B, H, over), rl_szmul(T, T, over), over);
    const size_t NC3 = rl_szmul(3, NC, over), NC4 = rl_szmul(4, NC, over);
    rl_arena u = { base, 0 };
    rl_block_acts dummy;
    for (int l = 0; l < m->cfg.layers && !*over; l++) {
        rl_block_acts *a = m->a ? &m->a[l] : &dummy;
        a->ln1 = take(&u, NC, over);
        a->ln1_mean = take(&u, N, over);
        a->ln1_rstd = take(&u, N, over);
        a->qkv = take(&u, NC3, over);
        a->att = take(&u, att, over);
        a->atty = take(&u, NC, over);
        a->res2 = take(&u, NC, over);
        a->ln2 = take(&u, NC, over);
        a->ln2_mean = take(&u, N, over);
        a->ln2_rstd = take(&u, N, over);
        a->fch = take(&u, NC4, over);
        a->fch_gelu = take(&u, NC4, over);
        a->res3 = take(&u, NC, over);
    }
    m->enc = take(&u, NC, over);
    m->lnf = take(&u, NC, over);
    m->lnf_mean = take(&u, N, over);
    m->lnf_rstd = take(&u, N, over);
    m->logits = take(&u, rl_szmul(N, V, over), over);
    m->losses = take(&u, N, over);
    m->dres = take(&u, NC, over);
    m->dC1 = take(&u, NC, over);
    m->dC2 = take(&u, NC, over);
    m->d3C = take(&u, NC3, over);
    m->d4C = take(&u, NC4, over);
    m->datt = take(&u, att, over);
    m->slopes = take(&u, H, over);
    return u.used;
}

/* Floats of a scheme's activations for B windows of T (eval: one
 * window, streaming), counted by its own layout.  The scheme's products
 * are not checked; callers first bound the decoder's own activations
 * (which contain N C, B H T T per layer), and every scheme's buffers are
 * a few of those at most (acc_layout, path_layout, rope_layout), so they
 * cannot wrap then.  RL_ENOMEM (in err) when the scheme's state (a few
 * pointers, which its layout writes) cannot be allocated. */
static rl_status scheme_floats(const rl_gpt_config *cfg, long B, long T, int eval, size_t *floats,
                               rl_err *err)
{
    const rl_scheme_ctx x = { rl_scheme_of(cfg->pos), cfg, cfg->width / cfg->heads, NULL, NULL,
                              NULL };
    *floats = 0;
    if (!x.s->layout)
        return RL_OK;
    void *st = rl_alloc_array(1, x.s->state_bytes, err);
    if (!st)
        return RL_ENOMEM;
    rl_arena a = { NULL, 0 };
    x.s->layout(st, &x, B, T, eval, &a);
    free(st);
    *floats = a.used;
    return RL_OK;
}

/* Beyond this the decoder's own count stops (see scheme_floats): 2^50
 * bytes, more than any machine this runs on. */
#define BYTES_BOUND ((size_t)1 << 50)

/* rl_mem_check, with the counts beyond BYTES_BOUND refused as such. */
static rl_status checked_need(const char *what, size_t need, int over, rl_err *err)
{
    if (!over && need > BYTES_BOUND)
        return rl_fail(err, RL_EINPUT, "%s needs %zu bytes (%.0f TiB), more than any machine has",
                       what, need, need / 1099511627776.0);
    return rl_mem_check(what, need, over, err);
}

rl_status rl_gpt_bytes(const rl_gpt_config *cfg, int B, size_t *bytes, rl_err *err)
{
    char why[160];
    *bytes = 0;
    if (rl_gpt_config_check(cfg, why, sizeof why))
        return rl_fail(err, RL_EINPUT, "model: %s", why);
    RL_TRY(rl_gpt_limits_check(cfg, B, err));
    int over = 0;
    /* within those ranges the count fits in a long (< 2^56) */
    const size_t P = (size_t)rl_gpt_param_count(cfg);
    rl_gpt shape = { .cfg = *cfg, .B = B, .T = cfg->ctx };
    size_t floats = rl_szadd(rl_szmul(4, P, &over), layout_acts(&shape, NULL, &over), &over);
    size_t need = rl_szmul(floats, sizeof(float), &over);
    if (!over && need <= BYTES_BOUND) {
        size_t sf;
        RL_TRY(scheme_floats(cfg, B, cfg->ctx, 0, &sf, err));
        need = rl_szadd(need, sizeof(float) * sf, &over);
    }
    *bytes = need;
    char what[200];
    char acts[64] = " without training activations";
    if (B)
        snprintf(acts, sizeof acts, " with activations for %d windows", B);
    snprintf(what, sizeof what, "a model of %d layers, width %d, %d heads, context %d (%ld "
             "parameters)%s", cfg->layers, cfg->width, cfg->heads, cfg->ctx, (long)P, acts);
    return checked_need(what, need, over, err);
}

rl_status rl_gpt_new(rl_gpt **out, const rl_gpt_config *cfg, int B, rl_err *err)
{
    size_t bytes;
    *out = NULL;
    RL_TRY(rl_gpt_bytes(cfg, B, &bytes, err));
    rl_gpt *m = rl_alloc_array(1, sizeof *m, err);
    if (!m)
        return RL_ENOMEM;
    m->cfg = *cfg;
    m->B = B;
    m->T = cfg->ctx;
    m->hd = cfg->width / cfg->heads;
    if (build_tensors(m, err) != RL_OK)
        goto fail;
    const size_t L = cfg->layers;
    if (!(m->p.blk = rl_alloc_array(L, sizeof *m->p.blk, err)) ||
        !(m->g.blk = rl_alloc_array(L, sizeof *m->g.blk, err)) ||
        !(m->p.pos = rl_alloc_array(m->npos + 1, sizeof *m->p.pos, err)) ||
        !(m->g.pos = rl_alloc_array(m->npos + 1, sizeof *m->g.pos, err)) ||
        !(m->params = rl_alloc_array(m->nparams, sizeof(float), err)) ||
        !(m->grads = rl_alloc_array(m->nparams, sizeof(float), err)) ||
        !(m->adam = rl_alloc_array(2 * (size_t)m->nparams, sizeof(float), err)) ||
        !(m->a = rl_alloc_array(L, sizeof *m->a, err)))
        goto fail;
    bind_weights(&m->p, m, m->params);
    bind_weights(&m->g, m, m->grads);
    int over = 0; /* checked by rl_gpt_bytes */
    m->nacts = layout_acts(m, NULL, &over);
    if (!(m->acts = rl_alloc_array(m->nacts, sizeof(float), err)))
        goto fail;
    layout_acts(m, m->acts, &over);
    m->sx = rl_scheme_ctx_make(&m->cfg, m->p.pos, m->g.pos, m->slopes);
    if (rl_scheme_state_alloc(&m->ss, &m->sx, m->B, m->T, 0) != RL_OK) {
        rl_fail(err, RL_ENOMEM, "out of memory for the position scheme's activations");
        goto fail;
    }
    *out = m;
    return RL_OK;
fail: /* every pointer not yet allocated is NULL (m is zeroed) */
    rl_gpt_free(m);
    return RL_ENOMEM;
}

rl_gpt *rl_gpt_alloc(const rl_gpt_config *cfg, int B)
{
    rl_gpt *m;
    rl_gpt_new(&m, cfg, B, NULL);
    return m; /* NULL on any failure (rl_gpt_new) */
}

void rl_gpt_free(rl_gpt *m)
{
    if (!m)
        return;
    free(m->tensors);
    free(m->p.blk);
    free(m->g.blk);
    free(m->p.pos);
    free(m->g.pos);
    rl_scheme_state_free(&m->ss);
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
        rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
        gsl_rng *r = rl_rng_local_init(&r_l);
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
    }
    rl_gpt_zero_grad(m);
    memset(m->adam, 0, sizeof(float) * 2 * (size_t)m->nparams);
    m->adam_t = 0;
}

/* Every step zeroes the whole gradient (13 MB at width 256): on all cores,
 * in chunks of 64 Ki floats. */
void rl_gpt_zero_grad(rl_gpt *m)
{
    const long n = m->nparams, ch = 1L << 16;
#pragma omp parallel for schedule(static)
    for (long i0 = 0; i0 < n; i0 += ch)
        memset(m->grads + i0, 0, sizeof(float) * (size_t)(n - i0 < ch ? n - i0 : ch));
}

const float *rl_gpt_alibi_slopes(const rl_gpt *m)
{
    return m->sx.slopes;
}

/* ---- sublayers shared by training and evaluation ---------------------- */

static rl_attn_shape attn_shape(const rl_gpt *m, int B, int T)
{
    rl_attn_shape s = { .B = B, .T = T, .H = m->cfg.heads, .hd = m->hd, .slopes = m->sx.slopes };
    return s;
}

/* The position scheme's per-layer inputs from ln = LN1(x) and the tokens
 * (a rotation table, PaTH's w and beta; key: its noise; scratch: what the
 * evaluation lends it, scheme.h); qkv = ln Wqkv^T + b;
 * atty = the scheme's attention over the windows of s (training when att is
 * set: it saves att; else streaming, with s's observer and pruning);
 * out = atty Wproj^T + b (out may be ln).
 * RL_ENOMEM when the scheme runs out of memory (scheme.h): out unwritten. */
static rl_status attn_forward(const rl_gpt *m, void *st, int l, const float *ln, const uint16_t *tok,
                              long ld, uint64_t key, float *scratch, float *qkv, float *att,
                              float *atty, float *out, const rl_attn_shape *s, const rl_tile_after *after)
{
    float *const *w = m->p.blk[l];
    const int C = m->cfg.width, B = s->B, T = s->T;
    const long N = (long)B * T;
    const rl_scheme *S = m->sx.s;
    if (S->prepare)
        RL_TRY(S->prepare(st, &m->sx, l, ln, tok, ld, B, T, key, scratch));
    rl_matmul_forward(qkv, ln, w[RL_QKVW], w[RL_QKVB], N, C, 3 * C, NULL);
    RL_TRY(S->attend(st, &m->sx, l, qkv, att, atty, s));
    rl_matmul_forward(out, atty, w[RL_PROJW], w[RL_PROJB], N, C, C, after);
    return RL_OK;
}

/* ln = LN2(x); h = ln Wfc^T + b; hg = GELU(h) (hg may be h; in fc's tiles);
 * out = hg Wfc2^T + b, then `after` in fc2's tiles. */
static void mlp_forward(const rl_gpt *m, int l, const float *x, float *ln, float *mean,
                        float *rstd, float *h, float *hg, float *out, long N,
                        const rl_tile_after *after)
{
    float *const *w = m->p.blk[l];
    const int C = m->cfg.width;
    const rl_tile_after gelu = { .gelu_to = hg };
    rl_layernorm_forward(ln, mean, rstd, x, w[RL_LN2W], w[RL_LN2B], N, C);
    rl_matmul_forward(h, ln, w[RL_FCW], w[RL_FCB], N, C, 4 * C, &gelu);
    rl_matmul_forward(out, hg, w[RL_FC2W], w[RL_FC2B], N, 4 * C, C, after);
}

/* Dropout key of (layer, site): site 0 embedding, 1 attention branch, 2 MLP. */
static uint64_t site_key(const rl_gpt *m, int l, int site)
{
    return rl_stream_key(m->drop_key, (uint64_t)(l + 1) * 4 + (uint64_t)site);
}

/* ---- training forward / backward -------------------------------------- */

/* The forward of rl_gpt_forward; with last set (evaluation only, train
 * clear) the last block's MLP, the final LayerNorm, the head and the loss
 * run on the B rows t = T - 1 alone (rl_gpt_forward_last): everything
 * before them is every row's, as those rows' own attention needs. */
static double forward(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, int train, uint64_t drop_key,
                      int last)
{
    if (B > m->B || T > m->T)
        return NAN; /* beyond the activations' capacity */
    const int C = m->cfg.width, V = m->cfg.vocab;
    const long N = (long)B * T;
    m->tok = tok;
    m->ldtok = ld;
    m->fB = B;
    m->fT = T;
    m->drop = train ? m->cfg.dropout : 0.0f;
    m->drop_key = drop_key;
    m->nomem = 0;
    rl_embed_forward(m->enc, tok, ld, B, T, m->p.wte, C);
    rl_dropout(m->enc, N * C, m->drop, site_key(m, -1, 0));
    const float *x = m->enc;
    for (int l = 0; l < m->cfg.layers; l++) {
        rl_block_acts *a = &m->a[l];
        float *const *w = m->p.blk[l];
        rl_layernorm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, x, w[RL_LN1W], w[RL_LN1B], N, C);
        /* without dropout the residual sums run in the projections' tiles */
        const int fuse = !(m->drop > 0);
        const rl_tile_after r2 = { .sum_to = a->res2, .sum_with = x };
        const rl_attn_shape s = attn_shape(m, B, T);
        if (attn_forward(m, m->ss.st, l, a->ln1, tok, ld, drop_key, NULL, a->qkv, a->att, a->atty,
                         a->res2, &s, fuse ? &r2 : NULL) != RL_OK) {
            m->nomem = 1;
            return NAN;
        }
        if (!fuse) {
            rl_dropout(a->res2, N * C, m->drop, site_key(m, l, 1));
            rl_residual_forward(a->res2, a->res2, x, N * C);
        }
        long rows = N;
        const float *xin = a->res2;
        if (last && l == m->cfg.layers - 1) { /* row T - 1 of each window, into LN1's buffer (read) */
            for (int b = 0; b < B; b++)
                memcpy(a->ln1 + (long)b * C, a->res2 + ((long)b * T + T - 1) * C, sizeof(float) * (size_t)C);
            rows = B;
            xin = a->ln1;
        }
        const rl_tile_after r3 = { .sum_to = a->res3, .sum_with = xin };
        mlp_forward(m, l, xin, a->ln2, a->ln2_mean, a->ln2_rstd, a->fch, a->fch_gelu, a->res3, rows,
                    fuse ? &r3 : NULL);
        if (!fuse) {
            rl_dropout(a->res3, N * C, m->drop, site_key(m, l, 2));
            rl_residual_forward(a->res3, a->res3, a->res2, N * C);
        }
        x = a->res3;
    }
    /* the rows that go on: every position, or (last: the last block
     * gathered them, layers >= 1) the B rows t = T - 1, whose targets are
     * tok[b ld + T] */
    const long R = last ? B : N;
    rl_layernorm_forward(m->lnf, m->lnf_mean, m->lnf_rstd, x, m->p.lnfw, m->p.lnfb, R, C);
    rl_matmul_forward(m->logits, m->lnf, m->p.headw, m->p.headb, R, C, V, NULL);
    rl_xent_forward(m->logits, m->losses, last ? tok + T : tok + 1, ld, B, last ? 1 : T, V);
    double sum = 0;
    for (long i = 0; i < R; i++)
        sum += m->losses[i];
    return sum / (double)R;
}

double rl_gpt_forward(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, int train,
                      uint64_t drop_key)
{
    return forward(m, tok, ld, B, T, train, drop_key, 0);
}

double rl_gpt_forward_last(rl_gpt *m, const uint16_t *tok, long ld, int B, int T, uint64_t key)
{
    return forward(m, tok, ld, B, T, 0, key, 1);
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
    const int B = m->fB, T = m->fT, C = m->cfg.width, V = m->cfg.vocab;
    const long N = (long)B * T, NC = N * C;
    const rl_scheme *S = m->sx.s;
    rl_xent_backward(m->logits, m->tok + 1, m->ldtok, B, T, V, scale);
    const float *xL = m->cfg.layers ? m->a[m->cfg.layers - 1].res3 : m->enc;
    rl_matmul_backward(m->dC1, m->g.headw, m->g.headb, m->logits, m->lnf, m->p.headw, N, C, V,
                       NULL);
    memset(m->dres, 0, sizeof(float) * NC);
    rl_layernorm_backward(m->dres, m->g.lnfw, m->g.lnfb, m->dC1, xL, m->p.lnfw, m->lnf_mean,
                          m->lnf_rstd, N, C);
    rl_attn_shape s = attn_shape(m, B, T);
    for (int l = m->cfg.layers - 1; l >= 0; l--) {
        rl_block_acts *a = &m->a[l];
        float *const *w = m->p.blk[l];
        float *const *g = m->g.blk[l];
        const float *x = l ? m->a[l - 1].res3 : m->enc;
        /* MLP branch: res3 = res2 + Drop(FC2(GELU(FC(LN2(res2))))) */
        const float *d = dropout_grad(m, m->dC2, NC, site_key(m, l, 2));
        const rl_tile_after gelu = { .gelu_at = a->fch }; /* d4C *= gelu'(fch) in its tiles */
        rl_matmul_backward(m->d4C, g[RL_FC2W], g[RL_FC2B], d, a->fch_gelu, w[RL_FC2W], N,
                           4 * C, C, &gelu);
        rl_matmul_backward(m->dC1, g[RL_FCW], g[RL_FCB], m->d4C, a->ln2, w[RL_FCW], N, C,
                           4 * C, NULL);
        rl_layernorm_backward(m->dres, g[RL_LN2W], g[RL_LN2B], m->dC1, a->res2, w[RL_LN2W],
                              a->ln2_mean, a->ln2_rstd, N, C);
        /* attention branch: res2 = x + Drop(Proj(Attend(QKV(LN1(x))))) */
        d = dropout_grad(m, m->dC2, NC, site_key(m, l, 1));
        rl_matmul_backward(m->dC1, g[RL_PROJW], g[RL_PROJB], d, a->atty, w[RL_PROJW], N, C, C,
                           NULL);
        S->attend_backward(m->ss.st, &m->sx, l, m->dC1, m->d3C, m->datt, a->att, a->qkv, a->atty,
                           &s);
        rl_matmul_backward(m->dC1, g[RL_QKVW], g[RL_QKVB], m->d3C, a->ln1, w[RL_QKVW], N, C,
                           3 * C, NULL);
        if (S->input_backward) /* the scheme's parameters, and its share of d LN1 */
            S->input_backward(m->ss.st, &m->sx, l, a->ln1, m->tok, m->ldtok, B, T, m->dC1);
        rl_layernorm_backward(m->dres, g[RL_LN1W], g[RL_LN1B], m->dC1, x, w[RL_LN1W],
                              a->ln1_mean, a->ln1_rstd, N, C);
    }
    const float *d = dropout_grad(m, m->dC2, NC, site_key(m, -1, 0));
    rl_embed_backward(m->g.wte, d, m->tok, m->ldtok, B, T, C);
}

/* ---- long-window evaluation ------------------------------------------- */

#define EVAL_CHUNK RL_EVAL_CHUNK /* positions per MLP / head chunk */

struct rl_gpt_eval {
    long L;
    float *arena, *x, *ln, *qkv, *atty, *h, *out, *logits, *losses;
    size_t n;
    rl_scheme_state ss;        /* the scheme's streaming state for one window */
    rl_gpt_observe_fn observe; /* diagnostics (or NULL) */
    void *observe_ctx;
    float *keep;               /* per-position losses of the next windows (or NULL) */
    float *keep_logits;        /* per-position logits (L x V) of the next windows (or NULL) */
    int bad_layer;             /* the first layer whose activations were not finite (-1: none; layers: the head) */
    int nomem;                 /* a window (or a reader of e) ran out of memory */
    int layer;                 /* the layer being evaluated, for observe */
    double prune_eps;          /* the streaming attention's pruning (attention.h) */
    rl_attn_prune prune;       /* what it did since the last rl_gpt_eval_prune_take */
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

/* The workspace's layout; L comes from --lengths: the products are
 * checked (*over). */
static size_t layout_eval(rl_gpt_eval *e, const rl_gpt *m, float *base, int *over)
{
    const size_t L = e->L, C = m->cfg.width, V = m->cfg.vocab, ch = EVAL_CHUNK;
    const size_t LC = rl_szmul(L, C, over);
    rl_arena u = { base, 0 };
    e->x = take(&u, LC, over);
    e->ln = take(&u, LC, over);
    e->qkv = take(&u, rl_szmul(3, LC, over), over);
    e->atty = take(&u, LC, over);
    e->h = take(&u, ch * 4 * C, over);
    e->out = take(&u, ch * C, over);
    e->logits = take(&u, ch * V, over);
    e->losses = take(&u, ch, over);
    return u.used;
}

rl_status rl_gpt_eval_check(const rl_gpt *m, long L, rl_err *err)
{
    if (L < 1)
        return rl_fail(err, RL_EINPUT, "window length %ld is not positive", L);
    int over = 0;
    rl_gpt_eval e = { .L = L };
    size_t need = rl_szmul(layout_eval(&e, m, NULL, &over), sizeof(float), &over);
    if (!over && need <= BYTES_BOUND) {
        size_t sf;
        RL_TRY(scheme_floats(&m->cfg, 1, L, 1, &sf, err));
        need = rl_szadd(need, sizeof(float) * sf, &over);
    }
    char what[160];
    snprintf(what, sizeof what, "the evaluation workspace for windows of %ld tokens", L);
    return checked_need(what, need, over, err);
}

rl_gpt_eval *rl_gpt_eval_alloc(const rl_gpt *m, long L)
{
    rl_gpt_eval *e = rl_alloc_array(1, sizeof *e, NULL);
    if (!e)
        return NULL;
    e->bad_layer = -1;
    e->L = L;
    e->prune_eps = RL_ATTN_PRUNE_EXACT; /* byte-identical to no pruning (attention.h) */
    int over = 0; /* checked by rl_gpt_eval_check */
    e->n = layout_eval(e, m, NULL, &over);
    e->arena = rl_alloc_array(e->n, sizeof(float), NULL);
    if (!e->arena || rl_scheme_state_alloc(&e->ss, &m->sx, 1, L, 1) != RL_OK) {
        rl_gpt_eval_free(e);
        return NULL;
    }
    layout_eval(e, m, e->arena, &over);
    return e;
}

void rl_gpt_eval_free(rl_gpt_eval *e)
{
    if (!e)
        return;
    rl_scheme_state_free(&e->ss);
    free(e->arena);
    free(e);
}

void rl_gpt_eval_prune_eps(rl_gpt_eval *e, double eps)
{
    e->prune_eps = eps;
}

rl_attn_prune rl_gpt_eval_prune_take(rl_gpt_eval *e)
{
    const rl_attn_prune p = e->prune;
    e->prune = (rl_attn_prune){ 0 };
    return p;
}

int rl_gpt_eval_bad_layer(const rl_gpt_eval *e)
{
    return e->bad_layer;
}

int rl_gpt_eval_nomem(const rl_gpt_eval *e)
{
    return e->nomem;
}

void rl_gpt_eval_set_nomem(rl_gpt_eval *e)
{
    e->nomem = 1;
}

/* Whether every one of n floats is finite (an overflow anywhere makes the
 * sum of x * 0 a NaN: one pass, no branch per element). */
static int all_finite(const float *x, long n)
{
    float z = 0;
    for (long i = 0; i < n; i++)
        z += x[i] * 0.0f;
    return z == 0;
}

const char *rl_gpt_eval_bad_what(const rl_gpt *m, const rl_gpt_eval *e, char *buf, size_t n)
{
    const int b = e->bad_layer;
    if (b < 0)
        snprintf(buf, n, "%s", "");
    else if (b == m->cfg.layers)
        snprintf(buf, n, "the output head, after layer %d", b - 1);
    else
        snprintf(buf, n, "layer %d", b);
    return buf;
}

void rl_gpt_eval_keep_logits(rl_gpt_eval *e, float *logits)
{
    e->keep_logits = logits;
}

void rl_gpt_eval_keep_losses(rl_gpt_eval *e, float *losses)
{
    e->keep = losses;
}

size_t rl_gpt_eval_bytes(const rl_gpt_eval *e)
{
    return (e->n + e->ss.n) * sizeof(float);
}

double rl_gpt_eval_window(const rl_gpt *m, rl_gpt_eval *e, const uint16_t *tok, long L,
                          uint64_t key)
{
    if (L > e->L)
        return NAN; /* beyond the workspace */
    const int C = m->cfg.width, V = m->cfg.vocab;
    rl_embed_forward(e->x, tok, L, 1, (int)L, m->p.wte, C);
    for (int l = 0; l < m->cfg.layers; l++) {
        if (rl_cancelled()) /* the caller asked to stop (err.h): a layer is the unit of a long window */
            return NAN;
        float *const *w = m->p.blk[l];
        rl_layernorm_forward(e->ln, NULL, NULL, e->x, w[RL_LN1W], w[RL_LN1B], L, C);
        const rl_attn_observer obs = { observe_layer, e };
        e->layer = l;
        rl_attn_shape s = attn_shape(m, 1, (int)L);
        s.observe = e->observe ? &obs : NULL;
        s.prune_eps = e->prune_eps;
        s.prune = &e->prune;
        /* x += the branch, in the projections' tiles */
        const rl_tile_after into_x = { .sum_to = e->x, .sum_with = e->x };
        if (attn_forward(m, e->ss.st, l, e->ln, tok, L, key, e->h, e->qkv, NULL, e->atty, e->ln, &s,
                         &into_x) != RL_OK) {
            e->nomem = 1;
            return NAN;
        }
        for (long r0 = 0; r0 < L; r0 += EVAL_CHUNK) {
            const long n = L - r0 < EVAL_CHUNK ? L - r0 : EVAL_CHUNK;
            float *xc = e->x + r0 * C;
            const rl_tile_after into_xc = { .sum_to = xc, .sum_with = xc };
            mlp_forward(m, l, xc, e->ln, NULL, NULL, e->h, e->h, e->out, n, &into_xc);
        }
        /* a checkpoint of finite but huge weights (3e38) overflows: said,
         * with the layer, never a NaN loss read as a number */
        if (!all_finite(e->x, L * C)) {
            if (e->bad_layer < 0)
                e->bad_layer = l;
            return NAN;
        }
    }
    double sum = 0;
    for (long r0 = 0; r0 < L; r0 += EVAL_CHUNK) {
        const long n = L - r0 < EVAL_CHUNK ? L - r0 : EVAL_CHUNK;
        rl_layernorm_forward(e->ln, NULL, NULL, e->x + r0 * C, m->p.lnfw, m->p.lnfb, n, C);
        rl_matmul_forward(e->logits, e->ln, m->p.headw, m->p.headb, n, C, V, NULL);
        if (e->keep_logits) /* before the cross-entropy turns them into probabilities */
            memcpy(e->keep_logits + r0 * V, e->logits, sizeof(float) * (size_t)n * (size_t)V);
        rl_xent_forward(e->logits, e->losses, tok + r0 + 1, n, 1, (int)n, V);
        for (long i = 0; i < n; i++)
            sum += e->losses[i];
        if (!isfinite(sum)) { /* the head's logits overflowed */
            if (e->bad_layer < 0)
                e->bad_layer = m->cfg.layers;
            return NAN;
        }
        if (e->keep)
            memcpy(e->keep + r0, e->losses, sizeof(float) * (size_t)n);
    }
    return sum;
}
