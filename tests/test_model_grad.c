/* test_model_grad.c: every layer, and the whole model with dropout, against
 * central finite differences (the check: tm_grad_err, test_model_util.h;
 * the whole model under every registered scheme: test_model_schemes.c).
 * Each layer check takes the scalar L = sum(out * R) for a fixed random R. */
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

#define CHECK(f, ctx, x, g, n, what)                                                           \
    cr_expect_lt(tm_grad_err(f, ctx, x, g, n, what, 1e-2f), TM_GRAD_TOL, "%s", what)

/* ---- matmul ---- */
typedef struct { long N; int C, OC; float *x, *w, *b, *out, *R; } mm_ctx;
static double mm_loss(void *p)
{
    mm_ctx *c = p;
    rl_matmul_forward(c->out, c->x, c->w, c->b, c->N, c->C, c->OC, NULL);
    return tm_dot(c->out, c->R, c->N * c->OC);
}

Test(model_grad, matmul)
{
    mm_ctx c = { .N = 6, .C = 5, .OC = 7 };
    long nx = c.N * c.C, nw = (long)c.OC * c.C, no = c.N * c.OC;
    float *buf = calloc(3 * (nx + nw + c.OC + 2 * no), sizeof(float));
    c.x = buf; c.w = c.x + nx; c.b = c.w + nw; c.out = c.b + c.OC; c.R = c.out + no;
    float *dx = c.R + no, *dw = dx + nx, *db = dw + nw;
    tm_randn(c.x, nx, 1, 1); tm_randn(c.w, nw, 2, 1); tm_randn(c.b, c.OC, 3, 1); tm_randn(c.R, no, 4, 1);
    rl_matmul_backward(dx, dw, db, c.R, c.x, c.w, c.N, c.C, c.OC, NULL);
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
    return tm_dot(c->out, c->R, c->N * c->C);
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
    return tm_dot(c->out, c->R, c->n);
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
    return tm_dot(c->out, c->R, (long)c->s.B * c->s.T * C);
}

/* The layer at B windows of T, H heads of hd: hd 4 takes the sgemm path,
 * hd 16 and 32 the training kernels (attention.c: a key panel of 32 and the
 * P V kernel's blocks of 8 rows; T = 37 crosses both). */
static void check_attention(const float *slopes, int T, int hd, const char *what)
{
    const int B = 2, H = 2, C = H * hd;
    att_ctx c = { .s = { B, T, H, hd, slopes } };
    const long N = (long)B * T, natt = (long)B * H * T * T;
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
    check_attention(NULL, 7, 4, "attention dq,dk,dv");
    float slopes[2] = { 0.5f, 0.25f };
    check_attention(slopes, 7, 4, "attention+alibi dq,dk,dv");
}

Test(model_grad, attention_kernels)
{
    check_attention(NULL, 37, 16, "attention hd 16, T 37 dq,dk,dv");
    check_attention(NULL, 37, 32, "attention hd 32, T 37 dq,dk,dv");
    float slopes[2] = { 0.5f, 0.25f };
    check_attention(slopes, 37, 16, "attention+alibi hd 16, T 37 dq,dk,dv");
}

/* ---- rotation: backward (rotate by -angle) is the transpose ---- */
typedef struct { int B, T, H, hd; float *x, *y, *R; rl_rotation rot; } rot_ctx;
static double rot_loss(void *p)
{
    rot_ctx *c = p;
    long n = (long)c->B * c->T * c->H * c->hd;
    memcpy(c->y, c->x, sizeof(float) * n);
    rl_rotate(c->y, (long)c->H * c->hd, c->B, c->T, c->H, c->hd, &c->rot, 0, +1);
    return tm_dot(c->y, c->R, n);
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
    cr_expect_float_eq(tm_dot(c.y, c.y, n), tm_dot(c.x, c.x, n), 1e-5 * tm_dot(c.x, c.x, n));
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
    return tm_dot(c->out, c->R, (long)c->B * c->T * c->C);
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
/* Every registered scheme, both modes and with ALiBi: test_model_schemes.c
 * (registry_gradients).  Here dropout, whose masks the backward regenerates. */
Test(model_grad, gpt_rope_dropout) { tm_check_model(tm_pos("rope"), 0.2f); }
