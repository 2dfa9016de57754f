/* vexp.h: e^x on W float lanes, the one vector form of rl_expf (fastmath.h,
 * which derives its error bound).
 *
 * RL_VEXP(SFX, ATTR, W, FMA) defines the lane types vf_SFX, vi_SFX, vu_SFX
 * and vexp_SFX(x), with the function attribute ATTR (RL_TARGET("avx2,fma"),
 * or nothing for the build's own width) and FMA(a, b, c) the lanes' fused
 * a b + c, rounded once: rl_vfma_4 (libm's fmaf lane by lane, the SSE2
 * reference), rl_vfma_avx2, rl_vfma_avx512 (the instructions); and
 * rl_vloadn_SFX, rl_vstoren_SFX for a row's last entries.
 * Each lane goes through rl_expf's operations in its order (ISO C mode does
 * not contract a b + c on its own, so the FMAs are exactly the written
 * ones): x clamped to [RL_EXP_LO, RL_EXP_HI] (a NaN passes), t = fma(x,
 * log2 e, 1.5 2^23), r by two FMAs, the degree-5 polynomial by five, 2^n
 * from t's bits.  A NaN lane keeps its NaN through r and p.  So every width
 * gives every entry the scalar's bits, and the kernels that use it
 * (fastmath.c's GELU and exp-sum, softmax_row.c's row step) differ between
 * widths only where they add, which each of them fixes. */
#ifndef RL_MODEL_VEXP_H
#define RL_MODEL_VEXP_H

#include <math.h>
#include <stdint.h>

#include "fastmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define RL_TARGET(t) __attribute__((target(t)))

/* The build's own four lanes: libm's fmaf, the correctly rounded a b + c
 * (an instruction where the compiler may use one, a call otherwise). */
typedef float rl_vf4_ __attribute__((vector_size(16)));
static inline rl_vf4_ rl_vfma_4(rl_vf4_ a, rl_vf4_ b, rl_vf4_ c)
{
    rl_vf4_ d;
    for (int l = 0; l < 4; l++)
        d[l] = fmaf(a[l], b[l], c[l]);
    return d;
}
#if defined(__x86_64__) && defined(__GNUC__)
#define rl_vfma_avx2(a, b, c) ((vf_avx2)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define rl_vfma_avx512(a, b, c) ((vf_avx512)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#endif

/* The first n < W lanes of a row's end, the rest 0, and back (a kernel's
 * last n mod W entries through one vector; each lane alone, so the same
 * bits).  Masked loads and stores: a memcpy of n floats was a call that
 * spilled every vector register. */
static inline rl_vf4_ rl_vloadn_4(const float *p, int n)
{
    rl_vf4_ v = { 0 };
    for (int l = 0; l < n; l++)
        v[l] = p[l];
    return v;
}
static inline void rl_vstoren_4(float *p, rl_vf4_ v, int n)
{
    for (int l = 0; l < n; l++)
        p[l] = v[l];
}
#if defined(__x86_64__) && defined(__GNUC__)
RL_TARGET("avx2") static inline __m256i rl_vmask8_(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#define rl_vloadn_avx2(p, n) ((vf_avx2)_mm256_maskload_ps((p), rl_vmask8_(n)))
#define rl_vstoren_avx2(p, v, n) _mm256_maskstore_ps((p), rl_vmask8_(n), (__m256)(v))
#define rl_vloadn_avx512(p, n) ((vf_avx512)_mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1u), (p)))
#define rl_vstoren_avx512(p, v, n) _mm512_mask_storeu_ps((p), (__mmask16)((1u << (n)) - 1u), (__m512)(v))
#endif

#define RL_VEXP(SFX, ATTR, W, FMA)                                                           \
    typedef float vf_##SFX __attribute__((vector_size(4 * (W))));                           \
    typedef int32_t vi_##SFX __attribute__((vector_size(4 * (W))));                         \
    typedef uint32_t vu_##SFX __attribute__((vector_size(4 * (W))));                        \
    ATTR static inline vf_##SFX vexp_##SFX(vf_##SFX x)                                      \
    {                                                                                       \
        const vf_##SFX zero = { 0 };                                                        \
        vi_##SFX lo = zero + RL_EXP_LO > x, hi = zero + RL_EXP_HI < x; /* NaN: neither */   \
        x = (vf_##SFX)(((vi_##SFX)(zero + RL_EXP_LO) & lo) | ((vi_##SFX)x & ~lo));          \
        x = (vf_##SFX)(((vi_##SFX)(zero + RL_EXP_HI) & hi) | ((vi_##SFX)x & ~hi));          \
        const vf_##SFX t = FMA(x, zero + RL_EXP_LOG2E, zero + RL_EXP_SHIFT);                \
        const vf_##SFX mfn = RL_EXP_SHIFT - t; /* -n */                                     \
        vf_##SFX r = FMA(mfn, zero + RL_EXP_LN2_HI, x);                                     \
        r = FMA(mfn, zero + RL_EXP_LN2_LO, r);                                              \
        vf_##SFX p = FMA(zero + RL_EXP_C5, r, zero + RL_EXP_C4);                            \
        p = FMA(p, r, zero + RL_EXP_C3);                                                    \
        p = FMA(p, r, zero + RL_EXP_C2);                                                    \
        p = FMA(p, r, zero + RL_EXP_C1);                                                    \
        p = FMA(p, r, zero + 1.0f);                                                         \
        /* t = 1.5 2^23 + n: its bits << 23 are n << 23 (mod 2^32), unsigned */            \
        return p * (vf_##SFX)(((vu_##SFX)t << 23) + 0x3f800000u);                            \
    }

#endif
