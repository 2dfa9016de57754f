/* farmass_walk.c: one replicate of the stylized far-mass model (farmass_walk.h). */
#include "farmass_walk.h"

#include <math.h>

#include "../sampling/rng.h"

rl_status rl_farmass_walk(const rl_family *f, rl_chain *ch, gsl_rng *r, double *q, rl_mass *acc, const long *grid,
                          int ng, long far_from, double *rho, double *far_mom, double *srange)
{
    const rl_mass_spec *sp = rl_mass_spec_of(acc);
    rl_mass_reset(acc);
    const int d = f ? f->d : 0;
    if (f) {
        rl_unit_vector(r, d, q);
        rl_chain_reset(ch, q);
    }
    double s1 = 0, s2 = 0, smax_near = -INFINITY, smin_far = INFINITY, sabs = 0;
    long nf = 0;
    int g = 0;
    for (long delta = 1; delta <= grid[ng - 1]; delta++) {
        if ((delta & 0x3ff) == 0 && rl_cancelled())
            return RL_ECANCEL;
        double s = 1.0;
        if (f) {
            rl_chain_step(ch, r, 0);
            const double *row = rl_chain_rows(ch); /* P_delta^T q */
            s = 0;
            for (int i = 0; i < d; i++)
                s += row[i] * q[i];
        }
        rl_mass_add(acc, delta, s);
        if (delta <= sp->K)
            smax_near = fmax(smax_near, s);
        else
            smin_far = fmin(smin_far, s);
        sabs = fmax(sabs, fabs(s));
        if (delta >= far_from) {
            s1 += s;
            s2 += s * s;
            nf++;
        }
        if (delta == grid[g]) {
            if (srange) {
                srange[3 * g] = smax_near;
                srange[3 * g + 1] = smin_far;
                srange[3 * g + 2] = sabs;
            }
            const int nc = rl_mass_nconf(sp);
            for (int l = 0; l < sp->nlam; l++)
                for (int c = 0; c < nc; c++)
                    rho[((long)g * sp->nlam + l) * nc + c] = rl_mass_rho(acc, l, c);
            g++;
        }
    }
    far_mom[0] = nf ? s1 / nf : NAN;
    far_mom[1] = nf ? s2 / nf : NAN;
    return RL_OK;
}
