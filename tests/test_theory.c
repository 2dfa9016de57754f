/* test_theory.c: the closed forms of theory/ against exact computation and
 * Monte Carlo (fixed seeds, 5-sigma tolerances). */
#include <criterion/criterion.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"
#include "../theory/theory.h"
#include "helpers.h"

Test(theory, beta_tail_below_levy)
{
    int dims[] = { 2, 3, 4, 8, 16, 32, 64, 128, 512, 1024 };
    for (int i = 0; i < 10; i++)
        for (double t = 0.01; t < 1; t += 0.01) {
            double exact = rl_beta_tail(dims[i], t), levy = rl_levy_tail(dims[i], t);
            cr_assert_leq(exact, levy, "d=%d t=%g: exact %g > Levy %g", dims[i], t, exact, levy);
        }
}

Test(theory, beta_tail_is_the_law_of_a_sphere_coordinate)
{
    const int d = 32;
    const long n = 200000;
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 1, 2);
    double u[32], ts[] = { 0.05, 0.1, 0.2, 0.3, 0.5 };
    long hits[5] = { 0 };
    for (long i = 0; i < n; i++) {
        rl_unit_vector(r, d, u);
        for (int k = 0; k < 5; k++)
            hits[k] += fabs(u[0]) >= ts[k];
    }
    for (int k = 0; k < 5; k++) {
        double p = rl_beta_tail(d, ts[k]);
        cr_assert_lt(fabs(hits[k] - n * p), 5 * sqrt(n * p * (1 - p)) + 1, "t=%g: %ld hits, expected %g",
                     ts[k], hits[k], n * p);
    }
    /* closed values: d = 3 gives a uniform coordinate, P(|x| >= t) = 1 - t */
    cr_assert_float_eq(rl_beta_tail(3, 0.3), 0.7, 1e-12);
    gsl_rng_free(r);
}

Test(theory, hoeffding_holds_for_mixed_so2_blocks)
{
    /* circle-uniform angles: s = sum_b a_b cos(phi_b) with independent phases */
    const int nb = 16;
    const long n = 200000;
    double a[16];
    for (int b = 0; b < nb; b++)
        a[b] = b < 4 ? 0.2 : 0.02; /* uneven block norms */
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 1, 3);
    double ts[] = { 0.1, 0.2, 0.3, 0.4 };
    long hits[4] = { 0 };
    for (long i = 0; i < n; i++) {
        double s = 0;
        for (int b = 0; b < nb; b++)
            s += a[b] * cos(2 * M_PI * gsl_rng_uniform(r));
        for (int k = 0; k < 4; k++)
            hits[k] += fabs(s) >= ts[k];
    }
    for (int k = 0; k < 4; k++) {
        double p = (double)hits[k] / n, bound = rl_hoeffding_so2(ts[k], a, nb);
        cr_assert_leq(p - 5 * sqrt(p * (1 - p) / n), bound, "t=%g: P = %g above Hoeffding %g", ts[k], p, bound);
    }
    gsl_rng_free(r);
}

/* Softmax far mass of K near logits and M far logits. */
static double far_mass(const double *near, long k, const double *far, long m)
{
    double mx = -INFINITY, sn = 0, sf = 0;
    for (long i = 0; i < k; i++)
        mx = fmax(mx, near[i]);
    for (long i = 0; i < m; i++)
        mx = fmax(mx, far[i]);
    for (long i = 0; i < k; i++)
        sn += exp(near[i] - mx);
    for (long i = 0; i < m; i++)
        sf += exp(far[i] - mx);
    return sf / (sf + sn);
}

Test(theory, farmass_bound_attained_and_never_violated)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 1, 4);
    const long k = 8;
    double near[8], *far = malloc(sizeof(double) * 5000);
    double lambdas[] = { 0.5, 1, 2, 4 };
    for (int li = 0; li < 4; li++) {
        double lam = lambdas[li], prev = 0;
        for (long m = 1; m <= 5000; m *= 3) {
            /* extremal configuration: near +lambda, far -lambda */
            for (long i = 0; i < k; i++)
                near[i] = lam;
            for (long i = 0; i < m; i++)
                far[i] = -lam;
            double bound = rl_farmass_lower(m, k, lam);
            cr_assert_float_eq(far_mass(near, k, far, m), bound, 1e-12);
            cr_assert_gt(bound, prev, "not increasing in M_L");
            prev = bound;
            /* random logits in [-lambda, lambda]: between the two bounds */
            for (int rep = 0; rep < 20; rep++) {
                for (long i = 0; i < k; i++)
                    near[i] = lam * (2 * gsl_rng_uniform(r) - 1);
                for (long i = 0; i < m; i++)
                    far[i] = lam * (2 * gsl_rng_uniform(r) - 1);
                double rho = far_mass(near, k, far, m);
                cr_assert_geq(rho, bound - 1e-15);
                cr_assert_leq(rho, rl_farmass_upper(m, k, lam) + 1e-15);
            }
        }
        cr_assert_float_eq(rl_farmass_lower(rl_farmass_half(k, lam), k, lam), 0.5, 1e-12);
    }
    free(far);
    gsl_rng_free(r);
}

Test(theory, alibi_farmass_is_the_geometric_series)
{
    const long k = 8, m = 3000;
    double slope = 0.05, lam = 1.5;
    double *far = malloc(sizeof(double) * m), near[8];
    for (int best = 0; best < 2; best++) {
        double s = best ? -lam : lam;
        for (long i = 0; i < k; i++)
            near[i] = -s - slope * i;
        for (long i = 0; i < m; i++)
            far[i] = s - slope * (k + i);
        cr_assert_float_eq(far_mass(near, k, far, m), rl_farmass_alibi(m, k, lam, slope, best), 1e-12);
    }
    /* bounded as the context grows, and below the rotation-only lower bound */
    double inf = rl_farmass_alibi(1e12, k, lam, slope, 0);
    cr_assert_lt(inf, 1.0 - 1e-3);
    cr_assert_lt(rl_farmass_alibi(65536, k, lam, slope, 0), rl_farmass_lower(65536, k, lam));
    /* slope 0 is the unbiased case */
    cr_assert_float_eq(rl_farmass_alibi(m, k, lam, 0, 1), rl_farmass_lower(m, k, lam), 1e-12);
    free(far);
}

Test(theory, mixing_window_is_the_least_n)
{
    double norms[] = { 0.1, 0.5, 0.9, 0.99, 0.999999, 1 - 1e-9 };
    double epss[] = { 0.5, 0.1, 0.01, 1e-6 };
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) {
            long w = rl_mixing_window(norms[i], epss[j]);
            cr_assert_geq(w, 1);
            cr_assert_leq(pow(norms[i], w), epss[j]);
            if (w > 1)
                cr_assert_gt(pow(norms[i], w - 1), epss[j]);
        }
    cr_assert_eq(rl_mixing_window(0.9, 0.01), 44);
    cr_assert_eq(rl_mixing_window(1.0, 0.01), -1);
    cr_assert_eq(rl_mixing_window(0.0, 0.01), 1);
}

Test(theory, value_pair_sum_matches_the_double_sum)
{
    double complex chis[] = { 0, 0.5, -0.3, 0.9 * cexp(0.4 * I), 1 };
    for (int c = 0; c < 5; c++)
        for (long m = 1; m < 40; m += 7) {
            double brute = 0;
            for (long j = 0; j < m; j++)
                for (long l = 0; l < m; l++) {
                    double complex p = 1; /* chi^|j-l| by repeated products: cpow(0, 0) is NaN */
                    for (long e = 0; e < labs(j - l); e++)
                        p *= chis[c];
                    brute += creal(p);
                }
            double got = rl_value_pair_sum(chis[c], m);
            cr_assert_leq(fabs(got - brute), 1e-9 * (1 + fabs(brute)), "chi %d M %ld: %.17g vs %.17g", c, m, got, brute);
        }
    cr_assert_float_eq(rl_value_pair_sum(1, 100), 1e4, 1e-9);
    cr_assert_float_eq(rl_value_pair_sum(0, 100), 100, 1e-12);
}

/* E||r||^2 for r = (rho/M) sum_{delta=1}^{M} P_delta v, P_delta the product of
 * the delta latest steps, by Monte Carlo against the exact formula. */
static void value_mc(rl_family f, long m, long n)
{
    const int d = f.d, h = d / 2;
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rl_rng_alloc();
    double v[64], x[64];
    for (int i = 0; i < d; i++)
        v[i] = 1.0 / sqrt(d);
    th_acc e2 = { 0 };
    for (long rep = 0; rep < n; rep++) {
        rl_rng_stream(r, 9, (unsigned long)rep);
        /* Horner: sum_delta P_delta v = M_1 (v + M_2 (v + ... M_m v)) */
        for (int i = 0; i < d; i++)
            x[i] = 0;
        for (long t = 0; t < m; t++) {
            for (int i = 0; i < d; i++)
                x[i] += v[i];
            rl_stepper_draw(s, r, 0);
            rl_stepper_apply(s, 0, x, 1);
        }
        double nn = 0;
        for (int i = 0; i < d; i++)
            nn += x[i] * x[i] / ((double)m * m);
        th_add(&e2, nn);
    }
    double complex chi[32];
    double vn2[32];
    int nb = rl_family_is_so2(&f) ? h : 1;
    if (rl_family_is_so2(&f)) {
        double blocks[32];
        rl_family_mean_norm(&f, NULL, blocks);
        double omega[32];
        for (int b = 0; b < h; b++) {
            omega[b] = f.scale * pow(f.base, -2.0 * b / d);
            chi[b] = rl_angle_charfn(f.law, omega[b]);
            vn2[b] = 2.0 / d;
        }
    } else {
        chi[0] = rl_family_mean_norm(&f, NULL, NULL);
        vn2[0] = 1.0;
    }
    double pred = rl_value_incoherent(1.0, m, nb, chi, vn2);
    cr_assert_lt(fabs(e2.mean - pred * pred), 5 * th_se(&e2), "%s: E||r||^2 = %g +- %g, predicted %g",
                 rl_family_name(f.kind), e2.mean, th_se(&e2), pred * pred);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(theory, value_transport_norm_matches_monte_carlo)
{
    rl_family f = rl_family_default(RL_FAM_SO2, 8);
    f.base = 10;
    f.law = RL_ANG_UNIFORM;
    value_mc(f, 50, 20000);
    f.law = RL_ANG_DRIFT; /* complex chi */
    value_mc(f, 50, 20000);
    value_mc(rl_family_default(RL_FAM_HOUSEHOLDER, 8), 50, 20000);
}

Test(theory, brownian_series_against_exact_d2)
{
    for (double s = 0.1; s < 1.0; s += 0.2) {
        double err, c = rl_brownian_mean(2, s, &err);
        cr_assert_leq(fabs(c - exp(-0.5 * s * s)), err + 1e-16);
    }
}

/* The Brownian mean c against Monte Carlo (5 SE) at sigma where the old
 * sigma^4 series left [0, 1] (d = 16, sigma = 1 gave 12.875). */
static void brownian_mc(int d, double sigma, long n)
{
    rl_family f = rl_family_default(RL_FAM_BROWNIAN, d);
    f.sigma = sigma;
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 91, (uint64_t)d);
    double *M = malloc(sizeof(double) * d * d);
    th_acc a = { 0 };
    for (long i = 0; i < n; i++) {
        rl_stepper_draw(s, r, 0);
        rl_stepper_matrix(s, M);
        double tr = 0;
        for (int j = 0; j < d; j++)
            tr += M[(long)j * d + j];
        th_add(&a, tr / d);
    }
    double err, c = rl_brownian_mean(d, sigma, &err);
    cr_assert_lt(err, 1e-12);
    cr_assert_leq(fabs(a.mean - c), 5 * th_se(&a) + err, "d=%d sigma=%g: MC %g +- %g, closed %g", d, sigma,
                  a.mean, th_se(&a), c);
    free(M);
    gsl_rng_free(r);
    rl_stepper_free(s);
}

Test(theory, brownian_mean_matches_monte_carlo)
{
    brownian_mc(16, 1.0, 4000);
    brownian_mc(3, 1.3, 20000); /* odd d: the zero eigenvalue */
    brownian_mc(5, 0.7, 20000);
    brownian_mc(8, 0.4, 10000);
}

Test(theory, brownian_mean_exact_forms_and_range)
{
    /* d = 2: exp(sigma A) = R(sigma a), c = e^{-sigma^2/2} */
    for (double s = 0; s < 40; s = 2 * s + 0.05)
        cr_assert_float_eq(rl_brownian_mean(2, s, NULL), exp(-0.5 * s * s), 1e-15);
    /* small sigma: the moments m_2 = d-1, m_4 = (d-1)(2d-1), m_6 = 5(d-1)(d^2-d+1)
     * (Wick pairings) give c to within sigma^6 m_6 / 720 */
    for (int d = 2; d <= 256; d *= 2)
        for (double s = 1e-3; s < 0.05; s *= 3) {
            double s2 = s * s, dm = d - 1.0;
            double ser = 1 - s2 * dm / 2 + s2 * s2 * dm * (2.0 * d - 1) / 24;
            double rem = s2 * s2 * s2 * 5 * dm * ((double)d * d - d + 1) / 720;
            cr_assert_leq(fabs(rl_brownian_mean(d, s, NULL) - ser), rem + 1e-15, "d=%d s=%g", d, s);
        }
    /* ||E M|| = |c| is a norm of a mean of orthogonal matrices: in [0, 1] */
    const double sig[] = { 0, 1e-8, 1e-3, 0.1, 0.5, 1, 2, 5, 30, 1e3, 1e8 };
    for (int d = 2; d <= 4096; d += d < 70 ? 1 : 997)
        for (size_t i = 0; i < sizeof sig / sizeof *sig; i++) {
            double err, c = rl_brownian_mean(d, sig[i], &err);
            cr_assert(fabs(c) <= 1, "d=%d sigma=%g: c = %g", d, sig[i], c);
            cr_assert_lt(err, 1e-9, "d=%d sigma=%g: rounding %g", d, sig[i], err);
        }
}

/* 1 - sin w / w in long double by its series (terms added smallest first). */
static long double ref_one_minus_sinc(long double w)
{
    if (w >= 2)
        return 1 - sinl(w) / w;
    long double t[40], x = w * w, s = 0;
    t[0] = x / 6;
    for (int k = 1; k < 40; k++)
        t[k] = -t[k - 1] * x / ((2.0L * k + 2) * (2.0L * k + 3));
    for (int k = 39; k >= 0; k--)
        s += t[k];
    return s;
}

/* W(eps) of every block of every even d <= 4096 (base 10000) against a long
 * double reference: 11 more bits than double, and W's quotient is far
 * enough from an integer that they decide every ceiling.  Block 31 at d = 64,
 * eps = 0.1: 776903252 (the norm as a double gave 776903204). */
Test(theory, mixing_window_exact_for_every_block)
{
    const double epss[] = { 0.1, 0.01 };
    long bad = 0, nblocks = 0;
    for (int d = 2; d <= 4096; d += 2) {
        rl_family f = rl_family_default(RL_FAM_SO2, d);
        f.base = 10000;
        f.law = RL_ANG_UNIFORM;
        double *lb = malloc(sizeof(double) * d / 2), *om = malloc(sizeof(double) * d / 2);
        rl_family_log_mean_norm(&f, NULL, lb);
        rl_so2_freqs(d, f.base, f.scale, om);
        for (int b = 0; b < d / 2; b++, nblocks++)
            for (int e = 0; e < 2; e++) {
                long double L = log1pl(-ref_one_minus_sinc(om[b]));
                if (om[b] > M_PI)
                    L = logl(fabsl(sinl(om[b]) / om[b]));
                long double q = -logl((long double)epss[e]) / -L;
                long ref = (long)ceill(q), got = rl_mixing_window_log(lb[b], epss[e]);
                if (ref != got && bad++ < 5)
                    cr_log_error("d=%d b=%d eps=%g: W %ld, reference %ld", d, b, epss[e], got, ref);
            }
        free(lb);
        free(om);
    }
    cr_assert_eq(bad, 0, "%ld of %ld blocks off", bad, nblocks);
    rl_family f = rl_family_default(RL_FAM_SO2, 64);
    f.base = 10000;
    f.law = RL_ANG_UNIFORM;
    double lb[32];
    rl_family_log_mean_norm(&f, NULL, lb);
    cr_assert_eq(rl_mixing_window_log(lb[31], 0.1), 776903252);
}

Test(theory, one_minus_sinc_to_an_ulp)
{
    for (double w = 1e-9; w < 10; w *= 1.07) {
        long double r = ref_one_minus_sinc(w);
        cr_assert_leq(fabsl(rl_one_minus_sinc(w) - r), 2.5 * DBL_EPSILON * fabsl(r), "w=%g", w);
    }
    cr_assert_eq(rl_one_minus_sinc(0), 0);
}

/* The commands: `bound norm` of brownian in [0, 1] (was 12.875), `bound window`
 * of a family exact for the slow block. */
Test(theory, bound_commands_norm_and_window)
{
    char out[256];
    cr_assert_eq(th_run("bound norm --family brownian --d 16 --sigma 1", out, sizeof out, NULL, 0), 0);
    double v = strtod(out, NULL);
    cr_assert(v >= 0 && v <= 1, "norm %g", v);
    cr_assert_float_eq(v, rl_brownian_mean(16, 1, NULL), 1e-15);
    cr_assert_eq(th_run("bound window --family so2 --d 64 --block 31 --eps 0.1", out, sizeof out, NULL, 0), 0);
    cr_assert_str_eq(out, "776903252\n");
    cr_assert_eq(th_run("bound window --family so2 --d 64 --eps 0.1", out, sizeof out, NULL, 0), 0);
    cr_assert_str_eq(out, "776903252\n");
    cr_assert_eq(th_run("bound window --family householder --d 64 --eps 0.01", out, sizeof out, NULL, 0), 0);
    cr_assert_eq(strtol(out, NULL, 10), (long)ceil(log(100) / -log1p(-2.0 / 64)));
    cr_assert_eq(th_run("bound window --norm 0.9 --eps 0.01", out, sizeof out, NULL, 0), 0);
    cr_assert_str_eq(out, "44\n");
}

/* Far mass in log space: e^{2 lambda} overflows past lambda ~ 354, where the
 * bound was 0; the log form is finite for every finite lambda. */
Test(theory, farmass_log_space)
{
    const double lam[] = { 0, 0.5, 2, 10, 100, 300 };
    for (size_t i = 0; i < sizeof lam / sizeof *lam; i++) {
        double m = 65024, k = 8;
        cr_assert_float_eq(rl_farmass_lower_log(m, k, lam[i]), log(rl_farmass_lower(m, k, lam[i])), 1e-12);
        cr_assert_float_eq(rl_farmass_half_log(k, lam[i]), log(rl_farmass_half(k, lam[i])), 1e-12);
        for (int best = 0; best < 2; best++)
            cr_assert_float_eq(rl_farmass_alibi_log(m, k, lam[i], 0.0625, best),
                               log(rl_farmass_alibi(m, k, lam[i], 0.0625, best)), 1e-12);
    }
    /* subnormal range: no longer 0 */
    double v = rl_farmass_lower(1000, 8, 360);
    cr_assert(v > 0 && v < 1e-300, "lambda 360: %g", v);
    cr_assert_float_eq(log(v), log(1000.0 / 8) - 720, 1e-3);
    /* far beyond: log M - log K - 2 lambda, exactly as lambda grows */
    const double big[] = { 400, 1000, 1e6, 1e300 };
    for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
        double l = rl_farmass_lower_log(1000, 8, big[i]);
        cr_assert(isfinite(l), "lambda %g", big[i]);
        cr_assert_float_eq(l, log(1000.0 / 8) - 2 * big[i], 1e-12 * 2 * big[i]);
        cr_assert(isfinite(rl_farmass_alibi_log(1000, 8, big[i], 100, 1)));
        cr_assert(isfinite(rl_farmass_half_log(8, big[i])));
    }
    char out[128];
    cr_assert_eq(th_run("bound farmass --ml 1000 --k 8 --lambda 1000", out, sizeof out, NULL, 0), 0);
    double lv;
    cr_assert_eq(sscanf(out, "exp(%lf)", &lv), 1, "'%s'", out);
    cr_assert_float_eq(lv, log(1000.0 / 8) - 2000, 1e-9);
    cr_assert_eq(th_run("bound farmass --ml 65024 --k 8 --lambda 2", out, sizeof out, NULL, 0), 0);
    cr_assert_str_eq(out, "0.99332752885672093\n");
}

/* Levy's bound on SO(d) bounds the coordinate tail <q, U k> (1-Lipschitz in
 * U), so it lies above the exact Beta tail; the cap bound is the tighter. */
Test(theory, levy_so_above_exact_and_cap)
{
    for (int d = 3; d <= 1024; d *= 2)
        for (double t = 0.01; t < 1; t += 0.07) {
            double ex = rl_beta_tail(d, t), cap = rl_levy_tail(d, t), so = rl_levy_so_tail(d, t);
            cr_assert_leq(ex, so, "d=%d t=%g", d, t);
            cr_assert_leq(cap, so + 1e-300, "d=%d t=%g", d, t);
        }
    cr_assert_float_eq(rl_levy_so_tail(66, 0.5), 2 * exp(-64 * 0.25 / 8), 1e-15);
}
