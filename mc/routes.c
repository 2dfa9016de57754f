/* routes.c: the route Monte Carlo behind `routelab mixing`. */
#include "routes.h"

#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"
#include "sweep.h"

#define CHUNK 16 /* replicates per work item: the fixed unit of summation */

long rl_route_grid_cap(long dense_to, int per_octave)
{
    return dense_to + 64L * per_octave + 8;
}

int rl_route_grid_fill(long nmax, long dense_to, int per_octave, long *g)
{
    long cap = rl_route_grid_cap(dense_to, per_octave), k = 0;
    for (long n = 1; n <= nmax && n <= dense_to; n++)
        g[k++] = n;
    double x = dense_to > 0 ? (double)dense_to : 1.0;
    while (k < cap - 1) {
        x *= pow(2.0, 1.0 / per_octave);
        /* compared as a double first: past LONG_MAX lround has no value (it
         * gave LONG_MIN, and the loop never ended at nmax = LONG_MAX) */
        if (x > (double)nmax || x >= 9.2e18)
            break;
        long n = lround(x);
        if (n > nmax)
            break;
        if (k == 0 || n > g[k - 1])
            g[k++] = n;
    }
    if (k == 0 || g[k - 1] != nmax)
        g[k++] = nmax;
    return (int)k;
}

long *rl_route_grid(long nmax, long dense_to, int per_octave, int *ng)
{
    long *g = rl_xmalloc(sizeof(long) * rl_route_grid_cap(dense_to, per_octave));
    *ng = rl_route_grid_fill(nmax, dense_to, per_octave, g);
    return g;
}

/* Sums over the routes of one chunk, per grid point (the matrix and block
 * means); the scalar statistics are kept per route (NSCAL per grid point)
 * and reduced by base/core/stats. */
typedef struct {
    double *mat;                              /* ng * d * d (dense families) */
    double *re, *im, *ab2;                    /* ng * nb (SO(2)) */
} sums;

enum { SC_TR, SC_COH, SC_SQ, NSCAL }; /* tr(P)/d, q^T P q, (q^T P q)^2 */

/* Chunk c's sums inside two blocks shared by all chunks (mat_all: nchunks x
 * ng d d, re_all: nchunks x 3 ng nb), so that the chunks of the other ranks
 * are gathered whole (mc/sweep.h). */
static void sums_at(sums *s, long c, int ng, int d, int nb, double *mat_all, double *re_all)
{
    s->mat = mat_all ? mat_all + c * ng * d * d : NULL;
    s->re = nb ? re_all + c * 3 * ng * nb : NULL;
    s->im = nb ? s->re + (size_t)ng * nb : NULL;
    s->ab2 = nb ? s->re + 2 * (size_t)ng * nb : NULL;
}

static void sums_add(sums *dst, const sums *src, int ng, int d, int nb)
{
    if (dst->mat)
        for (long i = 0; i < (long)ng * d * d; i++)
            dst->mat[i] += src->mat[i];
    if (nb)
        for (long i = 0; i < 3L * ng * nb; i++)
            dst->re[i] += src->re[i];
}

/* Record the scalar statistics of one route at grid point g (sc: the
 * route's ng x NSCAL values). */
static void record(double *sc, int g, double tr, double coh)
{
    sc[g * NSCAL + SC_TR] = tr;
    sc[g * NSCAL + SC_COH] = coh;
    sc[g * NSCAL + SC_SQ] = coh * coh;
}

/* One SO(2) route: angles summed per block; at each grid length the block
 * phases give E[e^{i Phi_b}] and, for a unit q with block weights
 * w_b = q_b^2 + q_{b+h}^2, q^T P q = sum_b w_b cos Phi_b (x^T R(phi) x = |x|^2 cos phi). */
static rl_status route_so2(rl_stepper *st, gsl_rng *r, const long *grid, int ng, int nb, const double *w,
                           const int *tok, sums *s, double *sc)
{
    double phi[nb], comp[nb];
    for (int b = 0; b < nb; b++)
        phi[b] = comp[b] = 0;
    long t = 0;
    for (int g = 0; g < ng; g++) {
        for (; t < grid[g]; t++) {
            if ((t & 0x3ff) == 0 && rl_cancelled())
                return RL_ECANCEL;
            rl_stepper_draw(st, r, tok ? tok[t] : 0);
            const double *th = rl_stepper_angles(st);
            for (int b = 0; b < nb; b++)
                rl_sum_add(&phi[b], &comp[b], th[b]);
        }
        double coh = 0, tr = 0;
        for (int b = 0; b < nb; b++) {
            double sn, c;
            sincos(rl_angle_reduce(phi[b] + comp[b]), &sn, &c);
            s->re[(long)g * nb + b] += c;
            s->im[(long)g * nb + b] += sn;
            s->ab2[(long)g * nb + b] += 1.0; /* |e^{i Phi}|^2, for the SE */
            coh += w[b] * c;
            tr += c;
        }
        record(sc, g, tr / nb, coh);
    }
    return RL_OK;
}

/* One route of any other family: X = P_n^T tracked as d row vectors
 * (apply() maps rows x to M x, and (M P)^T = P^T M^T). */
static rl_status route_dense(rl_stepper *st, gsl_rng *r, const long *grid, int ng, int d, const double *q,
                             double *X, double *qx, sums *s, double *sc)
{
    memset(X, 0, sizeof(double) * d * d);
    for (int i = 0; i < d; i++)
        X[(long)i * d + i] = 1.0;
    long t = 0;
    for (int g = 0; g < ng; g++) {
        for (; t < grid[g]; t++) {
            if ((t & 0x3ff) == 0 && rl_cancelled())
                return RL_ECANCEL;
            rl_stepper_draw(st, r, 0);
            rl_stepper_apply(st, 0, X, d);
        }
        double tr = 0, coh = 0;
        for (int i = 0; i < d; i++) {
            tr += X[(long)i * d + i];
            qx[i] = 0;
        }
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++)
                qx[j] += q[i] * X[(long)i * d + j];
        for (int j = 0; j < d; j++)
            coh += qx[j] * q[j];
        double *m = s->mat + (long)g * d * d;
        for (long i = 0; i < (long)d * d; i++)
            m[i] += X[i];
        record(sc, g, tr / d, coh);
    }
    return RL_OK;
}

/* ||A||_op of a d x d matrix (largest singular value); B (d x d) and sv (d):
 * the caller's scratch. */
static double opnorm(const double *A, int d, double *B, double *sv)
{
    memcpy(B, A, sizeof(double) * d * d);
    if (LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'N', d, d, B, d, sv, NULL, d, NULL, d) == 0)
        return sv[0];
    return NAN;
}

/* One sweep's fixed inputs (mc/sweep.h): the items are the chunks c, each
 * adding its routes into part[c] and their scalars into sc. */
typedef struct {
    const rl_family *f;
    const long *grid;
    int ng, d, so2, nb;
    long reps, ntok, nmax;
    unsigned long seed, tag;
    const int *tokens;
    sums *part;
    double *sc;
} rt_ctx;

/* A thread's stepper, RNG, query, block weights and route scratch. */
typedef struct {
    rl_stepper *st;
    gsl_rng *r;
    double *q, *w, *X, *qx;
} rt_ws;

static void rt_free(void *ctx, void *ws);

static rl_status rt_alloc(void *ctx, void **ws, rl_err *err)
{
    const rt_ctx *x = ctx;
    const int d = x->d;
    rt_ws *w = rl_alloc_array(1, sizeof *w, err);
    if (!w)
        return RL_ENOMEM;
    w->st = rl_stepper_alloc(x->f, d);
    w->r = rl_rng_alloc();
    w->q = rl_alloc(sizeof(double) * d, err);
    w->w = rl_alloc(sizeof(double) * (x->nb + 1), err);
    w->X = x->so2 ? NULL : rl_alloc(sizeof(double) * d * d, err);
    w->qx = rl_alloc(sizeof(double) * d, err);
    if (!w->st || !w->r || !w->q || !w->w || (!x->so2 && !w->X) || !w->qx) {
        rt_free(ctx, w);
        return rl_fail(err, RL_ENOMEM, "routes: out of memory for a thread's stepper and scratch");
    }
    *ws = w;
    return RL_OK;
}

static void rt_free(void *ctx, void *ws)
{
    rt_ws *w = ws;
    (void)ctx;
    if (!w)
        return;
    free(w->q);
    free(w->w);
    free(w->X);
    free(w->qx);
    if (w->r)
        gsl_rng_free(w->r);
    rl_stepper_free(w->st);
    free(w);
}

/* Chunk c: routes k = c CHUNK .. (c + 1) CHUNK - 1 (below reps), each on its
 * own stream, from a uniform unit query (and, for a text, a uniform start).
 * RL_ECANCEL when the caller asked to stop (read every 1024 steps: one
 * route can be long). */
static rl_status rt_item(void *ctx, void *ws, long c, rl_err *err)
{
    const rt_ctx *x = ctx;
    rt_ws *w = ws;
    const int d = x->d, nb = x->nb, ng = x->ng;
    for (long k = c * CHUNK; k < x->reps && k < (c + 1) * CHUNK; k++) {
        rl_rng_stream(w->r, x->seed, rl_stream_key(x->tag, (uint64_t)k));
        rl_unit_vector(w->r, d, w->q);
        if (x->so2) {
            for (int b = 0; b < nb; b++)
                w->w[b] = w->q[b] * w->q[b] + w->q[b + nb] * w->q[b + nb];
            const int *tok = NULL;
            if (x->tokens)
                tok = x->tokens + (long)(gsl_rng_uniform(w->r) * (double)(x->ntok - x->nmax + 1));
            if (route_so2(w->st, w->r, x->grid, ng, nb, w->w, tok, &x->part[c], x->sc + k * ng * NSCAL) != RL_OK)
                return rl_fail(err, RL_ECANCEL, "cancelled");
        } else if (route_dense(w->st, w->r, x->grid, ng, d, w->q, w->X, w->qx, &x->part[c],
                               x->sc + k * ng * NSCAL) != RL_OK) {
            return rl_fail(err, RL_ECANCEL, "cancelled");
        }
    }
    return rl_stepper_status(w->st, err);
}

static const rl_mc_sweep_fn rt_sweep = { rt_alloc, rt_free, rt_item, 0 };

/* The statistics' arrays of *o for ng grid points and nb blocks (NULL
 * members when memory runs out: rl_route_stats_free frees the rest). */
static rl_route_stats *stats_alloc(const long *grid, int ng, long reps, int nb, rl_err *err)
{
    rl_route_stats *o = rl_alloc_array(1, sizeof *o, err);
    if (!o)
        return NULL;
    o->ng = ng;
    o->reps = reps;
    o->nb = nb;
    o->n = rl_alloc(sizeof(long) * ng, err);
    o->tr = rl_alloc(sizeof(double) * 7 * ng, err);
    if (nb) {
        o->chi = rl_alloc(sizeof(double complex) * ng * nb, err);
        o->chi_se = rl_alloc(sizeof(double) * ng * nb, err);
    }
    if (!o->n || !o->tr || (nb && (!o->chi || !o->chi_se))) {
        rl_route_stats_free(o);
        return NULL;
    }
    memcpy(o->n, grid, sizeof(long) * ng);
    o->tr_se = o->tr + ng;
    o->op = o->tr + 2 * ng;
    o->coh = o->tr + 3 * ng;
    o->coh_se = o->tr + 4 * ng;
    o->sq = o->tr + 5 * ng;
    o->sq_se = o->tr + 6 * ng;
    return o;
}

rl_status rl_routes_run(const rl_family *f, const long *grid, int ng, long reps, unsigned long seed,
                        unsigned long tag, const int *tokens, long ntok, rl_route_stats **out, rl_err *err)
{
    *out = NULL;
    const int d = f->d, so2 = rl_family_is_so2(f), nb = so2 ? d / 2 : 0;
    const long nmax = grid[ng - 1], nchunks = (reps + CHUNK - 1) / CHUNK;
    rl_status st = RL_ENOMEM;
    rl_route_stats *o = NULL;
    double *mean = NULL, *B = NULL, *sv = NULL, *mat_all = NULL, *re_all = NULL;
    sums *part = rl_alloc_array(nchunks, sizeof(sums), err);
    /* per route, whole chunks (the last one padded) */
    double *sc = rl_alloc_array((size_t)nchunks * CHUNK * ng * NSCAL, sizeof(double), err);
    if (!part || !sc)
        goto done;
    if (!so2 && !(mat_all = rl_alloc_array((size_t)nchunks * ng * d * d, sizeof(double), err)))
        goto done;
    if (nb && !(re_all = rl_alloc_array((size_t)nchunks * 3 * ng * nb, sizeof(double), err)))
        goto done;
    for (long c = 0; c < nchunks; c++)
        sums_at(&part[c], c, ng, d, nb, mat_all, re_all);
    rt_ctx x = { f, grid, ng, d, so2, nb, reps, ntok, nmax, seed, tag, tokens, part, sc };
    const rl_mc_gather g3[] = {
        { sc, sizeof(double) * CHUNK * ng * NSCAL },
        { mat_all, sizeof(double) * ng * d * d },
        { re_all, sizeof(double) * 3 * ng * nb },
    };
    if ((st = rl_mc_sweep(nchunks, &rt_sweep, &x, g3, 3, err)) != RL_OK)
        goto done;
    for (long c = 1; c < nchunks; c++)
        sums_add(&part[0], &part[c], ng, d, nb);
    sums *S = &part[0];

    st = RL_ENOMEM;
    if (!(o = stats_alloc(grid, ng, reps, nb, err)))
        goto done;
    if (!so2 && (!(mean = rl_alloc(sizeof(double) * d * d, err)) || !(B = rl_alloc(sizeof(double) * d * d, err))
                 || !(sv = rl_alloc(sizeof(double) * d, err))))
        goto done;
    st = RL_OK;
    for (int g = 0; g < ng; g++) {
        if (!so2 && rl_cancelled()) { /* an SVD per grid point: long for a large d */
            st = rl_fail(err, RL_ECANCEL, "cancelled");
            goto done;
        }
        const long stride = (long)ng * NSCAL;
        rl_mean_se(sc + g * NSCAL + SC_TR, reps, stride, &o->tr[g], &o->tr_se[g]);
        rl_mean_se(sc + g * NSCAL + SC_COH, reps, stride, &o->coh[g], &o->coh_se[g]);
        rl_mean_se(sc + g * NSCAL + SC_SQ, reps, stride, &o->sq[g], &o->sq_se[g]);
        if (so2) {
            double best = 0;
            for (int b = 0; b < nb; b++) {
                long i = (long)g * nb + b;
                double complex m = (S->re[i] + I * S->im[i]) / reps;
                o->chi[i] = m;
                /* Var(cos) + Var(sin) = E|z|^2 - |E z|^2 bounds the variance of
                 * the modulus of the mean (to first order) */
                double v = S->ab2[i] / reps - creal(m * conj(m));
                o->chi_se[i] = sqrt((v > 0 ? v : 0) / (reps > 1 ? reps - 1 : 1));
                best = fmax(best, cabs(m));
            }
            o->op[g] = best; /* block-diagonal: the norm is the largest block's */
        } else {
            for (long i = 0; i < (long)d * d; i++)
                mean[i] = S->mat[(long)g * d * d + i] / reps;
            o->op[g] = opnorm(mean, d, B, sv);
        }
    }
    *out = o;
    o = NULL;
done:
    rl_route_stats_free(o);
    free(mean);
    free(B);
    free(sv);
    free(sc);
    free(mat_all);
    free(re_all);
    free(part);
    return st;
}

void rl_route_stats_free(rl_route_stats *s)
{
    if (!s)
        return;
    free(s->n);
    free(s->tr);
    free(s->chi);
    free(s->chi_se);
    free(s);
}
