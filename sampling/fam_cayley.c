/* fam_cayley.c: the Cayley family C = (I - sigma A)^{-1} (I + sigma A), A
 * skew-symmetric with N(0,1) entries above the diagonal (the generator of
 * the Brownian family).
 *
 * C is orthogonal with det +1: A's eigenvalues are +-i lambda_j (and 0 for
 * odd d), so C's are (1 + i sigma lambda)/(1 - i sigma lambda) =
 * e^{2i atan(sigma lambda)}, of modulus 1, in conjugate pairs (and 1), and C
 * is normal (a rational function of A).
 *
 * Mean.  A's law is invariant under A -> Q A Q^T, so E[C] = c I with
 * c = E[(1/d) tr C] = E[(1/d) tr g(sigma B)], B = iA Hermitian with
 * eigenvalues x, g(y) = (1 - y^2)/(1 + y^2) = 2/(1 + y^2) - 1.  With
 *   1/(1 + sigma^2 x^2) = int_0^inf e^{-u} cos(sigma u x) du
 * (the Laplace transform of cos), Fubini gives
 *   c = 2 int_0^inf e^{-u} c_B(sigma u) du - 1,
 * c_B(s) = E[(1/d) tr cos(s B)] the Brownian family's mean at step size s
 * (fam_brownian.c: a Laguerre sum, exact).  So the Cayley mean is a
 * Laplace transform of the Brownian one, computed by adaptive quadrature
 * (GSL qags near 0, qagiu beyond) with its error bound, plus the Brownian sum's rounding
 * estimate at the worst point.  Checks: sigma = 0 gives 1; d = 2 gives
 * E[(1 - sigma^2 a^2)/(1 + sigma^2 a^2)], a ~ N(0, 1). */
#include "fam_brownian.h"
#include "family_ops.h"
#include "rng.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "../base/core/util.h"

/* sigma as the Brownian step's: one flag, one range (fam_brownian.h) */
static const rl_family_param cayley_params[] = { RL_FAMILY_PARAM_SIGMA_ };

/* the LU of I - sigma A and the right-hand side I + sigma A, column-major */
typedef struct {
    double *L, *B;
    lapack_int *ipiv;
} cayley_ws;

static void cayley_ws_free(void *ws);

/* NULL when memory runs out */
static void *cayley_ws_alloc(const rl_family *f)
{
    const size_t d = (size_t)f->d;
    cayley_ws *w = rl_alloc_array(1, sizeof *w, NULL);
    if (!w)
        return NULL;
    w->L = rl_alloc_array(d * d, sizeof(double), NULL);
    w->B = rl_alloc_array(d * d, sizeof(double), NULL);
    w->ipiv = rl_alloc_array(d, sizeof(lapack_int), NULL);
    if (!w->L || !w->B || !w->ipiv) {
        cayley_ws_free(w);
        return NULL;
    }
    return w;
}

static void cayley_ws_free(void *ws)
{
    cayley_ws *w = ws;
    if (!w)
        return;
    free(w->L);
    free(w->B);
    free(w->ipiv);
    free(w);
}

/* (I - sigma A) C = I + sigma A by LU (dgesv_work: no allocation) */
static rl_status cayley_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)token;
    cayley_ws *w = ws;
    const int d = f->d;
    const double s = f->sigma;
    st->identity = 0;
    for (int j = 0; j < d; j++) {
        w->L[(long)j * d + j] = w->B[(long)j * d + j] = 1.0;
        for (int i = 0; i < j; i++) { /* A_ij = g, A_ji = -g (column-major: [j d + i] is (i, j)) */
            const double g = s * rl_normal(r);
            w->L[(long)j * d + i] = -g;
            w->L[(long)i * d + j] = g;
            w->B[(long)j * d + i] = g;
            w->B[(long)i * d + j] = -g;
        }
    }
    lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, d, d, w->L, d, w->ipiv, w->B, d);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "Cayley step: dgesv failed (info %d, d = %d)", (int)info, d);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            st->M[(long)i * d + j] = w->B[(long)j * d + i];
    return RL_OK;
}

typedef struct {
    int d;
    double sigma, round; /* round: the largest rounding estimate met */
} cayley_q;

static double cayley_integrand(double u, void *p)
{
    cayley_q *q = p;
    double e, c = rl_brownian_mean(q->d, q->sigma * u, &e);
    if (e > q->round)
        q->round = e;
    return exp(-u) * c;
}

/* c = 2 int_0^inf e^{-u} c_B(sigma u) du - 1 (the header's derivation) */
static int cayley_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)probs;
    if (f->sigma == 0) {
        chi[0] = 1.0;
        if (err)
            *err = 0;
        return 1;
    }
    cayley_q q = { f->d, f->sigma, 0 };
    gsl_function F = { cayley_integrand, &q };
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(256);
    /* c_B(sigma u) changes on the scale u ~ 1/sigma, e^{-u} on u ~ 1: the
     * integral is split at a = min(1, 50/sigma) so that a large sigma's
     * narrow feature at u -> 0 is not stepped over (qags on [0, a], qagiu
     * beyond) */
    const double a = fmin(1.0, 50.0 / f->sigma);
    double v0 = NAN, v1 = NAN, e0 = INFINITY, e1 = INFINITY;
    rl_gsl_quiet(); /* every status below is read: never GSL's abort */
    int st = w ? gsl_integration_qags(&F, 0.0, a, 1e-14, 1e-12, 256, w, &v0, &e0) : GSL_ENOMEM;
    if (st == GSL_SUCCESS)
        st = gsl_integration_qagiu(&F, a, 1e-14, 1e-12, 256, w, &v1, &e1);
    gsl_integration_workspace_free(w);
    const double v = v0 + v1, abserr = e0 + e1;
    if (st != GSL_SUCCESS || !isfinite(v))
        return 0; /* no closed-form value at these parameters: never a NaN */
    const double c = 2 * v - 1;
    chi[0] = c > 1 ? 1 : c < -1 ? -1 : c;
    if (err) /* the quadrature's bound and the integrand's rounding, both doubled */
        *err = 2 * (abserr + q.round);
    return 1;
}

/* an LU (2/3 d^3), the solve for d right-hand sides (2 d^3) and a dense apply */
static double cayley_cost(const rl_family *f, double n, int m)
{
    const double d = f->d, d3 = d * d * d;
    return n * (2.7 * d3 + 2.0 * d * d * m + 2000);
}

const rl_family_ops rl_family_cayley = {
    .desc = "Cayley step (I - sigma A)^-1 (I + sigma A), A skew-symmetric with N(0,1) entries above the diagonal",
    RL_FAMILY_PARAMS(cayley_params),
    .form = RL_STEP_DENSE,
    .det_sign = rl_family_det_plus,
    .ws_alloc = cayley_ws_alloc,
    .ws_free = cayley_ws_free,
    .draw = cayley_draw,
    .mean = cayley_mean,
    .route_cost = cayley_cost,
};
