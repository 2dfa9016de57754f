/* gsl_forms.c: the closed forms that use GSL's special functions, built by
 * the lib/ tests as `gcc gsl_forms.c build/libroutelab.a -lgsl -lgslcblas
 * -lm` (docs/library.md#library-splits).  Prints "gsl forms: ok", or the first wrong number
 * and exits 1. */
#include <math.h>
#include <stdio.h>

#include <routelab/bounds.h>

int main(void)
{
    /* d = 3: <e,u> is uniform on [-1, 1] (Archimedes) */
    const double t = rl_beta_tail(3, 0.5), c = rl_beta_coord_cdf(3, 0.5);
    /* n = 0 steps: Phi = 0, log E e^{z cos 0} = z */
    const double m = rl_so2_cos_log_mgf(RL_ANG_UNIFORM, 0.3, 0, 2.5);
    if (fabs(t - 0.5) > 1e-14 || fabs(c - 0.75) > 1e-14 || fabs(m - 2.5) > 1e-13) {
        printf("gsl forms: beta_tail %.17g, beta_coord_cdf %.17g, so2_cos_log_mgf %.17g\n", t, c, m);
        return 1;
    }
    printf("gsl forms: ok\n");
    return 0;
}
