/* family_mean.c: the Monte Carlo estimate of ||E M|| (family_mean.h). */
#include "family_mean.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"

rl_status rl_family_mean_mc(const rl_family *f, long n, unsigned long seed, unsigned long stream,
                            rl_family_mean_est *e, rl_err *err)
{
    const int d = f->d, so2 = rl_family_is_so2(f), nb = so2 ? d / 2 : 1;
    rl_stepper *s = rl_stepper_alloc(f, 1);
    gsl_rng *r = rl_rng_alloc();
    double *M = so2 ? NULL : rl_alloc(sizeof(double) * (size_t)d * d, err);
    rl_welford *re = rl_alloc_array(nb, sizeof(rl_welford), err), *im = rl_alloc_array(nb, sizeof(rl_welford), err);
    rl_status st = RL_OK;
    if (!s || !r || (!so2 && !M) || !re || !im) {
        st = rl_fail(err, RL_ENOMEM, "family mean: out of memory for the stepper and the sums");
        goto done;
    }
    for (int b = 0; b < nb; b++) {
        rl_welford_init(&re[b]);
        rl_welford_init(&im[b]);
    }
    rl_rng_stream(r, seed, stream);
    for (long i = 0; i < n; i++) {
        if ((i & 0x3ff) == 0 && rl_cancelled()) { /* n can be 1e10 steps */
            st = rl_fail(err, RL_ECANCEL, "cancelled");
            goto done;
        }
        rl_stepper_draw(s, r, 0);
        if (so2) { /* E[R(theta_b)] = chi_b on block b: the means of cos and sin */
            const double *phi = rl_stepper_angles(s);
            for (int b = 0; b < nb; b++) {
                rl_welford_add(&re[b], cos(phi[b]));
                rl_welford_add(&im[b], sin(phi[b]));
            }
            continue;
        }
        rl_stepper_matrix(s, M); /* E[M] = cI: c = E tr(M)/d */
        double t = 0;
        for (int a = 0; a < d; a++)
            t += M[(long)a * d + a];
        rl_welford_add(&re[0], t / d);
    }
    st = rl_stepper_status(s, err);
    if (st == RL_OK) {
        e->norm = -1;
        e->n = n;
        for (int b = 0; b < nb; b++) {
            const double m = cabs(re[b].mean + I * (so2 ? im[b].mean : 0));
            if (m > e->norm) {
                e->norm = m;
                e->se = so2 ? hypot(rl_welford_se(&re[b]), rl_welford_se(&im[b])) : rl_welford_se(&re[0]);
            }
        }
    }
done:
    free(re);
    free(im);
    free(M);
    if (r)
        gsl_rng_free(r);
    rl_stepper_free(s);
    return st;
}
