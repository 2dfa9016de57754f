/* so2_draw.c: random SO(2) angle steps and random token tables (so2.h). */
#include "so2.h"
#include "rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>

/* The laws of one uniform u in [0, 1) per angle, written once: uniform
 * omega (2u - 1), circle pi (2u - 1), drift 2 omega u, pm the sign of
 * u - 1/2.  The single draw and the block both map their uniforms here, so
 * the two give the same double for the same u. */
static inline double angle_of_uniform(rl_angle_law law, double omega, double u)
{
    switch (law) {
    case RL_ANG_UNIFORM: return omega * (2.0 * u - 1.0);
    case RL_ANG_PM: return u < 0.5 ? -omega : omega;
    case RL_ANG_CIRCLE: return M_PI * (2.0 * u - 1.0);
    case RL_ANG_DRIFT: return 2.0 * omega * u;
    default: return NAN;
    }
}

/* Whether the law draws exactly one uniform per angle (the constant law
 * draws none; the Gaussian's ziggurat a variable number of words). */
static int one_uniform(rl_angle_law law)
{
    return law == RL_ANG_UNIFORM || law == RL_ANG_PM || law == RL_ANG_CIRCLE || law == RL_ANG_DRIFT;
}

double rl_so2_draw_angle(gsl_rng *r, rl_angle_law law, double omega)
{
    if (one_uniform(law))
        return angle_of_uniform(law, omega, gsl_rng_uniform(r));
    switch (law) {
    case RL_ANG_CONSTANT: return omega;
    case RL_ANG_GAUSS: return gsl_ran_gaussian_ziggurat(r, omega);
    default: return NAN;
    }
}

/* A block of angles: one fill of uniforms where the law takes one each
 * (rl_rng_uniform_fill: xoshiro stepped inline), else one call per angle. */
void rl_so2_draw_angles(gsl_rng *r, rl_angle_law law, const double *omega, int n, double *phi)
{
    if (!one_uniform(law)) {
        for (int b = 0; b < n; b++)
            phi[b] = rl_so2_draw_angle(r, law, omega[b]);
        return;
    }
    rl_rng_uniform_fill(r, n, phi);
    for (int b = 0; b < n; b++)
        phi[b] = angle_of_uniform(law, omega[b], phi[b]);
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
