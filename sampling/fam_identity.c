/* fam_identity.c: the identity family, M_t = I at every step -- no
 * transport at all (NoPE): every route is I, so q . P k = q . k.  The
 * experiments' baseline rows (farmass, values) are this family, not a
 * flag beside one. */
#include "family_ops.h"

static rl_status identity_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)f, (void)ws, (void)r, (void)token, (void)err;
    st->identity = 1;
    return RL_OK;
}

/* E[M] = I: c = 1, exactly (no gap: the route never decorrelates) */
static int identity_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)f, (void)probs;
    chi[0] = 1.0;
    if (err)
        *err = 0;
    return 1;
}

/* nothing to multiply: the m vectors are read once */
static double identity_cost(const rl_family *f, double n, int m)
{
    (void)n;
    return (double)m * f->d;
}

const rl_family_ops rl_family_identity = {
    .desc = "the identity, M = I at every step: no transport (NoPE)",
    .form = RL_STEP_DENSE,
    .fixed = 1,
    .det_sign = rl_family_det_plus,
    .draw = identity_draw,
    .mean = identity_mean,
    .route_cost = identity_cost,
};
