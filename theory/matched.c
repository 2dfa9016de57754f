/* matched.c: the fraction of SO(2) blocks that mix within a length, and the
 * base that matches the study's fractions (docs/theory/claim1-mixing.md#mixing-window for the
 * windows). */
#include "matched.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_roots.h>

#include "../base/core/err.h"
#include "study.h"
#include "theory.h"
#include "../sampling/family.h"

static rl_status check_d(int d, rl_err *err)
{
    if (d < 2 || d > RL_MATCH_MAX_D || d % 2)
        return rl_fail(err, RL_EINPUT, "head dimension must be even, 2 to %d, got %d", RL_MATCH_MAX_D, d);
    return RL_OK;
}

static rl_status check_eps(double eps, rl_err *err)
{
    if (!(eps > 0 && eps < 1))
        return rl_fail(err, RL_EINPUT, "eps must be in (0, 1), got %g", eps);
    return RL_OK;
}

/* W_b(eps) of every block at this base (-1: never), through the family's
 * per-block log norms: log(sin w_b / w_b) without cancellation, so that a
 * window near T comes out exact to the integer (rl_mixing_window_log). */
static void windows(int d, double base, double eps, long *w)
{
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    f.law = RL_ANG_UNIFORM;
    f.base = base;
    f.scale = 1.0;
    double lb[RL_MATCH_MAX_D / 2];
    rl_family_log_mean_norm(&f, NULL, lb);
    for (int b = 0; b < d / 2; b++)
        w[b] = rl_mixing_window_log(lb[b], eps);
}

static int mixes(long w, long len)
{
    return w >= 1 && w <= len;
}

static int count_at(int d, double base, double eps, long len)
{
    long w[RL_MATCH_MAX_D / 2];
    windows(d, base, eps, w);
    int c = 0;
    for (int b = 0; b < d / 2; b++)
        c += mixes(w[b], len);
    return c;
}

rl_status rl_match_count(int d, double base, double eps, long len, int *count, rl_err *err)
{
    RL_TRY(check_d(d, err));
    RL_TRY(check_eps(eps, err));
    if (!(base > 1 && base < INFINITY))
        return rl_fail(err, RL_EINPUT, "base must be finite and > 1, got %g", base);
    if (len < 1)
        return rl_fail(err, RL_EINPUT, "length must be at least 1, got %ld", len);
    *count = count_at(d, base, eps, len);
    return RL_OK;
}

static rl_status check_mult(long ctx, long mult, rl_err *err)
{
    if (ctx < 1 || mult < 1)
        return rl_fail(err, RL_EINPUT, "T and mult must be at least 1, got T = %ld, mult = %ld", ctx, mult);
    if ((double)ctx * (double)mult > RL_MATCH_MAX_LEN)
        return rl_fail(err, RL_EINPUT, "T x mult = %ld x %ld is beyond %g", ctx, mult, RL_MATCH_MAX_LEN);
    return RL_OK;
}

rl_status rl_match_study(double eps, long mult, double *f_ctx, double *f_far, rl_err *err)
{
    const long t = rl_study_lengths[0];
    RL_TRY(check_eps(eps, err));
    RL_TRY(check_mult(t, mult, err));
    const int nb = RL_STUDY_HEAD_DIM / 2;
    *f_ctx = (double)count_at(RL_STUDY_HEAD_DIM, RL_STUDY_BASE, eps, t) / nb;
    *f_far = (double)count_at(RL_STUDY_HEAD_DIM, RL_STUDY_BASE, eps, t * mult) / nb;
    return RL_OK;
}

/* +1 where block b (of par: d, b, eps, len) does not mix within len at base
 * e^u, -1 where it does. */
typedef struct {
    int d, b;
    double eps;
    long len;
} step_par;

static double unmixed(double u, void *params)
{
    const step_par *p = params;
    long w[RL_MATCH_MAX_D / 2];
    windows(p->d, exp(u), p->eps, w);
    return mixes(w[p->b], p->len) ? -1.0 : 1.0;
}

/* The log base at which block b stops mixing within len, or NAN when it
 * mixes at every base of the range or at none.  GSL's bisection on
 * u = log base: mixing is true below the step and false above
 * (rl_match_count), and it runs until lo and hi are adjacent doubles (the
 * midpoint no longer lies strictly between them; at most 200 halvings). */
static double step_of(int d, int b, double eps, long len)
{
    step_par p = { d, b, eps, len };
    double lo = log(RL_MATCH_BASE_MIN), hi = log(RL_MATCH_BASE_MAX);
    if (unmixed(lo, &p) > 0 || unmixed(hi, &p) < 0)
        return NAN;
    gsl_function F = { unmixed, &p };
    rl_gsl_quiet();
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
    if (!s)
        rl_fatal("out of memory (GSL's bisection)"); /* as rl_xmalloc (err.h) */
    gsl_root_fsolver_set(s, &F, lo, hi); /* -1 at lo, +1 at hi: a bracket */
    for (int i = 0; i < 200; i++) {
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        const double mid = 0.5 * (lo + hi); /* the point GSL's bisection evaluates next */
        if (!(mid > lo && mid < hi))
            break;
        gsl_root_fsolver_iterate(s);
    }
    hi = gsl_root_fsolver_x_upper(s);
    gsl_root_fsolver_free(s);
    return hi;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static rl_status check_query(const rl_match_query *q, rl_err *err)
{
    RL_TRY(check_d(q->d, err));
    RL_TRY(check_eps(q->eps, err));
    RL_TRY(check_mult(q->ctx, q->mult, err));
    if (!(q->f_ctx >= 0 && q->f_ctx <= 1 && q->f_far >= 0 && q->f_far <= 1))
        return rl_fail(err, RL_EINPUT, "target fractions must be in [0, 1], got %g and %g", q->f_ctx, q->f_far);
    if (!(q->ref_base > 1 && q->ref_base < INFINITY))
        return rl_fail(err, RL_EINPUT, "reference base must be finite and > 1, got %g", q->ref_base);
    return RL_OK;
}

rl_status rl_match_choose(const rl_match_query *q, rl_match *m, rl_err *err)
{
    RL_TRY(check_query(q, err));
    const int nb = q->d / 2;
    const long far = q->ctx * q->mult;
    /* the steps of both counts, and the ends of the searched range */
    double u[2 * RL_MATCH_MAX_D / 2 + 2];
    int n = 0;
    u[n++] = log(RL_MATCH_BASE_MIN);
    u[n++] = log(RL_MATCH_BASE_MAX);
    for (int b = 1; b < nb; b++) { /* block 0 (omega = 1) has no step */
        double s1 = step_of(q->d, b, q->eps, q->ctx), s2 = step_of(q->d, b, q->eps, far);
        if (!isnan(s1))
            u[n++] = s1;
        if (!isnan(s2))
            u[n++] = s2;
    }
    qsort(u, n, sizeof *u, cmp_double);
    const double r = log(q->ref_base), tol = 1e-9;
    double best_cost = INFINITY, best_dist = INFINITY;
    int found = 0;
    m->ties = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = u[i], z = u[i + 1], mid = 0.5 * (a + z);
        if (!(mid > a && mid < z))
            continue; /* coincident steps: no interval between them */
        int c1 = count_at(q->d, exp(mid), q->eps, q->ctx), c2 = count_at(q->d, exp(mid), q->eps, far);
        double cost = fabs(c1 - nb * q->f_ctx) + fabs(c2 - nb * q->f_far);
        double dist = r < a ? a - r : r > z ? r - z : 0;
        if (cost < best_cost - tol)
            m->ties = 0;
        if (cost <= best_cost + tol)
            m->ties++;
        /* strictly better cost, or the same cost strictly nearer ref (the
         * first of two at equal distance is the lower interval) */
        if (cost < best_cost - tol || (cost <= best_cost + tol && dist < best_dist)) {
            if (cost < best_cost - tol)
                best_cost = cost;
            best_dist = dist;
            m->lo = exp(a);
            m->hi = exp(z);
            m->base = dist == 0 ? q->ref_base : exp(mid);
            m->at_ctx = c1;
            m->at_far = c2;
            m->cost = cost;
            found = 1;
        }
    }
    m->nb = nb;
    if (!found)
        return rl_fail(err, RL_EINTERNAL, "no interval of bases in [%g, %g]", RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX);
    /* the interval's ends are steps found to adjacent doubles: clamp the
     * ends of the range to the exact limits */
    if (m->lo < RL_MATCH_BASE_MIN)
        m->lo = RL_MATCH_BASE_MIN;
    if (m->hi > RL_MATCH_BASE_MAX)
        m->hi = RL_MATCH_BASE_MAX;
    return RL_OK;
}

rl_status rl_match_pick(const int *d, const long *ctx, int n, long mult, double eps, rl_match *out,
                        int *best, rl_err *err)
{
    if (n < 1)
        return rl_fail(err, RL_EINPUT, "no candidates");
    rl_match_query q = { 0, 0, mult, eps, 0, 0, RL_STUDY_BASE };
    RL_TRY(rl_match_study(eps, mult, &q.f_ctx, &q.f_far, err));
    *best = 0;
    for (int i = 0; i < n; i++) {
        q.d = d[i];
        q.ctx = ctx[i];
        RL_TRY(rl_match_choose(&q, &out[i], err));
        if (out[i].cost / out[i].nb < out[*best].cost / out[*best].nb - 1e-12)
            *best = i;
    }
    return RL_OK;
}
