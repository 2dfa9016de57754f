/* test_horizon.c: the predicted horizon from per-block windows
 * (model/steplaw.h), the measured horizon from an evaluation
 * (program/reproduce/horizon.h), and `routelab horizon`.  Suite horizon, < 2 s. */
#include <criterion/criterion.h>

#include <complex.h>
#include <omp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "test_model_util.h"
#include "../model/accum_rot.h"
#include "../model/steplaw.h"
#include "../program/reproduce/horizon.h"
#include "../sampling/so2.h"
#include "../theory/mixstay_forms.h"
#include "../theory/theory.h"

static rl_gpt *model(const char *pos, int B)
{
    rl_gpt_config c = { .layers = 2, .width = 64, .heads = 2, .ctx = 16, .vocab = 16, .dropout = 0.0f,
                        .pos = tm_pos(pos), .rot_base = RL_ROT_BASE_DEFAULT };
    rl_gpt *m;
    rl_err err;
    cr_assert_eq(rl_gpt_new(&m, &c, B, &err), RL_OK, "%s", err.msg);
    rl_gpt_init(m, 7);
    return m;
}

/* n tokens of a skewed law over 16 ids (a unigram law far from uniform) */
static uint16_t *tokens(long n)
{
    uint16_t *t = malloc(sizeof *t * n);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 3, 0);
    for (long i = 0; i < n; i++) {
        double u = gsl_rng_uniform(r);
        t[i] = (uint16_t)(16 * u * u);
    }
    gsl_rng_free(r);
    return t;
}

Test(horizon, predict_rule)
{
    const long W[] = { 10, 64, -1, 200, 65, 1 };
    cr_expect_eq(rl_horizon_predict(W, 6, 64), 65, "least window beyond T");
    cr_expect_eq(rl_horizon_predict(W, 6, 65), 200, "a window at T is mixed in training");
    const long mixed[] = { 1, 5, 64, -1, -1 };
    cr_expect_eq(rl_horizon_predict(mixed, 5, 64), -1, "every window <= T or never: no prediction");
    cr_expect_eq(rl_horizon_predict(mixed, 0, 64), -1, "no blocks");
}

/* random angles: the windows are the theory's closed form, block by block */
Test(horizon, closed_form_random)
{
    rl_steplaw s;
    rl_err err;
    cr_assert_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, 10000.0, 64, 0.1, &s, &err), RL_OK);
    cr_assert_eq(s.layers * s.lanes, 16);
    long hmin = -1;
    int at = 0;
    for (int b = 0; b < 16; b++) {
        const double w = pow(10000.0, -2.0 * b / 32), l = log(sin(w) / w);
        const double q = log(10.0) / -l; /* the window before the ceiling */
        cr_expect(fabs(s.logchi[b] - l) <= 1e-6 * fabs(l), "block %d: log chi %.17g vs %.17g", b, s.logchi[b], l);
        if (q < 1e6) /* exact to the integer where log(sin w / w) is good to many digits */
            cr_expect_eq(s.window[b], (long)ceil(q), "block %d: window %ld vs %.6f", b, s.window[b], q);
        else
            cr_expect(fabs(s.window[b] - q) <= 1e-6 * q + 1, "block %d", b);
        at += s.window[b] <= 64;
        if (s.window[b] > 64 && (hmin < 0 || s.window[b] < hmin))
            hmin = s.window[b];
    }
    cr_expect_eq(s.at_ctx, at);
    cr_expect_eq(s.at_ctx, 2, "head dim 32, T = 64: 2 of 16 blocks mix within T (docs/grids/design.md#grid-wiring)");
    cr_expect_eq(s.horizon, hmin);
    /* block 2 (omega = 10000^(-1/8)): the least window beyond 64 */
    const double w2 = pow(10000.0, -0.125);
    cr_expect_eq(s.horizon, (long)ceil(log(10.0) / -log(sin(w2) / w2)));
    rl_steplaw_free(&s);
    /* constant angles: no block mixes, no prediction */
    cr_assert_eq(rl_steplaw_closed(RL_ANG_CONSTANT, 32, 10000.0, 64, 0.1, &s, &err), RL_OK);
    for (int b = 0; b < 16; b++)
        cr_expect_eq(s.window[b], -1);
    cr_expect_eq(s.horizon, -1);
    rl_steplaw_free(&s);
}

/* a model's law follows its configuration */
Test(horizon, law_of_model)
{
    rl_tokens val = { tokens(200), 200, { 0, 0 } };
    rl_err err;
    rl_steplaw s, c;
    rl_gpt *m = model("random_qkv", 1);
    cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, m->cfg.rot_base, 16, 0.1, &c, &err), RL_OK);
    cr_expect_eq(s.kind, RL_STEPS_CLOSED);
    for (int b = 0; b < 16; b++)
        cr_expect_eq(s.window[b], c.window[b]);
    cr_expect_eq(s.horizon, c.horizon);
    rl_steplaw_free(&s);
    rl_steplaw_free(&c);
    rl_gpt_free(m);
    m = model("fixed-rope", 1);
    cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &s, &err), RL_OK);
    cr_expect_eq(s.kind, RL_STEPS_CONSTANT);
    cr_expect_eq(s.horizon, -1);
    rl_steplaw_free(&s);
    rl_gpt_free(m);
    m = model("alibi", 1);
    cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &s, &err), RL_OK);
    cr_expect_eq(s.kind, RL_STEPS_NONE);
    cr_expect_eq(s.layers * s.lanes, 0);
    cr_expect_eq(s.horizon, -1);
    rl_steplaw_free(&s);
    rl_gpt_free(m);
    free(val.tok);
}

/* Every configuration of the registry: rl_steplaw_of reads the law its
 * scheme's object names (steps_kind; constant and closed: step_law, the
 * closed form's blocks; measured: layers x rl_scheme_step_lanes blocks). */
Test(horizon, law_of_every_scheme)
{
    rl_tokens val = { tokens(200), 200, { 0, 0 } };
    tm_scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    for (size_t i = 0; i < n; i++) {
        const char *name = rl_pos_name(c[i].pos);
        rl_gpt *m = model(name, 1);
        const rl_scheme *S = m->sx.s;
        rl_steplaw s;
        rl_err err;
        cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &s, &err), RL_OK, "%s: %s", name, err.msg);
        cr_expect_eq(s.kind, S->steps_kind, "%s: kind %s", name, rl_steps_kind_name(s.kind));
        if (S->steps_kind == RL_STEPS_CONSTANT || S->steps_kind == RL_STEPS_CLOSED) {
            cr_expect_eq(s.law, S->step_law, "%s", name);
            cr_expect_eq(s.layers * s.lanes, m->hd / 2, "%s", name);
        } else if (S->steps_kind == RL_STEPS_MEASURED) {
            cr_expect_eq(s.layers * s.lanes, m->cfg.layers * rl_scheme_step_lanes(&m->sx), "%s", name);
        } else if (S->steps_kind == RL_STEPS_TRANSPORT) {
            cr_expect_eq(s.layers * s.lanes, m->cfg.layers * m->cfg.heads, "%s: one reading per head", name);
        } else {
            cr_expect_eq(s.layers * s.lanes, 0, "%s", name);
        }
        rl_steplaw_free(&s);
        rl_gpt_free(m);
    }
    rl_steplaw s;
    rl_err err;
    cr_expect_eq(rl_steplaw_closed(RL_ANG_COUNT, 32, 10000, 64, 0.1, &s, &err), RL_EINPUT, "no such law");
    free(val.tok);
}

/* The measurement on random's table (halfwidth omega at every step)
 * reproduces the closed form: the two passes add no error. */
Test(horizon, measured_random_is_closed_form)
{
    rl_gpt *m = model("random_qk", 2);
    uint16_t *t = tokens(161);
    rl_steplaw s, c;
    rl_err err;
    cr_assert_eq(rl_steplaw_measure(m, t, 161, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, m->cfg.rot_base, 16, 0.1, &c, &err), RL_OK);
    cr_expect_eq(s.positions, 10 * 15, "10 windows of 16, positions 1..15");
    cr_assert_eq(s.lanes, 32, "H hd/2 lanes");
    for (int l = 0; l < 2; l++)
        for (int j = 0; j < 32; j++) {
            const double a = s.logchi[l * 32 + j], b = c.logchi[j % 16];
            cr_expect(fabs(a - b) <= 1e-12 * fabs(b), "layer %d lane %d: %.17g vs %.17g", l, j, a, b);
            cr_expect_eq(s.window[l * 32 + j], c.window[j % 16]);
        }
    cr_expect_eq(s.horizon, c.horizon);
    rl_steplaw_free(&s);
    rl_steplaw_free(&c);
    free(t);
    rl_gpt_free(m);
}

/* pemb: a constant table gives constant angles, |chi| = 1 exactly (the
 * constant law, up to ulp^2: no window); a random table gives |chi| in [0, 1] equal to
 * the unigram sum  sum_v p_v e^{i theta(v)}  (the same quantity formed
 * another way). */
Test(horizon, pemb_constant_and_unigram)
{
    /* both conventions (docs/model/schemes.md#pemb-author): the step at position t is
     * theta(x_{t-k}), k = 1 the key's token (pemb: lanes H P head-major), k
     * = 0 the query's (pemb-shared: lanes P) */
    const char *names[2] = { "pemb-shared_qk", "pemb_qk" };
    for (int k = 0; k < 2; k++) {
        rl_gpt *m = model(names[k], 1);
        const int P = 16, V = 16, lanes = k ? 2 * P : P;
        const long n = 16 * 40 + 1;
        uint16_t *t = tokens(n);
        rl_steplaw s;
        rl_err err;
        cr_assert_eq(rl_scheme_step_lanes(&m->sx), lanes, "%s", names[k]);
        for (int l = 0; l < 2; l++)
            for (long i = 0; i < (long)V * lanes; i++)
                m->p.pos[l][i] = 0.3f; /* every token the same step */
        cr_assert_eq(rl_steplaw_measure(m, t, n, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
        for (int b = 0; b < 2 * lanes; b++) {
            /* the phase of chi is the step's to an ulp: 1 - |chi| ~ ulp^2 */
            cr_expect(s.logchi[b] <= 0 && s.logchi[b] > -1e-25, "%s block %d: log |chi| = %g, not ~0", names[k], b,
                      s.logchi[b]);
            cr_expect_eq(s.window[b], -1);
        }
        cr_expect_eq(s.horizon, -1);
        rl_steplaw_free(&s);
        tm_randn(m->p.pos[0], (long)V * lanes, 11, 1.0f);
        tm_randn(m->p.pos[1], (long)V * lanes, 12, 0.05f);
        cr_assert_eq(rl_steplaw_measure(m, t, n, 1, 0.1, &s, &err), RL_OK);
        double cnt[16] = { 0 };
        long tot = 0;
        for (long i = 0; i < n - 1; i++)
            if (i % 16) { /* positions 1..15 of each window step by their token k back */
                cnt[t[i - k]]++;
                tot++;
            }
        for (int l = 0; l < 2; l++)
            for (int j = 0; j < lanes; j++) {
                double complex z = 0;
                for (int v = 0; v < V; v++)
                    z += cnt[v] / tot *
                         cexp(I * (M_PI * tanh((double)m->p.pos[l][v * lanes + j]) + pow(10000.0, -2.0 * (j % P) / 32)));
                const double a = exp(s.logchi[l * lanes + j]);
                cr_expect(a >= 0 && a <= 1, "|chi| = %g", a);
                cr_expect(fabs(a - cabs(z)) < 1e-12, "%s layer %d lane %d: %.15f vs %.15f", names[k], l, j, a, cabs(z));
            }
        cr_expect(s.window[0] >= 1, "sd-1 offsets mix block 0 of layer 0");
        rl_steplaw_free(&s);
        free(t);
        rl_gpt_free(m);
    }
}

/* lf: with the MLP's output projection zero, f = |LN bias| at every step:
 * U(-f, f) steps, the closed form sin f / f; at initialisation |chi| in
 * [0, 1] */
Test(horizon, lf_constant_is_uniform_law)
{
    rl_gpt *m = model("lf_qkv", 2);
    const long n = 16 * 12 + 1;
    uint16_t *t = tokens(n);
    rl_steplaw s;
    rl_err err;
    cr_assert_eq(rl_steplaw_measure(m, t, n, 5, 0.1, &s, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(s.lanes, 32);
    for (int b = 0; b < 2 * 32; b++) {
        const double a = exp(s.logchi[b]);
        cr_expect(a >= 0 && a <= 1 && s.logchi[b] <= 0, "block %d: |chi| = %g", b, a);
    }
    rl_steplaw_free(&s);
    memset(m->p.pos[RL_LF_PROJW], 0, sizeof(float) * 32 * 64);
    memset(m->p.pos[RL_LF_PROJB], 0, sizeof(float) * 32);
    float *bias = m->p.pos[RL_LF_LNB];
    for (int j = 0; j < 32; j++)
        bias[j] = (float)(j % 2 ? -1 : 1) * (float)pow(10000.0, -2.0 * (j % 16) / 32);
    cr_assert_eq(rl_steplaw_measure(m, t, n, 5, 0.1, &s, &err), RL_OK);
    for (int l = 0; l < 2; l++)
        for (int j = 0; j < 32; j++) {
            const double f = fabs((double)bias[j]), want = rl_angle_log_norm(RL_ANG_UNIFORM, f);
            cr_expect(fabs(s.logchi[l * 32 + j] - want) <= 1e-12 * fabs(want), "layer %d lane %d: %.17g vs %.17g", l,
                      j, s.logchi[l * 32 + j], want);
            cr_expect_eq(s.window[l * 32 + j], rl_mixing_window_log(want, 0.1));
        }
    rl_steplaw_free(&s);
    free(t);
    rl_gpt_free(m);
}

Test(horizon, measure_bad_input)
{
    rl_steplaw s;
    rl_err err;
    uint16_t *t = tokens(40);
    rl_gpt *m = model("pemb_qk", 1);
    cr_expect_eq(rl_steplaw_measure(m, t, 16, 1, 0.1, &s, &err), RL_EINPUT, "fewer than T + 1 tokens");
    cr_expect(strstr(err.msg, "T + 1"), "%s", err.msg);
    cr_expect_eq(rl_steplaw_measure(m, t, 40, 1, 0.0, &s, &err), RL_EINPUT, "eps 0");
    cr_expect_eq(rl_steplaw_measure(m, t, 40, 1, 1.0, &s, &err), RL_EINPUT, "eps 1");
    rl_gpt_free(m);
    m = model("pemb_qk", 0);
    cr_expect_eq(rl_steplaw_measure(m, t, 40, 1, 0.1, &s, &err), RL_EINPUT, "no activations");
    rl_gpt_free(m);
    m = model("rope", 1);
    cr_expect_eq(rl_steplaw_measure(m, t, 40, 1, 0.1, &s, &err), RL_EINPUT, "rope accumulates no steps");
    rl_gpt_free(m);
    cr_expect_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 31, 10000, 64, 0.1, &s, &err), RL_EINPUT);
    cr_expect_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, 1.0, 64, 0.1, &s, &err), RL_EINPUT);
    cr_expect_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, 10000, 0, 0.1, &s, &err), RL_EINPUT);
    free(t);
}

/* the measured rule: exceeding 1 by 2 SE at the third length -> that length */
Test(horizon, measured_rule)
{
    const long len[] = { 64, 128, 256, 512, 1024 };
    /* 128: +0.05 with se 0.05 and 0.05 (z = 0.7); 256: +0.2 (z = 2.83) */
    const double loss[] = { 2.0, 2.05, 2.2, 2.1, 2.5 }, se[] = { 0.05, 0.05, 0.05, 0.05, 0.05 };
    cr_expect_eq(rl_horizon_measured(len, loss, se, 5), 256);
    const double flat[] = { 2.0, 1.9, 2.05, 2.1, 2.14 }; /* 2.14: 0.14 = 1.98 SE, not beyond 2 */
    cr_expect_eq(rl_horizon_measured(len, flat, se, 5), -1, "never: beyond the grid");
    const double edge[] = { 2.0, 2.0 + 2 * hypot(0.05, 0.05) + 1e-9, 2.0, 2.0, 2.0 };
    cr_expect_eq(rl_horizon_measured(len, edge, se, 5), 128);
    /* from a file of eval's format */
    char *d = th_tmpdir(), *p = th_path(d, "eval.tsv");
    FILE *f = fopen(p, "w");
    fprintf(f, "length\twindows\tmean_loss\tstderr\tppl\tratio\n");
    for (int i = 0; i < 5; i++)
        fprintf(f, "%ld\t8\t%.6f\t%.6f\t%.4f\t%.4f\n", len[i], loss[i], se[i], exp(loss[i]), exp(loss[i] - 2));
    fclose(f);
    long H, top;
    rl_err err;
    cr_assert_eq(rl_horizon_measured_file(p, &H, &top, &err), RL_OK);
    cr_expect_eq(H, 256);
    cr_expect_eq(top, 1024);
    f = fopen(p, "w");
    fprintf(f, "length\twindows\n");
    fclose(f);
    cr_expect_eq(rl_horizon_measured_file(p, &H, &top, &err), RL_EINPUT, "no rows");
    th_rmdir(d);
    free(p);
    free(d);
}

/* the command on a tiny trained lf model: per-block rows, H, exit 0 */
Test(horizon, command, .timeout = 60)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *run = th_path(d, "run"), cmd[2048], out[8192], err[2048];
    th_write_text(txt, 200);
    snprintf(cmd, sizeof cmd, "train --data %s --out %s --pos lf_qk --layers 1 --width 16 --heads 2 --ctx 8 "
                              "--batch 2 --steps 2 --threads 1", txt, run);
    cr_assert_eq(th_run(cmd, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "horizon --ckpt %s/ckpt.bin --data %s --tokens 200 --threads 1", run, txt);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "step law measured"), "%s", out);
    cr_expect(strstr(out, "predicted H = "), "%s", out);
    char *tsv = th_path(run, "horizon.tsv");
    FILE *f = fopen(tsv, "r");
    cr_assert(f, "no horizon.tsv");
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    cr_expect_eq(rows, 1 + 8, "header + 1 layer x 8 lanes");
    char kind[16];
    long H;
    rl_err e;
    cr_expect_eq(rl_horizon_read(tsv, kind, sizeof kind, &H, &e), RL_OK);
    cr_expect_str_eq(kind, "measured");
    th_rmdir(d);
    free(tsv);
    free(d);
    free(txt);
    free(run);
}

/* routelab's mix-or-stay reading of a law (steplaw.h: harm, mix, score).
 * Closed laws: the per-block distances of rl_mixstay_law for the same law,
 * and the drifting law scores far above the zero-mean one of the same
 * |chi|.  Measured laws: random measured on text has the closed form's
 * harmonics (to rounding) and so its distances at the measured harmonic
 * count; pemb with a constant table steps by the constant c, a point mass,
 * whose harmonics e^{i k c} give the constant law's distances. */
Test(horizon, mixstay_reading_of_closed_and_measured_laws)
{
    rl_steplaw u, d;
    rl_err err;
    const double base = 935.6689868133536;
    cr_assert_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, base, 16, 0.1, &u, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_steplaw_closed(RL_ANG_DRIFT, 32, base, 16, 0.1, &d, &err), RL_OK, "%s", err.msg);
    rl_mixstay_block blk[16];
    double sc[2];
    cr_assert_eq(rl_mixstay_law(RL_ANG_UNIFORM, 32, base, 1, 16, 16 * RL_MIXSTAY_MULT, RL_MIXSTAY_HARMONICS, blk, sc,
                                &err),
                 RL_OK);
    for (int b = 0; b < 16; b++)
        cr_expect_eq(u.mix[b], blk[b].lo, "block %d", b);
    cr_expect_eq(u.score, sc[0]);
    cr_expect_gt(d.score, 2 * u.score, "drift %g, zero-mean %g", d.score, u.score);
    rl_steplaw_free(&u);
    rl_steplaw_free(&d);

    /* measured: random on text against its closed form at the measured count */
    rl_gpt *m = model("random_qk", 2);
    uint16_t *t = tokens(161);
    rl_steplaw s;
    cr_assert_eq(rl_steplaw_measure(m, t, 161, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(s.nharm, RL_STEPLAW_HARMONICS_MEASURED);
    double om[16];
    rl_so2_freqs(32, m->cfg.rot_base, 1.0, om);
    double complex h[RL_STEPLAW_HARMONICS_MEASURED];
    for (int j = 0; j < 32; j++) {
        rl_angle_harmonics(RL_ANG_UNIFORM, om[j % 16], s.nharm, h);
        double e = 0;
        for (int k = 0; k < s.nharm; k++)
            e = fmax(e, cabs(h[k] - s.harm[(long)j * s.nharm + k]));
        cr_expect_lt(e, 1e-12, "lane %d: harmonics off by %g", j, e);
        rl_mixstay_block mb;
        cr_assert_eq(rl_mixstay_chi(h, s.nharm, 16, 16 * RL_MIXSTAY_MULT, &mb, NULL, &err), RL_OK);
        cr_expect(fabs(s.mix[j] - mb.lo) <= 1e-9, "lane %d: %.12g vs %.12g", j, s.mix[j], mb.lo);
    }
    rl_steplaw_free(&s);
    rl_gpt_free(m);

    /* measured: pemb with a constant table, a point-mass step (lanes H P:
     * its first P are head 0's) */
    m = model("pemb_qk", 1);
    const long n = 16 * 40 + 1;
    uint16_t *t2 = tokens(n);
    for (int l = 0; l < 2; l++)
        for (long i = 0; i < rl_pos_param_count(&m->cfg) / 2; i++)
            m->p.pos[l][i] = 0.3f;
    cr_assert_eq(rl_steplaw_measure(m, t2, n, 1, 0.1, &s, &err), RL_OK, "%s", err.msg);
    rl_so2_freqs(32, m->cfg.rot_base, 1.0, om);
    for (int p = 0; p < 16; p++) {
        const double c = M_PI * tanh((double)0.3f) + om[p];
        for (int k = 1; k <= s.nharm; k++)
            h[k - 1] = cexp(I * c * k);
        rl_mixstay_block mb;
        cr_assert_eq(rl_mixstay_chi(h, s.nharm, 16, 16 * RL_MIXSTAY_MULT, &mb, NULL, &err), RL_OK);
        cr_expect(fabs(s.mix[p] - mb.lo) <= 1e-6, "pair %d: %.12g vs %.12g", p, s.mix[p], mb.lo);
    }
    rl_steplaw_free(&s);
    free(t);
    free(t2);
    rl_gpt_free(m);
}

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot read %s", path);
    static char buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* PaTH (steps kind transport, model/path_transport.h) on a tiny model at
 * initialisation: one horizon.tsv row per (layer, head) with a finite
 * mixstay (the head's first-harmonic D) and mixstay_hi at or above it, the
 * per-block columns NA, the score their mean (what rl_horizon_read_mixstay
 * reads back, to the file's 6 digits); the same bytes on 1 and 2 threads;
 * bad inputs RL_EINPUT with one line. */
Test(horizon, path_transport_rows_and_threads, .timeout = 60)
{
    const long n = 16 * 40 + 1;
    rl_tokens val = { tokens(n), n, { 0, 0 } };
    rl_gpt *m = model("path", 2);
    rl_steplaw s;
    rl_err err;
    char *d = th_tmpdir(), *p1 = th_path(d, "h1.tsv"), *p2 = th_path(d, "h2.tsv");
    const int nt = omp_get_max_threads();
    for (int t = 1; t <= 2; t++) {
        omp_set_num_threads(t);
        cr_assert_eq(rl_steplaw_of(m, &val, 0, 7, 0.1, &s, &err), RL_OK, "%s", err.msg);
        cr_assert_eq(rl_horizon_write(t == 1 ? p1 : p2, "path", &s, &err), RL_OK, "%s", err.msg);
        if (t == 2)
            break;
        rl_steplaw_free(&s);
    }
    omp_set_num_threads(nt);
    cr_expect_eq(s.kind, RL_STEPS_TRANSPORT);
    cr_expect_str_eq(rl_steps_kind_name(s.kind), "transport");
    cr_expect_eq(s.layers * s.lanes, 4, "2 layers x 2 heads");
    cr_expect_eq(s.routes, 40, "the stream's 40 slots of 16");
    cr_expect_eq(s.horizon, -1);
    double sum = 0;
    for (int b = 0; b < 4; b++) {
        cr_expect(isfinite(s.mix[b]) && s.mix[b] >= 0 && s.mix[b] <= 0.5, "head %d: D %g", b, s.mix[b]);
        cr_expect(s.mix_hi[b] >= s.mix[b], "head %d: hi %g < D %g", b, s.mix_hi[b], s.mix[b]);
        cr_expect(s.tr[b].far >= 16 && s.tr[b].far < 16 * RL_MIXSTAY_MULT && s.tr[b].near >= 0 && s.tr[b].near < 16);
        sum += s.mix[b];
    }
    cr_expect_eq(s.score, sum / 4);
    char *a = slurp_file(p1), *b = slurp_file(p2);
    cr_expect_str_eq(a, b, "1 and 2 threads differ");
    int rows = 0;
    for (char *q = a; *q; q++)
        rows += *q == '\n';
    cr_expect_eq(rows, 1 + 4, "header + one row per head:\n%s", a);
    cr_expect(strstr(a, "path\ttransport\t16\t0.1\tNA\t0\t0\t0\tNA\tNA\tNA\tNA\tNA\t-1\t"), "%s", a);
    char kind[16];
    long H;
    cr_expect_eq(rl_horizon_read(p1, kind, sizeof kind, &H, &err), RL_OK, "%s", err.msg);
    cr_expect_str_eq(kind, "transport");
    cr_expect_eq(H, -1);
    cr_expect(fabs(rl_horizon_read_mixstay(p1) - s.score) <= 1e-5 * s.score, "%g vs %g", rl_horizon_read_mixstay(p1),
              s.score);
    rl_steplaw_free(&s);
    free(a);
    free(b);

    /* bad inputs: too few tokens (4 windows of T need 4T + 1), no
     * activations, T < 2, a scheme without a transport */
    rl_tokens few = { val.tok, 4 * 16, { 0, 0 } };
    cr_expect_eq(rl_steplaw_of(m, &few, 0, 7, 0.1, &s, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "65 tokens") && !strchr(err.msg, '\n'), "%s", err.msg);
    rl_transport_dist tr[4];
    long S;
    cr_expect_eq(rl_transport_measure(m, NULL, 7, tr, &S, &err), RL_EINPUT);
    cr_expect_eq(rl_transport_measure(m, &val, 7, NULL, &S, &err), RL_EINPUT);
    rl_gpt_free(m);
    m = model("path", 0);
    cr_expect_eq(rl_steplaw_of(m, &val, 0, 7, 0.1, &s, &err), RL_EINPUT, "no activations");
    rl_gpt_free(m);
    rl_gpt_config c = { .layers = 1, .width = 16, .heads = 2, .ctx = 1, .vocab = 16, .dropout = 0.0f,
                        .pos = tm_pos("path"), .rot_base = RL_ROT_BASE_DEFAULT };
    cr_assert_eq(rl_gpt_new(&m, &c, 1, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(rl_steplaw_of(m, &val, 0, 7, 0.1, &s, &err), RL_EINPUT, "T = 1");
    cr_expect(strstr(err.msg, "takes no steps"), "%s", err.msg);
    rl_gpt_free(m);
    m = model("rope", 1);
    cr_expect_eq(rl_transport_measure(m, &val, 7, tr, &S, &err), RL_EINPUT, "rope has no transport");
    rl_gpt_free(m);
    th_rmdir(d);
    free(p1);
    free(p2);
    free(d);
    free(val.tok);
}

/* `routelab horizon` on a tiny trained PaTH model: the transport's table
 * and score on the terminal, the same horizon.tsv on 1 and 2 threads, and
 * a validation stream too short for 4 windows: exit 2 with one line */
Test(horizon, path_command, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *tiny = th_path(d, "tiny.txt"), *run = th_path(d, "run");
    char cmd[2048], out[8192], err[2048];
    th_write_text(txt, 400);
    th_write_text(tiny, 4);
    snprintf(cmd, sizeof cmd, "train --data %s --out %s --pos path --layers 1 --width 16 --heads 2 --ctx 8 "
                              "--batch 2 --steps 2 --threads 1", txt, run);
    cr_assert_eq(th_run(cmd, NULL, 0, err, sizeof err), 0, "%s", err);
    for (int t = 1; t <= 2; t++) {
        snprintf(cmd, sizeof cmd, "horizon --ckpt %s/ckpt.bin --data %s --threads %d --out %s/h%d.tsv", run, txt, t,
                 d, t);
        cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    }
    cr_expect(strstr(out, "steps transport (PaTH)"), "%s", out);
    cr_expect(strstr(out, "first-harmonic mix-or-stay score at 16T"), "%s", out);
    snprintf(cmd, sizeof cmd, "cmp -s %s/h1.tsv %s/h2.tsv", d, d);
    cr_expect_eq(system(cmd), 0, "horizon.tsv differs between 1 and 2 threads");
    snprintf(cmd, sizeof cmd, "horizon --ckpt %s/ckpt.bin --data %s --threads 1 --out %s/h3.tsv", run, tiny, d);
    cr_expect_eq(th_run(cmd, out, sizeof out, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "windows of T = 8") && strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
    th_rmdir(d);
    free(d);
    free(txt);
    free(tiny);
    free(run);
}
