/* steps.c: the stepper -- a family's workspace and current step -- and the
 * shared kernels that apply a step by its form (family_ops.h).  What is
 * drawn is each family's own (sampling/fam_*.c). */
#include "steps.h"
#include "family_ops.h"
#include "so2.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

struct rl_stepper {
    rl_family f;
    const rl_family_ops *ops;
    int cap;
    rl_step step;  /* the current step, in the family's form */
    double *tmp;   /* cap*d scratch for dense application */
    void *ws;      /* the family's own workspace */
    rl_err err;    /* the first failed draw (err.status RL_OK: none) */
};

rl_stepper *rl_stepper_alloc(const rl_family *f, int cap)
{
    rl_stepper *s = rl_alloc_array(1, sizeof *s, NULL);
    if (!s)
        return NULL;
    const int d = f->d, h = d / 2;
    s->f = *f;
    s->ops = rl_family_ops_of(f);
    s->cap = cap < 1 ? 1 : cap;
    switch (s->ops->form) {
    case RL_STEP_SO2:
        if (!(s->step.phi = rl_alloc_array(h > 0 ? (size_t)h : 1, sizeof(double), NULL)))
            goto fail;
        break;
    case RL_STEP_REFLECT:
        if (!(s->step.w = rl_alloc_array((size_t)d, sizeof(double), NULL)))
            goto fail;
        s->step.w[0] = 1.0;
        break;
    case RL_STEP_DENSE:
        if (!(s->step.M = rl_alloc_array((size_t)d * d, sizeof(double), NULL)))
            goto fail;
        for (int i = 0; i < d; i++)
            s->step.M[(long)i * d + i] = 1.0;
        s->step.identity = 1;
        if (!(s->tmp = rl_alloc_array((size_t)s->cap, sizeof(double) * d, NULL)))
            goto fail;
        break;
    }
    /* a family's ws_alloc returns NULL only when memory runs out */
    if (s->ops->ws_alloc && !(s->ws = s->ops->ws_alloc(f)))
        goto fail;
    return s;
fail:
    rl_stepper_free(s);
    return NULL;
}

void rl_stepper_free(rl_stepper *s)
{
    if (!s)
        return;
    if (s->ops->ws_free)
        s->ops->ws_free(s->ws);
    free(s->step.phi);
    free(s->step.w);
    free(s->step.M);
    free(s->tmp);
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

/* A failed draw leaves a NaN step, so that nothing computed from it passes
 * for a number (the failure itself is in s->err). */
static void draw_failed(rl_stepper *s)
{
    const int d = s->f.d;
    if (s->step.phi)
        for (int b = 0; b < d / 2; b++)
            s->step.phi[b] = NAN;
    if (s->step.w)
        for (int i = 0; i < d; i++)
            s->step.w[i] = NAN;
    if (s->step.M) {
        for (long i = 0; i < (long)d * d; i++)
            s->step.M[i] = NAN;
        s->step.identity = 0;
    }
}

const double *rl_stepper_angles(const rl_stepper *s)
{
    return s->step.phi;
}

void rl_stepper_draw(rl_stepper *s, gsl_rng *r, int token)
{
    /* a failure after the first one is recorded in a scratch rl_err */
    rl_err scratch, *err = s->err.status == RL_OK ? &s->err : &scratch;
    if (s->ops->draw(&s->f, s->ws, r, token, &s->step, err) != RL_OK)
        draw_failed(s);
}

void rl_stepper_apply(rl_stepper *s, int transpose, double *X, int nvec)
{
    const int d = s->f.d;
    const rl_step *st = &s->step;
    switch (s->ops->form) {
    case RL_STEP_SO2:
        rl_so2_rotate(d, st->phi, transpose ? -1 : 1, X, nvec);
        break;
    case RL_STEP_REFLECT:
        /* x <- x - beta w (w^T x); symmetric, so the transpose is the same */
        for (int v = 0; v < nvec; v++) {
            double *x = X + (long)v * d;
            double dot = 0;
            for (int i = 0; i < d; i++)
                dot += st->w[i] * x[i];
            dot *= st->beta;
            for (int i = 0; i < d; i++)
                x[i] -= dot * st->w[i];
        }
        break;
    case RL_STEP_DENSE:
        if (st->identity)
            break;
        /* rows of X are vectors: X <- X M^T applies M, X <- X M applies M^T */
        for (int off = 0; off < nvec; off += s->cap) {
            int m = nvec - off < s->cap ? nvec - off : s->cap;
            double *Xb = X + (long)off * d;
            cblas_dgemm(CblasRowMajor, CblasNoTrans, transpose ? CblasNoTrans : CblasTrans, m, d, d,
                        1.0, Xb, d, st->M, d, 0.0, s->tmp, d);
            memcpy(Xb, s->tmp, sizeof(double) * (size_t)m * d);
        }
        break;
    }
}

void rl_stepper_matrix(const rl_stepper *s, double *M)
{
    const int d = s->f.d, h = d / 2;
    const rl_step *st = &s->step;
    if (s->ops->form == RL_STEP_DENSE && !st->identity) {
        memcpy(M, st->M, sizeof(double) * (size_t)d * d);
        return;
    }
    memset(M, 0, sizeof(double) * (size_t)d * d);
    switch (s->ops->form) {
    case RL_STEP_DENSE: /* the identity */
        for (int i = 0; i < d; i++)
            M[(long)i * d + i] = 1.0;
        break;
    case RL_STEP_SO2:
        for (int b = 0; b < h; b++) {
            double c = cos(st->phi[b]), sn = sin(st->phi[b]);
            M[(long)b * d + b] = c;
            M[(long)b * d + b + h] = -sn;
            M[(long)(b + h) * d + b] = sn;
            M[(long)(b + h) * d + b + h] = c;
        }
        break;
    case RL_STEP_REFLECT:
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                M[(long)i * d + j] = (i == j) - st->beta * st->w[i] * st->w[j];
        break;
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
            rl_sum_add(&phi[b], &comp[b], s->step.phi[b]);
    }
    for (int b = 0; b < h; b++)
        phi[b] = rl_angle_reduce(phi[b] + comp[b]);
}

void rl_transport(rl_stepper *s, gsl_rng *r, long n, const int *tokens, double *X, int nvec)
{
    if (s->ops->form == RL_STEP_SO2) {
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
