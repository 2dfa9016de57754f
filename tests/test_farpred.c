/* test_farpred.c: the far-mass prediction from within T (theory/farpred_forms.h,
 * model/farpred.h, docs/theory/farpred.md#far-mass-prediction): the block law (F1) against a Monte
 * Carlo of the accumulated angle and against exact constant rotations; (F3)
 * against a Monte Carlo of a one-block head inside its one-sided Jensen
 * bracket; constructed models whose far mass is known (constant scores:
 * dilution and theory exact; ALiBi on constant scores: the theory's
 * geometric series exact, dilution not; a one-block random-rotation head:
 * the prediction from windows of T against a Monte Carlo of the same head
 * at L = 512); the measured pairs' scores
 * rebuilt from their block alignments; the rule and the horizon driven to
 * every outcome; the CLI's bad inputs. */
#include <criterion/criterion.h>
#include <complex.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "../model/farpred.h"
#include "../model/gpt.h"
#include "../model/probe.h"
#include "../program/reproduce/grid_farmass.h"
#include "../sampling/so2.h"
#include "../theory/farpred_forms.h"
#include "helpers.h"
#include "test_model_util.h"

/* The random law of one block, U(-w, w): chi(n) = sinc(n w). */
static void law_uniform(double w, double complex *chi)
{
    for (int n = 1; n <= RL_FARPRED_NH; n++)
        chi[n - 1] = rl_farpred_step_charfn(0, w, n);
}

/* (F1) is exact: E e^{Re(A e^{i Theta})}, Theta a sum of delta U(-w, w),
 * against 40,000 draws at 5 SE, from a partly mixed to a mixed block. */
Test(farpred, block_law_matches_monte_carlo)
{
    double complex chi[RL_FARPRED_NH];
    const double w = 0.4;
    law_uniform(w, chi);
    const rl_farpred_law law = { 1, RL_FARPRED_NH, chi };
    const double complex A = 1.3 * cexp(0.7 * I);
    const long ds[] = { 1, 5, 20, 80 };
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 2026, 0);
    for (int q = 0; q < 4; q++) {
        double lm, sb;
        cr_assert_eq(rl_farpred_logmean(&law, 1, NULL, &A, 0, ds[q], 1, &lm, &sb, NULL), RL_OK);
        th_acc acc = { 0 }, acc1 = { 0 };
        for (int s = 0; s < 40000; s++) {
            double th = 0;
            for (long t = 0; t < ds[q]; t++)
                th += w * (2 * gsl_rng_uniform(r) - 1);
            const double x = creal(A * cexp(I * th));
            th_add(&acc, exp(x));
            th_add(&acc1, x * exp(x));
        }
        const double se = th_se(&acc), se1 = th_se(&acc1);
        cr_expect_lt(fabs(acc.mean - exp(lm)), 5 * se, "delta %ld: MC %.6f +- %.6f, law %.6f", ds[q], acc.mean, se,
                     exp(lm));
        /* the weighted mean score: E[X e^X] = sbar E[e^X] (the entropy's input) */
        cr_expect_lt(fabs(acc1.mean - sb * exp(lm)), 5 * se1, "delta %ld: E[X e^X] MC %.6f +- %.6f, law %.6f", ds[q],
                     acc1.mean, se1, sb * exp(lm));
    }
    gsl_rng_free(r);
    /* fully mixed: the Haar limit I_0(|A|) */
    double lm;
    cr_assert_eq(rl_farpred_logmean(&law, 1, NULL, &A, 0, 4000, 1, &lm, NULL, NULL), RL_OK);
    cr_expect_float_eq(exp(lm), gsl_sf_bessel_I0(cabs(A)), 1e-12);
}

/* A constant step is a rotation: m(delta) = mean_p e^{c_p + Re(A_p e^{i delta c})}
 * exactly, with the ALiBi slope applied. */
Test(farpred, constant_block_is_exact)
{
    double complex chi[2 * RL_FARPRED_NH];
    const double om[2] = { 0.9, 0.013 };
    for (int b = 0; b < 2; b++)
        for (int n = 1; n <= RL_FARPRED_NH; n++)
            chi[b * RL_FARPRED_NH + n - 1] = rl_farpred_step_charfn(om[b], 0, n);
    const rl_farpred_law law = { 2, RL_FARPRED_NH, chi };
    const double complex A[4] = { 0.8 + 0.3 * I, -0.2 + 1.1 * I, 0.5 - 0.4 * I, 1.7 };
    const double c[2] = { 0.3, -1.2 }, slope = 0.01;
    double lm[600];
    cr_assert_eq(rl_farpred_logmean(&law, 2, c, A, slope, 100, 600, lm, NULL, NULL), RL_OK);
    for (long t = 0; t < 600; t += 37) {
        const long d = 100 + t;
        double s = 0;
        for (int p = 0; p < 2; p++) {
            double x = c[p] - slope * d;
            for (int b = 0; b < 2; b++)
                x += creal(A[p * 2 + b] * cexp(I * om[b] * d));
            s += exp(x) / 2;
        }
        cr_expect_float_eq(exp(lm[t]), s, 1e-10 * s, "delta %ld", d);
    }
}

/* (F3) on one head with one random block: far keys at delta = T .. i-1,
 * all with alignment A, the near sum N; the Monte Carlo of the row's far
 * mass F/(N + F) lies in [g(f) - Var(F)/N^2, g(f)] (g concave, |g''| <=
 * 2/N^2) widened by 5 SE, and the bracket is narrow enough to test. */
Test(farpred, rho_matches_monte_carlo_of_a_head)
{
    double complex chi[RL_FARPRED_NH];
    const double w = 1.0;
    law_uniform(w, chi);
    const rl_farpred_law law = { 1, RL_FARPRED_NH, chi };
    const double complex A = 1.5 * cexp(0.4 * I);
    const long T = 16, i = 400;
    const double N = 600;
    double lm[400], m[400];
    cr_assert_eq(rl_farpred_logmean(&law, 1, NULL, &A, 0, T, i - T, lm, NULL, NULL), RL_OK);
    for (long t = 0; t < i - T; t++)
        m[t] = exp(lm[t]);
    const double pred = rl_farpred_rho(&N, NULL, NULL, 1, m, NULL, T, i, i + 1);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 7, 0);
    th_acc rho = { 0 }, F = { 0 };
    double *th = malloc(sizeof(double) * (i + 1));
    for (int s = 0; s < 4000; s++) {
        /* the accumulated angles A_t; Theta(j -> i) = A_i - A_j */
        th[0] = 0;
        for (long t = 1; t <= i; t++)
            th[t] = th[t - 1] + w * (2 * gsl_rng_uniform(r) - 1);
        double f = 0;
        for (long j = 1; j <= i - T; j++)
            f += exp(creal(A * cexp(I * (th[i] - th[j]))));
        th_add(&F, f);
        th_add(&rho, f / (N + f));
    }
    free(th);
    gsl_rng_free(r);
    const double var = F.m2 / (F.n - 1), lo = pred - var / (N * N), se = th_se(&rho);
    cr_expect_lt(var / (N * N), 0.2 * pred, "the bracket must be narrow enough to test: %g", var / (N * N));
    cr_expect_geq(rho.mean, lo - 5 * se, "MC %.5f +- %.5f below the bracket [%.5f, %.5f]", rho.mean, se, lo, pred);
    cr_expect_leq(rho.mean, pred + 5 * se, "MC %.5f +- %.5f above the bracket [%.5f, %.5f]", rho.mean, se, lo, pred);
}

/* Without rotation (nb = 0) m is the pairs' mean e^{c - slope delta}. */
Test(farpred, no_rotation_is_the_pair_mean)
{
    const rl_farpred_law law = { 0, 0, NULL };
    const double c[3] = { 0.5, -0.5, 2.0 };
    double lm[3];
    cr_assert_eq(rl_farpred_logmean(&law, 3, c, NULL, 0.25, 10, 3, lm, NULL, NULL), RL_OK);
    for (int t = 0; t < 3; t++)
        cr_expect_float_eq(exp(lm[t]), (exp(0.5) + exp(-0.5) + exp(2.0)) / 3 * exp(-0.25 * (10 + t)), 1e-12);
    cr_expect_eq(rl_farpred_logmean(&law, 0, c, NULL, 0, 10, 3, lm, NULL, NULL), RL_EINPUT);
    double complex bad = 1.5;
    const rl_farpred_law big = { 1, 1, &bad };
    double complex a = 1;
    cr_expect_eq(rl_farpred_logmean(&big, 1, NULL, &a, 0, 10, 3, lm, NULL, NULL), RL_EINPUT, "|chi| > 1 refused");
}

/* The workspace form gives the allocating form's bytes when one workspace
 * serves calls of different sizes in turn (its sums start again at each
 * call), and refuses a law or a length beyond what it holds. */
Test(farpred, workspace_gives_the_same_bytes)
{
    double complex chi[2 * 6], A[3 * 2];
    for (int b = 0; b < 2; b++)
        for (int n = 1; n <= 6; n++)
            chi[b * 6 + n - 1] = rl_farpred_step_charfn(0.3 * (b + 1), 0.2 + 0.5 * b, n);
    for (int k = 0; k < 6; k++)
        A[k] = (0.4 + 0.3 * k) * cexp(I * (0.7 * k - 1));
    const double c[3] = { 0.2, -1.0, 0.6 };
    const rl_farpred_law two = { 2, 6, chi }, one = { 1, 6, chi + 6 };
    rl_farpred_ws *ws = rl_farpred_ws_alloc(2, 40);
    cr_assert(ws);
    for (int r = 0; r < 2; r++) { /* the second round after the workspace was used */
        double a[40], b[40], sa[40], sb[40];
        cr_assert_eq(rl_farpred_logmean(&two, 3, c, A, 0.1, 5, 40, a, sa, NULL), RL_OK);
        cr_assert_eq(rl_farpred_logmean_ws(ws, &two, 3, c, A, 0.1, 5, 40, b, sb, NULL), RL_OK);
        cr_expect(memcmp(a, b, sizeof a) == 0 && memcmp(sa, sb, sizeof sa) == 0, "round %d: two blocks", r);
        cr_assert_eq(rl_farpred_logmean(&one, 2, NULL, A, 0, 17, 7, a, NULL, NULL), RL_OK);
        cr_assert_eq(rl_farpred_logmean_ws(ws, &one, 2, NULL, A, 0, 17, 7, b, NULL, NULL), RL_OK);
        cr_expect(memcmp(a, b, sizeof(double) * 7) == 0, "round %d: one block, 7 distances", r);
    }
    double out[41];
    rl_err e = { 0 };
    cr_expect_eq(rl_farpred_logmean_ws(ws, &two, 1, NULL, A, 0, 5, 41, out, NULL, &e), RL_EINPUT, "41 > 40 distances");
    cr_expect(strstr(e.msg, "workspace") != NULL, "%s", e.msg);
    rl_farpred_ws_free(ws);
    ws = rl_farpred_ws_alloc(1, 40);
    cr_expect_eq(rl_farpred_logmean_ws(ws, &two, 1, NULL, A, 0, 5, 4, out, NULL, NULL), RL_EINPUT, "2 > 1 blocks");
    rl_farpred_ws_free(ws);
    cr_expect_null(rl_farpred_ws_alloc(1, 0));
    cr_expect_null(rl_farpred_ws_alloc(-1, 3));
}

/* (F4) for a small |A|, where the Bessel series is cut at its first terms:
 * the derivative term reads I~_{n+1} of the last harmonic kept, which GSL
 * did not compute.  Run after a call with a large |A| (the workspace's
 * scratch then holds its harmonics), the weighted mean score must still be
 * the exact series', E[X e^X]/E[e^X] = |A| (I_1 + 2 sum I'_n Re(..))/(I_0 +
 * 2 sum I_n Re(..)), to 1e-10 relative (with the stale I~_5 of the first
 * call it was 1.5% low: 7.778e-4 against 7.899e-4). */
Test(farpred, small_alignment_reads_only_computed_harmonics)
{
    double complex chi[RL_FARPRED_NH];
    for (int n = 1; n <= RL_FARPRED_NH; n++)
        chi[n - 1] = pow(0.9, n) * cexp(I * 0.3 * n);
    const rl_farpred_law law = { 1, RL_FARPRED_NH, chi };
    rl_farpred_ws *ws = rl_farpred_ws_alloc(1, 1);
    const double complex big = 15.0 * cexp(I * 0.4), small = 0.001 * cexp(I * 0.2);
    double lm, sb;
    cr_assert_eq(rl_farpred_logmean_ws(ws, &law, 1, NULL, &big, 0, 1, 1, &lm, &sb, NULL), RL_OK);
    cr_assert_eq(rl_farpred_logmean_ws(ws, &law, 1, NULL, &small, 0, 1, 1, &lm, &sb, NULL), RL_OK);
    rl_farpred_ws_free(ws);
    const double x = cabs(small), arg = carg(small);
    double num = gsl_sf_bessel_I1(x), den = gsl_sf_bessel_I0(x);
    for (int n = 1; n <= 12; n++) {
        const double re = creal(cexp(I * n * arg) * chi[n - 1]); /* delta = 1 */
        den += 2 * gsl_sf_bessel_In(n, x) * re;
        num += 2 * 0.5 * (gsl_sf_bessel_In(n - 1, x) + gsl_sf_bessel_In(n + 1, x)) * re;
    }
    const double want = x * num / den;
    cr_expect(fabs(sb - want) <= 1e-10 * fabs(want), "sbar %.15g, the series %.15g", sb, want);
    cr_expect(fabs(lm - log(den)) <= 1e-12, "log m %.15g, the series %.15g", lm, log(den));
}

/* A model whose q and k are constant (weights 0, biases set): every score is
 * the same constant c (none), or c - m_h delta (alibi). */
static rl_gpt *constant_model(const char *pos, int T)
{
    rl_gpt_config cfg = { 2, 32, 2, T, 64, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 4);
    rl_gpt_init(m, 5);
    tm_randn(m->params, m->nparams, 6, 0.1f);
    const int C = cfg.width;
    for (int l = 0; l < cfg.layers; l++) {
        float *w = m->p.blk[l][RL_QKVW], *b = m->p.blk[l][RL_QKVB];
        memset(w, 0, sizeof(float) * (size_t)2 * C * C); /* the q and k rows */
        for (int j = 0; j < 2 * C; j++)
            b[j] = 0.3f + 0.01f * (float)(j % 7);
    }
    return m;
}

/* The probe's far mass at W = T for the last query block of one window of
 * L, per layer and head, into fm. */
static void probe_far(const rl_gpt *m, const rl_tokens *val, long L, double *fm, double *ent)
{
    const long T = m->cfg.ctx, W[1] = { T };
    rl_probe *p = rl_probe_alloc(m->cfg.layers, m->cfg.heads, L, rl_gpt_alibi_slopes(m), W, 1);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
    rl_gpt_eval_observe(e, rl_probe_observe, p);
    rl_gpt_eval_window(m, e, val->tok, L, 3);
    char *buf = NULL, *dbuf = NULL;
    size_t n = 0, dn = 0;
    FILE *f = open_memstream(&buf, &n), *d = open_memstream(&dbuf, &dn);
    rl_probe_write(p, f, d);
    fclose(f);
    fclose(d);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        long Lr, Wr;
        int l, h;
        double x, v[14];
        cr_assert_eq(sscanf(line, "%ld %d %d %ld %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &Lr, &l,
                            &h, &Wr, &x, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
                            &v[11], &v[12], &v[13]),
                     19, "%s", line);
        fm[l * m->cfg.heads + h] = x;
        ent[l * m->cfg.heads + h] = v[13];
    }
    free(buf);
    free(dbuf);
    rl_gpt_eval_free(e);
    rl_probe_free(p);
}

static void constant_case(const char *pos, int dilution_exact)
{
    const int T = 16;
    const long L = 256;
    rl_gpt *m = constant_model(pos, T);
    rl_tokens val = { malloc(sizeof(uint16_t) * 4096), 4096, { 0, 0 } };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)((i * 37 + i / 3) % 64);
    rl_farpred_within w;
    cr_assert_eq(rl_farpred_measure(m, &val, 32, 64, 1, &w, NULL), RL_OK);
    const int NH = m->cfg.layers * m->cfg.heads;
    rl_farpred_row rows[4];
    cr_assert_eq(rl_farpred_predict(&w, &L, 1, rows, NULL, NULL), RL_OK);
    double fm[4], ent[4];
    probe_far(m, &val, L, fm, ent);
    for (int x = 0; x < NH; x++) {
        cr_expect_lt(fabs(rows[x].route - fm[x]), 1e-4, "%s head %d: routelab %.6f measured %.6f", pos, x,
                     rows[x].route, fm[x]);
        cr_expect_lt(fabs(rows[x].meanfield - fm[x]), 1e-4, "%s head %d: mean-field %.6f measured %.6f", pos, x,
                     rows[x].meanfield, fm[x]);
        /* the entropy of the same rows: exact too (the far keys' scores are known) */
        cr_expect_lt(fabs(rows[x].ent_route - ent[x]), 1e-4, "%s head %d: entropy routelab %.6f measured %.6f", pos, x,
                     rows[x].ent_route, ent[x]);
        cr_expect_lt(fabs(rows[x].ent_meanfield - ent[x]), 1e-4, "%s head %d: entropy mean-field %.6f measured %.6f",
                     pos, x, rows[x].ent_meanfield, ent[x]);
        if (dilution_exact)
            cr_expect_lt(fabs(rows[x].dilution - fm[x]), 1e-4, "%s head %d: dilution %.6f measured %.6f", pos, x,
                         rows[x].dilution, fm[x]);
        if (dilution_exact)
            cr_expect_lt(fabs(rows[x].ent_dilution - ent[x]), 1e-4, "%s head %d: entropy dilution %.6f measured %.6f",
                         pos, x, rows[x].ent_dilution, ent[x]);
        else
            cr_expect_gt(fabs(rows[x].dilution - fm[x]), 0.01, "%s head %d: dilution cannot see the bias", pos, x);
        if (dilution_exact) /* a bound only where the far logits stay within lambda (not ALiBi) */
            cr_expect_leq(rows[x].bound, fm[x] + 1e-9, "the bound is a lower bound");
    }
    rl_farpred_within_free(&w);
    free(val.tok);
    rl_gpt_free(m);
}

/* Constant scores: every far key weighs what the band's do (dilution and
 * the theory exact). */
Test(farpred, constant_scores_model_dilution_exact)
{
    constant_case("none", 1);
}

/* Constant content with ALiBi: the far weights fall as e^{-m_h delta}; the
 * theory's geometric series is exact, dilution is not. */
Test(farpred, alibi_constant_content_theory_exact)
{
    constant_case("alibi", 0);
}

/* Each measured pair's realised score equals its block alignments turned by
 * its distance (RoPE: sum_b Re(A_b e^{i delta omega_b})), or its unrotated
 * score (none): the convention of position.h, the scaling and the pairing. */
static void pairs_rebuild(const char *pos)
{
    const int T = 32;
    rl_gpt_config cfg = { 2, 32, 2, T, 64, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 4);
    rl_gpt_init(m, 8);
    tm_randn(m->params, m->nparams, 9, 0.15f);
    rl_tokens val = { malloc(sizeof(uint16_t) * 2048), 2048, { 0, 0 } };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)((i * 13 + i / 7) % 64);
    rl_farpred_within w;
    cr_assert_eq(rl_farpred_measure(m, &val, 8, 16, 2, &w, NULL), RL_OK);
    const int P = w.nb ? w.nb : 1;
    for (long x = 0; x < (long)w.layers * w.heads; x++)
        for (long p = 0; p < w.np; p++) {
            const rl_farpred_law law = { w.nb, w.nh, w.chi + x * P * (w.nh ? w.nh : 1) };
            double lm;
            cr_assert_eq(rl_farpred_logmean(&law, 1, w.c + x * w.np + p, w.A + (x * w.np + p) * P, 0, w.pdist[p], 1,
                                            &lm, NULL, NULL),
                         RL_OK);
            cr_expect_lt(fabs(lm - w.sr[x * w.np + p]), 2e-4, "%s head %ld pair %ld (delta %ld): rebuilt %.6f realised %.6f",
                         pos, x, p, w.pdist[p], lm, w.sr[x * w.np + p]);
            cr_expect_geq(w.pdist[p], T / 2);
            cr_expect_lt(w.pdist[p], T - 1);
        }
    rl_farpred_within_free(&w);
    free(val.tok);
    rl_gpt_free(m);
}

Test(farpred, pairs_rebuild_rope)
{
    pairs_rebuild("rope");
}

Test(farpred, pairs_rebuild_none)
{
    pairs_rebuild("none");
}

/* The random scheme's measured chi is its closed form sinc(n omega_b). */
Test(farpred, random_chi_is_the_closed_form)
{
    const int T = 16;
    rl_gpt_config cfg = { 1, 32, 2, T, 64, 0.0f, tm_pos("random_qk"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 4);
    rl_gpt_init(m, 8);
    rl_tokens val = { malloc(sizeof(uint16_t) * 1024), 1024, { 0, 0 } };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)(i % 64);
    rl_farpred_within w;
    cr_assert_eq(rl_farpred_measure(m, &val, 4, 8, 2, &w, NULL), RL_OK);
    double om[8];
    rl_so2_freqs(16, RL_ROT_BASE_DEFAULT, 1.0, om);
    for (int h = 0; h < 2; h++)
        for (int b = 0; b < 8; b++)
            for (int n = 1; n <= w.nh; n += 7) {
                const double complex z = w.chi[((long)h * 8 + b) * w.nh + n - 1];
                cr_expect_float_eq(creal(z), creal(rl_farpred_step_charfn(0, om[b], n)), 1e-9);
                cr_expect_float_eq(cimag(z), 0, 1e-12);
            }
    rl_farpred_within_free(&w);
    free(val.tok);
    rl_gpt_free(m);
}

/* The rule reaches each of its outcomes: d well above the margin holds,
 * well below 0 contradicted, tight around 0 absent at this scale, noisy
 * unresolved, one seed unresolved. */
Test(farpred, rule_outcomes)
{
    const double up[4] = { 0.10, 0.11, 0.12, 0.105 }, down[4] = { -0.05, -0.04, -0.06, -0.045 },
                 zero[4] = { 0.001, -0.002, 0.0015, -0.001 }, noisy[4] = { 0.10, -0.06, 0.08, -0.05 };
    cr_expect_eq(rl_farpred_decide(up, 4).v, RL_V_HOLDS);
    cr_expect_eq(rl_farpred_decide(down, 4).v, RL_V_CONTRADICTED);
    cr_expect_eq(rl_farpred_decide(zero, 4).v, RL_V_ABSENT);
    cr_expect_eq(rl_farpred_decide(noisy, 4).v, RL_V_UNRESOLVED);
    cr_expect_eq(rl_farpred_decide(up, 1).v, RL_V_UNRESOLVED, "one seed");
    /* the margin is the equivalence bound: a small but certain gain is absent, not a hold */
    const double small[4] = { 0.005, 0.006, 0.0055, 0.0052 };
    cr_expect_eq(rl_farpred_decide(small, 4).v, RL_V_ABSENT);
    cr_expect_float_eq(rl_farpred_decide(up, 4).delta, RL_FARPRED_MARGIN, 1e-15);
}

/* The measured horizon: the first length whose seeds exceed the threshold
 * by rule sign; none when no length does. */
Test(farpred, horizon_first)
{
    /* 4 lengths x 3 seeds */
    const double x[12] = { 0.000, 0.001, -0.001, 0.05, 0.30, -0.20, 0.30, 0.31, 0.29, 0.9, 0.95, 0.92 };
    int und;
    cr_expect_eq(rl_horizon_first(x, 4, 3, log(1.1), &und), 2);
    cr_expect_eq(und, 1, "4T is unresolved (noisy seeds) before 8T holds");
    cr_expect_eq(rl_horizon_first(x, 1, 3, log(1.1), &und), -1);
    cr_expect_eq(und, -1, "2T is decided below the effect: beyond the grid");
    cr_expect_eq(rl_horizon_first(x + 9, 1, 1, log(1.1), &und), -1, "one seed never holds");
    cr_expect_eq(und, 0);
}

/* Bad inputs: one line, status 2. */
Test(farpred, cli_bad_inputs)
{
    char err[1024];
    cr_expect_eq(th_run("farpred --data x", NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "--ckpt") != NULL, "%s", err);
    cr_expect_eq(th_lines(err), 1, "%s", err);
    cr_expect_eq(th_run("farpred --ckpt /nonexistent/ckpt.bin --data /nonexistent", NULL, 0, err, sizeof err), 2,
                 "%s", err);
    cr_expect_eq(th_lines(err), 1, "%s", err);
    cr_expect_eq(th_run("farpred --bogus 1", NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect_eq(th_run("farpred --ckpt a --data b --lengths 12,x", NULL, 0, err, sizeof err), 2, "%s", err);
}
/* ---- a constructed random-rotation head with one block ---- */

/* random_qk with head dimension 2: one block, omega = 1 (base^0), chi(n) =
 * sinc(n), mixed within T = 32 to chi^32 = 0.004; q and k constant (the
 * weights 0, biases set), so every pair has the same alignment A and the
 * far mass varies only with the rotation noise.  The prediction from
 * windows of T against a Monte Carlo over 300 windows of L = 512 with
 * their own noise (the window's far mass: the mean over its last 64 rows),
 * inside the Jensen bracket of (F3) with Var(F) and the near sums measured
 * in the same windows, at 5 SE. */
Test(farpred, single_block_random_head_matches_monte_carlo, .timeout = 120)
{
    const int T = 32;
    const long L = 512;
    rl_gpt_config cfg = { 1, 4, 2, T, 64, 0.0f, tm_pos("random_qk"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 8);
    cr_assert(m);
    rl_gpt_init(m, 5);
    float *w = m->p.blk[0][RL_QKVW], *bq = m->p.blk[0][RL_QKVB];
    memset(w, 0, sizeof(float) * 2 * 4 * 4); /* the q and k rows */
    const float qb[4] = { 0.5f, 0.2f, 0.9f, -0.4f }, kb[4] = { 0.6f, -0.3f, 0.7f, 0.5f };
    for (int j = 0; j < 4; j++) {
        bq[j] = qb[j];
        bq[4 + j] = kb[j];
    }
    rl_tokens val = { malloc(sizeof(uint16_t) * 8192), 8192, { 0, 0 } };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)((i * 37 + i / 3) % 64);
    rl_farpred_within fw;
    cr_assert_eq(rl_farpred_measure(m, &val, 512, 256, 3, &fw, NULL), RL_OK);
    rl_farpred_row rows[2];
    cr_assert_eq(rl_farpred_predict(&fw, &L, 1, rows, NULL, NULL), RL_OK);
    const long i0 = (L - 1) / RL_ATTN_SQ * RL_ATTN_SQ, nr = L - i0;
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
    for (int h = 0; h < 2; h++) {
        tm_rows_obs o = { L, i0, h, malloc(sizeof(double) * nr * L) };
        rl_gpt_eval_observe(e, tm_rows_observe, &o);
        th_acc rho = { 0 }, F = { 0 };
        double Nmin = INFINITY, Fmin = INFINITY;
        for (int win = 0; win < 300; win++) {
            rl_gpt_eval_window(m, e, val.tok + 7 * win, L, 1000 + (uint64_t)win);
            double wr = 0;
            for (long r = 0; r < nr; r++) {
                const long i = i0 + r;
                double far = 0, near = 0;
                for (long j = 0; j <= i; j++) {
                    if (i - j >= T)
                        far += exp(o.S[r * L + j]);
                    else
                        near += exp(o.S[r * L + j]);
                }
                wr += far / (near + far);
                th_add(&F, far);
                Nmin = fmin(Nmin, near);
                Fmin = fmin(Fmin, far);
            }
            th_add(&rho, wr / nr);
        }
        /* g(F) = F/(N + F): |g''| <= 2 N/(N + F)^3 <= 2/(Nmin + Fmin)^2 over the range seen */
        const double var = F.m2 / (F.n - 1), gap = var / ((Nmin + Fmin) * (Nmin + Fmin)), se = th_se(&rho);
        const double pred = rows[h].meanfield;
        cr_expect_lt(gap, 0.05 * pred, "head %d: the bracket must be narrow enough to test: %g", h, gap);
        cr_expect_geq(rho.mean, pred - gap - 5 * se, "head %d: MC %.5f +- %.5f below the bracket [%.5f, %.5f]", h,
                      rho.mean, se, pred - gap, pred);
        cr_expect_leq(rho.mean, pred + 5 * se, "head %d: MC %.5f +- %.5f above the bracket [%.5f, %.5f]", h, rho.mean,
                      se, pred - gap, pred);
        rl_gpt_eval_observe(e, NULL, NULL);
        free(o.S);
    }
    rl_gpt_eval_free(e);
    rl_farpred_within_free(&fw);
    free(val.tok);
    rl_gpt_free(m);
}

/* The lengths are checked before anything is measured or allocated: a
 * length at T, and a route of more than RL_FARPRED_MAX_STEPS block steps
 * (a length of 2^40: days of work, 64 bytes a token), are bad inputs with
 * one line; the grid's 128T passes. */
Test(farpred, lengths_checked_before_the_work)
{
    rl_gpt_config cfg = { 1, 32, 2, 16, 64, 0.0f, tm_pos("random_qk"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 2);
    rl_err err;
    const long ok[2] = { 32, 128 * 16 }, at[1] = { 16 }, huge[1] = { 1L << 40 };
    cr_expect_eq(rl_farpred_check(m, 512, ok, 2, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(rl_farpred_check(m, 512, at, 1, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "exceed T") != NULL, "%s", err.msg);
    cr_expect_eq(rl_farpred_check(m, 512, huge, 1, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "block steps") != NULL && !strchr(err.msg, '\n'), "%s", err.msg);
    rl_gpt_free(m);
}
