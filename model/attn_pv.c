/* attn_pv.c: acc += P V without packing P (see attn_pv.h), at AVX-512 and
 * AVX2 with FMA, picked at run time. */
#include "attn_pv.h"

#include <math.h>
#include <string.h>

#include "fastmath.h"

void rl_attn_pv_ref(float *acc, long lda, const float *P, long spr, long spk, const float *V, long ldv,
                    int nq, int nk, int hd, int from0, float scale)
{
    for (int r = 0; r < nq; r++)
        for (int c = 0; c < hd; c++) {
            float a = from0 ? 0.0f : acc[(long)r * lda + c];
            for (int k = 0; k < nk; k++)
                a = fmaf(P[(long)r * spr + (long)k * spk], V[(long)k * ldv + c], a);
            acc[(long)r * lda + c] = scale != 1.0f ? a * scale : a;
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* One tile: R rows of acc (lda apart) by NV vectors of VL lanes, its
 * accumulators in registers through the whole key loop; at each key the NV
 * vectors of V's row and, per row, P[r][k] broadcast (P's entry (r, k) at
 * r spr + k spk: in place or transposed). */
#define RL_PV_TILE(SFX, TGT, VL, FMA, SET1, R, NV)                                               \
    __attribute__((target(TGT))) static inline void tile_##SFX##_##R##_##NV(                \
        float *acc, long lda, const float *P, long spr, long spk, const float *V, long ldv,  \
        int nk, int from0, float scale)                                                     \
    {                                                                                       \
        typedef float vf __attribute__((vector_size(4 * (VL))));                            \
        vf a[R][NV], b[NV];                                                                 \
        _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++)                              \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                if (from0)                                                                  \
                    a[r][v] = (vf){ 0 };                                                    \
                else                                                                        \
                    memcpy(&a[r][v], acc + (long)r * lda + v * (VL), sizeof(vf));            \
        for (int k = 0; k < nk; k++) {                                                      \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                memcpy(&b[v], V + (long)k * ldv + v * (VL), sizeof(vf));                    \
            _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++) {                        \
                const vf p = (vf)SET1(P[(long)r * spr + (long)k * spk]);                                \
                _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                     \
                    a[r][v] = (vf)FMA(p, b[v], a[r][v]);                                    \
            }                                                                               \
        }                                                                                   \
        if (scale != 1.0f) {                                                                \
            const vf sc = (vf)SET1(scale);                                                  \
            _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++)                          \
                _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                     \
                    a[r][v] *= sc;                                                          \
        }                                                                                   \
        _Pragma("GCC unroll 16") for (int r = 0; r < (R); r++)                              \
            _Pragma("GCC unroll 16") for (int v = 0; v < (NV); v++)                         \
                memcpy(acc + (long)r * lda + v * (VL), &a[r][v], sizeof(vf));                \
    }

/* The whole product: tiles of R rows by NV VL columns, then a last column
 * chunk of 16 = N16 VL (hd a multiple of 16), then the rows left one at a
 * time.  The tiling fixes which registers hold what, not the order of any
 * entry's sum. */
#define RL_PV_CALL(SFX, R, NV) \
    tile_##SFX##_##R##_##NV(acc + (long)r0 * lda + c0, lda, P + (long)r0 * spr, spr, spk, V + c0, ldv, nk, \
                            from0, scale)
#define RL_PV_WIDE(SFX, TGT, VL, R, NV, N16)                                                 \
    __attribute__((target(TGT))) static void pv_##SFX(float *acc, long lda, const float *P, \
                                                      long spr, long spk, const float *V,   \
                                                      long ldv, int nq, int nk, int hd,     \
                                                      int from0, float scale)               \
    {                                                                                       \
        int r0 = 0, c0;                                                                     \
        for (; r0 + (R) <= nq; r0 += (R)) {                                                 \
            for (c0 = 0; c0 + (NV) * (VL) <= hd; c0 += (NV) * (VL))                         \
                RL_PV_CALL(SFX, R, NV);                                                     \
            for (; c0 < hd; c0 += 16)                                                       \
                RL_PV_CALL(SFX, R, N16);                                                    \
        }                                                                                   \
        for (; r0 < nq; r0++) {                                                             \
            for (c0 = 0; c0 + (NV) * (VL) <= hd; c0 += (NV) * (VL))                         \
                RL_PV_CALL(SFX, 1, NV);                                                     \
            for (; c0 < hd; c0 += 16)                                                       \
                RL_PV_CALL(SFX, 1, N16);                                                    \
        }                                                                                   \
    }

#define FMA512(a, b, c) _mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c))
#define FMA256(a, b, c) _mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c))
/* AVX-512: 8 rows x 32 columns, 16 accumulators of the 32 registers */
RL_PV_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 8, 2)
RL_PV_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 8, 1)
RL_PV_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 1, 2)
RL_PV_TILE(avx512, "avx512f,fma", 16, FMA512, _mm512_set1_ps, 1, 1)
RL_PV_WIDE(avx512, "avx512f,fma", 16, 8, 2, 1)
/* AVX2: 4 rows x 16 columns, 8 accumulators of the 16 registers (16
 * columns are two vectors here: no last chunk) */
RL_PV_TILE(avx2, "avx2,fma", 8, FMA256, _mm256_set1_ps, 4, 2)
RL_PV_TILE(avx2, "avx2,fma", 8, FMA256, _mm256_set1_ps, 1, 2)
RL_PV_WIDE(avx2, "avx2,fma", 8, 4, 2, 2)
#endif

int rl_attn_pv_versions(rl_attn_pv_fn *fns, const char **names)
{
    int lv[RL_SIMD_LEVELS];
    const int n = rl_simd_levels(lv, names);
#if defined(__x86_64__) && defined(__GNUC__)
    static const rl_attn_pv_fn by_level[RL_SIMD_LEVELS] = { pv_avx512, pv_avx2 };
    for (int i = 0; i < n; i++)
        fns[i] = by_level[lv[i]];
#else
    (void)fns;
#endif
    return n;
}

rl_attn_pv_fn rl_attn_pv_pick(int hd)
{
    rl_attn_pv_fn fns[2];
    const char *names[2];
    return hd > 0 && hd % 16 == 0 && rl_attn_pv_versions(fns, names) > 0 ? fns[0] : NULL;
}
