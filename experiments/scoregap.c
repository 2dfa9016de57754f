/* scoregap.c: the stylized score gap.
 *
 * One query q at position i, keys at distances delta = 1, 2, ... on ONE
 * chain: the key at distance delta is seen through P_delta = M_i ... M_{i-delta+1}
 * (chain.h), so far scores are correlated through their shared steps exactly
 * as in attention.  Every key is aligned with the query (k = q, the worst case:
 * only transport separates a distractor from the target):
 *   - the target at a near distance n_near in {1, 4, 16} (below the window);
 *   - M_L distractors at delta_0, ..., delta_0 + M_L - 1, delta_0 beyond the
 *     family's window.
 * The scores s_delta = q^T P_delta q give the near score (closed form E s =
 * c^n for E[M] = cI, sum_b a_b Re chi_b^n for SO(2)), the maximum far score,
 * the gap and the softmax weight ratio R = e^{lambda s_near} / sum_far e^{lambda s_j}.
 *
 * Predictions for far routes that have mixed, whose scores are sub-Gaussian
 * with variance proxy 1/d (the sphere coordinate: E e^{lambda u} <= e^{lambda^2/(2d)};
 * SO(2) with q spread evenly over the blocks: E e^{z cos Phi} = I_0(z) <= e^{z^2/4}
 * gives the same proxy sum_b a_b^2 / 2 = 1/d):
 *   E max_j s_j <= sqrt(2 log M / d)        (Jensen on the mgf, any dependence)
 *   E gap >= E s_near - sqrt(2 log M / d)   (from the line above)
 *   P(max_j |s_j| >= t) <= M 2 e^{-d t^2/2} (Ball's cap bound for one
 *       coordinate, union over j, any dependence), so with probability
 *       >= 1 - delta, max_j |s_j| < sqrt(2 log(2M/delta)/d).
 * These three need the hypothesis: far routes near Haar from delta_0 on,
 * certified per (family, d) by the second moment (rl_moment2_unmet at
 * n = delta_0; the rate only falls with n, so delta_0 is the worst far key);
 * where it is not met the row is "hypothesis not met".  With q spread evenly
 * the settled level q^T Pi_F(q q^T) q is 1/d for every family here.
 * Bounds that hold at any route length, decided by their rule everywhere:
 *   E gap <= E s_near - max_j E s_j         (E max >= max E, any family);
 *   P(max_j |s_j - E s_j| >= sqrt(2 sum_b a_b^2 log(2M/delta))) <= delta
 *       (Hoeffding per SO(2) block, independent blocks, union over j);
 *   E log R >= lambda E s_near - log E sum_far e^{lambda s_j}   (Jensen),
 *       E e^{lambda s_j} exactly per SO(2) block at the route length delta_j
 *       (rl_so2_cos_log_mgf).  For Householder it is the sphere's mgf
 *       (rl_sphere_log_mgf), the law of a mixed route: that row needs the
 *       hypothesis too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_statistics_double.h>

#include "../base/core/stats.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../mc/sweep_cases.h"
#include "../sampling/rng.h"
#include "../theory/moment2.h"
#include "../theory/theory.h"
#include "../mc/gapchain.h"
#include "../mc/so2score.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claim_fns.h"
#include "claims.h"
#include "scoregap.h"
#include "prose_experiments.h"

#define NNEAR RL_SG_NNEAR
static const long near_n[NNEAR] = { 1, 4, 16 };
#define UNION_DELTA 0.05

static rl_sg_size size_of(int preset)
{
    rl_sg_size q = { 3, { 16, 64, 256 }, 10000, 1.5e9, 32, 256 };
    rl_sg_size f = { 3, { 16, 64, 256 }, 65536, 6.0e10, 64, 1024 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* M_L = 1, 10^{1/3}, 10^{2/3}, 10, ... up to mmax (always included). */
static int m_grid(long mmax, long *g)
{
    int n = 0;
    for (int k = 0; n < RL_GC_MAXG - 1; k++) {
        long m = lround(pow(10.0, k / 3.0));
        if (m >= mmax)
            break;
        g[n++] = m;
    }
    g[n++] = mmax;
    return n;
}

enum { F_HOUSEHOLDER = RL_SG_HOUSEHOLDER, F_CIRCLE = RL_SG_CIRCLE, F_STUDY = RL_SG_STUDY, NFAM = RL_SG_NFAM };
const char *const rl_sg_label[RL_SG_NFAM] = { "householder", "so2-circle", "so2-study" };

/* The registry's case c of the scoregap sweep at dimension d: its family and
 * stream; its first far distance delta0 = c->n when set (SO(2): 64 for the
 * circle law, window 1; 512 for the study's, beyond a 512-token training
 * context, whose slow blocks never mix), else 3 W(0.01) of the family's
 * closed-form mean E[M] = c I (|E P| <= 1e-6 at delta0). */
static rl_sg_spec make_spec(const rl_sweep_case *c, int d)
{
    rl_sg_spec s;
    memset(&s, 0, sizeof s);
    s.gc.lambda = sqrt((double)d); /* logits q.k/sqrt(d) with |q|^2 = |k|^2 = d */
    s.gc.nnear = NNEAR;
    memcpy(s.gc.near, near_n, sizeof near_n);
    s.gc.f = c->f;
    s.stream = c->stream;
    s.so2 = rl_family_mean_blocks(&c->f) > 1;
    if (!s.so2)
        s.c = rl_family_mean_norm(&c->f, NULL, NULL);
    s.gc.delta0 = c->n ? c->n : 3 * rl_mixing_window(s.c, 0.01);
    return s;
}

/* The scoregap sweep's cases at d (all, or those of `families`), each at
 * its row (slot) of the report: RL_EINTERNAL for a case with no row. */
static rl_status gap_cases(int d, const char *families, rl_sweep_case *c, int *n, rl_err *err)
{
    RL_TRY(rl_sweep_cases(RL_SWEEP_SCOREGAP, d, families, c, RL_SWEEP_CASES_MAX, n, err));
    for (int k = 0; k < *n; k++)
        if (c[k].slot < 0 || c[k].slot >= NFAM || strcmp(c[k].label, rl_sg_label[c[k].slot]))
            return rl_fail(err, RL_EINTERNAL, "scoregap has no row for the case %s", c[k].label);
    return RL_OK;
}

/* The query: spread evenly over the SO(2) blocks, |q_b|^2 = 2/d, with random
 * phases (for Householder any unit vector is equivalent). */
static void make_query(unsigned long seed, int d, double *q)
{
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    rl_rng_stream(r, seed, rl_stream_key(RL_STREAM_GAP_QUERY, (uint64_t)d));
    const int h = d / 2;
    for (int b = 0; b < h; b++) {
        double a = 2 * M_PI * gsl_rng_uniform(r), s = sqrt(2.0 / d);
        q[b] = s * cos(a);
        q[b + h] = s * sin(a);
    }
}

/* The p quantile of x[i * stride], i < n: the ceil(p n)-th smallest (the
 * inverse of the empirical CDF, no interpolation; clamped to the sample),
 * by GSL's selection on a copy. */
static double quantile(const double *x, long n, long stride, double p)
{
    double *y = rl_xmalloc(sizeof(double) * n);
    for (long i = 0; i < n; i++)
        y[i] = x[i * stride];
    long i = (long)ceil(p * n) - 1;
    double v = gsl_stats_select(y, 1, n, i < 0 ? 0 : (i >= n ? n - 1 : i));
    free(y);
    return v;
}

static long reps_for(const rl_sg_size *z, const rl_sg_spec *sp, long L)
{
    const int d = sp->gc.f.d;
    /* per step: a Householder step draws d normals (~30 ns per coordinate);
     * an SO(2) step d/2 angles plus the rotation of q (~40 ns per block) */
    double cost = (double)L * (sp->so2 ? 40.0 * d / 2 : 30.0 * d);
    long r = (long)(z->budget / cost);
    return r < z->rmin ? z->rmin : r > z->rmax ? z->rmax : r;
}

/* Closed forms of one (family, d) cell. */
static void predict(const rl_sg_spec *sp, const double *aw, long mmax, rl_sg_pred *p)
{
    const int d = sp->gc.f.d;
    p->es = rl_xmalloc(sizeof(double) * mmax);
    p->lm = rl_xmalloc(sizeof(double) * mmax);
    p->s2 = 0;
    for (int b = 0; b < d / 2; b++)
        p->s2 += aw[b] * aw[b];
    for (int i = 0; i < NNEAR; i++)
        p->near[i] = sp->so2 ? rl_so2score_mean(&sp->gc.f, aw, near_n[i]) : pow(sp->c, (double)near_n[i]);
    if (sp->so2) {
        rl_so2score_mean_range(&sp->gc.f, aw, sp->gc.delta0, mmax, p->es);
        rl_so2score_log_mgf_range(&sp->gc.f, aw, sp->gc.delta0, mmax, sp->gc.lambda, p->lm);
    } else {
        /* E[P_delta] = c^delta I; far routes have mixed (c^delta0 <= 1e-6):
         * the sphere's law */
        double l0 = rl_sphere_log_mgf(d, sp->gc.lambda);
        for (long j = 0; j < mmax; j++) {
            p->es[j] = pow(sp->c, (double)(sp->gc.delta0 + j));
            p->lm[j] = l0;
        }
    }
}

/* The M at which v (on the grid g) first falls to 0 or below, interpolated
 * log-linearly in M; 0 if already at the first point, -1 if never. */
static double crossing(const long *g, int ng, const double *v)
{
    if (v[0] <= 0)
        return 0;
    for (int i = 1; i < ng; i++)
        if (v[i] <= 0)
            return exp(log((double)g[i - 1]) + log((double)g[i] / g[i - 1]) * v[i - 1] / (v[i - 1] - v[i]));
    return -1;
}

static const char *mstar_str(double m, long mmax, char *buf, size_t n)
{
    if (m < 0)
        return rl_fmt(buf, n, "> %ld", mmax);
    if (m == 0)
        return "< 1";
    return rl_fmt(buf, n, "%.3g", m);
}

const char *rl_scoregap_unmet(const rl_family *f, long delta0, char *buf, size_t len)
{
    rl_moment2 m;
    rl_moment2_closed(f, NULL, &m, NULL, NULL);
    return rl_moment2_unmet(m.rate, f->d, delta0, buf, len);
}

/* The far keys' numbers at the grid's point gi (M = g[gi] keys): cum_es
 * and max_es are the prefix sum and maximum of E s_j over those keys. */
static void far_point(const rl_sg_spec *sp, const rl_sg_pred *p, const rl_gc_cell *c, int gi, double cum_es,
                      rl_sg_far *o)
{
    const int d = sp->gc.f.d, ng = c->ng;
    const long reps = c->reps, M = c->g[gi];
    o->M = M;
    rl_mean_se(c->maxs + gi, reps, ng, &o->max, &o->max_se);
    rl_mean_se(c->maxcen + gi, reps, ng, &o->maxcen, &o->maxcen_se);
    rl_mean_se(c->meanfar + gi, reps, ng, &o->meanfar, &o->meanfar_se);
    o->pred = sqrt(2 * log((double)M) / d);
    o->union_t = sqrt(2 * log(2 * M / UNION_DELTA) / d);     /* Ball's cap bound, union over j */
    o->hoeff_t = sqrt(2 * p->s2 * log(2 * M / UNION_DELTA)); /* Hoeffding, centered */
    long ex = 0, hx = 0;
    for (long k = 0; k < reps; k++) {
        ex += c->maxabs[k * ng + gi] >= o->union_t;
        hx += c->maxcen[k * ng + gi] >= o->hoeff_t;
    }
    o->union_fr = (double)ex / reps;
    o->hoeff_fr = (double)hx / reps;
    o->union_se = sqrt(UNION_DELTA * (1 - UNION_DELTA) / reps);
    o->q95 = quantile(c->maxabs + gi, reps, ng, 1 - UNION_DELTA);
    o->meanfar_pred = cum_es / M;
}

/* The worst cases over the far points of a cell into the family's summary s
 * and the cell's d summary t. */
static void far_worst(const rl_sg_far *o, rl_sg_sum *s, rl_sg_dsum *t)
{
    s->meanfar_z = rl_worst(s->meanfar_z, fabs(o->meanfar - o->meanfar_pred) / fmax(o->meanfar_se, 1e-300));
    t->max_over = rl_worst(t->max_over, (o->max - o->pred) / fmax(o->max_se, 1e-300));
    if (o->M >= 10) {
        t->ratio_lo = fmin(t->ratio_lo, o->max / o->pred);
        t->ratio_hi = rl_worst(t->ratio_hi, o->max / o->pred);
    }
    t->union_over = rl_worst(t->union_over, (o->union_fr - UNION_DELTA) / o->union_se);
    t->union_worst = rl_worst(t->union_worst, o->union_fr);
    s->hunion_over = rl_worst(s->hunion_over, (o->hoeff_fr - UNION_DELTA) / o->union_se);
    s->hunion_worst = rl_worst(s->hunion_worst, o->hoeff_fr);
}

/* The gap and weight ratio at the grid's point gi for every near distance
 * (x, y: scratch of c->reps), with their bounds: logEF = log E sum_far
 * e^{lambda s_j}, max_es = max_j E s_j over the point's keys. */
static void gap_point(const rl_sg_spec *sp, const rl_sg_pred *p, const rl_gc_cell *c, int gi, int mixed,
                      double logEF, double max_es, double pred, double *x, double *y, rl_sg_cell *o, rl_sg_sum *s,
                      rl_sg_dsum *t)
{
    const int ng = c->ng;
    const long reps = c->reps;
    for (int i = 0; i < NNEAR; i++) {
        rl_sg_gap *e = &o->gap[i][gi];
        for (long k = 0; k < reps; k++) {
            x[k] = c->near[k * NNEAR + i] - c->maxs[k * ng + gi];
            y[k] = sp->gc.lambda * c->near[k * NNEAR + i] - c->lf[k * ng + gi];
        }
        rl_mean_se(x, reps, 1, &e->gap, &e->gap_se);
        rl_mean_se(y, reps, 1, &e->logr, &e->logr_se);
        /* E gap >= E s_near - E max s_j >= E s_near - sqrt(2 log M/d)
         * (mixed far routes only: not drawn where the certificate fails) */
        const double gbound = p->near[i] - pred;
        e->gap_bound = mixed ? gbound : NAN;
        /* and, for any family, E gap <= E s_near - max_j E s_j (E max >= max E) */
        e->gap_upper = p->near[i] - max_es;
        s->gapu_over = rl_worst(s->gapu_over, (e->gap - e->gap_upper) / fmax(e->gap_se, 1e-300));
        e->logr_bound = sp->gc.lambda * p->near[i] - logEF;
        t->gap_over = rl_worst(t->gap_over, (gbound - e->gap) / fmax(e->gap_se, 1e-300));
        t->logr_over = rl_worst(t->logr_over, (e->logr_bound - e->logr) / fmax(e->logr_se, 1e-300));
    }
}

/* The crossings M* of E log R = 0 at n_near = 4. */
static void cell_mstar(int fi, const rl_sg_spec *sp, const rl_sg_pred *p, const long *g, rl_sg_cell *o)
{
    double lb[RL_GC_MAXG], lr[RL_GC_MAXG];
    for (int gi = 0; gi < o->ng; gi++) {
        lb[gi] = o->gap[1][gi].logr_bound;
        lr[gi] = o->gap[1][gi].logr;
    }
    /* the predicted bound crosses 0 at lambda E s_near = log E F(M): where the
     * far mgf does not depend on the distance (mixed routes, circle angles)
     * E F = M e^{lm}, so M* = e^{lambda E s_near - lm}, also beyond the grid */
    o->mstar_pred = crossing(g, o->ng, lb);
    if (fi != F_STUDY) {
        o->mstar_pred = exp(sp->gc.lambda * p->near[1] - p->lm[0]);
        o->mstar_pred = o->mstar_pred < 1 ? 0 : o->mstar_pred;
    }
    o->mstar_meas = crossing(g, o->ng, lr);
}

/* Everything measured in one cell (the family's id-th d) against its closed
 * forms into o, and the family's worst cases into s. */
static void summarise_cell(int fi, int id, const rl_sg_run_cell *rc, int last_d, rl_sg_cell *o, rl_sg_sum *s)
{
    const rl_sg_spec *sp = &rc->sp;
    const rl_sg_pred *p = &rc->p;
    const rl_gc_cell *c = &rc->c;
    const int d = sp->gc.f.d, ng = c->ng;
    const long reps = c->reps;
    rl_sg_dsum *t = &s->at[id];
    o->d = t->d = d;
    o->delta0 = sp->gc.delta0;
    o->reps = reps;
    o->lambda = sp->gc.lambda;
    o->ng = ng;
    o->es0 = p->es[0];
    t->max_over = t->gap_over = t->union_over = t->logr_over = t->union_worst = -INFINITY;
    t->ratio_lo = INFINITY;
    t->ratio_hi = -INFINITY;
    const int mixed = !rl_scoregap_unmet(&sp->gc.f, sp->gc.delta0, t->unmet, sizeof t->unmet);
    if (mixed)
        t->unmet[0] = 0;
    s->nd = id + 1 > s->nd ? id + 1 : s->nd;
    s->logr_needs_mixing = !sp->so2;
    for (int i = 0; i < NNEAR; i++) {
        rl_mean_se(c->near + i, reps, NNEAR, &o->near[i], &o->near_se[i]);
        o->near_pred[i] = p->near[i];
        s->near_z = rl_worst(s->near_z, fabs(o->near[i] - p->near[i]) / fmax(o->near_se[i], 1e-300));
    }
    double *x = rl_xmalloc(sizeof(double) * reps), *y = rl_xmalloc(sizeof(double) * reps);
    double cum_es = 0, cum_f = 0; /* prefix sums of E s and of E e^{lambda s} e^{-lm[0]} */
    double max_es = -INFINITY;    /* prefix maximum of E s */
    long j = 0;
    for (int gi = 0; gi < ng; gi++) {
        for (; j < c->g[gi]; j++) {
            cum_es += p->es[j];
            cum_f += exp(p->lm[j] - p->lm[0]);
            max_es = rl_worst(max_es, p->es[j]);
        }
        far_point(sp, p, c, gi, cum_es, &o->far[gi]);
        far_worst(&o->far[gi], s, t);
        gap_point(sp, p, c, gi, mixed, p->lm[0] + log(cum_f), max_es, o->far[gi].pred, x, y, o, s, t);
    }
    free(x);
    free(y);
    if (last_d)
        s->logr_slack_end = o->gap[1][ng - 1].logr - o->gap[1][ng - 1].logr_bound;
    cell_mstar(fi, sp, p, c->g, o);
}

void rl_scoregap_summarise(const rl_sg_res *R, rl_sg_summary *S)
{
    memset(S, 0, sizeof *S);
    for (int f = 0; f < NFAM; f++)
        S->fam[f].hunion_over = S->fam[f].gapu_over = S->fam[f].hunion_worst = -INFINITY;
    S->nd = R->z.nd;
    S->dlast = R->z.d[R->z.nd - 1];
    S->mmax = R->g[R->ng - 1];
    for (int fi = 0; fi < NFAM; fi++)
        S->run[fi] = R->run[fi];
    for (int id = 0; id < R->z.nd; id++)
        for (int fi = 0; fi < NFAM; fi++)
            if (R->run[fi])
                summarise_cell(fi, id, &R->cell[id][fi], id == R->z.nd - 1, &S->cell[id][fi], &S->fam[fi]);
}

typedef struct {
    rl_tsv *near, *far, *gap;
    char *tab;
    size_t used, cap;
} gap_out;

/* One cell's TSV rows and table row. */
static void render_cell(int fi, const rl_sg_cell *o, long mmax, gap_out *out)
{
    const char *lab = rl_sg_label[fi];
    for (int i = 0; i < NNEAR; i++)
        rl_tsv_row(out->near, "%s\t%d\t%ld\t%ld\t%.6g\t%.3g\t%.6g", lab, o->d, near_n[i], o->reps, o->near[i],
                   o->near_se[i], o->near_pred[i]);
    for (int gi = 0; gi < o->ng; gi++) {
        const rl_sg_far *f = &o->far[gi];
        rl_tsv_row(out->far, "%s\t%d\t%ld\t%ld\t%ld\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.4g\t%.3g\t%.6g\t%.4g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g",
                   lab, o->d, o->delta0, f->M, o->reps, f->max, f->max_se, f->pred, f->q95, f->union_t, f->union_fr,
                   f->union_se, f->hoeff_t, f->hoeff_fr, f->meanfar, f->meanfar_se, f->meanfar_pred, f->maxcen,
                   f->maxcen_se);
    }
    /* n_near outermost, so that each curve's rows are consecutive */
    for (int i = 0; i < NNEAR; i++)
        for (int gi = 0; gi < o->ng; gi++) {
            const rl_sg_gap *e = &o->gap[i][gi];
            rl_tsv_row(out->gap, "%s\t%d\t%ld\t%ld\t%ld\t%.4g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g",
                       lab, o->d, o->far[gi].M, near_n[i], o->reps, o->lambda, e->gap, e->gap_se, e->gap_bound,
                       e->logr, e->logr_se, e->logr_bound, e->logr / M_LN10, e->logr_se / M_LN10,
                       e->logr_bound / M_LN10, e->gap_upper);
        }
    char m1[64], m2[64];
    if (out->used + 512 < out->cap)
        out->used += snprintf(out->tab + out->used, out->cap - out->used,
                              "%s\t%d\t%.0f\t%ld\t%ld\t%.3f, %.3f, %.3f\t%.3f\t%s\t%s\n", lab, o->d, o->lambda,
                              o->delta0, o->reps, o->near_pred[0], o->near_pred[1], o->near_pred[2], o->es0,
                              mstar_str(o->mstar_pred, mmax, m1, sizeof m1),
                              mstar_str(o->mstar_meas, mmax, m2, sizeof m2));
}

/* The checks that need far routes near Haar, over the d's of s whose
 * certificate is met (met = 1) or not (met = 0): the statistics combined
 * into *a, the d's listed in ds, the unmet phrases joined in why.  Returns
 * how many d's. */
static int pick(const rl_sg_sum *s, int met, rl_sg_dsum *a, char *ds, size_t dn, char *why, size_t wn)
{
    int n = 0;
    size_t du = 0, wu = 0;
    ds[0] = why[0] = 0;
    a->max_over = a->gap_over = a->union_over = a->union_worst = a->logr_over = a->ratio_hi = -INFINITY;
    a->ratio_lo = INFINITY;
    for (int k = 0; k < s->nd; k++) {
        const rl_sg_dsum *t = &s->at[k];
        if ((t->unmet[0] == 0) != met)
            continue;
        a->max_over = rl_worst(a->max_over, t->max_over);
        a->ratio_lo = fmin(a->ratio_lo, t->ratio_lo);
        a->ratio_hi = rl_worst(a->ratio_hi, t->ratio_hi);
        a->gap_over = rl_worst(a->gap_over, t->gap_over);
        a->union_over = rl_worst(a->union_over, t->union_over);
        a->union_worst = rl_worst(a->union_worst, t->union_worst);
        a->logr_over = rl_worst(a->logr_over, t->logr_over);
        if (du < dn)
            du += snprintf(ds + du, dn - du, "%s%d", n ? ", " : "", t->d);
        if (wu < wn)
            wu += snprintf(why + wu, wn - wu, "%s%s", n ? "; " : "", t->unmet);
        n++;
    }
    return n;
}

/* The checks of one family that assume mixed far routes, decided on the d's
 * in a (unmet: NULL where the certificate holds there, else why not). */
static void mixed_rows(const rl_sg_sum *s, const char *lab, const char *dsuf, const rl_sg_dsum *a,
                       const char *unmet, int dlast, long mmax, rl_report *rep)
{
    char w[512], m[256];
    rl_report_decide(rep, &rl_rule_bound, a->max_over, unmet,
                     rl_fmt(w, sizeof w, "%s: E max_j s_j ≤ √(2 log M_L / d)%s", lab, dsuf),
                     "(measured − prediction)/SE ≤ 5",
                     rl_fmt(m, sizeof m, "max %.1f; measured/prediction = %.2f … %.2f (M_L ≥ 10)", a->max_over,
                            a->ratio_lo, a->ratio_hi));
    rl_report_decide(rep, &rl_rule_bound, a->gap_over, unmet,
                     rl_fmt(w, sizeof w, "%s: gap s_near − max_j s_j ≥ E s_near − √(2 log M_L/d)%s", lab, dsuf),
                     "(bound − measured)/SE ≤ 5", rl_fmt(m, sizeof m, "max %.1f", a->gap_over));
    rl_report_decide(rep, &rl_rule_bound, a->union_over, unmet,
                     rl_fmt(w, sizeof w,
                            RL_PROSE_SCOREGAP_UNION_CHECK,
                            lab, UNION_DELTA, dsuf),
                     "(frequency − δ)/SE ≤ 5",
                     rl_fmt(m, sizeof m, "largest frequency %.3f; max (frequency − δ)/SE = %.1f", a->union_worst,
                            a->union_over));
    if (s->logr_needs_mixing)
        rl_report_decide(rep, &rl_rule_bound, a->logr_over, unmet,
                         rl_fmt(w, sizeof w,
                                RL_PROSE_SCOREGAP_RATIO_SPHERE_CHECK,
                                lab, dsuf),
                         "(bound − measured)/SE ≤ 5",
                         rl_fmt(m, sizeof m, RL_PROSE_SCOREGAP_RATIO_MEASURED,
                                a->logr_over, dlast, mmax, s->logr_slack_end));
}

void rl_scoregap_verdicts(const rl_sg_sum S[RL_SG_NFAM], int dlast, long mmax, rl_report *rep)
{
    char w[512], m[256], ds[2][64], why[2][1024];
    for (int fi = 0; fi < NFAM; fi++) {
        const rl_sg_sum *s = &S[fi];
        const char *lab = rl_sg_label[fi];
        if (!s->nd) /* not run (a --families subset) */
            continue;
        rl_report_decide(rep, &rl_rule_agree, s->near_z, NULL,
                         rl_fmt(w, sizeof w, "%s: near score at n_near = 1, 4, 16 = closed form", lab),
                         fi == F_HOUSEHOLDER ? "c^n, c = 1 − 2/d" : "Σ_b a_b Re χ_b^n",
                         rl_fmt(m, sizeof m, "max |z| = %.2f", s->near_z));
        rl_report_decide(rep, &rl_rule_agree, s->meanfar_z, NULL,
                         rl_fmt(w, sizeof w, "%s: mean far score over the M_L distractors = closed form", lab),
                         "(1/M) Σ_j E s_{δ₀+j}", rl_fmt(m, sizeof m, "max |z| = %.2f", s->meanfar_z));
        /* the certificate splits the d's; the d's are named only when it does */
        rl_sg_dsum a[2];
        int n[2];
        for (int met = 1; met >= 0; met--)
            n[met] = pick(s, met, &a[met], ds[met], sizeof ds[met], why[met], sizeof why[met]);
        for (int met = 1; met >= 0; met--) {
            char suf[96] = "";
            if (!n[met])
                continue;
            if (n[!met])
                snprintf(suf, sizeof suf, " (d = %s)", ds[met]);
            mixed_rows(s, lab, suf, &a[met], met ? NULL : why[met], dlast, mmax, rep);
        }
        if (fi == F_STUDY)
            rl_report_decide(rep, &rl_rule_bound, s->gapu_over, NULL,
                             rl_fmt(w, sizeof w,
                                    RL_PROSE_SCOREGAP_GAP_UNMIXED_CHECK, lab),
                             "(measured − bound)/SE ≤ 5", rl_fmt(m, sizeof m, "max %.1f", s->gapu_over));
        if (fi != F_HOUSEHOLDER)
            rl_report_decide(rep, &rl_rule_bound, s->hunion_over, NULL,
                             rl_fmt(w, sizeof w,
                                    RL_PROSE_SCOREGAP_HOEFFDING_CHECK,
                                    lab),
                             "(frequency − δ)/SE ≤ 5",
                             rl_fmt(m, sizeof m, "largest frequency %.3f; max (frequency − δ)/SE = %.1f",
                                    s->hunion_worst, s->hunion_over));
        if (!s->logr_needs_mixing) {
            double x = -INFINITY;
            for (int k = 0; k < s->nd; k++)
                x = rl_worst(x, s->at[k].logr_over);
            rl_report_decide(rep, &rl_rule_bound, x, NULL,
                             rl_fmt(w, sizeof w,
                                    RL_PROSE_SCOREGAP_RATIO_EXACT_CHECK,
                                    lab),
                             "(bound − measured)/SE ≤ 5",
                             rl_fmt(m, sizeof m, RL_PROSE_SCOREGAP_RATIO_MEASURED,
                                    x, dlast, mmax, s->logr_slack_end));
        }
    }
}

rl_status rl_exp_scoregap_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_sg_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    R->ng = m_grid(R->z.mmax, R->g);
    const long mmax = R->g[R->ng - 1];
    for (int id = 0; id < R->z.nd; id++) {
        const int d = R->z.d[id];
        double q[d], aw[d / 2];
        make_query(ctx->seed, d, q);
        rl_so2score_weights(d, q, aw);
        rl_sweep_case c[RL_SWEEP_CASES_MAX];
        int nc;
        RL_TRY(gap_cases(d, ctx->families, c, &nc, err));
        for (int k = 0; k < nc; k++) {
            rl_sg_run_cell *o = &R->cell[id][c[k].slot];
            R->run[c[k].slot] = 1;
            o->sp = make_spec(&c[k], d);
            predict(&o->sp, aw, mmax, &o->p);
            long reps = reps_for(&R->z, &o->sp, o->sp.gc.delta0 + mmax);
            RL_TRY(rl_gc_run(&o->sp.gc, q, o->p.es, reps, R->g, R->ng, ctx->seed,
                             rl_stream_key(o->sp.stream, d), &o->c, err));
        }
    }
    return RL_OK;
}

void rl_exp_scoregap_free(void *res)
{
    rl_sg_res *R = res;
    if (!R)
        return;
    for (int id = 0; id < R->z.nd; id++)
        for (int fi = 0; fi < NFAM; fi++) {
            rl_gc_free(&R->cell[id][fi].c);
            free(R->cell[id][fi].p.es);
            free(R->cell[id][fi].p.lm);
        }
    free(R);
}

void rl_exp_scoregap_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    rl_sg_summary *S = rl_xmalloc(sizeof *S);
    rl_scoregap_summarise(res, S);
    gap_out o;
    o.near = rl_tsv_open(out, "scoregap_near.tsv", "family\td\tn_near\treps\tnear\tnear_se\tnear_pred");
    o.far = rl_tsv_open(out, "scoregap_far.tsv",
                        "family\td\tdelta0\tM\treps\tmaxfar\tmaxfar_se\tpred_sqrt2logM_d\tq95_maxabs\tunion_t\t"
                        "union_exceed\tunion_exceed_se\thoeff_union_t\thoeff_union_exceed\tmeanfar\tmeanfar_se\t"
                        "meanfar_pred\tmaxcen\tmaxcen_se");
    o.gap = rl_tsv_open(out, "scoregap_gap.tsv",
                        "family\td\tM\tn_near\treps\tlambda\tgap\tgap_se\tgap_bound\tlogR\tlogR_se\tlogR_bound\t"
                        "log10R\tlog10R_se\tlog10R_bound\tgap_upper");
    o.cap = 1 << 14;
    o.tab = rl_xmalloc(o.cap);
    o.used = snprintf(o.tab, o.cap,
                      "family\td\tλ\tδ₀\tchains\tE s_near (n = 1, 4, 16)\tE s_far(δ₀)\tM* where E log R = 0 (n_near = 4): "
                      "predicted lower bound\tM*, measured\n");
    for (int id = 0; id < S->nd; id++)
        for (int fi = 0; fi < NFAM; fi++)
            if (S->run[fi])
                render_cell(fi, &S->cell[id][fi], S->mmax, &o);
    rl_tsv_close(o.near);
    rl_tsv_close(o.far);
    rl_tsv_close(o.gap);

    rl_report_text(rep,
                   RL_PROSE_SCOREGAP_INTRO,
                   S->mmax, UNION_DELTA);
    rl_report_text(rep,
                   RL_PROSE_SCOREGAP_HYPOTHESIS);
    rl_scoregap_verdicts(S->fam, S->dlast, S->mmax, rep);
    rl_report_table(rep, RL_PROSE_SCOREGAP_NEAR_CAPTION,
                    o.tab);
    free(o.tab);
    free(S);

    const rl_plotvar vars[] = { RL_PV_S("ds", "16 64 256"), RL_PV_R("udelta", UNION_DELTA) };
    rl_plot(out, "scoregap_max", "scoregap_max", vars, RL_NVARS(vars));
    rl_plot(out, "scoregap_gap", "scoregap_gap", vars, RL_NVARS(vars));
    rl_report_figure(rep, "scoregap_max.png",
                     RL_PROSE_SCOREGAP_FIG_MAX);
    rl_report_figure(rep, "scoregap_gap.png",
                     RL_PROSE_SCOREGAP_FIG_GAP);
}
