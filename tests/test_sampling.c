/* test_sampling.c: the laws and algebra of sampling/.
 * Monte Carlo checks use fixed seeds and 5-sigma tolerances from the
 * standard error of the estimate; exact laws where one exists. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../base/core/util.h"
#include "../sampling/family_cli.h"
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

/* rl_rng_local (no allocation) draws the numbers of rl_rng_alloc's
 * generator on the same stream: the callers that moved to it keep their
 * bytes. */
Test(rng, local_generator_matches_allocated)
{
    gsl_rng *a = rng(3);
    rl_rng_local l;
    gsl_rng *b = rl_rng_local_init(&l);
    rl_rng_stream(b, 12345, 3);
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(rl_rng_next64(a), rl_rng_next64(b));
        cr_assert_eq(gsl_rng_uniform(a), gsl_rng_uniform(b));
        cr_assert_eq(gsl_rng_uniform_int(a, 1000), gsl_rng_uniform_int(b, 1000));
    }
    gsl_rng_free(a);
    /* unpositioned: both seeded with GSL's default seed */
    gsl_rng *c = rl_rng_alloc();
    rl_rng_local m;
    gsl_rng *d = rl_rng_local_init(&m);
    cr_assert_not_null(c);
    cr_assert_eq(rl_rng_next64(c), rl_rng_next64(d));
    gsl_rng_free(c);
}

/* The block fill is gsl_rng_uniform n times: the same doubles and the
 * generator left where n single calls leave it, for the project's generator
 * (its inline path) and for one of GSL's own (the general path). */
Test(rng, uniform_fill_is_the_single_draws)
{
    const gsl_rng_type *types[] = { rl_rng_xoshiro, gsl_rng_mt19937 };
    for (int k = 0; k < 2; k++) {
        gsl_rng *a = gsl_rng_alloc(types[k]), *b = gsl_rng_alloc(types[k]);
        gsl_rng_set(a, 7);
        gsl_rng_set(b, 7);
        double u[37];
        rl_rng_uniform_fill(a, 37, u);
        for (int i = 0; i < 37; i++)
            cr_assert_eq(u[i], gsl_rng_uniform(b), "type %d draw %d", k, i);
        cr_assert_eq(gsl_rng_get(a), gsl_rng_get(b), "type %d: the state after", k);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
}

/* Every angle law: the block of n angles is n calls of the single draw, bit
 * for bit, and leaves the stream where they leave it. */
Test(rng, so2_angle_block_is_the_single_draws)
{
    double omega[33], phi[33];
    rl_so2_freqs(66, 10000, 1, omega);
    for (int law = 0; law < RL_ANG_COUNT; law++) {
        rl_rng_local la, lb;
        gsl_rng *a = rl_rng_local_init(&la), *b = rl_rng_local_init(&lb);
        rl_rng_stream(a, 42, (uint64_t)law);
        rl_rng_stream(b, 42, (uint64_t)law);
        for (int rep = 0; rep < 3; rep++) {
            rl_so2_draw_angles(a, (rl_angle_law)law, omega, 33, phi);
            for (int i = 0; i < 33; i++) {
                double one = rl_so2_draw_angle(b, (rl_angle_law)law, omega[i]);
                cr_assert(memcmp(&phi[i], &one, sizeof one) == 0, "law %d angle %d: %.17g vs %.17g", law, i,
                          phi[i], one);
            }
        }
        cr_assert_eq(rl_rng_next64(a), rl_rng_next64(b), "law %d: the state after", law);
    }
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
        cr_assert_eq(rl_haar_draw(w, r, special, U, NULL), RL_OK);
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
    cr_assert_eq(rl_haar_draw(w, r, 1, U, NULL), RL_OK);
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

/* The determinant rl_haar_from_gaussian reports is the matrix's own. */
Test(haar, from_gaussian_reports_the_determinant)
{
    const int d = 5;
    rl_haar_workspace *w = rl_haar_alloc(d);
    gsl_rng *r = rng(9);
    double G[25];
    for (int i = 0; i < 20; i++) {
        int det = 0;
        rl_ziggurat_fill(&w->zig, r, G, d * d);
        cr_assert_eq(rl_haar_from_gaussian(w, 0, G, &det, NULL), RL_OK);
        cr_assert(det == 1 || det == -1);
        cr_assert_float_eq(th_det(G, d), (double)det, 1e-10);
    }
    gsl_rng_free(r);
    rl_haar_free(w);
}

/* A LAPACK failure (here dgeqrf refusing a workspace shorter than d, info
 * -8) is an internal failure, status 1, with one line naming the routine:
 * never the bad-input status 2, and never an exit from inside the library. */
Test(haar, lapack_failure_is_internal)
{
    const int d = 4;
    rl_haar_workspace *w = rl_haar_alloc(d);
    gsl_rng *r = rng(10);
    double U[16];
    w->lwork = 1;
    rl_err err = { RL_OK, "" };
    cr_redirect_stdout(); /* LAPACK's xerbla prints its own complaint */
    cr_assert_eq(rl_haar_draw(w, r, 0, U, &err), RL_EINTERNAL);
    cr_assert_eq(err.status, RL_EINTERNAL);
    cr_assert(strstr(err.msg, "dgeqrf failed") && !strchr(err.msg, '\n'), "message '%s'", err.msg);
    cr_assert_eq(rl_haar_from_gaussian(w, 1, U, NULL, NULL), RL_EINTERNAL, "NULL err: status only");
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
    cr_assert_eq(rl_stepper_status(s, NULL), RL_OK);
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

/* A token outside the table fails the draw without exiting: the stepper
 * keeps the first failure (RL_EINPUT) until it is freed, and the step is NaN
 * so that nothing computed from it passes for a number. */
Test(steps, failed_draw_is_recorded_in_the_stepper)
{
    rl_family f = token_family(4);
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rng(95);
    rl_err err = { RL_OK, "" };
    rl_stepper_draw(s, r, 3);
    cr_assert_eq(rl_stepper_status(s, &err), RL_OK);
    cr_assert_str_empty(err.msg, "a good status leaves err alone");
    rl_stepper_draw(s, r, 64);
    cr_assert(isnan(rl_stepper_angles(s)[0]) && isnan(rl_stepper_angles(s)[1]));
    rl_stepper_draw(s, r, 1);  /* a good draw after it */
    rl_stepper_draw(s, r, -5); /* a second failure */
    cr_assert_eq(rl_stepper_status(s, NULL), RL_EINPUT);
    cr_assert_eq(rl_stepper_status(s, &err), RL_EINPUT);
    cr_assert_eq(err.status, RL_EINPUT);
    cr_assert_str_eq(err.msg, "token id 64 is outside the angle table's vocabulary of 64");
    double x[4] = { 1, 0, 0, 0 };
    rl_transport(s, r, 3, (const int[]){ 0, 70, 1 }, x, 1);
    cr_assert(isnan(x[0]), "a route through a failed step is NaN, got %g", x[0]);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

/* ---------- building a family from flags ---------- */

Test(family, check_names_the_problem)
{
    rl_err err;
    rl_family f = rl_family_default(RL_FAM_SO2, 7);
    cr_assert_eq(rl_family_check(&f, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "so2 needs an even dimension, got d = 7");
    f = rl_family_default(RL_FAM_PATH, 8);
    f.beta = 2.5;
    cr_assert_eq(rl_family_check(&f, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "beta 2.5 is outside (0, 2]");
    f = rl_family_default(RL_FAM_TOKEN_SO2, 8);
    cr_assert_eq(rl_family_check(&f, NULL), RL_EINPUT, "token-so2 without a table");
    f = rl_family_default(RL_FAM_BROWNIAN, 8);
    cr_assert_eq(rl_family_check(&f, NULL), RL_OK);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    char *p = th_path(dir, name);
    FILE *fp = fopen(p, "w");
    cr_assert(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

Test(family, table_file_errors_name_file_and_line)
{
    char *d = th_tmpdir();
    char *good = write_tmp(d, "good.txt", "# angles\n0.5 1\n\n-1 2\n");
    char *shortl = write_tmp(d, "short.txt", "0.5 1\n0.25\n");
    char *longl = write_tmp(d, "long.txt", "0.5 1 2\n");
    char *empty = write_tmp(d, "empty.txt", "# nothing\n");
    double *t = NULL;
    int vocab = 0;
    rl_err err;
    cr_assert_eq(rl_so2_table_load(good, 4, &t, &vocab, &err), RL_OK);
    cr_assert_eq(vocab, 2);
    cr_assert(t[0] == 0.5 && t[1] == 1 && t[2] == -1 && t[3] == 2);
    free(t);
    char want[1024];
    cr_assert_eq(rl_so2_table_load(shortl, 4, &t, &vocab, &err), RL_EINPUT);
    cr_assert_null(t);
    snprintf(want, sizeof want, "%s:2: expected 2 angles per line, found 1", shortl);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(rl_so2_table_load(longl, 4, &t, &vocab, &err), RL_EINPUT);
    snprintf(want, sizeof want, "%s:1: more than 2 angles on the line", longl);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(rl_so2_table_load(empty, 4, &t, &vocab, &err), RL_EINPUT);
    snprintf(want, sizeof want, "angle table %s has no rows", empty);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(rl_so2_table_load("/nonexistent/t", 4, &t, &vocab, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, "cannot read angle table /nonexistent/t"), "%s", err.msg);
    th_rmdir(d);
}

Test(family, from_args_returns_input_errors)
{
    rl_family_args a = rl_family_args_default();
    rl_opt opts[RL_FAMILY_OPTS_MAX + 1];
    opts[rl_family_opts(&a, opts)] = (rl_opt)RL_OPT_END_;
    rl_family f;
    double *table = (double *)1;
    rl_err err;
    a.kind = RL_FAM_HAAR;
    a.table = "x";
    cr_assert_eq(rl_family_from_args(&a, opts, 1, 0, &f, &table, &err), RL_EINPUT);
    cr_assert_null(table);
    cr_assert_str_eq(err.msg, "--table, --text and --vocab apply to --family token-so2 only");
    a = rl_family_args_default();
    a.kind = RL_FAM_TOKEN_SO2;
    a.d = 6;
    for (rl_opt *o = opts; o->type != RL_OPT_END; o++)
        if (!strcmp(o->name, "vocab"))
            *(int *)o->dest = 10; /* --vocab 10 */
    a.text = "Makefile";
    for (rl_opt *o = opts; o->type != RL_OPT_END; o++)
        o->seen |= !strcmp(o->name, "vocab"); /* as if --vocab 10 were given */
    cr_assert_eq(rl_family_from_args(&a, opts, 1, 0, &f, &table, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "--text reads byte tokens 0..255, so --vocab must be at least 256");
    a.text = NULL;
    cr_assert_eq(rl_family_from_args(&a, opts, 1, 0, &f, &table, &err), RL_OK);
    cr_assert(table && f.table == table && f.vocab == 10 && f.d == 6);
    int *tok;
    long n;
    cr_assert_eq(rl_family_tokens(&a, &f, 50, 1, 2, &tok, &n, &err), RL_OK);
    cr_assert_eq(n, 50);
    for (long i = 0; i < n; i++)
        cr_assert(tok[i] >= 0 && tok[i] < 10);
    free(tok);
    a.text = "/nonexistent/text";
    cr_assert_eq(rl_family_tokens(&a, &f, 50, 1, 2, &tok, &n, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, "cannot read /nonexistent/text"), "%s", err.msg);
    free(table);
}

/* The command puts its name in front of the library's message. */
Test(family, command_names_itself)
{
    char err[1024];
    cr_assert_eq(th_run("sample --family token-so2 --d 4 --table /nonexistent/table", NULL, 0, err, sizeof err), 2);
    cr_assert(strncmp(err, "routelab: sample: cannot read angle table /nonexistent/table", 60) == 0, "%s", err);
    cr_assert_eq(th_lines(err), 1);
    cr_assert_eq(th_run("bound norm --family so2 --d 7", NULL, 0, err, sizeof err), 2);
    cr_assert_str_eq(err, "routelab: bound: so2 needs an even dimension, got d = 7\n");
}

/* Output the system refuses (a full disk) is not the user's input: status 1. */
Test(family, refused_output_is_internal)
{
    const char *bin = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char *d = th_tmpdir(), *errp = th_path(d, "err"), cmd[2048];
    snprintf(cmd, sizeof cmd, "%s sample --family haar --d 8 --count 500 >/dev/full 2>%s", bin, errp);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", WEXITSTATUS(st));
    char *err = rl_read_file(errp, NULL);
    cr_assert_str_eq(err, "routelab: sample: write error on standard output\n");
    free(err);
    th_rmdir(d);
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
