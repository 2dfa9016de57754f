/* test_model_pemb.c: the two learned per-token angle schemes of
 * model/accum_rot.c (docs/model/schemes.md#pemb-author): pemb, the study author's (a table per
 * head, the key's token on the path: A_t = sum_{s<t} theta(x_s)), and
 * pemb-shared, routelab's first reading (one table shared by the heads, the
 * query's token: A_t = sum_{s=1..t} theta(x_s)).  Here: which tokens the
 * relative angle between a query and a key reads, that pemb's heads read
 * their own tables and pemb-shared's one, and that the steps the theory
 * reads (rl_scheme_steps) are the increments of the scheme's own table.
 * What every scheme gets (gradients of the tables, streaming, checkpoint
 * round trip, thread counts) comes from the registry: test_model_schemes.c,
 * test_model_attn.c. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/accum_rot.h"
#include "../model/gpt.h"
#include "../model/scheme_rot.h"
#include "../sampling/so2.h"
#include "helpers.h"
#include "test_model_util.h"

/* 1 layer, width 16, 2 heads: hd 8, P = 4 planes; vocabulary 8; T 12 */
#define W 16
#define H 2
#define P 4
#define V 8
#define T 12

/* The two conventions: the scheme's name, the key's token on the path (k:
 * position t steps by theta(x_{t-k})), a table per head. */
static const struct {
    const char *name;
    int k, per_head;
} FORMS[] = { { "pemb_qk", 1, 1 }, { "pemb-shared_qk", 0, 0 } };
#define NFORMS (int)(sizeof FORMS / sizeof *FORMS)

/* A model of pos whose table is N(0, 1) (seed). */
static rl_gpt *model_of(const char *pos, uint64_t seed)
{
    rl_gpt_config cfg = { 1, W, H, T, V, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    cr_assert(m, "%s refused", pos);
    rl_gpt_init(m, 3);
    tm_randn(m->p.pos[0], rl_pos_param_count(&cfg), seed, 1.0f);
    return m;
}

static void base_tokens(uint16_t *tok)
{
    for (int t = 0; t < T; t++)
        tok[t] = (uint16_t)((t * 5 + 2) % V);
}

/* Layer 0's table for tok (the streaming evaluation's layout), as unit
 * complex numbers z[t][h][p]. */
static void table(rl_gpt *m, const uint16_t *tok, double complex z[T][H][P], long *sh)
{
    rl_scheme_state ss;
    rl_scheme_state_alloc(&ss, &m->sx, 1, T, 1);
    m->sx.s->prepare(ss.st, &m->sx, 0, NULL, tok, T, 1, T, 0, NULL);
    const rl_rotation *r = &((const rl_rot_state *)ss.st)->tab;
    for (int t = 0; t < T; t++)
        for (int h = 0; h < H; h++)
            for (int p = 0; p < P; p++) {
                const long i = t * r->st + h * r->sh + p;
                z[t][h][p] = (double)r->cos[i] + I * (double)r->sin[i];
            }
    if (sh)
        *sh = r->sh;
    rl_scheme_state_free(&ss);
}

/* max over heads and planes of |rel(i, j) of a - rel(i, j) of b| in rad,
 * rel(i, j) = A_i - A_j */
static double rel_change(double complex a[T][H][P], double complex b[T][H][P], int i, int j)
{
    double worst = 0;
    for (int h = 0; h < H; h++)
        for (int p = 0; p < P; p++)
            worst = fmax(worst, fabs(carg(a[i][h][p] * conj(a[j][h][p]) * conj(b[i][h][p] * conj(b[j][h][p])))));
    return worst;
}

/* The relative angle between query i and key j (A_i - A_j, what q_i . k_j
 * sees) changes with the token at s exactly when s is on the scheme's path:
 * s in [j, i - 1] for pemb (the key's token x_j on it, the query's x_i not),
 * s in [j + 1, i] for pemb-shared (the reverse); and it equals the sum of
 * the steps pi tanh(E[x_s, h, p]) + omega_p along that path, to the float
 * rounding of the tables. */
Test(model_pemb, relative_angle_reads_the_key_token)
{
    const int i = 9, j = 4;
    double om[P];
    rl_so2_freqs(2 * P, RL_ROT_BASE_DEFAULT, 1.0, om);
    for (int f = 0; f < NFORMS; f++) {
        rl_gpt *m = model_of(FORMS[f].name, 17);
        const int k = FORMS[f].k, w = FORMS[f].per_head ? H * P : P;
        uint16_t tok[T];
        base_tokens(tok);
        double complex z0[T][H][P], z1[T][H][P];
        table(m, tok, z0, NULL);
        /* the path's sum */
        double worst = 0;
        for (int h = 0; h < H; h++)
            for (int p = 0; p < P; p++) {
                double a = 0;
                for (int s = j + 1 - k; s <= i - k; s++)
                    a += M_PI * tanh((double)m->p.pos[0][tok[s] * w + (FORMS[f].per_head ? h * P : 0) + p]) + om[p];
                worst = fmax(worst, fabs(carg(z0[i][h][p] * conj(z0[j][h][p]) * cexp(-I * a))));
            }
        cr_expect_lt(worst, 1e-6, "%s: A_i - A_j off the path's sum by %g rad", FORMS[f].name, worst);
        for (int s = 0; s < T; s++) {
            uint16_t t2[T];
            memcpy(t2, tok, sizeof t2);
            t2[s] = (uint16_t)((tok[s] + 3) % V);
            table(m, t2, z1, NULL);
            const double d = rel_change(z0, z1, i, j);
            const int on = s >= j + 1 - k && s <= i - k;
            if (on)
                cr_expect_gt(d, 1e-2, "%s: the token at %d (on the path %d..%d) moves A_%d - A_%d by only %g",
                             FORMS[f].name, s, j + 1 - k, i - k, i, j, d);
            else
                cr_expect_lt(d, 1e-6, "%s: the token at %d (off the path %d..%d) moves A_%d - A_%d by %g",
                             FORMS[f].name, s, j + 1 - k, i - k, i, j, d);
        }
        rl_gpt_free(m);
    }
    /* the two named: pemb reads the key's token, pemb-shared the query's */
    for (int f = 0; f < NFORMS; f++) {
        rl_gpt *m = model_of(FORMS[f].name, 17);
        uint16_t tok[T], tq[T], tk[T];
        base_tokens(tok);
        memcpy(tq, tok, sizeof tq);
        memcpy(tk, tok, sizeof tk);
        tq[i] = (uint16_t)((tok[i] + 1) % V);
        tk[j] = (uint16_t)((tok[j] + 1) % V);
        double complex z0[T][H][P], zq[T][H][P], zk[T][H][P];
        table(m, tok, z0, NULL);
        table(m, tq, zq, NULL);
        table(m, tk, zk, NULL);
        const double dq = rel_change(z0, zq, i, j), dk = rel_change(z0, zk, i, j);
        cr_log_info("%s: the query's token moves A_i - A_j by %.2e rad, the key's by %.2e", FORMS[f].name, dq, dk);
        if (FORMS[f].k)
            cr_expect(dq < 1e-6 && dk > 1e-2, "%s: query %g, key %g", FORMS[f].name, dq, dk);
        else
            cr_expect(dq > 1e-2 && dk < 1e-6, "%s: query %g, key %g", FORMS[f].name, dq, dk);
        rl_gpt_free(m);
    }
}

/* pemb's heads read their own tables (L V H hd/2 parameters; head stride
 * hd/2: changing head 1's angles leaves head 0's table bit for bit and moves
 * head 1's), pemb-shared's one table (L V hd/2; head stride 0: every head
 * the same angles). */
Test(model_pemb, heads_have_their_own_tables)
{
    for (int f = 0; f < NFORMS; f++) {
        rl_gpt *m = model_of(FORMS[f].name, 23);
        rl_gpt_config base = m->cfg;
        base.pos = tm_pos("rope");
        const long per_layer = (long)V * (FORMS[f].per_head ? H * P : P);
        cr_expect_eq(rl_gpt_param_count(&m->cfg) - rl_gpt_param_count(&base), per_layer, "%s",
                     FORMS[f].name);
        uint16_t tok[T];
        base_tokens(tok);
        double complex z0[T][H][P], z1[T][H][P];
        long sh;
        table(m, tok, z0, &sh);
        cr_expect_eq(sh, FORMS[f].per_head ? P : 0, "%s: head stride %ld", FORMS[f].name, sh);
        double d01 = 0;
        for (int t = 1; t < T; t++)
            for (int p = 0; p < P; p++)
                d01 = fmax(d01, fabs(carg(z0[t][0][p] * conj(z0[t][1][p]))));
        if (FORMS[f].per_head) {
            cr_expect_gt(d01, 1e-2, "%s: heads 0 and 1 turn alike (%g rad)", FORMS[f].name, d01);
            for (int v = 0; v < V; v++)
                for (int p = 0; p < P; p++)
                    m->p.pos[0][(long)v * H * P + P + p] += 0.5f; /* head 1's angles */
            table(m, tok, z1, NULL);
            double d0 = 0, d1 = 0;
            for (int t = 0; t < T; t++)
                for (int p = 0; p < P; p++) {
                    d0 = fmax(d0, cabs(z1[t][0][p] - z0[t][0][p]));
                    d1 = fmax(d1, cabs(z1[t][1][p] - z0[t][1][p]));
                }
            cr_expect_eq(d0, 0.0, "%s: head 1's table moved head 0 by %g", FORMS[f].name, d0);
            cr_expect_gt(d1, 1e-2, "%s: head 1's table moved head 1 by only %g", FORMS[f].name, d1);
        } else
            cr_expect_eq(d01, 0.0, "%s: heads 0 and 1 differ by %g rad", FORMS[f].name, d01);
        rl_gpt_free(m);
    }
}

/* The steps the theory reads (rl_scheme_steps: lanes H hd/2 head-major for
 * pemb, hd/2 for pemb-shared) are the increments A_t - A_{t-1} of the
 * scheme's own table at every position t >= 1 (the step at t enters the
 * routes j -> i with j < t <= i: theta(x_{t-1}) for pemb, theta(x_t) for
 * pemb-shared), points (half-width 0); pemb's row 0, before any token,
 * is omega_p. */
Test(model_pemb, steps_are_the_tables_increments)
{
    double om[P];
    rl_so2_freqs(2 * P, RL_ROT_BASE_DEFAULT, 1.0, om);
    for (int f = 0; f < NFORMS; f++) {
        rl_gpt *m = model_of(FORMS[f].name, 29);
        const int lanes = rl_scheme_step_lanes(&m->sx);
        cr_assert_eq(lanes, FORMS[f].per_head ? H * P : P, "%s: %d lanes", FORMS[f].name, lanes);
        uint16_t tok[T];
        base_tokens(tok);
        double complex z[T][H][P];
        table(m, tok, z, NULL);
        double c[T * H * P], hw[T * H * P];
        rl_scheme_steps(&m->sx, 0, NULL, tok, T, c, hw);
        double worst = 0, wmax = 0;
        for (int t = 1; t < T; t++)
            for (int h = 0; h < H; h++)
                for (int p = 0; p < P; p++) {
                    const int j = lanes == P ? p : h * P + p;
                    worst = fmax(worst, fabs(carg(z[t][h][p] * conj(z[t - 1][h][p]) * cexp(-I * c[t * lanes + j]))));
                    wmax = fmax(wmax, hw[t * lanes + j]);
                }
        cr_log_info("%s: max |step - (A_t - A_{t-1})| = %.2e rad", FORMS[f].name, worst);
        cr_expect_lt(worst, 1e-6, "%s: %g rad", FORMS[f].name, worst);
        cr_expect_eq(wmax, 0.0, "%s: half-width %g", FORMS[f].name, wmax);
        if (FORMS[f].k)
            for (int jl = 0; jl < lanes; jl++)
                cr_expect_eq(c[jl], om[jl % P], "%s row 0 lane %d: %g", FORMS[f].name, jl, c[jl]);
        rl_gpt_free(m);
    }
}
