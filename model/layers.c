/* layers.c: matmul, LayerNorm, GELU, residual, embedding, cross-entropy,
 * dropout; see layers.h for the equations. */
#include "layers.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#include "../sampling/rng.h"
#include "fastmath.h"

/* Column sums of a row-major N x C block, added into acc: each column range
 * is summed over rows in row order, whatever the thread count. */
static void colsum_add(float *acc, const float *x, long N, int C)
{
#pragma omp parallel for schedule(static)
    for (int c0 = 0; c0 < C; c0 += 16) {
        int c1 = c0 + 16 < C ? c0 + 16 : C;
        float s[16] = { 0 };
        for (long i = 0; i < N; i++)
            for (int c = c0; c < c1; c++)
                s[c - c0] += x[i * C + c];
        for (int c = c0; c < c1; c++)
            acc[c] += s[c - c0];
    }
}

#define TILE_M 128
#define TILE_N 512

void rl_sgemm(int transa, int transb, int M, int N, int K, float alpha, const float *A,
              int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    const enum CBLAS_TRANSPOSE ta = transa ? CblasTrans : CblasNoTrans;
    const enum CBLAS_TRANSPOSE tb = transb ? CblasTrans : CblasNoTrans;
    const int tm = (M + TILE_M - 1) / TILE_M, tn = (N + TILE_N - 1) / TILE_N;
    if (omp_in_parallel()) { /* OpenBLAS runs single-threaded in here */
        cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    /* (one tile still goes through the loop: its one call then runs inside a
     * parallel region, single-threaded, like every other tile) */
#pragma omp parallel for schedule(static)
    for (int t = 0; t < tm * tn; t++) {
        const int i0 = (t / tn) * TILE_M, j0 = (t % tn) * TILE_N;
        const int m = M - i0 < TILE_M ? M - i0 : TILE_M, n = N - j0 < TILE_N ? N - j0 : TILE_N;
        const float *a = transa ? A + i0 : A + (long)i0 * lda;
        const float *b = transb ? B + (long)j0 * ldb : B + j0;
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, K, alpha, a, lda, b, ldb, beta,
                    C + (long)i0 * ldc + j0, ldc);
    }
}

void rl_matmul_forward(float *out, const float *inp, const float *w, const float *b,
                       long N, int C, int OC)
{
    rl_sgemm(0, 1, (int)N, OC, C, 1.0f, inp, C, w, C, 0.0f, out, OC);
    if (!b)
        return;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++)
        for (int o = 0; o < OC; o++)
            out[i * OC + o] += b[o];
}

void rl_matmul_backward(float *dinp, float *dw, float *db, const float *dout,
                        const float *inp, const float *w, long N, int C, int OC)
{
    if (dinp) /* dinp (N x C) = dout (N x OC) W (OC x C) */
        rl_sgemm(0, 0, (int)N, C, OC, 1.0f, dout, OC, w, C, 0.0f, dinp, C);
    /* dW (OC x C) += dout^T (OC x N) inp (N x C) */
    rl_sgemm(1, 0, OC, C, (int)N, 1.0f, dout, OC, inp, C, 1.0f, dw, C);
    if (db)
        colsum_add(db, dout, N, OC);
}

void rl_layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                          const float *w, const float *b, long N, int C)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        const float *x = inp + i * C;
        float *y = out + i * C;
        float m = 0, v = 0;
        for (int c = 0; c < C; c++)
            m += x[c];
        m /= C;
        for (int c = 0; c < C; c++)
            v += (x[c] - m) * (x[c] - m);
        float s = 1.0f / sqrtf(v / C + 1e-5f);
        for (int c = 0; c < C; c++)
            y[c] = (x[c] - m) * s * w[c] + b[c];
        if (mean) {
            mean[i] = m;
            rstd[i] = s;
        }
    }
}

void rl_layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                           const float *inp, const float *w, const float *mean,
                           const float *rstd, long N, int C)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        const float *dy = dout + i * C, *x = inp + i * C;
        float m = mean[i], s = rstd[i], a = 0, bsum = 0;
        for (int c = 0; c < C; c++) {
            float g = w[c] * dy[c];
            a += g;
            bsum += g * (x[c] - m) * s;
        }
        a /= C;
        bsum /= C;
        float *dx = dinp + i * C;
        for (int c = 0; c < C; c++)
            dx[c] += s * (w[c] * dy[c] - a - (x[c] - m) * s * bsum);
    }
#pragma omp parallel for schedule(static)
    for (int c0 = 0; c0 < C; c0 += 16) {
        int c1 = c0 + 16 < C ? c0 + 16 : C;
        float sw[16] = { 0 }, sb[16] = { 0 };
        for (long i = 0; i < N; i++)
            for (int c = c0; c < c1; c++) {
                float dy = dout[i * C + c];
                sw[c - c0] += dy * (inp[i * C + c] - mean[i]) * rstd[i];
                sb[c - c0] += dy;
            }
        for (int c = c0; c < c1; c++) {
            dw[c] += sw[c - c0];
            db[c] += sb[c - c0];
        }
    }
}

/* GELU over fixed 4096-element blocks (vector code in fastmath.c). */
#define GELU_BLOCK 4096

void rl_gelu_forward(float *out, const float *inp, long n)
{
#pragma omp parallel for schedule(static)
    for (long i0 = 0; i0 < n; i0 += GELU_BLOCK)
        rl_gelu_array(out + i0, inp + i0, n - i0 < GELU_BLOCK ? n - i0 : GELU_BLOCK);
}

void rl_gelu_backward(float *dinp, const float *inp, const float *dout, long n)
{
#pragma omp parallel for schedule(static)
    for (long i0 = 0; i0 < n; i0 += GELU_BLOCK)
        rl_gelu_grad_array(dinp + i0, inp + i0, dout + i0, n - i0 < GELU_BLOCK ? n - i0 : GELU_BLOCK);
}

void rl_residual_forward(float *out, const float *a, const float *b, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

void rl_embed_forward(float *out, const uint16_t *tok, long ld, int B, int T,
                      const float *wte, int C)
{
#pragma omp parallel for schedule(static)
    for (long r = 0; r < (long)B * T; r++)
        memcpy(out + r * C, wte + (long)tok[(r / T) * ld + r % T] * C, sizeof(float) * C);
}

void rl_embed_backward(float *dwte, const float *dout, const uint16_t *tok, long ld,
                       int B, int T, int C)
{
#pragma omp parallel for schedule(static)
    for (int c0 = 0; c0 < C; c0 += 16) {
        int c1 = c0 + 16 < C ? c0 + 16 : C;
        for (long r = 0; r < (long)B * T; r++) {
            float *d = dwte + (long)tok[(r / T) * ld + r % T] * C;
            for (int c = c0; c < c1; c++)
                d[c] += dout[r * C + c];
        }
    }
}

void rl_xent_forward(float *logits, float *losses, const uint16_t *tgt, long ld,
                     int B, int T, int V)
{
#pragma omp parallel for schedule(static)
    for (long r = 0; r < (long)B * T; r++) {
        float *z = logits + r * V, mx = -INFINITY;
        for (int v = 0; v < V; v++)
            mx = z[v] > mx ? z[v] : mx;
        int y = tgt[(r / T) * ld + r % T];
        float zy = z[y] - mx;
        float sum = rl_exp_shift_sum(z, V, mx, -INFINITY);
        float inv = 1.0f / sum;
        /* -log p_y = log(sum exp(z - max)) - (z_y - max): finite even when p_y underflows */
        losses[r] = logf(sum) - zy;
        for (int v = 0; v < V; v++)
            z[v] *= inv;
    }
}

void rl_xent_backward(float *probs, const uint16_t *tgt, long ld, int B, int T, int V,
                      float scale)
{
#pragma omp parallel for schedule(static)
    for (long r = 0; r < (long)B * T; r++) {
        float *p = probs + r * V;
        p[tgt[(r / T) * ld + r % T]] -= 1.0f;
        for (int v = 0; v < V; v++)
            p[v] *= scale;
    }
}

void rl_dropout(float *x, long n, float p, uint64_t key)
{
    if (p <= 0)
        return;
    const uint64_t thresh = (uint64_t)((double)p * 18446744073709551616.0);
    const float keep = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        x[i] = rl_mix64(key + (uint64_t)i * 0x9e3779b97f4a7c15ULL) < thresh ? 0.0f : x[i] * keep;
}
