/* test_model_grad.c: every layer, and the whole model under each position
 * scheme, against central finite differences.
 *
 * Each check takes the scalar L = sum(out * R) for a fixed random R (or the
 * model's mean cross-entropy), compares the analytic gradient with
 * (L(x + e) - L(x - e)) / 2e on the 8 coordinates of largest analytic
 * gradient plus 8 random ones per tensor, and requires the relative error
 * ||num - ana|| / ||num|| < 1e-2.  Forward passes run in float and L is
 * summed in double; with e = 1e-2 the rounding noise of a difference is
 * about 1e-5 and the truncation error O(e^2) ~ 1e-4 relative, while a wrong
 * sign gives an error of 2 and a missing term one of order 1. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "../model/gpt.h"
#include "../model/layers.h"
#include "../model/position.h"
#include "../sampling/rng.h"
#include "test_model_util.h"

#define TOL 1e-2
/* The step e; lf's f = |y| has a kink at y = 0, and a difference with
 * e = 1e-2 straddles it for some of the 128 y's of the test model (observed
 * errors 2-4e-2 there, all from that), so lf uses e = 1e-3: its rounding
 * noise ~1e-4 relative stays far below the tolerance (observed <= 6e-4). */
static float EPS = 1e-2f;

static double dot(const float *a, const float *b, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

typedef double (*loss_fn)(void *ctx);

/* Relative error of ana against central differences of f in x[0..n-1]. */
static double grad_err(loss_fn f, void *ctx, float *x, const float *ana, long n, const char *what)
{
    long idx[16];
    int k = 0;
    char *used = calloc(n, 1);
    for (; k < 8 && k < n; k++) { /* largest analytic entries */
        long best = -1;
        for (long i = 0; i < n; i++)
            if (!used[i] && (best < 0 || fabsf(ana[i]) > fabsf(ana[best])))
                best = i;
        used[best] = 1;
        idx[k] = best;
    }
    for (int j = 0; j < 8 && k < 16 && k < n; j++) /* and a few anywhere */
        idx[k++] = (long)((j * 2654435761UL + 17) % (unsigned long)n);
    double num2 = 0, diff2 = 0;
    for (int j = 0; j < k; j++) {
        long i = idx[j];
        float keep = x[i];
        x[i] = keep + EPS;
        double lp = f(ctx);
        x[i] = keep - EPS;
        double lm = f(ctx);
        x[i] = keep;
        double num = (lp - lm) / (2.0 * EPS);
        num2 += num * num;
        diff2 += (num - ana[i]) * (num - ana[i]);
    }
    free(used);
    double err = sqrt(diff2) / (sqrt(num2) + 1e-12);
    cr_log_info("%s: relative gradient error %.2e (norm %.3e)", what, err, sqrt(num2));
    return err;
}

#define CHECK(f, ctx, x, g, n, what) cr_expect_lt(grad_err(f, ctx, x, g, n, what), TOL, "%s", what)

/* ---- matmul ---- */
typedef struct { long N; int C, OC; float *x, *w, *b, *out, *R; } mm_ctx;
static double mm_loss(void *p)
{
    mm_ctx *c = p;
    rl_matmul_forward(c->out, c->x, c->w, c->b, c->N, c->C, c->OC);
    return dot(c->out, c->R, c->N * c->OC);
}

Test(model_grad, matmul)
{
    mm_ctx c = { .N = 6, .C = 5, .OC = 7 };
    long nx = c.N * c.C, nw = (long)c.OC * c.C, no = c.N * c.OC;
    float *buf = calloc(3 * (nx + nw + c.OC + 2 * no), sizeof(float));
    c.x = buf; c.w = c.x + nx; c.b = c.w + nw; c.out = c.b + c.OC; c.R = c.out + no;
    float *dx = c.R + no, *dw = dx + nx, *db = dw + nw;
    tm_randn(c.x, nx, 1, 1); tm_randn(c.w, nw, 2, 1); tm_randn(c.b, c.OC, 3, 1); tm_randn(c.R, no, 4, 1);
    rl_matmul_backward(dx, dw, db, c.R, c.x, c.w, c.N, c.C, c.OC);
    CHECK(mm_loss, &c, c.x, dx, nx, "matmul dinp");
    CHECK(mm_loss, &c, c.w, dw, nw, "matmul dW");
    CHECK(mm_loss, &c, c.b, db, c.OC, "matmul db");
    free(buf);
}

/* ---- layernorm ---- */
typedef struct { long N; int C; float *x, *w, *b, *out, *mean, *rstd, *R; } ln_ctx;
static double ln_loss(void *p)
{
    ln_ctx *c = p;
    rl_layernorm_forward(c->out, c->mean, c->rstd, c->x, c->w, c->b, c->N, c->C);
    return dot(c->out, c->R, c->N * c->C);
}

Test(model_grad, layernorm)
{
    ln_ctx c = { .N = 5, .C = 8 };
    long n = c.N * c.C;
    float *buf = calloc(6 * n + 4 * c.C + 2 * c.N, sizeof(float));
    c.x = buf; c.out = c.x + n; c.R = c.out + n; c.w = c.R + n; c.b = c.w + c.C;
    c.mean = c.b + c.C; c.rstd = c.mean + c.N;
    float *dx = c.rstd + c.N, *dw = dx + n, *db = dw + c.C;
    tm_randn(c.x, n, 5, 2); tm_randn(c.w, c.C, 6, 1); tm_randn(c.b, c.C, 7, 1); tm_randn(c.R, n, 8, 1);
    ln_loss(&c);
    rl_layernorm_backward(dx, dw, db, c.R, c.x, c.w, c.mean, c.rstd, c.N, c.C);
    CHECK(ln_loss, &c, c.x, dx, n, "layernorm dinp");
    CHECK(ln_loss, &c, c.w, dw, c.C, "layernorm dw");
    CHECK(ln_loss, &c, c.b, db, c.C, "layernorm db");
    free(buf);
}

/* ---- gelu ---- */
typedef struct { long n; float *x, *out, *R; } gelu_ctx;
static double gelu_loss(void *p)
{
    gelu_ctx *c = p;
    rl_gelu_forward(c->out, c->x, c->n);
    return dot(c->out, c->R, c->n);
}

Test(model_grad, gelu)
{
    gelu_ctx c = { .n = 40 };
    float *buf = calloc(4 * c.n, sizeof(float));
    c.x = buf; c.out = buf + c.n; c.R = c.out + c.n;
    float *dx = c.R + c.n;
    tm_randn(c.x, c.n, 9, 2); tm_randn(c.R, c.n, 10, 1);
    rl_gelu_backward(dx, c.x, c.R, c.n);
    CHECK(gelu_loss, &c, c.x, dx, c.n, "gelu");
    free(buf);
}

/* ---- attention (with and without ALiBi) ---- */
typedef struct { rl_attn_shape s; float *qkv, *out, *att, *R; } att_ctx;
static double att_loss(void *p)
{
    att_ctx *c = p;
    const int C = c->s.H * c->s.hd;
    rl_attention_forward(c->out, C, c->att, c->qkv, c->qkv + C, c->qkv + 2 * C, 3L * C, &c->s);
    return dot(c->out, c->R, (long)c->s.B * c->s.T * C);
}

static void check_attention(const float *slopes, const char *what)
{
    att_ctx c = { .s = { 2, 7, 2, 4, slopes } };
    const int C = 8;
    const long N = 2 * 7, natt = 2L * 2 * 7 * 7;
    float *buf = calloc(3 * N * C * 2 + 2 * N * C + 2 * natt, sizeof(float));
    c.qkv = buf; c.out = c.qkv + 3 * N * C; c.R = c.out + N * C; c.att = c.R + N * C;
    float *datt = c.att + natt, *dqkv = datt + natt;
    tm_randn(c.qkv, 3 * N * C, 11, 1); tm_randn(c.R, N * C, 12, 1);
    att_loss(&c);
    rl_attention_backward(dqkv, dqkv + C, dqkv + 2 * C, 3L * C, datt, c.R, C, c.att, c.qkv,
                          c.qkv + C, c.qkv + 2 * C, 3L * C, &c.s);
    CHECK(att_loss, &c, c.qkv, dqkv, 3 * N * C, what);
    free(buf);
}

Test(model_grad, attention)
{
    check_attention(NULL, "attention dq,dk,dv");
    float slopes[2] = { 0.5f, 0.25f };
    check_attention(slopes, "attention+alibi dq,dk,dv");
}

/* ---- rotation: backward (rotate by -angle) is the transpose ---- */
typedef struct { int B, T, H, hd; float *x, *y, *R; rl_rotation rot; } rot_ctx;
static double rot_loss(void *p)
{
    rot_ctx *c = p;
    long n = (long)c->B * c->T * c->H * c->hd;
    memcpy(c->y, c->x, sizeof(float) * n);
    rl_rotate(c->y, (long)c->H * c->hd, c->B, c->T, c->H, c->hd, &c->rot, 0, +1);
    return dot(c->y, c->R, n);
}

Test(model_grad, rotation)
{
    /* a general per-(batch, position, head, pair) angle table */
    rot_ctx c = { .B = 2, .T = 5, .H = 3, .hd = 6 };
    const long n = 2L * 5 * 3 * 6, na = 2L * 5 * 3 * 3;
    float *buf = calloc(4 * n + 2 * na, sizeof(float));
    double ang[2 * 5 * 3 * 3];
    c.x = buf; c.y = buf + n; c.R = c.y + n;
    float *g = c.R + n, *cs = g + n, *sn = cs + na;
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 13, 0);
    for (long i = 0; i < na; i++)
        ang[i] = 20 * gsl_rng_uniform(r) - 10;
    gsl_rng_free(r);
    rl_angles_cos_sin(ang, cs, sn, na);
    c.rot = (rl_rotation){ cs, sn, 5L * 3 * 3, 3L * 3, 3 };
    tm_randn(c.x, n, 14, 1); tm_randn(c.R, n, 15, 1);
    memcpy(g, c.R, sizeof(float) * n);
    rl_rotate(g, 3L * 6, 2, 5, 3, 6, &c.rot, 0, -1);
    CHECK(rot_loss, &c, c.x, g, n, "rotation");
    /* and it is a rotation: norms kept, inverse undoes it */
    rot_loss(&c);
    cr_expect_float_eq(dot(c.y, c.y, n), dot(c.x, c.x, n), 1e-5 * dot(c.x, c.x, n));
    rl_rotate(c.y, 3L * 6, 2, 5, 3, 6, &c.rot, 0, -1);
    for (long i = 0; i < n; i++)
        cr_expect_float_eq(c.y[i], c.x[i], 1e-5f);
    free(buf);
}

/* ---- angle gradient of the rotation ---- */
typedef struct { rot_ctx r; double *ang; float *a; long na; } ang_ctx;
static double ang_loss(void *p)
{
    ang_ctx *c = p;
    float *cs = (float *)c->r.rot.cos, *sn = (float *)c->r.rot.sin;
    for (long i = 0; i < c->na; i++)
        c->ang[i] = c->a[i];
    rl_angles_cos_sin(c->ang, cs, sn, c->na);
    return rot_loss(&c->r);
}

Test(model_grad, rotation_angles)
{
    ang_ctx c = { .r = { .B = 2, .T = 5, .H = 3, .hd = 6 }, .na = 2L * 5 * 3 * 3 };
    const long n = 2L * 5 * 3 * 6, na = c.na;
    float *buf = calloc(3 * n + 4 * na, sizeof(float));
    c.ang = calloc(na, sizeof(double));
    c.r.x = buf; c.r.y = buf + n; c.r.R = c.r.y + n;
    float *cs = c.r.R + n, *sn = cs + na, *g = sn + na;
    c.a = g + na;
    tm_randn(c.a, na, 20, 3);
    c.r.rot = (rl_rotation){ cs, sn, 5L * 3 * 3, 3L * 3, 3 };
    tm_randn(c.r.x, n, 21, 1); tm_randn(c.r.R, n, 22, 1);
    ang_loss(&c);
    rl_rotate_angle_grad(g, 5L * 3 * 3, 3L * 3, 3, c.r.y, c.r.R, 3L * 6, 2, 5, 3, 6, 0);
    CHECK(ang_loss, &c, c.a, g, na, "rotation angles");
    free(buf);
    free(c.ang);
}

/* ---- cross-entropy ---- */
typedef struct { int B, T, V; float *z, *p, *loss; uint16_t *tok; } xe_ctx;
static double xe_loss(void *v)
{
    xe_ctx *c = v;
    long n = (long)c->B * c->T;
    memcpy(c->p, c->z, sizeof(float) * n * c->V);
    rl_xent_forward(c->p, c->loss, c->tok + 1, c->T + 1, c->B, c->T, c->V);
    double s = 0;
    for (long i = 0; i < n; i++)
        s += c->loss[i];
    return s;
}

Test(model_grad, cross_entropy)
{
    xe_ctx c = { .B = 2, .T = 3, .V = 11 };
    long n = 6L * 11;
    float *buf = calloc(3 * n + 6, sizeof(float));
    uint16_t tok[8] = { 1, 4, 10, 0, 3, 2, 9, 7 };
    c.z = buf; c.p = buf + n; c.loss = c.p + n; c.tok = tok;
    tm_randn(c.z, n, 16, 2);
    xe_loss(&c);
    float *g = c.loss + 6;
    memcpy(g, c.p, sizeof(float) * n);
    rl_xent_backward(g, tok + 1, 4, 2, 3, 11, 1.0f);
    CHECK(xe_loss, &c, c.z, g, n, "cross-entropy");
    free(buf);
}

/* ---- embedding and dropout ---- */
typedef struct { int B, T, C; float *wte, *out, *R; uint16_t *tok; float p; } emb_ctx;
static double emb_loss(void *v)
{
    emb_ctx *c = v;
    rl_embed_forward(c->out, c->tok, c->T, c->B, c->T, c->wte, c->C);
    rl_dropout(c->out, (long)c->B * c->T * c->C, c->p, 99);
    return dot(c->out, c->R, (long)c->B * c->T * c->C);
}

Test(model_grad, embedding_dropout)
{
    emb_ctx c = { .B = 2, .T = 4, .C = 5 };
    uint16_t tok[8] = { 3, 1, 3, 0, 2, 3, 1, 1 };
    float *buf = calloc(4 * 5 + 2 * 8 * 5 + 4 * 5 + 8 * 5, sizeof(float));
    c.wte = buf; c.out = c.wte + 20; c.R = c.out + 40; c.tok = tok;
    float *g = c.R + 40, *dr = g + 20;
    tm_randn(c.wte, 20, 17, 1); tm_randn(c.R, 40, 18, 1);
    for (int k = 0; k < 2; k++) {
        c.p = k ? 0.3f : 0.0f;
        memcpy(dr, c.R, sizeof(float) * 40);
        rl_dropout(dr, 40, c.p, 99);
        memset(g, 0, sizeof(float) * 20);
        rl_embed_backward(g, dr, tok, 4, 2, 4, 5);
        CHECK(emb_loss, &c, c.wte, g, 20, k ? "embedding+dropout" : "embedding");
    }
    free(buf);
}

/* ---- the whole model ---- */
typedef struct { rl_gpt *m; uint16_t *tok; } gpt_ctx;
static double gpt_loss(void *v)
{
    gpt_ctx *c = v;
    return rl_gpt_forward(c->m, c->tok, c->m->T + 1, c->m->B, c->m->T, 1, 1234);
}

static void check_model(const char *pos, float dropout)
{
    rl_gpt_config cfg = { 2, 16, 2, 8, 13, dropout, tm_pos(pos) };
    rl_gpt *m = rl_gpt_alloc(&cfg, 2);
    rl_gpt_init(m, 5);
    /* larger weights than GPT-2's 0.02 so that every tensor's gradient is
     * well above the finite-difference noise; norms away from (1, 0) */
    tm_randn(m->params, m->nparams, 19, 0.3f);
    for (int i = 0; i < m->ntensors; i++)
        if (m->tensors[i].kind == RL_T_NORM_W)
            for (long j = 0; j < m->tensors[i].n; j++)
                m->params[m->tensors[i].off + j] += 1.0f;
    uint16_t tok[2 * 9];
    for (int i = 0; i < 18; i++)
        tok[i] = (uint16_t)((i * 7 + 3) % 13);
    gpt_ctx c = { m, tok };
    EPS = cfg.pos.rot == RL_ROT_LF ? 1e-3f : 1e-2f;
    gpt_loss(&c);
    rl_gpt_zero_grad(m);
    rl_gpt_backward(m, 1.0f / (2 * 8));
    for (int i = 0; i < m->ntensors; i++) {
        const rl_tensor *t = &m->tensors[i];
        char what[64];
        snprintf(what, sizeof what, "%s %s p=%.1f", pos, t->name, dropout);
        CHECK(gpt_loss, &c, m->params + t->off, m->grads + t->off, t->n, what);
    }
    EPS = 1e-2f;
    rl_gpt_free(m);
}

Test(model_grad, gpt_none) { check_model("none", 0); }
Test(model_grad, gpt_rope) { check_model("rope", 0); }
Test(model_grad, gpt_alibi) { check_model("alibi", 0); }
Test(model_grad, gpt_rope_dropout) { check_model("rope", 0.2f); }
/* value rotation and inverse rotation of the output (the Q/K/V variants) */
Test(model_grad, gpt_rope_values) { check_model("fixed-rope", 0); }
/* The accumulated schemes (issue 5): the noise of random and lf is held
 * fixed by the forward's key; every parameter is perturbed (sd 0.3), so
 * pemb's tables sit away from 0 where tanh' = 1 would hide a missing factor,
 * and lf's shared MLP and LayerNorm (w + 1) are generic.  The tensors
 * checked include h*.pemb and lf.* (gradients summed over the layers). */
Test(model_grad, gpt_random_qk) { check_model("random_qk", 0); }
Test(model_grad, gpt_random_qkv) { check_model("random_qkv", 0); }
Test(model_grad, gpt_pemb_qk) { check_model("pemb_qk", 0); }
Test(model_grad, gpt_pemb_qkv) { check_model("pemb_qkv", 0); }
Test(model_grad, gpt_lf_qk) { check_model("lf_qk", 0); }
Test(model_grad, gpt_lf_qkv) { check_model("lf_qkv", 0); }
Test(model_grad, gpt_alibi_random_qkv) { check_model("alibi+random_qkv", 0); }
/* PaTH: the projections to w and beta (h*.path.*) and, through them, LN1 */
Test(model_grad, gpt_path) { check_model("path", 0); }
