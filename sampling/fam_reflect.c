/* fam_reflect.c: the rank-one families M = I - beta w w^T, w uniform on the
 * sphere -- householder (beta = 2, a reflection) and path (PaTH, beta in
 * (0, 2]; orthogonal only at beta = 2). */
#include "family_ops.h"
#include "rng.h"

#include <math.h>
#include <stddef.h>


static double beta_of(const rl_family *f)
{
    return f->kind == RL_FAM_PATH ? f->beta : 2.0;
}

/* PaTH's step I - beta w w^T: beta in (0, 2], orthogonal only at 2 */
static const rl_family_param path_params[] = {
    { "beta", RL_PAR_DOUBLE, offsetof(rl_family, beta), 1.0, 0, 2, RL_LO_OPEN | RL_HI, NULL,
      "step I - beta w w^T" },
};

static int path_orthogonal(const rl_family *f)
{
    return f->beta == 2.0;
}

/* det(I - beta w w^T) = 1 - beta */
static rl_det_sign reflect_det(const rl_family *f)
{
    const double b = beta_of(f);
    return b < 1 ? RL_DET_PLUS : b > 1 ? RL_DET_MINUS : RL_DET_ZERO;
}

static rl_status reflect_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)ws, (void)token, (void)err;
    st->beta = beta_of(f);
    rl_unit_vector(r, f->d, st->w);
    return RL_OK;
}

/* E[w w^T] = I/d: E[M] = (1 - beta/d) I */
static int reflect_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)probs;
    chi[0] = f->kind == RL_FAM_PATH ? 1.0 - f->beta / f->d : 1.0 - 2.0 / f->d;
    if (err)
        *err = 0;
    return 1;
}

static double reflect_log_mean(const rl_family *f, const double *probs, double *logblocks)
{
    (void)probs, (void)logblocks;
    if (f->kind == RL_FAM_PATH)
        return log(fabs(1.0 - f->beta / f->d)); /* exact for beta / d a power of two */
    return log1p(-2.0 / f->d);
}

/* M = I - beta w w^T: E[w w^T] = I/d, E[w_i w_j w_k w_l] = (d_ij d_kl +
 * d_ik d_jl + d_il d_jk)/(d(d+2)) give
 *   T(X) = (1 - 2 beta/d) X + beta^2 (X + X^T + tr(X) I)/(d(d+2)),
 * eigenvalues: antisymmetric 1 - 2 beta/d; symmetric traceless
 * 1 - 2 beta/d + 2 beta^2/(d(d+2)); I: 1 - (2 beta - beta^2)/d (in F
 * unless the step is not orthogonal, then F = {0}). */
static int reflect_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    (void)probs, (void)diag, (void)brate;
    const double d = f->d, beta = beta_of(f);
    double a = 1 - 2 * beta / d, s = a + 2 * beta * beta / (d * (d + 2));
    double c = 1 - (2 * beta - beta * beta) / d;
    *rate = fmax(fabs(a), fabs(s));
    if (beta != 2.0)
        *rate = fmax(*rate, fabs(c));
    return 1;
}

static double reflect_cost(const rl_family *f, double n, int m)
{
    return (30.0 + m) * n * f->d;
}

const rl_family_ops rl_family_householder = {
    .desc = "Householder reflection I - 2ww^T, w uniform on the unit sphere",
    .form = RL_STEP_REFLECT,
    .det_sign = reflect_det,
    .draw = reflect_draw,
    .mean = reflect_mean,
    .log_mean = reflect_log_mean,
    .moment2 = reflect_moment2,
    .route_cost = reflect_cost,
};

const rl_family_ops rl_family_path = {
    .desc = "PaTH step I - beta ww^T, w uniform on the sphere; orthogonal only for beta = 2 "
            "(for beta < 2 it contracts the w direction by 1 - beta)",
    RL_FAMILY_PARAMS(path_params),
    .form = RL_STEP_REFLECT,
    .orthogonal = path_orthogonal,
    .det_sign = reflect_det,
    .draw = reflect_draw,
    .mean = reflect_mean,
    .log_mean = reflect_log_mean,
    .moment2 = reflect_moment2,
    .route_cost = reflect_cost,
};
