/* attn_qk.c: the logits from keys packed once per head (see attn_qk.h), at
 * AVX-512 and AVX2 with FMA, picked at run time. */
#include "attn_qk.h"

#include <math.h>
#include <string.h>

#include "fastmath.h"

#define W RL_ATTN_QK_W

size_t rl_attn_qk_packed_floats(long n, int hd)
{
    return (size_t)((n + W - 1) / W) * W * (size_t)hd;
}

/* Panel p's rows d0 .. hd-1 (all W columns) one entry at a time: the
 * whole packing where no vector version runs, and the edges where one does. */
static void pack_rows(float *panel, const float *k, long ld, int nw, int d0, int hd)
{
    for (int d = d0; d < hd; d++) {
        float *out = panel + (long)d * W;
        const float *kd = k + d;
        for (int w = 0; w < nw; w++)
            out[w] = kd[w * ld];
        for (int w = nw; w < W; w++)
            out[w] = 0.0f;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* A full panel's first hd - hd % 8 rows in 8 x 8 blocks: eight keys' rows
 * of 8 dimensions loaded, transposed in registers, stored as eight rows of
 * the panel (a copy: no arithmetic, the scalar packing's bytes).  The
 * strided gather it replaces was 14% of the training attention at hd 32
 * (docs/speed/kernels.md#training-attention-kernels). */
__attribute__((target("avx2"))) static int pack_full_avx2(float *panel, const float *k, long ld, int hd)
{
    int d0 = 0;
    for (; d0 + 8 <= hd; d0 += 8)
        for (int w0 = 0; w0 < W; w0 += 8) {
            __m256 r[8], t[8];
            for (int i = 0; i < 8; i++)
                r[i] = _mm256_loadu_ps(k + (long)(w0 + i) * ld + d0);
            for (int i = 0; i < 8; i += 2) {
                t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
                t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
            }
            for (int i = 0; i < 8; i += 4) {
                r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
                r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
                r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
                r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
            }
            /* r[0..3]: dims 0, 1, 2, 3 of keys 0-3 | 0-3 (lanes 0-3 from the
             * low halves); r[4..7] the same for keys 4-7: the halves combine */
            for (int j = 0; j < 4; j++) {
                _mm256_storeu_ps(panel + (long)(d0 + j) * W + w0, _mm256_permute2f128_ps(r[j], r[j + 4], 0x20));
                _mm256_storeu_ps(panel + (long)(d0 + j + 4) * W + w0, _mm256_permute2f128_ps(r[j], r[j + 4], 0x31));
            }
        }
    return d0;
}
#endif

void rl_attn_qk_pack(float *kp, const float *k, long ld, long n, int hd)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const int avx2 = __builtin_cpu_supports("avx2");
#else
    const int avx2 = 0;
#endif
    for (long p = 0; p * W < n; p++) {
        float *panel = kp + p * W * hd;
        const float *kb = k + p * W * ld;
        const int nw = n - p * W < W ? (int)(n - p * W) : W;
        int d0 = 0;
#if defined(__x86_64__) && defined(__GNUC__)
        if (avx2 && nw == W)
            d0 = pack_full_avx2(panel, kb, ld, hd);
#else
        (void)avx2;
#endif
        pack_rows(panel, kb, ld, nw, d0, hd);
    }
}

void rl_attn_qk_ref(float *S, long lds, const float *Q, long ldq, const float *kp, int nq, int nk,
                    int hd, float scale)
{
    for (int r = 0; r < nq; r++)
        for (int j = 0; j < nk; j++) {
            const float *panel = kp + (long)(j / W) * W * hd + j % W;
            float a = 0.0f;
            for (int d = 0; d < hd; d++)
                a = fmaf(Q[(long)r * ldq + d], panel[(long)d * W], a);
            S[(long)r * lds + j] = a * scale;
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* One tile: R query rows (ldq apart) by NV vectors of VL keys of one panel
 * (P: the panel plus the tile's first column), its accumulators in
 * registers through the whole loop over d; at each d the NV vectors of the
 * panel's row d and, per row, q_r[d] broadcast.  The ncols < NV VL columns
 * of a panel's end go through a buffer, so nothing past them is written. */
#define RL_QK_TILE(SFX, TGT, VL, FMA, SET1, R, NV)                                               \
    __attribute__((target(TGT))) static inline void tile_##SFX##_##R(                       \
        float *S, long lds, const float *Q, long ldq, const float *P, int hd, float scale,  \
        int ncols)                                                                          \
    {                                                                                       \
        typedef float vf __attribute__((vector_size(4 * (VL))));                            \
        vf a[R][NV], b[NV];                                                                 \
        _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++)                              \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                a[r][v] = (vf){ 0 };                                                        \
        for (int d = 0; d < hd; d++) {                                                      \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                memcpy(&b[v], P + (long)d * W + v * (VL), sizeof(vf));                      \
            _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++) {                        \
                const vf q = (vf)SET1(Q[(long)r * ldq + d]);                                \
                _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                     \
                    a[r][v] = (vf)FMA(q, b[v], a[r][v]);                                    \
            }                                                                               \
        }                                                                                   \
        const vf sc = (vf)SET1(scale);                                                      \
        _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++) {                            \
            vf out[NV];                                                                     \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                out[v] = a[r][v] * sc;                                                      \
            if (ncols == (NV) * (VL))                                                       \
                memcpy(S + (long)r * lds, out, sizeof out);                                 \
            else                                                                            \
                memcpy(S + (long)r * lds, out, (size_t)ncols * sizeof(float));              \
        }                                                                                   \
    }

/* The whole block: panel by panel (each read from L1 by every row tile),
 * tiles of R rows then the rows left one at a time, each panel in chunks
 * of NV VL keys.  The tiling fixes which registers hold what, not the order
 * of any entry's sum. */
#define RL_QK_WIDE(SFX, TGT, VL, R, NV)                                                         \
    __attribute__((target(TGT))) static void qk_##SFX(float *S, long lds, const float *Q,       \
                                                      long ldq, const float *kp, int nq,     \
                                                      int nk, int hd, float scale)           \
    {                                                                                        \
        for (int j0 = 0; j0 < nk; j0 += W) {                                                 \
            const float *panel = kp + (long)j0 * hd;                                         \
            for (int c0 = 0; c0 < W && j0 + c0 < nk; c0 += (NV) * (VL)) {                    \
                const int left = nk - j0 - c0;                                               \
                const int nc = left < (NV) * (VL) ? left : (NV) * (VL);                      \
                int r0 = 0;                                                                  \
                for (; r0 + (R) <= nq; r0 += (R))                                            \
                    tile_##SFX##_##R(S + (long)r0 * lds + j0 + c0, lds, Q + (long)r0 * ldq,  \
                                     ldq, panel + c0, hd, scale, nc);                        \
                for (; r0 < nq; r0++)                                                        \
                    tile_##SFX##_1(S + (long)r0 * lds + j0 + c0, lds, Q + (long)r0 * ldq,    \
                                   ldq, panel + c0, hd, scale, nc);                          \
            }                                                                                \
        }                                                                                    \
    }

#define FMA512(a, b, c) _mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c))
#define FMA256(a, b, c) _mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c))
/* AVX-512: 8 rows x one whole panel (32 keys), 16 accumulators of the 32
 * registers */
RL_QK_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 8, 2)
RL_QK_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 1, 2)
RL_QK_WIDE(avx512, "avx512f,fma", 16, 8, 2)
/* AVX2: 6 rows x half a panel (16 keys), 12 accumulators of the 16
 * registers */
RL_QK_TILE(avx2, "avx2,fma", 8, FMA256, _mm256_set1_ps, 6, 2)
RL_QK_TILE(avx2, "avx2,fma", 8, FMA256, _mm256_set1_ps, 1, 2)
RL_QK_WIDE(avx2, "avx2,fma", 8, 6, 2)
#endif

int rl_attn_qk_versions(rl_attn_qk_fn *fns, const char **names)
{
    int lv[RL_SIMD_LEVELS];
    const int n = rl_simd_levels(lv, names);
#if defined(__x86_64__) && defined(__GNUC__)
    static const rl_attn_qk_fn by_level[RL_SIMD_LEVELS] = { qk_avx512, qk_avx2 };
    for (int i = 0; i < n; i++)
        fns[i] = by_level[lv[i]];
#else
    (void)fns;
#endif
    return n;
}

rl_attn_qk_fn rl_attn_qk_pick(int hd)
{
    rl_attn_qk_fn fns[2];
    const char *names[2];
    return hd > 0 && rl_attn_qk_versions(fns, names) > 0 ? fns[0] : NULL;
}
