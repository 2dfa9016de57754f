/* test_eval_paired.c: the full-stream, token-paired evaluation
 * (model/evaluate.h): the spans and windows depend on the stream and the
 * longest length alone, every length scores the same targets, the paired
 * ratio is 1 for a model that cannot see past T and not for one that can,
 * the newest positions are those beyond T, and the no-context loss is the
 * add-one unigram of the training split. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../model/evaluate.h"
#include "helpers.h"
#include "test_model_util.h"

static rl_tokens stream(long n, uint64_t seed, int V)
{
    rl_tokens t = { rl_xmalloc(sizeof(uint16_t) * (size_t)n), n, { 0, 0 } };
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed, 0);
    /* a repetitive text: a period-7 pattern with noise, so context helps */
    for (long i = 0; i < n; i++)
        t.tok[i] = (uint16_t)(rl_rng_next64(r) % 4 ? (uint64_t)((i % 7) * 3 % V) : rl_rng_next64(r) % (uint64_t)V);
    gsl_rng_free(r);
    return t;
}

Test(eval_paired, spans_from_the_stream_alone)
{
    rl_tokens t = stream(100001, 1, 64);
    rl_err err;
    rl_eval_spans s;
    /* the full stream: every slot of Lmax + 1 tokens, end to end from token 0 */
    cr_assert_eq(rl_eval_spans_plan(&t, 1000, 0, &s, &err), RL_OK);
    cr_expect_eq(s.slots, 100);
    cr_expect_eq(s.n, 100);
    for (long i = 0; i < s.n; i++)
        cr_expect_eq(s.start[i], 1000 * i);
    rl_eval_spans_free(&s);
    /* 2,500 targets: 3 spans, slot floor(i 100 / 3): 0, 33, 66 */
    cr_assert_eq(rl_eval_spans_plan(&t, 1000, 2500, &s, &err), RL_OK);
    cr_expect_eq(s.wanted, 3);
    cr_expect_eq(s.n, 3);
    cr_expect_eq(s.start[0], 0);
    cr_expect_eq(s.start[1], 33000);
    cr_expect_eq(s.start[2], 66000);
    /* window j of span i at L = 250: inside the span, targets disjoint */
    cr_expect_eq(rl_eval_window_start(&s, 1, 250, 3), 33750);
    cr_expect_eq(rl_eval_window_key(5, 250, 33750), rl_eval_window_key(5, 250, 33750));
    cr_expect_neq(rl_eval_window_key(5, 250, 33750), rl_eval_window_key(6, 250, 33750));
    rl_eval_spans_free(&s);
    /* more than the stream holds: every slot, the shortfall visible */
    cr_assert_eq(rl_eval_spans_plan(&t, 1000, 1L << 20, &s, &err), RL_OK);
    cr_expect_eq(s.wanted, 1049);
    cr_expect_eq(s.n, 100);
    rl_eval_spans_free(&s);
    /* another text of the same length: the same spans (no model, no seed) */
    rl_tokens u = stream(100001, 2, 64);
    rl_eval_spans a, b;
    cr_assert_eq(rl_eval_spans_plan(&t, 1000, 7000, &a, &err), RL_OK);
    cr_assert_eq(rl_eval_spans_plan(&u, 1000, 7000, &b, &err), RL_OK);
    cr_assert_eq(a.n, b.n);
    cr_expect_arr_eq(a.start, b.start, sizeof(long) * (size_t)a.n);
    rl_eval_spans_free(&a);
    rl_eval_spans_free(&b);
    /* too short a stream, a bad length */
    cr_expect_eq(rl_eval_spans_plan(&t, 100001, 1, &s, &err), RL_EINPUT);
    cr_expect_eq(rl_eval_spans_plan(&t, 0, 1, &s, &err), RL_EINPUT);
    free(t.tok);
    free(u.tok);
}

/* A model of scheme pos, 2 layers of width 32, context T, parameters away
 * from initialisation (attention that uses its context), with one
 * training window (the reference test's own forward). */
static rl_gpt *model(const char *pos, int T, int V)
{
    rl_gpt_config cfg = { 2, 32, 4, T, V, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    cr_assert(m);
    rl_gpt_init(m, 3);
    tm_randn(m->params, m->nparams, 4, 0.15f);
    return m;
}

/* Every length, the paired statistics of a model on the spans. */
static void paired(rl_gpt *m, const rl_tokens *val, long Lmax, long T, rl_eval_row *row, int nl)
{
    rl_err err;
    rl_eval_spans s;
    cr_assert_eq(rl_eval_spans_plan(val, Lmax, 0, &s, &err), RL_OK);
    float *ref = rl_eval_reference(m, val, &s, 9);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, Lmax);
    for (int i = 0; i < nl; i++)
        row[i] = rl_eval_length(m, e, val, &s, ref, NULL, T << i, T, 9, NULL);
    rl_gpt_eval_free(e);
    free(ref);
    rl_eval_spans_free(&s);
}

/* ALiBi with slopes so steep that every key but the query's own weighs
 * e^-1000 (0 in float): the model cannot see past T, and the token-paired
 * ratio is 1 at every length, to float rounding (the reference runs the
 * training kernels, the windows the streaming ones).  The same model with
 * slopes 0 sees every key: its ratio is not 1.  At L = T the pairing is
 * exact by construction. */
Test(eval_paired, ratio_is_one_for_a_model_blind_past_T, .timeout = 60)
{
    const int T = 16, V = 32;
    const long Lmax = 8 * T;
    rl_tokens val = stream(4 * Lmax + 1, 7, V);
    rl_gpt *m = model("alibi", T, V);
    rl_eval_row seeing[4], blind[4];
    for (int h = 0; h < m->cfg.heads; h++)
        m->slopes[h] = 0.0f; /* no bias: every key weighs in */
    paired(m, &val, Lmax, T, seeing, 4);
    for (int h = 0; h < m->cfg.heads; h++)
        m->slopes[h] = 1000.0f;
    paired(m, &val, Lmax, T, blind, 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(blind[i].targets, 4 * Lmax, "every length scores every target of the 4 spans");
        cr_expect_eq(blind[i].new_targets, blind[i].windows * (blind[i].L - T));
        cr_log_info("L %ld: blind D %.3g new %.3g, seeing D %.3g new %.3g", blind[i].L, blind[i].dlog,
                    blind[i].new_dlog, seeing[i].dlog, seeing[i].new_dlog);
    }
    cr_expect_eq(blind[0].dlog, 0.0, "L = T: every target within T");
    cr_expect(isnan(blind[0].new_dlog), "no target beyond T at L = T");
    for (int i = 1; i < 4; i++) {
        cr_expect_lt(fabs(blind[i].dlog), 1e-6, "L %ld: D %g", blind[i].L, blind[i].dlog);
        cr_expect_lt(fabs(blind[i].new_dlog), 1e-6, "L %ld: D_new %g", blind[i].L, blind[i].new_dlog);
        cr_expect_gt(fabs(seeing[i].new_dlog), 1e-4, "L %ld: a model that sees past T, D_new %g",
                     seeing[i].L, seeing[i].new_dlog);
        /* D is D_new diluted by the targets within T */
        cr_expect_float_eq(seeing[i].dlog, seeing[i].new_dlog * (seeing[i].L - T) / seeing[i].L, 1e-9);
        cr_expect_float_eq(seeing[i].dlog, seeing[i].loss - seeing[i].ref, 1e-9);
    }
    rl_gpt_free(m);
    free(val.tok);
}

/* The reference of target q is the last loss of the window of T before it:
 * the training forward of that one window, for a scheme with rotation noise
 * too (same key, same noise); and the unigram loss is -log((c + 1)/(n + V)). */
Test(eval_paired, reference_is_the_window_of_T_before_each_target, .timeout = 60)
{
    const int T = 8, V = 16;
    const long Lmax = 4 * T;
    rl_tokens val = stream(Lmax + 1, 3, V);
    rl_gpt *m = model("rope", T, V);
    rl_err err;
    rl_eval_spans s;
    cr_assert_eq(rl_eval_spans_plan(&val, Lmax, 0, &s, &err), RL_OK);
    float *ref = rl_eval_reference(m, &val, &s, 1);
    for (long q = 0; q < Lmax; q++) {
        if (q < T) {
            cr_expect(isnan(ref[q]));
            continue;
        }
        rl_gpt_forward(m, val.tok + q + 1 - T, T + 1, 1, T, 0, 0);
        cr_expect_float_eq(ref[q], m->losses[T - 1], 1e-5, "q %ld", q);
    }
    free(ref);
    rl_eval_spans_free(&s);
    rl_tokens tr = { (uint16_t[]){ 0, 0, 0, 1, 2, 2 }, 6, { 0, 0 } };
    float *u = rl_eval_unigram(&tr, 4);
    cr_expect_float_eq(u[0], -log(4.0 / 10), 1e-6);
    cr_expect_float_eq(u[1], -log(2.0 / 10), 1e-6);
    cr_expect_float_eq(u[3], -log(1.0 / 10), 1e-6);
    free(u);
    rl_gpt_free(m);
    free(val.tok);
}
