/* moment2.c: closed forms of the second-moment operator T(X) = E[M X M^T]
 * (derivations in moment2.h and /work/wt/notes_moment2.md). */
#include "moment2.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "theory.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../sampling/so2.h"

/* Whether F is span{I_b, J_b}: block-diagonal SO(2) steps, and at d = 2 any
 * family of rotations (det +1: Haar on SO(2), Brownian, Cayley steps turn
 * the one block). */
static int so2_like(const rl_family *f)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    return rl_family_is_so2(f) ||
           (f->d == 2 && rl_family_orthogonal(f) && o->det_sign && o->det_sign(f) == RL_DET_PLUS);
}

int rl_moment2_fixed_dim(const rl_family *f)
{
    if (so2_like(f))
        return f->d;
    /* a step that is not orthogonal (PaTH with beta < 2) shrinks every X
     * (T(I) = (1 - (2 beta - beta^2)/d) I) */
    return rl_family_orthogonal(f) ? 1 : 0;
}

void rl_moment2_fixed_basis(const rl_family *f, double *basis)
{
    const int d = f->d, h = d / 2, k = rl_moment2_fixed_dim(f);
    const long n = (long)d * d;
    memset(basis, 0, sizeof(double) * (size_t)k * n);
    if (so2_like(f)) {
        const double r = 1.0 / sqrt(2.0);
        for (int b = 0; b < h; b++) {
            double *Ib = basis + (long)(2 * b) * n, *Jb = basis + (long)(2 * b + 1) * n;
            Ib[b * d + b] = Ib[(b + h) * d + b + h] = r;
            Jb[(b + h) * d + b] = r;
            Jb[b * d + b + h] = -r;
        }
    } else if (k == 1) {
        for (int i = 0; i < d; i++)
            basis[i * d + i] = 1.0 / sqrt((double)d);
    }
}

void rl_moment2_closed(const rl_family *f, const double *probs, rl_moment2 *m, double *block_diag,
                       double *block_rate)
{
    const double d = f->d;
    const rl_family_ops *o = rl_family_ops_of(f);
    m->fixdim = rl_moment2_fixed_dim(f);
    m->limit_max = so2_like(f) ? 0.5 : m->fixdim ? 1.0 / d : 0.0;
    /* the family's closed form (family_ops.h), or none: rate NAN, closed 0 */
    m->closed = o->moment2 && o->moment2(f, probs, &m->rate, block_diag, block_rate);
    if (!m->closed)
        m->rate = NAN;
}

rl_status rl_moment2_perp_norm(int d, const double *T, int k, const double *basis, double *out,
                               rl_err *err)
{
    const int n = d * d;
    const size_t nn = (size_t)n * n;
    double *P = rl_alloc_array(nn, sizeof(double), err), *A = P ? rl_alloc_array(nn, sizeof(double), err) : NULL;
    double *TP = A ? rl_alloc_array(nn, sizeof(double), err) : NULL;
    double *sv = TP ? rl_alloc_array((size_t)n, sizeof(double), err) : NULL;
    double *sup = sv ? rl_alloc_array((size_t)n, sizeof(double), err) : NULL;
    if (!sup) {
        free(sv);
        free(TP);
        free(A);
        free(P);
        return RL_ENOMEM;
    }
    /* Pi = I - B^T B (P is zeroed: rl_alloc_array) */
    for (int i = 0; i < n; i++)
        P[(long)i * n + i] = 1.0;
    if (k > 0)
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, n, k, -1.0, basis, n, basis, n, 1.0, P, n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, T, n, P, n, 0.0, TP, n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, P, n, TP, n, 0.0, A, n);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', n, n, A, n, sv, NULL, 1, NULL, 1, sup);
    *out = sv[0];
    free(P);
    free(A);
    free(TP);
    free(sv);
    free(sup);
    if (info != 0)
        return rl_fail(err, RL_EINTERNAL, "LAPACKE_dgesvd failed (info %d)", (int)info);
    return RL_OK;
}

/* rate^n <= 1/d, in logs: n log rate <= -log d (rate 0 meets it at n >= 1). */
const char *rl_moment2_unmet(double rate, int d, long n, char *buf, size_t len)
{
    if (isnan(rate)) {
        snprintf(buf, len, "no second-moment certificate (no closed form for the rate at d = %d)", d);
        return buf;
    }
    if (rate <= 0 ? n >= 1 : (double)n * log(rate) <= -log((double)d))
        return NULL;
    long w = rl_mixing_window(rate, 1.0 / d);
    char r[48]; /* a rate near 1 as 1 - x: "%.6g" would print 1 */
    if (rate > 0.999 && rate < 1)
        snprintf(r, sizeof r, "1 - %.3g", 1 - rate);
    else
        snprintf(r, sizeof r, "%.6g", rate);
    if (w < 0)
        snprintf(buf, len, "second-moment rate %s at d = %d: rate^n > 1/d at n = %ld, and for every n", r, d, n);
    else
        snprintf(buf, len, "second-moment rate %s at d = %d: rate^n = %.3g > 1/d at n = %ld; met from n = %ld", r, d,
                 pow(rate, (double)n), n, w);
    return buf;
}
