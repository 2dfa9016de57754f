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

void rl_so2_table_draw(const rl_family *f, unsigned long seed, unsigned long stream, double *table)
{
    const int h = f->d / 2;
    double omega[h];
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    rl_rng_local l; /* no allocation: the draw cannot fail */
    gsl_rng *r = rl_rng_local_init(&l);
    rl_rng_stream(r, seed, stream);
    for (int v = 0; v < f->vocab; v++)
        for (int b = 0; b < h; b++)
            table[(long)v * h + b] = rl_so2_draw_angle(r, f->law, omega[b]);
}
