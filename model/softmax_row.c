/* softmax_row.c: the online-softmax row step at three vector widths (see
 * softmax_row.h). */
#include "softmax_row.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fastmath.h"
#include "vexp.h"

/* The row's sum in the order every width uses (softmax_row.h):
 *   a_l = sum over k of row[8k + l]  (l = 0..7, k in order, over the 8-blocks),
 *   s = ((a_0 + a_1) + ... + a_7) + row[8K] + ... + row[n - 1]. */
float rl_softmax_row_sum(const float *row, int n)
{
    float acc[RL_SOFTMAX_LANES] = { 0 };
    int q = 0;
    for (; q + RL_SOFTMAX_LANES <= n; q += RL_SOFTMAX_LANES)
        for (int l = 0; l < RL_SOFTMAX_LANES; l++)
            acc[l] += row[q + l];
    float s = 0.0f;
    for (int l = 0; l < RL_SOFTMAX_LANES; l++)
        s += acc[l];
    for (; q < n; q++)
        s += row[q];
    return s;
}

float rl_softmax_row_sse2(float *row, int n, int w, float sl, int i, int j0, float mx0,
                          float *sum, float *corr)
{
    float mx = mx0;
    if (sl != 0.0f) {
#pragma omp simd
        for (int q = 0; q < n; q++)
            row[q] -= sl * (float)(i - j0 - q);
    }
#pragma omp simd reduction(max : mx)
    for (int q = 0; q < n; q++)
        mx = row[q] > mx ? row[q] : mx;
    if (n > 0)
        rl_exp_shift_sum(row, n, mx, RL_SOFTMAX_FLUSH); /* its own sum's order is training's */
    *sum = n > 0 ? rl_softmax_row_sum(row, n) : 0.0f;
    if (w > (n > 0 ? n : 0))
        memset(row + (n > 0 ? n : 0), 0, sizeof(float) * (w - (n > 0 ? n : 0)));
    *corr = mx0 == -INFINITY ? 0.0f : rl_expf(mx0 - mx);
    return mx;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* W lanes in a function compiled for TGT; the exp is vexp.h's (the
 * operations of rl_expf, which computes the rescale here, its fmaf an
 * instruction), with the same flush below RL_SOFTMAX_FLUSH, so every entry
 * is the value the SSE2 version computes. */
#define RL_ROW_WIDE(NAME, SFX, TGT, W)                                                      \
    __attribute__((target(TGT))) static float NAME(float *row, int n, int w, float sl,    \
                                                   int i, int j0, float mx0, float *sum,  \
                                                   float *corr)                           \
    {                                                                                       \
        typedef vf_##SFX vf;                                                                \
        typedef vi_##SFX vi;                                                                \
        const vf zero = { 0 };                                                              \
        int q;                                                                              \
        if (n <= 0) {                                                                       \
            if (w > 0)                                                                      \
                memset(row, 0, sizeof(float) * w);                                          \
            *sum = 0.0f;                                                                    \
            *corr = mx0 == -INFINITY ? 0.0f : 1.0f; /* rl_expf(0) */                        \
            return mx0;                                                                     \
        }                                                                                   \
        if (sl != 0.0f)                                                                     \
            for (q = 0; q < n; q++)                                                         \
                row[q] -= sl * (float)(i - j0 - q);                                         \
        typedef float v8 __attribute__((vector_size(4 * RL_SOFTMAX_LANES)));                \
        vf vm = zero + mx0, x, e;                                                           \
        v8 acc = { 0 }, part;                                                               \
        for (q = 0; q + (W) <= n; q += (W)) {                                               \
            memcpy(&x, row + q, sizeof x);                                                  \
            vi gt = x > vm;                                                                 \
            vm = (vf)(((vi)x & gt) | ((vi)vm & ~gt));                                       \
        }                                                                                   \
        float mx = mx0;                                                                     \
        for (int l = 0; l < (W); l++)                                                       \
            mx = vm[l] > mx ? vm[l] : mx;                                                   \
        for (; q < n; q++)                                                                  \
            mx = row[q] > mx ? row[q] : mx;                                                 \
        for (q = 0; q + (W) <= n; q += (W)) {                                               \
            memcpy(&x, row + q, sizeof x);                                                  \
            x = x - mx;                                                                     \
            vi fl = x < RL_SOFTMAX_FLUSH; /* stored as exact 0 (softmax_row.h) */           \
            e = vexp_##SFX(x);                                                              \
            e = (vf)((vi)e & ~fl);                                                          \
            memcpy(row + q, &e, sizeof e);                                                  \
            for (int h = 0; h < (W); h += RL_SOFTMAX_LANES) { /* 8 lanes at a time, in order */ \
                memcpy(&part, row + q + h, sizeof part);                                    \
                acc += part;                                                                \
            }                                                                               \
        }                                                                                   \
        /* what the wide loop left: its entries in one padded vector (each lane   \
         * alone), its 8-blocks into the lanes */                                       \
        if (q < n) {                                                                        \
            x = rl_vloadn_##SFX(row + q, n - q) - mx;                                       \
            vi fl = x < RL_SOFTMAX_FLUSH;                                                   \
            e = vexp_##SFX(x);                                                              \
            e = (vf)((vi)e & ~fl);                                                          \
            rl_vstoren_##SFX(row + q, e, n - q);                                            \
        }                                                                                   \
        for (; q + RL_SOFTMAX_LANES <= n; q += RL_SOFTMAX_LANES) {                          \
            memcpy(&part, row + q, sizeof part);                                            \
            acc += part;                                                                    \
        }                                                                                   \
        float s = 0.0f;                                                                     \
        for (int l = 0; l < RL_SOFTMAX_LANES; l++)                                          \
            s += acc[l];                                                                    \
        for (; q < n; q++)                                                                  \
            s += row[q];                                                                    \
        if (w > n)                                                                          \
            memset(row + n, 0, sizeof(float) * (w - n));                                   \
        *sum = s;                                                                           \
        *corr = mx0 == -INFINITY ? 0.0f : rl_expf(mx0 - mx);                                \
        return mx;                                                                          \
    }

RL_VEXP(avx512, RL_TARGET("avx512f,fma"), 16, rl_vfma_avx512)
RL_ROW_WIDE(row_avx512, avx512, "avx512f,fma", 16)
RL_VEXP(avx2, RL_TARGET("avx2,fma"), 8, rl_vfma_avx2)
RL_ROW_WIDE(row_avx2, avx2, "avx2,fma", 8)
#endif

int rl_softmax_row_versions(rl_softmax_row_fn *fns, const char **names)
{
    int lv[RL_SIMD_LEVELS];
    const int n = rl_simd_levels(lv, names);
#if defined(__x86_64__) && defined(__GNUC__)
    static const rl_softmax_row_fn by_level[RL_SIMD_LEVELS] = { row_avx512, row_avx2 };
    for (int i = 0; i < n; i++)
        fns[i] = by_level[lv[i]];
#else
    (void)fns;
#endif
    fns[n] = rl_softmax_row_sse2;
    names[n] = "sse2";
    return n + 1;
}

rl_softmax_row_fn rl_softmax_row_pick(void)
{
    rl_softmax_row_fn fns[3];
    const char *names[3];
    rl_softmax_row_versions(fns, names);
    return fns[0];
}
