/* fam_fixture.c: a family that exists only in a test -- the proof that a
 * family with a parameter of its own is one file and one registry line.
 * Its step is the same rotation R(kappa) on every SO(2) block: kappa is a
 * parameter no other family has, stored in the family's own slot (own[0]).
 * tests/family_fixture/add.sh copies the library's floors, drops this file
 * into sampling/, adds the one line to RL_FAMILY_LIST and builds. */
#include "family_ops.h"

#include <stddef.h>

static const rl_family_param fixture_params[] = {
    { "kappa", RL_PAR_DOUBLE, offsetof(rl_family, own[0]), 0.25, -3.5, 3.5, RL_LO | RL_HI, NULL,
      "the angle of every block's rotation" },
};

static rl_status fixture_check(const rl_family *f, rl_err *err)
{
    return f->d % 2 ? rl_fail(err, RL_EINPUT, "fixture needs an even dimension, got d = %d", f->d) : RL_OK;
}

static rl_status fixture_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)ws, (void)r, (void)token, (void)err;
    for (int b = 0; b < f->d / 2; b++)
        st->phi[b] = f->own[0];
    return RL_OK;
}

static double fixture_cost(const rl_family *f, double n, int m)
{
    (void)m;
    return 4.0 * n * f->d;
}

const rl_family_ops rl_family_fixture = {
    .desc = "a test's family: the rotation R(kappa) on every SO(2) block",
    RL_FAMILY_PARAMS(fixture_params),
    .form = RL_STEP_SO2,
    .check = fixture_check,
    .det_sign = rl_family_det_plus,
    .draw = fixture_draw,
    .route_cost = fixture_cost,
};
