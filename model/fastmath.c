/* fastmath.c: vector exp-sum, GELU and its gradient (see fastmath.h), one
 * kernel of W lanes (vexp.h) instantiated at the build's own four lanes
 * (SSE2: the reference) and, on x86-64, at eight (AVX2) and sixteen
 * (AVX-512) picked at run time (why: at four lanes GELU was a tenth of a
 * small model's training step, docs/speed/eval-and-training.md#same-bytes-faster).  Every element
 * goes through the same operations at every width, so each entry is the same bits; the
 * exp's sum keeps the four-lane order at every width: four partial sums fed
 * four lanes at a time (the W lanes of a step a quarter after another),
 * then the last four-blocks, then the rest one by one.  The exp-sum's last
 * n mod W entries go through one padded vector (a training row of 33
 * entries spent more in a scalar or four-lane tail than in its body). */
#include "fastmath.h"

#include "vexp.h"

#define GELU_K 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

/* tanh(k (x + a x^3)) = 1 - 2/(e^(2u) + 1) and GELU's t, one element */
static inline float gelu1(float x, float *t_out)
{
    float t = 1.0f - 2.0f / (rl_expf(2.0f * GELU_K * (x + GELU_A * x * x * x)) + 1.0f);
    *t_out = t;
    return 0.5f * x * (1.0f + t);
}

/* d/dx 0.5 x (1 + tanh u), u = k (x + a x^3):
 *   0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3 a x^2). */
#define GELU_GRAD(x, t) (0.5f * (1.0f + (t)) + 0.5f * (x) * (1.0f - (t) * (t)) * GELU_K * (1.0f + 3.0f * GELU_A * (x) * (x)))

RL_VEXP(4, , 4, rl_vfma_4)

#define RL_FASTMATH(SFX, ATTR, W)                                                            \
    ATTR static void gelu_##SFX(float *y, const float *x, long n)                           \
    {                                                                                       \
        long i = 0;                                                                         \
        vf_##SFX v;                                                                         \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&v, x + i, sizeof v);                                                    \
            const vf_##SFX t = 1.0f - 2.0f / (vexp_##SFX(2.0f * GELU_K * (v + GELU_A * v * v * v)) + 1.0f); \
            v = 0.5f * v * (1.0f + t);                                                      \
            memcpy(y + i, &v, sizeof v);                                                    \
        }                                                                                   \
        for (float t; i < n; i++)                                                           \
            y[i] = gelu1(x[i], &t);                                                         \
    }                                                                                       \
    ATTR static void gelu_grad_##SFX(float *dx, const float *x, const float *dy, long n)     \
    {                                                                                       \
        long i = 0;                                                                         \
        vf_##SFX v, d;                                                                      \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&v, x + i, sizeof v);                                                    \
            memcpy(&d, dy + i, sizeof d);                                                   \
            const vf_##SFX t = 1.0f - 2.0f / (vexp_##SFX(2.0f * GELU_K * (v + GELU_A * v * v * v)) + 1.0f); \
            d = d * GELU_GRAD(v, t);                                                        \
            memcpy(dx + i, &d, sizeof d);                                                   \
        }                                                                                   \
        for (float t; i < n; i++) {                                                         \
            gelu1(x[i], &t);                                                                \
            dx[i] = dy[i] * GELU_GRAD(x[i], t);                                             \
        }                                                                                   \
    }                                                                                       \
    ATTR static float exp_shift_sum_##SFX(float *x, long n, float shift, float flush)       \
    {                                                                                       \
        vf_4 acc = { 0, 0, 0, 0 }, q;                                                       \
        vf_##SFX d, e;                                                                      \
        long i = 0;                                                                         \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&d, x + i, sizeof d);                                                    \
            d = d - shift;                                                                  \
            e = vexp_##SFX(d);                                                              \
            e = (vf_##SFX)((vi_##SFX)e & ~(d < flush)); /* exact 0 below the flush */       \
            memcpy(x + i, &e, sizeof e);                                                    \
            for (int h = 0; h < (W); h += 4) { /* four lanes at a time, in order */         \
                memcpy(&q, x + i + h, sizeof q);                                            \
                acc += q;                                                                   \
            }                                                                               \
        }                                                                                   \
        if (i < n) { /* the n - i < W entries left: one vector, padded (each lane alone) */ \
            d = rl_vloadn_##SFX(x + i, (int)(n - i)) - shift;                               \
            e = vexp_##SFX(d);                                                              \
            e = (vf_##SFX)((vi_##SFX)e & ~(d < flush));                                     \
            rl_vstoren_##SFX(x + i, e, (int)(n - i));                                       \
        }                                                                                   \
        for (; i + 4 <= n; i += 4) { /* their four-blocks, then one by one */               \
            memcpy(&q, x + i, sizeof q);                                                    \
            acc += q;                                                                       \
        }                                                                                   \
        float s = (acc[0] + acc[1]) + (acc[2] + acc[3]);                                    \
        for (; i < n; i++)                                                                  \
            s += x[i];                                                                      \
        return s;                                                                           \
    }

RL_FASTMATH(4, , 4)

#if defined(__x86_64__) && defined(__GNUC__)
RL_VEXP(avx2, RL_TARGET("avx2,fma"), 8, rl_vfma_avx2)
RL_FASTMATH(avx2, RL_TARGET("avx2,fma"), 8)
RL_VEXP(avx512, RL_TARGET("avx512f,fma"), 16, rl_vfma_avx512)
RL_FASTMATH(avx512, RL_TARGET("avx512f,fma"), 16)
/* AVX2 with FMA (every AVX2 CPU of Intel and AMD has it; one without runs
 * the reference) */
#define RL_WIDEST(fn, ...)                                                                  \
    (__builtin_cpu_supports("avx512f")                                  ? fn##_avx512(__VA_ARGS__) \
     : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? fn##_avx2(__VA_ARGS__)   \
                                                                       : fn##_4(__VA_ARGS__))
#else
#define RL_WIDEST(fn, ...) fn##_4(__VA_ARGS__)
#endif

/* The widest version the CPU runs (a pure function of the CPU). */
float rl_exp_shift_sum(float *x, long n, float shift, float flush)
{
    return RL_WIDEST(exp_shift_sum, x, n, shift, flush);
}

void rl_gelu_array(float *y, const float *x, long n)
{
    RL_WIDEST(gelu, y, x, n);
}

void rl_gelu_grad_array(float *dx, const float *x, const float *dy, long n)
{
    RL_WIDEST(gelu_grad, dx, x, dy, n);
}

void rl_fastmath_sse2(rl_fastmath_fns *f)
{
    f->exp_shift_sum = exp_shift_sum_4;
    f->gelu = gelu_4;
    f->gelu_grad = gelu_grad_4;
}

int rl_simd_levels(int *lv, const char **names)
{
    int n = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f")) {
        lv[n] = RL_SIMD_AVX512;
        names[n++] = "avx512";
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        lv[n] = RL_SIMD_AVX2;
        names[n++] = "avx2";
    }
#else
    (void)lv;
    (void)names;
#endif
    return n;
}
