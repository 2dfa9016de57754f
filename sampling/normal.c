/* normal.c: the ziggurat for N(0,1) with 128 layers.
 *
 * The density f(x) = exp(-x^2/2) (unnormalised) is covered by 128 layers of
 * equal area v: a base strip (a rectangle up to R plus the tail beyond R) and
 * 127 rectangles [0, x_i] x [f(x_i), f(x_{i+1})], x_127 = R = 3.442619855899,
 * v = 9.91256303526217e-3, with x_{i-1} = sqrt(-2 log(v / x_i + f(x_i))).
 * A draw picks a layer i and a signed 32-bit h uniformly; x = h w_i lies
 * in the layer's core with probability ~0.99 (|h| < k_i) and is returned at
 * once; otherwise the wedge is tested against f, or the tail is sampled by
 * Marsaglia's exponential method. */
#include "normal.h"
#include "rng.h"

#include <math.h>

#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3

void rl_ziggurat_init(rl_ziggurat *z)
{
    const double m = 2147483648.0; /* 2^31 */
    double dn = ZIG_R, tn = dn;
    double q = ZIG_V / exp(-0.5 * dn * dn);
    z->k[0] = (uint32_t)((dn / q) * m);
    z->k[1] = 0;
    z->w[0] = q / m;
    z->w[RL_ZIG_LAYERS - 1] = dn / m;
    z->f[0] = 1.0;
    z->f[RL_ZIG_LAYERS - 1] = exp(-0.5 * dn * dn);
    for (int i = RL_ZIG_LAYERS - 2; i >= 1; i--) {
        dn = sqrt(-2.0 * log(ZIG_V / dn + exp(-0.5 * dn * dn)));
        z->k[i + 1] = (uint32_t)((dn / tn) * m);
        tn = dn;
        z->f[i] = exp(-0.5 * dn * dn);
        z->w[i] = dn / m;
    }
}

/* The slow path: the wedge of layer i, or the tail for i = 0. */
static double zig_slow(const rl_ziggurat *z, gsl_rng *r, int32_t h, int i)
{
    for (;;) {
        double x = h * z->w[i];
        if (i == 0) {
            double y;
            do {
                x = -log(gsl_rng_uniform_pos(r)) / ZIG_R;
                y = -log(gsl_rng_uniform_pos(r));
            } while (y + y < x * x);
            return h > 0 ? ZIG_R + x : -ZIG_R - x;
        }
        if (z->f[i] + gsl_rng_uniform(r) * (z->f[i - 1] - z->f[i]) < exp(-0.5 * x * x))
            return x;
        uint64_t u = rl_rng_next64(r);
        h = (int32_t)(u >> 32);
        i = (int)(u & (RL_ZIG_LAYERS - 1));
        if ((uint32_t)abs(h) < z->k[i])
            return h * z->w[i];
    }
}

void rl_ziggurat_fill(const rl_ziggurat *z, gsl_rng *r, double *out, long n)
{
    for (long t = 0; t < n; t++) {
        /* one 64-bit draw: layer from the low 7 bits, h from the high 32,
         * so the layer and the abscissa are independent */
        uint64_t u = rl_rng_next64(r);
        int32_t h = (int32_t)(u >> 32);
        int i = (int)(u & (RL_ZIG_LAYERS - 1));
        out[t] = (uint32_t)abs(h) < z->k[i] ? h * z->w[i] : zig_slow(z, r, h, i);
    }
}
