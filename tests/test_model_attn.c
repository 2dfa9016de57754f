/* test_model_attn.c: streaming attention against the plain kernel, ALiBi
 * slopes, RoPE's table, and thread-count independence of every registered
 * scheme (the chunked
 * long-window evaluation against the training forward, for every scheme:
 * test_model_schemes.c), the online-softmax row step at every vector
 * width the CPU runs against the SSE2 one and against double exp, and the
 * streaming P V kernel at every width against its reference order and
 * against sgemm. */
#include <cblas.h>
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "../model/attn_pv.h"
#include "../model/attn_qk.h"
#include "../model/fastmath.h"
#include "../model/gpt.h"
#include "../model/position.h"
#include "../model/softmax_row.h"
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
    rl_attn_shape s = { .B = B, .T = T, .H = H, .hd = hd, .slopes = slopes };
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

/* RoPE with dropout, then every configuration of the registry. */
Test(model_attn, thread_count_independent, .timeout = 120)
{
    same_for_thread_counts("rope", 0.1f);
    tm_scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    for (size_t i = 0; i < n; i++)
        same_for_thread_counts(rl_pos_name(c[i].pos), 0);
    cr_log_info("%zu configurations, 1 and 2 threads alike", n);
}

/* Every width of the row step (model/softmax_row.h) gives the SSE2 step's
 * max, entries and rescale bit for bit (the same operations per entry),
 * exact zeros where masked, the sum to float rounding, e^(x - m) and the
 * rescale e^(mx0 - m) within rl_expf's derived bound of double exp
 * (RL_EXPF_MAX_RELERR, fastmath.h; the rescale exactly 1 when the max
 * stays, 0 when nothing was summed), and the sums the same bytes (one order
 * of additions); lengths around the 4-, 8- and 16-lane boundaries, with and
 * without an ALiBi slope, a running max below and above the row's, entries
 * far below the max (flushed to 0) and rows with nothing visible. */
Test(model_attn, row_step_widths_agree)
{
    rl_softmax_row_fn fns[3];
    const char *names[3];
    const int nv = rl_softmax_row_versions(fns, names);
    cr_assert_geq(nv, 1);
    cr_log_info("row step widths: %d (widest %s)", nv, names[0]);
    const int ns[] = { -3, 0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 100, 511, 512 };
    const float sls[] = { 0.0f, 0.25f }, mx0s[] = { -INFINITY, 0.5f, 30.0f };
    float src[520], ref[520], got[520];
    tm_randn(src, 520, 21, 3.0f);
    src[5] = -150.0f; /* e^(x - m) below the flush: stored as 0 */
    src[40] = 12.0f;
    for (unsigned a = 0; a < sizeof ns / sizeof *ns; a++)
        for (int extra = 0; extra <= 9; extra += 9)
            for (int b = 0; b < 2; b++)
                for (int c = 0; c < 3; c++) {
                    const int n = ns[a], w = (n > 0 ? n : 0) + extra;
                    if (w > 512)
                        continue;
                    const int i = 700 + (n > 0 ? n : 0), j0 = 701; /* keys j0 .. j0 + n - 1 */
                    memcpy(ref, src, sizeof src);
                    float rsum, rcorr;
                    const float rmx = rl_softmax_row_sse2(ref, n, w, sls[b], i, j0, mx0s[c], &rsum, &rcorr);
                    if (mx0s[c] == -INFINITY)
                        cr_expect(rcorr == 0.0f, "n %d: rescale %.9g with nothing summed", n, rcorr);
                    else if (rmx == mx0s[c])
                        cr_expect(rcorr == 1.0f, "n %d: rescale %.9g, the max unchanged", n, rcorr);
                    else
                        cr_expect(fabs(rcorr - exp((double)(mx0s[c] - rmx))) <=
                                      RL_EXPF_MAX_RELERR * exp((double)(mx0s[c] - rmx)),
                                  "n %d: rescale %.9g vs %.9g", n, rcorr, exp((double)(mx0s[c] - rmx)));
                    /* against double exp of the float argument (the biased
                     * logit minus the max, each rounded to float as the step does) */
                    double dsum = 0;
                    for (int q = 0; q < n; q++) {
                        const float x = src[q] - sls[b] * (float)(i - j0 - q);
                        const float d = x - rmx;
                        const double e = exp((double)d);
                        dsum += ref[q];
                        if (d < RL_SOFTMAX_FLUSH) /* e < 2^-100: stored as exact 0 */
                            cr_expect(ref[q] == 0.0f, "n %d q %d: %.9g below the flush", n, q, ref[q]);
                        else
                            cr_expect(fabs(ref[q] - e) <= RL_EXPF_MAX_RELERR * e, "n %d q %d: %.9g vs %.9g",
                                      n, q, ref[q], e);
                    }
                    cr_expect(fabs(rsum - dsum) <= 1e-6 * dsum, "n %d: sum %.9g vs %.9g", n, rsum, dsum);
                    const float csum = n > 0 ? rl_softmax_row_sum(ref, n) : 0.0f;
                    cr_expect(memcmp(&rsum, &csum, sizeof csum) == 0, "n %d: sum %.9g, not the "
                              "eight-lane order's %.9g", n, rsum, csum);
                    for (int q = n > 0 ? n : 0; q < w; q++)
                        cr_expect_eq(ref[q], 0.0f, "n %d w %d: masked entry %d = %g", n, w, q, ref[q]);
                    if (n <= 0)
                        cr_expect(rmx == mx0s[c] && rsum == 0.0f, "n %d: max %g sum %g", n, rmx, rsum);
                    for (int v = 0; v < nv; v++) {
                        memcpy(got, src, sizeof src);
                        float sum, corr;
                        const float mx = fns[v](got, n, w, sls[b], i, j0, mx0s[c], &sum, &corr);
                        cr_expect(mx == rmx, "%s n %d: max %.9g vs %.9g", names[v], n, mx, rmx);
                        cr_expect(memcmp(&corr, &rcorr, sizeof corr) == 0, "%s n %d: rescale %.9g vs %.9g",
                                  names[v], n, corr, rcorr);
                        cr_expect(memcmp(got, ref, sizeof(float) * w) == 0,
                                  "%s n %d w %d sl %g: entries differ from sse2", names[v], n, w, sls[b]);
                        cr_expect(memcmp(got + w, src + w, sizeof(float) * (520 - w)) == 0,
                                  "%s n %d w %d: wrote past the row", names[v], n, w);
                        /* one order of additions at every width: the same bytes with and
                         * without AVX-512 (softmax_row.h) */
                        cr_expect(memcmp(&sum, &rsum, sizeof sum) == 0, "%s n %d: sum %.9g vs %.9g",
                                  names[v], n, sum, rsum);
                    }
                }
}

/* The flush at its boundary (softmax_row.h): e^-69 (about 1e-30, above
 * 2^-100) is kept to float rounding; e^-69.5, e^-80 (normal floats, which
 * the step computed before the flush) and e^-1000 are exact 0 in every
 * width; the max's own entry is 1 and the sum is 1 + e^-69. */
Test(model_attn, row_step_flush_boundary)
{
    rl_softmax_row_fn fns[3];
    const char *names[3];
    const int nv = rl_softmax_row_versions(fns, names);
    for (int v = 0; v < nv; v++)
        for (int n = 5; n <= 21; n += 16) { /* the tail alone, and the vector body */
            float row[21];
            for (int q = 0; q < 21; q++)
                row[q] = -1000.0f;
            row[0] = 2.0f, row[1] = 2.0f - 69.0f, row[2] = 2.0f - 69.5f, row[3] = 2.0f - 80.0f;
            float sum, corr;
            const float mx = fns[v](row, n, n, 0.0f, n - 1, 0, -INFINITY, &sum, &corr);
            cr_expect(mx == 2.0f, "%s: max %g", names[v], mx);
            cr_expect(row[0] == 1.0f, "%s: the max's entry %.9g", names[v], row[0]);
            cr_expect(fabs(row[1] - exp(-69.0)) <= RL_EXPF_MAX_RELERR * exp(-69.0), "%s n %d: e^-69 = %.9g",
                      names[v], n, row[1]);
            for (int q = 2; q < n; q++)
                cr_expect(row[q] == 0.0f, "%s n %d: entry %d = %.9g, not flushed", names[v], n, q, row[q]);
            cr_expect(sum == 1.0f + row[1], "%s n %d: sum %.9g", names[v], n, sum);
        }
}

/* P V's inputs as the streaming kernel has them: P a block of softmax
 * weights (>= 0, a row of zeros, masked zeros at a row's end) in rows ldp
 * apart, V rows ldv apart, acc what earlier key blocks summed. */
static void pv_inputs(float *P, long ldp, float *V, long ldv, float *acc, int nq, int nk, int hd, unsigned seed)
{
    tm_randn(P, (long)nq * ldp, seed, 1.0f);
    for (long e = 0; e < (long)nq * ldp; e++)
        P[e] = expf(-fabsf(P[e]) * 4.0f);
    for (int k = 0; k < nk; k++)
        P[k] = 0.0f; /* row 0: nothing visible */
    for (int r = 1; r < nq; r += 3)
        for (int k = nk - r % nk; k < nk; k++)
            P[(long)r * ldp + k] = 0.0f; /* masked keys */
    tm_randn(V, (long)nk * ldv, seed + 1, 1.0f);
    tm_randn(acc, (long)nq * hd, seed + 2, 3.0f);
}

/* Every width of the P V kernel (model/attn_pv.h) gives rl_attn_pv_ref's
 * bits (one chain of FMAs over the keys per entry), and writes nothing
 * past acc's nq rows: head dims 16 .. 80 (the AVX-512 tile's 32 columns and
 * its last 16), query rows around the tiles' 8 and 4, key counts 1 .. 512. */
Test(model_attn, pv_kernel_widths_agree, .timeout = 60)
{
    rl_attn_pv_fn fns[2];
    const char *names[2];
    const int nv = rl_attn_pv_versions(fns, names);
    cr_log_info("P V kernel widths: %d (widest %s)", nv, nv ? names[0] : "none: sgemm");
    const int hds[] = { 16, 32, 48, 64, 80 }, nqs[] = { 1, 3, 4, 7, 8, 9, 13, 64, 128 }, nks[] = { 1, 17, 512 };
    const long ldp = 515, G = 64; /* G floats of guard after acc */
    float *P = malloc(sizeof(float) * 128 * ldp), *V = malloc(sizeof(float) * 512 * 256);
    float *a0 = malloc(sizeof(float) * (128 * 80 + G)), *ref = malloc(sizeof(float) * (128 * 80 + G));
    float *got = malloc(sizeof(float) * (128 * 80 + G));
    for (unsigned a = 0; a < sizeof hds / sizeof *hds; a++)
        for (unsigned b = 0; b < sizeof nqs / sizeof *nqs; b++)
            for (unsigned c = 0; c < sizeof nks / sizeof *nks; c++) {
                const int hd = hds[a], nq = nqs[b], nk = nks[c];
                const long ldv = 3L * hd + 16, n = (long)nq * hd;
                pv_inputs(P, ldp, V, ldv, a0, nq, nk, hd, 31 + a * 100 + b * 10 + c);
                for (long g = 0; g < G; g++)
                    a0[n + g] = -7.0f;
                memcpy(ref, a0, sizeof(float) * (n + G));
                rl_attn_pv_ref(ref, hd, P, ldp, 1, V, ldv, nq, nk, hd, 0, 1.0f);
                for (int v = 0; v < nv; v++) {
                    memcpy(got, a0, sizeof(float) * (n + G));
                    fns[v](got, hd, P, ldp, 1, V, ldv, nq, nk, hd, 0, 1.0f);
                    cr_expect(memcmp(got, ref, sizeof(float) * n) == 0, "%s hd %d nq %d nk %d: not the "
                              "reference's bits", names[v], hd, nq, nk);
                    cr_expect(memcmp(got + n, a0 + n, sizeof(float) * G) == 0, "%s hd %d nq %d nk %d: wrote "
                              "past acc", names[v], hd, nq, nk);
                }
            }
    for (int hd = 0; hd <= 40; hd += 8) /* picked only where a tile fits */
        cr_expect((rl_attn_pv_pick(hd) != NULL) == (nv > 0 && hd > 0 && hd % 16 == 0), "hd %d", hd);
    free(P);
    free(V);
    free(a0);
    free(ref);
    free(got);
}

/* The training attention's uses of the P V kernel (attention.c: O = P V,
 * dV = P^T dO, dQ = dS K / sqrt(hd), dK = dS^T Q / sqrt(hd)): P read
 * transposed (spr = 1, spk = ldp), rows of acc lda > hd apart, acc not read
 * (from0) and the scaling after the chain.  Every width gives the
 * reference's bits and leaves the gaps between acc's rows as they were. */
Test(model_attn, pv_kernel_strides_and_scale, .timeout = 60)
{
    rl_attn_pv_fn fns[2];
    const char *names[2];
    const int nv = rl_attn_pv_versions(fns, names);
    const int hds[] = { 16, 32, 64, 80 }, nqs[] = { 1, 7, 8, 9, 13 }, nks[] = { 1, 17, 130 };
    const struct {
        int trans, from0;
        float scale;
    } modes[] = { { 1, 1, 0.125f }, { 0, 1, 1.0f }, { 1, 0, 1.0f }, { 0, 0, 0.3f } };
    const long ldp = 133;
    float *P = malloc(sizeof(float) * 133 * ldp), *V = malloc(sizeof(float) * 130 * 256);
    float *a0 = malloc(sizeof(float) * 13 * 85), *ref = malloc(sizeof(float) * 13 * 85);
    float *got = malloc(sizeof(float) * 13 * 85);
    tm_randn(P, 133 * ldp, 5, 1.0f);
    for (unsigned m = 0; m < sizeof modes / sizeof *modes; m++)
        for (unsigned a = 0; a < sizeof hds / sizeof *hds; a++)
            for (unsigned b = 0; b < sizeof nqs / sizeof *nqs; b++)
                for (unsigned c = 0; c < sizeof nks / sizeof *nks; c++) {
                    const int hd = hds[a], nq = nqs[b], nk = nks[c];
                    const long lda = hd + 5, ldv = 3L * hd, n = nq * lda;
                    const long spr = modes[m].trans ? 1 : ldp, spk = modes[m].trans ? ldp : 1;
                    tm_randn(V, (long)nk * ldv, 9 + a, 1.0f);
                    tm_randn(a0, n, 11 + b, 3.0f);
                    for (int r = 0; r < nq; r++)
                        for (long col = hd; col < lda; col++)
                            a0[r * lda + col] = -7.0f; /* the gaps */
                    memcpy(ref, a0, sizeof(float) * n);
                    rl_attn_pv_ref(ref, lda, P, spr, spk, V, ldv, nq, nk, hd, modes[m].from0, modes[m].scale);
                    for (int v = 0; v < nv; v++) {
                        memcpy(got, a0, sizeof(float) * n);
                        fns[v](got, lda, P, spr, spk, V, ldv, nq, nk, hd, modes[m].from0, modes[m].scale);
                        cr_expect(memcmp(got, ref, sizeof(float) * n) == 0, "%s mode %u hd %d nq %d nk %d: not the "
                                  "reference's bits (the gaps included)", names[v], m, hd, nq, nk);
                    }
                    /* the reference itself: from0 ignores acc, the scale is applied once */
                    double want = modes[m].from0 ? 0.0 : (double)a0[0];
                    for (int k = 0; k < nk; k++)
                        want += (double)P[k * spk] * V[(long)k * ldv];
                    want *= modes[m].scale;
                    cr_expect(fabs(ref[0] - want) <= 1e-5 * (1 + fabs(want)), "mode %u: ref %g, want %g", m, ref[0],
                              want);
                }
    free(P);
    free(V);
    free(a0);
    free(ref);
    free(got);
}

/* The kernel the streaming attention picks against cblas_sgemm (beta = 1,
 * what it replaced), entry by entry within the two summation bounds
 * (attn_pv.h): the kernel's chain of nk FMAs, gamma_nk S, and sgemm's sum
 * in any order plus acc, gamma_(nk+1) S, with S = |acc_0| + sum_k |P_rk|
 * |V_kc| and gamma_n = n u / (1 - n u), u = 2^-24.  A key left out (about
 * S / nk here) or a row shifted breaks it by orders of magnitude. */
Test(model_attn, pv_kernel_against_sgemm, .timeout = 60)
{
    const double u = 0x1p-24;
    const int hds[] = { 16, 32, 64 }, nqs[] = { 5, 64, 128 }, nks[] = { 17, 512 };
    const long ldp = 512;
    float *P = malloc(sizeof(float) * 128 * ldp), *V = malloc(sizeof(float) * 512 * 256);
    float *a0 = malloc(sizeof(float) * 128 * 64), *k1 = malloc(sizeof(float) * 128 * 64);
    float *k2 = malloc(sizeof(float) * 128 * 64);
    int ran = 0;
    double worst = 0;
    for (unsigned a = 0; a < sizeof hds / sizeof *hds; a++)
        for (unsigned b = 0; b < sizeof nqs / sizeof *nqs; b++)
            for (unsigned c = 0; c < sizeof nks / sizeof *nks; c++) {
                const int hd = hds[a], nq = nqs[b], nk = nks[c];
                const rl_attn_pv_fn pv = rl_attn_pv_pick(hd);
                if (!pv)
                    continue;
                ran++;
                const long ldv = 2L * hd;
                pv_inputs(P, ldp, V, ldv, a0, nq, nk, hd, 77 + a * 100 + b * 10 + c);
                memcpy(k1, a0, sizeof(float) * nq * hd);
                memcpy(k2, a0, sizeof(float) * nq * hd);
                pv(k1, hd, P, ldp, 1, V, ldv, nq, nk, hd, 0, 1.0f);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nq, hd, nk, 1.0f, P, (int)ldp, V, (int)ldv,
                            1.0f, k2, hd);
                const double g = nk * u / (1 - nk * u) + (nk + 1) * u / (1 - (nk + 1) * u);
                for (int r = 0; r < nq; r++)
                    for (int col = 0; col < hd; col++) {
                        double S = fabs((double)a0[r * hd + col]);
                        for (int k = 0; k < nk; k++)
                            S += fabs((double)P[r * ldp + k] * V[k * ldv + col]);
                        const double d = fabs((double)k1[r * hd + col] - k2[r * hd + col]);
                        cr_assert(d <= g * S, "hd %d nq %d nk %d (%d, %d): %.9g vs sgemm %.9g, bound %.3g", hd, nq,
                                  nk, r, col, k1[r * hd + col], k2[r * hd + col], g * S);
                        worst = fmax(worst, d / (g * S));
                    }
            }
    cr_log_info("P V kernel against sgemm: %d shapes, largest difference %.3f of the bound", ran, worst);
    free(P);
    free(V);
    free(a0);
    free(k1);
    free(k2);
}

/* Every width of the q k^T kernel (model/attn_qk.h) gives rl_attn_qk_ref's
 * bits (one chain of FMAs over d per entry, then the scaling), writes only
 * the nk columns of each of the nq rows (guards around them keep their
 * value), and the packing puts key j, dimension d where the reference reads
 * it: head dims 1 .. 80, query rows around the tiles' 8 and 6, key counts
 * around the panel's 32 and the block's 512. */
Test(model_attn, qk_kernel_widths_agree, .timeout = 60)
{
    rl_attn_qk_fn fns[2];
    const char *names[2];
    const int nv = rl_attn_qk_versions(fns, names);
    cr_log_info("q k kernel widths: %d (widest %s)", nv, nv ? names[0] : "none: sgemm");
    const int hds[] = { 1, 7, 16, 32, 48, 64, 80 }, nqs[] = { 1, 5, 6, 8, 9, 13, 128 };
    const int nks[] = { 1, 17, 32, 33, 512 };
    const long lds = 515, ldk = 3 * 80 + 5, ldq = 2 * 80 + 3;
    float *K = malloc(sizeof(float) * 512 * ldk), *Q = malloc(sizeof(float) * 128 * ldq);
    float *kp = malloc(sizeof(float) * rl_attn_qk_packed_floats(512, 80));
    float *ref = malloc(sizeof(float) * 128 * lds), *got = malloc(sizeof(float) * 128 * lds);
    tm_randn(K, 512 * ldk, 41, 1.0f);
    tm_randn(Q, 128 * ldq, 42, 2.0f);
    for (unsigned a = 0; a < sizeof hds / sizeof *hds; a++) {
        const int hd = hds[a];
        const float scale = 1.0f / sqrtf((float)hd);
        rl_attn_qk_pack(kp, K, ldk, 512, hd);
        for (int j = 0; j < 512; j += 37) /* where the layout says key j, dim d is */
            for (int d = 0; d < hd; d++)
                cr_assert(kp[(long)(j / RL_ATTN_QK_W) * RL_ATTN_QK_W * hd + (long)d * RL_ATTN_QK_W +
                             j % RL_ATTN_QK_W] == K[(long)j * ldk + d], "hd %d key %d dim %d", hd, j, d);
        for (unsigned b = 0; b < sizeof nqs / sizeof *nqs; b++)
            for (unsigned c = 0; c < sizeof nks / sizeof *nks; c++) {
                const int nq = nqs[b], nk = nks[c];
                for (long e = 0; e < 128 * lds; e++)
                    ref[e] = -7.0f;
                rl_attn_qk_ref(ref, lds, Q, ldq, kp, nq, nk, hd, scale);
                for (int v = 0; v < nv; v++) {
                    for (long e = 0; e < 128 * lds; e++)
                        got[e] = -7.0f;
                    fns[v](got, lds, Q, ldq, kp, nq, nk, hd, scale);
                    cr_expect(memcmp(got, ref, sizeof(float) * 128 * lds) == 0, "%s hd %d nq %d nk %d: not the "
                              "reference's bits, or wrote past the block", names[v], hd, nq, nk);
                }
            }
    }
    /* a partial last panel is packed with zeros */
    rl_attn_qk_pack(kp, K, ldk, 33, 16);
    for (int w = 1; w < RL_ATTN_QK_W; w++)
        for (int d = 0; d < 16; d++)
            cr_expect(kp[RL_ATTN_QK_W * 16 + d * RL_ATTN_QK_W + w] == 0.0f, "panel 1, key %d, dim %d", w, d);
    for (int hd = 0; hd <= 40; hd += 8)
        cr_expect((rl_attn_qk_pick(hd) != NULL) == (nv > 0 && hd > 0), "hd %d", hd);
    free(K);
    free(Q);
    free(kp);
    free(ref);
    free(got);
}

/* The kernel the streaming attention picks against the logits in float64,
 * entry by entry within attn_qk.h's bound scale (gamma_hd (1 + u) + u)
 * sum_d |q_d| |k_d|, u = 2^-24; and the streaming forward with it against
 * the plain forward (sgemm logits) to the same float rounding as before.
 * A dimension left out (about the bound's sum / hd) or a key shifted
 * breaks it by orders of magnitude. */
Test(model_attn, qk_kernel_against_float64, .timeout = 60)
{
    const double u = 0x1p-24;
    const int hds[] = { 16, 32, 64 }, nq = 128, nk = 512;
    const long ld = 3 * 64;
    float *K = malloc(sizeof(float) * nk * ld), *Q = malloc(sizeof(float) * nq * ld);
    float *kp = malloc(sizeof(float) * rl_attn_qk_packed_floats(nk, 64)), *S = malloc(sizeof(float) * nq * nk);
    tm_randn(K, nk * ld, 51, 1.0f);
    tm_randn(Q, nq * ld, 52, 3.0f);
    double worst = 0;
    int ran = 0;
    for (unsigned a = 0; a < sizeof hds / sizeof *hds; a++) {
        const int hd = hds[a];
        const rl_attn_qk_fn qk = rl_attn_qk_pick(hd);
        if (!qk)
            continue;
        ran++;
        const float scale = 1.0f / sqrtf((float)hd);
        rl_attn_qk_pack(kp, K, ld, nk, hd);
        qk(S, nk, Q, ld, kp, nq, nk, hd, scale);
        const double g = hd * u / (1 - hd * u);
        for (int r = 0; r < nq; r++)
            for (int j = 0; j < nk; j++) {
                double exact = 0, abs = 0;
                for (int d = 0; d < hd; d++) {
                    exact += (double)Q[(long)r * ld + d] * K[(long)j * ld + d];
                    abs += fabs((double)Q[(long)r * ld + d] * K[(long)j * ld + d]);
                }
                exact *= (double)scale;
                const double bound = (double)scale * (g * (1 + u) + u) * abs;
                const double diff = fabs(S[(long)r * nk + j] - exact);
                cr_assert(diff <= bound, "hd %d (%d, %d): %.9g vs %.9g, bound %.3g", hd, r, j, S[(long)r * nk + j],
                          exact, bound);
                worst = fmax(worst, diff / bound);
            }
    }
    cr_log_info("q k kernel against float64: %d head dims, largest error %.3f of the bound", ran, worst);
    free(K);
    free(Q);
    free(kp);
    free(S);
}
