/* steps.c: the step families' draw/apply kernels. */
#include "steps.h"
#include "haar.h"
#include "rng.h"
#include "so2.h"

#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

struct rl_stepper {
    rl_family f;
    int cap;
    double *omega;           /* d/2 base frequencies (so2) */
    double *phi;             /* d/2 angles of the current step (so2) */
    double *w;               /* d: unit vector of Householder / PaTH */
    double *M;               /* d*d current dense step, row-major */
    int identity;            /* lazy-haar: the current step is I */
    double *tmp;             /* cap*d scratch for dense application */
    rl_haar_workspace *haar; /* haar, haar-so, lazy-haar */
    lapack_complex_double *zv, *zt, *zo, *zwork; /* brownian: eigenvectors, scratch */
    double *eig, *rwork;
    lapack_int *iwork;
    lapack_int lzwork, lrwork, liwork;
    rl_err err; /* the first failed draw (err.status RL_OK: none) */
};

static int is_dense(const rl_family *f)
{
    return f->kind == RL_FAM_HAAR || f->kind == RL_FAM_HAAR_SO || f->kind == RL_FAM_LAZY_HAAR ||
           f->kind == RL_FAM_BROWNIAN;
}

rl_stepper *rl_stepper_alloc(const rl_family *f, int cap)
{
    rl_stepper *s = rl_xcalloc(1, sizeof *s);
    const int d = f->d, h = d / 2;
    s->f = *f;
    s->cap = cap < 1 ? 1 : cap;
    if (rl_family_is_so2(f)) {
        s->omega = rl_xmalloc(sizeof(double) * h);
        s->phi = rl_xcalloc(h, sizeof(double));
        rl_so2_freqs(d, f->base, f->scale, s->omega);
    } else if (f->kind == RL_FAM_HOUSEHOLDER || f->kind == RL_FAM_PATH) {
        s->w = rl_xmalloc(sizeof(double) * d);
        s->w[0] = 1.0;
        memset(s->w + 1, 0, sizeof(double) * (d - 1));
    } else {
        s->M = rl_xcalloc((size_t)d * d, sizeof(double));
        for (int i = 0; i < d; i++)
            s->M[(long)i * d + i] = 1.0;
        s->tmp = rl_xmalloc(sizeof(double) * (size_t)s->cap * d);
        s->identity = 1;
    }
    if (f->kind == RL_FAM_HAAR || f->kind == RL_FAM_HAAR_SO || f->kind == RL_FAM_LAZY_HAAR)
        s->haar = rl_haar_alloc(d);
    if (f->kind == RL_FAM_BROWNIAN) {
        lapack_complex_double qz;
        double qr;
        lapack_int qi;
        s->zv = rl_xmalloc(sizeof(lapack_complex_double) * (size_t)d * d);
        s->zt = rl_xmalloc(sizeof(lapack_complex_double) * (size_t)d * d);
        s->zo = rl_xmalloc(sizeof(lapack_complex_double) * (size_t)d * d);
        s->eig = rl_xmalloc(sizeof(double) * d);
        LAPACKE_zheevd_work(LAPACK_COL_MAJOR, 'V', 'U', d, s->zv, d, s->eig, &qz, -1, &qr, -1, &qi, -1);
        s->lzwork = (lapack_int)creal(qz);
        s->lrwork = (lapack_int)qr;
        s->liwork = qi;
        s->zwork = rl_xmalloc(sizeof(lapack_complex_double) * s->lzwork);
        s->rwork = rl_xmalloc(sizeof(double) * s->lrwork);
        s->iwork = rl_xmalloc(sizeof(lapack_int) * s->liwork);
    }
    return s;
}

void rl_stepper_free(rl_stepper *s)
{
    if (!s)
        return;
    free(s->omega);
    free(s->phi);
    free(s->w);
    free(s->M);
    free(s->tmp);
    rl_haar_free(s->haar);
    free(s->zv);
    free(s->zt);
    free(s->zo);
    free(s->zwork);
    free(s->eig);
    free(s->rwork);
    free(s->iwork);
    free(s);
}

const rl_family *rl_stepper_family(const rl_stepper *s)
{
    return &s->f;
}

rl_status rl_stepper_status(const rl_stepper *s, rl_err *err)
{
    if (s->err.status != RL_OK && err)
        *err = s->err;
    return s->err.status;
}

void rl_stepper_status_merge(const rl_stepper *s, rl_err *acc)
{
    if (!s || s->err.status == RL_OK)
        return;
    if (acc->status == RL_OK || s->err.status < acc->status ||
        (s->err.status == acc->status && strcmp(s->err.msg, acc->msg) < 0))
        *acc = s->err;
}

/* A failed draw leaves a NaN step, so that nothing computed from it passes
 * for a number (the failure itself is in s->err). */
static void draw_failed(rl_stepper *s)
{
    const int d = s->f.d;
    if (s->phi)
        for (int b = 0; b < d / 2; b++)
            s->phi[b] = NAN;
    if (s->w)
        for (int i = 0; i < d; i++)
            s->w[i] = NAN;
    if (s->M) {
        for (long i = 0; i < (long)d * d; i++)
            s->M[i] = NAN;
        s->identity = 0;
    }
}

const double *rl_stepper_angles(const rl_stepper *s)
{
    return s->phi;
}

/* exp(sigma A) for A skew-symmetric with N(0,1) entries above the diagonal.
 * H = iA is Hermitian, H = V diag(lambda) V^H with real lambda, so
 * exp(sigma A) = exp(-i sigma H) = V diag(exp(-i sigma lambda)) V^H, which is
 * orthogonal to rounding (V unitary) at any sigma, unlike a truncated series. */
static rl_status draw_brownian(rl_stepper *s, gsl_rng *r, rl_err *err)
{
    const int d = s->f.d;
    lapack_complex_double *V = s->zv;
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
        lapack_complex_double e = cexp(-I * s->f.sigma * s->eig[j]);
        for (int i = 0; i < d; i++)
            s->zt[(long)j * d + i] = V[(long)j * d + i] * e;
    }
    /* exp(sigma A) = Re(T V^H); column-major product, read back row-major */
    const lapack_complex_double one = 1, zero = 0;
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, d, d, d, &one, s->zt, d, V, d, &zero,
                s->zo, d);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            s->M[(long)i * d + j] = creal(s->zo[(long)j * d + i]);
    return RL_OK;
}

void rl_stepper_draw(rl_stepper *s, gsl_rng *r, int token)
{
    const rl_family *f = &s->f;
    const int d = f->d, h = d / 2;
    /* a failure after the first one is recorded in a scratch rl_err */
    rl_err scratch, *err = s->err.status == RL_OK ? &s->err : &scratch;
    rl_status st = RL_OK;
    switch (f->kind) {
    case RL_FAM_HAAR:
    case RL_FAM_HAAR_SO:
        st = rl_haar_draw(s->haar, r, f->kind == RL_FAM_HAAR_SO, s->M, err);
        s->identity = 0;
        break;
    case RL_FAM_LAZY_HAAR:
        s->identity = !(gsl_rng_uniform(r) < f->p);
        if (!s->identity)
            st = rl_haar_draw(s->haar, r, 0, s->M, err);
        break;
    case RL_FAM_SO2:
        for (int b = 0; b < h; b++)
            s->phi[b] = rl_so2_draw_angle(r, f->law, s->omega[b]);
        break;
    case RL_FAM_TOKEN_SO2:
        if (token < 0 || token >= f->vocab) {
            st = rl_fail(err, RL_EINPUT, "token id %d is outside the angle table's vocabulary of %d",
                         token, f->vocab);
            break;
        }
        memcpy(s->phi, f->table + (long)token * h, sizeof(double) * h);
        break;
    case RL_FAM_HOUSEHOLDER:
    case RL_FAM_PATH:
        rl_unit_vector(r, d, s->w);
        break;
    case RL_FAM_BROWNIAN:
        st = draw_brownian(s, r, err);
        s->identity = 0;
        break;
    default:
        break;
    }
    if (st != RL_OK)
        draw_failed(s);
}

void rl_stepper_apply(rl_stepper *s, int transpose, double *X, int nvec)
{
    const rl_family *f = &s->f;
    const int d = f->d;
    if (rl_family_is_so2(f)) {
        rl_so2_rotate(d, s->phi, transpose ? -1 : 1, X, nvec);
    } else if (f->kind == RL_FAM_HOUSEHOLDER || f->kind == RL_FAM_PATH) {
        /* x <- x - beta w (w^T x); symmetric, so the transpose is the same */
        const double beta = f->kind == RL_FAM_PATH ? f->beta : 2.0;
        for (int v = 0; v < nvec; v++) {
            double *x = X + (long)v * d;
            double dot = 0;
            for (int i = 0; i < d; i++)
                dot += s->w[i] * x[i];
            dot *= beta;
            for (int i = 0; i < d; i++)
                x[i] -= dot * s->w[i];
        }
    } else if (!s->identity) {
        /* rows of X are vectors: X <- X M^T applies M, X <- X M applies M^T */
        for (int off = 0; off < nvec; off += s->cap) {
            int m = nvec - off < s->cap ? nvec - off : s->cap;
            double *Xb = X + (long)off * d;
            cblas_dgemm(CblasRowMajor, CblasNoTrans, transpose ? CblasNoTrans : CblasTrans, m, d, d,
                        1.0, Xb, d, s->M, d, 0.0, s->tmp, d);
            memcpy(Xb, s->tmp, sizeof(double) * (size_t)m * d);
        }
    }
}

void rl_stepper_matrix(const rl_stepper *s, double *M)
{
    const rl_family *f = &s->f;
    const int d = f->d, h = d / 2;
    if (is_dense(f)) {
        memcpy(M, s->M, sizeof(double) * (size_t)d * d);
        if (s->identity) {
            memset(M, 0, sizeof(double) * (size_t)d * d);
            for (int i = 0; i < d; i++)
                M[(long)i * d + i] = 1.0;
        }
        return;
    }
    memset(M, 0, sizeof(double) * (size_t)d * d);
    if (rl_family_is_so2(f)) {
        for (int b = 0; b < h; b++) {
            double c = cos(s->phi[b]), sn = sin(s->phi[b]);
            M[(long)b * d + b] = c;
            M[(long)b * d + b + h] = -sn;
            M[(long)(b + h) * d + b] = sn;
            M[(long)(b + h) * d + b + h] = c;
        }
    } else {
        const double beta = f->kind == RL_FAM_PATH ? f->beta : 2.0;
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                M[(long)i * d + j] = (i == j) - beta * s->w[i] * s->w[j];
    }
}

void rl_so2_route_angles(rl_stepper *s, gsl_rng *r, long n, const int *tokens, double *phi)
{
    const int h = s->f.d / 2;
    double comp[h];
    for (int b = 0; b < h; b++)
        phi[b] = comp[b] = 0.0;
    for (long t = 0; t < n; t++) {
        rl_stepper_draw(s, r, tokens ? tokens[t] : 0);
        for (int b = 0; b < h; b++)
            rl_sum_add(&phi[b], &comp[b], s->phi[b]);
    }
    for (int b = 0; b < h; b++)
        phi[b] = rl_angle_reduce(phi[b] + comp[b]);
}

void rl_transport(rl_stepper *s, gsl_rng *r, long n, const int *tokens, double *X, int nvec)
{
    if (rl_family_is_so2(&s->f)) {
        const int h = s->f.d / 2;
        double phi[h];
        rl_so2_route_angles(s, r, n, tokens, phi);
        rl_so2_rotate(s->f.d, phi, 1, X, nvec);
        return;
    }
    for (long t = 0; t < n; t++) {
        rl_stepper_draw(s, r, tokens ? tokens[t] : 0);
        rl_stepper_apply(s, 0, X, nvec);
    }
}
