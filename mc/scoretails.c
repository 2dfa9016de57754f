/* scoretails.c: aligned scores after a route and their tails (scoretails.h). */
#include "scoretails.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../base/core/streams.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"
#include "chain.h"
#include "so2score.h"
#include "sweep.h"

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

/* One sweep's fixed inputs (mc/sweep.h): the items are the routes k. */
typedef struct {
    const rl_st_spec *sp;
    int d, h, m, so2;
    const double *Q, *A, *W; /* the queries; m x h and RL_NCFG x h block weights (SO(2)) */
    uint64_t seed, tag;
    rl_st_cell *c;
} st_ctx;

/* A thread's RNG, chain or stepper, and the scores of one route. */
typedef struct {
    gsl_rng *r;
    rl_chain *ch;
    rl_stepper *st;
    double *s, *sc, *sn, *u, *cs, *phi;
} st_ws;

static void st_free(void *ctx, void *ws);

static rl_status st_alloc(void *ctx, void **ws, rl_err *err)
{
    const st_ctx *x = ctx;
    const int d = x->d, h = x->h, m = x->m;
    st_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    w->r = rl_rng_alloc();
    w->ch = x->sp->kind == RL_ST_CHAIN ? rl_chain_alloc(&x->sp->f, m) : NULL;
    w->st = x->so2 ? rl_stepper_alloc(&x->sp->f, 1) : NULL;
    w->s = rl_alloc(sizeof(double) * m, err);
    w->sc = rl_alloc(sizeof(double) * m, err);
    w->sn = rl_alloc(sizeof(double) * m, err);
    w->u = rl_alloc(sizeof(double) * d, err);
    w->cs = rl_alloc(sizeof(double) * h, err);
    w->phi = rl_alloc(sizeof(double) * h, err);
    if (!w->r || (x->sp->kind == RL_ST_CHAIN && !w->ch) || (x->so2 && !w->st) || !w->s || !w->sc || !w->sn
        || !w->u || !w->cs || !w->phi) {
        st_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "scoretails: out of memory for a thread's route and scores");
    }
    *ws = w;
    return RL_OK;
}

static void st_free(void *ctx, void *ws)
{
    st_ws *w = ws;
    (void)ctx;
    if (!w)
        return;
    free(w->s);
    free(w->sc);
    free(w->sn);
    free(w->u);
    free(w->cs);
    free(w->phi);
    rl_chain_free(w->ch);
    rl_stepper_free(w->st);
    if (w->r)
        gsl_rng_free(w->r);
    free(w);
}

/* SO(2) route k: s_i = sum_b a_{ib} cos Phi_b for the queries and the
 * configurations, and the centred s_i - E s_i. */
static void route_so2(const st_ctx *x, st_ws *w, long k)
{
    rl_st_cell *c = x->c;
    const int h = x->h, m = x->m;
    rl_so2_route_angles(w->st, w->r, x->sp->n, NULL, w->phi);
    for (int b = 0; b < h; b++)
        w->cs[b] = cos(w->phi[b]);
    for (int i = 0; i < m; i++) {
        w->s[i] = w->sn[i] = dot(x->A + (long)i * h, w->cs, h); /* sum_b a_b cos Phi_b */
        w->sc[i] = w->s[i] - c->Es[i];
    }
    for (int g = 0; g < RL_NCFG; g++) {
        double v = dot(x->W + (long)g * h, w->cs, h), vc = v - c->Ecfg[g];
        c->cfg_s[g][k] = v;
        rl_tails_add(c->cfg_abs[g], k, &v, 1);
        rl_tails_add(c->cfg_cen[g], k, &vc, 1);
    }
    rl_tails_add(c->cen, k, w->sc, m);
}

/* A chain's route: the scores q_i^T P q_i and the directional ones; returns
 * sum_i |P^T q_i|^2. */
static double route_chain(const st_ctx *x, st_ws *w)
{
    const int d = x->d, m = x->m;
    double nn = 0;
    rl_chain_reset(w->ch, x->Q);
    for (long j = 0; j < x->sp->n; j++)
        rl_chain_step(w->ch, w->r, 0);
    /* rows are P^T q_i: the score q_i^T P q_i = <P^T q_i, q_i>, and
     * (s, |P^T q|) has the law of (s, |P q|): the product of i.i.d.
     * steps in reverse order has the law of the product, and each
     * step's law is invariant under transposition (Householder and
     * PaTH steps are symmetric; Haar, lazy-Haar, Brownian laws are
     * invariant under M -> M^T) */
    const double *rows = rl_chain_rows(w->ch);
    for (int i = 0; i < m; i++) {
        const double *xr = rows + (long)i * d;
        double n2 = dot(xr, xr, d);
        w->s[i] = dot(xr, x->Q + (long)i * d, d);
        w->sn[i] = n2 > 0 ? w->s[i] / sqrt(n2) : 0;
        nn += n2;
    }
    return nn;
}

/* Route k: its m scores, their mean, mean square and mean |P q|^2, and its
 * tail counts. */
static rl_status st_item(void *ctx, void *ws, long k, rl_err *err)
{
    const st_ctx *x = ctx;
    st_ws *w = ws;
    rl_st_cell *c = x->c;
    const int d = x->d, m = x->m;
    rl_rng_stream(w->r, x->seed, rl_stream_key(x->tag, (uint64_t)k));
    double sm = 0, sq = 0, nn = 0;
    if (x->so2) {
        route_so2(x, w, k);
        nn = m; /* orthogonal: |P q| = 1 */
    } else if (x->sp->kind == RL_ST_SPHERE) {
        /* P k uniform on the sphere whatever k (exact for Haar P) */
        for (int i = 0; i < m; i++) {
            rl_unit_vector(w->r, d, w->u);
            w->s[i] = w->sn[i] = dot(x->Q + (long)i * d, w->u, d);
        }
        nn = m;
    } else {
        nn = route_chain(x, w);
    }
    for (int i = 0; i < m; i++) {
        sm += w->s[i];
        sq += w->s[i] * w->s[i];
    }
    c->mean[k] = sm / m;
    c->sq[k] = sq / m;
    c->nrm2[k] = nn / m;
    rl_tails_add(c->abs, k, w->s, m);
    rl_tails_add(c->dir, k, w->sn, m);
    if (w->ch)
        return rl_chain_status(w->ch, err);
    return w->st ? rl_stepper_status(w->st, err) : RL_OK;
}

static const rl_mc_sweep_fn st_sweep = { st_alloc, st_free, st_item, 0 };

/* The per-replicate results, gathered by the sweep in replicate order. */
static int gather_list(const rl_st_cell *c, int so2, rl_mc_gather *g)
{
    int n = 0;
    const rl_tails *T[3 + 2 * RL_NCFG] = { c->abs, c->dir, so2 ? c->cen : NULL };
    for (int k = 0; k < RL_NCFG && so2; k++) {
        T[3 + 2 * k] = c->cfg_abs[k];
        T[4 + 2 * k] = c->cfg_cen[k];
    }
    for (int a = 0; a < 3 + 2 * RL_NCFG; a++)
        if (T[a] && T[a]->nt > 0)
            g[n++] = (rl_mc_gather){ T[a]->cnt, sizeof(unsigned short) * T[a]->nt };
    for (int a = 0; a < 3; a++) /* mean, sq, nrm2 */
        g[n++] = (rl_mc_gather){ c->mean + a * c->reps, sizeof(double) };
    for (int k = 0; k < RL_NCFG && so2; k++)
        g[n++] = (rl_mc_gather){ c->cfg_s[k], sizeof(double) };
    return n;
}

/* The cell's arrays, and for SO(2) the queries' and configurations' block
 * weights (*A: m x h, *W: RL_NCFG x h) and the scores' means. */
static void cell_alloc(const rl_st_spec *sp, long reps, int m, const double *Q, rl_st_cell *c, double **A,
                       double **W)
{
    const int d = sp->f.d, h = d / 2, nt = c->nt;
    rl_tails_alloc(c->t, nt, reps, m, &c->abs, NULL); /* m <= 65535: checked by the caller */
    rl_tails_alloc(c->t, nt, reps, m, &c->dir, NULL);
    c->mean = rl_xcalloc(3 * (size_t)reps, sizeof(double));
    c->sq = c->mean + reps;
    c->nrm2 = c->mean + 2 * reps;
    *A = *W = NULL;
    if (sp->kind != RL_ST_SO2)
        return;
    rl_tails_alloc(c->t, nt, reps, m, &c->cen, NULL);
    *A = rl_xmalloc(sizeof(double) * m * h);
    *W = rl_xmalloc(sizeof(double) * RL_NCFG * h);
    c->Es = rl_xmalloc(sizeof(double) * m);
    for (int i = 0; i < m; i++) {
        rl_so2score_weights(d, Q + (long)i * d, *A + (long)i * h);
        c->Es[i] = rl_so2score_mean(&sp->f, *A + (long)i * h, sp->n);
    }
    for (int k = 0; k < RL_NCFG; k++) {
        rl_st_cfg_weights(k, d, *W + (long)k * h);
        c->Ecfg[k] = rl_so2score_mean(&sp->f, *W + (long)k * h, sp->n);
        rl_tails_alloc(c->t, nt, reps, 1, &c->cfg_abs[k], NULL);
        rl_tails_alloc(c->t, nt, reps, 1, &c->cfg_cen[k], NULL);
        c->cfg_s[k] = rl_xmalloc(sizeof(double) * reps);
    }
}

rl_status rl_st_run(const rl_st_spec *sp, const double *t, int nt, long reps, int m, const double *Q,
                    uint64_t seed, uint64_t tag, rl_st_cell *c, rl_err *err)
{
    const int d = sp->f.d, so2 = sp->kind == RL_ST_SO2;
    memset(c, 0, sizeof *c);
    if (nt > RL_ST_MAXT)
        return rl_fail(err, RL_EINPUT, "scoretails: at most %d thresholds, not %d", RL_ST_MAXT, nt);
    if (m > 65535)
        return rl_fail(err, RL_EINPUT, "scoretails: at most 65535 queries per route, not %d", m);
    c->reps = reps;
    c->m = m;
    c->nt = nt;
    memcpy(c->t, t, sizeof(double) * nt);
    double *A, *W;
    cell_alloc(sp, reps, m, Q, c, &A, &W);
    st_ctx x = { sp, d, d / 2, m, so2, Q, A, W, seed, tag, c };
    rl_mc_gather g[3 + 2 * RL_NCFG + 3 + RL_NCFG];
    const int ng = gather_list(c, so2, g);
    rl_status st = rl_mc_sweep(reps, &st_sweep, &x, g, ng, err);
    free(A);
    free(W);
    if (st != RL_OK) { /* no tail of a NaN route passes for a result */
        rl_st_free(c);
        memset(c, 0, sizeof *c);
    }
    return st;
}
