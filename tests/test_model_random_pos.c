/* test_model_random_pos.c: random_pos (model/scheme_random_pos.c), the
 * drifting control of random: theta ~ U(0, 2 omega_p) = omega_p (1 + U).
 * Its table is random's plus t omega_p for the same key (the same U from
 * the same streams); its realised one-step increments have the law's mean
 * omega_p and variance omega_p^2 / 3; the steps the theory reads
 * (rl_scheme_steps) are the drift law of angle_law.c, whose |chi| is
 * random's, so the step law and the windows (rl_steplaw_of,
 * rl_steplaw_closed, rl_steplaw_measure, `routelab horizon`) are random's;
 * the names parse, and a qkv model trains and evaluates through the CLI.
 * What every scheme gets (gradients, streaming, thread counts, checkpoint
 * round trip) comes from the registry: test_model_schemes.c,
 * test_model_attn.c. */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../model/accum_rot.h"
#include "../model/gpt.h"
#include "../model/scheme_rot.h"
#include "../model/steplaw.h"
#include "../sampling/so2.h"
#include "helpers.h"
#include "test_model_util.h"

/* 2 layers, width 32, 4 heads: hd 8, P = 4 planes, omega_p = B^(-p/4) */
#define W 32
#define H 4
#define P 4

static rl_gpt *model_of(const char *pos, int T, int B)
{
    rl_gpt_config cfg = { 2, W, H, T, 64, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, B);
    cr_assert(m, "%s refused", pos);
    rl_gpt_init(m, 3);
    return m;
}

/* Layer l's table of m's scheme for B windows of T with key, into ss (the
 * training layout keeps every layer's; the evaluation's one layer at a
 * time, read before the next prepare). */
static void prepare(rl_gpt *m, rl_scheme_state *ss, int l, int B, long T, uint64_t key)
{
    m->sx.s->prepare(ss->st, &m->sx, l, NULL, NULL, T, B, (int)T, key, NULL);
}

/* Entry (b, t, h, p) of layer l's table as a unit complex number (the
 * evaluation's layer stride is 0: its one table). */
static double complex entry(const rl_scheme_state *ss, int l, long b, long t, int h, int p)
{
    const rl_rot_state *r = ss->st;
    const rl_rotation *tab = &r->tab;
    const long i = l * r->layer + b * tab->sb + t * tab->st + h * tab->sh + p;
    return (double)tab->cos[i] + I * (double)tab->sin[i];
}

/* For the same key, random_pos's angle A_t = random's + t omega_p mod 2 pi
 * at every layer, window, position, head and plane: in training (2 windows
 * of 2048) and in the streaming evaluation (one window of 4096, layer by
 * layer), to the float rounding of the tables' cos and sin (2e-7 rad;
 * the double sums differ by the rounding of (1 + U) omega_p, 1e-16 a step). */
Test(model_random_pos, table_is_randoms_plus_drift)
{
    double om[P];
    rl_so2_freqs(2 * P, RL_ROT_BASE_DEFAULT, 1.0, om);
    for (int eval = 0; eval < 2; eval++) {
        const int B = eval ? 1 : 2;
        const long T = eval ? 4096 : 2048;
        rl_gpt *r = model_of("random_qk", 16, 0), *d = model_of("random_pos_qk", 16, 0);
        rl_scheme_state sr, sd;
        rl_scheme_state_alloc(&sr, &r->sx, B, T, eval);
        rl_scheme_state_alloc(&sd, &d->sx, B, T, eval);
        double worst = 0;
        for (int l = 0; l < 2; l++) {
            prepare(r, &sr, l, B, T, 99);
            prepare(d, &sd, l, B, T, 99);
            for (long b = 0; b < B; b++)
                for (long t = 0; t < T; t++)
                    for (int h = 0; h < H; h++)
                        for (int p = 0; p < P; p++) {
                            const double drift = remainder((double)t * om[p], 2 * M_PI);
                            const double complex z = entry(&sd, l, b, t, h, p) *
                                                     conj(entry(&sr, l, b, t, h, p)) * cexp(-I * drift);
                            worst = fmax(worst, fabs(carg(z)));
                        }
        }
        cr_log_info("%s, %d x %ld: max |A_pos - A_random - t omega_p| = %.2e rad", eval ? "eval" : "training",
                    B, T, worst);
        cr_expect_lt(worst, 1e-6, "%g rad", worst);
        rl_scheme_state_free(&sr);
        rl_scheme_state_free(&sd);
        rl_gpt_free(r);
        rl_gpt_free(d);
    }
}

/* Sample mean and variance of the realised increments theta_t = A_t -
 * A_{t-1} of plane p (every layer, window, head, t >= 1) and their standard
 * errors from the sample: sqrt(v / n) and sqrt((m4 - v^2) / n). */
typedef struct {
    double mean, var, se_mean, se_var;
    long n;
} moments;

static moments increments(const char *pos, int p)
{
    const int B = 2;
    const long T = 2048;
    rl_gpt *m = model_of(pos, 16, 0);
    rl_scheme_state ss;
    rl_scheme_state_alloc(&ss, &m->sx, B, T, 0);
    const long n = 2L * B * H * (T - 1);
    double *th = malloc(sizeof(double) * n), s = 0;
    long k = 0;
    for (int l = 0; l < 2; l++) {
        prepare(m, &ss, l, B, T, 1234);
        for (long b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (long t = 1; t < T; t++) {
                    th[k] = carg(entry(&ss, l, b, t, h, p) * conj(entry(&ss, l, b, t - 1, h, p)));
                    s += th[k++];
                }
    }
    moments r = { s / n, 0, 0, 0, n };
    double m4 = 0;
    for (long i = 0; i < n; i++) {
        const double e = th[i] - r.mean, e2 = e * e;
        r.var += e2;
        m4 += e2 * e2;
    }
    r.var /= n - 1;
    m4 /= n;
    r.se_mean = sqrt(r.var / n);
    r.se_var = sqrt((m4 - r.var * r.var) / n);
    free(th);
    rl_scheme_state_free(&ss);
    rl_gpt_free(m);
    return r;
}

/* U(0, 2 omega): mean omega, variance omega^2 / 3, within 5 standard
 * errors at every plane (omega from 1 down to 1e-3); random, the control,
 * has mean 0 and the same variance.  32,752 increments per plane. */
Test(model_random_pos, increments_have_the_drift_law)
{
    double om[P];
    rl_so2_freqs(2 * P, RL_ROT_BASE_DEFAULT, 1.0, om);
    for (int p = 0; p < P; p++) {
        const moments d = increments("random_pos_qkv", p), r = increments("random_qkv", p);
        const double var = om[p] * om[p] / 3;
        cr_log_info("plane %d, omega %.4g: random_pos mean %.6g (z %.2f) var %.6g (z %.2f); random mean %.3g "
                    "(z %.2f); n %ld",
                    p, om[p], d.mean, (d.mean - om[p]) / d.se_mean, d.var, (d.var - var) / d.se_var, r.mean,
                    r.mean / r.se_mean, d.n);
        cr_expect_lt(fabs(d.mean - om[p]), 5 * d.se_mean, "plane %d: mean %g vs omega %g", p, d.mean, om[p]);
        cr_expect_lt(fabs(d.var - var), 5 * d.se_var, "plane %d: variance %g vs %g", p, d.var, var);
        cr_expect_lt(fabs(r.mean), 5 * r.se_mean, "random, plane %d: mean %g", p, r.mean);
        cr_expect_lt(fabs(r.var - var), 5 * r.se_var, "random, plane %d: variance %g vs %g", p, r.var, var);
    }
}

/* The steps the theory reads: H P lanes of centre omega_p and half-width
 * omega_p (random: centre 0), and e^{i n c} sinc(n w), the characteristic
 * function farpred and the measurement form from them, is the drift law's
 * (uniform's for random) of angle_law.c at n = 1..64. */
Test(model_random_pos, steps_are_the_drift_law)
{
    const char *names[] = { "random_pos_qk", "random_qkv" };
    const rl_angle_law laws[] = { RL_ANG_DRIFT, RL_ANG_UNIFORM };
    for (int k = 0; k < 2; k++) {
        rl_gpt *m = model_of(names[k], 16, 0);
        cr_expect_eq(m->sx.s->steps_kind, RL_STEPS_CLOSED);
        cr_expect_eq(m->sx.s->step_law, laws[k]);
        const int lanes = rl_scheme_step_lanes(&m->sx);
        cr_assert_eq(lanes, H * P, "%s: H hd/2 lanes", names[k]);
        uint16_t tok[3] = { 1, 2, 3 };
        double c[3 * H * P], w[3 * H * P], worst = 0;
        rl_scheme_steps(&m->sx, 1, NULL, tok, 3, c, w);
        for (int i = 0; i < 3 * H * P; i++) {
            const double om = rl_so2_freq(2 * P, RL_ROT_BASE_DEFAULT, 1.0, i % P);
            cr_expect_eq(w[i], om, "%s lane %d: half-width %.17g vs %.17g", names[k], i, w[i], om);
            cr_expect_eq(c[i], k ? 0.0 : om, "%s lane %d: centre %.17g", names[k], i, c[i]);
            for (int n = 1; n <= 64; n++) {
                const double complex law = cexp(I * n * c[i]) * sin(n * w[i]) / (n * w[i]);
                worst = fmax(worst, cabs(law - rl_angle_charfn(laws[k], n * om)));
            }
        }
        cr_log_info("%s: max |e^{inc} sinc(nw) - chi(n)| = %.2e", names[k], worst);
        cr_expect_lt(worst, 1e-12, "%s: %g", names[k], worst);
        rl_gpt_free(m);
    }
}

/* The same |chi| gives random_pos random's windows: rl_steplaw_closed of
 * the drift law equals the uniform one block by block, rl_steplaw_of reads
 * random_pos as CLOSED (drift) with random's log |chi|, windows and
 * horizon, and the measurement on its own steps (rl_steplaw_measure: the
 * phase pass removes the drift) gives the closed form to 1e-12. */
Test(model_random_pos, steplaw_is_randoms)
{
    rl_err err;
    rl_steplaw u, d;
    cr_assert_eq(rl_steplaw_closed(RL_ANG_UNIFORM, 32, 10000.0, 64, 0.1, &u, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_steplaw_closed(RL_ANG_DRIFT, 32, 10000.0, 64, 0.1, &d, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(d.kind, RL_STEPS_CLOSED);
    cr_expect_eq(d.law, RL_ANG_DRIFT);
    for (int b = 0; b < 16; b++) {
        cr_expect(d.logchi[b] == u.logchi[b], "block %d: %.17g vs %.17g", b, d.logchi[b], u.logchi[b]);
        cr_expect_eq(d.window[b], u.window[b], "block %d", b);
    }
    cr_expect_eq(d.horizon, u.horizon);
    rl_steplaw_free(&u);
    rl_steplaw_free(&d);

    uint16_t *tok = malloc(sizeof(uint16_t) * 400);
    for (int i = 0; i < 400; i++)
        tok[i] = (uint16_t)((i * 37 + i / 7) % 64);
    rl_tokens val = { tok, 400, { 0, 0 } };
    rl_gpt *r = model_of("random_qkv", 16, 2), *m = model_of("random_pos_qkv", 16, 2);
    rl_steplaw sr, sm, meas;
    cr_assert_eq(rl_steplaw_of(r, &val, 0, 1, 0.1, &sr, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_steplaw_of(m, &val, 0, 1, 0.1, &sm, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(sm.kind, RL_STEPS_CLOSED);
    cr_expect_eq(sm.law, RL_ANG_DRIFT);
    cr_expect_eq(sr.law, RL_ANG_UNIFORM);
    cr_assert_eq(sm.layers * sm.lanes, sr.layers * sr.lanes);
    for (int b = 0; b < sm.layers * sm.lanes; b++) {
        cr_expect(sm.logchi[b] == sr.logchi[b], "block %d", b);
        cr_expect_eq(sm.window[b], sr.window[b], "block %d", b);
    }
    cr_expect_eq(sm.horizon, sr.horizon);
    cr_assert_eq(rl_steplaw_measure(m, tok, 400, 1, 0.1, &meas, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(meas.lanes, H * P);
    double worst = 0;
    for (int l = 0; l < 2; l++)
        for (int j = 0; j < H * P; j++) {
            const double a = meas.logchi[l * H * P + j], b = sm.logchi[j % P];
            worst = fmax(worst, fabs(a - b) / fabs(b));
            cr_expect_eq(meas.window[l * H * P + j], sm.window[j % P], "layer %d lane %d", l, j);
        }
    cr_log_info("random_pos measured on its own steps vs closed form: max relative error of log|chi| %.2e", worst);
    cr_expect_lt(worst, 1e-12);
    rl_steplaw_free(&sr);
    rl_steplaw_free(&sm);
    rl_steplaw_free(&meas);
    rl_gpt_free(r);
    rl_gpt_free(m);
    free(tok);
}

/* The names: each parses to random_pos's code and back (rl_pos_name);
 * random's names, of which random_pos's base is an extension, still mean
 * random; alibi+random_pos fixes qkv as alibi+random does; near misses and
 * contradictions are refused with a reason. */
Test(model_random_pos, names_parse_and_round_trip)
{
    const char *ok[][3] = { /* name, --mode, canonical */
        { "random_pos_qk", "", "random_pos_qk" },
        { "random_pos_qkv", "", "random_pos_qkv" },
        { "random_pos", "", "random_pos_qk" },
        { "random_pos", "qkv", "random_pos_qkv" },
        { "random_pos_qkv", "qkv", "random_pos_qkv" },
        { "alibi+random_pos", "", "alibi+random_pos_qkv" },
        { "alibi+random_pos_qk", "", "alibi+random_pos_qk" },
        { "alibi+random_pos_qkv", "", "alibi+random_pos_qkv" },
        { "random", "", "random_qk" },
        { "random_qk", "", "random_qk" },
        { "random_qkv", "", "random_qkv" },
        { "alibi+random", "", "alibi+random_qkv" },
    };
    char err[1024];
    rl_pos_config p;
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        const int mode = !*ok[i][1] ? -1 : strcmp(ok[i][1], "qk") ? RL_MODE_QKV : RL_MODE_QK;
        cr_assert_eq(rl_pos_parse(ok[i][0], mode, &p, err, sizeof err), 0, "%s: %s", ok[i][0], err);
        cr_expect_str_eq(rl_pos_name(p), ok[i][2], "%s --mode %s", ok[i][0], ok[i][1]);
        const int pos = strstr(ok[i][0], "random_pos") != NULL;
        cr_expect_eq(p.rot, pos ? RL_ROT_RANDOM_POS : RL_ROT_RANDOM, "%s", ok[i][0]);
        cr_expect_eq(p.alibi, !strncmp(ok[i][0], "alibi+", 6), "%s", ok[i][0]);
        rl_pos_config q;
        cr_assert_eq(rl_pos_parse(rl_pos_name(p), -1, &q, err, sizeof err), 0, "%s", err);
        cr_expect(rl_pos_equal(p, q), "%s does not parse back", rl_pos_name(p));
    }
    cr_expect_eq(RL_ROT_RANDOM_POS, 5, "a checkpoint's code: never renumbered");
    const char *bad[][3] = { /* name, --mode, what the reason says */
        { "random_posx", "", "unknown position scheme" },
        { "random_pos_q", "", "unknown position scheme" },
        { "random_pos_qkvv", "", "unknown position scheme" },
        { "random_pos_", "", "unknown position scheme" },
        { "random_po", "", "unknown position scheme" },
        { "alibi+random_posx", "", "unknown position scheme" },
        { "random_pos_qkv", "qk", "contradicts" },
        { "random_pos_qk", "qkv", "contradicts" },
        { "alibi+random_pos", "qk", "contradicts" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const int mode = !*bad[i][1] ? -1 : strcmp(bad[i][1], "qk") ? RL_MODE_QKV : RL_MODE_QK;
        cr_expect_eq(rl_pos_parse(bad[i][0], mode, &p, err, sizeof err), -1, "%s accepted", bad[i][0]);
        cr_expect(strstr(err, bad[i][2]) && !strchr(err, '\n'), "%s: %s", bad[i][0], err);
    }
    cr_expect(strstr(rl_pos_help, " random_pos "), "--pos's help: %s", rl_pos_help);
}

/* A line of horizon.tsv: the fields after the variant and up to the
 * predicted horizon (the step law's modulus, its windows), cut there in
 * place, or NULL; *mix receives the block's mix-or-stay distance (the
 * column after: the one that tells a drifting law from a zero-mean one). */
static char *law_fields(char *line, double *mix)
{
    char *tab = strchr(line, '\t');
    if (!tab)
        return NULL;
    char *p = tab + 1;
    for (int f = 0; f < 13 && p; f++)
        p = strchr(p + 1, '\t');
    if (!p)
        return NULL;
    *p = 0;
    *mix = strtod(p + 1, NULL);
    return tab + 1;
}

#define TINY "--layers 1 --width 16 --heads 2 --ctx 16 --batch 2 --steps 4 --val-every 2 --val-batches 2 " \
             "--threads 1"

/* Through the CLI: `--pos random_pos --mode qkv` trains (finite losses) and
 * evaluates, reproducibly for a seed and not across seeds; `routelab
 * horizon` reads it as the closed law with the windows of random_qkv
 * trained alike (horizon.tsv the same but for the variant's name); bad
 * names and contradicting modes are one line and status 2. */
Test(model_random_pos, cli_trains_evaluates_and_refuses, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[4096], out[8192], err[2048];
    th_write_text(txt, 200);
    const char *pos[2][2] = { { "random_pos", "--mode qkv" }, { "random_qkv", "" } };
    char *hz[2];
    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", k);
        char *o = th_path(d, name);
        snprintf(args, sizeof args, "train --data %s --out %s --pos %s %s " TINY, txt, o, pos[k][0], pos[k][1]);
        cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
        if (k == 0) {
            cr_expect(strstr(out, "pos random_pos_qkv") != NULL, "%s", out);
            char *log = rl_read_file(th_path(o, "log.tsv"), NULL);
            cr_assert(log);
            int rows = 0;
            for (char *l = strchr(log, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
                double loss = strtod(strchr(l + 1, '\t') + 1, NULL);
                cr_expect(isfinite(loss) && loss > 0, "train loss %g", loss);
                rows++;
            }
            cr_expect_eq(rows, 4, "%s", log);
            free(log);
            char *tsv[3];
            for (int i = 0; i < 3; i++) {
                char e[32];
                snprintf(e, sizeof e, "e%d.tsv", i);
                char *ep = th_path(d, e);
                snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64 --batches 2 "
                         "--threads 1 --seed %d --out %s", o, txt, i < 2 ? 1 : 2, ep);
                cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
                cr_expect(strstr(out, "random_pos_qkv") != NULL, "%s", out);
                tsv[i] = rl_read_file(ep, NULL);
                cr_assert(tsv[i]);
                free(ep);
            }
            cr_expect_str_eq(tsv[0], tsv[1], "same seed, different numbers");
            cr_expect_str_neq(tsv[0], tsv[2], "another seed, same numbers");
            for (int i = 0; i < 3; i++)
                free(tsv[i]);
        }
        char *hp = th_path(d, k ? "h1.tsv" : "h0.tsv");
        snprintf(args, sizeof args, "horizon --ckpt %s/ckpt.bin --data %s --out %s --threads 1", o, txt, hp);
        cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
        cr_expect(strstr(out, "step law closed") != NULL, "%s", out);
        hz[k] = rl_read_file(hp, NULL);
        cr_assert(hz[k]);
        free(hp);
        free(o);
    }
    /* every row of horizon.tsv alike from the variant column to the predicted
     * horizon (the same |chi|, windows, H); the mix-or-stay distance apart:
     * the drifting law's far laws leave what was met within T */
    int rows = 0;
    double mix_pos = 0, mix_zero = 0;
    char *s0, *s1, *l0 = strtok_r(hz[0], "\n", &s0), *l1 = strtok_r(hz[1], "\n", &s1);
    for (; l0 && l1; l0 = strtok_r(NULL, "\n", &s0), l1 = strtok_r(NULL, "\n", &s1), rows++) {
        if (rows == 0)
            continue; /* the header */
        cr_expect(!strncmp(l0, "random_pos_qkv\t", 15) && !strncmp(l1, "random_qkv\t", 11), "%s | %s", l0, l1);
        double m0 = NAN, m1 = NAN;
        const char *f0 = law_fields(l0, &m0), *f1 = law_fields(l1, &m1);
        cr_assert(f0 && f1);
        cr_expect_str_eq(f0, f1);
        mix_pos += m0;
        mix_zero += m1;
    }
    cr_expect_gt(mix_pos, 2 * mix_zero, "mix-or-stay: drift %g, zero-mean %g (summed over the blocks)", mix_pos,
                 mix_zero);
    cr_expect(!l0 && !l1, "horizon.tsv: different row counts");
    cr_expect_gt(rows, 1, "horizon.tsv has no blocks");
    free(hz[0]);
    free(hz[1]);
    const char *bad[][2] = { { "--pos random_posx", "unknown position scheme" },
                             { "--pos random_pos_qkv --mode qk", "contradicts" },
                             { "--pos alibi+random_pos --mode qk", "contradicts" } };
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "train --data %s --out %s/x %s", txt, d, bad[i][0]);
        int st = th_run(args, NULL, 0, err, sizeof err);
        cr_expect_eq(st, 2, "%s: status %d", bad[i][0], st);
        cr_expect(th_lines(err) == 1 && strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
    }
    th_rmdir(d);
    free(d);
    free(txt);
}
