/* test_path_transport.c: routelab's first-harmonic reading of a Householder
 * transport (model/path_transport.h) on synthetic steps: i.i.d. random
 * reflections (the mean transport (1 - 2/d)^delta I), a constant step
 * (deterministic), the SO(2) identity with Watson's k = 1 term, and bad
 * inputs.  Monte Carlo checks at 5 SE of the kernel's own standard error;
 * fixed seeds.  Suite path_transport, < 2 s. */
#include <criterion/criterion.h>

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../api/include/routelab/bounds.h"
#include "../model/path_transport.h"
#include "../sampling/rng.h"
#include "../theory/mixstay_forms.h"

/* S windows of T positions of d floats (w) and one beta each */
typedef struct {
    float *w, *beta;
    rl_transport_steps st;
} steps;

static steps steps_new(int d, long T, long S)
{
    steps s;
    s.w = calloc((size_t)S * T * d, sizeof(float));
    s.beta = calloc((size_t)S * T, sizeof(float));
    s.st = (rl_transport_steps){ d, T, S, s.w, d, s.beta, 1 };
    return s;
}

static void steps_free(steps *s)
{
    free(s->w);
    free(s->beta);
}

static rl_transport_ws *ws_new(int d, long T, long L, long S)
{
    rl_transport_ws *ws;
    rl_err err;
    cr_assert_eq(rl_transport_alloc(d, T, L, S, &ws, &err), RL_OK, "%s", err.msg);
    return ws;
}

/* (1) beta = 2, w uniform on the sphere, i.i.d.: E H = I - 2 E[w w^T] = (1 -
 * 2/d) I, and the steps of one route are independent (its windows are
 * distinct), so Mbar(delta) = c^delta I, c = 1 - 2/d, and
 *   ||Mbar(delta) - Mbar(delta')||_F^2 = d (c^delta - c^delta')^2,
 *   d_1 = |c^delta - c^delta'| / (pi sqrt 2).
 * The estimate X at several pairs (far-near, near-near, and both far, where
 * the truth is ~0) within 5 of its SE; D within 5 SE of the closed max-min,
 * which with c^delta decreasing is at far L-1 and near T-1: D = (c^(T-1) -
 * c^(L-1)) / (pi sqrt 2).  (w is stored in float: |w|^2 = 1 within 2^-23,
 * which moves c by 1e-8, far below the SE of ~1e-2.) */
Test(path_transport, iid_reflections_closed_mean)
{
    const int d = 16;
    const long T = 8, L = 16 * T, S = 400;
    steps s = steps_new(d, T, S);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 11, 0);
    double u[16];
    for (long i = 0; i < S * T; i++) {
        rl_unit_vector(r, d, u);
        for (int k = 0; k < d; k++)
            s.w[i * d + k] = (float)u[k];
        s.beta[i] = 2.0f;
    }
    gsl_rng_free(r);
    rl_transport_ws *ws = ws_new(d, T, L, S);
    rl_transport_dist D;
    rl_err err;
    cr_assert_eq(rl_transport_run(ws, &s.st, 5, &D, &err), RL_OK, "%s", err.msg);
    const double c = 1 - 2.0 / d;
    const long pairs[][2] = { { 8, 0 }, { 8, 7 }, { 12, 3 }, { 20, 5 }, { 127, 7 }, { 127, 0 }, { 3, 1 }, { 90, 120 } };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        const long a = pairs[i][0], b = pairs[i][1];
        double x, se;
        cr_assert_eq(rl_transport_pair(ws, &s.st, a, b, &x, &se, &err), RL_OK, "%s", err.msg);
        const double diff = pow(c, (double)a) - pow(c, (double)b), truth = d * diff * diff;
        cr_expect(se > 0 && isfinite(se), "(%ld, %ld): se %g", a, b, se);
        cr_expect(fabs(x - truth) <= 5 * se, "(%ld, %ld): X %.6g, closed %.6g, SE %.3g (z = %.2f)", a, b, x, truth,
                  se, (x - truth) / se);
    }
    const double want = (pow(c, (double)(T - 1)) - pow(c, (double)(L - 1))) / (M_PI * sqrt(2.0));
    cr_expect(D.se > 0, "se %g", D.se);
    cr_expect(fabs(D.d1 - want) <= 5 * D.se, "D %.6g, closed %.6g, SE %.3g", D.d1, want, D.se);
    cr_expect_eq(D.near, T - 1, "the nearest near law: the last one (c^delta decreases)");
    cr_expect(D.far >= T && D.far <= L - 1);
    cr_expect(D.hi >= D.d1 + D.se, "hi %g: 3 SE of X above", D.hi);
    /* the halves' means: the diagonal of Mhat(8) near c^8, the off-diagonal near 0 */
    const double *ma = rl_transport_mean(ws, 8, 0), *mb = rl_transport_mean(ws, 8, 1);
    cr_assert(ma && mb);
    double tr = 0;
    for (int k = 0; k < d; k++)
        tr += ma[k * d + k] + mb[k * d + k];
    /* tr P of one route (orthogonal: |tr P| <= d) has variance at most d^2:
     * 5 SE of the mean trace over S routes is at most 5 d / sqrt(S) */
    cr_expect(fabs(tr / 2 - d * pow(c, 8)) <= 5 * d / sqrt((double)S), "tr Mhat(8) %g, closed %g", tr / 2,
              d * pow(c, 8));
    rl_transport_free(ws);
    steps_free(&s);
}

/* brute-force max-min of |f(delta) - f(delta')| / (pi sqrt(2 d)) over
 * delta in [T, L-1], delta' in [0, T-1] for f(delta) = a^delta */
static double maxmin_pow(double a, long T, long L, int d)
{
    double best = 0;
    for (long f = T; f < L; f++) {
        double mn = INFINITY;
        for (long n = 0; n < T; n++)
            mn = fmin(mn, fabs(pow(a, (double)f) - pow(a, (double)n)));
        best = fmax(best, mn);
    }
    return best / (M_PI * sqrt(2.0 * d));
}

/* (2) A constant step (every w_t = w, beta fixed): every route is H^delta,
 * with H = I - beta |w|^2 u u^T (u = w / |w|),
 *   P(delta) = I - (1 - a^delta) u u^T,  a = 1 - beta |w|^2,
 * both halves' means are P(delta), X = (a^delta - a^delta')^2 (||u u^T||_F
 * = 1) and its SE 0; D is the closed max-min.  Tolerances: rounding, each
 * of L < 100 steps adds O(d eps) to an entry: 1e-12 covers 100 d eps 10x
 * over.  a = 0.9 (monotone) and a = -0.5 (oscillating: the nearest near
 * law changes with the far length, ties included). */
Test(path_transport, constant_step_exact)
{
    const int d = 8;
    const long T = 6, L = 16 * T, S = 8;
    const float wv[8] = { 0.5f, -0.25f, 0.125f, 0.5f, 0.0f, 0.375f, -0.5f, 0.25f };
    double w2 = 0;
    for (int k = 0; k < d; k++)
        w2 += (double)wv[k] * wv[k];
    const float betas[2] = { (float)(0.1 / w2), (float)(1.5 / w2) };
    for (int bi = 0; bi < 2; bi++) {
        steps s = steps_new(d, T, S);
        for (long i = 0; i < S * T; i++) {
            memcpy(s.w + i * d, wv, sizeof wv);
            s.beta[i] = betas[bi];
        }
        const double a = 1 - (double)betas[bi] * w2;
        rl_transport_ws *ws = ws_new(d, T, L, S);
        rl_transport_dist D;
        rl_err err;
        cr_assert_eq(rl_transport_run(ws, &s.st, 1, &D, &err), RL_OK, "%s", err.msg);
        const long lens[] = { 0, 1, 5, 6, 50, 95 };
        for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
            const double f = 1 - pow(a, (double)lens[i]);
            for (int h = 0; h < 2; h++) {
                const double *m = rl_transport_mean(ws, lens[i], h);
                cr_assert(m);
                double e = 0;
                for (int col = 0; col < d; col++)
                    for (int row = 0; row < d; row++) {
                        const double want = (row == col) - f * wv[row] * wv[col] / w2;
                        e = fmax(e, fabs(m[col * d + row] - want));
                    }
                cr_expect_lt(e, 1e-12, "a = %g, delta %ld, half %d: entries off by %g", a, lens[i], h, e);
            }
        }
        double x, se;
        cr_assert_eq(rl_transport_pair(ws, &s.st, 50, 3, &x, &se, &err), RL_OK);
        const double dx = pow(a, 50) - pow(a, 3);
        cr_expect(fabs(x - dx * dx) <= 1e-12, "X %.17g vs %.17g", x, dx * dx);
        cr_expect(se <= 1e-12, "identical routes: SE %g", se);
        const double want = maxmin_pow(a, T, L, d);
        cr_expect(fabs(D.d1 - want) <= 1e-12, "a = %g: D %.17g vs %.17g", a, D.d1, want);
        cr_expect(D.se <= 1e-6 && D.x_se <= 1e-12, "a = %g: se %g, x_se %g", a, D.se, D.x_se);
        rl_transport_free(ws);
        steps_free(&s);
    }
}

/* Steps of an SO(2) transport in d = 4 (two blocks) from reflections: a
 * reflection H(alpha) = I - 2 n n^T with n = (cos alpha, sin alpha) in a
 * block's plane, and H(alpha) H(0) = R(2 alpha): the route multiplies
 * P H_p H_(p-1) (positions descending), so positions p, p-1 with normals
 * at theta/2 and 0 turn the block by theta.  A window's positions T-1 .. 1
 * (T - 1 = 16) hold 4 rotation steps, each 4 positions: block 0's pair
 * then block 1's.  The blocks' planes are orthogonal, their reflections
 * commute, so P(4m) = diag(R(Theta_0), R(Theta_1)), Theta_b the sum of
 * block b's m angles; steps in whole windows keep the grouping across
 * segments.  theta(g, b): the angle of rotation step g of window s. */
typedef double (*angle_fn)(void *ctx, long s, int g, int b);

static void so2_steps(steps *s, long S, angle_fn theta, void *ctx)
{
    const long T = 17;
    for (long w = 0; w < S; w++)
        for (int g = 0; g < 4; g++)
            for (int b = 0; b < 2; b++) {
                const double t = theta(ctx, w, g, b);
                const long p = T - 1 - 4 * g - 2 * b; /* the pair (p, p - 1) */
                float *hi = s->w + (w * T + p) * 4, *lo = s->w + (w * T + p - 1) * 4;
                memset(hi, 0, 4 * sizeof(float));
                memset(lo, 0, 4 * sizeof(float));
                hi[2 * b] = (float)cos(t / 2);
                hi[2 * b + 1] = (float)sin(t / 2);
                lo[2 * b] = 1.0f;
                s->beta[w * T + p] = s->beta[w * T + p - 1] = 2.0f;
            }
}

static double constant_angle(void *ctx, long s, int g, int b)
{
    (void)s, (void)g;
    return ((const double *)ctx)[b];
}

typedef struct {
    gsl_rng *r;
    const double *om;
} uniform_ctx;

/* drawn in (s, g, b) order, the order so2_steps asks */
static double uniform_angle(void *ctx, long s, int g, int b)
{
    (void)s, (void)g;
    uniform_ctx *u = ctx;
    return u->om[b] * (2 * gsl_rng_uniform(u->r) - 1);
}

/* RMS over the blocks of the k = 1 term of Watson's distance between the
 * laws after m and m' steps: rl_watson_dist with n = 1 on chi_b^m, chi_b^m' */
static double watson_k1_rms(const double complex *chi, long m, long m2)
{
    double s = 0;
    for (int b = 0; b < 2; b++) {
        const double complex p = rl_cpow_n(chi[b], m), q = rl_cpow_n(chi[b], m2);
        double lo;
        cr_assert_eq(rl_watson_dist(&p, &q, 1, &lo, NULL, NULL), RL_OK);
        s += lo * lo;
    }
    return sqrt(s / 2);
}

/* The diagonal of Mbar(delta) for the uniform steps of so2_steps (chi_b
 * real): after m whole rotation steps and j more positions, block 0 is
 * chi_0^m I (j = 0), chi_0^m diag(-chi_0, chi_0) (j = 1: half a pair, E
 * H(alpha) = diag(-chi_0, chi_0)), chi_0^(m+1) I (j >= 2); block 1 likewise
 * at j = 3. */
static void so2_diag(long delta, const double complex *chi, double *m)
{
    const long g = delta / 4;
    const int j = (int)(delta % 4);
    const double c0 = creal(chi[0]), c1 = creal(chi[1]);
    const double p0 = pow(c0, (double)g), p1 = pow(c1, (double)g);
    m[0] = j == 1 ? -p0 * c0 : j >= 2 ? p0 * c0 : p0;
    m[1] = j == 0 ? p0 : p0 * c0;
    m[2] = j == 3 ? -p1 * c1 : p1;
    m[3] = j == 3 ? p1 * c1 : p1;
}

/* (3) The SO(2) identity: for a block-diagonal rotation transport d_1 is
 * the RMS over the blocks of the k = 1 term of Watson's distance for the
 * blocks' chi.  Constant angles (chi_b = e^{i theta_b}): the transport is
 * deterministic and the kernel's d_1 equals the RMS exactly up to the
 * float normals: |n|^2 = 1 within 2^-23, so each of at most L - 1 = 271
 * steps scales P by at most 1 + 2^-21, entries within 271 2^-21 = 1.3e-4
 * of the exact rotations, d_1 (entries of norm <= 1, d = 4) within
 * 2 sqrt(4) 1.3e-4 / (pi sqrt 8) = 6e-5: tolerance 1e-4.  Uniform angles
 * U(-omega_b, omega_b) (chi_b = sin omega_b / omega_b), i.i.d. per window
 * and step: X within 5 SE of 2 sum_b |chi_b^m - chi_b^m'|^2 at whole
 * steps, that closed value's d_1 equal to the RMS of the Watson terms,
 * and the kernel's D within 5 SE of the closed max-min. */
Test(path_transport, so2_identity)
{
    const long T = 17, L = 16 * T;
    {
        const long S = 4;
        const double th[2] = { 0.3, 1.1 };
        steps s = steps_new(4, T, S);
        so2_steps(&s, S, constant_angle, (void *)th);
        rl_transport_ws *ws = ws_new(4, T, L, S);
        rl_transport_dist D;
        rl_err err;
        cr_assert_eq(rl_transport_run(ws, &s.st, 3, &D, &err), RL_OK, "%s", err.msg);
        const double complex chi[2] = { cexp(I * th[0]), cexp(I * th[1]) };
        const long ms[][2] = { { 4, 0 }, { 4, 3 }, { 10, 2 }, { 67, 4 }, { 40, 1 } };
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
            double x, se;
            cr_assert_eq(rl_transport_pair(ws, &s.st, 4 * ms[i][0], 4 * ms[i][1], &x, &se, &err), RL_OK, "%s",
                         err.msg);
            const double d1 = rl_transport_d1(fmax(x, 0), 4), w = watson_k1_rms(chi, ms[i][0], ms[i][1]);
            cr_expect(fabs(d1 - w) <= 1e-4, "m %ld, %ld: d_1 %.9f, Watson k = 1 RMS %.9f", ms[i][0], ms[i][1], d1,
                      w);
        }
        rl_transport_free(ws);
        steps_free(&s);
    }
    {
        const long S = 200;
        const double om[2] = { 0.3, 1.0 };
        steps s = steps_new(4, T, S);
        uniform_ctx u = { rl_rng_alloc(), om };
        rl_rng_stream(u.r, 17, 0);
        so2_steps(&s, S, uniform_angle, &u);
        gsl_rng_free(u.r);
        rl_transport_ws *ws = ws_new(4, T, L, S);
        rl_transport_dist D;
        rl_err err;
        cr_assert_eq(rl_transport_run(ws, &s.st, 9, &D, &err), RL_OK, "%s", err.msg);
        const double complex chi[2] = { sin(om[0]) / om[0], sin(om[1]) / om[1] };
        const long ms[][2] = { { 4, 0 }, { 5, 3 }, { 20, 2 }, { 67, 4 }, { 30, 60 } };
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
            double x, se;
            cr_assert_eq(rl_transport_pair(ws, &s.st, 4 * ms[i][0], 4 * ms[i][1], &x, &se, &err), RL_OK);
            double truth = 0;
            for (int b = 0; b < 2; b++) {
                const double complex z = rl_cpow_n(chi[b], ms[i][0]) - rl_cpow_n(chi[b], ms[i][1]);
                truth += 2 * creal(z * conj(z));
            }
            cr_expect(fabs(x - truth) <= 5 * se, "m %ld, %ld: X %.6g, closed %.6g, SE %.3g", ms[i][0], ms[i][1], x,
                      truth, se);
            /* the identity on the closed X: d_1 = the RMS of Watson's k = 1 terms */
            const double w = watson_k1_rms(chi, ms[i][0], ms[i][1]);
            cr_expect(fabs(rl_transport_d1(truth, 4) - w) <= 1e-15, "%.17g vs %.17g", rl_transport_d1(truth, 4), w);
        }
        /* D against the closed max-min over every length: between whole
         * rotation steps a block holds R(Theta) H(alpha), E H(alpha) =
         * diag(-chi, chi) (E cos 2 alpha = E cos theta = chi, E sin = 0),
         * so Mbar(delta) is diagonal at every delta (so2_diag) */
        double best = 0;
        for (long f = T; f < L; f++) {
            double mf[4], mn = INFINITY;
            so2_diag(f, chi, mf);
            for (long n = 0; n < T; n++) {
                double mm[4], x = 0;
                so2_diag(n, chi, mm);
                for (int k = 0; k < 4; k++)
                    x += (mf[k] - mm[k]) * (mf[k] - mm[k]);
                mn = fmin(mn, x);
            }
            best = fmax(best, mn);
        }
        best = rl_transport_d1(best, 4);
        cr_expect(fabs(D.d1 - best) <= 5 * D.se, "D %.6g, closed max-min %.6g, SE %.3g", D.d1, best, D.se);
        rl_transport_free(ws);
        steps_free(&s);
    }
}

/* NULL and size checks of the public entries: RL_EINPUT with one line,
 * never an abort */
Test(path_transport, bad_inputs)
{
    rl_transport_ws *ws;
    rl_err err;
    cr_expect_eq(rl_transport_alloc(4, 8, 128, 8, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_transport_alloc(0, 8, 128, 8, &ws, &err), RL_EINPUT, "d = 0");
    cr_expect_null(ws);
    cr_expect_eq(rl_transport_alloc(RL_TRANSPORT_MAX_DIM + 1, 8, 128, 8, &ws, &err), RL_EINPUT, "d too large");
    cr_expect_eq(rl_transport_alloc(4, 1, 16, 8, &ws, &err), RL_EINPUT, "T = 1");
    cr_expect(strstr(err.msg, "T must be at least 2"), "%s", err.msg);
    cr_expect_eq(rl_transport_alloc(4, 8, 8, 8, &ws, &err), RL_EINPUT, "L = T");
    cr_expect_eq(rl_transport_alloc(4, 8, 128, 3, &ws, &err), RL_EINPUT, "3 windows");
    cr_expect(strchr(err.msg, '\n') == NULL, "one line: %s", err.msg);
    cr_expect_eq(rl_transport_alloc(4, 1L << 20, 1L << 40, 8, &ws, &err), RL_EINPUT, "too many pairs or bytes");
    steps s = steps_new(4, 8, 8);
    for (long i = 0; i < 8 * 8; i++) {
        s.w[i * 4] = 1.0f;
        s.beta[i] = 1.0f;
    }
    ws = ws_new(4, 8, 128, 8);
    rl_transport_dist D;
    double x, se;
    cr_expect_null(rl_transport_mean(ws, 0, 0), "no means before a run");
    cr_expect_eq(rl_transport_pair(ws, &s.st, 9, 0, &x, &se, &err), RL_EINPUT, "pair before a run");
    cr_expect_eq(rl_transport_run(NULL, &s.st, 1, &D, &err), RL_EINPUT);
    cr_expect_eq(rl_transport_run(ws, NULL, 1, &D, &err), RL_EINPUT);
    cr_expect_eq(rl_transport_run(ws, &s.st, 1, NULL, &err), RL_EINPUT);
    /* one field of the steps wrong at a time: no w, d, T or windows not
     * the workspace's, ldw < d, ldb < 1 */
    for (int k = 0; k < 6; k++) {
        rl_transport_steps bad = s.st;
        bad.w = k == 0 ? NULL : bad.w;
        bad.d += k == 1;
        bad.t += k == 2;
        bad.windows += k == 3;
        bad.ldw -= k == 4;
        bad.ldb -= k == 5;
        cr_expect_eq(rl_transport_run(ws, &bad, 1, &D, &err), RL_EINPUT, "case %d", k);
    }
    s.beta[3 * 8 + 5] = NAN;
    cr_expect_eq(rl_transport_run(ws, &s.st, 1, &D, &err), RL_EINPUT, "a NaN beta");
    cr_expect(strstr(err.msg, "window 3, position 5"), "%s", err.msg);
    s.beta[3 * 8 + 5] = 1.0f;
    s.beta[3 * 8] = NAN; /* position 0 is never read */
    cr_expect_eq(rl_transport_run(ws, &s.st, 1, &D, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(rl_transport_pair(ws, &s.st, 128, 0, &x, &se, &err), RL_EINPUT, "delta = L");
    cr_expect_eq(rl_transport_pair(ws, &s.st, -1, 0, &x, &se, &err), RL_EINPUT);
    cr_expect_eq(rl_transport_pair(ws, &s.st, 9, 0, NULL, &se, &err), RL_EINPUT);
    cr_expect_null(rl_transport_mean(ws, 0, 2));
    cr_expect_null(rl_transport_mean(NULL, 0, 0));
    cr_expect_not_null(rl_transport_mean(ws, 127, 1));
    rl_transport_free(ws);
    rl_transport_free(NULL);
    /* a grid that is not exact stores only the grid's far lengths */
    ws = ws_new(4, 2048, 16 * 2048, 4);
    steps g = steps_new(4, 2048, 4);
    for (long i = 0; i < 4 * 2048; i++) {
        g.w[i * 4 + 1] = 1.0f;
        g.beta[i] = 0.5f;
    }
    long *grid = malloc(sizeof(long) * 40000);
    const long nf = rl_mixstay_grid(2048, 16 * 2048, grid);
    long off = -1;
    for (long i = 1; i < nf && off < 0; i++)
        if (grid[i] > grid[i - 1] + 1)
            off = grid[i - 1] + 1;
    cr_assert(off > 0, "the grid is not exact at T = 2048");
    cr_assert_eq(rl_transport_run(ws, &g.st, 1, &D, &err), RL_OK, "%s", err.msg);
    cr_expect_null(rl_transport_mean(ws, off, 0), "delta %ld is not on the grid", off);
    cr_expect_eq(rl_transport_pair(ws, &g.st, off, 0, &x, &se, &err), RL_EINPUT);
    rl_transport_free(ws);
    free(grid);
    steps_free(&g);
    steps_free(&s);
}
