/* chain.c: walking the routes back from a query. */
#include "chain.h"

#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"

struct rl_chain {
    rl_family f;
    int nvec, so2, dirty;
    long delta;
    rl_stepper *st;
    double *x0;        /* tracked vectors at delta = 0 (SO(2)) */
    double *rows;      /* current P_delta^T x_k */
    double *phi, *comp; /* SO(2): accumulated angles and their compensation */
};

rl_chain *rl_chain_alloc(const rl_family *f, int nvec)
{
    rl_chain *c = rl_alloc_array(1, sizeof *c, NULL);
    if (!c)
        return NULL;
    c->f = *f;
    c->nvec = nvec;
    c->so2 = rl_family_is_so2(f);
    c->st = rl_stepper_alloc(f, nvec);
    c->rows = rl_alloc(sizeof(double) * (size_t)nvec * f->d, NULL);
    if (c->so2) {
        c->x0 = rl_alloc(sizeof(double) * (size_t)nvec * f->d, NULL);
        c->phi = rl_alloc_array(f->d, sizeof(double), NULL);
        c->comp = c->phi ? c->phi + f->d / 2 : NULL;
    }
    if (!c->st || !c->rows || (c->so2 && (!c->x0 || !c->phi))) {
        rl_chain_free(c); /* frees what was made; NULL members are skipped */
        return NULL;
    }
    return c;
}

void rl_chain_free(rl_chain *c)
{
    if (!c)
        return;
    rl_stepper_free(c->st);
    free(c->x0);
    free(c->rows);
    free(c->phi);
    free(c);
}

/* The tracked vectors are in place: start the route at delta = 0. */
static void reset_route(rl_chain *c)
{
    const int d = c->f.d;
    if (c->so2) {
        memset(c->phi, 0, sizeof(double) * d);
        memcpy(c->rows, c->x0, sizeof(double) * (size_t)c->nvec * d);
    }
    c->delta = 0;
    c->dirty = 0;
}

void rl_chain_reset(rl_chain *c, const double *X)
{
    memcpy(c->so2 ? c->x0 : c->rows, X, sizeof(double) * (size_t)c->nvec * c->f.d);
    reset_route(c);
}

rl_status rl_chain_reset_identity(rl_chain *c, rl_err *err)
{
    const int d = c->f.d;
    if (c->nvec != d)
        return rl_fail(err, RL_EINPUT, "chain: identity rows need nvec = d (%d), not %d", d, c->nvec);
    double *dst = c->so2 ? c->x0 : c->rows;
    memset(dst, 0, sizeof(double) * (size_t)d * d);
    for (int i = 0; i < d; i++)
        dst[(long)i * d + i] = 1.0;
    reset_route(c);
    return RL_OK;
}

void rl_chain_step(rl_chain *c, gsl_rng *r, int token)
{
    rl_stepper_draw(c->st, r, token);
    if (c->so2) {
        const double *th = rl_stepper_angles(c->st);
        for (int b = 0; b < c->f.d / 2; b++)
            rl_sum_add(&c->phi[b], &c->comp[b], th[b]);
        c->dirty = 1;
    } else {
        rl_stepper_apply(c->st, 1, c->rows, c->nvec); /* rows <- M^T rows */
    }
    c->delta++;
}

rl_status rl_chain_status(const rl_chain *c, rl_err *err)
{
    return rl_stepper_status(c->st, err);
}

/* SO(2): P_delta = R(Phi), so P_delta^T x = R(-Phi) x. */
static void so2_angles(const rl_chain *c, double *phi)
{
    for (int b = 0; b < c->f.d / 2; b++)
        phi[b] = rl_angle_reduce(c->phi[b] + c->comp[b]);
}

const double *rl_chain_rows(rl_chain *c)
{
    if (c->so2 && c->dirty) {
        double phi[c->f.d / 2];
        so2_angles(c, phi);
        memcpy(c->rows, c->x0, sizeof(double) * (size_t)c->nvec * c->f.d);
        rl_so2_rotate(c->f.d, phi, -1, c->rows, c->nvec);
        c->dirty = 0;
    }
    return c->rows;
}

void rl_chain_apply(rl_chain *c, const double *v, double *out)
{
    const int d = c->f.d;
    if (c->so2) {
        double phi[d / 2];
        so2_angles(c, phi);
        memcpy(out, v, sizeof(double) * d);
        rl_so2_rotate(d, phi, 1, out, 1);
        return;
    }
    /* rows are P^T e_k, so (P v)_k = <P^T e_k, v> */
    for (int k = 0; k < d; k++) {
        double s = 0;
        const double *row = c->rows + (long)k * d;
        for (int j = 0; j < d; j++)
            s += row[j] * v[j];
        out[k] = s;
    }
}

long rl_chain_delta(const rl_chain *c)
{
    return c->delta;
}
