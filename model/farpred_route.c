/* farpred_route.c: one simulated row of a long window (farpred_route.h,
 * docs/theory/farpred.md#route-form). */
#include "farpred_route.h"

#include <math.h>

#include "../sampling/rng.h"
#include "attention.h"

/* cos and sin of x in [-pi, pi]: sin(pi - y) = sin y, cos(pi - y) = -cos y
 * bring x to y in [-pi/2, pi/2], then the Taylor series to y^15 (sin) and
 * y^16 (cos), whose remainders are below (pi/2)^17/17! = 6e-12 and
 * (pi/2)^18/18! = 5e-13: the route needs float accuracy (the model's own
 * tables are float), without a libm call per block and key. */
static inline void sincos_pi(double x, double *s, double *c)
{
    double y = x, sg = 1;
    if (y > M_PI_2) {
        y = M_PI - y;
        sg = -1;
    } else if (y < -M_PI_2) {
        y = -M_PI - y;
        sg = -1;
    }
    const double y2 = y * y;
    double ps = -1.0 / 1307674368000.0; /* -1/15! */
    ps = 1.0 / 6227020800.0 + y2 * ps;
    ps = -1.0 / 39916800.0 + y2 * ps;
    ps = 1.0 / 362880.0 + y2 * ps;
    ps = -1.0 / 5040.0 + y2 * ps;
    ps = 1.0 / 120.0 + y2 * ps;
    ps = -1.0 / 6.0 + y2 * ps;
    double pc = 1.0 / 20922789888000.0; /* 1/16! */
    pc = -1.0 / 87178291200.0 + y2 * pc;
    pc = 1.0 / 479001600.0 + y2 * pc;
    pc = -1.0 / 3628800.0 + y2 * pc;
    pc = 1.0 / 40320.0 + y2 * pc;
    pc = -1.0 / 720.0 + y2 * pc;
    pc = 1.0 / 24.0 + y2 * pc;
    pc = -0.5 + y2 * pc;
    *s = y + y * y2 * ps;
    *c = sg * (1 + y2 * pc);
}

/* An angle back into [-pi, pi] after a step (|step| may exceed 2 pi for lf). */
static inline double wrap(double a)
{
    if (a >= -M_PI && a <= M_PI)
        return a;
    return remainder(a, 2 * M_PI);
}

/* A uniform draw in the open interval (-1, 1) from 53 random bits. */
static inline double draw_pm1(gsl_rng *r)
{
    return ((double)(rl_rng_next64(r) >> 11) + 0.5) * 0x1p-52 - 1.0;
}

static inline long draw_seg(gsl_rng *r, long nseg)
{
    const long g = (long)((double)(rl_rng_next64(r) >> 11) * 0x1p-53 * (double)nseg);
    return g < nseg ? g : nseg - 1;
}

/* (R2) without the bias: key k against q at the angles whose cos and sin
 * are cs, sn (nb blocks), or q.k without rotation. */
static inline double score(const rl_route_head *h, const float *q, const float *k, const double *cs,
                           const double *sn)
{
    const double sc = 1 / sqrt((double)h->hd);
    double s = 0;
    if (!h->nb) {
        for (int t = 0; t < h->hd; t++)
            s += (double)q[t] * k[t];
        return s * sc;
    }
    const int P = h->nb;
    for (int b = 0; b < P; b++) {
        /* q~ conj(k~) = (q1 + i q2)(k1 - i k2), turned by e^{i Theta} */
        const double re = (double)q[b] * k[b] + (double)q[b + P] * k[b + P],
                     im = (double)q[b + P] * k[b] - (double)q[b] * k[b + P];
        s += re * cs[b] - im * sn[b];
    }
    return s * sc;
}

/* The route state: the angles (R1) and their cos, sin; the segment g and
 * position t of the next key. */
typedef struct {
    double *th, *cs, *sn;
    long g, t;
} route;

/* One step of the route (R1) after the key at (g, t): block b turns by its
 * mean direction (nomix), its constant step, or c + w U. */
static inline void step(const rl_route_head *h, route *x, int nomix, gsl_rng *rs, gsl_rng *ru)
{
    for (int b = 0; b < h->nb; b++) {
        double d;
        if (nomix)
            d = h->mean_dir[b];
        else if (!h->cen)
            d = h->c0[b];
        else {
            const long o = (x->g * h->T + x->t) * h->lds + b;
            d = h->cen[o] + (h->hw[o] != 0 ? h->hw[o] * draw_pm1(ru) : 0);
        }
        if (d != 0) {
            x->th[b] = wrap(x->th[b] + d);
            sincos_pi(x->th[b], &x->sn[b], &x->cs[b]);
        }
    }
    if (--x->t == 0) { /* positions T-1 .. 1 of a segment are keys: the next segment */
        x->g = draw_seg(rs, h->nseg);
        x->t = h->T - 1;
    }
}

/* (R2) of the key the route is at, delta d. */
static inline double key_score(const rl_route_head *h, const rl_route_query *q, const route *x, long d)
{
    return score(h, q->q, h->k + (x->g * h->T + x->t) * h->ldk, x->cs, x->sn) - h->slope * (double)d;
}

void rl_route_rows(const rl_route_head *h, const rl_route_query *q, int nomix, gsl_rng *rs, gsl_rng *ru,
                   const long *L, int nl,
                   double *scratch, double *rho, double *ent)
{
    const int P = h->nb;
    const long T = h->T;
    route x = { scratch, scratch + P, scratch + 2 * P, 0, T - 1 };
    for (int b = 0; b < P; b++) {
        x.th[b] = wrap(q->junc[b]);
        sincos_pi(x.th[b], &x.sn[b], &x.cs[b]);
    }
    x.g = draw_seg(rs, h->nseg);
    /* delta = T - 1: a text key at the junction, the last near key */
    double N = q->N, NS = q->NS;
    {
        const double s = key_score(h, q, &x, T - 1), w = exp(s);
        N += w;
        NS += s * w;
        step(h, &x, nomix, rs, ru);
    }
    double F = 0, FS = 0;
    long Lmax = 0;
    for (int k = 0; k < nl; k++) {
        rho[k] = ent[k] = 0;
        Lmax = L[k] > Lmax ? L[k] : Lmax;
    }
    for (long d = T; d < Lmax; d++) {
        /* row i = d of every length that has it: its far keys so far, and its
         * first token at delta = i */
        double w0 = -1, s0 = 0;
        for (int k = 0; k < nl; k++) {
            const long i0 = (L[k] - 1) / RL_ATTN_SQ * RL_ATTN_SQ;
            if (d < i0 || d >= L[k])
                continue;
            if (w0 < 0) {
                s0 = score(h, q->q, q->sink, x.cs, x.sn) - h->slope * (double)d;
                w0 = exp(s0);
            }
            const double Z = N + F + w0;
            rho[k] += (F + w0) / Z / (double)(L[k] - i0);
            ent[k] += (log(Z) - (NS + FS + s0 * w0) / Z) / (double)(L[k] - i0);
        }
        const double s = key_score(h, q, &x, d), w = exp(s);
        F += w;
        FS += s * w;
        step(h, &x, nomix, rs, ru);
    }
}
