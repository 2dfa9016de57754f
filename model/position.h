/* position.h: position schemes as transforms around the one attention kernel.
 *
 * Rotation: each head's vector x (head dim hd) is split into hd/2 planes,
 * pairing x[p] with x[p + hd/2] (half-split), and plane p of the head at
 * (batch b, position t, head h) turns by an angle a = angle(b, t, h, p):
 *     (x1, x2) -> (x1 cos a - x2 sin a,  x1 sin a + x2 cos a).
 * The angles live in an rl_rotation: cos/sin tables addressed by explicit
 * strides, entry (b, t, h, p) at  b*sb + t*st + h*sh + p.  A zero stride
 * broadcasts: RoPE's table depends on t only (sb = sh = 0, st = hd/2); the
 * accumulated per-batch/head angles of later schemes use sb = T*H*P,
 * st = H*P, sh = P with P = hd/2.  The same transform serves q and k, the
 * values (dir +1) and, with dir -1, the inverse rotation of each head's
 * attention output at its query position.  The transform is orthogonal, so
 * its backward is the rotation by the opposite angle: rl_rotate with -dir.
 *
 * ALiBi needs no transform: the kernel adds -m_h (i - j) to the scaled
 * logit of query i and key j, with the slopes below. */
#ifndef RL_MODEL_POSITION_H
#define RL_MODEL_POSITION_H

#include <math.h>

typedef struct {
    const float *cos, *sin;
    long sb, st, sh; /* strides of batch, position, head; pair stride is 1 */
} rl_rotation;

/* Rotate, in place, the heads of rows (b*T + t) of x (row stride ld, head h
 * at columns h*hd .. h*hd+hd-1) by dir * angle, dir = +1 or -1.  Position t of
 * the rows reads the table at t + t0 (so a chunk of a long window can use the
 * window's table). */
void rl_rotate(float *x, long ld, int B, int T, int H, int hd, const rl_rotation *r,
               long t0, int dir);

/* Gradient of the angles of a rotation y = R(a) x: with y = (y1, y2) and
 * dy = (dy1, dy2) in a plane, dL/da = y1 dy2 - y2 dy1 (the derivative of
 * R(a) is R(a) times the quarter turn).  Adds, for every (b, t, h, p), into
 * dang at b*sb + t*st + h*sh + p (+ t0 * st); y is the rotated x (row stride
 * ld), dy its gradient.  For learned or data-dependent angles; a layout
 * that broadcasts (sh = 0: the heads; sb or st = 0: windows or positions)
 * sums the rows that share an entry (serially when they are rows: the same
 * numbers for any thread count). */
void rl_rotate_angle_grad(float *dang, long sb, long st, long sh, const float *y,
                          const float *dy, long ld, int B, int T, int H, int hd, long t0);

/* One step of an accumulated angle: a + step reduced to [-pi, pi].  remainder()
 * is exact in IEEE arithmetic, so the only error per step is the rounding of
 * the sum (half an ulp of a number below 2 pi, 4.4e-16): after 65,536 steps
 * the angle is within 3e-11 of the exact sum mod 2 pi, whereas an unreduced
 * running sum of |steps| ~ 1 rad loses ulp(6.5e4) ~ 1e-11 per step. */
static inline double rl_angle_add(double a, double step)
{
    a += step;
    return a > M_PI || a < -M_PI ? remainder(a, 2 * M_PI) : a;
}

/* cos and sin of n angles given in double, each reduced mod 2 pi first. */
void rl_angles_cos_sin(const double *angle, float *cos, float *sin, long n);

/* RoPE's table for positions t0 .. t0+T-1: angle(t, p) = t * omega_p,
 * omega_p = base^(-2p/hd) (rl_so2_freqs), p < hd/2, products and reduction
 * in double.  cos and sin hold T*hd/2 floats each; the rotation uses st = hd/2. */
void rl_rope_table(float *cos, float *sin, long t0, long T, int hd, double base);
rl_rotation rl_rope_rotation(const float *cos, const float *sin, int hd);

/* ALiBi slopes for H heads (see position.c for the rule when H is not a
 * power of two). */
void rl_alibi_slopes(float *m, int H);

#endif
