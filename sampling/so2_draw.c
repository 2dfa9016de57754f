/* so2_draw.c: random SO(2) angle steps and random token tables (so2.h). */
#include "so2.h"
#include "rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>

double rl_so2_draw_angle(gsl_rng *r, rl_angle_law law, double omega)
{
    switch (law) {
    case RL_ANG_CONSTANT: return omega;
    case RL_ANG_UNIFORM: return omega * (2.0 * gsl_rng_uniform(r) - 1.0);
    case RL_ANG_PM: return gsl_rng_uniform(r) < 0.5 ? -omega : omega;
    case RL_ANG_GAUSS: return gsl_ran_gaussian_ziggurat(r, omega);
    case RL_ANG_CIRCLE: return M_PI * (2.0 * gsl_rng_uniform(r) - 1.0);
    case RL_ANG_DRIFT: return 2.0 * omega * gsl_rng_uniform(r);
    default: return NAN;
    }
}

/* The laws of one uniform u per angle, written as rl_so2_draw_angle writes
 * them (the same expression, so the same double): uniform omega (2u - 1),
 * circle pi (2u - 1), drift 2 omega u, pm the sign of u - 1/2.  The constant
 * law draws nothing; the Gaussian draws a variable number of words (the
 * ziggurat's rejections), so it stays one call per angle. */
void rl_so2_draw_angles(gsl_rng *r, rl_angle_law law, const double *omega, int n, double *phi)
{
    switch (law) {
    case RL_ANG_UNIFORM:
        rl_rng_uniform_fill(r, n, phi);
        for (int b = 0; b < n; b++)
            phi[b] = omega[b] * (2.0 * phi[b] - 1.0);
        return;
    case RL_ANG_CIRCLE:
        rl_rng_uniform_fill(r, n, phi);
        for (int b = 0; b < n; b++)
            phi[b] = M_PI * (2.0 * phi[b] - 1.0);
        return;
    case RL_ANG_DRIFT:
        rl_rng_uniform_fill(r, n, phi);
        for (int b = 0; b < n; b++)
            phi[b] = 2.0 * omega[b] * phi[b];
        return;
    case RL_ANG_PM:
        rl_rng_uniform_fill(r, n, phi);
        for (int b = 0; b < n; b++)
            phi[b] = phi[b] < 0.5 ? -omega[b] : omega[b];
        return;
    default:
        for (int b = 0; b < n; b++)
            phi[b] = rl_so2_draw_angle(r, law, omega[b]);
    }
}

void rl_so2_table_draw(const rl_family *f, unsigned long seed, unsigned long stream, double *table)
{
    const int h = f->d / 2;
    double omega[h];
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    rl_rng_local l; /* no allocation: the draw cannot fail */
    gsl_rng *r = rl_rng_local_init(&l);
    rl_rng_stream(r, seed, stream);
    for (int v = 0; v < f->vocab; v++)
        rl_so2_draw_angles(r, f->law, omega, h, table + (long)v * h);
}
