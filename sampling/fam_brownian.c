/* fam_brownian.c: the Brownian family exp(sigma A), A skew-symmetric with
 * N(0,1) entries above the diagonal, and its closed-form mean. */
#include "fam_brownian.h"
#include "family_ops.h"
#include "rng.h"
#include "so2.h"

#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "../base/core/util.h"

static const rl_family_param brownian_params[] = { RL_FAMILY_PARAM_SIGMA_ };

/* zheevd's eigenvectors and scratch, sized once by a workspace query */
typedef struct {
    int d;
    lapack_complex_double *zv, *zt, *zo, *zwork;
    double *eig, *rwork;
    lapack_int *iwork;
    lapack_int lzwork, lrwork, liwork;
} brown_ws;

static void brownian_ws_free(void *ws);

/* NULL when memory runs out */
static void *brownian_ws(const rl_family *f)
{
    const int d = f->d;
    const size_t dd = (size_t)d * d;
    brown_ws *w = rl_alloc_array(1, sizeof *w, NULL);
    lapack_complex_double qz;
    double qr;
    lapack_int qi;
    if (!w)
        return NULL;
    w->d = d;
    w->zv = rl_alloc_array(dd, sizeof(lapack_complex_double), NULL);
    w->zt = rl_alloc_array(dd, sizeof(lapack_complex_double), NULL);
    w->zo = rl_alloc_array(dd, sizeof(lapack_complex_double), NULL);
    w->eig = rl_alloc_array((size_t)d, sizeof(double), NULL);
    if (!w->zv || !w->zt || !w->zo || !w->eig)
        goto fail;
    LAPACKE_zheevd_work(LAPACK_COL_MAJOR, 'V', 'U', d, w->zv, d, w->eig, &qz, -1, &qr, -1, &qi, -1);
    /* the queried sizes are small integers held in doubles: range-checked */
    w->lzwork = creal(qz) >= 1 && creal(qz) < 1e9 ? (lapack_int)creal(qz) : 2 * d + d * d;
    w->lrwork = qr >= 1 && qr < 1e9 ? (lapack_int)qr : 1 + 5 * d + 2 * d * d;
    w->liwork = qi;
    w->zwork = rl_alloc_array((size_t)w->lzwork, sizeof(lapack_complex_double), NULL);
    w->rwork = rl_alloc_array((size_t)w->lrwork, sizeof(double), NULL);
    w->iwork = rl_alloc_array((size_t)w->liwork, sizeof(lapack_int), NULL);
    if (!w->zwork || !w->rwork || !w->iwork)
        goto fail;
    return w;
fail:
    brownian_ws_free(w);
    return NULL;
}

static void brownian_ws_free(void *ws)
{
    brown_ws *w = ws;
    if (!w)
        return;
    free(w->zv);
    free(w->zt);
    free(w->zo);
    free(w->zwork);
    free(w->eig);
    free(w->rwork);
    free(w->iwork);
    free(w);
}

/* exp(sigma A) for A skew-symmetric with N(0,1) entries above the diagonal.
 * H = iA is Hermitian, H = V diag(lambda) V^H with real lambda, so
 * exp(sigma A) = exp(-i sigma H) = V diag(exp(-i sigma lambda)) V^H, which is
 * orthogonal to rounding (V unitary) at any sigma, unlike a truncated series. */
static rl_status brownian_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)token;
    brown_ws *s = ws;
    const int d = f->d;
    lapack_complex_double *V = s->zv;
    st->identity = 0;
    /* upper triangle of H (column-major): H_ij = i A_ij for i < j */
    for (int j = 0; j < d; j++) {
        V[(long)j * d + j] = 0;
        for (int i = 0; i < j; i++)
            V[(long)j * d + i] = I * rl_normal(r);
    }
    lapack_int info = LAPACKE_zheevd_work(LAPACK_COL_MAJOR, 'V', 'U', d, V, d, s->eig, s->zwork,
                                          s->lzwork, s->rwork, s->lrwork, s->iwork, s->liwork);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "Brownian step: zheevd failed (info %d, d = %d)", (int)info, d);
    /* T = V diag(exp(-i sigma lambda)) */
    for (int j = 0; j < d; j++) {
        lapack_complex_double e = cexp(-I * f->sigma * s->eig[j]);
        for (int i = 0; i < d; i++)
            s->zt[(long)j * d + i] = V[(long)j * d + i] * e;
    }
    /* exp(sigma A) = Re(T V^H); column-major product, read back row-major */
    const lapack_complex_double one = 1, zero = 0;
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, d, d, d, &one, s->zt, d, V, d, &zero,
                s->zo, d);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            st->M[(long)i * d + j] = creal(s->zo[(long)j * d + i]);
    return RL_OK;
}

static int brownian_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)probs;
    chi[0] = rl_brownian_mean(f->d, f->sigma, err);
    return 1;
}

/* d = 2: the step turns the one block by theta = sigma g, g ~ N(0, 1):
 * chi = e^{-sigma^2/2}, chi2 = e^{-2 sigma^2}.  d >= 3: no closed form (the
 * character estimate of mc/moment2_brownian.h). */
static int brownian_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    (void)probs;
    if (f->d != 2)
        return 0;
    const double complex chi = exp(-0.5 * f->sigma * f->sigma), chi2 = exp(-2.0 * f->sigma * f->sigma);
    *rate = rl_so2_block_rates(1, &chi, &chi2, NULL, diag, brate);
    return 1;
}

/* an eigendecomposition (~2 d^3) and a dense apply per step */
static double brownian_cost(const rl_family *f, double n, int m)
{
    const double d = f->d, d3 = d * d * d;
    return n * (2.0 * d3 + 2.0 * d * d * m + 20000);
}

const rl_family_ops rl_family_brownian = {
    .desc = "Brownian step exp(sigma A), A skew-symmetric with N(0,1) entries above the diagonal",
    RL_FAMILY_PARAMS(brownian_params),
    .form = RL_STEP_DENSE,
    .det_sign = rl_family_det_plus,
    .ws_alloc = brownian_ws,
    .ws_free = brownian_ws_free,
    .draw = brownian_draw,
    .mean = brownian_mean,
    .moment2 = brownian_moment2,
    .route_cost = brownian_cost,
};
