/* test_mixstay.c: routelab's mix-or-stay condition (theory/mixstay_forms.h):
 * Watson's distance against its closed values, its kernel form and a direct
 * integration of the CDFs; the search D_b against the brute-force max-min
 * and the closed form of constant steps; the contrast of zero-mean and
 * positive steps; the Monte Carlo estimate; bad arguments.  Every tolerance
 * is derived in the comment above its check (rounding: a few ulps of the
 * sums, 1e-12 to 1e-14 absolute). */
#include <criterion/criterion.h>
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"
#include "../mc/watson_mc.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/mixstay_forms.h"
#include "../program/reproduce/preset.h"
#include "helpers.h"

#define N0 2048

/* Watson's kernel: (1/2pi^2) sum_{k>=1} cos(k t)/k^2 = 1/12 - t/(4 pi) +
 * t^2/(8 pi^2) for t in [0, 2 pi] (the classical Fourier series of the
 * quadratic), so for discrete laws d_U^2 = sum w w' k(x - x') + sum v v'
 * k(y - y') - 2 sum w v k(x - y): the exact, untruncated distance. */
static double kern(double t)
{
    t = fmod(t, 2 * M_PI);
    if (t < 0)
        t += 2 * M_PI;
    return 1.0 / 12 - t / (4 * M_PI) + t * t / (8 * M_PI * M_PI);
}

typedef struct {
    int n;
    double x[8], w[8];
} atoms;

static double kern_cross(const atoms *a, const atoms *b)
{
    double s = 0;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            s += a->w[i] * b->w[j] * kern(a->x[i] - b->x[j]);
    return s;
}

static void atoms_phi(const atoms *a, int n, double complex *phi)
{
    for (int k = 1; k <= n; k++) {
        phi[k - 1] = 0;
        for (int i = 0; i < a->n; i++)
            phi[k - 1] += a->w[i] * cexp(I * k * a->x[i]);
    }
}

static double dist(const double complex *p, const double complex *q, int n, double *hi)
{
    double lo;
    rl_err err;
    cr_assert_eq(rl_watson_dist(p, q, n, &lo, hi, &err), RL_OK, "%s", err.msg);
    return lo;
}

/* A point mass against the uniform law: |c_k| = 1, so d^2 = (pi^2/6) /
 * (2 pi^2) = 1/12 exactly, and the truncated sum misses sum_{k>N} 1/k^2 /
 * (2 pi^2), which lies in (1/(N+1), 1/N) / (2 pi^2) (the integral test). */
Test(mixstay, point_mass_against_uniform)
{
    const int ns[] = { 1, 7, 64, N0 };
    double complex p[N0], u[N0];
    for (int t = 0; t < 4; t++) {
        const int n = ns[t];
        for (double a = 0; a < 6; a += 1.3) { /* any origin */
            for (int k = 1; k <= n; k++)
                p[k - 1] = cexp(I * k * a), u[k - 1] = 0;
            double hi, lo = dist(p, u, n, &hi);
            const double miss = (1.0 / 12 - lo * lo) * 2 * M_PI * M_PI;
            cr_expect(lo <= 1 / sqrt(12.0) && 1 / sqrt(12.0) <= hi, "N %d: 1/sqrt 12 outside [%.17g, %.17g]", n, lo, hi);
            cr_expect(miss > 1.0 / (n + 1) - 1e-13 && miss < 1.0 / n + 1e-13, "N %d a %g: tail %.17g not in (1/(N+1), 1/N)",
                      n, a, miss);
        }
    }
}

/* Two point masses an arc fraction x apart: |c_k|^2 = 2 - 2 cos(2 pi k x),
 * sum_k (2 - 2cos(k theta))/k^2 = 2 pi^2 x (1 - x), so d = sqrt(x (1 - x)):
 * inside the bracket (rounding 1e-14); a common rotation of both (another
 * origin) changes the truncated sum by rounding only (1e-14). */
Test(mixstay, two_point_masses)
{
    const double xs[] = { 0.001, 0.1, 0.25, 0.5, 0.73, 0.999 };
    double complex p[N0], q[N0];
    for (int i = 0; i < 6; i++) {
        double ref = -1;
        for (double a = 0; a < 6; a += 0.9) {
            for (int k = 1; k <= N0; k++)
                p[k - 1] = cexp(I * k * a), q[k - 1] = cexp(I * k * (a + 2 * M_PI * xs[i]));
            double hi, lo = dist(p, q, N0, &hi), want = sqrt(xs[i] * (1 - xs[i]));
            cr_expect(lo <= want + 1e-14 && want <= hi + 1e-14, "x %g: %.17g outside [%.17g, %.17g]", xs[i], want, lo, hi);
            cr_expect_leq(hi, 0.5, "the upper end is capped at 1/2");
            if (ref < 0)
                ref = lo;
            cr_expect(fabs(lo - ref) <= 1e-14, "x %g: origin %g moves the distance %.17g -> %.17g", xs[i], a, ref, lo);
        }
    }
}

/* A metric: 0 for equal laws (exactly: the sum of differences), symmetric
 * (bit for bit: (a - b)^2 = (b - a)^2), the triangle inequality (the
 * truncated sum is a weighted L2 norm of phi_mu - phi_nu: exact but for
 * rounding, 1e-12 of the sides), in [0, 1/2]; and the exact distance of
 * discrete laws from the kernel inside [lo, hi] (rounding 1e-13). */
Test(mixstay, metric_on_random_laws)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 11, 0);
    double complex phi[3][N0];
    atoms a[3];
    for (int trial = 0; trial < 40; trial++) {
        for (int l = 0; l < 3; l++) {
            a[l].n = 1 + (int)(gsl_rng_uniform(r) * 6);
            double tot = 0;
            for (int i = 0; i < a[l].n; i++)
                a[l].x[i] = 2 * M_PI * gsl_rng_uniform(r), a[l].w[i] = gsl_rng_uniform(r) + 0.01, tot += a[l].w[i];
            for (int i = 0; i < a[l].n; i++)
                a[l].w[i] /= tot;
            atoms_phi(&a[l], N0, phi[l]);
        }
        double hi01, hi12, hi02, h;
        const double d01 = dist(phi[0], phi[1], N0, &hi01), d12 = dist(phi[1], phi[2], N0, &hi12);
        const double d02 = dist(phi[0], phi[2], N0, &hi02), d10 = dist(phi[1], phi[0], N0, &h);
        cr_expect_eq(d01, d10, "symmetry: %.17g vs %.17g", d01, d10);
        cr_expect_eq(dist(phi[2], phi[2], N0, NULL), 0.0);
        cr_expect_leq(d02, d01 + d12 + 1e-12 * (d01 + d12), "triangle: %.17g > %.17g + %.17g", d02, d01, d12);
        cr_expect(d01 >= 0 && d01 <= 0.5 && d02 <= 0.5 && d12 <= 0.5);
        const double exact = sqrt(fmax(0, kern_cross(&a[0], &a[0]) + kern_cross(&a[1], &a[1]) -
                                              2 * kern_cross(&a[0], &a[1])));
        cr_expect(exact >= d01 - 1e-13 && exact <= hi01 + 1e-13, "trial %d: exact %.17g outside [%.17g, %.17g]", trial,
                  exact, d01, hi01);
    }
    gsl_rng_free(r);
}

/* The wrapped normal's CDF from the origin: P(X mod 2 pi in (0, x]) = sum_j
 * [Phi((2 pi j + x - m)/s) - Phi((2 pi j - m)/s)]; |j| <= 8 leaves terms
 * beyond 60 s for s <= 0.8 (below e^-1800: 0 in double). */
static double wn_cdf(double x, double m, double s)
{
    double f = 0;
    for (int j = -8; j <= 8; j++)
        f += 0.5 * (erfc(-(2 * M_PI * j + x - m) / (s * M_SQRT2)) - erfc(-(2 * M_PI * j - m) / (s * M_SQRT2)));
    return f;
}

/* Parseval against the definition for two wrapped normals: (1/2pi) int (G -
 * mean G)^2 by the trapezoid rule on M points (G is smooth and periodic).
 * The rule's error on the mean of a periodic h is sum_{j != 0} h^(jM).  G's
 * coefficients are g_k = i c_k / (2 pi k), |g_k| <= b_k := (e^{-k^2 s1^2/2} +
 * e^{-k^2 s2^2/2}) / (2 pi k), so the mean of G errs by at most B_M = 2
 * sum_{j>=1} b_{jM}, its square by B_M (2 |mean| + B_M), and the mean of
 * G^2 (coefficients g * g: one index at least M/2 in every |m| >= M) by
 * 2 (2 sum_{k>=M/2} b_k)(2 sum_k b_k).  The Fourier side misses at most
 * sum_{k>N} (2 pi k b_k)^2 / k^2 / (2 pi^2).  Tolerance: these bounds plus
 * rounding (1e-14: M sums of erfc, 1e-16 each). */
Test(mixstay, parseval_against_the_cdf_integral)
{
    const double m1 = 0.5, s1 = 0.35, m2 = 2.2, s2 = 0.8;
    const int M = 1024;
    double sg = 0, sg2 = 0;
    for (int j = 0; j < M; j++) {
        const double x = 2 * M_PI * j / M, g = wn_cdf(x, m1, s1) - wn_cdf(x, m2, s2);
        sg += g;
        sg2 += g * g;
    }
    const double mean = sg / M, quad = sg2 / M - mean * mean;
    double complex p[N0], q[N0];
    for (int k = 1; k <= N0; k++)
        p[k - 1] = cexp(I * k * m1 - 0.5 * k * k * s1 * s1), q[k - 1] = cexp(I * k * m2 - 0.5 * k * k * s2 * s2);
    const double lo = dist(p, q, N0, NULL);
    double ball = 0, bhalf = 0, bM = 0, tail = 0;
    for (long k = 1; k < 40 * N0; k++) {
        const double b = (exp(-0.5 * k * k * s1 * s1) + exp(-0.5 * k * k * s2 * s2)) / (2 * M_PI * k);
        ball += 2 * b;
        bhalf += k >= M / 2 ? 2 * b : 0;
        bM += k % M == 0 ? 2 * b : 0;
        tail += k > N0 ? pow(2 * M_PI * k * b, 2) / ((double)k * k) / (2 * M_PI * M_PI) : 0;
    }
    const double tol = 2 * bhalf * ball + bM * (2 * fabs(mean) + bM) + tail + 1e-14;
    cr_expect(fabs(quad - lo * lo) <= tol, "integral %.17g vs Parseval %.17g (tolerance %.3g)", quad, lo * lo, tol);
    cr_expect_gt(quad, 0.01, "a non-trivial distance (%g)", quad);
}

/* chi(k) of every law is rl_angle_charfn(law, k omega): against the mean of
 * e^{ik theta} over draws of the project's sampler (5 SE per component;
 * constant steps exactly, to rounding 1e-12). */
Test(mixstay, harmonics_are_the_laws_characteristic_functions)
{
    const long n = 200000;
    const double omega = 0.7;
    gsl_rng *r = rl_rng_alloc();
    for (int law = 0; law < RL_ANG_COUNT; law++) {
        double complex chi[4];
        rl_angle_harmonics(law, omega, 4, chi);
        rl_rng_stream(r, 5, (unsigned long)law);
        th_acc re[4] = { { 0 } }, im[4] = { { 0 } };
        for (long i = 0; i < n; i++) {
            const double th = rl_so2_draw_angle(r, law, omega);
            for (int k = 0; k < 4; k++)
                th_add(&re[k], cos((k + 1) * th)), th_add(&im[k], sin((k + 1) * th));
        }
        for (int k = 0; k < 4; k++) {
            const double dr = re[k].mean - creal(chi[k]), di = im[k].mean - cimag(chi[k]);
            if (law == RL_ANG_CONSTANT) {
                cr_expect(fabs(dr) < 1e-12 && fabs(di) < 1e-12, "constant, k %d", k + 1);
                continue;
            }
            cr_expect(fabs(dr) <= 5 * th_se(&re[k]) && fabs(di) <= 5 * th_se(&im[k]),
                      "law %d k %d: %g%+gi vs %g%+gi", law, k + 1, re[k].mean, im[k].mean, creal(chi[k]), cimag(chi[k]));
        }
    }
    gsl_rng_free(r);
}

/* The brute-force max-min over every (far, near) pair of rl_watson_dist
 * (phi = chi^delta by squaring); *curve_b its per-far minima. */
static double brute(const double complex *chi, int n, long t, long l, double *curve_b)
{
    double complex *p = malloc(sizeof *p * n), *q = malloc(sizeof *q * n);
    double best = -1;
    for (long f = t; f < l; f++) {
        double mn = INFINITY;
        for (int k = 0; k < n; k++)
            p[k] = rl_cpow_n(chi[k], f);
        for (long j = 0; j < t; j++) {
            for (int k = 0; k < n; k++)
                q[k] = rl_cpow_n(chi[k], j);
            mn = fmin(mn, dist(p, q, n, NULL));
        }
        curve_b[f - t] = mn;
        best = fmax(best, mn);
    }
    free(p);
    free(q);
    return best;
}

/* The search is exact for the truncated sums: its D_b and its per-far
 * minima equal the brute force's (rounding: the powers by stepping and by
 * squaring differ in the last bits, 1e-12), and its (far, near) pair gives
 * its D_b. */
Test(mixstay, search_is_the_brute_force_max_min)
{
    const int n = 48;
    const long t = 12, l = 70;
    const double om[] = { 2.0, 1.0, M_PI / 2, 0.3, 0.05, 0.01 };
    double complex chi[48], p[48], q[48];
    double curve[58], cb[58];
    for (int law = 0; law < RL_ANG_COUNT; law++)
        for (int o = 0; o < 6; o++) {
            rl_angle_harmonics(law, om[o], n, chi);
            rl_mixstay_block b;
            rl_err err;
            cr_assert_eq(rl_mixstay_chi(chi, n, t, l, &b, curve, &err), RL_OK, "%s", err.msg);
            const double want = brute(chi, n, t, l, cb);
            cr_expect(fabs(b.lo - want) <= 1e-12, "law %d omega %g: %.17g vs brute %.17g", law, om[o], b.lo, want);
            for (long f = 0; f < l - t; f++)
                cr_expect(fabs(curve[f] - cb[f]) <= 1e-12, "law %d omega %g delta %ld", law, om[o], f + t);
            for (int k = 0; k < n; k++)
                p[k] = rl_cpow_n(chi[k], b.far), q[k] = rl_cpow_n(chi[k], b.near);
            cr_expect(b.far >= t && b.far < l && b.near >= 0 && b.near < t);
            cr_expect(fabs(dist(p, q, n, NULL) - b.lo) <= 1e-12, "law %d omega %g: the pair (%ld, %ld)", law, om[o],
                      b.far, b.near);
            cr_expect(fabs(b.hi * b.hi - fmin(0.25, b.lo * b.lo + 2 / (M_PI * M_PI * n))) <= 1e-14);
        }
}

/* Constant steps (RoPE): every law is a point mass, so D_b is exactly max
 * over far delta of min over near delta' of sqrt(x (1 - x)), x the arc
 * fraction between delta omega and delta' omega: inside the bracket
 * (rounding 1e-12).  When (T - 1) omega >= 2 pi the near angles go round the
 * circle omega apart: every far angle is within omega/2 of one, D_b <=
 * sqrt(x0 (1 - x0)), x0 = omega / (4 pi) (small); a slow block's far angles
 * leave the near arc (large). */
Test(mixstay, constant_steps_are_point_masses)
{
    const struct { double om; long t, l; } c[] = { { 0.3, 64, 1024 }, { 0.05, 128, 512 }, { 1e-3, 64, 1024 },
                                                    { 2.5e-3, 64, 1024 }, { 4.0, 16, 300 } };
    double complex chi[N0];
    for (int i = 0; i < 5; i++) {
        rl_angle_harmonics(RL_ANG_CONSTANT, c[i].om, N0, chi);
        rl_mixstay_block b;
        rl_err err;
        cr_assert_eq(rl_mixstay_chi(chi, N0, c[i].t, c[i].l, &b, NULL, &err), RL_OK, "%s", err.msg);
        double want = -1;
        for (long f = c[i].t; f < c[i].l; f++) {
            double mn = INFINITY;
            for (long j = 0; j < c[i].t; j++) {
                double x = fmod((f - j) * c[i].om / (2 * M_PI), 1.0);
                mn = fmin(mn, sqrt(x * (1 - x)));
            }
            want = fmax(want, mn);
        }
        cr_expect(want >= b.lo - 1e-12 && want <= b.hi + 1e-12, "omega %g: exact %.17g outside [%.17g, %.17g]", c[i].om,
                  want, b.lo, b.hi);
        if ((c[i].t - 1) * c[i].om >= 2 * M_PI) {
            const double x0 = c[i].om / (4 * M_PI);
            cr_expect_leq(b.lo, sqrt(x0 * (1 - x0)) + 1e-12, "omega %g wraps within T: %g", c[i].om, b.lo);
        }
    }
}

/* A block mixed within T: d(mu_delta, U)^2 = sum |chi(k)|^{2 delta} / k^2 /
 * (2 pi^2) <= rho^{2 delta} / 12 with rho = sup_k |chi(k)|, so by the
 * triangle inequality D_b <= max_delta d(mu_delta, mu_{T-1}) <= 2
 * rho^{T-1} / sqrt 12.  Uniform steps at omega = 1: rho = sin 1 (|sinc| is
 * largest at k = 1: it falls on (0, pi] and is below 1/(k omega) beyond);
 * gauss: rho = e^{-1/2}. */
Test(mixstay, a_block_mixed_within_t_is_near_zero)
{
    const long t = 64, l = 1024;
    const struct { rl_angle_law law; double rho; } c[] = { { RL_ANG_UNIFORM, sin(1.0) }, { RL_ANG_GAUSS, exp(-0.5) },
                                                           { RL_ANG_DRIFT, sin(1.0) } };
    double complex chi[N0];
    for (int i = 0; i < 3; i++) {
        rl_angle_harmonics(c[i].law, 1.0, N0, chi);
        rl_mixstay_block b;
        rl_err err;
        cr_assert_eq(rl_mixstay_chi(chi, N0, t, l, &b, NULL, &err), RL_OK, "%s", err.msg);
        const double bound = 2 * pow(c[i].rho, t - 1) / sqrt(12.0);
        cr_expect_leq(b.lo, bound, "law %d: D_b %g above 2 rho^(T-1)/sqrt 12 = %g", c[i].law, b.lo, bound);
    }
}

/* The CPU grid's rotation base (program/reproduce/preset.c, preset cpu: the
 * mixing-matched base of its head, hd 32 at T = 64). */
static double cpu_base(void)
{
    rl_grid g;
    rl_err err;
    cr_assert_eq(rl_grid_preset("cpu", &g, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(g.train.width / g.train.heads, 32);
    cr_assert_eq(g.train.ctx, 64);
    return g.train.rot_base;
}

/* Zero-mean and positive steps of equal |chi| (the study's condition cannot
 * tell them apart) get clearly different scores at the CPU grid's head
 * (hd 32, T = 64, L = 16T): the brackets do not overlap, for the score and
 * for every slow block (b >= 8); RoPE's and the drift law's slowest blocks
 * are far (their lower ends above the zero-mean law's upper end), and the
 * zero-mean slowest block stays: its D_b is below the distance of its own
 * far law to the uniform law (it has not mixed, yet stays near a law met
 * within T).  Measured: S 0.0769 (uniform) against 0.3075 (drift). */
Test(mixstay, zero_mean_and_drift_differ_at_the_cpu_head)
{
    const double base = cpu_base();
    rl_mixstay_block u[16], dr[16], c[16];
    double su[2], sd[2], sc[2];
    rl_err err;
    cr_assert_eq(rl_mixstay_law(RL_ANG_UNIFORM, 32, base, 1, 64, 1024, N0, u, su, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_mixstay_law(RL_ANG_DRIFT, 32, base, 1, 64, 1024, N0, dr, sd, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_mixstay_law(RL_ANG_CONSTANT, 32, base, 1, 64, 1024, N0, c, sc, &err), RL_OK, "%s", err.msg);
    cr_log_info("cpu head, base %.6g: S uniform %.4f [%.4f], drift %.4f [%.4f], constant %.4f", base, su[0], su[1],
                sd[0], sd[1], sc[0]);
    cr_expect_lt(su[1], sd[0], "S: uniform [%g, %g] against drift [%g, %g]", su[0], su[1], sd[0], sd[1]);
    for (int b = 8; b < 16; b++)
        cr_expect_lt(u[b].hi, dr[b].lo, "block %d: uniform %g, drift %g", b, u[b].hi, dr[b].lo);
    cr_expect_lt(u[15].hi, c[15].lo);
    double omega[16];
    rl_so2_freqs(32, base, 1, omega);
    double complex chi[N0], p[N0], q[N0];
    rl_angle_harmonics(RL_ANG_UNIFORM, omega[15], N0, chi);
    for (int k = 0; k < N0; k++)
        p[k] = rl_cpow_n(chi[k], 1023), q[k] = 0;
    const double to_uniform = dist(p, q, N0, NULL);
    cr_expect_lt(u[15].hi, to_uniform, "the slowest zero-mean block: D %g, far law to uniform %g", u[15].hi,
                 to_uniform);
}

/* The Monte Carlo estimate (mc/watson_mc.h) is unbiased for the truncated
 * sum d_N^2: within 5 SE of rl_watson_dist's square over independent
 * replicates; a point mass against itself and constant steps have no
 * noise (rounding: 1e-12). */
Test(mixstay, monte_carlo_agrees_with_the_closed_form)
{
    const int n = 256;
    const long reps = 64, m = 256;
    const struct { rl_angle_law law; double om; long a, b; } c[] = {
        { RL_ANG_UNIFORM, 0.2, 300, 63 }, { RL_ANG_DRIFT, 0.2, 300, 63 }, { RL_ANG_PM, 0.5, 100, 0 },
        { RL_ANG_GAUSS, 0.05, 1000, 10 }, { RL_ANG_CONSTANT, 0.3, 77, 5 }, { RL_ANG_UNIFORM, 0.2, 0, 0 } };
    double est[64], mean, se;
    double complex chi[256], p[256], q[256];
    for (int i = 0; i < 6; i++) {
        rl_err err;
        cr_assert_eq(rl_watson_mc(c[i].law, c[i].om, c[i].a, c[i].b, n, m, reps, 3, 40 + i, est, &err), RL_OK, "%s",
                     err.msg);
        rl_mean_se(est, reps, 1, &mean, &se);
        rl_angle_harmonics(c[i].law, c[i].om, n, chi);
        for (int k = 0; k < n; k++)
            p[k] = rl_cpow_n(chi[k], c[i].a), q[k] = rl_cpow_n(chi[k], c[i].b);
        const double d = dist(p, q, n, NULL), pred = d * d;
        if (c[i].law == RL_ANG_CONSTANT || c[i].a == 0)
            cr_expect(fabs(mean - pred) <= 1e-12, "case %d: %.17g vs %.17g (no noise)", i, mean, pred);
        else
            cr_expect(fabs(mean - pred) <= 5 * se, "case %d: %.6g +- %.2g vs %.6g (z = %.2f)", i, mean, se, pred,
                      (mean - pred) / se);
    }
}

/* Every far length of the grid in order, from T to L - 1; every delta when
 * (L - T) T <= RL_MIXSTAY_EXACT_PAIRS, else every delta below 4T and at
 * most PER_OCTAVE lengths per doubling beyond. */
Test(mixstay, the_far_grid)
{
    const struct { long t, l; } c[] = { { 1, 2 }, { 64, 1024 }, { 128, 2048 }, { 512, 8192 }, { 512, 65536 }, { 3000, 4000 } };
    for (int i = 0; i < 6; i++) {
        const long n = rl_mixstay_grid(c[i].t, c[i].l, NULL);
        long *g = malloc(sizeof(long) * n);
        cr_assert_eq(rl_mixstay_grid(c[i].t, c[i].l, g), n);
        cr_expect_eq(g[0], c[i].t);
        cr_expect_eq(g[n - 1], c[i].l - 1);
        for (long j = 1; j < n; j++)
            cr_expect_gt(g[j], g[j - 1]);
        const int exact = (double)(c[i].l - c[i].t) * c[i].t <= (double)RL_MIXSTAY_EXACT_PAIRS;
        if (exact || c[i].l <= 4 * c[i].t)
            cr_expect_eq(n, c[i].l - c[i].t, "T %ld L %ld", c[i].t, c[i].l);
        else {
            cr_expect_eq(g[3 * c[i].t - 1], 4 * c[i].t - 1);
            const double octaves = log2((double)(c[i].l - 1) / (4 * c[i].t - 1));
            cr_expect_leq(n - 3 * c[i].t, ceil(octaves * RL_MIXSTAY_PER_OCTAVE) + 1);
        }
        free(g);
    }
    cr_expect_eq(rl_mixstay_grid(0, 5, NULL), -1);
    cr_expect_eq(rl_mixstay_grid(5, 5, NULL), -1);
}

/* The numbers do not depend on the thread count (blocks run in parallel,
 * each block's search is its own): the same bytes at 1 and 2 threads. */
Test(mixstay, same_bytes_for_any_thread_count)
{
    rl_mixstay_block a[24], b[24];
    double sa[2], sb[2];
    rl_err err;
    rl_set_threads(1);
    cr_assert_eq(rl_mixstay_law(RL_ANG_DRIFT, 48, 10000, 1, 32, 512, 512, a, sa, &err), RL_OK);
    rl_set_threads(2);
    cr_assert_eq(rl_mixstay_law(RL_ANG_DRIFT, 48, 10000, 1, 32, 512, 512, b, sb, &err), RL_OK);
    cr_expect_eq(memcmp(a, b, sizeof a), 0);
    cr_expect_eq(memcmp(sa, sb, sizeof sa), 0);
}

/* `routelab bound mixstay` prints the library's score (%.17g) as its one
 * number, and each block's line. */
Test(mixstay, the_bound_command_prints_the_librarys_numbers)
{
    th_to_root();
    static char out[1 << 16];
    cr_assert_eq(th_run("bound mixstay --angles drift --d 16 --ctx 32 --harmonics 256", out, sizeof out, NULL, 0), 0);
    rl_mixstay_block b[8];
    double s[2];
    rl_err err;
    cr_assert_eq(rl_mixstay_law(RL_ANG_DRIFT, 16, 10000, 1, 32, 32 * RL_MIXSTAY_MULT, 256, b, s, &err), RL_OK);
    char want[64], line[128];
    snprintf(want, sizeof want, "\n%.17g\n", s[0]);
    cr_expect(strstr(out, want), "score %s not in %s", want, out);
    snprintf(line, sizeof line, "# 7 %.6g %.6g %.6g %.6g %ld %ld\n", rl_so2_freq(16, 10000, 1, 7),
             cabs(rl_angle_charfn(RL_ANG_DRIFT, rl_so2_freq(16, 10000, 1, 7))), b[7].lo, b[7].hi, b[7].far, b[7].near);
    cr_expect(strstr(out, line), "block line %s not in %s", line, out);
}

/* Bad arguments are RL_EINPUT with one line, never an abort or a hang. */
Test(mixstay, bad_arguments_are_einput)
{
    double complex ok[8] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 }, bad[8];
    double lo, s[2];
    rl_mixstay_block b[4];
    rl_err err;
    const double complex vals[] = { NAN, INFINITY, 1.0 + 1e-9, 2 * I };
    for (int v = 0; v < 4; v++) {
        memcpy(bad, ok, sizeof ok);
        bad[3] = vals[v];
        cr_expect_eq(rl_watson_dist(ok, bad, 8, &lo, NULL, &err), RL_EINPUT);
        cr_expect(strstr(err.msg, "phi_nu(4)"), "%s", err.msg);
        cr_expect_eq(rl_mixstay_chi(bad, 8, 4, 16, b, NULL, &err), RL_EINPUT);
    }
    cr_expect_eq(rl_watson_dist(NULL, ok, 8, &lo, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_dist(ok, ok, 8, NULL, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_dist(ok, ok, 0, &lo, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_dist(ok, ok, RL_MIXSTAY_MAX_HARMONICS + 1, &lo, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_dist(ok, ok, -5, &lo, NULL, NULL), RL_EINPUT); /* err may be NULL */
    cr_expect_eq(rl_mixstay_chi(ok, 8, 0, 16, b, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_chi(ok, 8, 16, 16, b, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_chi(ok, 8, 16, 3, b, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_chi(ok, 8, 4, (long)2e15, b, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_chi(ok, 8, 4, 16, NULL, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_chi(NULL, 8, 4, 16, b, NULL, &err), RL_EINPUT);
    /* a million far and a million near lengths: refused at once, not run */
    cr_expect_eq(rl_mixstay_chi(ok, 8, 1000000, 2000000, b, NULL, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "pairs"), "%s", err.msg);
    cr_expect_eq(rl_mixstay_law(RL_ANG_COUNT, 8, 10000, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law((rl_angle_law)-1, 8, 10000, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 7, 10000, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8192, 10000, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, NAN, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 1, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, INFINITY, 1, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 0, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, NAN, 4, 16, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 1, 4, 4, 8, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 1, 4, 16, 0, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 1, 4, 16, 8, NULL, s, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 1, 4, 16, 8, b, NULL, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_law(RL_ANG_UNIFORM, 8, 10000, 1, 4, 16, INT_MAX, b, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, NAN, 4, 2, 8, 4, 2, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, 0.1, -1, 2, 8, 4, 2, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, 0.1, 4, 2, 8, 1, 2, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, 0.1, 4, 2, 0, 4, 2, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, 0.1, 4, 2, 8, 4, 0, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_COUNT, 0.1, 4, 2, 8, 4, 2, 1, 0, s, &err), RL_EINPUT);
    cr_expect_eq(rl_watson_mc(RL_ANG_UNIFORM, 0.1, 4, 2, 8, 4, 2, 1, 0, NULL, &err), RL_EINPUT);
    rl_mixstay_ws *ws;
    cr_expect_eq(rl_mixstay_alloc(8, 0, &ws, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_alloc(0, 8, &ws, &err), RL_EINPUT);
    cr_expect_eq(rl_mixstay_alloc(RL_MIXSTAY_MAX_HARMONICS, 1L << 30, &ws, &err), RL_EINPUT); /* 2^54 bytes */
    cr_expect(strstr(err.msg, "bytes") || strstr(err.msg, "memory"), "%s", err.msg);
    cr_expect_eq(rl_mixstay_block_sizeof(), sizeof(rl_mixstay_block));
}
