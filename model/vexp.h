/* vexp.h: e^x on W float lanes, the one vector form of rl_expf (fastmath.h).
 *
 * RL_VEXP(SFX, ATTR, W) defines the lane types vf_SFX, vi_SFX, vu_SFX and
 * vexp_SFX(x), with the function attribute ATTR (RL_TARGET("avx2"), or
 * nothing for the build's own width).
 * Each lane goes through rl_expf's operations in its order (ISO C mode does
 * not contract to FMA): x clamped to [-87.3, 88.7], n = round(x log2 e)
 * by the 1.5 * 2^23 trick, r = x - n ln2 with ln2 in a high and a low part,
 * Cephes's degree-6 polynomial, 2^n built in the exponent bits; a NaN lane
 * takes n = 0 and keeps its NaN through r.  So every width gives every
 * entry the scalar's bits, and the kernels that use it (fastmath.c's GELU
 * and exp-sum, softmax_row.c's row step) differ between widths only where
 * they add, which each of them fixes. */
#ifndef RL_MODEL_VEXP_H
#define RL_MODEL_VEXP_H

#include <stdint.h>

#define RL_TARGET(t) __attribute__((target(t)))

#define RL_VEXP(SFX, ATTR, W)                                                                \
    typedef float vf_##SFX __attribute__((vector_size(4 * (W))));                           \
    typedef int32_t vi_##SFX __attribute__((vector_size(4 * (W))));                         \
    typedef uint32_t vu_##SFX __attribute__((vector_size(4 * (W))));                        \
    ATTR static inline vf_##SFX vexp_##SFX(vf_##SFX x)                                      \
    {                                                                                       \
        const vf_##SFX zero = { 0 };                                                        \
        vi_##SFX lo = x < -87.3f, hi = x > 88.7f;                                           \
        x = (vf_##SFX)(((vi_##SFX)(zero - 87.3f) & lo) | ((vi_##SFX)x & ~lo));              \
        x = (vf_##SFX)(((vi_##SFX)(zero + 88.7f) & hi) | ((vi_##SFX)x & ~hi));              \
        vf_##SFX t = x * 1.44269504088896341f;                                              \
        vf_##SFX fn = (t + 12582912.0f) - 12582912.0f;                                      \
        fn = (vf_##SFX)((vi_##SFX)fn & (fn == fn)); /* a NaN lane: 2^0, r keeps the NaN */  \
        vi_##SFX nn = __builtin_convertvector(fn, vi_##SFX);                                \
        vf_##SFX r = x - fn * 0.693359375f + fn * 2.12194440e-4f;                           \
        vf_##SFX p = r * 1.9875691500e-4f + 1.3981999507e-3f;                               \
        p = p * r + 8.3334519073e-3f;                                                       \
        p = p * r + 4.1665795894e-2f;                                                       \
        p = p * r + 1.6666665459e-1f;                                                       \
        p = p * r + 5.0000001201e-1f;                                                       \
        p = p * r * r + r + 1.0f;                                                           \
        return p * (vf_##SFX)((vu_##SFX)(nn + 127) << 23); /* unsigned: no shift of a negative */ \
    }

#endif
