/* window_haar_bound.c: routelab from C, on the installed library.
 *
 *   cc window_haar_bound.c $(pkg-config --cflags --libs routelab)
 *
 * 1. The mixing window of random SO(2) rotations (the study's uniform
 *    angles, d = 64) at its slowest block: the steps after which the mean
 *    route has shrunk below eps (docs/theory/claim1-mixing.md#mixing-window).
 * 2. Haar steps on O(8), sampled as `routelab sample --family haar` samples
 *    them, checked orthogonal: max |U^T U - I| below 1e-12.
 * 3. The far-mass lower bound rho_D >= M / (M + K e^{2 lambda}) with the
 *    window's tokens far and K = 8 near ones (docs/theory/claim3-farmass.md#far-mass-closed-forms).
 * Built and run by `make test` against an install into a temporary prefix
 * (lib/example_builds_with_pkg_config_and_runs). */
#include <stdio.h>
#include <stdlib.h>

#include <routelab/bounds.h>
#include <routelab/family.h>
#include <routelab/version.h>

/* one line and status 1 when a call failed */
static void check(rl_status s, const rl_err *err)
{
    if (s != RL_OK) {
        fprintf(stderr, "window_haar_bound: %s\n", err->msg);
        exit(s == RL_EINPUT ? 2 : 1);
    }
}

int main(void)
{
    rl_err err;
    printf("routelab %s\n", routelab_version());

    rl_family *so2 = malloc(rl_family_sizeof()), *haar = malloc(rl_family_sizeof());
    if (!so2 || !haar)
        return 1;
    check(rl_family_named(so2, "so2", 64, &err), &err);
    check(rl_family_set(so2, "angles", "uniform", &err), &err);
    double w;
    check(rl_family_window(so2, 31, 0.1, &w, &err), &err);
    printf("so2 uniform d=64 block 31: W(0.1) = %.0f steps\n", w);

    enum { D = 8, COUNT = 16 };
    static double U[COUNT * D * D];
    check(rl_family_named(haar, "haar", D, &err), &err);
    check(rl_sample(haar, COUNT, 1, 2, U, &err), &err);
    double dev = 0;
    for (int k = 0; k < COUNT; k++)
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++) {
                double s = -(double)(i == j);
                for (int r = 0; r < D; r++)
                    s += U[k * D * D + r * D + i] * U[k * D * D + r * D + j];
                if (s < 0)
                    s = -s;
                if (s > dev)
                    dev = s;
            }
    printf("haar d=%d: %d steps, max |U^T U - I| = %.1e\n", D, COUNT, dev);

    const double rho = rl_farmass_lower(w, 8, 2);
    printf("far mass with M = W far and K = 8 near tokens, lambda = 2: rho_D >= %.6f\n", rho);
    free(so2);
    free(haar);
    return dev < 1e-12 && w > 1 && rho > 0 && rho < 1 ? 0 : 1;
}
