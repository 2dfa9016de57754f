/* test_model_kernels.c: the speed work moved no number
 * (docs/speed/eval-and-training.md#same-bytes-faster).  The kernels picked by the CPU's vector
 * width give the SSE2 reference's bits; LayerNorm's rows taken eight at a time give the one-row
 * loop's bits; the matmul's tiles, taken dynamically, give the same bits on one
 * thread and on two.  And the cheaper exp (docs/speed/reproduction-and-pruning.md#cheaper-exp)
 * within its derived error bound. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/fastmath.h"
#include "../model/layers.h"
#include "../model/softmax_row.h"
#include "test_model_util.h"

/* Lengths around the 4-, 8- and 16-lane boundaries and one GELU block. */
static const long LENS[] = { 0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 4096 + 13 };
#define MAXN (4096 + 13)

static void fill(float *x, long n, unsigned seed)
{
    tm_randn(x, n, seed, 4.0f);
    if (n > 5) { /* the clamps of the exp and of tanh's argument, and a NaN */
        x[1] = 120.0f;
        x[2] = -120.0f;
        x[4] = NAN;
    }
}

Test(model_kernels, fastmath_widths_agree)
{
    rl_fastmath_fns ref;
    rl_fastmath_sse2(&ref);
    float *x = malloc(sizeof(float) * MAXN), *dy = malloc(sizeof(float) * MAXN);
    float *a = malloc(sizeof(float) * MAXN), *b = malloc(sizeof(float) * MAXN);
    for (size_t k = 0; k < sizeof LENS / sizeof *LENS; k++) {
        const long n = LENS[k];
        fill(x, n, 7 + (unsigned)k);
        tm_randn(dy, n, 100 + (unsigned)k, 1.0f);
        rl_gelu_array(a, x, n);
        ref.gelu(b, x, n);
        cr_expect(memcmp(a, b, sizeof(float) * n) == 0, "gelu n %ld: not the SSE2 bits", n);
        rl_gelu_grad_array(a, x, dy, n);
        ref.gelu_grad(b, x, dy, n);
        cr_expect(memcmp(a, b, sizeof(float) * n) == 0, "gelu grad n %ld: not the SSE2 bits", n);
        for (int f = 0; f < 2; f++) { /* no flush (training), the streaming flush */
            const float flush = f ? -69.314718f : -INFINITY;
            tm_randn(a, n, 200 + (unsigned)k, f ? 30.0f : 1.5f); /* sums of like terms; the flush reached */
            memcpy(b, a, sizeof(float) * n);
            const float sa = rl_exp_shift_sum(a, n, 2.5f, flush), sb = ref.exp_shift_sum(b, n, 2.5f, flush);
            cr_expect(memcmp(a, b, sizeof(float) * n) == 0, "exp n %ld flush %g: entries", n, flush);
            cr_expect(memcmp(&sa, &sb, sizeof sa) == 0, "exp n %ld flush %g: sum %.9g vs %.9g", n, flush, sa, sb);
        }
    }
    free(x);
    free(dy);
    free(a);
    free(b);
}

/* x's exp by the three paths: the scalar rl_expf, the widest exp-sum and
 * the SSE2 reference's (shift 0, so the argument is x itself), flush as
 * given; the three must be the same bits (one operation sequence). */
static void exp3(float *y, const float *x, long n, float flush, const rl_fastmath_fns *ref, float *tmp)
{
    memcpy(y, x, sizeof(float) * n);
    rl_exp_shift_sum(y, n, 0.0f, flush);
    memcpy(tmp, x, sizeof(float) * n);
    ref->exp_shift_sum(tmp, n, 0.0f, flush);
    for (long i = 0; i < n; i++) {
        const float s = x[i] < flush ? 0.0f : rl_expf(x[i]);
        cr_assert(memcmp(&y[i], &tmp[i], sizeof(float)) == 0 && memcmp(&y[i], &s, sizeof(float)) == 0,
                  "exp(%a): widest %a, sse2 %a, scalar %a", (double)x[i], (double)y[i], (double)tmp[i],
                  (double)s);
    }
}

/* The exp (fastmath.h) within its derived bound RL_EXPF_MAX_RELERR of
 * double exp (whose own error, ~1e-16, is far below it) over the softmax's
 * range [RL_SOFTMAX_FLUSH, 0]: 2^22 evenly spaced points, and +-8 ulps
 * around x = (k + 1/2) ln 2 and k ln 2 (the ends and the middle of the
 * reduced range, r = +-A and 0), k = -100 .. 0; and over (0, 88.376) (GELU's
 * side) 2^20 points.  Special points: e^0 = e^-0 = 1 exactly (the online
 * softmax's rescale, attention.h); the flush boundary (kept at
 * RL_SOFTMAX_FLUSH, exact 0 one ulp below it); inputs whose e^x is
 * subnormal or 0 in float (x in (-104, -87.3), -1e30, -inf): exact 0 under
 * the flush, else the clamp's e^-87.3, a normal float (no subnormal result
 * anywhere); tiny |x| (subnormal inputs among them): within the bound of 1. */
Test(model_kernels, exp_error_bound, .timeout = 60)
{
    const float flush = RL_SOFTMAX_FLUSH;
    rl_fastmath_fns ref;
    rl_fastmath_sse2(&ref);
    const long N = 1L << 22, M = N + 101 * 2 * 17 + 200;
    float *x = malloc(sizeof(float) * M), *y = malloc(sizeof(float) * M), *t = malloc(sizeof(float) * M);
    long n = 0;
    for (long k = 0; k <= N - 1; k++)
        x[n++] = (float)((double)flush * (double)k / (double)(N - 1));
    for (int k = -100; k <= 0; k++)
        for (int h = 0; h < 2; h++) {
            float c = (float)((k + 0.5 * h) * 0.69314718055994531);
            for (int s = 0; s < 8; s++)
                c = nextafterf(c, -INFINITY);
            for (int s = 0; s < 17; s++, c = nextafterf(c, INFINITY))
                if (c <= 0.0f && c >= flush)
                    x[n++] = c;
        }
    for (int e = 1; e <= 149; e++) /* -2^-e: 1 - 2^-e rounds to 1 or below it */
        x[n++] = -ldexpf(1.0f, -e);
    double worst = 0, at = 0;
    exp3(y, x, n, flush, &ref, t);
    for (long i = 0; i < n; i++) {
        const double e = exp((double)x[i]), rel = fabs((double)y[i] - e) / e;
        cr_assert(rel <= RL_EXPF_MAX_RELERR, "exp(%.9g) = %.9g, relative error %.5g > %.5g", x[i], y[i], rel,
                  RL_EXPF_MAX_RELERR);
        if (rel > worst)
            worst = rel, at = x[i];
    }
    cr_log_info("exp on [flush, 0]: %ld points, largest relative error %.4g (%.3f u) at %.9g; bound %.4g", n,
                worst, worst * 0x1p24, at, RL_EXPF_MAX_RELERR);
    /* GELU's side, no flush */
    const long P = 1L << 20;
    for (long k = 0; k < P; k++)
        x[k] = (float)(88.37 * (double)(k + 1) / (double)P);
    exp3(y, x, P, -INFINITY, &ref, t);
    for (long k = 0; k < P; k++) {
        const double e = exp((double)x[k]);
        cr_assert(fabs((double)y[k] - e) <= RL_EXPF_MAX_RELERR * e, "exp(%.9g) = %.9g", x[k], y[k]);
    }
    /* special points */
    const float sp[] = { 0.0f, -0.0f, flush, nextafterf(flush, -INFINITY), -87.3f, -88.0f, -100.0f, -103.9f,
                         -104.0f, -1e30f, -INFINITY };
    const int ns = sizeof sp / sizeof *sp;
    for (int f = 0; f < 2; f++) {
        const float fl = f ? flush : -INFINITY;
        exp3(y, sp, ns, fl, &ref, t);
        cr_expect(y[0] == 1.0f && y[1] == 1.0f, "e^0 = %a, e^-0 = %a", (double)y[0], (double)y[1]);
        cr_expect(fabs(y[2] - exp((double)flush)) <= RL_EXPF_MAX_RELERR * exp((double)flush),
                  "at the flush %.9g", y[2]);
        const float clamp = rl_expf(-87.3f);
        cr_expect(clamp >= FLT_MIN && clamp < 1.3e-38f, "the clamp's e^-87.3 = %g", clamp);
        for (int i = 3; i < ns; i++) {
            if (f)
                cr_expect(y[i] == 0.0f, "flush: exp(%g) = %g, not 0", sp[i], y[i]);
            else if (i == 3) /* below the flush, above the clamp: the bound */
                cr_expect(fabs(y[i] - exp((double)sp[i])) <= RL_EXPF_MAX_RELERR * exp((double)sp[i]));
            else
                cr_expect(y[i] == clamp && fpclassify(y[i]) == FP_NORMAL, "exp(%g) = %g, not the clamp %g", sp[i],
                          y[i], clamp);
        }
    }
    free(x);
    free(y);
    free(t);
}

/* The one-row loops LayerNorm ran before (the math of layers.h). */
static void ln_forward_ref(float *y, float *mean, float *rstd, const float *x, const float *w, const float *b,
                           long N, int C)
{
    for (long i = 0; i < N; i++) {
        float m = 0, v = 0;
        for (int c = 0; c < C; c++)
            m += x[i * C + c];
        m /= C;
        for (int c = 0; c < C; c++)
            v += (x[i * C + c] - m) * (x[i * C + c] - m);
        const float s = 1.0f / sqrtf(v / C + 1e-5f);
        for (int c = 0; c < C; c++)
            y[i * C + c] = (x[i * C + c] - m) * s * w[c] + b[c];
        mean[i] = m;
        rstd[i] = s;
    }
}

static void ln_backward_ref(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w,
                            const float *mean, const float *rstd, long N, int C)
{
    for (long i = 0; i < N; i++) {
        float a = 0, bs = 0;
        for (int c = 0; c < C; c++) {
            const float g = w[c] * dy[i * C + c];
            a += g;
            bs += g * (x[i * C + c] - mean[i]) * rstd[i];
        }
        a /= C;
        bs /= C;
        for (int c = 0; c < C; c++)
            dx[i * C + c] += rstd[i] * (w[c] * dy[i * C + c] - a - (x[i * C + c] - mean[i]) * rstd[i] * bs);
    }
    for (int c = 0; c < C; c++) {
        float sw = 0, sb = 0;
        for (long i = 0; i < N; i++) {
            sw += dy[i * C + c] * (x[i * C + c] - mean[i]) * rstd[i];
            sb += dy[i * C + c];
        }
        dw[c] += sw;
        db[c] += sb;
    }
}

Test(model_kernels, layernorm_is_the_one_row_loop)
{
    const long Ns[] = { 1, 7, 8, 13, 37 };
    const int Cs[] = { 1, 5, 128 };
    for (int p = 0; p < 2; p++) /* one thread and two */
        for (int a = 0; a < 5; a++)
            for (int k = 0; k < 3; k++) {
                omp_set_num_threads(p + 1);
                const long N = Ns[a];
                const int C = Cs[k];
                const long n = N * C;
                float *buf = calloc(12 * n + 8 * C + 8 * N, sizeof(float));
                float *x = buf, *dy = x + n, *y = dy + n, *y2 = y + n, *dx = y2 + n, *dx2 = dx + n;
                float *w = dx2 + n, *b = w + C, *dw = b + C, *dw2 = dw + C, *db = dw2 + C, *db2 = db + C;
                float *m = db2 + C, *m2 = m + N, *r = m2 + N, *r2 = r + N;
                tm_randn(x, n, 3 + (unsigned)a, 2.0f);
                tm_randn(dy, n, 4 + (unsigned)k, 1.0f);
                tm_randn(w, C, 5, 1.0f);
                tm_randn(b, C, 6, 1.0f);
                tm_randn(dx, n, 7, 1.0f); /* dinp is accumulated: start from the same values */
                memcpy(dx2, dx, sizeof(float) * n);
                rl_layernorm_forward(y, m, r, x, w, b, N, C);
                ln_forward_ref(y2, m2, r2, x, w, b, N, C);
                cr_expect(memcmp(y, y2, sizeof(float) * n) == 0 && memcmp(m, m2, sizeof(float) * N) == 0 &&
                              memcmp(r, r2, sizeof(float) * N) == 0,
                          "forward N %ld C %d, %d threads", N, C, p + 1);
                rl_layernorm_backward(dx, dw, db, dy, x, w, m, r, N, C);
                ln_backward_ref(dx2, dw2, db2, dy, x, w, m2, r2, N, C);
                cr_expect(memcmp(dx, dx2, sizeof(float) * n) == 0 && memcmp(dw, dw2, sizeof(float) * C) == 0 &&
                              memcmp(db, db2, sizeof(float) * C) == 0,
                          "backward N %ld C %d, %d threads", N, C, p + 1);
                free(buf);
            }
    omp_set_num_threads(2);
}

/* The backward's tiles of dinp and dW and the bias's column chunks, one
 * dynamically scheduled list, and the forward's tiles with their bias: the
 * same bits on one thread and on two, at sizes of one tile and of several
 * (N 1024, OC 384 x C 128: the qkv of width 128; OC 128 x C 512: fc2). */
Test(model_kernels, matmul_same_bits_any_thread_count)
{
    const int shapes[][3] = { { 5, 7, 3 }, { 1024, 128, 384 }, { 1024, 512, 128 }, { 300, 130, 600 } };
    for (int s = 0; s < 4; s++) {
        const long N = shapes[s][0];
        const int C = shapes[s][1], OC = shapes[s][2];
        float *x = malloc(sizeof(float) * N * C), *w = malloc(sizeof(float) * OC * C), *b = malloc(sizeof(float) * OC);
        float *d = malloc(sizeof(float) * N * OC), *o[2], *dx[2], *dw[2], *db[2];
        tm_randn(x, N * C, 1, 1.0f);
        tm_randn(w, (long)OC * C, 2, 1.0f);
        tm_randn(b, OC, 3, 1.0f);
        tm_randn(d, N * OC, 4, 1.0f);
        for (int p = 0; p < 2; p++) {
            omp_set_num_threads(p + 1);
            o[p] = malloc(sizeof(float) * N * OC);
            dx[p] = malloc(sizeof(float) * N * C);
            dw[p] = malloc(sizeof(float) * OC * C);
            db[p] = malloc(sizeof(float) * OC);
            tm_randn(dw[p], (long)OC * C, 5, 1.0f); /* accumulated into */
            tm_randn(db[p], OC, 6, 1.0f);
            rl_matmul_forward(o[p], x, w, b, N, C, OC, NULL);
            rl_matmul_backward(dx[p], dw[p], db[p], d, x, w, N, C, OC, NULL);
        }
        cr_expect(memcmp(o[0], o[1], sizeof(float) * N * OC) == 0, "forward N %ld C %d OC %d", N, C, OC);
        cr_expect(memcmp(dx[0], dx[1], sizeof(float) * N * C) == 0, "dinp N %ld C %d OC %d", N, C, OC);
        cr_expect(memcmp(dw[0], dw[1], sizeof(float) * OC * C) == 0, "dW N %ld C %d OC %d", N, C, OC);
        cr_expect(memcmp(db[0], db[1], sizeof(float) * OC) == 0, "db N %ld C %d OC %d", N, C, OC);
        for (int p = 0; p < 2; p++) {
            free(o[p]);
            free(dx[p]);
            free(dw[p]);
            free(db[p]);
        }
        free(x);
        free(w);
        free(b);
        free(d);
    }
    omp_set_num_threads(2);
}

/* What a matmul does in its tiles (rl_tile_after: GELU, its gradient, a
 * residual sum) gives the bits of the separate layers it replaces, run after
 * the whole product, on one thread and on two; at one tile, at edge tiles
 * whose widths are no multiple of the vector width (600 = 512 + 88), and at
 * fc's shape of width 128. */
Test(model_kernels, matmul_after_is_the_separate_layers)
{
    const int shapes[][3] = { { 5, 7, 3 }, { 300, 130, 600 }, { 1024, 128, 512 } };
    for (int s = 0; s < 3; s++) {
        const long N = shapes[s][0];
        const int C = shapes[s][1], OC = shapes[s][2];
        const long NO = N * OC, NC = N * C;
        float *x = malloc(sizeof(float) * NC), *w = malloc(sizeof(float) * OC * C), *b = malloc(sizeof(float) * OC);
        float *d = malloc(sizeof(float) * NO), *r = malloc(sizeof(float) * NO), *at = malloc(sizeof(float) * NC);
        float *acc0 = malloc(sizeof(float) * NC);
        tm_randn(x, NC, 11, 1.0f);
        tm_randn(w, (long)OC * C, 12, 0.3f);
        tm_randn(b, OC, 13, 1.0f);
        tm_randn(d, NO, 14, 1.0f);
        tm_randn(r, NO, 15, 1.0f);
        tm_randn(at, NC, 16, 2.0f);
        tm_randn(acc0, NC, 17, 1.0f);
        for (int p = 0; p < 2; p++) {
            omp_set_num_threads(p + 1);
            float *o1 = malloc(sizeof(float) * NO), *g1 = malloc(sizeof(float) * NO), *s1 = malloc(sizeof(float) * NO);
            float *o2 = malloc(sizeof(float) * NO), *g2 = malloc(sizeof(float) * NO), *s2 = malloc(sizeof(float) * NO);
            /* forward: GELU(Y) and Y + r, separately and in the tiles */
            rl_matmul_forward(o1, x, w, b, N, C, OC, NULL);
            rl_gelu_forward(g1, o1, NO);
            rl_residual_forward(s1, o1, r, NO);
            const rl_tile_after fa = { .gelu_to = g2, .sum_to = s2, .sum_with = r };
            rl_matmul_forward(o2, x, w, b, N, C, OC, &fa);
            cr_expect(memcmp(o1, o2, sizeof(float) * NO) == 0, "Y, N %ld C %d OC %d", N, C, OC);
            cr_expect(memcmp(g1, g2, sizeof(float) * NO) == 0, "GELU(Y), N %ld C %d OC %d", N, C, OC);
            cr_expect(memcmp(s1, s2, sizeof(float) * NO) == 0, "Y + r, N %ld C %d OC %d", N, C, OC);
            /* backward: dinp *= gelu'(at), then acc += dinp, in place */
            float *dx1 = malloc(sizeof(float) * NC), *dx2 = malloc(sizeof(float) * NC);
            float *a1 = malloc(sizeof(float) * NC), *a2 = malloc(sizeof(float) * NC);
            float *dw1 = calloc((size_t)OC * C, sizeof(float)), *dw2 = calloc((size_t)OC * C, sizeof(float));
            float *db1 = calloc((size_t)OC, sizeof(float)), *db2 = calloc((size_t)OC, sizeof(float));
            memcpy(a1, acc0, sizeof(float) * NC);
            memcpy(a2, acc0, sizeof(float) * NC);
            rl_matmul_backward(dx1, dw1, db1, d, x, w, N, C, OC, NULL);
            rl_gelu_backward(dx1, at, dx1, NC);
            rl_residual_forward(a1, a1, dx1, NC);
            const rl_tile_after ba = { .gelu_at = at, .sum_to = a2, .sum_with = a2 };
            rl_matmul_backward(dx2, dw2, db2, d, x, w, N, C, OC, &ba);
            cr_expect(memcmp(dx1, dx2, sizeof(float) * NC) == 0, "dinp, N %ld C %d OC %d", N, C, OC);
            cr_expect(memcmp(a1, a2, sizeof(float) * NC) == 0, "acc + dinp, N %ld C %d OC %d", N, C, OC);
            cr_expect(memcmp(dw1, dw2, sizeof(float) * OC * C) == 0, "dW, N %ld C %d OC %d", N, C, OC);
            cr_expect(memcmp(db1, db2, sizeof(float) * OC) == 0, "db, N %ld C %d OC %d", N, C, OC);
            free(o1), free(g1), free(s1), free(o2), free(g2), free(s2);
            free(dx1), free(dx2), free(a1), free(a2), free(dw1), free(dw2), free(db1), free(db2);
        }
        free(x), free(w), free(b), free(d), free(r), free(at), free(acc0);
    }
    omp_set_num_threads(2);
}
