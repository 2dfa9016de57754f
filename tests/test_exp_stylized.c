/* test_exp_stylized.c: the one-layer retrieval model of `routelab stylized`
 * against finite differences, exact softmax weights, explicit rotations and
 * the value-transport closed form; and the subcommand's files. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/claims.h"
#include "../experiments/stylized.h"
#include "../mc/stylized_model.h"
#include "../program/report/verdict.h"
#include "../sampling/rng.h"
#include "../theory/theory.h"
#include "helpers.h"

enum { D = 8 };

static void streams(gsl_rng *rd, gsl_rng **rt, unsigned long k)
{
    rl_rng_stream(rd, 11, rl_stream_key(1, k));
    for (int t = 0; t < STY_TR_COUNT; t++)
        rl_rng_stream(rt[t], 11, rl_stream_key(2 + t, k));
}

static void queries(const sty_model *m, double *Q)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 5, 77);
    for (int f = 0; f < STY_NFIT; f++) {
        rl_unit_vector(r, m->d, Q + f * m->d);
        for (int i = 0; i < m->d; i++)
            Q[f * m->d + i] *= 0.6 * m->lambda;
    }
    gsl_rng_free(r);
}

/* d log alpha_t / dq = sum (1[t] - alpha_j) P_j k_j, against central differences
 * on the same draws (a wrong sign or a transposed route fails this). */
Test(exp_stylized, gradient_matches_finite_differences)
{
    sty_model m;
    sty_model_init(&m, D, 3, 4.0, 0.5, 0.5, 0.1, 3, 1);
    double Q[STY_NFIT * D];
    queries(&m, Q);
    gsl_rng *rd = rl_rng_alloc(), *rt = rl_rng_alloc();
    const long T = 12;
    for (int f = 0; f < STY_NFIT; f++) {
        sty_win_ws *ws = sty_win_alloc(&m, sty_fits[f].tr, T);
        double q[D], g[D] = { 0 };
        memcpy(q, Q + f * D, sizeof q);
        rl_rng_stream(rd, 9, 1);
        rl_rng_stream(rt, 9, 2);
        double l0;
        cr_assert_eq(sty_window(&m, &sty_fits[f], q, T, rd, rt, ws, g, &l0, NULL), RL_OK);
        for (int i = 0; i < D; i++) {
            const double h = 1e-5;
            double qp[D], qm[D];
            memcpy(qp, q, sizeof q);
            memcpy(qm, q, sizeof q);
            qp[i] += h;
            qm[i] -= h;
            rl_rng_stream(rd, 9, 1);
            rl_rng_stream(rt, 9, 2);
            double lp, lm;
            cr_assert_eq(sty_window(&m, &sty_fits[f], qp, T, rd, rt, ws, NULL, &lp, NULL), RL_OK);
            rl_rng_stream(rd, 9, 1);
            rl_rng_stream(rt, 9, 2);
            cr_assert_eq(sty_window(&m, &sty_fits[f], qm, T, rd, rt, ws, NULL, &lm, NULL), RL_OK);
            cr_assert_float_eq(g[i], (lp - lm) / (2 * h), 1e-6, "%s: dq_%d %g vs %g", sty_fits[f].name, i, g[i],
                               (lp - lm) / (2 * h));
        }
        sty_win_free(ws);
    }
    gsl_rng_free(rd);
    gsl_rng_free(rt);
    sty_model_free(&m);
}

/* The evaluation walk (logits from P^T q) and the training window (logits
 * from P k) on the same draws give the same -log alpha_t at L = T. */
Test(exp_stylized, window_and_evaluation_agree)
{
    sty_model m;
    sty_model_init(&m, D, 4, 5.0, 0.5, 0.5, 0.1, 4, 1);
    double Q[STY_NFIT * D], out[STY_NSCHEME * STY_NQ];
    queries(&m, Q);
    gsl_rng *rd = rl_rng_alloc(), *rt[STY_TR_COUNT];
    for (int t = 0; t < STY_TR_COUNT; t++)
        rt[t] = rl_rng_alloc();
    const long T = 40;
    sty_eval_ws *ews;
    cr_assert_eq(sty_eval_alloc(&m, &ews, NULL), RL_OK);
    for (unsigned long k = 0; k < 5; k++) {
        streams(rd, rt, k);
        cr_assert_eq(sty_eval(&m, Q, &T, 1, rd, rt, ews, out, NULL), RL_OK);
        for (int s = 0; s < STY_NSCHEME; s++) {
            const int f = sty_schemes[s].fit;
            sty_win_ws *ws = sty_win_alloc(&m, sty_fits[f].tr, T);
            streams(rd, rt, k);
            double la;
            cr_assert_eq(sty_window(&m, &sty_fits[f], Q + f * D, T, rd, rt[sty_fits[f].tr], ws, NULL, &la, NULL), RL_OK);
            cr_assert_float_eq(out[s * STY_NQ + STY_Q_NLL], -la, 1e-10, "%s", sty_schemes[s].name);
            cr_assert_float_eq(out[s * STY_NQ + STY_Q_ALPHA], exp(la), 1e-12);
            sty_win_free(ws);
        }
    }
    sty_eval_free(ews);
    for (int t = 0; t < STY_TR_COUNT; t++)
        gsl_rng_free(rt[t]);
    gsl_rng_free(rd);
    sty_model_free(&m);
}

/* q = 0: every logit is 0 (or -m delta), so the weights are known exactly:
 * alpha_t = 1/L, rho_D = (L - K)/L, the untransported background (L - 1)/L;
 * with ALiBi rho_D = sum_{delta > K} e^{-m delta} / sum_{delta <= L} e^{-m delta}. */
Test(exp_stylized, zero_query_gives_exact_weights)
{
    sty_model m;
    sty_model_init(&m, D, 4, 5.0, 0.5, 0.5, 0.1, 4, 1);
    double Q[STY_NFIT * D] = { 0 };
    long grid[3] = { 4, 16, 64 };
    double out[STY_NSCHEME * 3 * STY_NQ];
    gsl_rng *rd = rl_rng_alloc(), *rt[STY_TR_COUNT];
    for (int t = 0; t < STY_TR_COUNT; t++)
        rt[t] = rl_rng_alloc();
    sty_eval_ws *ews;
    cr_assert_eq(sty_eval_alloc(&m, &ews, NULL), RL_OK);
    streams(rd, rt, 3);
    cr_assert_eq(sty_eval(&m, Q, grid, 3, rd, rt, ews, out, NULL), RL_OK);
    for (int s = 0; s < STY_NSCHEME; s++)
        for (int g = 0; g < 3; g++) {
            const double *r = out + (s * 3 + g) * STY_NQ, L = grid[g];
            cr_assert_eq(r[STY_Q_VIOL], 0);
            if (sty_fits[sty_schemes[s].fit].alibi) {
                double num = 0, den = 0;
                for (long dl = 1; dl <= grid[g]; dl++) {
                    den += exp(-m.slope * dl);
                    num += dl > 4 ? exp(-m.slope * dl) : 0;
                }
                cr_assert_float_eq(r[STY_Q_RHO], num / den, 1e-12);
                continue;
            }
            cr_assert_float_eq(r[STY_Q_ALPHA], 1 / L, 1e-14, "%s L=%g", sty_schemes[s].name, L);
            cr_assert_float_eq(r[STY_Q_RHO], (L - 4) / L, 1e-14);
            cr_assert_float_eq(r[STY_Q_NLL], log(L), 1e-12);
            if (!sty_schemes[s].values) {
                cr_assert_float_eq(r[STY_Q_BG], rl_value_coherent((L - 1) / L, 1.0), 1e-14);
                cr_assert_float_eq(r[STY_Q_SIG], 1 / L, 1e-14);
            }
        }
    sty_eval_free(ews);
    for (int t = 0; t < STY_TR_COUNT; t++)
        gsl_rng_free(rt[t]);
    gsl_rng_free(rd);
    sty_model_free(&m);
}

/* RoPE with noiseless keys: the logits are q^T R(delta omega) k exactly, the
 * rotation written out here per half-split block; the target at distance 1. */
Test(exp_stylized, rope_logits_are_the_explicit_rotation)
{
    sty_model m;
    sty_model_init(&m, D, 1, 5.0, 0.0, 0.5, 0.1, 6, 1);
    double Q[STY_NFIT * D], out[STY_NSCHEME * STY_NQ];
    queries(&m, Q);
    const long L = 50;
    gsl_rng *rd = rl_rng_alloc(), *rt[STY_TR_COUNT];
    for (int t = 0; t < STY_TR_COUNT; t++)
        rt[t] = rl_rng_alloc();
    sty_eval_ws *ews;
    cr_assert_eq(sty_eval_alloc(&m, &ews, NULL), RL_OK);
    streams(rd, rt, 0);
    cr_assert_eq(sty_eval(&m, Q, &L, 1, rd, rt, ews, out, NULL), RL_OK);
    const double *q = Q + 1 * D; /* fit 1: rope */
    double z = 0, et = 0, far = 0;
    for (long dl = 1; dl <= L; dl++) {
        const double *k = dl == 1 ? m.w : m.u;
        double l = 0;
        for (int b = 0; b < D / 2; b++) {
            double ph = dl * pow(10000.0, -2.0 * b / D), c = cos(ph), s = sin(ph);
            double k0 = c * k[b] - s * k[b + D / 2], k1 = s * k[b] + c * k[b + D / 2];
            l += q[b] * k0 + q[b + D / 2] * k1;
        }
        z += exp(l);
        et = dl == 1 ? exp(l) : et;
        far += dl > 1 ? exp(l) : 0;
    }
    cr_assert_float_eq(out[1 * STY_NQ + STY_Q_ALPHA], et / z, 1e-12);
    cr_assert_float_eq(out[1 * STY_NQ + STY_Q_RHO], far / z, 1e-12);
    sty_eval_free(ews);
    for (int t = 0; t < STY_TR_COUNT; t++)
        gsl_rng_free(rt[t]);
    gsl_rng_free(rd);
    sty_model_free(&m);
}

/* Transported values with uniform weights (q = 0, target at distance 1): the
 * background sum_{delta=2..L} P_delta vbar / L has
 * E|.|^2 = rl_value_incoherent(rho = (L-1)/L, M = L-1)^2 exactly
 * (docs/theory/claim4-values.md#value-transport, value transport); untransported it is rho |vbar| =
 * (L-1)/L. */
Test(exp_stylized, transported_background_matches_the_closed_form)
{
    sty_model m;
    sty_model_init(&m, D, 1, 5.0, 0.5, 0.5, 0.1, 7, 1);
    double Q[STY_NFIT * D] = { 0 }, out[STY_NSCHEME * STY_NQ];
    const long L = 64, reps = 3000;
    const int s = 3; /* random_qkv */
    cr_assert_str_eq(sty_schemes[s].name, "random_qkv");
    gsl_rng *rd = rl_rng_alloc(), *rt[STY_TR_COUNT];
    for (int t = 0; t < STY_TR_COUNT; t++)
        rt[t] = rl_rng_alloc();
    sty_eval_ws *ews;
    cr_assert_eq(sty_eval_alloc(&m, &ews, NULL), RL_OK);
    th_acc a = { 0 };
    for (long r = 0; r < reps; r++) {
        streams(rd, rt, (unsigned long)r);
        cr_assert_eq(sty_eval(&m, Q, &L, 1, rd, rt, ews, out, NULL), RL_OK);
        th_add(&a, out[s * STY_NQ + STY_Q_BG] * out[s * STY_NQ + STY_Q_BG]);
        cr_assert_float_eq(out[2 * STY_NQ + STY_Q_BG], (L - 1.0) / L, 1e-14);
    }
    double complex chi[D / 2];
    double vn[D / 2];
    for (int b = 0; b < D / 2; b++) {
        chi[b] = rl_angle_charfn(RL_ANG_UNIFORM, pow(10000.0, -2.0 * b / D));
        vn[b] = m.vbar[b] * m.vbar[b] + m.vbar[b + D / 2] * m.vbar[b + D / 2];
    }
    double pred = rl_value_incoherent((L - 1.0) / L, L - 1, D / 2, chi, vn);
    cr_assert_leq(fabs(a.mean - pred * pred), 5 * th_se(&a), "E|bg|^2 = %g +- %g vs %g", a.mean, th_se(&a),
                  pred * pred);
    /* and it is well below the coherent value: the test has power */
    cr_assert_lt(pred * pred, 0.9 * ((L - 1.0) / L) * ((L - 1.0) / L));
    sty_eval_free(ews);
    for (int t = 0; t < STY_TR_COUNT; t++)
        gsl_rng_free(rt[t]);
    gsl_rng_free(rd);
    sty_model_free(&m);
}

/* The fit learns what training teaches: suppress the shared key direction u,
 * align with the target direction w, and use the whole norm. */
Test(exp_stylized, fit_suppresses_the_shared_key)
{
    sty_model m;
    sty_model_init(&m, D, 2, 5.0, 0.5, 0.5, 0.1, 8, 1);
    sty_fit_opts o = { 16, 150, 8, 0.1, 3, 40, 0 };
    double q[D], curve[150];
    cr_assert_eq(sty_fit(&m, &sty_fits[0], &o, q, curve, NULL), RL_OK);
    double qu = 0, qw = 0, n = 0;
    for (int i = 0; i < D; i++) {
        qu += q[i] * m.u[i];
        qw += q[i] * m.w[i];
        n += q[i] * q[i];
    }
    cr_assert_lt(qu, -0.3 * m.lambda, "q.u = %g", qu);
    cr_assert_gt(qw, 0.3 * m.lambda, "q.w = %g", qw);
    cr_assert_float_eq(sqrt(n), m.lambda, 1e-9);
    cr_assert_gt(curve[149], curve[0]);
    sty_model_free(&m);
}

/* Independent fits: fit index 1 reads other streams than fit index 0 (a
 * different query), and a fit index gives the same query every time. */
Test(exp_stylized, fit_index_keys_its_own_streams)
{
    sty_model m;
    sty_model_init(&m, D, 2, 5.0, 0.5, 0.5, 0.1, 8, 1);
    sty_fit_opts o = { 16, 20, 4, 0.1, 3, 40, 0 };
    double q0[D], q0b[D], q1[D];
    cr_assert_eq(sty_fit(&m, &sty_fits[1], &o, q0, NULL, NULL), RL_OK);
    cr_assert_eq(sty_fit(&m, &sty_fits[1], &o, q0b, NULL, NULL), RL_OK);
    o.rep = 1;
    cr_assert_eq(sty_fit(&m, &sty_fits[1], &o, q1, NULL, NULL), RL_OK);
    double diff = 0;
    for (int i = 0; i < D; i++) {
        cr_assert_eq(q0[i], q0b[i]);
        diff += fabs(q0[i] - q1[i]);
    }
    cr_assert_gt(diff, 1e-3, "fit 1 reused fit 0's streams");
    sty_model_free(&m);
}

/* The sign rule (claims table) on z = mean/SE across fits gives each of its
 * three outcomes: beyond 3 SE in the predicted direction holds, beyond 3 SE
 * against it is contradicted, within 3 SE (or NaN) is unresolved; SE = 0
 * decides on the sign.  The cases the old sty_decide was tested on. */
static rl_verdict sign_of(double mean, double se)
{
    return rl_rule_decide(&rl_rule_sign, rl_effect_z(mean, se));
}

Test(exp_stylized, verdict_rule_gives_each_outcome)
{
    cr_assert_eq(sign_of(1.0, 0.2), RL_V_HOLDS);          /* z = 5 */
    cr_assert_eq(sign_of(-1.0, 0.2), RL_V_CONTRADICTED);  /* z = -5 */
    cr_assert_eq(sign_of(0.5, 0.2), RL_V_UNRESOLVED);     /* z = 2.5: right sign, not enough */
    cr_assert_eq(sign_of(-0.5, 0.2), RL_V_UNRESOLVED);    /* z = -2.5 */
    cr_assert_eq(sign_of(0.61, 0.2), RL_V_HOLDS);         /* just beyond 3 SE */
    cr_assert_eq(sign_of(0.59, 0.2), RL_V_UNRESOLVED);    /* just within */
    cr_assert_eq(sign_of(-0.61, 0.2), RL_V_CONTRADICTED);
    cr_assert_eq(sign_of(-0.59, 0.2), RL_V_UNRESOLVED);
    cr_assert_eq(sign_of(1e-30, 0), RL_V_HOLDS);
    cr_assert_eq(sign_of(-1e-30, 0), RL_V_CONTRADICTED);
    cr_assert_eq(sign_of(0, 0), RL_V_UNRESOLVED);
    cr_assert_eq(sign_of(NAN, 1), RL_V_UNRESOLVED);
    cr_assert_eq(sign_of(1, NAN), RL_V_UNRESOLVED);
    cr_assert_eq(sign_of(-1, NAN), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 2.9), RL_V_UNRESOLVED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, 3.1), RL_V_HOLDS);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, -3.1), RL_V_CONTRADICTED);
    cr_assert_eq(rl_rule_decide(&rl_rule_sign, -2.9), RL_V_UNRESOLVED);
}

/* The report half's three kinds of row, as the stylized section makes them:
 * a claim of the study by the sign rule (unresolved is its own kind, never
 * a hold nor a failure), an identity of the construction (not counted; a
 * broken one is contradicted), a reading of ours (info).  A rule the
 * claim's row does not name would die (rule_declared). */
Test(exp_stylized, report_kinds_of_each_row)
{
    const rl_claim *c = rl_claim_find("stylized");
    cr_assert(c);
    rl_report *rep = rl_report_alloc("stylized");
    rl_report_rules(rep, c->rules);
    rl_report_decide(rep, &rl_rule_sign, rl_effect_z(0.58, 0.2), NULL, "z 2.9", "> 0", "0.58 ± 0.2");
    rl_report_decide(rep, &rl_rule_sign, rl_effect_z(0.62, 0.2), NULL, "z 3.1", "> 0", "0.62 ± 0.2");
    rl_report_decide(rep, &rl_rule_sign, rl_effect_z(-0.62, 0.2), NULL, "z -3.1", "> 0", "-0.62 ± 0.2");
    rl_report_identity(rep, 1, "identity ok", "0 violations", "0 violations");
    rl_report_identity(rep, 0, "identity broken", "0 violations", "1 violation");
    rl_report_info(rep, "ordering", "study", "ours");
    int n[RL_NVERDICT];
    rl_report_kinds(rep, n);
    cr_assert_eq(n[RL_V_HOLDS], 1);
    cr_assert_eq(n[RL_V_UNRESOLVED], 1);
    cr_assert_eq(n[RL_V_CONTRADICTED], 2); /* z = -3.1 and the broken identity */
    cr_assert_eq(n[RL_V_IDENTITY], 1);
    cr_assert_eq(n[RL_V_INFO], 1);
    char buf[4096] = { 0 };
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    rl_report_tsv(rep, f, "stylized");
    fclose(f);
    cr_assert(strstr(buf, "stylized\tunresolved\tsign\tz 2.9\t"), "%s", buf);
    cr_assert(strstr(buf, "stylized\tholds\tsign\tz 3.1\t"), "%s", buf);
    cr_assert(strstr(buf, "stylized\tcontradicted\tsign\tz -3.1\t"), "%s", buf);
    cr_assert(strstr(buf, "stylized\tidentity\t-\tidentity ok\t"), "%s", buf);
    cr_assert(strstr(buf, "stylized\tcontradicted\t-\tidentity broken\t"), "%s", buf);
    cr_assert(strstr(buf, "stylized\tinfo\t-\tordering\t"), "%s", buf);
    rl_report_free(rep);
}

static int exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, R_OK) == 0;
}

Test(exp_stylized, cli_quick_writes_every_file, .timeout = 120)
{
    char *dir = th_tmpdir(), args[512], err[4096];
    snprintf(args, sizeof args, "stylized --preset quick --out %s", dir);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    const char *files[] = { "stylized.md",         "stylized.tsv",        "stylized_table.tsv",
                            "stylized_query.tsv",  "stylized_logit.tsv",  "stylized_fit.tsv",
                            "stylized_study.tsv",  "stylized_alpha.png",  "stylized_farmass.png",
                            "stylized_snr.png",    "stylized_ratio.png",  "stylized_query.png" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        cr_assert(exists(dir, files[i]), "missing %s", files[i]);
    /* each row's kind, chosen from what it means: identities of the
     * construction, readings of ours (info), the study's claims by sign */
    static const char *const ident[] = { "for every scheme without a bias", "random_qk vs random_qkv: target weight",
                                         "alibi: far mass bounded", "alibi flat",
                                         "random_qk degrades further from 16T to 128T (the 16T context is a prefix" };
    static const char *const info[] = { "below the rotation-only lower bound", "ordering by ppl ratio" };
    char *p = th_path(dir, "stylized.md");
    FILE *f = fopen(p, "r");
    cr_assert(f);
    static char row[8192];
    int nid = 0, ninfo = 0, nsign = 0;
    while (fgets(row, sizeof row, f)) {
        cr_expect(!strstr(row, "UNRESOLVED"), "%s", row);
        const char *end = strrchr(row, '|');
        if (strncmp(row, "| ", 2) || !end || !strstr(row, " | "))
            continue;
        int is_id = 0, is_info = 0;
        for (size_t i = 0; i < sizeof ident / sizeof *ident; i++)
            is_id |= strstr(row, ident[i]) != NULL;
        for (size_t i = 0; i < sizeof info / sizeof *info; i++)
            is_info |= strstr(row, info[i]) != NULL;
        if (is_id) {
            nid++;
            cr_expect(strstr(row, "| identity | – |"), "%s", row);
        } else if (is_info) {
            ninfo++;
            cr_expect(strstr(row, "| info | – |"), "%s", row);
        } else if (strstr(row, " | sign |"))
            nsign++;
    }
    fclose(f);
    free(p);
    cr_expect_eq(nid, 5);
    cr_expect_eq(ninfo, 2);
    cr_expect_eq(nsign, 6);
    th_rmdir(dir);
    free(dir);
    cr_assert_eq(th_run("stylized --no-such-flag", NULL, 0, NULL, 0), 2);
}

static int sty_scheme_of(const char *name)
{
    for (int s = 0; s < STY_NSCHEME; s++)
        if (strcmp(sty_schemes[s].name, name) == 0)
            return s;
    return -1;
}

/* The summarise step on a hand-built run of 2 fits x 1 query on L = T, 16T,
 * 128T (T = 1): -log alpha_t of fit j is (j + 1) g, twice that for rope, so
 * rope's degradation beyond T exceeds random_qk's by j + 1 per fit: mean
 * 1.5, SE 0.5 across the fits (t = 3), both fits agree; rope's ppl ratio at
 * 128T is the largest; the one violation set is counted. */
Test(exp_stylized, summarise_a_hand_built_run)
{
    enum { NFIT = 2, NG = 3, D = 4, STEPS = 2 };
    const int rope = sty_scheme_of("rope"), qk = sty_scheme_of("random_qk");
    cr_assert(rope >= 0 && qk >= 0);
    sty_model M[NFIT];
    for (int j = 0; j < NFIT; j++)
        sty_model_init(&M[j], D, 4, 8.0, 0.5, 0.5, 0.0625, 1, (unsigned long)j);
    static double res[NFIT * STY_NSCHEME * NG * STY_NQ], Q[NFIT * STY_NFIT * D], curves[NFIT * STY_NFIT * STEPS];
    for (int i = 0; i < NFIT * STY_NFIT * D; i++)
        Q[i] = 0.1;
    for (int j = 0; j < NFIT; j++)
        for (int s = 0; s < STY_NSCHEME; s++)
            for (int g = 0; g < NG; g++)
                res[((j * STY_NSCHEME + s) * NG + g) * STY_NQ + STY_Q_NLL] = (j + 1) * g * (s == rope ? 2.0 : 1.0);
    res[((1 * STY_NSCHEME + qk) * NG + 2) * STY_NQ + STY_Q_VIOL] = 1;
    rl_sty_res R = { .z = { .d = D, .T = 1, .steps = STEPS, .batch = 1, .nq = 1, .lmax = 128, .nfit = NFIT },
                     .M = M, .grid = { 1, 16, 128 }, .ng = NG, .gT = 0, .g16 = 1, .g128 = 2, .Q = Q,
                     .curves = curves, .res = res };
    rl_sty_summary *S = calloc(1, sizeof *S);
    rl_stylized_summarise(&R, S);
    cr_assert_float_eq(S->more[0].d.mean, 1.5, 1e-12);
    cr_assert_float_eq(S->more[0].d.se, 0.5, 1e-12);
    cr_assert_eq(S->more[0].d.pos, 2);
    cr_assert_float_eq(S->more[0].t, 3.0, 1e-12);
    cr_assert_eq(S->ord[0], rope, "the largest ppl ratio at 128T: rope's");
    cr_assert_eq(S->viol, 1);
    cr_assert_eq(S->nviol, (long)NFIT * NG * 5, "every fit, query and length of the 5 schemes without ALiBi");
    rl_stylized_summary_free(S);
    free(S);
    for (int j = 0; j < NFIT; j++)
        sty_model_free(&M[j]);
}
