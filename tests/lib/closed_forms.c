/* closed_forms.c: a researcher's program that calls only closed forms, built
 * by the lib/ tests as `gcc closed_forms.c build/libroutelab.a -lm`
 * (docs/library.md#library-splits): it must link with libm alone, and its numbers must be the
 * formulas'.  Prints "closed forms: ok" and exits 0, or one line naming the first wrong
 * number and exits 1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <routelab/bounds.h>
#include <routelab/version.h>

static int bad;

static void near(const char *what, double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
        printf("closed forms: %s = %.17g, want %.17g\n", what, got, want);
        bad = 1;
    }
}

int main(void)
{
    char v[32];
    snprintf(v, sizeof v, "%d.%d", ROUTELAB_ABI_MAJOR, ROUTELAB_ABI_MINOR);
    if (strcmp(routelab_version(), v)) {
        printf("closed forms: routelab_version() %s, headers %s\n", routelab_version(), v);
        return 1;
    }
    /* far mass (docs/theory/claim3-farmass.md#far-mass-closed-forms): M / (M + K e^{2 lambda}), its
     * log, its upper form */
    near("farmass_lower", rl_farmass_lower(65024, 8, 2), 65024 / (65024 + 8 * exp(4.0)), 1e-15);
    near("farmass_lower_log", rl_farmass_lower_log(65024, 8, 2), log(rl_farmass_lower(65024, 8, 2)), 1e-14);
    near("farmass_upper", rl_farmass_upper(1000, 8, 1), 1000 / (1000 + 8 * exp(-2.0)), 1e-15);
    near("farmass_half", rl_farmass_lower(rl_farmass_half(8, 1.5), 8, 1.5), 0.5, 1e-15);
    /* the data-dependent form at Delta = 2 lambda is the bound as set
     * (docs/theory/claim3-farmass.md#far-mass-three-forms) */
    near("farmass_range", rl_farmass_range(1000, 8, 3), rl_farmass_lower(1000, 8, 1.5), 1e-14);
    near("farmass_admissible", rl_farmass_range(rl_farmass_admissible(8, 0.3, 2), 8, 2), 0.3, 1e-13);
    near("farmass_alibi_log", rl_farmass_alibi_log(500, 8, 1, 0.0625, 0), log(rl_farmass_alibi(500, 8, 1, 0.0625, 0)),
         1e-13);
    /* slope 0: the unbiased bound */
    near("farmass_alibi(slope 0, best)", rl_farmass_alibi(500, 8, 1, 0, 1), rl_farmass_lower(500, 8, 1), 1e-14);
    /* mixing window (docs/theory/claim1-mixing.md#mixing-window): least n with 0.9^n <= 0.01 is
     * 44 */
    if (rl_mixing_window(0.9, 0.01) != 44 || rl_mixing_window_log(log(0.9), 0.01) != 44 ||
        rl_mixing_window(1.0, 0.1) != -1 || rl_mixing_window(NAN, 0.1) != RL_WINDOW_UNDEFINED) {
        printf("closed forms: windows %ld %ld\n", rl_mixing_window(0.9, 0.01), rl_mixing_window_log(log(0.9), 0.01));
        bad = 1;
    }
    /* concentration (docs/theory/claim2-concentration.md#concentration-closed-forms) */
    near("levy_tail", rl_levy_tail(64, 0.5), 2 * exp(-8.0), 1e-15);
    near("levy_so_tail", rl_levy_so_tail(66, 0.5), 2 * exp(-2.0), 1e-15);
    const double a[2] = { 0.25, 0.5 };
    near("hoeffding_so2", rl_hoeffding_so2(1, a, 2), 2 * exp(-1 / (2 * 0.3125)), 1e-15);
    near("sphere_log_mgf(lambda 0)", rl_sphere_log_mgf(16, 0), 0, 0);
    /* d = 3: the coordinate is uniform on [-1, 1], E e^{lambda x} = sinh(lambda) / lambda */
    near("sphere_log_mgf(d 3)", rl_sphere_log_mgf(3, 2), log(sinh(2.0) / 2), 1e-14);
    /* angle laws (docs/sampling.md#step-families) */
    double om[4];
    rl_so2_freqs(8, 10000, 1, om);
    near("so2_freqs[1]", om[1], pow(10000, -0.25), 1e-15);
    near("angle_charfn(uniform)", creal(rl_angle_charfn(RL_ANG_UNIFORM, 0.3)), sin(0.3) / 0.3, 1e-15);
    near("angle_log_norm(uniform)", rl_angle_log_norm(RL_ANG_UNIFORM, 1e-3), log(sin(1e-3) / 1e-3), 1e-9);
    near("one_minus_sinc", rl_one_minus_sinc(1e-4), 1e-8 / 6, 1e-8);
    near("brownian_mean(d 2)", rl_brownian_mean(2, 0.7, NULL), exp(-0.49 / 2), 1e-14);
    /* values (docs/theory/claim4-values.md#value-transport): S(chi, M) summed against its
     * definition, both regimes */
    const double complex chis[2] = { 0.5, 0.999 * cexp(0.01 * I) };
    const long ms[2] = { 10, 5000 };
    for (int i = 0; i < 2; i++) {
        long double complex p = 1, acc = 0;
        for (long dl = 1; dl < ms[i]; dl++) {
            p *= chis[i];
            acc += (long double)(ms[i] - dl) * p;
        }
        near("value_pair_sum", rl_value_pair_sum(chis[i], ms[i]), (double)(ms[i] + 2 * creall(acc)), 1e-10);
    }
    near("value_coherent", rl_value_coherent(0.25, 2), 0.5, 0);
    /* Watson's distance (routelab's mix-or-stay condition): a point mass
     * against the uniform law, 1/sqrt 12, inside the bracket of 64
     * harmonics; the harmonics of the uniform law are sin(k w)/(k w) */
    double complex pm[64], un[64];
    rl_angle_harmonics(RL_ANG_UNIFORM, 0.3, 64, un);
    near("angle_harmonics(uniform)[2]", creal(un[2]), sin(0.9) / 0.9, 1e-15);
    for (int k = 0; k < 64; k++)
        pm[k] = 1, un[k] = 0;
    double lo, hi;
    if (rl_watson_dist(pm, un, 64, &lo, &hi, NULL) != RL_OK || !(lo <= 1 / sqrt(12.0) && 1 / sqrt(12.0) <= hi)) {
        printf("closed forms: watson_dist %.17g %.17g, want 1/sqrt 12 between\n", lo, hi);
        bad = 1;
    }
    if (bad)
        return 1;
    printf("closed forms: ok\n");
    return 0;
}
