/* fastmath.h: exp, tanh and GELU over arrays, at the CPU's widest vectors.
 *
 * glibc's scalar expf/tanhf (tanhf through expm1f) took a third of a
 * training step; GCC at -O2 does not vectorize a clamped exp (float
 * comparisons under -ftrapping-math), so the array versions are written
 * with GCC's vector extensions (vexp.h, fastmath.c).  tanh u = 1 - 2/(e^(2u)
 * + 1), absolute error ~1e-7.
 *
 * The exp (rl_expf here, vexp_* in vexp.h: the same operations, so the same
 * bits at every width).  x is clamped to [RL_EXP_LO, RL_EXP_HI] (e^-87.3 ~
 * 1.2e-38 stands for 0; from 127.5 ln 2 = 88.376 on n = 128 and the result
 * is +inf), then
 *   e^x = 2^n e^r,   n = rint(x L),   L = fl(log2 e),
 * n read from the low bits of t = fma(x, L, 1.5 2^23) (|x L| < 2^22, so t
 * is 1.5 2^23 + n exactly and 2^n is t's bits shifted into the exponent);
 *   r = x - n ln 2,  Cody-Waite in two FMAs:  r1 = fma(-n, LN2_HI, x),
 *   r^ = fma(-n, LN2_LO, r1),  LN2_HI = fl(ln 2), LN2_LO = fl(ln 2 - LN2_HI).
 * r1 is exact: for |x| >= 1/2, x and n LN2_HI are multiples of 2^-24 and
 * |r1| < 1/2; below, n = 0 (r1 = x) or n = +-1 with |x| >= 1/4, multiples of
 * 2^-25: r1 fits in 24 bits either way.  r^ rounds once,
 *   |r^ - r| <= u |r| + |n| |ln 2 - LN2_HI - LN2_LO| <= u |r| + 1.2e-14,
 * u = 2^-24, and |r| <= A = ln2/2 + 88.7 |1 - L ln 2| + 2^-26 = 0.3465748.
 *   e^r ~ p(r) = 1 + c1 r + c2 r^2 + c3 r^3 + c4 r^4 + c5 r^5,
 * the minimax of the relative error p(r) e^-r - 1 on |r| <= A with p(0) = 1
 * (Remez on the weighted error |r| e^-r |q(r) - (e^r - 1)/r|, q = (p - 1)/r
 * of degree 4; tools/scripts/fastexp_remez.py), coefficients rounded to float:
 *   (1) |p(r) e^-r - 1| <= 1.60 u.
 * Horner in FMAs, P_5 = c5, P_k = fma(P_(k+1), r, c_k), c_0 = 1: one rounding
 * each, so to first order
 *   (2) |p^/p(r) - 1| <= u sum_(k=0..4) |P_k(r)| |r|^k / P_0(r),
 * and (3) r^'s rounding moves e^r by u |r|: (2) + (3) <= 1.85 u.  2^n p^ is
 * exact: the result is normal (n >= -126 after the clamp, and n = -126 only
 * with r > 0).  So, (1) + (2) + (3) at each r, maximised over |r| <= A (the
 * script; the second-order terms are below 1e-13):
 *   |rl_expf(x) / e^x - 1| <= 3.32 u = 1.98e-7   (RL_EXPF_MAX_RELERR)
 * for every float x in [-87.3, 88.376), the softmax's [RL_SOFTMAX_FLUSH, 0]
 * included (every float there, measured: 2.76 u at most; test
 * model_kernels/exp_error_bound).  e^0 is exactly 1 (n = 0, r = 0, p =
 * fma(P_1, 0, 1) = 1): the online softmax's rescale e^(m - m) must be 1
 * (attention.h, pruning).
 * Why this exp: 16 vector instructions (AVX-512, the clamps included) where
 * the Cephes form before it, without FMA, took 31 (its degree-7 polynomial
 * gave 1.38 u over [flush, 0]); the exp was a quarter of the
 * streaming attention at hd 32 (docs/speed/reproduction-and-pruning.md#cheaper-exp).  The FMAs are
 * exact roundings of a b + c, so the SSE2 reference computes them with libm's
 * fmaf and gives the AVX2 and AVX-512 versions' bits. */
#ifndef RL_MODEL_FASTMATH_H
#define RL_MODEL_FASTMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define RL_EXP_LO (-87.3f)
#define RL_EXP_HI 88.7f
#define RL_EXP_LOG2E 0x1.715476p+0f   /* fl(log2 e) */
#define RL_EXP_SHIFT 0x1.8p+23f       /* 1.5 2^23: t's low bits are n */
#define RL_EXP_LN2_HI 0x1.62e43p-1f   /* fl(ln 2) */
#define RL_EXP_LN2_LO -0x1.05c61p-29f /* fl(ln 2 - LN2_HI) */
#define RL_EXP_C1 0x1.fffff6p-1f
#define RL_EXP_C2 0x1.fffdc6p-2f
#define RL_EXP_C3 0x1.555a6ap-3f
#define RL_EXP_C4 0x1.573a54p-5f
#define RL_EXP_C5 0x1.0fa832p-7f
/* The bound derived above, on |rl_expf(x) / e^x - 1| for x in [-87.3, 88.376). */
#define RL_EXPF_MAX_RELERR 1.98e-7

static inline float rl_expf(float x)
{
    x = RL_EXP_LO > x ? RL_EXP_LO : x; /* a NaN passes both clamps */
    x = RL_EXP_HI < x ? RL_EXP_HI : x;
    const float t = fmaf(x, RL_EXP_LOG2E, RL_EXP_SHIFT), mfn = RL_EXP_SHIFT - t; /* -n, exact */
    float r = fmaf(mfn, RL_EXP_LN2_HI, x);
    r = fmaf(mfn, RL_EXP_LN2_LO, r);
    float p = fmaf(RL_EXP_C5, r, RL_EXP_C4);
    p = fmaf(p, r, RL_EXP_C3);
    p = fmaf(p, r, RL_EXP_C2);
    p = fmaf(p, r, RL_EXP_C1);
    p = fmaf(p, r, 1.0f);
    uint32_t bits; /* t = 1.5 2^23 + n: its bits << 23 are n << 23 (mod 2^32) */
    memcpy(&bits, &t, sizeof bits);
    bits = (bits << 23) + 0x3f800000u; /* (n + 127) << 23, n + 127 in [1, 255] */
    float s;
    memcpy(&s, &bits, sizeof s);
    return p * s; /* NaN: p is NaN, whatever s is */
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

/* The vector levels a kernel's run-time versions are written for, widest
 * first (softmax_row, attn_pv, attn_qk index their tables by them). */
enum { RL_SIMD_AVX512, RL_SIMD_AVX2, RL_SIMD_LEVELS };
/* The levels this CPU runs, widest first, into lv (room for RL_SIMD_LEVELS)
 * with their names ("avx512", "avx2"); returns how many (0 off x86-64 or
 * without AVX2 and FMA).  A pure function of the CPU. */
int rl_simd_levels(int *lv, const char **names);

#endif
