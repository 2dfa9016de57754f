/* position.c: rotation transform, RoPE tables, ALiBi slopes. */
#include "position.h"

#include <math.h>

#include "../sampling/so2.h"

void rl_rotate(float *x, long ld, int B, int T, int H, int hd, const rl_rotation *r,
               long t0, int dir)
{
    const int P = hd / 2;
    const float sgn = dir < 0 ? -1.0f : 1.0f;
#pragma omp parallel for schedule(static)
    for (long row = 0; row < (long)B * T; row++) {
        long b = row / T, t = row % T + t0;
        for (int h = 0; h < H; h++) {
            float *x1 = x + row * ld + (long)h * hd, *x2 = x1 + P;
            const long off = b * r->sb + t * r->st + h * r->sh;
            const float *c = r->cos + off, *s = r->sin + off;
            for (int p = 0; p < P; p++) {
                float a = x1[p], bb = x2[p], sn = sgn * s[p];
                x1[p] = a * c[p] - bb * sn;
                x2[p] = a * sn + bb * c[p];
            }
        }
    }
}

void rl_rotate_angle_grad(float *dang, long sb, long st, long sh, const float *y,
                          const float *dy, long ld, int B, int T, int H, int hd, long t0)
{
    const int P = hd / 2;
    /* a table broadcast over windows or positions sums rows into one entry:
     * those rows must not run in parallel */
    const int shared = (B > 1 && sb == 0) || (T > 1 && st == 0);
#pragma omp parallel for schedule(static) if (!shared)
    for (long row = 0; row < (long)B * T; row++) {
        long b = row / T, t = row % T + t0;
        for (int h = 0; h < H; h++) {
            const float *y1 = y + row * ld + (long)h * hd, *y2 = y1 + P;
            const float *d1 = dy + row * ld + (long)h * hd, *d2 = d1 + P;
            float *g = dang + b * sb + t * st + h * sh;
            for (int p = 0; p < P; p++)
                g[p] += y1[p] * d2[p] - y2[p] * d1[p];
        }
    }
}

void rl_angles_cos_sin(const double *angle, float *cos_out, float *sin_out, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        /* reduce first: cos/sin of a float of a large angle would lose the
         * phase entirely (t * omega reaches 6.5e4 rad at t = 65,536) */
        double a = fmod(angle[i], 2 * M_PI);
        cos_out[i] = (float)cos(a);
        sin_out[i] = (float)sin(a);
    }
}

void rl_rope_table(float *cos_out, float *sin_out, long t0, long T, int hd, double base)
{
    const int P = hd / 2;
    double om[P > 0 ? P : 1];
    rl_so2_freqs(hd, base, 1.0, om);
#pragma omp parallel for schedule(static)
    for (long t = 0; t < T; t++)
        for (int p = 0; p < P; p++) {
            double a = fmod((double)(t + t0) * om[p], 2 * M_PI);
            cos_out[t * P + p] = (float)cos(a);
            sin_out[t * P + p] = (float)sin(a);
        }
}

rl_rotation rl_rope_rotation(const float *cos, const float *sin, int hd)
{
    rl_rotation r = { cos, sin, 0, hd / 2, 0 };
    return r;
}

/* ALiBi (Press et al. 2022): for H a power of two, m_h = 2^(-8h/H), h = 1..H,
 * a geometric sequence starting at and with ratio 2^(-8/H).  For other H the
 * reference rule takes n = the largest power of two below H, gives the first n
 * heads the n-head slopes 2^(-8h/n), and the remaining H - n heads every other
 * slope of the 2n-head sequence 2^(-8k/(2n)) = 2^(-4k/n) starting at k = 1,
 * i.e. k = 1, 3, 5, ...:  m_{n+j} = 2^(-4(2j-1)/n), j = 1..H-n.  These fall
 * between the first n slopes, so all H slopes stay distinct and in (0, 1).
 * Example H = 12: 2^-1 .. 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5. */
void rl_alibi_slopes(float *m, int H)
{
    int n = 1;
    while (n * 2 <= H)
        n *= 2;
    for (int h = 1; h <= n; h++)
        m[h - 1] = (float)exp2(-8.0 * h / n);
    for (int j = 1; j <= H - n; j++)
        m[n + j - 1] = (float)exp2(-4.0 * (2 * j - 1) / n);
}
