/* accum_rot.c: angle tables of the accumulated schemes and their backward
 * (equations in accum_rot.h). */
#include "accum_rot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../sampling/rng.h"
#include "layers.h"
#include "position.h"

/* Stream domain of the rotation noise: never shares a stream with the
 * dropout masks, which hash the same key. */
#define DOM_NOISE 0x524f544e4f495345ULL

int rl_acc_active(const rl_gpt_config *c)
{
    return c->pos.rot == RL_ROT_RANDOM || c->pos.rot == RL_ROT_PEMB || c->pos.rot == RL_ROT_LF;
}

int rl_acc_learned(const rl_gpt_config *c)
{
    return c->pos.rot == RL_ROT_PEMB || c->pos.rot == RL_ROT_LF;
}

long rl_acc_width(const rl_gpt_config *c)
{
    const long P = c->width / c->heads / 2;
    if (c->pos.rot == RL_ROT_RANDOM || c->pos.rot == RL_ROT_LF)
        return c->heads * P;
    return c->pos.rot == RL_ROT_PEMB ? P : 0;
}

rl_rotation rl_acc_rotation(const rl_gpt_config *c, const float *cos, const float *sin, long T)
{
    const long w = rl_acc_width(c), P = c->width / c->heads / 2;
    rl_rotation r = { cos, sin, T * w, w, c->pos.rot == RL_ROT_PEMB ? 0 : P };
    return r;
}

/* omega_p = 10000^(-2p/hd), as RoPE's table computes it. */
static void omegas(double *om, int hd)
{
    for (int p = 0; p < hd / 2; p++)
        om[p] = pow(10000.0, -2.0 * p / hd);
}

/* A uniform draw in the open interval (-1, 1) from 53 random bits. */
static inline double uniform_pm1(gsl_rng *r)
{
    return ((double)(rl_rng_next64(r) >> 11) + 0.5) * 0x1p-52 - 1.0;
}

static inline void put_angle(float *cos_out, float *sin_out, long i, double a)
{
    double s, c;
    sincos(a, &s, &c);
    cos_out[i] = (float)c;
    sin_out[i] = (float)s;
}

/* random (f == NULL): theta = U omega_p; lf: theta = U |f|.  Lane (b, h) of
 * layer l draws U from its own stream, t = 1..T-1 and p in order, so the
 * numbers depend on neither the thread count nor B (window b of a batch and
 * a lone window with the same key and b = 0 agree).  f may be cos itself
 * (evaluation): entry i is read before it is written.  u (or NULL) keeps U. */
static void accumulate_noise(const rl_gpt_config *c, int l, float *cos_out, float *sin_out,
                             const float *f, float *u, int B, long T, uint64_t key)
{
    const int H = c->heads, hd = c->width / c->heads, P = hd / 2;
    const long w = (long)H * P;
    double om[P > 0 ? P : 1];
    omegas(om, hd);
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
        double *a = rl_xmalloc(sizeof(double) * P);
#pragma omp for schedule(static)
        for (long bh = 0; bh < (long)B * H; bh++) {
            const long b = bh / H, h = bh % H, row0 = b * T * w + h * P;
            rl_rng_stream(r, key ^ DOM_NOISE, rl_stream_key(rl_stream_key((uint64_t)l, (uint64_t)b),
                                                            (uint64_t)h));
            for (int p = 0; p < P; p++) {
                a[p] = 0;
                cos_out[row0 + p] = 1.0f;
                sin_out[row0 + p] = 0.0f;
                if (u)
                    u[row0 + p] = 0.0f;
            }
            for (long t = 1; t < T; t++) {
                const long off = row0 + t * w;
                for (int p = 0; p < P; p++) {
                    const double U = uniform_pm1(r);
                    const double th = f ? U * fabs((double)f[off + p]) : U * om[p];
                    if (u)
                        u[off + p] = (float)U;
                    a[p] = rl_angle_add(a[p], th);
                    put_angle(cos_out, sin_out, off + p, a[p]);
                }
            }
        }
        free(a);
        gsl_rng_free(r);
    }
}

/* pemb: theta(b, t, p) = pi tanh(E[x_t, p]) + omega_p, summed in double
 * (with E = 0 exactly t omega_p, RoPE's angle, up to the rounding of the sum). */
static void accumulate_pemb(const rl_gpt_config *c, const float *E, float *cos_out,
                            float *sin_out, const uint16_t *tok, long ld, int B, long T)
{
    const int hd = c->width / c->heads, P = hd / 2;
    double om[P > 0 ? P : 1];
    omegas(om, hd);
#pragma omp parallel for schedule(static)
    for (long bp = 0; bp < (long)B * P; bp++) {
        const long b = bp / P, p = bp % P;
        double a = 0;
        cos_out[b * T * P + p] = 1.0f;
        sin_out[b * T * P + p] = 0.0f;
        for (long t = 1; t < T; t++) {
            const double th = M_PI * tanh((double)E[(long)tok[b * ld + t] * P + p]) + om[p];
            a = rl_angle_add(a, th);
            put_angle(cos_out, sin_out, (b * T + t) * P + p, a);
        }
    }
}

/* lf's MLP on n rows of LN1 output: h = ln W1^T + b1, hg = GELU(h) (hg may
 * be h), z = hg W2^T + b2, y = LN(z) (mean, rstd kept unless NULL). */
static void lf_mlp_forward(const rl_gpt *m, const float *ln, long n, float *h, float *hg,
                           float *z, float *y, float *mean, float *rstd)
{
    const int C = m->cfg.width, HP = C / 2;
    float *const *w = m->p.lf;
    rl_matmul_forward(h, ln, w[RL_LF_FCW], w[RL_LF_FCB], n, C, C);
    rl_gelu_forward(hg, h, n * C);
    rl_matmul_forward(z, hg, w[RL_LF_PROJW], w[RL_LF_PROJB], n, C, HP);
    rl_layernorm_forward(y, mean, rstd, z, w[RL_LF_LNW], w[RL_LF_LNB], n, HP);
}

rl_rotation rl_acc_forward(const rl_gpt *m, int l, const struct rl_rot_acts *ra,
                           const float *ln, const uint16_t *tok, long ld, int B, int T,
                           uint64_t key)
{
    const rl_gpt_config *c = &m->cfg;
    switch (c->pos.rot) {
    case RL_ROT_RANDOM:
        accumulate_noise(c, l, ra->cos, ra->sin, NULL, NULL, B, T, key);
        break;
    case RL_ROT_PEMB:
        accumulate_pemb(c, m->p.pemb[l], ra->cos, ra->sin, tok, ld, B, T);
        break;
    case RL_ROT_LF:
        lf_mlp_forward(m, ln, (long)B * T, ra->h, ra->hg, ra->z, ra->y, ra->mean, ra->rstd);
        accumulate_noise(c, l, ra->cos, ra->sin, ra->y, ra->u, B, T, key);
        break;
    default:
        rl_die("model: %s accumulates no angles", rl_pos_name(c->pos));
    }
    return rl_acc_rotation(c, ra->cos, ra->sin, T);
}

rl_rotation rl_acc_forward_window(const rl_gpt *m, int l, float *cos_out, float *sin_out,
                                  const float *ln, const uint16_t *tok, long L, uint64_t key,
                                  float *h, float *z, long chunk)
{
    const rl_gpt_config *c = &m->cfg;
    const int C = c->width, HP = C / 2;
    if (c->pos.rot != RL_ROT_LF) {
        struct rl_rot_acts ra = { .cos = cos_out, .sin = sin_out };
        return rl_acc_forward(m, l, &ra, ln, tok, L, 1, (int)L, key);
    }
    /* y = LN(MLP(ln)) row chunk by row chunk into cos, then the angles in place */
    for (long r0 = 0; r0 < L; r0 += chunk) {
        const long n = L - r0 < chunk ? L - r0 : chunk;
        lf_mlp_forward(m, ln + r0 * C, n, h, h, z, cos_out + r0 * HP, NULL, NULL);
    }
    accumulate_noise(c, l, cos_out, sin_out, cos_out, NULL, 1, L, key);
    return rl_acc_rotation(c, cos_out, sin_out, L);
}

void rl_acc_grad_out(float *dang, const rl_rotation *tab, const float *y, const float *dy,
                     int B, int T, int H, int hd)
{
    /* y = R(-A) x: dL/dA = -(y1 dy2 - y2 dy1) = dy1 y2 - dy2 y1, the rotation's
     * angle gradient with y and dy exchanged */
    rl_rotate_angle_grad(dang, tab->sb, tab->st, tab->sh, dy, y, (long)H * hd, B, T, H, hd, 0);
}

void rl_acc_grad_qkv(float *dang, const rl_rotation *tab, const float *qkv, const float *dqkv,
                     int B, int T, int H, int hd, int values)
{
    const long C = (long)H * hd;
    for (int k = 0; k < (values ? 3 : 2); k++)
        rl_rotate_angle_grad(dang, tab->sb, tab->st, tab->sh, qkv + k * C, dqkv + k * C, 3 * C,
                             B, T, H, hd, 0);
}

/* dL/dtheta_s = sum_{t >= s} dL/dA_t for s >= 1, in place, summed in double
 * from the end of each window; position 0 has no step (0). */
static void reverse_running_sum(float *d, int B, long T, long w)
{
#pragma omp parallel for schedule(static)
    for (long bj = 0; bj < (long)B * w; bj++) {
        const long b = bj / w, j = bj % w;
        double acc = 0;
        for (long t = T - 1; t >= 1; t--) {
            float *x = d + (b * T + t) * w + j;
            acc += *x;
            *x = (float)acc;
        }
        d[b * T * w + j] = 0.0f;
    }
}

void rl_acc_backward(rl_gpt *m, int l, const struct rl_rot_acts *ra, const float *ln,
                     float *dang, float *dln, float *scratch)
{
    const rl_gpt_config *c = &m->cfg;
    const int B = m->fB, T = m->fT, C = c->width, HP = C / 2, P = m->hd / 2;
    const long N = (long)B * T, w = rl_acc_width(c);
    reverse_running_sum(dang, B, T, w);
    if (c->pos.rot == RL_ROT_PEMB) {
        /* theta = pi tanh(e) + omega: dtheta/de = pi (1 - tanh^2 e) */
        const float *E = m->p.pemb[l];
#pragma omp parallel for schedule(static)
        for (long row = 0; row < N; row++) {
            const float *e = E + (long)m->tok[(row / T) * m->ldtok + row % T] * P;
            for (int p = 0; p < P; p++) {
                const float th = tanhf(e[p]);
                dang[row * P + p] *= (float)M_PI * (1.0f - th * th);
            }
        }
        rl_embed_backward(m->g.pemb[l], dang, m->tok, m->ldtok, B, T, P);
        return;
    }
    /* lf: theta = U |y|: dy = U sign(y) dtheta; then the LayerNorm, the MLP */
    float *const *pw = m->p.lf, *const *gw = m->g.lf;
    float *dz = scratch, *dh = dz + N * HP, *dx = dh + N * C;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N * HP; i++)
        dang[i] *= ra->u[i] * (float)((ra->y[i] > 0) - (ra->y[i] < 0));
    memset(dz, 0, sizeof(float) * N * HP);
    rl_layernorm_backward(dz, gw[RL_LF_LNW], gw[RL_LF_LNB], dang, ra->z, pw[RL_LF_LNW], ra->mean,
                          ra->rstd, N, HP);
    rl_matmul_backward(dh, gw[RL_LF_PROJW], gw[RL_LF_PROJB], dz, ra->hg, pw[RL_LF_PROJW], N, C,
                       HP);
    rl_gelu_backward(dh, ra->h, dh, N * C);
    rl_matmul_backward(dx, gw[RL_LF_FCW], gw[RL_LF_FCB], dh, ln, pw[RL_LF_FCW], N, C, C);
    rl_residual_forward(dln, dln, dx, N * C);
}
