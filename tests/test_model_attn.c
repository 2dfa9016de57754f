/* test_model_attn.c: streaming attention against the plain kernel, ALiBi
 * slopes, RoPE's table, and thread-count independence (the chunked
 * long-window evaluation against the training forward, for every scheme:
 * test_model_schemes.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "../model/gpt.h"
#include "../model/position.h"
#include "../sampling/rng.h"
#include "test_model_util.h"

/* Plain and streaming outputs agree to float rounding: |diff| < 1e-5 sd on
 * outputs of size O(sd), for lengths that are not multiples of the blocks
 * (64 queries x 512 keys) and span several key blocks. */
static void stream_vs_plain(int T, const float *slopes, float sd, const char *what)
{
    const int B = 2, H = 2, hd = 16, C = H * hd;
    const long N = (long)B * T;
    float *qkv = malloc(sizeof(float) * 3 * N * C), *o1 = malloc(sizeof(float) * N * C);
    float *o2 = malloc(sizeof(float) * N * C), *att = malloc(sizeof(float) * B * H * T * T);
    tm_randn(qkv, 3 * N * C, 7, sd);
    rl_attn_shape s = { B, T, H, hd, slopes, NULL };
    rl_attention_forward(o1, C, att, qkv, qkv + C, qkv + 2 * C, 3L * C, &s);
    rl_attention_forward_streaming(o2, C, qkv, qkv + C, qkv + 2 * C, 3L * C, &s);
    double maxd = 0;
    for (long i = 0; i < N * C; i++)
        maxd = fmax(maxd, fabs(o1[i] - o2[i]));
    cr_log_info("%s T=%d: max |plain - streaming| = %.2e", what, T, maxd);
    cr_expect_lt(maxd, 1e-5 * sd, "%s T=%d: max diff %g", what, T, maxd);
    free(qkv); free(o1); free(o2); free(att);
}

Test(model_attn, streaming_equals_plain)
{
    float slopes[2];
    rl_alibi_slopes(slopes, 2);
    int Ts[] = { 1, 63, 200, 1100 };
    for (int i = 0; i < 4; i++) {
        stream_vs_plain(Ts[i], NULL, 1.0f, "none");
        stream_vs_plain(Ts[i], slopes, 1.0f, "alibi");
        stream_vs_plain(Ts[i], NULL, 3.0f, "peaked"); /* large logits: rescaling matters */
    }
}

/* The reference rule (Press et al.'s get_slopes): 2^(-8h/n) for the n = 8
 * heads, then for 12 heads the extra 2^(-0.5), 2^(-1.5), 2^(-2.5), 2^(-3.5). */
Test(model_attn, alibi_slopes)
{
    float m[12];
    rl_alibi_slopes(m, 8);
    for (int h = 0; h < 8; h++)
        cr_expect_float_eq(m[h], powf(2.0f, -(h + 1.0f)), 1e-7f, "H=8 head %d", h);
    rl_alibi_slopes(m, 12);
    const double ref12[12] = { 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125,
                               0.00390625, 0.7071067811865476, 0.3535533905932738,
                               0.1767766952966369, 0.08838834764831845 };
    for (int h = 0; h < 12; h++)
        cr_expect_float_eq(m[h], (float)ref12[h], 1e-7f, "H=12 head %d", h);
    rl_alibi_slopes(m, 4);
    cr_expect_float_eq(m[0], 0.25f, 1e-7f);
    cr_expect_float_eq(m[3], powf(2.0f, -8.0f), 1e-7f);
}

/* RoPE angles: t * 10000^(-2p/hd), reduced mod 2 pi in double. */
Test(model_attn, rope_table)
{
    float c[4 * 8], s[4 * 8];
    rl_rope_table(c, s, 70000, 4, 16, 10000.0);
    for (int t = 0; t < 4; t++)
        for (int p = 0; p < 8; p++) {
            double a = (70000.0 + t) * pow(10000.0, -2.0 * p / 16);
            cr_expect_float_eq(c[t * 8 + p], (float)cos(a), 2e-6f);
            cr_expect_float_eq(s[t * 8 + p], (float)sin(a), 2e-6f);
        }
}

/* Same numbers with 1 and 2 threads: forward, gradients, evaluation; RoPE
 * with dropout, and the accumulated schemes (random's and lf's noise comes
 * from per-(layer, window, head) streams, pemb's table gradient is a
 * scatter by token id), parameters away from initialisation. */
static void same_for_thread_counts(const char *pos, float dropout)
{
    const int T = 64;
    uint16_t tok[2 * 65];
    for (int i = 0; i < 130; i++)
        tok[i] = (uint16_t)((i * 11 + 5) % 64);
    rl_gpt_config cfg = { 2, 64, 4, T, 64, dropout, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    double loss[2], ev[2];
    float *g[2];
    for (int k = 0; k < 2; k++) {
        omp_set_num_threads(k + 1);
        rl_gpt *m = rl_gpt_alloc(&cfg, 2);
        rl_gpt_init(m, 9);
        tm_randn(m->params, m->nparams, 10, 0.1f);
        loss[k] = rl_gpt_forward(m, tok, T + 1, 2, T, 1, 77);
        rl_gpt_backward(m, 1.0f / (2 * T));
        g[k] = malloc(sizeof(float) * m->nparams);
        memcpy(g[k], m->grads, sizeof(float) * m->nparams);
        rl_gpt_eval *e = rl_gpt_eval_alloc(m, 129);
        ev[k] = rl_gpt_eval_window(m, e, tok, 129, 5);
        cr_expect(memcmp(g[0], g[k], sizeof(float) * m->nparams) == 0,
                  "%s: gradients differ between 1 and %d threads", pos, k + 1);
        rl_gpt_eval_free(e);
        rl_gpt_free(m);
    }
    cr_expect(loss[0] == loss[1], "%s: loss %.17g vs %.17g", pos, loss[0], loss[1]);
    cr_expect(ev[0] == ev[1], "%s: eval %.17g vs %.17g", pos, ev[0], ev[1]);
    free(g[0]);
    free(g[1]);
    omp_set_num_threads(2);
}

Test(model_attn, thread_count_independent)
{
    same_for_thread_counts("rope", 0.1f);
    same_for_thread_counts("random_qkv", 0);
    same_for_thread_counts("lf_qkv", 0);
    same_for_thread_counts("pemb_qk", 0);
    same_for_thread_counts("path", 0);
}
