/* fam_haar.c: the Haar families -- haar (O(d)), haar-so (SO(d)) and
 * lazy-haar (identity w.p. 1-p, else Haar on O(d)) -- one draw kernel with
 * the group and the laziness as parameters. */
#include "family_ops.h"
#include "haar.h"
#include "so2.h"

#include <math.h>
#include <stddef.h>


/* NULL when memory runs out (rl_haar_alloc) */
static void *haar_ws(const rl_family *f)
{
    return rl_haar_alloc(f->d);
}

static void haar_ws_free(void *ws)
{
    rl_haar_free(ws);
}

static rl_status haar_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)token;
    if (f->kind == RL_FAM_LAZY_HAAR) {
        st->identity = !(gsl_rng_uniform(r) < f->p);
        return st->identity ? RL_OK : rl_haar_draw(ws, r, 0, st->M, err);
    }
    st->identity = 0;
    return rl_haar_draw(ws, r, f->kind == RL_FAM_HAAR_SO, st->M, err);
}

static rl_det_sign det_mixed(const rl_family *f)
{
    (void)f;
    return RL_DET_MIXED;
}

/* E[U] commutes with every rotation, so E[U] = cI; E[U] = E[-U] on O(d) (U
 * and -U are equal in law) and on SO(d) for d >= 3 (U and U J_ij, two signs
 * flipped, are equal in law); SO(2): uniform angle, chi = 0. */
static int haar_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)f, (void)probs;
    chi[0] = 0.0;
    if (err)
        *err = 0;
    return 1;
}

/* T(X) = tr(X)/d I: the projector onto F (d >= 3 for SO(d)); SO(2): a
 * uniform angle, chi = chi2 = 0 on the one block. */
static int haar_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    (void)probs;
    if (f->kind == RL_FAM_HAAR_SO && f->d == 2) {
        const double complex z = 0;
        *rate = rl_so2_block_rates(1, &z, &z, NULL, diag, brate);
        return 1;
    }
    *rate = 0;
    return 1;
}

static const rl_family_param lazy_params[] = {
    { "p", RL_PAR_DOUBLE, offsetof(rl_family, p), 0.5, 0, 1, RL_LO | RL_HI, NULL, "probability of a Haar step" },
};

static int lazy_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)probs;
    chi[0] = 1.0 - f->p; /* (1-p) I + p E[U], E[U] = 0 */
    if (err)
        *err = 0;
    return 1;
}

static double lazy_log_mean(const rl_family *f, const double *probs, double *logblocks)
{
    (void)probs, (void)logblocks;
    return log1p(-f->p);
}

/* T = (1-p) Id + p Pi_F */
static int lazy_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    (void)probs, (void)diag, (void)brate;
    *rate = 1.0 - f->p;
    return 1;
}

/* QR of a d x d Gaussian: ~0.4 d^3 + overhead per step */
static double haar_cost(const rl_family *f, double n, int m)
{
    (void)n, (void)m;
    const double d3 = (double)f->d * f->d * f->d;
    return 0.4 * d3 + 2000;
}

static double lazy_cost(const rl_family *f, double n, int m)
{
    const double d = f->d, d3 = d * d * d;
    return n * f->p * (0.4 * d3 + 2.0 * d * d * m + 2000);
}

const rl_family_ops rl_family_haar = {
    .desc = "Haar-distributed orthogonal matrix on O(d)",
    .form = RL_STEP_DENSE,
    .det_sign = det_mixed,
    .ws_alloc = haar_ws,
    .ws_free = haar_ws_free,
    .draw = haar_draw,
    .mean = haar_mean,
    .moment2 = haar_moment2,
    .route_cost = haar_cost,
};

const rl_family_ops rl_family_haar_so = {
    .desc = "Haar-distributed rotation on SO(d)",
    .form = RL_STEP_DENSE,
    .det_sign = rl_family_det_plus,
    .ws_alloc = haar_ws,
    .ws_free = haar_ws_free,
    .draw = haar_draw,
    .mean = haar_mean,
    .moment2 = haar_moment2,
    .route_cost = haar_cost,
};

const rl_family_ops rl_family_lazy_haar = {
    .desc = "lazy Haar: identity with probability 1-p, else a Haar matrix on O(d)",
    RL_FAMILY_PARAMS(lazy_params),
    .form = RL_STEP_DENSE,
    .det_sign = det_mixed,
    .ws_alloc = haar_ws,
    .ws_free = haar_ws_free,
    .draw = haar_draw,
    .mean = lazy_mean,
    .log_mean = lazy_log_mean,
    .moment2 = lazy_moment2,
    .route_cost = lazy_cost,
};
