/* family.c: names, defaults and validation of the step families. */
#include "family.h"

#include <math.h>

static const char *const family_names[RL_FAM_COUNT] = {
    "haar", "haar-so", "so2", "token-so2", "householder", "path", "lazy-haar", "brownian"
};

static const char *const family_desc[RL_FAM_COUNT] = {
    "Haar-distributed orthogonal matrix on O(d)",
    "Haar-distributed rotation on SO(d)",
    "block-diagonal SO(2) rotations, x[b] paired with x[b+d/2], angle law per block",
    "block-diagonal SO(2) rotations, angle = table[token][b] for the token read at that step",
    "Householder reflection I - 2ww^T, w uniform on the unit sphere",
    "PaTH step I - beta ww^T, w uniform on the sphere; orthogonal only for beta = 2 "
    "(for beta < 2 it contracts the w direction by 1 - beta)",
    "lazy Haar: identity with probability 1-p, else a Haar matrix on O(d)",
    "Brownian step exp(sigma A), A skew-symmetric with N(0,1) entries above the diagonal"
};

static const char *const angle_names[RL_ANG_COUNT] = {
    "constant", "uniform", "pm", "gauss", "circle", "drift"
};

const char *rl_family_name(rl_family_kind k)
{
    return (unsigned)k < RL_FAM_COUNT ? family_names[k] : "?";
}

const char *rl_family_describe(rl_family_kind k)
{
    return (unsigned)k < RL_FAM_COUNT ? family_desc[k] : "?";
}

const char *rl_angle_name(rl_angle_law a)
{
    return (unsigned)a < RL_ANG_COUNT ? angle_names[a] : "?";
}

rl_family rl_family_default(rl_family_kind kind, int d)
{
    rl_family f = { kind, d, RL_ANG_UNIFORM, 10000.0, 1.0, 1.0, 0.5, 0.1, 0, NULL };
    return f;
}

int rl_family_is_so2(const rl_family *f)
{
    return f->kind == RL_FAM_SO2 || f->kind == RL_FAM_TOKEN_SO2;
}

int rl_family_orthogonal(const rl_family *f)
{
    return f->kind != RL_FAM_PATH || f->beta == 2.0;
}

rl_status rl_family_check(const rl_family *f, rl_err *err)
{
    if ((unsigned)f->kind >= RL_FAM_COUNT)
        return rl_fail(err, RL_EINPUT, "unknown step family");
    if (f->d < 2)
        return rl_fail(err, RL_EINPUT, "dimension d = %d is below 2", f->d);
    if (rl_family_is_so2(f)) {
        if (f->d % 2)
            return rl_fail(err, RL_EINPUT, "%s needs an even dimension, got d = %d",
                           rl_family_name(f->kind), f->d);
        if ((unsigned)f->law >= RL_ANG_COUNT)
            return rl_fail(err, RL_EINPUT, "unknown angle law");
        if (!(f->base > 0) || !isfinite(f->base))
            return rl_fail(err, RL_EINPUT, "base %g must be positive", f->base);
        if (!(f->scale > 0) || !isfinite(f->scale))
            return rl_fail(err, RL_EINPUT, "scale %g must be positive", f->scale);
    }
    if (f->kind == RL_FAM_TOKEN_SO2 && (f->vocab < 1 || !f->table))
        return rl_fail(err, RL_EINPUT, "token-so2 needs an angle table of at least one token");
    if (f->kind == RL_FAM_PATH && !(f->beta > 0 && f->beta <= 2))
        return rl_fail(err, RL_EINPUT, "beta %g is outside (0, 2]", f->beta);
    if (f->kind == RL_FAM_LAZY_HAAR && !(f->p >= 0 && f->p <= 1))
        return rl_fail(err, RL_EINPUT, "p %g is outside [0, 1]", f->p);
    if (f->kind == RL_FAM_BROWNIAN && !(f->sigma >= 0 && isfinite(f->sigma)))
        return rl_fail(err, RL_EINPUT, "sigma %g must be non-negative", f->sigma);
    if (f->kind == RL_FAM_BROWNIAN && f->sigma > RL_BROWNIAN_SIGMA_MAX)
        return rl_fail(err, RL_EINPUT, "sigma %g is out of range (at most %g: beyond it the step's "
                       "angles have no correct digits)", f->sigma, RL_BROWNIAN_SIGMA_MAX);
    return RL_OK;
}
