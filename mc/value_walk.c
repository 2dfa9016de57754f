/* value_walk.c: Horner accumulation of transported values (value_walk.h). */
#include "value_walk.h"

#include <math.h>
#include <string.h>

#include "../sampling/rng.h"

void rl_value_walk(rl_stepper *st, gsl_rng *r, int d, const double *vbar, double sigma, long K,
                   const long *grid, int ng, double *x, double *tmp, double *out)
{
    const double a = sigma / sqrt((double)d);
    memset(x, 0, sizeof(double) * d);
    int g = 0;
    for (long t = 1; t <= grid[ng - 1]; t++) {
        /* one random bit per coordinate: sign = 2 bit - 1 (branch-free) */
        for (int i0 = 0; i0 < d; i0 += 64) {
            const uint64_t bits = rl_rng_next64(r);
            const int n = d - i0 < 64 ? d - i0 : 64;
            for (int j = 0; j < n; j++)
                x[i0 + j] += vbar[i0 + j] + a * (double)(2 * (int)((bits >> j) & 1) - 1);
        }
        if (st) {
            rl_stepper_draw(st, r, 0);
            rl_stepper_apply(st, 0, x, 1);
        }
        if (t == grid[g]) {
            memcpy(tmp, x, sizeof(double) * d);
            for (long k = 0; st && k < K; k++) {
                rl_stepper_draw(st, r, 0);
                rl_stepper_apply(st, 0, tmp, 1);
            }
            memcpy(out + (long)g * d, tmp, sizeof(double) * d);
            g++;
        }
    }
}
