/* test_model_probe.c: the probe's far mass equals the one computed from the
 * training forward's attention probabilities; the far-mass bound is never
 * violated; the CLI writes its files and rejects bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../model/gpt.h"
#include "../model/probe.h"
#include "helpers.h"
#include "test_model_util.h"

/* Far mass of query i beyond W from the saved probabilities of layer l,
 * head h (att: B*H*T*T, rows i). */
static double far_from_att(const rl_gpt *m, int l, int h, int T, long i, long W)
{
    const float *row = m->a[l].att + ((long)h * T + i) * T;
    double far = 0;
    for (long j = 0; j <= i - W; j++)
        far += row[j];
    return far;
}

static void probe_matches_forward(const char *pos)
{
    const int T = 128;
    rl_gpt_config cfg = { 2, 32, 4, T, 64, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    rl_gpt_init(m, 3);
    tm_randn(m->params, m->nparams, 4, 0.15f);
    uint16_t tok[T + 1];
    for (int i = 0; i <= T; i++)
        tok[i] = (uint16_t)((i * 29 + i / 5) % 64);
    rl_gpt_forward(m, tok, T + 1, 1, T, 0, 77);
    long W[] = { 8, 32, 64 };
    rl_probe *p = rl_probe_alloc(2, 4, T, rl_gpt_alibi_slopes(m), W, 3);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, T);
    rl_gpt_eval_observe(e, rl_probe_observe, p);
    rl_gpt_eval_window(m, e, tok, T, 77);
    char *buf = NULL, *dbuf = NULL;
    size_t n = 0, dn = 0;
    FILE *f = open_memstream(&buf, &n), *d = open_memstream(&dbuf, &dn);
    rl_probe_write(p, f, d);
    fclose(f);
    fclose(d);
    int rows = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        long L, Wv;
        int l, h;
        double fm, fse, bmean, bmax, lmean, lmax, cnt, viol, rmean, rmax, dmean, dmax, lstar, rviol;
        cr_assert_eq(sscanf(line, "%ld %d %d %ld %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &L, &l, &h,
                            &Wv, &fm, &fse, &bmean, &bmax, &lmean, &lmax, &cnt, &viol, &rmean, &rmax, &dmean, &dmax,
                            &lstar, &rviol), 18, "%s", line);
        /* queries 64 .. 127 (the last block) */
        double want = 0;
        for (long i = 64; i < T; i++)
            want += far_from_att(m, l, h, T, i, Wv);
        want /= 64;
        cr_expect_eq(cnt, 64);
        cr_expect_lt(fabs(fm - want), 2e-5, "%s layer %d head %d W %ld: probe %.7f forward %.7f", pos, l, h, Wv,
                     fm, want);
        cr_expect_eq(viol, 0, "%s: the bound was violated", pos);
        cr_expect_geq(fm + 1e-9, bmean * (1 - 1e-6) - 1e-9);
        /* the realised-range form: never violated, and per row at least the
         * max |logit| form (Delta <= 2 lambda), hence on average too */
        cr_expect_eq(rviol, 0, "%s: the range bound was violated", pos);
        cr_expect_geq(fm + 1e-9, rmean * (1 - 1e-6) - 1e-9);
        cr_expect_geq(rmean, bmean * (1 - 1e-5), "%s: range %g < max |logit| form %g", pos, rmean, bmean);
        cr_expect_leq(dmean, dmax + 1e-3);
        cr_expect_leq(dmax, 2 * lmax + 1e-3);
        const double M = (double)(L - Wv);
        cr_expect_float_eq(rmax, M / (M + Wv * exp(dmax)), 1e-4 * rmax + 1e-12);
        cr_expect_float_eq(lstar, Wv + Wv * exp(dmax), 1e-3 * lstar);
        rows++;
    }
    cr_expect_eq(rows, 2 * 4 * 3);
    cr_expect(dn > 0);
    free(buf);
    free(dbuf);
    rl_gpt_eval_free(e);
    rl_probe_free(p);
    rl_gpt_free(m);
}

/* every configuration of the registry */
Test(model_probe, far_mass_matches_the_forward, .timeout = 120)
{
    tm_scheme_case c[TM_MAX_CASES];
    const size_t n = tm_registry_cases(c, TM_MAX_CASES);
    for (size_t i = 0; i < n; i++)
        probe_matches_forward(rl_pos_name(c[i].pos));
    cr_log_info("%zu configurations", n);
}

Test(model_probe, cli_files_and_errors, .timeout = 120)
{
    char *d = th_tmpdir(), args[1024], out[4096], err[2048];
    snprintf(args, sizeof args, "train --data README.md --out %s/m --layers 1 --width 16 --heads 2 --ctx 32 "
             "--batch 2 --steps 3 --threads 1", d);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "probe --ckpt %s/m/ckpt.bin --data README.md --lengths 32,256 --windows 2 "
             "--out %s/p --threads 1", d, d);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "bound violations: 0"), "%s", out);
    const char *files[] = { "probe.tsv", "distance.tsv", "probe.png", "distance.png" };
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/p/%s", d, files[i]);
        cr_expect(access(path, R_OK) == 0, "%s missing", path);
    }
    snprintf(args, sizeof args, "probe --ckpt %s/m/ckpt.bin --data README.md --lengths 1000000", d);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 2);
    snprintf(args, sizeof args, "probe --ckpt %s/nope.bin --data README.md", d);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 2);
    cr_expect_eq(th_run("probe --data README.md", out, sizeof out, err, sizeof err), 2);
    th_rmdir(d);
    free(d);
}
