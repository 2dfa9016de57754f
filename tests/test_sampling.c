/* test_sampling.c: the laws and algebra of sampling/.
 * Monte Carlo checks use fixed seeds and 5-sigma tolerances from the
 * standard error of the estimate; exact laws where one exists. */
#include <criterion/criterion.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sampling/haar.h"
#include "../sampling/normal.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"
#include "../theory/theory.h"
#include "helpers.h"

static gsl_rng *rng(unsigned long stream)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 12345, stream);
    return r;
}

/* ---------- streams ---------- */

Test(rng, streams_are_reproducible_and_distinct)
{
    gsl_rng *a = rng(3), *b = rng(3), *c = rng(4);
    int same_c = 0;
    for (int i = 0; i < 1000; i++) {
        unsigned long x = gsl_rng_get(a), y = gsl_rng_get(b), z = gsl_rng_get(c);
        cr_assert_eq(x, y);
        same_c += x == z;
    }
    cr_assert_lt(same_c, 5, "streams 3 and 4 coincide in %d of 1000 draws", same_c);
    gsl_rng_free(a);
    gsl_rng_free(b);
    gsl_rng_free(c);
}

Test(rng, uniform_mean_and_variance)
{
    gsl_rng *r = rng(0);
    th_acc m = { 0 }, v = { 0 };
    for (int i = 0; i < 200000; i++) {
        double u = gsl_rng_uniform(r);
        th_add(&m, u);
        th_add(&v, (u - 0.5) * (u - 0.5));
    }
    cr_assert_lt(fabs(m.mean - 0.5), 5 * th_se(&m));
    cr_assert_lt(fabs(v.mean - 1.0 / 12), 5 * th_se(&v));
    gsl_rng_free(r);
}

static double normal_cdf(double x, void *ctx)
{
    (void)ctx;
    return 0.5 * erfc(-x / sqrt(2.0));
}

Test(rng, ziggurat_is_standard_normal)
{
    const long n = 200000;
    double *x = malloc(sizeof(double) * n);
    rl_ziggurat z;
    rl_ziggurat_init(&z);
    gsl_rng *r = rng(1);
    rl_ziggurat_fill(&z, r, x, n);
    /* the tail beyond R = 3.4426 comes from the slow path: its frequency is
     * binomial with p = 2 (1 - Phi(R)) */
    long tail = 0;
    for (long i = 0; i < n; i++)
        tail += fabs(x[i]) > 3.442619855899;
    double p = erfc(3.442619855899 / sqrt(2.0));
    cr_assert_lt(fabs(tail - n * p), 5 * sqrt(n * p * (1 - p)), "tail count %ld vs %g", tail, n * p);
    double ks = th_ks(x, n, normal_cdf, NULL);
    cr_assert_lt(ks, TH_KS_5SIGMA, "KS sqrt(n)D = %g", ks);
    free(x);
    gsl_rng_free(r);
}

/* ---------- Haar ---------- */

static double coord_cdf(double x, void *ctx)
{
    return rl_beta_coord_cdf(*(int *)ctx, x);
}

static void haar_law(int d, int special, long n)
{
    rl_haar_workspace *w = rl_haar_alloc(d);
    gsl_rng *r = rng(100 + d + special);
    double *U = malloc(sizeof(double) * d * d), *x = malloc(sizeof(double) * n);
    th_acc tr = { 0 }, tr2 = { 0 };
    long plus = 0;
    for (long i = 0; i < n; i++) {
        rl_haar_draw(w, r, special, U);
        x[i] = U[d + 2]; /* entry (1, 2): any entry has the coordinate law */
        double t = 0;
        for (int k = 0; k < d; k++)
            t += U[(long)k * d + k];
        th_add(&tr, t);
        th_add(&tr2, t * t);
        double det = th_det(U, d);
        cr_assert_lt(fabs(fabs(det) - 1), 1e-10, "det %g", det);
        plus += det > 0;
    }
    double ks = th_ks(x, n, coord_cdf, &d);
    cr_assert_lt(ks, TH_KS_5SIGMA, "d=%d special=%d KS sqrt(n)D = %g", d, special, ks);
    if (special) {
        cr_assert_eq(plus, n, "SO(%d): %ld of %ld with det +1", d, plus, n);
    } else {
        /* equal proportions: plus ~ Binomial(n, 1/2) */
        cr_assert_lt(fabs(plus - n / 2.0), 5 * sqrt(n / 4.0), "O(%d): %ld of %ld with det +1", d, plus, n);
        /* Diaconis-Shahshahani: E Tr U = 0, E (Tr U)^2 = 1 on O(d), d >= 2 */
        cr_assert_lt(fabs(tr.mean), 5 * th_se(&tr), "E Tr U = %g +- %g", tr.mean, th_se(&tr));
        cr_assert_lt(fabs(tr2.mean - 1), 5 * th_se(&tr2), "E (Tr U)^2 = %g +- %g", tr2.mean, th_se(&tr2));
    }
    free(U);
    free(x);
    gsl_rng_free(r);
    rl_haar_free(w);
}

Test(haar, law_on_O_d) { haar_law(3, 0, 20000); haar_law(10, 0, 20000); haar_law(64, 0, 3000); }
Test(haar, law_on_SO_d) { haar_law(3, 1, 20000); haar_law(10, 1, 10000); }

Test(haar, no_sign_correction_is_detected)
{
    /* Without the sign correction, Q from LAPACK's QR is not Haar: its first
     * column is +-G e_1/|G e_1| with a sign fixed by LAPACK, not uniform. The
     * corrected sampler passes the same KS test (law_on_O_d), so this checks
     * the test has power against the classic mistake. */
    const int d = 4;
    const long n = 20000;
    rl_haar_workspace *w = rl_haar_alloc(d);
    gsl_rng *r = rng(7);
    double *G = malloc(sizeof(double) * d * d), *x = malloc(sizeof(double) * n);
    for (long i = 0; i < n; i++) {
        rl_ziggurat_fill(&w->zig, r, G, d * d);
        LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, d, d, G, d, w->tau, w->work, w->lwork);
        LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, d, d, d, G, d, w->tau, w->work, w->lwork);
        x[i] = G[0];
    }
    int dd = d;
    cr_assert_gt(th_ks(x, n, coord_cdf, &dd), 10 * TH_KS_5SIGMA);
    free(G);
    free(x);
    gsl_rng_free(r);
    rl_haar_free(w);
}

Test(haar, large_dimension_is_orthogonal)
{
    const int d = 1024;
    rl_haar_workspace *w = rl_haar_alloc(d);
    gsl_rng *r = rng(8);
    double *U = malloc(sizeof(double) * d * d);
    rl_haar_draw(w, r, 1, U);
    /* U^T U = I to 1e-12 (entrywise), checked through one column pair set */
    double worst = 0;
    for (int i = 0; i < d; i += 37)
        for (int j = 0; j < d; j++) {
            double s = 0;
            for (int k = 0; k < d; k++)
                s += U[(long)k * d + i] * U[(long)k * d + j];
            worst = fmax(worst, fabs(s - (i == j)));
        }
    cr_assert_lt(worst, 1e-12, "orthogonality error %g", worst);
    free(U);
    gsl_rng_free(r);
    rl_haar_free(w);
}

/* ---------- step families ---------- */

static rl_family fam(rl_family_kind k, int d)
{
    rl_family f = rl_family_default(k, d);
    f.base = 10.0; /* frequencies 2, ..., spread over (0, 2] with scale 2 */
    f.scale = 2.0;
    return f;
}

static double table_buf[64 * 8];

static rl_family token_family(int d)
{
    rl_family f = fam(RL_FAM_TOKEN_SO2, d);
    f.vocab = 64;
    f.table = table_buf;
    rl_so2_table_draw(&f, 5, 5, table_buf);
    return f;
}

static void check_orthogonal(rl_family f)
{
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(20 + f.kind);
    double *M = malloc(sizeof(double) * f.d * f.d);
    for (int t = 0; t < 20; t++) {
        rl_stepper_draw(s, r, t % (f.vocab ? f.vocab : 1));
        rl_stepper_matrix(s, M);
        double e = th_orth_err(M, f.d);
        cr_assert_lt(e, 1e-12, "%s d=%d: |M^T M - I| = %g", rl_family_name(f.kind), f.d, e);
    }
    free(M);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(steps, orthogonal_families_are_orthogonal)
{
    int dims[] = { 2, 8, 65, 128 };
    for (int i = 0; i < 4; i++) {
        int d = dims[i];
        rl_family_kind ks[] = { RL_FAM_HAAR, RL_FAM_HAAR_SO, RL_FAM_HOUSEHOLDER, RL_FAM_LAZY_HAAR, RL_FAM_BROWNIAN };
        for (int k = 0; k < 5; k++) {
            rl_family f = fam(ks[k], d);
            f.sigma = 0.7;
            check_orthogonal(f);
        }
        rl_family p = fam(RL_FAM_PATH, d);
        p.beta = 2.0;
        check_orthogonal(p);
        if (d % 2 == 0) {
            for (int a = 0; a < RL_ANG_COUNT; a++) {
                rl_family f = fam(RL_FAM_SO2, d);
                f.law = (rl_angle_law)a;
                check_orthogonal(f);
            }
            if (d <= 16)
                check_orthogonal(token_family(d));
        }
    }
}

Test(steps, path_below_two_is_not_orthogonal)
{
    rl_family f = fam(RL_FAM_PATH, 6);
    f.beta = 0.5;
    cr_assert_not(rl_family_orthogonal(&f));
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(30);
    double M[36];
    rl_stepper_draw(s, r, 0);
    rl_stepper_matrix(s, M);
    /* M^T M - I = (beta^2 - 2 beta) w w^T: its trace, ||M||_F^2 - d, is -0.75 */
    double fro = 0;
    for (int i = 0; i < 36; i++)
        fro += M[i] * M[i];
    cr_assert_float_eq(fro - 6, 0.25 - 1.0, 1e-12);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

/* apply() agrees with the dense matrix, and the transpose undoes it */
Test(steps, apply_matches_matrix_and_transpose_inverts)
{
    rl_family_kind ks[] = { RL_FAM_HAAR, RL_FAM_HAAR_SO, RL_FAM_SO2, RL_FAM_TOKEN_SO2, RL_FAM_HOUSEHOLDER,
                            RL_FAM_PATH, RL_FAM_LAZY_HAAR, RL_FAM_BROWNIAN };
    const int d = 8, nv = 3;
    for (int k = 0; k < 8; k++) {
        rl_family f = ks[k] == RL_FAM_TOKEN_SO2 ? token_family(d) : fam(ks[k], d);
        f.p = 1.0;
        f.beta = ks[k] == RL_FAM_PATH ? 0.8 : f.beta;
        rl_stepper *s = rl_stepper_alloc(&f, 2); /* cap 2 < nv: blocked path */
        gsl_rng *r = rng(40 + k);
        double M[64], X[24], Y[24];
        rl_stepper_draw(s, r, 3);
        rl_stepper_matrix(s, M);
        for (int i = 0; i < nv * d; i++)
            X[i] = Y[i] = rl_normal(r);
        rl_stepper_apply(s, 0, Y, nv);
        for (int v = 0; v < nv; v++)
            for (int i = 0; i < d; i++) {
                double e = 0;
                for (int j = 0; j < d; j++)
                    e += M[i * d + j] * X[v * d + j];
                cr_assert_float_eq(Y[v * d + i], e, 1e-12, "%s: apply != matrix", rl_family_name(f.kind));
            }
        rl_stepper_apply(s, 1, Y, nv);
        for (int i = 0; i < nv * d; i++) {
            double e = 0; /* M^T M X */
            int v = i / d, a = i % d;
            for (int b = 0; b < d; b++) {
                double mx = 0;
                for (int j = 0; j < d; j++)
                    mx += M[b * d + j] * X[v * d + j];
                e += M[b * d + a] * mx;
            }
            cr_assert_float_eq(Y[i], e, 1e-12, "%s: transpose apply wrong", rl_family_name(f.kind));
            if (rl_family_orthogonal(&f))
                cr_assert_float_eq(Y[i], X[i], 1e-12, "%s: M^T M != I", rl_family_name(f.kind));
        }
        gsl_rng_free(r);
        rl_stepper_free(s);
    }
}

/* Monte Carlo E[M] against the closed form, families with E[M] = cI:
 * the mean of tr(M)/d against c, and every off-diagonal mean against 0. */
static void check_scalar_mean(rl_family f, double c, double extra_tol, long n)
{
    const int d = f.d;
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(60 + f.kind);
    double *M = malloc(sizeof(double) * d * d);
    th_acc tr = { 0 };
    th_acc *off = calloc(d * d, sizeof(th_acc));
    for (long i = 0; i < n; i++) {
        rl_stepper_draw(s, r, 0);
        rl_stepper_matrix(s, M);
        double t = 0;
        for (int a = 0; a < d; a++)
            t += M[a * d + a];
        th_add(&tr, t / d);
        for (int a = 0; a < d * d; a++)
            if (a % (d + 1))
                th_add(&off[a], M[a]);
    }
    cr_assert_lt(fabs(tr.mean - c), 5 * th_se(&tr) + extra_tol, "%s d=%d: tr/d = %g +- %g, closed form %g",
                 rl_family_name(f.kind), d, tr.mean, th_se(&tr), c);
    for (int a = 0; a < d * d; a++)
        if (a % (d + 1))
            cr_assert_lt(fabs(off[a].mean), 5 * th_se(&off[a]) + 1e-15, "%s: off-diagonal mean %g +- %g",
                         rl_family_name(f.kind), off[a].mean, th_se(&off[a]));
    double closed = rl_family_mean_norm(&f, NULL, NULL);
    if (!isnan(closed))
        cr_assert_float_eq(closed, fabs(c), 1e-15);
    free(off);
    free(M);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(steps, mean_of_scalar_families)
{
    check_scalar_mean(fam(RL_FAM_HAAR, 6), 0.0, 0, 20000);
    check_scalar_mean(fam(RL_FAM_HAAR_SO, 5), 0.0, 0, 20000);
    check_scalar_mean(fam(RL_FAM_HAAR_SO, 2), 0.0, 0, 20000);
    check_scalar_mean(fam(RL_FAM_HOUSEHOLDER, 6), 1 - 2.0 / 6, 0, 50000);
    rl_family p = fam(RL_FAM_PATH, 6);
    p.beta = 0.7;
    check_scalar_mean(p, 1 - 0.7 / 6, 0, 50000);
    rl_family l = fam(RL_FAM_LAZY_HAAR, 6);
    l.p = 0.3;
    check_scalar_mean(l, 0.7, 0, 50000);
    /* Brownian: the moment series to sigma^4, plus its truncation bound */
    rl_family b = fam(RL_FAM_BROWNIAN, 6);
    b.sigma = 0.3;
    double err, c = rl_brownian_mean(6, 0.3, &err);
    cr_assert_lt(err, 2e-3);
    check_scalar_mean(b, c, err, 40000);
    b.d = 2;
    b.sigma = 1.5; /* d = 2: exp(sigma A) = R(sigma a), E = e^{-sigma^2/2} exactly */
    check_scalar_mean(b, exp(-0.5 * 1.5 * 1.5), 0, 40000);
}

/* SO(2) families: per block, the sample means of cos and sin of the step
 * angle against Re and Im of the characteristic function chi_b. */
static void check_so2_mean(rl_family f, long n)
{
    const int h = f.d / 2;
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(80 + f.law + 10 * f.kind);
    th_acc c[h], sn[h];
    memset(c, 0, sizeof c);
    memset(sn, 0, sizeof sn);
    for (long i = 0; i < n; i++) {
        rl_stepper_draw(s, r, (int)gsl_rng_uniform_int(r, f.vocab ? f.vocab : 1));
        const double *phi = rl_stepper_angles(s);
        for (int b = 0; b < h; b++) {
            th_add(&c[b], cos(phi[b]));
            th_add(&sn[b], sin(phi[b]));
        }
    }
    double omega[h], blocks[h];
    rl_so2_freqs(f.d, f.base, f.scale, omega);
    double top = rl_family_mean_norm(&f, NULL, blocks), mx = 0;
    for (int b = 0; b < h; b++) {
        double complex chi = 0;
        if (f.kind == RL_FAM_SO2)
            chi = rl_angle_charfn(f.law, omega[b]);
        else
            for (int v = 0; v < f.vocab; v++)
                chi += cexp(I * f.table[v * h + b]) / f.vocab;
        /* a deterministic law has zero standard error: allow rounding */
        cr_assert_leq(fabs(c[b].mean - creal(chi)), 5 * th_se(&c[b]) + 1e-12, "%s/%s block %d: E cos = %g +- %g vs %g",
                      rl_family_name(f.kind), rl_angle_name(f.law), b, c[b].mean, th_se(&c[b]), creal(chi));
        cr_assert_leq(fabs(sn[b].mean - cimag(chi)), 5 * th_se(&sn[b]) + 1e-12, "%s/%s block %d: E sin = %g +- %g vs %g",
                      rl_family_name(f.kind), rl_angle_name(f.law), b, sn[b].mean, th_se(&sn[b]), cimag(chi));
        cr_assert_float_eq(blocks[b], cabs(chi), 1e-14);
        mx = fmax(mx, cabs(chi));
    }
    cr_assert_float_eq(top, mx, 1e-15);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(steps, mean_of_so2_families)
{
    for (int a = 0; a < RL_ANG_COUNT; a++) {
        rl_family f = fam(RL_FAM_SO2, 8);
        f.law = (rl_angle_law)a;
        check_so2_mean(f, 40000);
    }
    check_so2_mean(token_family(8), 40000);
}

Test(steps, closed_form_norms)
{
    /* spot values of |chi| from the study's closed forms */
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_UNIFORM, 1.0)), sin(1.0), 1e-15);
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_PM, 0.5)), cos(0.5), 1e-15);
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_GAUSS, 0.5)), exp(-0.125), 1e-15);
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_CONSTANT, 0.5)), 1.0, 1e-15);
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_CIRCLE, 0.5)), 0.0, 1e-15);
    cr_assert_float_eq(cabs(rl_angle_charfn(RL_ANG_DRIFT, 1.0)), sin(1.0), 1e-15);
    /* RoPE: constant angles have no gap; the study's uniform law at d = 64:
     * the fastest block (omega = 1) has norm sin 1, the slowest is ~1 */
    rl_family f = rl_family_default(RL_FAM_SO2, 64);
    double blocks[32];
    f.law = RL_ANG_UNIFORM;
    rl_family_mean_norm(&f, NULL, blocks);
    cr_assert_float_eq(blocks[0], sin(1.0), 1e-15);
    double w = pow(10000.0, -62.0 / 64);
    cr_assert_float_eq(blocks[31], sin(w) / w, 1e-15);
    f.law = RL_ANG_CONSTANT;
    cr_assert_float_eq(rl_family_mean_norm(&f, NULL, NULL), 1.0, 1e-15);
}

/* ---------- transport along a route ---------- */

Test(transport, so2_route_equals_step_by_step)
{
    rl_family f = fam(RL_FAM_SO2, 16);
    rl_stepper *s = rl_stepper_alloc(&f, 2);
    gsl_rng *r1 = rng(90), *r2 = rng(90);
    double X[32], Y[32];
    for (int i = 0; i < 32; i++)
        X[i] = Y[i] = sin(i + 1.0);
    rl_transport(s, r1, 1000, NULL, X, 2);
    for (int t = 0; t < 1000; t++) {
        rl_stepper_draw(s, r2, 0);
        rl_stepper_apply(s, 0, Y, 2);
    }
    for (int i = 0; i < 32; i++)
        cr_assert_float_eq(X[i], Y[i], 1e-11);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    rl_stepper_free(s);
}

Test(transport, householder_route_equals_matrix_product)
{
    rl_family f = fam(RL_FAM_HOUSEHOLDER, 5);
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r1 = rng(91), *r2 = rng(91);
    double x[5] = { 1, 2, 3, 4, 5 }, P[25] = { 0 }, M[25], T[25];
    for (int i = 0; i < 5; i++)
        P[i * 6] = 1;
    rl_transport(s, r1, 7, NULL, x, 1);
    for (int t = 0; t < 7; t++) { /* P <- M_t P: the later step on the left */
        rl_stepper_draw(s, r2, 0);
        rl_stepper_matrix(s, M);
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                T[i * 5 + j] = 0;
                for (int k = 0; k < 5; k++)
                    T[i * 5 + j] += M[i * 5 + k] * P[k * 5 + j];
            }
        memcpy(P, T, sizeof T);
    }
    for (int i = 0; i < 5; i++) {
        double e = 0;
        for (int j = 0; j < 5; j++)
            e += P[i * 5 + j] * (j + 1);
        cr_assert_float_eq(x[i], e, 1e-12);
    }
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    rl_stepper_free(s);
}

Test(transport, long_so2_route_accumulates_in_double)
{
    /* constant angles: 65,536 steps give exactly R(65536 omega_b) */
    rl_family f = rl_family_default(RL_FAM_SO2, 8);
    f.law = RL_ANG_CONSTANT;
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(92);
    double phi[4], omega[4];
    const long n = 65536;
    rl_so2_route_angles(s, r, n, NULL, phi);
    rl_so2_freqs(8, 10000, 1, omega);
    for (int b = 0; b < 4; b++) {
        double want = remainder((double)n * omega[b], 2 * M_PI);
        cr_assert_float_eq(phi[b], want, 1e-10, "block %d: %.17g vs %.17g", b, phi[b], want);
    }
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(transport, token_route_reads_the_tokens)
{
    rl_family f = token_family(4);
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(93);
    int tok[5] = { 3, 1, 4, 1, 5 };
    double phi[2];
    rl_so2_route_angles(s, r, 5, tok, phi);
    for (int b = 0; b < 2; b++) {
        double want = 0;
        for (int t = 0; t < 5; t++)
            want += f.table[tok[t] * 2 + b];
        cr_assert_float_eq(phi[b], rl_angle_reduce(want), 1e-14);
    }
    gsl_rng_free(r);
    rl_stepper_free(s);
}
