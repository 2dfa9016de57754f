/* scoretails.c: aligned scores after a route and their tails (scoretails.h). */
#include "scoretails.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../par/par.h"
#include "../core/util.h"
#include "../core/streams.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"
#include "chain.h"
#include "so2score.h"

const char *const rl_st_cfg_name[RL_NCFG] = { "spread", "low-quarter" };

void rl_st_cfg_weights(int cfg, int d, double *a)
{
    const int h = d / 2, low = h / 4 > 0 ? h / 4 : 1;
    for (int b = 0; b < h; b++)
        a[b] = cfg == RL_CFG_SPREAD ? 1.0 / h : (b >= h - low ? 1.0 / low : 0.0);
}

static double dot(const double *a, const double *b, int d)
{
    double s = 0;
    for (int i = 0; i < d; i++)
        s += a[i] * b[i];
    return s;
}

/* Plain loops rather than LAPACK: a threaded BLAS outside a parallel region
 * would round differently for different --threads. */
double *rl_st_queries(uint64_t seed, int d, int m)
{
    double *Q = rl_xmalloc(sizeof(double) * m * d);
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed, rl_stream_key(RL_STREAM_TAIL_QUERIES, (uint64_t)d));
    for (int i = 0; i < m; i++) {
        double *x = Q + (long)i * d;
        for (int k = 0; k < d; k++)
            x[k] = rl_normal(r);
        for (int pass = 0; pass < 2; pass++) /* twice: orthogonal to rounding */
            for (int j = 0; j < i; j++) {
                const double *y = Q + (long)j * d;
                double c = dot(x, y, d);
                for (int k = 0; k < d; k++)
                    x[k] -= c * y[k];
            }
        double n = sqrt(dot(x, x, d));
        for (int k = 0; k < d; k++)
            x[k] /= n;
    }
    gsl_rng_free(r);
    return Q;
}

void rl_st_free(rl_st_cell *c)
{
    rl_tails_free(c->abs);
    rl_tails_free(c->cen);
    rl_tails_free(c->dir);
    for (int k = 0; k < RL_NCFG; k++) {
        rl_tails_free(c->cfg_abs[k]);
        rl_tails_free(c->cfg_cen[k]);
        free(c->cfg_s[k]);
    }
    free(c->mean); /* sq and nrm2 live in the same block */
    free(c->Es);
}

static void gather_tails(rl_tails *T, rl_err *err)
{
    if (err->status == RL_OK && T->nt > 0)
        rl_par_gather(T->cnt, T->reps, sizeof(unsigned short) * T->nt, err);
}

/* The per-replicate results of all ranks' blocks, in replicate order. */
static void gather_reps(rl_st_cell *c, int so2, rl_err *err)
{
    gather_tails(c->abs, err);
    gather_tails(c->dir, err);
    for (int a = 0; a < 3 && err->status == RL_OK; a++) /* mean, sq, nrm2 */
        rl_par_gather(c->mean + a * c->reps, c->reps, sizeof(double), err);
    if (!so2)
        return;
    gather_tails(c->cen, err);
    for (int k = 0; k < RL_NCFG; k++) {
        gather_tails(c->cfg_abs[k], err);
        gather_tails(c->cfg_cen[k], err);
        if (err->status == RL_OK)
            rl_par_gather(c->cfg_s[k], c->reps, sizeof(double), err);
    }
}

rl_status rl_st_run(const rl_st_spec *sp, const double *t, int nt, long reps, int m, const double *Q,
                    uint64_t seed, uint64_t tag, rl_st_cell *c, rl_err *err)
{
    const int d = sp->f.d, h = d / 2, so2 = sp->kind == RL_ST_SO2;
    memset(c, 0, sizeof *c);
    if (nt > RL_ST_MAXT)
        return rl_fail(err, RL_EINPUT, "scoretails: at most %d thresholds, not %d", RL_ST_MAXT, nt);
    if (m > 65535)
        return rl_fail(err, RL_EINPUT, "scoretails: at most 65535 queries per route, not %d", m);
    c->reps = reps;
    c->m = m;
    c->nt = nt;
    memcpy(c->t, t, sizeof(double) * nt);
    rl_tails_alloc(c->t, nt, reps, m, &c->abs, NULL); /* m <= 65535: checked above */
    rl_tails_alloc(c->t, nt, reps, m, &c->dir, NULL); /* m <= 65535: checked above */
    c->mean = rl_xcalloc(3 * (size_t)reps, sizeof(double));
    c->sq = c->mean + reps;
    c->nrm2 = c->mean + 2 * reps;
    double *A = NULL, *W = NULL; /* m x h block weights of the queries; RL_NCFG x h of the configurations */
    if (so2) {
        rl_tails_alloc(c->t, nt, reps, m, &c->cen, NULL); /* m <= 65535: checked above */
        A = rl_xmalloc(sizeof(double) * m * h);
        W = rl_xmalloc(sizeof(double) * RL_NCFG * h);
        c->Es = rl_xmalloc(sizeof(double) * m);
        for (int i = 0; i < m; i++) {
            rl_so2score_weights(d, Q + (long)i * d, A + (long)i * h);
            c->Es[i] = rl_so2score_mean(&sp->f, A + (long)i * h, sp->n);
        }
        for (int k = 0; k < RL_NCFG; k++) {
            rl_st_cfg_weights(k, d, W + (long)k * h);
            c->Ecfg[k] = rl_so2score_mean(&sp->f, W + (long)k * h, sp->n);
            rl_tails_alloc(c->t, nt, reps, 1, &c->cfg_abs[k], NULL);
            rl_tails_alloc(c->t, nt, reps, 1, &c->cfg_cen[k], NULL);
            c->cfg_s[k] = rl_xmalloc(sizeof(double) * reps);
        }
    }
    rl_err fail = { RL_OK, "" }; /* the threads' failed draws, merged */
    long lo, hi; /* this rank's replicates (core/par.h); the others' are gathered below */
    rl_par_range(reps, &lo, &hi);
#pragma omp parallel
    {
        gsl_rng *r = rl_rng_alloc();
        rl_chain *ch = sp->kind == RL_ST_CHAIN ? rl_chain_alloc(&sp->f, m) : NULL;
        rl_stepper *st = so2 ? rl_stepper_alloc(&sp->f, 1) : NULL;
        double *s = rl_xmalloc(sizeof(double) * m), *sc = rl_xmalloc(sizeof(double) * m);
        double *sn = rl_xmalloc(sizeof(double) * m), *u = rl_xmalloc(sizeof(double) * d);
        double *cs = rl_xmalloc(sizeof(double) * h), *phi = rl_xmalloc(sizeof(double) * h);
#pragma omp for schedule(dynamic)
        for (long k = lo; k < hi; k++) {
            rl_rng_stream(r, seed, rl_stream_key(tag, (uint64_t)k));
            double sm = 0, sq = 0, nn = 0;
            if (so2) {
                rl_so2_route_angles(st, r, sp->n, NULL, phi);
                for (int b = 0; b < h; b++)
                    cs[b] = cos(phi[b]);
                for (int i = 0; i < m; i++) {
                    s[i] = sn[i] = dot(A + (long)i * h, cs, h); /* sum_b a_b cos Phi_b */
                    sc[i] = s[i] - c->Es[i];
                }
                for (int g = 0; g < RL_NCFG; g++) {
                    double v = dot(W + (long)g * h, cs, h), vc = v - c->Ecfg[g];
                    c->cfg_s[g][k] = v;
                    rl_tails_add(c->cfg_abs[g], k, &v, 1);
                    rl_tails_add(c->cfg_cen[g], k, &vc, 1);
                }
                rl_tails_add(c->cen, k, sc, m);
                nn = m; /* orthogonal: |P q| = 1 */
            } else if (sp->kind == RL_ST_SPHERE) {
                /* P k uniform on the sphere whatever k (exact for Haar P) */
                for (int i = 0; i < m; i++) {
                    rl_unit_vector(r, d, u);
                    s[i] = sn[i] = dot(Q + (long)i * d, u, d);
                }
                nn = m;
            } else {
                rl_chain_reset(ch, Q);
                for (long j = 0; j < sp->n; j++)
                    rl_chain_step(ch, r, 0);
                /* rows are P^T q_i: the score q_i^T P q_i = <P^T q_i, q_i>, and
                 * (s, |P^T q|) has the law of (s, |P q|): the product of i.i.d.
                 * steps in reverse order has the law of the product, and each
                 * step's law is invariant under transposition (Householder and
                 * PaTH steps are symmetric; Haar, lazy-Haar, Brownian laws are
                 * invariant under M -> M^T) */
                const double *rows = rl_chain_rows(ch);
                for (int i = 0; i < m; i++) {
                    const double *x = rows + (long)i * d;
                    double n2 = dot(x, x, d);
                    s[i] = dot(x, Q + (long)i * d, d);
                    sn[i] = n2 > 0 ? s[i] / sqrt(n2) : 0;
                    nn += n2;
                }
            }
            for (int i = 0; i < m; i++) {
                sm += s[i];
                sq += s[i] * s[i];
            }
            c->mean[k] = sm / m;
            c->sq[k] = sq / m;
            c->nrm2[k] = nn / m;
            rl_tails_add(c->abs, k, s, m);
            rl_tails_add(c->dir, k, sn, m);
        }
        free(s);
        free(sc);
        free(sn);
        free(u);
        free(cs);
        free(phi);
#pragma omp critical(rl_st_fail)
        {
            rl_chain_status_merge(ch, &fail);
            rl_stepper_status_merge(st, &fail);
        }
        rl_chain_free(ch);
        rl_stepper_free(st);
        gsl_rng_free(r);
    }
    free(A);
    free(W);
    /* every rank stops where one failed; otherwise all hold every replicate */
    fail.status = rl_par_agree(fail.status, &fail);
    if (fail.status == RL_OK)
        gather_reps(c, so2, &fail);
    if (fail.status != RL_OK) { /* no tail of a NaN route passes for a result */
        rl_st_free(c);
        memset(c, 0, sizeof *c);
        if (err)
            *err = fail;
        return fail.status;
    }
    return RL_OK;
}
