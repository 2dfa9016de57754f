/* test_model_random_hh.c: random-hh (model/scheme_random_hh.c,
 * docs/model/path-transport.md#random-hh), the i.i.d. random Householder transport through PaTH's
 * kernel.  The registry's tests (test_model_schemes.c: gradients, streaming equals
 * forward, keyed evaluation, checkpoints; test_model_attn.c: thread counts;
 * test_horizon.c: the transport reading) cover it as every scheme; here:
 * - the steps are reflections: beta exactly 2, the product of n steps
 *   orthogonal with det (-1)^n;
 * - the kernel (fast UT path, beta = 2) gives q_i^T P k_j / sqrt(hd) with P
 *   the product of the reflections formed in double;
 * - the directions are uniform: E[w_1] = 0, E[w_1^2] = 1/hd within 5 SE;
 * - routelab's closed form E P = (1 - 2/hd)^n I (rl_random_hh_log_mean_norm)
 *   against the mean of the sampled products, every entry within 5 SE;
 * - the same bytes with 1 and 2 threads; a fixed key repeats the
 *   directions, another key (another forward) redraws them, and window b
 *   of a batch is the lone window's with b = 0;
 * - farpred (SO(2) blocks) refuses it with a reason, as it refuses PaTH;
 * - the theory's reading (rl_steplaw_of) is the closed one: |E M| = 1 -
 *   2/hd per head, its window and horizon, D(T, 16T) in closed form. */
#include <criterion/criterion.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/farpred.h"
#include "../model/gpt.h"
#include "../model/path.h"
#include "../model/steplaw.h"
#include "../theory/theory.h"
#include "test_model_util.h"

/* A random-hh model of L layers, H heads of hd, B windows of T, parameters
 * away from initialisation. */
static rl_gpt *hh_model(int L, int H, int hd, int T, int B)
{
    rl_gpt_config cfg = { L, H * hd, H, T, 64, 0.0f, tm_pos("random-hh"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, B);
    cr_assert(m);
    rl_gpt_init(m, 3);
    tm_randn(m->params, m->nparams, 4, 0.1f);
    return m;
}

static void hh_tokens(uint16_t *tok, long n)
{
    for (long i = 0; i < n; i++)
        tok[i] = (uint16_t)((i * 37 + i / 7) % 64);
}

/* A training forward with key, then layer l's steps (w rows of C floats,
 * beta rows of H) as the transport hook exposes them. */
static void hh_steps(rl_gpt *m, uint64_t key, int l, const float **w, const float **beta)
{
    const long T = m->cfg.ctx;
    uint16_t *tok = malloc(sizeof(uint16_t) * (size_t)(m->B * (T + 1)));
    hh_tokens(tok, m->B * (T + 1));
    rl_gpt_forward(m, tok, T + 1, m->B, T, 0, key);
    m->sx.s->transport(m->ss.st, &m->sx, l, w, beta);
    free(tok);
}

/* P <- M P, M = I - beta w w^T (w hd floats; P hd x hd row-major, double). */
static void apply_step(double *P, const float *w, double beta, int hd)
{
    for (int c = 0; c < hd; c++) {
        double s = 0;
        for (int r = 0; r < hd; r++)
            s += (double)w[r] * P[r * hd + c];
        for (int r = 0; r < hd; r++)
            P[r * hd + c] -= beta * w[r] * s;
    }
}

/* P = M_(t0+n) ... M_(t0+1) of head h, window b (identity first). */
static void route_product(double *P, const float *w, const float *beta, long C, int H, int hd, long T, long b,
                          int h, long t0, long n)
{
    memset(P, 0, sizeof(double) * hd * hd);
    for (int i = 0; i < hd; i++)
        P[i * hd + i] = 1;
    for (long t = t0 + 1; t <= t0 + n; t++)
        apply_step(P, w + (b * T + t) * C + h * hd, beta[(b * T + t) * H + h], hd);
}

/* Every step a reflection: beta exactly 2, |w| = 1 to float rounding, and
 * the product of n steps orthogonal (|P^T P - I| below 1e-5: each float w
 * has |w|^2 = 1 within about hd 2^-24, so a step departs from orthogonality
 * by about 1e-6 and 16 steps by 2e-5 at worst; measured: see the log) with
 * det P = (-1)^n (LU in double). */
Test(random_hh, steps_are_reflections)
{
    const int H = 2, hd = 8, T = 80; /* routes up to position 4 x 16 = 64 */
    rl_gpt *m = hh_model(1, H, hd, T, 2);
    const float *w, *beta;
    hh_steps(m, 11, 0, &w, &beta);
    const long C = m->cfg.width;
    for (long i = 0; i < 2L * T * H; i++)
        cr_assert(beta[i] == 2.0f, "beta[%ld] = %.9g", i, beta[i]);
    double worst = 0, P[64], Q[64];
    for (long b = 0; b < 2; b++)
        for (int h = 0; h < H; h++)
            for (long n = 1; n <= 16; n++) {
                route_product(P, w, beta, C, H, hd, T, b, h, 3 * n, n);
                for (int i = 0; i < hd; i++)
                    for (int j = 0; j < hd; j++) {
                        double s = 0;
                        for (int r = 0; r < hd; r++)
                            s += P[r * hd + i] * P[r * hd + j];
                        worst = fmax(worst, fabs(s - (i == j)));
                    }
                memcpy(Q, P, sizeof Q);
                gsl_matrix_view A = gsl_matrix_view_array(Q, hd, hd);
                gsl_permutation *p = gsl_permutation_alloc(hd);
                int sg;
                gsl_linalg_LU_decomp(&A.matrix, p, &sg);
                const double det = gsl_linalg_LU_det(&A.matrix, sg);
                gsl_permutation_free(p);
                cr_expect_lt(fabs(det - (n % 2 ? -1.0 : 1.0)), 1e-5, "n = %ld: det %.9g", n, det);
            }
    cr_log_info("random_hh: max |P^T P - I| over products of 1..16 steps %.2e", worst);
    cr_expect_lt(worst, 1e-5);
    rl_gpt_free(m);
}

/* The fast kernel (blocks of 64 in UT form, beta = 2 exactly) on the drawn
 * directions against q_i^T P(j -> i) k_j / sqrt(hd) with P formed in
 * double, every pair (i, j) of a T = 200 window (four blocks), hd 16, and
 * norms preserved: |P k_j| = |k_j|.  Tolerance 1e-3 on logits of size
 * about 4, as model_path/reflection's for beta = 2 (docs/model/path.md#path-accuracy: the UT
 * form's float error grows as beta -> 2 with aligned w); uniform
 * directions are far from aligned, measured: see the log
 * (docs/model/path-transport.md#random-hh). */
Test(random_hh, kernel_matches_explicit_transport, .timeout = 60)
{
    const int H = 2, hd = 16, T = 200;
    rl_gpt *m = hh_model(1, H, hd, T, 1);
    const float *w, *beta;
    hh_steps(m, 5, 0, &w, &beta);
    const long C = m->cfg.width;
    float *qk = malloc(sizeof(float) * 2 * T * C), *S = malloc(sizeof(float) * T * T);
    tm_randn(qk, 2L * T * C, 21, 1.0f);
    const float *q = qk, *k = qk + C; /* rows 2C apart */
    double worst = 0, scale = 0, normerr = 0;
    double *u = malloc(sizeof(double) * hd);
    for (int h = 0; h < H; h++) {
        rl_path_ctx c = { .s = { .B = 1, .T = T, .H = H, .hd = hd }, .q = q, .k = k, .w = w, .beta = beta,
                          .ld = 2 * C, .ldw = C };
        c.work = malloc(sizeof(float) * rl_path_work_floats(&c.s));
        rl_attn_logits lg = rl_path_logits(&c, 0);
        if (lg.prepare)
            lg.prepare(&lg, 0, h);
        lg.block(&lg, S, T, 0, h, 0, T, 0, T, NULL);
        for (long j = 0; j < T; j++) {
            /* u = P(j -> i) k_j for i = j, j+1, ...: one step at a time */
            double n0 = 0, n1;
            for (int r = 0; r < hd; r++) {
                u[r] = k[j * 2 * C + h * hd + r];
                n0 += u[r] * u[r];
            }
            for (long i = j; i < T; i++) {
                if (i > j) {
                    const float *wi = w + i * C + h * hd;
                    double s = 0;
                    for (int r = 0; r < hd; r++)
                        s += wi[r] * u[r];
                    for (int r = 0; r < hd; r++)
                        u[r] -= 2.0 * s * wi[r];
                }
                double l = 0;
                n1 = 0;
                for (int r = 0; r < hd; r++) {
                    l += (double)q[i * 2 * C + h * hd + r] * u[r];
                    n1 += u[r] * u[r];
                }
                l /= sqrt((double)hd);
                worst = fmax(worst, fabs(l - S[i * T + j]));
                scale = fmax(scale, fabs(l));
                normerr = fmax(normerr, fabs(sqrt(n1) - sqrt(n0)) / sqrt(n0));
            }
        }
        free(c.work);
    }
    cr_log_info("random_hh: fast kernel vs explicit transport, T = %d, hd %d: max |logit error| %.2e "
                "(logits up to %.2f); max relative norm change %.2e", T, hd, worst, scale, normerr);
    cr_expect_lt(worst, 1e-3);
    cr_expect_lt(normerr, 1e-5, "norms not preserved");
    free(u);
    free(qk);
    free(S);
    rl_gpt_free(m);
}

/* Uniform on the sphere: by symmetry E[w_1] = 0 and E[w_1^2] = 1/hd (the
 * hd coordinates' squares sum to 1).  Over n = 8 windows x 4 heads x 255
 * steps x 2 layers of hd 8, each mean within 5 of its sample SE. */
Test(random_hh, directions_uniform)
{
    const int L = 2, H = 4, hd = 8, T = 256, B = 8;
    rl_gpt *m = hh_model(L, H, hd, T, B);
    const long C = m->cfg.width;
    double s1 = 0, q1 = 0, s2 = 0, q2 = 0;
    long n = 0;
    uint16_t *tok = malloc(sizeof(uint16_t) * B * (T + 1));
    hh_tokens(tok, (long)B * (T + 1));
    rl_gpt_forward(m, tok, T + 1, B, T, 0, 17);
    for (int l = 0; l < L; l++) {
        const float *w, *beta;
        m->sx.s->transport(m->ss.st, &m->sx, l, &w, &beta);
        for (long b = 0; b < B; b++)
            for (long t = 1; t < T; t++)
                for (int h = 0; h < H; h++) {
                    const double x = w[(b * T + t) * C + h * hd], x2 = x * x;
                    s1 += x;
                    q1 += x * x;
                    s2 += x2;
                    q2 += x2 * x2;
                    n++;
                }
    }
    const double m1 = s1 / n, se1 = sqrt((q1 / n - m1 * m1) / (n - 1));
    const double m2 = s2 / n, se2 = sqrt((q2 / n - m2 * m2) / (n - 1));
    cr_log_info("random_hh: E[w_1] = %.5f (SE %.5f), E[w_1^2] = %.5f (SE %.5f, 1/hd = %.5f), n = %ld", m1, se1,
                m2, se2, 1.0 / hd, n);
    cr_expect_lt(fabs(m1), 5 * se1);
    cr_expect_lt(fabs(m2 - 1.0 / hd), 5 * se2);
    free(tok);
    rl_gpt_free(m);
}

/* routelab's closed form against the sampled reflections: the mean of the
 * products P of n consecutive steps (disjoint segments of every window and
 * head: independent samples), every entry within 5 SE of (1 - 2/hd)^n
 * delta_ij = exp(rl_random_hh_log_mean_norm(hd, n)) delta_ij; and the
 * function's own values. */
Test(random_hh, closed_form_mean_transport, .timeout = 60)
{
    cr_expect_float_eq(rl_random_hh_log_mean_norm(8, 3), 3 * log(0.75), 1e-14);
    cr_expect_eq(rl_random_hh_log_mean_norm(16, 0), 0.0);
    cr_expect(isinf(rl_random_hh_log_mean_norm(2, 1)) && rl_random_hh_log_mean_norm(2, 1) < 0,
              "hd = 2: E M = 0");
    cr_expect(isnan(rl_random_hh_log_mean_norm(1, 1)) && isnan(rl_random_hh_log_mean_norm(8, -1)));
    const int H = 4, hd = 8, T = 257, B = 8;
    rl_gpt *m = hh_model(1, H, hd, T, B);
    const float *w, *beta;
    hh_steps(m, 23, 0, &w, &beta);
    const long C = m->cfg.width;
    const long ns[] = { 1, 2, 4, 8 };
    double P[64], sum[64], sq[64];
    for (int k = 0; k < 4; k++) {
        const long n = ns[k];
        const double want = exp(rl_random_hh_log_mean_norm(hd, n));
        memset(sum, 0, sizeof sum);
        memset(sq, 0, sizeof sq);
        long cnt = 0;
        for (long b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (long t0 = 0; t0 + n < T; t0 += n, cnt++) {
                    route_product(P, w, beta, C, H, hd, T, b, h, t0, n);
                    for (int i = 0; i < hd * hd; i++) {
                        sum[i] += P[i];
                        sq[i] += P[i] * P[i];
                    }
                }
        double worst = 0; /* the largest |mean - want| / SE over the entries */
        for (int i = 0; i < hd * hd; i++) {
            const double mu = sum[i] / cnt, se = sqrt((sq[i] / cnt - mu * mu) / (cnt - 1));
            const double z = fabs(mu - (i % (hd + 1) == 0 ? want : 0.0)) / se;
            worst = fmax(worst, z);
            cr_expect_lt(z, 5.0, "n = %ld, entry (%d, %d): mean %.5f, SE %.5f, want %.5f", n, i / hd, i % hd, mu,
                         se, i % (hd + 1) == 0 ? want : 0.0);
        }
        cr_log_info("random_hh: n = %ld, (1 - 2/hd)^n = %.5f, %ld products, max |z| over the %d entries %.2f", n,
                    want, cnt, hd * hd, worst);
    }
    rl_gpt_free(m);
}

/* The directions are the same bytes with 1 and 2 threads; the same key
 * draws them again, another key (another forward) draws others; and
 * window 1 of a batch of 2 with key k is the window a batch of 1 draws with
 * key k only if b = 0: window 0 agrees, window 1 differs from it. */
Test(random_hh, keyed_and_thread_independent)
{
    const int H = 2, hd = 8, T = 70, B = 2;
    const long n = (long)B * T * H * hd;
    float *got[4];
    for (int k = 0; k < 4; k++) {
        omp_set_num_threads(k == 1 ? 2 : 1);
        rl_gpt *m = hh_model(2, H, hd, T, B);
        const float *w, *beta;
        hh_steps(m, k == 3 ? 8 : 7, 1, &w, &beta); /* keys 7, 7 (2 threads), 7, 8 */
        got[k] = malloc(sizeof(float) * n);
        memcpy(got[k], w, sizeof(float) * n);
        rl_gpt_free(m);
    }
    omp_set_num_threads(2);
    cr_expect(memcmp(got[0], got[1], sizeof(float) * n) == 0, "1 and 2 threads differ");
    cr_expect(memcmp(got[0], got[2], sizeof(float) * n) == 0, "the same key drew other directions");
    cr_expect(memcmp(got[0], got[3], sizeof(float) * n) != 0, "another key drew the same directions");
    const long win = (long)T * H * hd;
    cr_expect(memcmp(got[0], got[0] + win, sizeof(float) * win) != 0, "windows 0 and 1 alike");
    rl_gpt *m = hh_model(2, H, hd, T, 1);
    const float *w, *beta;
    hh_steps(m, 7, 1, &w, &beta);
    cr_expect(memcmp(got[0], w, sizeof(float) * win) == 0, "a lone window is not window 0 of a batch");
    rl_gpt_free(m);
    for (int k = 0; k < 4; k++)
        free(got[k]);
}

/* farpred reads SO(2) blocks: a Householder transport has none, so a bad
 * input naming the scheme and why, before any work (as for path). */
Test(random_hh, farpred_makes_no_prediction)
{
    rl_gpt *m = hh_model(1, 2, 8, 16, 1);
    uint16_t tok[200];
    hh_tokens(tok, 200);
    const rl_tokens val = { tok, 200, { 0, 0 } };
    rl_farpred_within w;
    rl_err err;
    cr_expect_eq(rl_farpred_measure(m, &val, 2, 2, 1, &w, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "random-hh") && strstr(err.msg, "not SO(2) blocks"), "%s", err.msg);
    rl_farpred_within_free(&w);
    rl_gpt_free(m);
}

/* rl_steplaw_of reads random-hh in closed form (rl_steplaw_transport_closed):
 * every head log |E M| = log(1 - 2/hd) (hd 16: 0.875), W(0.1) = ceil(log 0.1
 * / log 0.875) = 18, D(T, 16T) = (0.875^(T-1) - 0.875^(16T-1)) / (pi sqrt 2)
 * at far 16T - 1, near T - 1, SE 0, no routes; the horizon none at T = 64
 * (18 <= T: mixed within T) and 18 at T = 8.  The tolerance 1e-15
 * relative is double rounding. */
Test(random_hh, horizon_reads_the_closed_form)
{
    uint16_t tok[400];
    hh_tokens(tok, 400);
    const rl_tokens val = { tok, 400, { 0, 0 } };
    const long Ts[2] = { 64, 8 }, want_h[2] = { -1, 18 };
    for (int k = 0; k < 2; k++) {
        const long T = Ts[k];
        rl_gpt *m = hh_model(2, 2, 16, (int)T, 1);
        rl_steplaw s;
        rl_err err;
        cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
        cr_expect_eq(s.kind, RL_STEPS_TRANSPORT);
        cr_expect_eq(s.routes, 0, "closed: no routes");
        cr_expect_eq(s.layers * s.lanes, 4);
        const double D = (pow(0.875, (double)T - 1) - pow(0.875, 16.0 * T - 1)) / (M_PI * sqrt(2.0));
        for (int b = 0; b < 4; b++) {
            cr_expect_float_eq(s.logchi[b], log(0.875), 1e-15);
            cr_expect_eq(s.window[b], 18, "block %d: window %ld", b, s.window[b]);
            cr_expect_float_eq(s.mix[b], D, 1e-15 * D);
            cr_expect_eq(s.mix_hi[b], s.mix[b]);
            cr_expect_eq(s.tr[b].se, 0.0);
            cr_expect(s.tr[b].far == 16 * T - 1 && s.tr[b].near == T - 1, "far %ld near %ld", s.tr[b].far,
                      s.tr[b].near);
        }
        cr_expect_eq(s.horizon, want_h[k], "T = %ld: H %ld", T, s.horizon);
        cr_expect_float_eq(s.score, D, 1e-15 * D);
        rl_steplaw_free(&s);
        rl_gpt_free(m);
    }
}
