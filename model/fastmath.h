/* fastmath.h: exp, tanh and GELU over arrays, four floats at a time.
 *
 * glibc's scalar expf/tanhf (tanhf through expm1f) took a third of a
 * training step; GCC at -O2 does not vectorize a clamped exp (float
 * comparisons under -ftrapping-math), so the array versions are written
 * with GCC's vector extensions (SSE2 width, no target flags needed).
 * exp: e^x = 2^n e^r, n = round(x log2 e), r = x - n ln 2 with ln 2 split in a
 * high and a low part, e^r by Cephes's degree-6 polynomial on |r| <= ln2/2,
 * 2^n built in the exponent bits; x clamped to [-87.3, 88.7] (e^-87.3 ~
 * 1.2e-38 stands for 0).  A few float ulps; tanh u = 1 - 2/(e^(2u) + 1),
 * absolute error ~1e-7.  The scalar rl_expf gives the same values, and so do
 * the AVX2 and AVX-512 versions picked at run time (fastmath.c). */
#ifndef RL_MODEL_FASTMATH_H
#define RL_MODEL_FASTMATH_H

#include <stdint.h>
#include <string.h>

static inline float rl_expf(float x)
{
    if (x != x) /* NaN: (int) of it would be undefined */
        return x;
    x = x < -87.3f ? -87.3f : x > 88.7f ? 88.7f : x;
    float t = x * 1.44269504088896341f;
    float fn = (t + 12582912.0f) - 12582912.0f; /* round to nearest (1.5 * 2^23) */
    int n = (int)fn;
    float r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    uint32_t bits = (uint32_t)(n + 127) << 23; /* n + 127 in [1, 255] after the clamp */
    float s;
    memcpy(&s, &bits, sizeof s);
    return p * s;
}

/* x[i] = e^(x[i] - shift), i < n, and exact 0 where x[i] - shift < flush
 * (-INFINITY: nowhere; the streaming softmax's RL_SOFTMAX_FLUSH); returns
 * the sum (four lanes over the body, then the tail, in that fixed order). */
float rl_exp_shift_sum(float *x, long n, float shift, float flush);

/* GELU (tanh form) and its derivative times dy (dx may be dy). */
void rl_gelu_array(float *y, const float *x, long n);
void rl_gelu_grad_array(float *dx, const float *x, const float *dy, long n);

/* The three run at the widest vector width the CPU offers (AVX-512, AVX2,
 * else SSE2), each entry the same bits at every width and the sum in the
 * SSE2 version's order.  The SSE2 versions themselves, the reference of the
 * tests: */
typedef struct {
    float (*exp_shift_sum)(float *x, long n, float shift, float flush);
    void (*gelu)(float *y, const float *x, long n);
    void (*gelu_grad)(float *dx, const float *x, const float *dy, long n);
} rl_fastmath_fns;
void rl_fastmath_sse2(rl_fastmath_fns *f);

#endif
