/* concentration.c: claim 2, the score of a query against a transported key
 * concentrates at the O(1/sqrt d) scale.
 *
 * For u uniform on S^{d-1}, <e,u>^2 ~ Beta(1/2, (d-1)/2) (the exact law,
 * rl_beta_tail) and P(|<e,u>| >= t) <= 2 e^{-d t^2/2} (Ball's cap bound for one
 * coordinate, rl_levy_tail; Levy's concentration on SO(d) is rl_levy_so_tail).
 * The score q^T P k of unit vectors with P Haar has exactly this law.
 * Measured here:
 *   (a) Haar transport, d = 8 ... 512;
 *   (b) each step family after n steps, n far beyond its mixing window, with
 *       the key ALIGNED with the query (k = q): with an independent uniform key
 *       P k would be uniform for ANY orthogonal P (even P = I) and the test
 *       would be empty; aligned, the score starts at 1 and only transport can
 *       bring it down;
 *   (c) SO(2) blocks: s = sum_b a_b cos Phi_b against Hoeffding with the
 *       actual a_b, for q spread evenly over the blocks and concentrated in the
 *       low-frequency quarter, for circle angles and the study's U(-w_b, w_b).
 * Each route carries m fixed orthonormal queries q_1..q_m (rows of one Haar
 * matrix drawn from the seed), so a route gives m dependent scores; standard
 * errors are the larger of the binomial and the cluster one (tails.h).
 * Checks that need the far routes near Haar (a Beta-law tail, the cap bound,
 * the O(1/sqrt d) scale) are decided only at the d where the second-moment
 * hypothesis holds (rl_conc_unmet); closed-form moments and Hoeffding for
 * independent blocks are exact at any n and need none. */
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
#include "../mc/moment2_brownian.h"
#include "../theory/theory.h"
#include "../mc/scoretails.h"
#include "../mc/so2score.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claim_fns.h"
#include "claims.h"
#include "concentration.h"
#include "prose_experiments.h"

#define MAXD RL_CONC_MAXD

#define NLEVY 20 /* thresholds x = t sqrt(d) = 0.25, 0.5, ..., 5 */

typedef struct {
    int nd, d[MAXD];
    int m;              /* queries per route (at most d/2) */
    long haar_reps;     /* Haar matrices per d */
    long cap;           /* most routes per family and d */
    double budget;      /* estimated single-core ns per family and d */
    double study_budget;/* the same for the study's variant at n = 65,536 */
    int dense_dmax;     /* dense steps (O(d^3) each: lazy-haar): d <= this */
    int brown_dmax;     /* dense steps dearer than d^3 flops (an expm: brownian): d <= this */
} conc_size;

static conc_size size_of(int preset)
{
    conc_size q = { 4, { 8, 32, 128, 512 }, 16, 1024, 4096, 5.0e8, 1.2e9, 128, 32 };
    conc_size f = { 7, { 8, 16, 32, 64, 128, 256, 512 }, 16, 16384, 32768, 1.2e10, 2.4e10, 128, 128 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* The grid: t = x / sqrt(d), x = 0.25 k, t < 1. */
static int t_grid(int d, double *t)
{
    int nt = 0;
    for (int k = 1; k <= NLEVY; k++) {
        double v = 0.25 * k / sqrt((double)d);
        if (v < 1)
            t[nt++] = v;
    }
    return nt;
}

static int queries_per_route(const conc_size *z, int d)
{
    return z->m < d / 2 ? z->m : d / 2;
}

/* ---------- one family at one d ---------- */

typedef struct {
    const char *label;
    rl_st_spec st;
    double cmean; /* E[M] = c I (dense families), for E s = c^n */
    unsigned long stream; /* the case's stream domain (registry) */
} spec;

static rl_status run_cell(const spec *sp, int d, long reps, int m, const double *Q, unsigned long seed,
                          unsigned long tag, rl_st_cell *c, rl_err *err)
{
    double t[RL_ST_MAXT];
    int nt = t_grid(d, t);
    return rl_st_run(&sp->st, t, nt, reps, m, Q, seed, tag, c, err);
}

/* One cell of a run: a family at one d (ok = 0: not run at this d). */
typedef struct {
    int ok;
    spec sp;
    long reps;
    rl_st_cell c;
} conc_cell;

/* the most cases of part (b): whatever the sweep's table lists (mc/sweep_cases.c) */
#define NFAM RL_SWEEP_CASES_MAX

/* What part (b) checks of a case, read off its family, not its name:
 * SO(2) blocks (Hoeffding; the study's law when not the circle's), a step
 * that is not orthogonal (PaTH's I - beta w w^T: the key's norm shrinks),
 * or an orthogonal step with E[M] = cI (the sphere's Beta law). */
typedef enum { ROLE_DENSE, ROLE_SHRINK, ROLE_SO2 } conc_role;

static conc_role role_of(const rl_family *f)
{
    if (rl_family_is_so2(f))
        return ROLE_SO2;
    return rl_family_orthogonal(f) ? ROLE_DENSE : ROLE_SHRINK;
}

/* the study's U(-w_b, w_b) (part (c)'s law 1) rather than the circle's (0) */
static int so2_study(const rl_family *f)
{
    return f->law != RL_ANG_CIRCLE;
}

/* The results of one run: Haar transport per d, every family per d, and the
 * fixed queries of each d. */
typedef struct {
    conc_size z;
    double *Q[MAXD];
    conc_cell haar[MAXD];
    conc_cell fam[MAXD][NFAM];
    int nfam;             /* the sweep's cases run (those of --families, or the default) */
    const char *families; /* the subset to run (NULL: the default; --families) */
} conc_res;

/* ---------- comparisons of a tail curve ---------- */

typedef struct {
    double zmax;     /* largest |z| against the exact law over testable points */
    int tested;      /* testable points */
    double over;     /* largest (measured - bound)/SE, positive when above */
    double over_t, over_d, zmax_t, zmax_d;
} cmp;

static void cmp_init(cmp *k)
{
    memset(k, 0, sizeof *k);
    k->over = -INFINITY;
}

/* Equality with p0 (where testable) and being below the bound ub. */
static void cmp_point(cmp *k, const rl_tail_est *e, double p0, double ub, double t, int d)
{
    if (!isnan(p0) && rl_tail_testable(e, p0)) {
        double z = (e->p - p0) / rl_tail_se_at(e, p0);
        k->tested++;
        if (fabs(z) > k->zmax)
            k->zmax = fabs(z), k->zmax_t = t, k->zmax_d = d;
    }
    if (!isnan(ub)) {
        double se = e->se > 0 ? e->se : rl_tail_se_at(e, fmin(ub, 1.0));
        double o = (e->p - ub) / se;
        if (o > k->over)
            k->over = o, k->over_t = t, k->over_d = d;
    }
}

/* ---------- the decision pieces (concentration.h) ---------- */

/* Brownian steps at d >= 3 have no closed-form rate: the character estimate
 * (mc/moment2_brownian.h) at its upper end, estimate + 5 SE, certifies.  It
 * is a property of the family, not of the run: a fixed stream, so every run
 * sees the same certificate. */
#define CONC_BROWN_DRAWS 4000
#define CONC_BROWN_SEED 0x6d326272UL

const char *rl_conc_unmet(const rl_family *f, long n, double *rate, char *buf, size_t len)
{
    rl_moment2 m;
    rl_moment2_closed(f, NULL, &m, NULL, NULL);
    if (isnan(m.rate) && f->kind == RL_FAM_BROWNIAN) {
        rl_moment2_est e;
        rl_err err;
        if (rl_moment2_brownian(f->d, f->sigma, CONC_BROWN_DRAWS, CONC_BROWN_SEED, &e, &err) == RL_OK)
            m.rate = rl_moment2_upper(&e);
    }
    if (rate)
        *rate = m.rate;
    return rl_moment2_unmet(m.rate, f->d, n, buf, len);
}

void rl_conc_decide(rl_report *rep, const rl_rule *rule, const rl_conc_dstat *s, int nd, const char *what,
                    const char *predicted)
{
    for (int side = 0; side < 2; side++) { /* 0: hypothesis met, 1: not met */
        double x = -INFINITY, t = NAN;
        int xd = 0, pts = 0, cnt = 0;
        const rl_conc_dstat *first = NULL;
        char ds[96] = "", others[96] = "";
        for (int i = 0; i < nd; i++) {
            if ((s[i].unmet[0] != 0) != side)
                continue;
            snprintf(ds + strlen(ds), sizeof ds - strlen(ds), "%s%d", cnt ? ", " : "", s[i].d);
            if (first)
                snprintf(others + strlen(others), sizeof others - strlen(others), "%s%d", others[0] ? ", " : "",
                         s[i].d);
            else
                first = &s[i];
            cnt++;
            pts += s[i].tested;
            if (!isnan(x) && (isnan(s[i].x) || s[i].x > x))
                x = s[i].x, t = s[i].t, xd = s[i].d;
        }
        if (!cnt)
            continue;
        char w[512], m[256], u[512], tp[48] = "", pp[48] = "";
        if (!isnan(t))
            snprintf(tp, sizeof tp, ", t = %.3f", t);
        if (pts)
            snprintf(pp, sizeof pp, ", %d points", pts);
        rl_fmt(m, sizeof m, "max %.2f (d = %d%s) over d ∈ {%s}%s", x, xd, tp, ds, pp);
        if (side) {
            rl_fmt(u, sizeof u, "%s%s%s", first->unmet, others[0] ? "; also not met at d = " : "", others);
            rl_fmt(w, sizeof w, "%s [d ∈ {%s}]", what, ds);
        }
        rl_report_decide(rep, rule, x, side ? u : NULL, side ? w : what, predicted, m);
    }
}

double rl_conc_scale_excess(double ms, double se, double level, double rate, long n)
{
    double excess = ms - (level + pow(rate, (double)n));
    if (isnan(excess))
        return NAN;
    return se > 0 ? excess / se : excess > 0 ? INFINITY : -INFINITY;
}

double rl_conc_beta_over_cap(int d, double a, double *tw)
{
    double worst = -INFINITY, tmax = fmin(1.0, 7.5 / sqrt((double)d));
    *tw = 0;
    for (int k = 1; k <= 200; k++) {
        double v = tmax * k / 200.0, e = rl_beta_tail(d, v) - 2 * exp(-a * d * v * v);
        if (e > worst)
            worst = e, *tw = v;
    }
    return worst;
}

/* The readings of one check per d from its cmp (over: the bound's excess;
 * otherwise |z| against the exact law) with each d's hypothesis. */
static void dstats(int nd, const int *d, const cmp *c, const char (*unmet)[256], int over, rl_conc_dstat *o)
{
    for (int j = 0; j < nd; j++) {
        o[j].d = d[j];
        o[j].x = over ? c[j].over : c[j].zmax;
        o[j].t = over ? c[j].over_t : c[j].zmax_t;
        o[j].tested = over ? 0 : c[j].tested;
        snprintf(o[j].unmet, sizeof o[j].unmet, "%s", unmet[j]);
    }
}

/* ---------- the summary: every number of the report ---------- */

#define NCURVE 200 /* points per d of the closed-form curves */

/* one point of the closed-form curves: t, Beta, cap, Hoeffding (spread, low) */
typedef struct {
    double v, b, l, hs, hl;
} curve_pt;

/* one threshold of part (a): the tail, the Beta law, the cap bound */
typedef struct {
    rl_tail_est e;
    double b, l;
} haar_pt;

/* one threshold of a part (b) cell: tails (absolute, direction, centered),
 * Beta, cap, Hoeffding averaged over the queries (NaN: not SO(2)) */
typedef struct {
    rl_tail_est e, ed, ec;
    double bt, lv, hb;
} fam_pt;

/* one threshold of an SO(2) configuration: centered and absolute tails,
 * Hoeffding, Beta, cap */
typedef struct {
    rl_tail_est ec, ea;
    double hb, bt, lv;
} so2_pt;

/* one family over d: per-d readings of the checks that need the hypothesis
 * (cell j is dimension dd[j]), the others pooled */
typedef struct {
    cmp beta[MAXD], levy[MAXD], dir[MAXD];
    int dd[MAXD];
    char unmet[MAXD][256]; /* "" where the hypothesis holds */
    cmp hoeff, beta_all, levy_all;
    double mean_z, norm_z, sq_ratio_min, sq_ratio_max;
    int cells;
    /* the study's law at the largest d, x = t sqrt(d) = 2: how the unmixed
     * blocks move the tail (depart = 0: not read) */
    int depart, dep_d;
    double dep_t, dep_p, dep_se, dep_beta, dep_mu, dep_mp;
    const char *label; /* the case's */
    conc_role role;
} fam_summary;

/* Every number of one part (b) cell (family fi at the id-th d). */
typedef struct {
    int m, so2;
    conc_role role;
    long n, reps;
    fam_pt pt[NLEVY];
    double mu, mse, sq, sqse, n2, n2se, mp, sqp, n2p; /* moments and their closed forms */
    int row0;                                         /* SO(2): its configurations' first row */
    so2_pt cfg[RL_NCFG][NLEVY];
} fam_cellsum;

/* The summary of a run. */
typedef struct {
    curve_pt curve[MAXD][NCURVE];
    double worst, wt, wd; /* the largest Beta - cap over the curves, where */
    haar_pt haar[MAXD][NLEVY];
    cmp haar_cmp[MAXD];
    char haar_unmet[MAXD][256];
    fam_summary fam[NFAM];
    fam_cellsum cell[MAXD][NFAM];
    rl_conc_so2_row rows[NFAM * MAXD * RL_NCFG];
    int nrows;
    rl_conc_so2_group grp[2][RL_NCFG];
} conc_summary;

/* The closed-form curves (Beta, cap, Hoeffding) on a fine grid, and the
 * worst Beta - cap over them. */
static void curves_summarise(const conc_size *z, conc_summary *S)
{
    S->worst = -INFINITY;
    S->wt = S->wd = 0;
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id], h = d / 2;
        double as[h], al[h], tw;
        rl_st_cfg_weights(RL_CFG_SPREAD, d, as);
        rl_st_cfg_weights(RL_CFG_LOW, d, al);
        double o = rl_conc_beta_over_cap(d, 0.5, &tw);
        if (o > S->worst)
            S->worst = o, S->wt = tw, S->wd = d;
        double tmax = fmin(1.0, 7.5 / sqrt((double)d));
        for (int k = 1; k <= NCURVE; k++) {
            curve_pt *p = &S->curve[id][k - 1];
            p->v = tmax * k / 200.0;
            p->b = rl_beta_tail(d, p->v);
            p->l = rl_levy_tail(d, p->v);
            p->hs = rl_hoeffding_so2(p->v, as, h);
            p->hl = rl_hoeffding_so2(p->v, al, h);
        }
    }
}

/* ---------- (a) Haar transport ---------- */

static rl_status part_haar_run(long seed, conc_res *R, rl_err *err)
{
    const conc_size *z = &R->z;
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id], m = queries_per_route(z, d);
        conc_cell *o = &R->haar[id];
        o->sp = (spec){ "haar", { d <= 128 ? RL_ST_CHAIN : RL_ST_SPHERE, rl_family_default(RL_FAM_HAAR, d), 1 }, 0, 0 };
        o->reps = z->haar_reps;
        o->ok = 1;
        RL_TRY(run_cell(&o->sp, d, z->haar_reps, m, R->Q[id], seed, rl_stream_key(RL_STREAM_CONC_HAAR, d), &o->c,
                        err));
    }
    return RL_OK;
}

static void haar_summarise(const conc_res *R, conc_summary *S)
{
    const conc_size *z = &R->z;
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id];
        const rl_st_cell *c = &R->haar[id].c;
        cmp_init(&S->haar_cmp[id]);
        if (!rl_conc_unmet(&R->haar[id].sp.st.f, R->haar[id].sp.st.n, NULL, S->haar_unmet[id],
                           sizeof S->haar_unmet[id]))
            S->haar_unmet[id][0] = 0;
        for (int k = 0; k < c->nt; k++) {
            haar_pt *p = &S->haar[id][k];
            p->e = rl_tails_est(c->abs, k);
            p->b = rl_beta_tail(d, c->t[k]);
            p->l = rl_levy_tail(d, c->t[k]);
            cmp_point(&S->haar_cmp[id], &p->e, p->b, p->l, c->t[k], d);
        }
    }
}

static void part_haar(const conc_res *R, const conc_summary *S, const rl_outdir *out, rl_report *rep)
{
    const conc_size *z = &R->z;
    rl_tsv *t = rl_tsv_open(out, "concentration_haar.tsv",
                            "d\tt\tx\ttail\tse\tse_binom\tse_cluster\tbeta\tcap\tscores\treps\tm\tmethod");
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id], m = queries_per_route(z, d);
        const rl_st_cell *c = &R->haar[id].c;
        for (int k = 0; k < c->nt; k++) {
            const haar_pt *p = &S->haar[id][k];
            rl_tsv_row(t, "%d\t%.6g\t%.4g\t%.6g\t%.3g\t%.3g\t%.3g\t%.6g\t%.6g\t%ld\t%ld\t%d\t%s", d, c->t[k],
                       c->t[k] * sqrt((double)d), p->e.p, p->e.se, p->e.se_binom, p->e.se_cluster, p->b, p->l,
                       p->e.n, c->reps, m, R->haar[id].sp.st.kind == RL_ST_CHAIN ? "haar-matrix" : "uniform-sphere");
        }
    }
    rl_tsv_close(t);
    /* where d is too large for Haar matrices the key is drawn uniform on the
     * sphere instead of transported: there the rows check the sampler's law
     * (and the closed forms), not a transport, and say so */
    char sph[96] = "", w[512];
    for (int id = 0; id < z->nd; id++)
        if (R->haar[id].sp.st.kind != RL_ST_CHAIN)
            snprintf(sph + strlen(sph), sizeof sph - strlen(sph), "%s%d", sph[0] ? ", " : "", z->d[id]);
    char lab[160] = "Haar transport";
    if (sph[0])
        rl_fmt(lab, sizeof lab, RL_PROSE_CONCENTRATION_HAAR_LABEL,
               sph);
    rl_conc_dstat ds[MAXD];
    dstats(z->nd, z->d, S->haar_cmp, S->haar_unmet, 0, ds);
    rl_conc_decide(rep, &rl_rule_agree, ds, z->nd,
                   rl_fmt(w, sizeof w, "%s: tail P(|q̂ᵀPk̂| ≥ t) = exact Beta law, every d and t", lab), "|z| ≤ 5");
    dstats(z->nd, z->d, S->haar_cmp, S->haar_unmet, 1, ds);
    rl_conc_decide(rep, &rl_rule_bound, ds, z->nd,
                   rl_fmt(w, sizeof w, "%s: tail ≤ cap bound (Ball) 2e^{−dt²/2} + 5 SE", lab), "(measured − cap)/SE ≤ 5");
}

/* The exact Beta law against the cap bound on a fine grid (for the figures),
 * and the check Beta <= cap. */
static void curves(const conc_size *z, const conc_summary *S, const rl_outdir *out, rl_report *rep)
{
    rl_tsv *t = rl_tsv_open(out, "concentration_curves.tsv",
                            "d\tt\tx\tbeta\tcap\thoeffding_spread\thoeffding_low");
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id];
        for (int k = 0; k < NCURVE; k++) {
            const curve_pt *p = &S->curve[id][k];
            rl_tsv_row(t, "%d\t%.6g\t%.5g\t%.6g\t%.6g\t%.6g\t%.6g", d, p->v, p->v * sqrt((double)d), p->b, p->l, p->hs,
                       p->hl);
        }
    }
    rl_tsv_close(t);
    char a[160];
    rl_report_decide(rep, &rl_rule_exact, S->worst <= 0, NULL, "exact Beta tail ≤ cap bound (Ball) (closed forms)",
                     "Beta − cap ≤ 0 on 200 t per d",
                     rl_fmt(a, sizeof a, "max Beta − cap = %.2g (d = %.0f, t = %.3f)", S->worst, S->wd, S->wt));
}

/* ---------- (b) the families far beyond their windows ---------- */

/* the family's own cost model (sampling/family_ops.h) */
static double route_cost(const spec *sp, int d, int m)
{
    (void)d;
    return rl_family_ops_of(&sp->st.f)->route_cost(&sp->st.f, (double)sp->st.n, m);
}

static long routes_for(const conc_size *z, const spec *sp, int d, int m)
{
    double budget = sp->st.f.kind == RL_FAM_SO2 && sp->st.n >= 65536 ? z->study_budget : z->budget;
    /* clamped before the cast: a zero cost (inf) or NaN never reaches (long) */
    const double q = budget / route_cost(sp, d, m);
    return !(q >= 16) ? 16 : q > z->cap ? z->cap : (long)q;
}

/* n = max(16, 3 W(0.01)): the mean route has norm <= 1e-6 (far beyond). */
static long far_length(double c)
{
    long w = rl_mixing_window(c, 0.01);
    return w < 0 ? -1 : (3 * w > 16 ? 3 * w : 16);
}

/* Whether a case runs at d: dense steps are O(d^3) each (up to
 * dense_dmax), and those dearer than d^3 flops a step (an expm) up to
 * brown_dmax (route_cost: the family's own estimate). */
static int runs_at(const rl_family *f, int d, const conc_size *z)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    if (o->form != RL_STEP_DENSE)
        return 1;
    const double d3 = (double)d * d * d;
    return d <= (o->route_cost(f, 1, 0) > d3 ? z->brown_dmax : z->dense_dmax);
}

/* The cell of case c at d (0: not run at d) */
static int fam_spec(const rl_sweep_case *cp, int d, const conc_size *z, spec *sp)
{
    const rl_sweep_case c = *cp;
    memset(sp, 0, sizeof *sp);
    if (!runs_at(&c.f, d, z))
        return 0;
    sp->label = c.label;
    sp->stream = c.stream;
    sp->st.f = c.f;
    sp->st.kind = rl_family_is_so2(&c.f) ? RL_ST_SO2 : RL_ST_CHAIN;
    sp->st.n = c.n;
    if (!sp->st.n) {
        /* E[M] = c I: n = far_length of the upper end of c (no closed form:
         * no length, the cell is not run) */
        double complex chi;
        double err = 0;
        if (!rl_family_has_mean(&c.f) || !rl_family_ops_of(&c.f)->mean(&c.f, NULL, &chi, &err))
            return 0;
        sp->cmean = creal(chi);
        sp->st.n = far_length(sp->cmean + err);
    }
    return 1;
}

/* d (level + rate^n): the bound on d E[s^2] under the hypothesis, level =
 * q^T Pi_F(q q^T) q = sum_b |q_b|^4 / 2 = sum_b a_b^2 / 2 for k = q */
static double so2_scale_bound(const rl_conc_so2_row *o)
{
    return o->d * (o->sum_a2 / 2 + pow(o->rate, (double)o->n));
}

void rl_conc_so2_derive(rl_conc_so2_row *o)
{
    o->rms_sqrtd = sqrt(o->ms * o->d);
    o->rms_sqrtd_se = o->ms_se * o->d / (2 * o->rms_sqrtd);
    o->rms_sqrtd_pred = sqrt(o->ms_pred * o->d);
    o->d_ms = o->d * o->ms;
    o->d_ms_se = o->d * o->ms_se;
    o->d_ms_bound = so2_scale_bound(o);
    o->a2_over_var = o->sum_a2 / o->var_pred;
    o->q95_over_t05 = o->q95 / o->t05;
    o->hoeff_q95_over_delta = o->hoeff_q95 / 0.05;
}

/* The SO(2) configurations of a cell: their moments against the exact ones
 * into out[g] (without rate and unmet), their tails into pt[g]. */
static void so2_config_summarise(const spec *sp, int law, int d, const rl_st_cell *c, rl_conc_so2_row *out,
                                 so2_pt (*pt)[NLEVY])
{
    const int h = d / 2;
    for (int g = 0; g < RL_NCFG; g++) {
        double a[h], s2 = 0;
        rl_st_cfg_weights(g, d, a);
        for (int b = 0; b < h; b++)
            s2 += a[b] * a[b];
        rl_conc_so2_row *o = &out[g];
        memset(o, 0, sizeof *o);
        o->law = law;
        o->cfg = g;
        o->d = d;
        o->n = sp->st.n;
        o->reps = c->reps;
        o->sum_a2 = s2;
        o->mean_pred = c->Ecfg[g];
        o->var_pred = rl_so2score_var(&sp->st.f, a, sp->st.n);
        o->ms_pred = o->var_pred + o->mean_pred * o->mean_pred;
        double *y = rl_xmalloc(sizeof(double) * c->reps), *y2 = rl_xmalloc(sizeof(double) * c->reps);
        for (long k = 0; k < c->reps; k++) {
            double v = c->cfg_s[g][k];
            y[k] = (v - o->mean_pred) * (v - o->mean_pred);
            y2[k] = v * v;
        }
        rl_mean_se(c->cfg_s[g], c->reps, 1, &o->mean, &o->mean_se);
        rl_mean_se(y, c->reps, 1, &o->var, &o->var_se);
        rl_mean_se(y2, c->reps, 1, &o->ms, &o->ms_se);
        free(y);
        free(y2);
        /* looseness at the t where Hoeffding's bound is 0.05 */
        o->t05 = sqrt(2 * s2 * log(2 / 0.05));
        o->hcen_over = -INFINITY;
        for (int k = 0; k < c->nt; k++) {
            so2_pt *p = &pt[g][k];
            p->ec = rl_tails_est(c->cfg_cen[g], k);
            p->ea = rl_tails_est(c->cfg_abs[g], k);
            p->hb = rl_hoeffding_so2(c->t[k], a, h);
            p->bt = rl_beta_tail(d, c->t[k]);
            p->lv = rl_levy_tail(d, c->t[k]);
            double se = p->ec.se > 0 ? p->ec.se : rl_tail_se_at(&p->ec, fmin(p->hb, 1));
            o->hcen_over = rl_worst(o->hcen_over, (p->ec.p - p->hb) / se);
        }
        /* the tail at t05, counted directly */
        long cnt = 0;
        for (long k = 0; k < c->reps; k++)
            cnt += fabs(c->cfg_s[g][k] - o->mean_pred) >= o->t05;
        o->tail05 = (double)cnt / c->reps;
        o->tail05_se = sqrt(fmax(o->tail05 * (1 - o->tail05), 0.05 * 0.95) / c->reps);
        /* looseness where the truth is resolved: the measured 95% quantile of
         * |s - Es| against Hoeffding's t05, and the bound's value there */
        double *dev = rl_xmalloc(sizeof(double) * c->reps);
        for (long k = 0; k < c->reps; k++)
            dev[k] = fabs(c->cfg_s[g][k] - o->mean_pred);
        /* the ceil(0.95 n)-th smallest (no interpolation: the inverse of the
         * empirical CDF), found by GSL's selection in place */
        o->q95 = gsl_stats_select(dev, 1, c->reps, (size_t)ceil(0.95 * c->reps) - 1);
        o->hoeff_q95 = rl_hoeffding_so2(o->q95, a, h);
        free(dev);
    }
}

static rl_status part_families_run(long seed, conc_res *R, rl_err *err)
{
    const conc_size *z = &R->z;
    for (int id = 0; id < z->nd; id++) {
        const int d = z->d[id], m = queries_per_route(z, d);
        /* the sweep's cases at d, once (the same cases, in the same order, at every d) */
        rl_sweep_case c[RL_SWEEP_CASES_MAX];
        int nc;
        RL_TRY(rl_sweep_cases(RL_SWEEP_CONCENTRATION, d, R->families, c, RL_SWEEP_CASES_MAX, &nc, err));
        for (int fi = 0; fi < R->nfam && fi < nc; fi++) {
            conc_cell *o = &R->fam[id][fi];
            if (!(o->ok = fam_spec(&c[fi], d, z, &o->sp)))
                continue;
            o->reps = routes_for(z, &o->sp, d, m);
            RL_TRY(run_cell(&o->sp, d, o->reps, m, R->Q[id], seed, rl_stream_key(o->sp.stream, d),
                            &o->c, err));
        }
    }
    return RL_OK;
}

/* One cell of part (b), family fi at dimension index id: its numbers into
 * o, its readings into the family's summary S->fam[fi], its SO(2)
 * configurations (if any) appended to S->rows. */
static void fam_cell_summarise(const conc_res *R, int id, int fi, conc_summary *S, fam_cellsum *o)
{
    const conc_size *z = &R->z;
    const int d = z->d[id], m = queries_per_route(z, d), h = d / 2;
    const double *Q = R->Q[id];
    const spec sp = R->fam[id][fi].sp;
    const long reps = R->fam[id][fi].reps;
    const rl_st_cell c = R->fam[id][fi].c;
    const int so2 = sp.st.kind == RL_ST_SO2;
    const conc_role role = role_of(&sp.st.f);
    fam_summary *s = &S->fam[fi];
    const int j = s->cells++;
    s->label = sp.label;
    s->role = role;
    o->m = m;
    o->so2 = so2;
    o->role = role;
    o->n = sp.st.n;
    o->reps = reps;
    double rate;
    s->dd[j] = d;
    if (!rl_conc_unmet(&sp.st.f, sp.st.n, &rate, s->unmet[j], sizeof s->unmet[j]))
        s->unmet[j][0] = 0;
    /* the Hoeffding bound of each query, averaged: the pooled tail is
     * the average of the m per-query tails */
    double *A = so2 ? rl_xmalloc(sizeof(double) * m * h) : NULL;
    for (int i = 0; so2 && i < m; i++)
        rl_so2score_weights(d, Q + (long)i * d, A + (long)i * h);
    for (int k = 0; k < c.nt; k++) {
        fam_pt *p = &o->pt[k];
        p->e = rl_tails_est(c.abs, k);
        p->ed = rl_tails_est(c.dir, k);
        p->ec = so2 ? rl_tails_est(c.cen, k) : p->e;
        p->bt = rl_beta_tail(d, c.t[k]);
        p->lv = rl_levy_tail(d, c.t[k]);
        p->hb = NAN;
        if (so2) {
            p->hb = 0;
            for (int i = 0; i < m; i++)
                p->hb += rl_hoeffding_so2(c.t[k], A + (long)i * h, h) / m;
            cmp_point(&s->hoeff, &p->ec, NAN, p->hb, c.t[k], d);
        }
        cmp_point(&s->beta[j], &p->e, p->bt, NAN, c.t[k], d);
        cmp_point(&s->levy[j], &p->e, NAN, p->lv, c.t[k], d);
        cmp_point(&s->beta_all, &p->e, p->bt, NAN, c.t[k], d);
        cmp_point(&s->levy_all, &p->e, NAN, p->lv, c.t[k], d);
        if (role == ROLE_SHRINK)
            cmp_point(&s->dir[j], &p->ed, p->bt, NAN, c.t[k], d);
    }
    /* moments: E s exactly; E s^2 against the sphere's 1/d (and the
     * exact SO(2) value); E|P q|^2 = (1 - beta(2-beta)/d)^n for PaTH
     * (|(I - b w w^T)x|^2 = |x|^2 - b(2-b)(w.x)^2, E(w.x)^2 = |x|^2/d) */
    o->mp = 0;
    o->sqp = 1.0 / d;
    o->n2p = 1;
    rl_mean_se(c.mean, reps, 1, &o->mu, &o->mse);
    rl_mean_se(c.sq, reps, 1, &o->sq, &o->sqse);
    rl_mean_se(c.nrm2, reps, 1, &o->n2, &o->n2se);
    if (so2) {
        o->sqp = 0;
        for (int i = 0; i < m; i++) {
            o->mp += c.Es[i] / m;
            o->sqp += (rl_so2score_var(&sp.st.f, A + (long)i * h, sp.st.n) + c.Es[i] * c.Es[i]) / m;
        }
    } else {
        o->mp = pow(sp.cmean, (double)sp.st.n);
    }
    if (role == ROLE_SHRINK) {
        o->n2p = pow(1.0 - sp.st.f.beta * (2 - sp.st.f.beta) / d, (double)sp.st.n);
        s->norm_z = rl_worst(s->norm_z, fabs(o->n2 - o->n2p) / fmax(o->n2se, 1e-300));
    }
    s->mean_z = rl_worst(s->mean_z, fabs(o->mu - o->mp) / fmax(o->mse, 1e-300));
    s->sq_ratio_min = fmin(s->sq_ratio_min, o->sq * d);
    s->sq_ratio_max = rl_worst(s->sq_ratio_max, o->sq * d);
    if (so2 && so2_study(&sp.st.f) && id == z->nd - 1) {
        /* how the unmixed blocks move the tail: at x = t sqrt(d) = 2 */
        const int k2 = 7;
        s->depart = 1;
        s->dep_d = d;
        s->dep_t = c.t[k2];
        s->dep_p = o->pt[k2].e.p;
        s->dep_se = o->pt[k2].e.se;
        s->dep_beta = o->pt[k2].bt;
        s->dep_mu = o->mu;
        s->dep_mp = o->mp;
    }
    if (so2) {
        o->row0 = S->nrows;
        so2_config_summarise(&sp, so2_study(&sp.st.f), d, &c, S->rows + S->nrows, o->cfg);
        for (int g = 0; g < RL_NCFG; g++) {
            rl_conc_so2_row *r = &S->rows[S->nrows + g];
            r->rate = rate;
            memcpy(r->unmet, s->unmet[j], sizeof r->unmet); /* both 256 bytes, NUL-terminated */
            rl_conc_so2_derive(r);
        }
        S->nrows += RL_NCFG;
    }
    free(A);
}

/* The TSV files of part (b), written cell by cell. */
typedef struct {
    rl_tsv *t, *mo, *so;
} fam_files;

/* One cell's rows of the files of part (b). */
static void fam_cell_render(const conc_res *R, int id, int fi, const conc_summary *S, const fam_files *F)
{
    const int d = R->z.d[id];
    const double *t = R->fam[id][fi].c.t;
    const int nt = R->fam[id][fi].c.nt;
    const char *lab = R->fam[id][fi].sp.label;
    const fam_cellsum *o = &S->cell[id][fi];
    for (int k = 0; k < nt; k++) {
        const fam_pt *p = &o->pt[k];
        rl_tsv_row(F->t, "%s\t%d\t%ld\t%ld\t%d\t%.6g\t%.4g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g",
                   lab, d, o->n, o->reps, o->m, t[k], t[k] * sqrt((double)d), p->e.p, p->e.se, p->bt, p->lv,
                   o->so2 ? p->ec.p : NAN, o->so2 ? p->ec.se : NAN, p->hb, o->so2 ? NAN : p->ed.p,
                   o->so2 ? NAN : p->ed.se);
    }
    rl_tsv_row(F->mo, "%s\t%d\t%ld\t%ld\t%d\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g", lab, d, o->n,
               o->reps, o->m, o->mu, o->mse, o->mp, o->sq, o->sqse, 1.0 / d,
               o->so2 ? o->sqp : (o->role == ROLE_SHRINK ? NAN : 1.0 / d), o->n2, o->n2se, o->n2p);
    if (!o->so2)
        return;
    for (int g = 0; g < RL_NCFG; g++) {
        const rl_conc_so2_row *r = &S->rows[o->row0 + g];
        for (int k = 0; k < nt; k++) {
            const so2_pt *p = &o->cfg[g][k];
            rl_tsv_row(F->so, "%s\t%s\t%d\t%ld\t%ld\t%.6g\t%.4g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g",
                       r->law ? "study-uniform" : "circle", rl_st_cfg_name[g], d, r->n, r->reps, t[k],
                       t[k] * sqrt((double)d), p->ec.p, p->ec.se, p->hb, p->ea.p, p->ea.se, p->bt, p->lv,
                       r->mean_pred);
        }
    }
}

/* The verdicts of part (b), family by family. */
static void fam_verdicts(const fam_summary *S, int nfam, rl_report *rep)
{
    char w[512], a[256], b[256];
    for (int fi = 0; fi < nfam; fi++) {
        const fam_summary *s = &S[fi];
        if (!s->cells)
            continue;
        const char *lab = s->label;
        rl_conc_dstat ds[MAXD];
        if (s->role == ROLE_DENSE) {
            dstats(s->cells, s->dd, s->beta, s->unmet, 0, ds);
            rl_conc_decide(rep, &rl_rule_agree, ds, s->cells,
                           rl_fmt(w, sizeof w, "%s, n far beyond its window (3 W(0.01)): tail = Beta law", lab),
                           "|z| ≤ 5");
        }
        if (s->role == ROLE_SHRINK) {
            /* exact at any n: no hypothesis */
            rl_report_decide(rep, &rl_rule_agree, s->norm_z, NULL,
                             RL_PROSE_CONCENTRATION_NORM_CHECK,
                             "|z| ≤ 5", rl_fmt(a, sizeof a, "max |z| = %.2f over %d dimensions", s->norm_z, s->cells));
            dstats(s->cells, s->dd, s->dir, s->unmet, 0, ds);
            rl_conc_decide(rep, &rl_rule_agree, ds, s->cells,
                           RL_PROSE_CONCENTRATION_DIRECTION_CHECK, "|z| ≤ 5");
        }
        if (s->role == ROLE_SO2) {
            /* independent bounded block terms: Hoeffding holds at any n */
            rl_report_decide(rep, &rl_rule_bound, s->hoeff.over, NULL,
                             rl_fmt(w, sizeof w, RL_PROSE_CONCENTRATION_HOEFFDING_CHECK, lab),
                             "(measured − bound)/SE ≤ 5",
                             rl_fmt(a, sizeof a, "max %.1f (d = %.0f, t = %.3f)", s->hoeff.over, s->hoeff.over_d,
                                    s->hoeff.over_t));
            rl_report_info(rep, rl_fmt(w, sizeof w, RL_PROSE_CONCENTRATION_BETA_INFO, lab),
                           RL_PROSE_CONCENTRATION_SO2_BETA_PRED,
                           s->depart ? rl_fmt(b, sizeof b, "d = %d, t = %.3f: P(|s| ≥ t) = %.3f ± %.3f against Beta %.2g; E s = %.3f (exact %.3f)",
                                              s->dep_d, s->dep_t, s->dep_p, s->dep_se, s->dep_beta, s->dep_mu, s->dep_mp)
                                     : rl_fmt(b, sizeof b, "max |z| = %.1f; d·E s² = %.2f … %.2f (sphere: 1)",
                                                  s->beta_all.zmax, s->sq_ratio_min, s->sq_ratio_max));
            rl_report_info(rep, rl_fmt(w, sizeof w, RL_PROSE_CONCENTRATION_CAP_INFO, lab),
                           "(measured − cap)/SE ≤ 5",
                           rl_fmt(a, sizeof a, "max %.1f (d = %.0f, t = %.3f)", s->levy_all.over, s->levy_all.over_d,
                                  s->levy_all.over_t));
        } else {
            dstats(s->cells, s->dd, s->levy, s->unmet, 1, ds);
            rl_conc_decide(rep, &rl_rule_bound, ds, s->cells,
                           rl_fmt(w, sizeof w, "%s: tail ≤ cap bound (Ball) 2e^{−dt²/2} + 5 SE", lab),
                           "(measured − cap)/SE ≤ 5");
        }
        /* exact at any n: no hypothesis */
        rl_report_decide(rep, &rl_rule_agree, s->mean_z, NULL,
                         rl_fmt(w, sizeof w, "%s: mean score E q̂ᵀPq̂ = closed form", lab),
                         s->role == ROLE_SO2 ? "Σ_b a_b Re χ_b^n" : "c^n (E[M] = cI)",
                         rl_fmt(a, sizeof a, "max |z| = %.2f over %d dimensions", s->mean_z, s->cells));
    }
}

/* concentration_so2_scale.tsv: the SO(2) configurations of part (c), by law
 * and configuration, then d (one curve per run of rows). */
static void so2_scale_tsv(const rl_conc_so2_row *rows, int nrows, const rl_outdir *out)
{
    rl_tsv *sc = rl_tsv_open(out, "concentration_so2_scale.tsv",
                             "law_id\tconfig_id\td\trms_sqrtd\trms_sqrtd_se\trms_sqrtd_pred\tlaw\tconfig\tn\treps\t"
                             "sum_a2\tmean\tmean_se\tmean_pred\tvar\tvar_se\tvar_pred\tt05\ttail05\ttail05_se\tq95_meas\thoeffding_at_q95\t"
                             "d_ms\td_ms_se\td_ms_bound\trate2");
    for (int i = 0; i < nrows * 2 * RL_NCFG; i++) {
        const rl_conc_so2_row *o = &rows[i % nrows];
        if (o->law * RL_NCFG + o->cfg != i / nrows)
            continue;
        rl_tsv_row(sc, "%d\t%d\t%d\t%.6g\t%.3g\t%.6g\t%s\t%s\t%ld\t%ld\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g"
                   "\t%.6g\t%.3g\t%.6g\t%.10g",
                   o->law, o->cfg, o->d, o->rms_sqrtd, o->rms_sqrtd_se, o->rms_sqrtd_pred,
                   o->law ? "study-uniform" : "circle", rl_st_cfg_name[o->cfg], o->n, o->reps, o->sum_a2, o->mean, o->mean_se,
                   o->mean_pred, o->var, o->var_se, o->var_pred, o->t05, o->tail05, o->tail05_se, o->q95, o->hoeff_q95,
                   o->d_ms, o->d_ms_se, o->d_ms_bound, o->rate);
    }
    rl_tsv_close(sc);

}

void rl_conc_so2_summarise(const rl_conc_so2_row *rows, int nrows, rl_conc_so2_group g[2][RL_NCFG])
{
    for (int law = 0; law < 2; law++)
        for (int c = 0; c < RL_NCFG; c++) {
            rl_conc_so2_group *G = &g[law][c];
            memset(G, 0, sizeof *G);
            G->over = -INFINITY;
            for (int i = 0; i < nrows; i++) {
                const rl_conc_so2_row *o = &rows[i];
                if (o->law != law || o->cfg != c)
                    continue;
                if (G->cnt < RL_CONC_MAXD) {
                    rl_conc_dstat *q = &G->ds[G->cnt];
                    q->d = o->d;
                    q->x = rl_conc_scale_excess(o->ms, o->ms_se, o->sum_a2 / 2, o->rate, o->n);
                    q->t = NAN;
                    q->tested = 0;
                    snprintf(q->unmet, sizeof q->unmet, "%s", o->unmet);
                }
                G->cnt++;
                G->zm = rl_worst(G->zm, fabs(o->mean - o->mean_pred) / fmax(o->mean_se, 1e-300));
                G->zv = rl_worst(G->zv, fabs(o->var - o->var_pred) / fmax(o->var_se, 1e-300));
                G->over = rl_worst(G->over, o->hcen_over);
            }
        }
}

/* The verdicts of part (c): per law and configuration, over d, and the table
 * of their moments. */
static void so2_verdicts(const rl_conc_so2_row *rows, int nrows, const rl_conc_so2_group G[2][RL_NCFG],
                         rl_report *rep)
{
    char w[512], a[256];
    size_t cap = 1 << 15, used = 0;
    char *tab = rl_xmalloc(cap);
    used += snprintf(tab + used, cap - used,
                     "angles\tq, k\td\tΣa_b²\tE s (exact)\tE s measured\tVar s (exact)\tΣa_b² / Var s\t"
                     "d·E s² measured\td·(Σa_b²/2 + rateⁿ)\tt₉₅ measured / t₀₅ Hoeffding\tHoeffding at t₉₅ / 0.05\n");
    for (int law = 0; law < 2; law++)
        for (int g = 0; g < RL_NCFG; g++) {
            const rl_conc_so2_group *q = &G[law][g];
            for (int i = 0; i < nrows; i++) {
                const rl_conc_so2_row *o = &rows[i];
                if (o->law != law || o->cfg != g)
                    continue;
                if (used + 512 < cap)
                    used += snprintf(tab + used, cap - used,
                                     "%s (n = %ld)\t%s\t%d\t%.4g\t%.4f\t%.4f ± %.4f\t%.3g\t%.3g\t%.3f ± %.3f\t%.3g\t%.3g\t%.3g\n",
                                     law ? "U(−ω_b, ω_b)" : "circle", o->n, rl_st_cfg_name[g], o->d, o->sum_a2, o->mean_pred,
                                     o->mean, o->mean_se, o->var_pred, o->a2_over_var, o->d_ms, o->d_ms_se,
                                     o->d_ms_bound, o->q95_over_t05, o->hoeff_q95_over_delta);
            }
            if (!q->cnt)
                continue;
            const char *ln = law ? "study U(−ω_b, ω_b), n = 65,536" : "circle angles";
            /* independent bounded block terms: Hoeffding, and the moments
             * from chi_b^n, are exact at any n (no hypothesis) */
            rl_report_decide(rep, &rl_rule_bound, q->over, NULL,
                             rl_fmt(w, sizeof w, RL_PROSE_CONCENTRATION_SO2_HOEFFDING_CHECK,
                                    ln, rl_st_cfg_name[g]),
                             "(measured − bound)/SE ≤ 5", rl_fmt(a, sizeof a, "max %.1f over %d dimensions", q->over, q->cnt));
            rl_report_decide(rep, &rl_rule_agree, rl_worst(q->zm, q->zv), NULL,
                             rl_fmt(w, sizeof w, "SO(2) %s, %s: E s and Var s = exact (χ_b^n)", ln, rl_st_cfg_name[g]),
                             "|z| ≤ 5", rl_fmt(a, sizeof a, "max |z| = %.2f (mean), %.2f (variance)", q->zm, q->zv));
            rl_conc_decide(rep, &rl_rule_bound, q->ds, q->cnt < MAXD ? q->cnt : MAXD,
                           rl_fmt(w, sizeof w, RL_PROSE_CONCENTRATION_SO2_SCALE_CHECK,
                                  ln, rl_st_cfg_name[g]),
                           RL_PROSE_CONCENTRATION_SO2_SCALE_PRED);
        }
    rl_report_table(rep, RL_PROSE_CONCENTRATION_SO2_CAPTION,
                    tab);
    free(tab);
}

/* Every number of the report from the run R into S (no files, no report). */
static void conc_summarise(const conc_res *R, conc_summary *S)
{
    memset(S, 0, sizeof *S);
    curves_summarise(&R->z, S);
    haar_summarise(R, S);
    for (int f = 0; f < NFAM; f++) {
        for (int j = 0; j < MAXD; j++) {
            cmp_init(&S->fam[f].beta[j]);
            cmp_init(&S->fam[f].levy[j]);
            cmp_init(&S->fam[f].dir[j]);
        }
        cmp_init(&S->fam[f].hoeff);
        cmp_init(&S->fam[f].beta_all);
        cmp_init(&S->fam[f].levy_all);
        S->fam[f].sq_ratio_min = INFINITY;
    }
    for (int id = 0; id < R->z.nd; id++)
        for (int fi = 0; fi < R->nfam; fi++)
            if (R->fam[id][fi].ok)
                fam_cell_summarise(R, id, fi, S, &S->cell[id][fi]);
    rl_conc_so2_summarise(S->rows, S->nrows, S->grp);
}

static void part_families(const conc_res *R, const conc_summary *S, const rl_outdir *out, rl_report *rep)
{
    fam_files F;
    F.t = rl_tsv_open(out, "concentration_families.tsv",
                            "family\td\tn\treps\tm\tt\tx\ttail\tse\tbeta\tlevy\ttail_centered\tse_centered\thoeffding\t"
                            "tail_direction\tse_direction");
    F.mo = rl_tsv_open(out, "concentration_moments.tsv",
                             "family\td\tn\treps\tm\tmean\tmean_se\tmean_pred\tsq\tsq_se\tsq_beta\tsq_pred\tnorm2\tnorm2_se\t"
                             "norm2_pred");
    F.so = rl_tsv_open(out, "concentration_so2.tsv",
                             "law\tconfig\td\tn\treps\tt\tx\ttail_centered\tse_centered\thoeffding\ttail_abs\tse_abs\tbeta\t"
                             "cap\tmean_pred");
    for (int id = 0; id < R->z.nd; id++)
        for (int fi = 0; fi < R->nfam; fi++)
            if (R->fam[id][fi].ok)
                fam_cell_render(R, id, fi, S, &F);
    rl_tsv_close(F.t);
    rl_tsv_close(F.mo);
    rl_tsv_close(F.so);
    fam_verdicts(S->fam, R->nfam, rep);
    so2_scale_tsv(S->rows, S->nrows, out);
    so2_verdicts(S->rows, S->nrows, S->grp, rep);
}

rl_status rl_exp_concentration_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    conc_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    R->families = ctx->families;
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    RL_TRY(rl_sweep_cases(RL_SWEEP_CONCENTRATION, R->z.d[0], R->families, c, RL_SWEEP_CASES_MAX, &R->nfam, err));
    for (int id = 0; id < R->z.nd; id++)
        R->Q[id] = rl_st_queries(ctx->seed, R->z.d[id], queries_per_route(&R->z, R->z.d[id]));
    RL_TRY(part_haar_run(ctx->seed, R, err));
    RL_TRY(part_families_run(ctx->seed, R, err));
    return RL_OK;
}

void rl_exp_concentration_free(void *res)
{
    conc_res *R = res;
    if (!R)
        return;
    for (int id = 0; id < R->z.nd; id++) {
        rl_st_free(&R->haar[id].c);
        for (int fi = 0; fi < R->nfam; fi++)
            if (R->fam[id][fi].ok)
                rl_st_free(&R->fam[id][fi].c);
        free(R->Q[id]);
    }
    free(R);
}

void rl_exp_concentration_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    const conc_res *R = res;
    const conc_size z = R->z;
    char ds[64] = "";
    for (int i = 0; i < z.nd; i++)
        snprintf(ds + strlen(ds), sizeof ds - strlen(ds), "%s%d", i ? " " : "", z.d[i]);
    rl_report_text(rep,
                   RL_PROSE_CONCENTRATION_INTRO,
                   ds, z.haar_reps, z.m, z.dense_dmax, z.brown_dmax);
    rl_report_text(rep,
                   RL_PROSE_CONCENTRATION_HYPOTHESIS);
    conc_summary *S = rl_xmalloc(sizeof *S);
    conc_summarise(R, S);
    curves(&z, S, out, rep);
    part_haar(R, S, out, rep);
    part_families(R, S, out, rep);
    free(S);

    const rl_plotvar vars[] = { RL_PV_S("ds", ds) };
    rl_plot(out, "concentration_haar", "concentration_haar", vars, RL_NVARS(vars));
    rl_plot(out, "concentration_families", "concentration_families", vars, RL_NVARS(vars));
    rl_plot(out, "concentration_so2", "concentration_so2", vars, RL_NVARS(vars));
    rl_report_figure(rep, "concentration_haar.png",
                     RL_PROSE_CONCENTRATION_FIG_HAAR);
    rl_report_figure(rep, "concentration_families.png",
                     RL_PROSE_CONCENTRATION_FIG_FAMILIES);
    rl_report_figure(rep, "concentration_so2.png",
                     RL_PROSE_CONCENTRATION_FIG_SO2);
}
