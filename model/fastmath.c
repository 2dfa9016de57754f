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

float rl_exp_shift_sum(float *x, long n, float shift, float flush)
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

void rl_gelu_array(float *y, const float *x, long n)
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
void rl_gelu_grad_array(float *dx, const float *x, const float *dy, long n)
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
