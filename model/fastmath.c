/* fastmath.c: vector exp, GELU and its gradient (see fastmath.h). */
#include "fastmath.h"

typedef float v4sf __attribute__((vector_size(16)));
typedef int32_t v4si __attribute__((vector_size(16)));
typedef uint32_t v4su __attribute__((vector_size(16)));

static inline v4sf vsel(v4si mask, v4sf a, v4sf b) /* mask ? a : b */
{
    return (v4sf)(((v4si)a & mask) | ((v4si)b & ~mask));
}

static inline v4sf vload(const float *p)
{
    v4sf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void vstore(float *p, v4sf v)
{
    memcpy(p, &v, sizeof v);
}

/* The same operations as rl_expf, four lanes at a time. */
static inline v4sf vexp(v4sf x)
{
    const v4sf lo = { -87.3f, -87.3f, -87.3f, -87.3f }, hi = { 88.7f, 88.7f, 88.7f, 88.7f };
    x = vsel(x < lo, lo, x);
    x = vsel(x > hi, hi, x);
    v4sf t = x * 1.44269504088896341f;
    v4sf fn = (t + 12582912.0f) - 12582912.0f;
    fn = vsel(fn == fn, fn, (v4sf){ 0, 0, 0, 0 }); /* a NaN lane: 2^0, r keeps the NaN */
    v4si n = __builtin_convertvector(fn, v4si);
    v4sf r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
    v4sf p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    return p * (v4sf)((v4su)(n + 127) << 23); /* unsigned: no shift of a negative */
}

static float exp_shift_sum_sse2(float *x, long n, float shift, float flush)
{
    v4sf acc = { 0, 0, 0, 0 };
    long i = 0;
    for (; i + 4 <= n; i += 4) {
        const v4sf d = vload(x + i) - shift;
        const v4sf e = vsel(d < flush, (v4sf){ 0, 0, 0, 0 }, vexp(d));
        vstore(x + i, e);
        acc += e;
    }
    float s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (; i < n; i++) {
        const float d = x[i] - shift;
        x[i] = d < flush ? 0.0f : rl_expf(d);
        s += x[i];
    }
    return s;
}

#define GELU_K 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

static inline float gelu1(float x, float *t_out)
{
    float t = 1.0f - 2.0f / (rl_expf(2.0f * GELU_K * (x + GELU_A * x * x * x)) + 1.0f);
    *t_out = t;
    return 0.5f * x * (1.0f + t);
}

static inline v4sf vtanh_gelu(v4sf x) /* tanh(k (x + a x^3)) */
{
    return 1.0f - 2.0f / (vexp(2.0f * GELU_K * (x + GELU_A * x * x * x)) + 1.0f);
}

static void gelu_sse2(float *y, const float *x, long n)
{
    long i = 0;
    for (; i + 4 <= n; i += 4) {
        v4sf v = vload(x + i);
        vstore(y + i, 0.5f * v * (1.0f + vtanh_gelu(v)));
    }
    for (float t; i < n; i++)
        y[i] = gelu1(x[i], &t);
}

/* d/dx 0.5 x (1 + tanh u), u = k (x + a x^3):
 *   0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3 a x^2). */
static void gelu_grad_sse2(float *dx, const float *x, const float *dy, long n)
{
    long i = 0;
    for (; i + 4 <= n; i += 4) {
        v4sf v = vload(x + i), t = vtanh_gelu(v);
        v4sf g = 0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * GELU_K * (1.0f + 3.0f * GELU_A * v * v);
        vstore(dx + i, vload(dy + i) * g);
    }
    for (float t; i < n; i++) {
        gelu1(x[i], &t);
        float g = 0.5f * (1.0f + t) + 0.5f * x[i] * (1.0f - t * t) * GELU_K * (1.0f + 3.0f * GELU_A * x[i] * x[i]);
        dx[i] = dy[i] * g;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same three kernels at W lanes in a function compiled for TGT (why:
 * the SSE2 width left GELU a tenth of a small model's training step, NOTES.md
 * §16.5).  Every element goes through the same operations as above (no FMA:
 * ISO C mode does not contract), so each entry is the SSE2 version's bit for
 * bit, and the exp's sum keeps the SSE2 order: four partial sums fed four
 * lanes at a time, the W lanes of a step a quarter after another, then the
 * body's last four-blocks and the scalar tail as before. */
#define RL_FASTMATH_WIDE(SFX, TGT, W)                                                        \
    typedef float vf_##SFX __attribute__((vector_size(4 * (W))));                           \
    typedef int32_t vi_##SFX __attribute__((vector_size(4 * (W))));                         \
    typedef uint32_t vu_##SFX __attribute__((vector_size(4 * (W))));                        \
    __attribute__((target(TGT))) static inline vf_##SFX vexp_##SFX(vf_##SFX x)              \
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
        return p * (vf_##SFX)((vu_##SFX)(nn + 127) << 23);                                  \
    }                                                                                       \
    __attribute__((target(TGT))) static inline vf_##SFX vtanh_##SFX(vf_##SFX x)             \
    {                                                                                       \
        return 1.0f - 2.0f / (vexp_##SFX(2.0f * GELU_K * (x + GELU_A * x * x * x)) + 1.0f); \
    }                                                                                       \
    __attribute__((target(TGT))) static void gelu_##SFX(float *y, const float *x, long n)   \
    {                                                                                       \
        long i = 0;                                                                         \
        vf_##SFX v;                                                                         \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&v, x + i, sizeof v);                                                    \
            v = 0.5f * v * (1.0f + vtanh_##SFX(v));                                         \
            memcpy(y + i, &v, sizeof v);                                                    \
        }                                                                                   \
        gelu_sse2(y + i, x + i, n - i);                                                     \
    }                                                                                       \
    __attribute__((target(TGT))) static void gelu_grad_##SFX(float *dx, const float *x,     \
                                                             const float *dy, long n)       \
    {                                                                                       \
        long i = 0;                                                                         \
        vf_##SFX v, d;                                                                      \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&v, x + i, sizeof v);                                                    \
            memcpy(&d, dy + i, sizeof d);                                                   \
            const vf_##SFX t = vtanh_##SFX(v);                                              \
            const vf_##SFX g = 0.5f * (1.0f + t) +                                          \
                               0.5f * v * (1.0f - t * t) * GELU_K * (1.0f + 3.0f * GELU_A * v * v); \
            d = d * g;                                                                      \
            memcpy(dx + i, &d, sizeof d);                                                   \
        }                                                                                   \
        gelu_grad_sse2(dx + i, x + i, dy + i, n - i);                                       \
    }                                                                                       \
    __attribute__((target(TGT))) static float exp_shift_sum_##SFX(float *x, long n,         \
                                                                  float shift, float flush) \
    {                                                                                       \
        v4sf acc = { 0, 0, 0, 0 }, q;                                                       \
        vf_##SFX d, e;                                                                      \
        long i = 0;                                                                         \
        for (; i + (W) <= n; i += (W)) {                                                    \
            memcpy(&d, x + i, sizeof d);                                                    \
            d = d - shift;                                                                  \
            e = vexp_##SFX(d);                                                              \
            e = (vf_##SFX)((vi_##SFX)e & ~(d < flush));                                     \
            memcpy(x + i, &e, sizeof e);                                                    \
            for (int h = 0; h < (W); h += 4) { /* four lanes at a time, in order */         \
                memcpy(&q, x + i + h, sizeof q);                                            \
                acc += q;                                                                   \
            }                                                                               \
        }                                                                                   \
        for (; i + 4 <= n; i += 4) {                                                        \
            const v4sf dd = vload(x + i) - shift;                                           \
            const v4sf ee = vsel(dd < flush, (v4sf){ 0, 0, 0, 0 }, vexp(dd));               \
            vstore(x + i, ee);                                                              \
            acc += ee;                                                                      \
        }                                                                                   \
        float s = (acc[0] + acc[1]) + (acc[2] + acc[3]);                                    \
        for (; i < n; i++) {                                                                \
            const float dd = x[i] - shift;                                                  \
            x[i] = dd < flush ? 0.0f : rl_expf(dd);                                         \
            s += x[i];                                                                      \
        }                                                                                   \
        return s;                                                                           \
    }

RL_FASTMATH_WIDE(avx512, "avx512f", 16)
RL_FASTMATH_WIDE(avx2, "avx2", 8)
#define RL_HAS(f) __builtin_cpu_supports(f)
#else
#define RL_HAS(f) 0
#endif

/* The widest version the CPU runs (a pure function of the CPU). */
float rl_exp_shift_sum(float *x, long n, float shift, float flush)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (RL_HAS("avx512f"))
        return exp_shift_sum_avx512(x, n, shift, flush);
    if (RL_HAS("avx2"))
        return exp_shift_sum_avx2(x, n, shift, flush);
#endif
    return exp_shift_sum_sse2(x, n, shift, flush);
}

void rl_gelu_array(float *y, const float *x, long n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (RL_HAS("avx512f")) {
        gelu_avx512(y, x, n);
        return;
    }
    if (RL_HAS("avx2")) {
        gelu_avx2(y, x, n);
        return;
    }
#endif
    gelu_sse2(y, x, n);
}

void rl_gelu_grad_array(float *dx, const float *x, const float *dy, long n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (RL_HAS("avx512f")) {
        gelu_grad_avx512(dx, x, dy, n);
        return;
    }
    if (RL_HAS("avx2")) {
        gelu_grad_avx2(dx, x, dy, n);
        return;
    }
#endif
    gelu_grad_sse2(dx, x, dy, n);
}

void rl_fastmath_sse2(rl_fastmath_fns *f)
{
    f->exp_shift_sum = exp_shift_sum_sse2;
    f->gelu = gelu_sse2;
    f->gelu_grad = gelu_grad_sse2;
}
