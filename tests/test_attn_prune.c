/* test_attn_prune.c: the streaming attention's pruning with a proof
 * (model/attention.h, docs/speed/reproduction-and-pruning.md#pruned-attention).  Each rule driven
 * both ways: pruning happens and stays within its bound; at RL_ATTN_PRUNE_EXACT it is the
 * unpruned output byte for byte; logits crafted so large that the bound
 * never holds prune nothing; an observer (promised every block) or no bias
 * turns it off; the result does not depend on the thread count. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "test_model_util.h"

enum { B = 1, H = 2, HD = 16, C = H * HD, T = 3000 }; /* several 512-key blocks, a ragged end */
static const float SLOPES[H] = { 0.25f, 0.0625f };

typedef struct {
    float *qkv, *o;
    rl_attn_prune p;
    int n; /* tokens (T unless said) */
} run;

/* The streaming forward of r's q, k, v at eps (slopes: SLOPES or none) on
 * `threads` threads. */
static void attend(run *r, double eps, int threads, const float *slopes, const rl_attn_observer *obs)
{
    rl_attn_shape s = { .B = B, .T = r->n, .H = H, .hd = HD, .slopes = slopes, .observe = obs,
                        .prune_eps = eps, .prune = &r->p };
    const int was = omp_get_max_threads();
    omp_set_num_threads(threads);
    cr_assert_eq(rl_attention_forward_streaming(r->o, C, r->qkv, r->qkv + C, r->qkv + 2 * C, 3L * C, &s), RL_OK);
    omp_set_num_threads(was);
}

/* q, k, v ~ N(0, 1) (seed 11), q scaled by qscale, through attend. */
static run stream(double eps, float qscale, int threads, const float *slopes, const rl_attn_observer *obs)
{
    run r = { malloc(sizeof(float) * 3 * T * C), malloc(sizeof(float) * T * C), { 0, 0, 0, 0 }, T };
    tm_randn(r.qkv, 3L * T * C, 11, 1.0f);
    for (long t = 0; t < T; t++)
        for (int c = 0; c < C; c++)
            r.qkv[t * 3 * C + c] *= qscale;
    attend(&r, eps, threads, slopes, obs);
    return r;
}

static void done(run *r)
{
    free(r->qkv);
    free(r->o);
}

/* The causal pairs of both heads: H T (T + 1) / 2. */
static const double PAIRS = (double)H * T * (T + 1) / 2;

/* Random q, k, v: eps = 0.05 skips most pairs; every head output moves by
 * at most the reported bound 2 rho max|v| (plus float rounding of two
 * different summations, 1e-5 of |v| ~ 4), and the bound on the mass is at
 * most eps. */
Test(attn_prune, within_its_bound)
{
    run x = stream(0, 1, 1, SLOPES, NULL), p = stream(0.05, 1, 1, SLOPES, NULL);
    cr_assert_eq(x.p.pairs, 0, "eps 0 counts nothing");
    cr_assert_eq(p.p.pairs, PAIRS);
    cr_assert_gt(p.p.skipped, 0.5 * PAIRS, "pruning skipped %g of %g pairs", p.p.skipped, PAIRS);
    cr_assert_leq(p.p.mass, 0.05);
    double worst = 0;
    for (long t = 0; t < T; t++)
        for (int h = 0; h < H; h++) {
            double d = 0;
            for (int c = 0; c < HD; c++) {
                const double e = (double)p.o[t * C + h * HD + c] - x.o[t * C + h * HD + c];
                d += e * e;
            }
            worst = fmax(worst, sqrt(d));
        }
    cr_log_info("eps 0.05: skipped %.3f, mass bound %.3g, output bound %.3g, largest change %.3g",
                p.p.skipped / PAIRS, p.p.mass, p.p.out, worst);
    cr_assert_gt(worst, 0, "pruning changed nothing: the test would not see a wrong bound");
    cr_assert_leq(worst, p.p.out + 4e-5, "an output moved by %g, beyond the bound %g", worst, p.p.out);
    done(&x);
    done(&p);
}

/* Where Cauchy-Schwarz is tight the bound is nearly met, so a wrong one
 * fails: every q_i = k_j = 2u (|u| = 1; every scaled logit 1, the max), both
 * slopes 1/16, and v_j = u for j >= 1536 (a key block's start), else 0.  The
 * query block 128 past it skips exactly the keys with v = 0 and keeps only
 * those with v = u, so o' = u, o = (1 - rho_i) u: its rows move by rho_i
 * itself, while the bound is 2 rho_i / (1 - e^(-1/16)) (the tail's factor,
 * the denominator bounded by its largest term; |v| <= 1), 33 rho_i.  (The
 * slope is small enough that a query block 129 keys past a key block's end
 * may skip it: blocks of 128 queries and 512 keys leave no nearer skip.)
 * The largest change must lie within the bound and above a 50th of it (a
 * bound that used only the skipped keys' |v|, 0 here, fails the first; one
 * 50 times too loose, the second). */
Test(attn_prune, the_bound_is_nearly_met_where_it_is_tight)
{
    enum { N = 3 * RL_ATTN_SK + 256 }; /* the query blocks 1536 and 1664 past the step: nothing later */
    static const float flat[H] = { 0.0625f, 0.0625f };
    run x = { malloc(sizeof(float) * 3 * N * C), malloc(sizeof(float) * N * C), { 0, 0, 0, 0 }, N };
    run p = { malloc(sizeof(float) * 3 * N * C), malloc(sizeof(float) * N * C), { 0, 0, 0, 0 }, N };
    memset(x.qkv, 0, sizeof(float) * 3 * N * C);
    for (long t = 0; t < N; t++)
        for (int h = 0; h < H; h++) {
            x.qkv[t * 3 * C + h * HD] = x.qkv[t * 3 * C + C + h * HD] = 2.0f;
            x.qkv[t * 3 * C + 2 * C + h * HD] = t >= 3 * RL_ATTN_SK ? 1.0f : 0.0f;
        }
    memcpy(p.qkv, x.qkv, sizeof(float) * 3 * N * C);
    attend(&x, 0, 1, flat, NULL);
    attend(&p, 0.05, 1, flat, NULL);
    cr_assert_gt(p.p.skipped, 0);
    double worst = 0;
    for (long i = 0; i < (long)N * C; i++)
        worst = fmax(worst, fabs((double)p.o[i] - x.o[i]));
    cr_log_info("tight case: skipped %.3f, mass bound %.3g, output bound %.3g, largest change %.3g",
                p.p.skipped / p.p.pairs, p.p.mass, p.p.out, worst);
    cr_assert_leq(worst, p.p.out + 1e-6, "an output moved by %g, beyond the bound %g", worst, p.p.out);
    cr_assert_geq(worst, p.p.out / 50, "the bound %g is more than 50 times the change %g", p.p.out, worst);
    done(&x);
    done(&p);
}

/* At eps = 2^-100 only what the softmax flushes to 0 is skipped: the
 * output is the unpruned one, byte for byte, and something was skipped. */
Test(attn_prune, exact_eps_is_the_same_bytes)
{
    run x = stream(0, 1, 1, SLOPES, NULL), p = stream(RL_ATTN_PRUNE_EXACT, 1, 1, SLOPES, NULL);
    cr_assert_gt(p.p.skipped, 0.3 * PAIRS, "skipped %g of %g", p.p.skipped, PAIRS);
    cr_assert_leq(p.p.mass, RL_ATTN_PRUNE_EXACT);
    cr_assert_eq(memcmp(x.o, p.o, sizeof(float) * T * C), 0, "the outputs differ");
    done(&x);
    done(&p);
}

/* q scaled by 1e4: the logit bound qn K is thousands of nats above the
 * realised max, more than the largest bias m_h (T - 1) = 750 can offset:
 * nothing may be skipped, and the output is the exact one. */
Test(attn_prune, crafted_logits_make_it_impossible)
{
    run x = stream(0, 1e4f, 1, SLOPES, NULL), p = stream(1e-6, 1e4f, 1, SLOPES, NULL);
    cr_assert_eq(p.p.pairs, PAIRS);
    cr_assert_eq(p.p.skipped, 0, "skipped %g pairs", p.p.skipped);
    cr_assert_eq(p.p.mass, 0);
    cr_assert_eq(memcmp(x.o, p.o, sizeof(float) * T * C), 0);
    done(&x);
    done(&p);
}

static void count_blocks(void *ctx, int b, int h, long i0, long i1, long j0, long j1, const float *S, long lds)
{
    (void)b, (void)h, (void)i0, (void)i1, (void)j0, (void)j1, (void)S, (void)lds;
#pragma omp atomic
    ++*(long *)ctx;
}

/* An observer is promised every block (the probe reads them all), and
 * without a bias there is nothing to prove: no pruning either way. */
Test(attn_prune, off_with_an_observer_or_without_a_bias)
{
    long blocks = 0;
    const rl_attn_observer obs = { count_blocks, &blocks };
    run o = stream(0.05, 1, 1, SLOPES, &obs), n = stream(0.05, 1, 1, NULL, NULL);
    /* 64-query blocks, all key blocks up to the diagonal: sum over 47 query blocks of ceil(i1 / 512) */
    long want = 0;
    for (long i0 = 0; i0 < T; i0 += RL_ATTN_SQ) {
        const long i1 = i0 + RL_ATTN_SQ < T ? i0 + RL_ATTN_SQ : T;
        want += (i1 + RL_ATTN_SK - 1) / RL_ATTN_SK;
    }
    cr_assert_eq(blocks, H * want, "the observer saw %ld blocks, %ld exist", blocks, H * want);
    cr_assert_eq(o.p.pairs, 0);
    cr_assert_eq(n.p.pairs, 0);
    done(&o);
    done(&n);
}

/* Which blocks are skipped depends on each block's own numbers, never on
 * the schedule: 1 and 2 threads, the same bytes and the same counts. */
Test(attn_prune, same_bytes_any_thread_count)
{
    run a = stream(1e-6, 1, 1, SLOPES, NULL), b = stream(1e-6, 1, 2, SLOPES, NULL);
    cr_assert_gt(a.p.skipped, 0);
    cr_assert_eq(memcmp(a.o, b.o, sizeof(float) * T * C), 0);
    cr_assert_eq(memcmp(&a.p, &b.p, sizeof a.p), 0);
    done(&a);
    done(&b);
}
