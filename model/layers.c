/* layers.c: matmul, LayerNorm, GELU, residual, embedding, cross-entropy,
 * dropout; see layers.h for the equations. */
#include "layers.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#include "../sampling/rng.h"
#include "fastmath.h"

/* Column sums of columns [c0, c1) (c1 - c0 <= 16) of a row-major N x C
 * block, added into acc: each column summed over rows in row order. */
static void colsum_chunk(float *acc, const float *x, long N, int C, int c0, int c1)
{
    float s[16] = { 0 };
    for (long i = 0; i < N; i++)
        for (int c = c0; c < c1; c++)
            s[c - c0] += x[i * C + c];
    for (int c = c0; c < c1; c++)
        acc[c] += s[c - c0];
}

#define TILE_M 128
#define TILE_N 512

/* One tile of C = alpha op(A) op(B) + beta C: rows [i0, i0 + TILE_M) and
 * columns [j0, j0 + TILE_N), one single-threaded sgemm call (inside a
 * parallel region OpenBLAS's OpenMP build runs single-threaded; called from
 * inside another region, the same tiles run in turn on its thread).  The tiles
 * are fixed by M and N alone: which thread computes one cannot change it
 * (and a tile's shape can: Haswell's kernels give other bits for a
 * 64 x 64 tile than for a 128 x 512 one, so the sizes stay). */
typedef struct {
    int transa, transb, M, N, K;
    float alpha, beta;
    const float *A, *B;
    int lda, ldb, ldc;
    float *C;
} gemm_job;

static int gemm_tiles(const gemm_job *g)
{
    return ((g->M + TILE_M - 1) / TILE_M) * ((g->N + TILE_N - 1) / TILE_N);
}

/* Tile t of g; returns its first row and column, rows and columns. */
static void gemm_tile(const gemm_job *g, int t, int *i0, int *j0, int *m, int *n)
{
    const int tn = (g->N + TILE_N - 1) / TILE_N;
    *i0 = (t / tn) * TILE_M;
    *j0 = (t % tn) * TILE_N;
    *m = g->M - *i0 < TILE_M ? g->M - *i0 : TILE_M;
    *n = g->N - *j0 < TILE_N ? g->N - *j0 : TILE_N;
    const float *a = g->transa ? g->A + *i0 : g->A + (long)*i0 * g->lda;
    const float *b = g->transb ? g->B + (long)*j0 * g->ldb : g->B + *j0;
    cblas_sgemm(CblasRowMajor, g->transa ? CblasTrans : CblasNoTrans, g->transb ? CblasTrans : CblasNoTrans,
                *m, *n, g->K, g->alpha, a, g->lda, b, g->ldb, g->beta, g->C + (long)*i0 * g->ldc + *j0,
                g->ldc);
}

/* The tile's rows [i0, i0 + m) x columns [j0, j0 + n) of Y (row stride ld)
 * through `after` (layers.h): the layer that would have made a pass of its
 * own over the whole array, applied to the tile while it is in cache. */
static void tile_after(const rl_tile_after *a, float *Y, int ld, int i0, int j0, int m, int n)
{
    if (!a)
        return;
    for (long i = i0; i < i0 + m; i++) {
        const long k = i * ld + j0;
        if (a->gelu_at)
            rl_gelu_grad_array(Y + k, a->gelu_at + k, Y + k, n);
        if (a->gelu_to)
            rl_gelu_array(a->gelu_to + k, Y + k, n);
        if (a->sum_to)
            for (int c = 0; c < n; c++)
                a->sum_to[k + c] = Y[k + c] + a->sum_with[k + c];
    }
}

/* Each tile adds the bias to its own block right after its product, in the
 * region that computed it: out = (inp W^T) + b, the sum as before; then
 * `after`. */
void rl_matmul_forward(float *out, const float *inp, const float *w, const float *b,
                       long N, int C, int OC, const rl_tile_after *after)
{
    const gemm_job g = { 0, 1, (int)N, OC, C, 1.0f, 0.0f, inp, w, C, C, OC, out };
    const int nt = gemm_tiles(&g);
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < nt; t++) {
        int i0, j0, m, n;
        gemm_tile(&g, t, &i0, &j0, &m, &n);
        if (b)
            for (long i = i0; i < i0 + m; i++)
                for (int o = j0; o < j0 + n; o++)
                    out[i * OC + o] += b[o];
        tile_after(after, out, OC, i0, j0, m, n);
    }
}

/* The three products of the backward are independent (each reads dout and
 * writes its own output), so their tiles and the bias's 16-column chunks
 * are one list of items, taken dynamically: a dW of one tile (width 128:
 * C x C) no longer holds one core while the other waits. */
void rl_matmul_backward(float *dinp, float *dw, float *db, const float *dout,
                        const float *inp, const float *w, long N, int C, int OC,
                        const rl_tile_after *after)
{
    /* dinp (N x C) = dout (N x OC) W (OC x C);  dW (OC x C) += dout^T (OC x N) inp (N x C) */
    const gemm_job gi = { 0, 0, (int)N, C, OC, 1.0f, 0.0f, dout, w, OC, C, C, dinp };
    const gemm_job gw = { 1, 0, OC, C, (int)N, 1.0f, 1.0f, dout, inp, OC, C, C, dw };
    const int ni = dinp ? gemm_tiles(&gi) : 0, nw = gemm_tiles(&gw), nb = db ? (OC + 15) / 16 : 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int t = 0; t < nw + ni + nb; t++) {
        int i0, j0, m, n;
        if (t < nw) /* the larger items first: dW's tiles sum over all N rows */
            gemm_tile(&gw, t, &i0, &j0, &m, &n);
        else if (t < nw + ni) {
            gemm_tile(&gi, t - nw, &i0, &j0, &m, &n);
            tile_after(after, dinp, C, i0, j0, m, n);
        } else {
            const int c0 = (t - nw - ni) * 16;
            colsum_chunk(db, dout, N, OC, c0, c0 + 16 < OC ? c0 + 16 : OC);
        }
    }
}

/* Rows are taken LN_ROWS at a time so that their sums run as independent
 * chains side by side (one row's sum alone waits on each addition's
 * latency); each row's sums still add its columns in order, so every
 * number is the one-row loop's (docs/speed/eval-and-training.md#same-bytes-faster). */
#define LN_ROWS 8

static inline __attribute__((always_inline)) void ln_forward_rows(float *out, float *mean, float *rstd,
                                                                  const float *inp, const float *w,
                                                                  const float *b, long i0, int R, int C)
{
    float m[LN_ROWS] = { 0 }, v[LN_ROWS] = { 0 }, s[LN_ROWS];
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++)
            m[r] += inp[(i0 + r) * C + c];
    for (int r = 0; r < R; r++)
        m[r] /= C;
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++) {
            const float d = inp[(i0 + r) * C + c] - m[r];
            v[r] += d * d;
        }
    for (int r = 0; r < R; r++) {
        s[r] = 1.0f / sqrtf(v[r] / C + 1e-5f);
        const float *x = inp + (i0 + r) * C;
        float *y = out + (i0 + r) * C;
        for (int c = 0; c < C; c++)
            y[c] = (x[c] - m[r]) * s[r] * w[c] + b[c];
        if (mean) {
            mean[i0 + r] = m[r];
            rstd[i0 + r] = s[r];
        }
    }
}

void rl_layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                          const float *w, const float *b, long N, int C)
{
    const long ng = N / LN_ROWS;
#pragma omp parallel for schedule(static)
    for (long g = 0; g < ng + N % LN_ROWS; g++) {
        if (g < ng)
            ln_forward_rows(out, mean, rstd, inp, w, b, g * LN_ROWS, LN_ROWS, C);
        else
            ln_forward_rows(out, mean, rstd, inp, w, b, ng * LN_ROWS + (g - ng), 1, C);
    }
}

static inline __attribute__((always_inline)) void ln_backward_rows(float *dinp, const float *dout,
                                                                   const float *inp, const float *w,
                                                                   const float *mean, const float *rstd,
                                                                   long i0, int R, int C)
{
    float a[LN_ROWS] = { 0 }, bs[LN_ROWS] = { 0 };
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++) {
            const long k = (i0 + r) * C + c;
            const float g = w[c] * dout[k];
            a[r] += g;
            bs[r] += g * (inp[k] - mean[i0 + r]) * rstd[i0 + r];
        }
    for (int r = 0; r < R; r++) {
        const float m = mean[i0 + r], s = rstd[i0 + r], am = a[r] / C, bm = bs[r] / C;
        const float *dy = dout + (i0 + r) * C, *x = inp + (i0 + r) * C;
        float *dx = dinp + (i0 + r) * C;
        for (int c = 0; c < C; c++)
            dx[c] += s * (w[c] * dy[c] - am - (x[c] - m) * s * bm);
    }
}

void rl_layernorm_backward(float *dinp, float *dw, float *db, const float *dout,
                           const float *inp, const float *w, const float *mean,
                           const float *rstd, long N, int C)
{
    const long ng = N / LN_ROWS;
    /* dx by rows and (dw, db) by columns write disjoint outputs: one region */
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long g = 0; g < ng + N % LN_ROWS; g++) {
            if (g < ng)
                ln_backward_rows(dinp, dout, inp, w, mean, rstd, g * LN_ROWS, LN_ROWS, C);
            else
                ln_backward_rows(dinp, dout, inp, w, mean, rstd, ng * LN_ROWS + (g - ng), 1, C);
        }
#pragma omp for schedule(static)
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
