/* haar.c: Haar measure on O(d) and SO(d) by QR of a Gaussian matrix.
 *
 * If G has i.i.d. N(0,1) entries and G = QR, then U = Q diag(sign R_jj) is
 * Haar on O(d) (Mezzadri 2007): the law of G is invariant under left
 * multiplication by any orthogonal matrix, and the sign correction makes the
 * factorisation unique (R with a positive diagonal), so U inherits the
 * invariance.  Without it Q's law depends on LAPACK's sign convention.
 * SO(d): when det U = -1, flip the sign of the first column.  Right
 * multiplication by J = diag(-1, 1, ..., 1) maps the Haar measure on the
 * det = -1 coset onto that of SO(d), so the result is Haar on SO(d). */
#include "haar.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "../base/core/util.h"

rl_haar_workspace *rl_haar_alloc(int d)
{
    rl_haar_workspace *w = rl_alloc_array(1, sizeof *w, NULL);
    double q1 = 0, q2 = 0, dummy = 0;
    if (!w)
        return NULL;
    w->d = d;
    w->tau = rl_alloc_array((size_t)d, sizeof(double), NULL);
    w->sign = rl_alloc_array((size_t)d, sizeof(int), NULL);
    if (!w->tau || !w->sign)
        goto fail;
    rl_ziggurat_init(&w->zig);
    /* workspace queries: lwork = -1 returns the optimal size in work[0] */
    LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, d, d, &dummy, d, w->tau, &q1, -1);
    LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, d, d, d, &dummy, d, w->tau, &q2, -1);
    /* the queried sizes are small integers held in doubles: range-checked
     * before the cast (a NaN or huge answer falls back to 64 d) */
    const double lw = fmax(fmax(q1, q2), d);
    w->lwork = lw >= d && lw <= 1e9 ? (int)lw : 64 * d;
    w->work = rl_alloc_array((size_t)w->lwork, sizeof(double), NULL);
    if (!w->work)
        goto fail;
    return w;
fail:
    rl_haar_free(w);
    return NULL;
}

void rl_haar_free(rl_haar_workspace *w)
{
    if (!w)
        return;
    free(w->tau);
    free(w->work);
    free(w->sign);
    free(w);
}

rl_status rl_haar_from_gaussian(rl_haar_workspace *w, int special, double *G, int *det_out,
                                rl_err *err)
{
    const int d = w->d;
    lapack_int info;
    /* Column-major: G holds the Gaussian matrix; its transpose is just as
     * Gaussian, and the row-major reading of the result below is U^T, which
     * is Haar as well (U -> U^{-1} preserves Haar measure). */
    /* info != 0 is LAPACK's failure, never the caller's input: RL_EINTERNAL */
    info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, d, d, G, d, w->tau, w->work, w->lwork);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "Haar sampling: dgeqrf failed (info %d, d = %d)", (int)info, d);
    /* det Q = (-1)^(number of proper reflectors): each H_i = I - tau_i v v^T
     * with tau_i != 0 is a reflection (det -1); tau_i = 0 is the identity. */
    int det = 1;
    int *sign = w->sign;
    for (int j = 0; j < d; j++) {
        sign[j] = G[(long)j * d + j] < 0 ? -1 : 1;
        det *= sign[j];
        if (w->tau[j] != 0.0)
            det = -det;
    }
    info = LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, d, d, d, G, d, w->tau, w->work, w->lwork);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "Haar sampling: dorgqr failed (info %d, d = %d)", (int)info, d);
    if (special && det < 0) {
        sign[0] = -sign[0];
        det = 1;
    }
    for (int j = 0; j < d; j++)
        if (sign[j] < 0)
            for (int i = 0; i < d; i++)
                G[(long)j * d + i] = -G[(long)j * d + i];
    if (det_out)
        *det_out = det;
    return RL_OK;
}

rl_status rl_haar_draw(rl_haar_workspace *w, gsl_rng *r, int special, double *U, rl_err *err)
{
    rl_ziggurat_fill(&w->zig, r, U, (long)w->d * w->d);
    return rl_haar_from_gaussian(w, special, U, NULL, err);
}
