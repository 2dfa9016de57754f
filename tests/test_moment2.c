/* test_moment2.c: second-moment certificates (theory/moment2.h, mc/moment2_mc.h):
 * closed forms against the sample estimate of T = E[M (x) M] (fixed seeds;
 * tolerance noise + 5 SE, since the norm of a noisy matrix is biased upward
 * by about `noise` when its top singular value is 0 or repeated). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../mc/moment2_brownian.h"
#include "../mc/moment2_mc.h"
#include "../theory/moment2.h"
#include "../theory/theory.h"
#include "helpers.h"

static rl_moment2_est estimate(const rl_family *f, long n)
{
    rl_moment2_est e;
    rl_err err;
    rl_status st = rl_moment2_estimate_family(f, NULL, 0, n, 7, &e, &err);
    cr_assert_eq(st, RL_OK, "%s", err.msg);
    return e;
}

/* closed vs estimate; tol_max keeps the check sharp enough to catch a wrong formula */
static void agree(const rl_family *f, long n, double tol_max)
{
    rl_moment2 m;
    rl_moment2_closed(f, NULL, &m, NULL, NULL);
    rl_moment2_est e = estimate(f, n);
    double tol = e.noise + 5 * e.se;
    cr_assert_lt(tol, tol_max, "%s d=%d: tolerance %g too loose", rl_family_name(f->kind), f->d, tol);
    cr_assert_leq(fabs(e.rate - m.rate), tol, "%s d=%d: closed %.6g, estimate %.6g +- %.2g (noise %.2g)",
                  rl_family_name(f->kind), f->d, m.rate, e.rate, e.se, e.noise);
}

static void draw_pm_identity(void *ctx, gsl_rng *r, double *M)
{
    int d = *(int *)ctx;
    double s = gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
    memset(M, 0, sizeof(double) * d * d);
    for (int i = 0; i < d; i++)
        M[i * d + i] = s;
}

/* M = +-I: E M = 0 (W = 1), yet M X M^T = X: on the complement of span(I)
 * (the fixed space a concentrating family has) T is the identity, rate 1. */
Test(moment2, plus_minus_identity_has_no_certificate)
{
    int d = 4;
    double basis[16] = { 0 };
    for (int i = 0; i < d; i++)
        basis[i * d + i] = 0.5;
    rl_moment2_est e;
    rl_err err;
    cr_assert_eq(rl_moment2_estimate(d, draw_pm_identity, &d, 20000, 3, 1, basis, &e, &err), RL_OK, "%s", err.msg);
    cr_assert_lt(e.mean_norm, 5.0 / sqrt(20000.0), "||mean M|| = %g", e.mean_norm);
    cr_assert_lt(fabs(e.rate - 1.0), 1e-12, "rate %.17g", e.rate);
    cr_assert_eq(rl_mixing_window(e.rate, 0.01), -1);
    cr_assert_gt(rl_mixing_window(e.mean_norm, 0.01), 0, "the first moment alone would certify");
}

/* The same within the families: so2, d = 2, theta = +-pi/2 (M = +-J). */
Test(moment2, pm_quarter_turn_has_no_certificate)
{
    rl_family f = rl_family_default(RL_FAM_SO2, 2);
    f.law = RL_ANG_PM;
    f.scale = M_PI / 2;
    rl_moment2 m;
    rl_moment2_closed(&f, NULL, &m, NULL, NULL);
    cr_assert_lt(rl_family_mean_norm(&f, NULL, NULL), 1e-15);
    cr_assert_lt(fabs(m.rate - 1.0), 1e-15, "closed rate %.17g", m.rate);
    rl_moment2_est e = estimate(&f, 4000);
    cr_assert_lt(fabs(e.rate - 1.0), 1e-12, "estimate %.17g", e.rate);
    cr_assert_eq(rl_mixing_window(m.rate, 0.01), -1);
}

Test(moment2, haar_rate_is_zero)
{
    rl_family fs[] = { rl_family_default(RL_FAM_HAAR, 4), rl_family_default(RL_FAM_HAAR_SO, 3),
                       rl_family_default(RL_FAM_HAAR_SO, 2), rl_family_default(RL_FAM_HAAR, 2) };
    for (int i = 0; i < 4; i++) {
        rl_moment2 m;
        rl_moment2_closed(&fs[i], NULL, &m, NULL, NULL);
        cr_assert_eq(m.rate, 0.0);
        agree(&fs[i], 20000, 0.05);
    }
}

Test(moment2, so2_uniform_rate_is_sinc_of_twice_the_width)
{
    double ws[] = { 0.3, 0.7, 1.2, 2.0 };
    for (int i = 0; i < 4; i++) {
        rl_family f = rl_family_default(RL_FAM_SO2, 2);
        f.scale = ws[i];
        rl_moment2 m;
        rl_moment2_closed(&f, NULL, &m, NULL, NULL);
        double exact = fabs(sin(2 * ws[i]) / (2 * ws[i]));
        cr_assert_lt(fabs(m.rate - exact), 1e-15, "w=%g: %.17g vs %.17g", ws[i], m.rate, exact);
        cr_assert_eq(m.fixdim, 2);
        agree(&f, 20000, 0.05);
    }
}

/* Cross-block terms: pm angles 3pi/4 and pi/4 have E e^{2i theta_b} = 0 in
 * both blocks, yet theta_0 +- theta_1 gives |chi_0 chi_1| = 1/2. */
Test(moment2, so2_cross_blocks_count)
{
    rl_family f = rl_family_default(RL_FAM_SO2, 4);
    f.law = RL_ANG_PM;
    f.scale = 3 * M_PI / 4;
    f.base = 9; /* omega_1 = scale / 3 */
    double diag[2], rate[2];
    rl_moment2 m;
    rl_moment2_closed(&f, NULL, &m, diag, rate);
    cr_assert_lt(diag[0] + diag[1], 1e-15);
    cr_assert_lt(fabs(m.rate - 0.5), 1e-15, "rate %.17g", m.rate);
    agree(&f, 20000, 0.05);
    f.law = RL_ANG_GAUSS; /* independent blocks, a smooth law */
    f.scale = 0.8;
    agree(&f, 20000, 0.05);
}

Test(moment2, householder_closed_form)
{
    int ds[] = { 2, 3, 4, 6 };
    for (int i = 0; i < 4; i++) {
        rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, ds[i]);
        rl_moment2 m;
        rl_moment2_closed(&f, NULL, &m, NULL, NULL);
        double d = ds[i];
        cr_assert_lt(fabs(m.rate - fmax(fabs(1 - 4 / d), 1 - 4 / (d + 2))), 1e-15);
        agree(&f, 20000, 0.06);
    }
    /* d = 2: H J H^T = -J forever (antisymmetric part), no certificate */
    rl_family f2 = rl_family_default(RL_FAM_HOUSEHOLDER, 2);
    rl_moment2 m2;
    rl_moment2_closed(&f2, NULL, &m2, NULL, NULL);
    cr_assert_eq(m2.rate, 1.0);
}

Test(moment2, path_lazy_token_closed_forms)
{
    rl_family p = rl_family_default(RL_FAM_PATH, 4);
    p.beta = 1;
    agree(&p, 20000, 0.05);
    p.beta = 1.7;
    agree(&p, 20000, 0.05);
    rl_family l = rl_family_default(RL_FAM_LAZY_HAAR, 4);
    l.p = 0.3;
    agree(&l, 20000, 0.05);
    rl_family b = rl_family_default(RL_FAM_BROWNIAN, 2);
    b.sigma = 0.5;
    agree(&b, 20000, 0.05);
    double table[8 * 2];
    for (int v = 0; v < 8; v++) {
        table[2 * v] = 0.4 * v;
        table[2 * v + 1] = 0.9 * v * v;
    }
    rl_family t = rl_family_default(RL_FAM_TOKEN_SO2, 4);
    t.vocab = 8;
    t.table = table;
    agree(&t, 20000, 0.05);
}

/* Brownian at any d from characters (mc/moment2_brownian.h): the exact
 * e^{-2 sigma^2} at d = 2, and the d^4 estimate of the whole operator at
 * d = 3, 5, 8 within 5 combined SE plus its noise floor. */
Test(moment2, brownian_rate_from_characters)
{
    rl_moment2_est c, e;
    rl_err err;
    cr_assert_eq(rl_moment2_brownian(2, 0.5, 20000, 3, &c, &err), RL_OK);
    cr_assert_lt(fabs(c.rate - exp(-0.5)), 5 * c.se, "%g vs %g +- %g", c.rate, exp(-0.5), c.se);
    int ds[] = { 3, 5, 8 };
    for (int i = 0; i < 3; i++) {
        rl_family f = rl_family_default(RL_FAM_BROWNIAN, ds[i]);
        f.sigma = 0.7;
        cr_assert_eq(rl_moment2_brownian(ds[i], f.sigma, 20000, 5, &c, &err), RL_OK);
        cr_assert_eq(rl_moment2_estimate_family(&f, NULL, 0, 20000, 9, &e, &err), RL_OK);
        double tol = 5 * hypot(c.se, e.se) + e.noise;
        cr_assert_lt(fabs(c.rate - e.rate), tol, "d = %d: characters %g +- %g, estimate %g +- %g (noise %g)", ds[i],
                     c.rate, c.se, e.rate, e.se, e.noise);
        cr_assert(c.rate > 0 && c.rate < 1);
    }
    cr_assert_eq(rl_moment2_brownian(1, 0.5, 100, 1, &c, &err), RL_EINPUT);
    cr_assert_eq(rl_moment2_brownian(4, NAN, 100, 1, &c, &err), RL_EINPUT);
}

Test(moment2, bad_inputs_are_refused)
{
    rl_family f = rl_family_default(RL_FAM_HAAR, 17);
    rl_moment2_est e;
    rl_err err;
    cr_assert_eq(rl_moment2_estimate_family(&f, NULL, 0, 1000, 1, &e, &err), RL_EINPUT);
    f.d = 4;
    cr_assert_eq(rl_moment2_estimate_family(&f, NULL, 0, 5, 1, &e, &err), RL_EINPUT);
}

Test(moment2, cli_prints_the_certificate)
{
    char out[8192], err[512];
    int st = th_run("bound norm2 --family so2 --d 2 --scale 0.7 --samples 2000", out, sizeof out, err, sizeof err);
    cr_assert_eq(st, 0, "%s", err);
    cr_assert(strstr(out, "closed form: 0.703892664"), "%s", out);
    const char *last = strrchr(out, '#');
    long w = 0;
    cr_assert_eq(sscanf(strchr(last, '\n') + 1, "%ld", &w), 1, "%s", out);
    cr_assert_eq(w, rl_mixing_window(sin(1.4) / 1.4, 0.01));
    st = th_run("bound norm2 --family so2 --d 2 --angles pm --scale 1.5707963267948966", out, sizeof out, err, sizeof err);
    cr_assert_eq(st, 0, "%s", err);
    cr_assert(strstr(out, "no certificate") && strstr(out, "\ninf\n"), "%s", out);
    /* per block: W2_b(eps) and the length from which it meets claim 2's
     * hypothesis, rate_b^n <= 1/d, the same as rl_moment2_unmet's */
    st = th_run("bound norm2 --family so2 --d 2 --scale 0.7 --samples 0", out, sizeof out, err, sizeof err);
    cr_assert_eq(st, 0, "%s", err);
    const char *row = strstr(out, "\n# 0 ");
    cr_assert(row, "%s", out);
    double om, dg, rb;
    long wb, hb;
    cr_assert_eq(sscanf(row, "\n# 0 %lf %lf %lf %ld %ld", &om, &dg, &rb, &wb, &hb), 5, "%s", out);
    cr_assert_eq(wb, rl_mixing_window(rb, 0.01));
    cr_assert_eq(hb, rl_mixing_window(rb, 0.5));
    char buf[256];
    cr_assert_null(rl_moment2_unmet(rb, 2, hb, buf, sizeof buf));
    cr_assert_not_null(rl_moment2_unmet(rb, 2, hb - 1, buf, sizeof buf));
}
