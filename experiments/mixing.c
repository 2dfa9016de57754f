/* mixing.c: claim 1, the mixing window.
 *
 * For i.i.d. steps, E[P_n] = E[M]^n, so ||E[P_n]|| <= ||E[M]||^n and routes
 * decorrelate after W(eps) = ceil(log(1/eps)/log(1/||E[M]||)) steps whatever
 * the context length.  Measured here: the mean of P_n by Monte Carlo for
 * every family (per block for SO(2)), the coherence E[q^T P_n q], its second
 * moment against the Haar value, the window, the study's U(-w_b, w_b) variant
 * block by block at d = 64 and 96, token-driven steps on real text, and the
 * positive-drift law. */
#include <limits.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/streams.h"
#include "../base/core/tokfile.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../mc/sweep_cases.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/tokens.h"
#include "../theory/study.h"
#include "../theory/theory.h"
#include "../mc/family_mean.h"
#include "../mc/routes.h"
#include "../mc/textsteps.h"
#include "../program/report/plot.h"
#include "../program/report/report.h"
#include "../program/report/tsv.h"
#include "claim_fns.h"
#include "claims.h"
#include "mixing.h"
#include "prose_experiments.h"

/* The cap of one top-up (rl_mix_topup_plan), in the units of the
 * families' own cost model (rl_family_ops.route_cost: reps x n x the cost
 * of one step applied to the d rows of a route).  The dearest unit measured
 * is Brownian's (matrix exponentials: about 1.2e9 units a second on 2
 * cores, notes-topup.md), so quick's 1e10 keeps any one row under about 8 s
 * (its 8 top-ups took 7 s, Brownian's 6.7 of them); full allows 8e10. */
static rl_mix_size size_of(int preset)
{
    rl_mix_size q = { 1024, 16, 65536, 1L << 17, 1e10 };
    rl_mix_size f = { 4096, 32, 65536, 1L << 20, 8e10 };
    return preset == RL_PRESET_FULL ? f : q;
}

/* Predicted mean step on block b (SO(2)) or the scalar c of E[M] = cI,
 * from the family's closed form (sampling/family_ops.h); callers ask
 * rl_family_has_mean first (no closed form: no prediction, never a NaN). */
static double complex pred_chi(const rl_family *f, int b)
{
    const int nb = rl_family_mean_blocks(f);
    double complex chi[nb];
    const rl_family_ops *o = rl_family_ops_of(f);
    if (!o->mean || !o->mean(f, NULL, chi, NULL))
        return NAN;
    return chi[b < nb ? b : 0];
}

/* Measured window: the least grid length where the estimate is <= eps; -1
 * if none.  The estimate at g is est[g]. */
static long measured_window(const long *n, const double *est, int ng, double eps, int *at)
{
    for (int g = 0; g < ng; g++)
        if (est[g] <= eps) {
            *at = g;
            return n[g];
        }
    *at = -1;
    return -1;
}

void rl_mix_mean_row(rl_report *rep, const char *label, int d, long nmax, int ng, double nrm, double worst_z,
                     int deterministic)
{
    char w[256], b[128];
    rl_fmt(b, sizeof b, "max |z| = %.2f over %d lengths", worst_z, ng);
    if (deterministic) {
        /* one fixed rotation: the mean route is the product itself, so this
         * checks the arithmetic (z against a 1e-9 rounding floor), not the claim */
        rl_report_identity(rep, worst_z <= 5,
                           rl_fmt(w, sizeof w, RL_PROSE_MIXING_FIXED_CHECK,
                                  label, d, nmax),
                           "equal to rounding (1e-9) at every n", b);
        return;
    }
    /* nrm, the norm of the closed-form mean step, NaN without one: no prediction */
    rl_report_decide_pred(rep, &rl_rule_agree, nrm, worst_z, NULL,
                          rl_fmt(w, sizeof w, "%s (d=%d): mean route = (mean step)^n for n <= %ld", label, d, nmax),
                          "|z| <= 5 at every n", b);
}

/* The margin to eps at which a window's test lengths are chosen (rule
 * window, claims.c): 2k SE, k = the rule's 3. */
static double window_margin(void)
{
    return 2 * rl_rule_window.k;
}

/* Replicates at which the margin |p - eps| would reach m SE, from reps
 * with standard error se there (SE proportional to 1/sqrt(replicates)):
 * ceil(reps (m se / |p - eps|)^2); LONG_MAX when p = eps (no number decides
 * it), -1 when that is not a number (a NaN se or p). */
static long reps_at_margin(long reps, double se, double p, double eps, double m)
{
    const double r = m * se / fabs(p - eps), n = ceil((double)reps * r * r);
    if (isnan(n))
        return -1;
    return n < (double)LONG_MAX ? (long)n : LONG_MAX;
}

/* ... at the margin 2k SE at which the test lengths are chosen (LONG_MAX
 * also when it is not a number: no count is known to decide it) */
static long window_reps_needed(long reps, double se, double p, double eps)
{
    const long n = reps_at_margin(reps, se, p, eps, window_margin());
    return n < 0 ? LONG_MAX : n;
}

/* The two test lengths of the window W = wp on grid[0..ng-1] (rule window):
 * *hi the first grid index at or past W with predicted nrm^n <= eps - 6 SE,
 * *lo the last before W with predicted >= eps + 6 SE; -1 where none. */
static void window_bracket(double nrm, double eps, long wp, const long *grid, const double *se, int ng, int *lo,
                           int *hi)
{
    const double m = window_margin();
    *lo = *hi = -1;
    for (int g = 0; g < ng; g++) {
        const double p = pow(nrm, (double)grid[g]);
        if (grid[g] < wp && p >= eps + m * se[g])
            *lo = g;
        if (grid[g] >= wp && *hi < 0 && p <= eps - m * se[g])
            *hi = g;
    }
}

/* The bracket of the window W = wp (rule window) on grid[0..ng-1] (the base
 * run's, or a top-up's lengths) into w: its lengths, the rule's statistic
 * and the replicates that would form it, or decide it at this margin. */
static void window_decision(double nrm, double eps, long wp, const long *grid, const double *est, const double *se,
                            int ng, long reps, rl_mix_window_sum *w)
{
    /* the crossing bracketed (rule window): above eps at n_lo, below at n_hi,
     * each where the prediction is 6 SE from eps; the lower side only when
     * W > 1 (E M = 0 exactly gives W = 1 for every eps: then the row checks
     * only that the sampler's mean step is 0) */
    int lo, hi;
    window_bracket(nrm, eps, wp, grid, se, ng, &lo, &hi);
    w->lower = wp > grid[0];
    w->dmax = grid[ng - 1];
    w->dreps = reps;
    w->dest_end = est[ng - 1];
    w->dse_end = se[ng - 1];
    w->n_lo = lo >= 0 ? grid[lo] : -1;
    w->n_hi = hi >= 0 ? grid[hi] : -1;
    w->p_lo = lo >= 0 ? pow(nrm, (double)grid[lo]) : NAN;
    w->p_hi = hi >= 0 ? pow(nrm, (double)grid[hi]) : NAN;
    w->est_lo = lo >= 0 ? est[lo] : NAN;
    w->se_lo = lo >= 0 ? se[lo] : NAN;
    w->est_hi = hi >= 0 ? est[hi] : NAN;
    w->se_hi = hi >= 0 ? se[hi] : NAN;
    const double x_hi = hi >= 0 ? rl_effect_z(est[hi] - eps, se[hi]) : NAN;
    const double x_lo = w->lower ? (lo >= 0 ? rl_effect_z(eps - est[lo], se[lo]) : NAN) : -INFINITY;
    w->x = rl_worst(x_hi, x_lo);
    long need = 0;
    if (hi < 0) /* the best upper point: the longest route, its prediction the least */
        need = window_reps_needed(reps, se[ng - 1], pow(nrm, (double)w->dmax), eps);
    if (w->lower && lo < 0) {
        long nl = window_reps_needed(reps, se[0], pow(nrm, (double)grid[0]), eps);
        need = nl > need ? nl : need;
    }
    w->need = need;
    /* formed: the replicates at which the observed margin of the closer
     * side would be 3 SE (shown when the rule leaves it unresolved) */
    const int g = w->x == x_hi ? hi : lo;
    w->need_margin = need == 0 && g >= 0 ? reps_at_margin(reps, se[g], est[g], eps, rl_rule_window.k) : -1;
}

/* The predictions at the lengths of w's top-up. */
static void topup_preds(double nrm, rl_mix_window_sum *w)
{
    for (int g = 0; g < w->tu.ng; g++)
        w->tu_pred[g] = pow(nrm, (double)w->tu.n[g]);
}

void rl_mix_window_summarise(double nrm, double eps, const long *grid, const double *est, const double *se, int ng,
                             long reps, const rl_mix_topup *tu, rl_mix_window_sum *w)
{
    memset(w, 0, sizeof *w);
    w->eps = eps;
    w->nrm = nrm;
    w->reps = reps;
    w->nmax = grid[ng - 1];
    w->wp = isfinite(nrm) ? rl_mixing_window(nrm, eps) : -1;
    int at;
    w->wm = measured_window(grid, est, ng, eps, &at);
    w->est_last = est[ng - 1];
    w->se_last = se[ng - 1];
    if (tu)
        w->tu = *tu;
    topup_preds(nrm, w);
    if (!isfinite(nrm) || w->wp < 0 || w->wp > w->nmax)
        return; /* no prediction, or W past the run: nothing to decide */
    if (w->tu.ng > 0 && !w->tu.capped) /* decided from the top-up's independent routes */
        window_decision(nrm, eps, w->wp, w->tu.n, w->tu.est, w->tu.se, w->tu.ng, w->tu.reps, w);
    else
        window_decision(nrm, eps, w->wp, grid, est, se, ng, reps, w);
}

/* The decided window row of w; m: the base run's measured window, note:
 * appended to the measurement. */
static void window_render_decided(rl_report *rep, const char *label, const rl_mix_window_sum *w, const char *m,
                                  const char *note)
{
    char wt[256], a[200], b[720], nd[160] = "";
    if (w->need > 0)
        rl_fmt(nd, sizeof nd, "; " RL_PROSE_MIXING_NEEDS_REPS, w->eps, w->need, w->dreps);
    else if (rl_rule_decide(&rl_rule_window, w->x) == RL_V_UNRESOLVED && w->need_margin >= 0 &&
             w->need_margin < LONG_MAX)
        rl_fmt(nd, sizeof nd, "; needs about %ld replicates at this margin (this run %ld)", w->need_margin, w->dreps);
    char pl[80] = "n_lo: none (W = 1)", ph[80], ml[80] = "", mh[80], xs[32];
    if (w->lower && w->n_lo >= 0)
        rl_fmt(pl, sizeof pl, "n_lo = %ld: %.4g", w->n_lo, w->p_lo);
    else if (w->lower)
        rl_fmt(pl, sizeof pl, "n_lo: none (n < %ld)", w->wp);
    if (w->n_hi >= 0)
        rl_fmt(ph, sizeof ph, "n_hi = %ld: %.4g", w->n_hi, w->p_hi);
    else
        rl_fmt(ph, sizeof ph, "n_hi: none (n <= %ld)", w->dmax);
    if (w->lower && w->n_lo >= 0)
        rl_fmt(ml, sizeof ml, "n_lo: %.4g ± %.2g; ", w->est_lo, w->se_lo);
    if (w->n_hi >= 0)
        rl_fmt(mh, sizeof mh, "n_hi: %.4g ± %.2g; ", w->est_hi, w->se_hi);
    else
        rl_fmt(mh, sizeof mh, "at n = %ld: %.4g ± %.2g; ", w->dmax, w->dest_end, w->dse_end);
    if (w->nrm == 0)
        rl_fmt(wt, sizeof wt, RL_PROSE_MIXING_WINDOW_EXACT_CHECK, label, w->eps, w->eps);
    else
        rl_fmt(wt, sizeof wt, RL_PROSE_MIXING_WINDOW_CHECK, label, w->eps, w->wp, w->eps, w->eps);
    rl_report_decide_pred(rep, &rl_rule_window, w->nrm, w->x, NULL, wt,
                          rl_fmt(a, sizeof a, "W = %ld; %s; %s", w->wp, pl, ph),
                          rl_fmt(b, sizeof b, "%s%s%s; %s%s%s", ml, mh,
                                 isnan(w->x) ? "x not formed" : rl_fmt(xs, sizeof xs, "x = %.2f", w->x), m, nd,
                                 note));
}

/* The window row of w: no prediction, past the run (info), or decided. */
static void window_render(rl_report *rep, const char *label, const rl_mix_window_sum *w)
{
    char wt[256], a[200], b[400], m[64], nt[200] = "";
    const rl_mix_topup *tu = &w->tu;
    if (w->wm < 0)
        rl_fmt(m, sizeof m, "never below %g by n = %ld", w->eps, w->nmax);
    else
        rl_fmt(m, sizeof m, "first below %g at n = %ld", w->eps, w->wm);
    if (!isfinite(w->nrm)) {
        rl_report_decide_pred(rep, &rl_rule_window, w->nrm, NAN, NULL,
                              rl_fmt(wt, sizeof wt, "%s: window W(%g): |E P_n| <= %g from n = W", label, w->eps,
                                     w->eps),
                              "no closed form for ‖E M‖", m);
        return;
    }
    if (w->wp < 0 || w->wp > w->nmax) {
        /* the claim bounds |E P_n| by eps only from W on: nothing to check here */
        rl_report_info(rep, rl_fmt(wt, sizeof wt, RL_PROSE_MIXING_WINDOW_BEYOND, label, w->eps, w->nmax),
                       w->wp < 0 ? "never" : rl_fmt(a, sizeof a, "%ld > %ld", w->wp, w->nmax),
                       w->wm < 0 ? rl_fmt(b, sizeof b, "not reached by n = %ld (|E P_n| = %.4g ± %.2g there)",
                                          w->nmax, w->est_last, w->se_last)
                                 : rl_fmt(b, sizeof b, "first below %g at n = %ld", w->eps, w->wm));
        return;
    }
    if (tu->ng > 0 && tu->capped) {
        rl_fmt(nt, sizeof nt, "; " RL_PROSE_MIXING_TOPUP_CAPPED, tu->reps, tu->n[tu->ng - 1], tu->cost, tu->cap);
    } else if (tu->ng > 0) {
        char ns[48];
        if (tu->ng > 1)
            rl_fmt(ns, sizeof ns, "%ld, %ld", tu->n[0], tu->n[1]);
        else
            rl_fmt(ns, sizeof ns, "%ld", tu->n[0]);
        rl_fmt(nt, sizeof nt, "; " RL_PROSE_MIXING_TOPUP_RUN, tu->reps, ns, w->reps);
    }
    window_render_decided(rep, label, w, m, nt);
}

void rl_mix_window_row_tu(rl_report *rep, const char *label, double nrm, double eps, const long *grid,
                          const double *est, const double *se, int ng, long reps, const rl_mix_topup *tu)
{
    rl_mix_window_sum w;
    rl_mix_window_summarise(nrm, eps, grid, est, se, ng, reps, tu, &w);
    window_render(rep, label, &w);
}

void rl_mix_window_row(rl_report *rep, const char *label, double nrm, double eps, const long *grid,
                       const double *est, const double *se, int ng, long reps)
{
    rl_mix_window_row_tu(rep, label, nrm, eps, grid, est, se, ng, reps, NULL);
}

/* The replicates of a top-up: the need, the most that the rule needs at
 * the chosen lengths (window_reps_needed), times this margin, so that the
 * top-up's own SE (itself an estimate) still leaves the lengths 6 SE from
 * eps. */
#define MIX_TOPUP_MARGIN 1.5

int rl_mix_topup_plan(double nrm, double eps, const long *grid, const double *se, int ng, long reps,
                      double unit, double cap, rl_mix_topup *tu)
{
    memset(tu, 0, sizeof *tu);
    const long wp = isfinite(nrm) ? rl_mixing_window(nrm, eps) : -1;
    if (wp < 0 || wp > grid[ng - 1])
        return 0;
    int lo, hi;
    window_bracket(nrm, eps, wp, grid, se, ng, &lo, &hi);
    const int lower = wp > grid[0];
    if (hi >= 0 && (lo >= 0 || !lower))
        return 0; /* the base run decides */
    /* the lower side (W > 1): the length < W that needs the fewest
     * replicates; its routes are the first n_lo steps of the upper side's */
    long rlo = 0;
    for (int g = 0; lower && g < ng && grid[g] < wp; g++) {
        const long r = window_reps_needed(reps, se[g], pow(nrm, (double)grid[g]), eps);
        rlo = g == 0 || r < rlo ? r : rlo;
    }
    /* the upper side: the length >= W of least cost, replicates x length
     * (a route to n costs n steps; SE ∝ 1/sqrt(replicates)) */
    double best = INFINITY;
    long need = LONG_MAX;
    for (int g = 0; g < ng; g++) {
        if (grid[g] < wp)
            continue;
        long r = window_reps_needed(reps, se[g], pow(nrm, (double)grid[g]), eps);
        r = r > rlo ? r : rlo;
        if (r < LONG_MAX && (double)r * (double)grid[g] < best)
            best = (double)r * (double)grid[g], need = r;
    }
    tu->need = need;
    tu->reps = need < LONG_MAX / 2 ? (long)ceil(MIX_TOPUP_MARGIN * (double)need) : LONG_MAX;
    /* the lengths: the rule's bracket at the SE of the need, se sqrt(reps /
     * need), so that the margin on the replicates is slack on the SE (the
     * bracket at reps' own SE would pick lengths just at 6 SE, where a
     * slightly larger measured SE undoes it) */
    double s2[ng];
    for (int g = 0; g < ng; g++)
        s2[g] = se[g] * sqrt((double)reps / (double)need);
    window_bracket(nrm, eps, wp, grid, s2, ng, &lo, &hi);
    if (hi < 0 || (lower && lo < 0)) { /* no count decides (p = eps): capped, naming the longest */
        hi = hi < 0 ? ng - 1 : hi;
        tu->reps = LONG_MAX;
    }
    if (lower && lo >= 0)
        tu->n[tu->ng++] = grid[lo];
    tu->n[tu->ng++] = grid[hi];
    tu->cost = (double)tu->reps * (double)grid[hi] * unit;
    tu->cap = cap;
    tu->capped = !(tu->cost <= cap);
    return 1;
}

double rl_mix_z(double measured, double predicted, double se)
{
    double e = fabs(measured - predicted) - 1e-9;
    if (!(e > 0))
        return isnan(e) ? NAN : 0;
    return se > 0 ? e / se : INFINITY;
}

/* The windows checked for every family with a closed form */
static const double mix_eps[2] = { 0.1, 0.01 };

/* The contexts of the text-driven steps */
static const long mix_ctxs[2] = { 512, 65536 };

/* ---------- the family sweep ---------- */

/* The sweep's cases from the registry (sampling/family_ops.h), in slot
 * order, each with its own stream; families: a subset (NULL: the default). */
static rl_status sweep_specs(int d, const char *families, rl_mix_spec *s, int *n, rl_err *err)
{
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    RL_TRY(rl_sweep_cases(RL_SWEEP_MIXING, d, families, c, RL_SWEEP_CASES_MAX, n, err));
    for (int k = 0; k < *n; k++)
        s[k] = (rl_mix_spec){ c[k].label, c[k].f, c[k].stream };
    return RL_OK;
}

/* E[(q^T P_n q)^2] for SO(2) routes, q uniform on the sphere, exactly:
 * with w_b = |q_b|^2, E[w_b w_b'] = 4/(d(d+2)) (b != b') and 8/(d(d+2)),
 * E[cos Phi_b cos Phi_b'] = Re chi_b^n Re chi_b'^n and E cos^2 Phi_b =
 * (1 + Re psi_b^n)/2 with psi_b = E e^{2i theta} = charfn(2 w_b). */
static double so2_sq_pred(const rl_family *f, long n)
{
    const int nb = f->d / 2;
    double s1 = 0, s2 = 0, diag = 0;
    for (int b = 0; b < nb; b++) {
        double w = rl_so2_freq(f->d, f->base, f->scale, b);
        double rc = creal(rl_cpow_n(rl_angle_charfn(f->law, w), n));
        double rp = creal(rl_cpow_n(rl_angle_charfn(f->law, 2 * w), n));
        s1 += rc;
        s2 += rc * rc;
        diag += 1 + rp;
    }
    return 4.0 / (f->d * (f->d + 2.0)) * (s1 * s1 - s2 + diag);
}

/* draws of the estimate of ||E M|| for a family with no closed form */
#define MIX_MEAN_MC_DRAWS 4000

/* The window's statistic at grid point g: |tr P_n|/d for dense families,
 * for SO(2) the largest block modulus |E e^{i Phi_b}| (the norm of the
 * block-diagonal mean) with that block's SE. */
static void fam_point(const rl_family *f, const rl_route_stats *st, int g, double *est, double *se)
{
    if (rl_family_is_so2(f)) {
        const int nb = f->d / 2;
        int arg = 0;
        double best = -1;
        for (int bb = 0; bb < nb; bb++) {
            double m = cabs(st->chi[(long)g * nb + bb]);
            if (m > best)
                best = m, arg = bb;
        }
        *est = best;
        *se = st->chi_se[(long)g * nb + arg];
    } else {
        *est = fabs(st->tr[g]);
        *se = st->tr_se[g];
    }
}

/* The slowest mean step's norm from the closed form (callers ask
 * rl_family_has_mean first). */
static double slowest_norm(const rl_family *f)
{
    const int so2 = rl_family_is_so2(f), nb = f->d / 2;
    double nrm = so2 ? 0 : cabs(pred_chi(f, 0));
    if (so2)
        for (int bb = 0; bb < nb; bb++)
            nrm = rl_worst(nrm, cabs(pred_chi(f, bb)));
    return nrm;
}

/* A family whose rows include the windows: a closed form, and steps that
 * are random (RoPE's constant angles have no window to check). */
static int has_window_rows(const rl_family *f)
{
    return rl_family_has_mean(f) && !(rl_family_is_so2(f) && f->law == RL_ANG_CONSTANT);
}

rl_status rl_mix_topup_run(const rl_family *f, unsigned long stream, int e, unsigned long seed, rl_mix_topup *tu,
                           rl_err *err)
{
    if (tu->ng == 0 || tu->capped)
        return RL_OK;
    rl_route_stats *st = NULL;
    RL_TRY(rl_routes_run(f, tu->n, tu->ng, tu->reps, seed, rl_stream_key(RL_STREAM_MIX_TOPUP + e, stream), NULL, 0,
                         &st, err));
    for (int g = 0; g < tu->ng; g++)
        fam_point(f, st, g, &tu->est[g], &tu->se[g]);
    rl_route_stats_free(st);
    return RL_OK;
}

/* The top-ups of family m's window rows (rl_mix_topup_plan): planned from
 * the base run's SE, each run on its own stream (rl_mix_topup_run), so that
 * the base run's streams and bytes are untouched and a subset run gets the
 * same. */
static rl_status topup_run(long seed, const rl_mix_size *z, rl_mix_fam *m, rl_err *err)
{
    const rl_family *f = &m->sp.f;
    if (!has_window_rows(f))
        return RL_OK;
    /* one step of a route (the cost model's n = 1: linear in n, but for
     * Haar's, whose products the concentration sweep draws at once) */
    const double nrm = slowest_norm(f), unit = rl_family_ops_of(f)->route_cost(f, 1.0, f->d);
    double *est = rl_xmalloc(sizeof(double) * m->ng), *se = rl_xmalloc(sizeof(double) * m->ng);
    for (int g = 0; g < m->ng; g++)
        fam_point(f, m->st, g, &est[g], &se[g]);
    rl_status s = RL_OK;
    for (int e = 0; e < 2 && s == RL_OK; e++) {
        rl_mix_topup_plan(nrm, mix_eps[e], m->grid, se, m->ng, z->reps, unit, z->topup_cap, &m->tu[e]);
        s = rl_mix_topup_run(f, m->sp.stream, e, (unsigned long)seed, &m->tu[e], err);
    }
    free(est);
    free(se);
    return s;
}

static rl_status sweep_run(long seed, const char *families, rl_mix_res *R, rl_err *err)
{
    const rl_mix_size *z = &R->z;
    rl_mix_spec sp[RL_SWEEP_CASES_MAX];
    RL_TRY(sweep_specs(z->d, families, sp, &R->nfam, err));
    for (int k = 0; k < R->nfam; k++) {
        rl_mix_fam *m = &R->fam[k];
        const rl_family *f = &sp[k].f;
        const int so2 = rl_family_is_so2(f);
        /* dense families: stop once the prediction is far below eps = 0.01;
         * with no closed form, once an independent estimate's upper end
         * (+5 SE) is (it sets the length only, never a verdict) */
        long wpred = so2 || !rl_family_has_mean(f) ? -1 : rl_mixing_window(cabs(pred_chi(f, 0)), 0.01);
        if (!so2 && !rl_family_has_mean(f)) {
            RL_TRY(rl_family_mean_mc(f, MIX_MEAN_MC_DRAWS, (unsigned long)seed,
                                     rl_stream_key(RL_STREAM_FAMILY_MEAN_MC, sp[k].stream), &m->mc, err));
            m->has_mc = 1;
            wpred = rl_mixing_window(fmin(1.0, m->mc.norm + 5 * m->mc.se), 0.01);
        }
        m->sp = sp[k];
        m->nmax = so2 ? z->nmax : (wpred < 0 ? z->nmax : (wpred * 3 < 8 ? 8 : wpred * 3));
        m->grid = rl_route_grid(m->nmax, 256, 8, &m->ng);
        RL_TRY(rl_routes_run(f, m->grid, m->ng, z->reps, seed, sp[k].stream, NULL, 0, &m->st, err));
        RL_TRY(topup_run(seed, z, m, err));
    }
    return RL_OK;
}

/* ---------- the study's variant, block by block ---------- */

static rl_status study_run(long seed, const rl_mix_size *z, int d, rl_mix_study *o, rl_err *err)
{
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    o->d = d;
    o->grid = rl_route_grid(z->nmax, 16, 4, &o->ng);
    return rl_routes_run(&f, o->grid, o->ng, z->reps, seed, RL_STREAM_MIX_STUDY + d, NULL, 0, &o->st, err);
}

/* ---------- token-driven steps on real text ---------- */

static rl_status tokens_run(const rl_exp_ctx *ctx, rl_mix_res *R, rl_err *err)
{
    char buf[PATH_MAX];
    const char *path = rl_exp_text(ctx, buf, sizeof buf);
    if (!path)
        return rl_fail(err, RL_EINPUT, "no text for token-driven steps: give --text FILE (or run `routelab data brown`)");
    rl_tokens tk;
    rl_status s = rl_tokens_read(path, 256, &tk, err);
    if (s != RL_OK) {
        rl_err_prefix(err, "mixing");
        return s;
    }
    long n = tk.n < R->z.ntext ? tk.n : R->z.ntext;
    int *tok = rl_xmalloc(sizeof(int) * n);
    for (long i = 0; i < n; i++)
        tok[i] = tk.tok[i];
    free(tk.tok);

    const int d = 16, nb = d / 2;
    rl_family f = rl_family_default(RL_FAM_TOKEN_SO2, d);
    f.law = RL_ANG_UNIFORM;
    f.vocab = 256;
    double *table = rl_xmalloc(sizeof(double) * 256 * nb);
    f.table = table;
    rl_so2_table_draw(&f, (unsigned long)ctx->seed, RL_STREAM_MIX_TEXT_TABLE, table);
    double probs[256];
    rl_tokens_unigram(tok, n, 256, probs);
    rl_family_mean_norm(&f, probs, R->norms);

    R->tgrid = rl_route_grid(511, 64, 8, &R->tng);
    rl_status st = RL_OK;
    for (int c = 0; c < 2 && st == RL_OK; c++)
        st = rl_textsteps_run(&f, tok, n, mix_ctxs[c], R->tgrid, R->tng, &R->ts[c], err);
    snprintf(R->path, sizeof R->path, "%s", path);
    R->ntok = n;
    free(table);
    free(tok);
    return st;
}

/* ---------- positive drift ---------- */

static const long drift_grid[] = { 1, 2, 4, 8, 16, 32 };

static rl_status drift_run(long seed, rl_mix_res *R, rl_err *err)
{
    /* block 0 (omega = 1) of d = 2: uniform and drift laws side by side */
    rl_family u = rl_family_default(RL_FAM_SO2, 2), dr = u;
    dr.law = RL_ANG_DRIFT;
    RL_TRY(rl_routes_run(&u, drift_grid, 6, R->z.reps * 4, seed, RL_STREAM_MIX_UNIFORM, NULL, 0, &R->uni, err));
    return rl_routes_run(&dr, drift_grid, 6, R->z.reps * 4, seed, RL_STREAM_MIX_DRIFT, NULL, 0, &R->drift, err);
}

void rl_mix_text_row(rl_report *rep, int block, long w0, long w1, long wp)
{
    char a[160], b[200], w[256];
    /* steps along text are not independent: claim 1 does not cover them, and
     * both contexts average over start positions of the same text */
    rl_report_info(rep,
                   rl_fmt(w, sizeof w, RL_PROSE_MIXING_TOKENS_CHECK, block),
                   rl_fmt(a, sizeof a, "unigram law: %ld", wp), rl_fmt(b, sizeof b, "%ld vs %ld", w0, w1));
}

rl_status rl_exp_mixing_run(const rl_exp_ctx *ctx, void **res, rl_err *err)
{
    rl_mix_res *R = rl_xcalloc(1, sizeof *R);
    *res = R;
    R->z = size_of(ctx->preset);
    RL_TRY(sweep_run(ctx->seed, ctx->families, R, err));
    RL_TRY(study_run(ctx->seed, &R->z, 64, &R->study[0], err));
    RL_TRY(study_run(ctx->seed, &R->z, 96, &R->study[1], err));
    RL_TRY(tokens_run(ctx, R, err));
    return drift_run(ctx->seed, R, err);
}

void rl_exp_mixing_free(void *res)
{
    rl_mix_res *R = res;
    if (!R)
        return;
    for (int k = 0; k < R->nfam; k++) {
        rl_route_stats_free(R->fam[k].st);
        free(R->fam[k].grid);
    }
    for (int i = 0; i < 2; i++) {
        rl_route_stats_free(R->study[i].st);
        free(R->study[i].grid);
        rl_textsteps_free(R->ts[i]);
    }
    free(R->tgrid);
    rl_route_stats_free(R->uni);
    rl_route_stats_free(R->drift);
    free(R);
}

/* ---------- the summary: every number the report shows ---------- */

/* The rows' numbers of one family but its lengths: the closed form's
 * slowest norm, the worst z of its mean route, its windows (tu: their
 * top-ups, NULL: none; mc: the estimate with no closed form, NULL: none). */
static void family_core(const rl_family *f, const char *label, long nmax, int ng, double worst_z, const long *grid,
                        const double *est, const double *se, long reps, const rl_family_mean_est *mc,
                        const rl_mix_topup *tu, rl_mix_fam_sum *o)
{
    o->label = label;
    o->d = f->d;
    o->nmax = nmax;
    o->ng = ng;
    o->reps = reps;
    o->worst_z = worst_z;
    o->has_mc = mc != NULL;
    if (mc)
        o->mc = *mc;
    o->has_mean = rl_family_has_mean(f);
    o->nrm = o->has_mean ? slowest_norm(f) : NAN;
    o->deterministic = rl_family_is_so2(f) && f->law == RL_ANG_CONSTANT;
    o->windows = has_window_rows(f);
    for (int e = 0; e < 2 && o->windows; e++)
        rl_mix_window_summarise(o->nrm, mix_eps[e], grid, est, se, ng, reps, tu ? &tu[e] : NULL, &o->win[e]);
}

/* Family m's lengths against the closed form, and its rows' numbers. */
static void family_summarise(const rl_mix_fam *m, long reps, rl_mix_fam_sum *o)
{
    const rl_family *f = &m->sp.f;
    const int so2 = rl_family_is_so2(f), d = f->d, nb = d / 2, ng = m->ng;
    const double complex c = pred_chi(f, 0);
    const rl_route_stats *st = m->st;
    double *est = rl_xmalloc(sizeof(double) * ng), *se = rl_xmalloc(sizeof(double) * ng);
    double worst_z = 0;
    o->pt = rl_xcalloc((size_t)ng, sizeof *o->pt);
    for (int g = 0; g < ng; g++) {
        const long n = m->grid[g];
        rl_mix_point *p = &o->pt[g];
        double cp, sqp = 1.0 / d, pred;
        /* block-diagonal SO(2): the norm is the largest block's, with its SE */
        fam_point(f, st, g, &est[g], &se[g]);
        if (so2) {
            double bp = 0;
            for (int bb = 0; bb < nb; bb++)
                bp = rl_worst(bp, cabs(rl_cpow_n(pred_chi(f, bb), n)));
            pred = bp;
            double complex s = 0;
            for (int bb = 0; bb < nb; bb++)
                s += rl_cpow_n(pred_chi(f, bb), n);
            cp = 2.0 / d * creal(s);
            sqp = so2_sq_pred(f, n);
            /* every block's mean against chi_b^n */
            for (int bb = 0; bb < nb; bb++) {
                long i = (long)g * nb + bb;
                double e = cabs(st->chi[i] - rl_cpow_n(pred_chi(f, bb), n));
                worst_z = rl_worst(worst_z, e / fmax(st->chi_se[i], 1e-12 + 1e-9 * cabs(st->chi[i])));
            }
        } else {
            pred = pow(cabs(c), n);
            cp = creal(rl_cpow_n(c, n));
            worst_z = rl_worst(worst_z, fabs(st->tr[g] - cp) / fmax(st->tr_se[g], 1e-15));
        }
        /* SO(2): block 0 (omega = scale) on its own, modulus and phase */
        const double complex m0 = so2 ? st->chi[(long)g * nb] : NAN, p0 = so2 ? rl_cpow_n(pred_chi(f, 0), n) : NAN;
        *p = (rl_mix_point){ .n = n, .norm = est[g], .norm_se = se[g], .norm_pred = pred, .op = st->op[g],
                             .coh = st->coh[g], .coh_se = st->coh_se[g], .coh_pred = cp, .sq = st->sq[g],
                             .sq_se = st->sq_se[g], .sq_pred = so2 ? sqp : 1.0 / d, .b0 = cabs(m0),
                             .b0_se = so2 ? st->chi_se[(long)g * nb] : NAN, .b0_pred = cabs(p0),
                             .b0_phase = carg(m0), .b0_phase_pred = carg(p0) };
    }
    family_core(f, m->sp.label, m->nmax, ng, worst_z, m->grid, est, se, reps, m->has_mc ? &m->mc : NULL, m->tu, o);
    free(est);
    free(se);
}

/* The study's variant at one d: each block's windows and its measurement at
 * n = 512 and at the longest route against (sin w_b / w_b)^n. */
static void study_summarise(const rl_mix_size *z, const rl_mix_study *o, rl_mix_study_sum *s)
{
    const int d = o->d, nb = d / 2, ng = o->ng;
    const long *grid = o->grid;
    const rl_route_stats *st = o->st;
    int g512 = 0, glast = ng - 1;
    for (int g = 0; g < ng; g++)
        if (grid[g] == 512)
            g512 = g;
    *s = (rl_mix_study_sum){ .d = d, .nb = nb, .ng = ng, .reps = z->reps, .nmax = z->nmax, .grid = grid };
    s->curve_est = rl_xmalloc(sizeof(double) * nb * ng);
    s->curve_se = rl_xmalloc(sizeof(double) * nb * ng);
    s->curve_pred = rl_xmalloc(sizeof(double) * nb * ng);
    for (int bb = 0; bb < nb && bb < RL_MIX_STUDY_MAXB; bb++) {
        rl_mix_block *k = &s->blk[bb];
        double *est = s->curve_est + (long)bb * ng;
        const double om = rl_so2_freq(d, RL_STUDY_BASE, 1.0, bb), c = sin(om) / om;
        k->omega = om;
        k->norm = c;
        k->w1 = rl_mixing_window(c, 0.1);
        k->w2 = rl_mixing_window(c, 0.01);
        for (int g = 0; g < ng; g++) {
            est[g] = cabs(st->chi[(long)g * nb + bb]);
            s->curve_se[(long)bb * ng + g] = st->chi_se[(long)g * nb + bb];
            s->curve_pred[(long)bb * ng + g] = pow(c, grid[g]);
        }
        int at;
        k->wm = measured_window(grid, est, ng, 0.1, &at);
        k->m512 = est[g512], k->s512 = st->chi_se[(long)g512 * nb + bb];
        k->mL = est[glast], k->sL = st->chi_se[(long)glast * nb + bb];
        k->p512 = pow(c, 512), k->pL = pow(c, z->nmax);
        /* the class follows from the prediction; the measurement must agree
         * with it at n = 512 and at the longest route within 5 SE */
        const int mixes = k->w1 > 0 && k->w1 <= 512;
        k->cls = mixes ? 0 : k->pL >= 0.9 ? 1 : 2;
        s->mixed += mixes;
        s->coherent += !mixes && k->pL >= 0.9;
        const double zb = rl_worst(rl_mix_z(k->m512, k->p512, k->s512), rl_mix_z(k->mL, k->pL, k->sL));
        s->zmax = rl_worst(s->zmax, zb);
        s->agree += zb <= 5;
    }
    const double omlast = rl_so2_freq(d, RL_STUDY_BASE, 1.0, nb - 1);
    s->wlast = rl_mixing_window(sin(omlast) / omlast, 0.1);
}

/* Text-driven steps: each block's curves in both contexts, the unigram
 * law's prediction, and the windows W(0.1) they reach. */
static void tokens_summarise(const rl_mix_res *R, rl_mix_tokens_sum *s)
{
    const int d = 16, nb = d / 2, ng = R->tng;
    const long *grid = R->tgrid;
    rl_textsteps_stats *const *ts = R->ts;
    *s = (rl_mix_tokens_sum){ .d = d, .nb = nb, .ng = ng, .ntok = R->ntok, .path = R->path, .grid = grid };
    for (int c = 0; c < 2; c++) {
        s->est[c] = rl_xmalloc(sizeof(double) * nb * ng);
        s->se[c] = rl_xmalloc(sizeof(double) * nb * ng);
        for (int bb = 0; bb < nb; bb++)
            for (int g = 0; g < ng; g++) {
                s->est[c][bb * ng + g] = cabs(ts[c]->chi[(long)g * nb + bb]);
                s->se[c][bb * ng + g] = ts[c]->se[(long)g * nb + bb];
            }
    }
    s->pred = rl_xmalloc(sizeof(double) * nb * ng);
    for (int bb = 0; bb < nb; bb++)
        for (int g = 0; g < ng; g++)
            s->pred[bb * ng + g] = pow(R->norms[bb], grid[g]);
    for (int bb = 0; bb < nb; bb++) {
        const double *e0 = s->est[0] + bb * ng, *e1 = s->est[1] + bb * ng;
        const double *se0 = s->se[0] + bb * ng, *se1 = s->se[1] + bb * ng;
        int a0, a1, ap;
        const long w0 = measured_window(grid, e0, ng, 0.1, &a0), w1 = measured_window(grid, e1, ng, 0.1, &a1);
        const long wp = measured_window(grid, s->pred + bb * ng, ng, 0.1, &ap);
        s->w0[bb] = w0, s->w1[bb] = w1, s->wp[bb] = wp;
        s->shown[bb] = !(w0 < 0 && w1 < 0);
        if (!s->shown[bb])
            continue;
        s->resolvable++;
        /* the same window: each crossing within the other's 3-SE band */
        s->same += w0 > 0 && w1 > 0 && e1[a0] <= 0.1 + 3 * se1[a0] && e0[a1] <= 0.1 + 3 * se0[a1];
        s->close += wp > 0 && w1 > 0 && labs(wp - w1) <= (wp > w1 ? wp : w1) / 4 + 1;
    }
}

/* Positive drift against zero-mean steps: the worst |z| of the modulus,
 * and of the phase against n omega where the mean is resolved. */
static void drift_summarise(const long *grid, int ng, const double complex *chi_u, const double *se_u,
                            const double complex *chi_d, const double *se_d, rl_mix_drift_sum *o)
{
    double worst = 0, worst_phase = 0;
    for (int g = 0; g < ng; g++) {
        double se = hypot(se_u[g], se_d[g]);
        worst = rl_worst(worst, rl_mix_z(cabs(chi_u[g]), cabs(chi_d[g]), se));
        if (cabs(chi_d[g]) > 5 * se_d[g]) {
            double ph = rl_angle_reduce(carg(chi_d[g]) - (double)grid[g]);
            worst_phase = rl_worst(worst_phase, rl_effect_z(fabs(ph) * cabs(chi_d[g]), se_d[g]));
        }
    }
    *o = (rl_mix_drift_sum){ grid[ng - 1], worst, worst_phase };
}

void rl_mixing_summarise(const rl_mix_res *R, rl_mix_summary *S)
{
    memset(S, 0, sizeof *S);
    S->z = R->z;
    S->nfam = R->nfam;
    for (int k = 0; k < R->nfam; k++)
        family_summarise(&R->fam[k], R->z.reps, &S->fam[k]);
    for (int i = 0; i < 2; i++)
        if (R->study[i].st)
            study_summarise(&R->z, &R->study[i], &S->study[i]);
    S->has_tokens = R->ts[0] && R->ts[1];
    if (S->has_tokens)
        tokens_summarise(R, &S->tok);
    S->has_drift = R->uni && R->drift;
    if (S->has_drift)
        drift_summarise(drift_grid, 6, R->uni->chi, R->uni->chi_se, R->drift->chi, R->drift->chi_se, &S->drift);
}

void rl_mixing_summary_free(rl_mix_summary *S)
{
    for (int k = 0; k < S->nfam; k++)
        free(S->fam[k].pt);
    for (int i = 0; i < 2; i++) {
        free(S->study[i].curve_est);
        free(S->study[i].curve_se);
        free(S->study[i].curve_pred);
    }
    for (int c = 0; c < 2; c++) {
        free(S->tok.est[c]);
        free(S->tok.se[c]);
    }
    free(S->tok.pred);
    memset(S, 0, sizeof *S);
}

/* ---------- the render step: formats the summary ---------- */

/* The lines of mixing_windows.tsv for w's top-up, when it ran. */
static void topup_render(rl_tsv *t, const char *label, const rl_mix_window_sum *w)
{
    const rl_mix_topup *tu = &w->tu;
    for (int g = 0; tu->ng > 0 && !tu->capped && g < tu->ng; g++)
        rl_tsv_row(t, "%s\t%g\t%ld\t%ld\t%.6g\t%.3g\t%.6g", label, w->eps, tu->n[g], tu->reps, tu->est[g], tu->se[g],
                   w->tu_pred[g]);
}

void rl_mix_topup_rows(rl_tsv *t, const char *label, double eps, double nrm, const rl_mix_topup *tu)
{
    rl_mix_window_sum w = { .eps = eps, .tu = *tu };
    topup_preds(nrm, &w);
    topup_render(t, label, &w);
}

/* A family's rows: its mean route and windows, or *no prediction*. */
static void family_render(rl_report *rep, const rl_mix_fam_sum *o)
{
    if (!o->has_mean) {
        /* no closed form: the measurement stands alone, *no prediction* and
         * no verdict (a NaN prediction must never reach a rule) */
        char w[256], m[256];
        rl_report_decide_pred(rep, &rl_rule_agree, NAN, NAN, NULL,
                              rl_fmt(w, sizeof w, "%s (d=%d): mean route = (mean step)^n for n <= %ld", o->label,
                                     o->d, o->nmax),
                              "no prediction (the family has no closed form)",
                              o->has_mc ? rl_fmt(m, sizeof m, RL_PROSE_MIXING_FAMILY_ESTIMATE, o->mc.norm, o->mc.se,
                                                 o->mc.n)
                                        : "measured only (mixing_families.tsv)");
        return;
    }
    /* claim: E[P_n] = E[M]^n at every length, within 5 SE */
    rl_mix_mean_row(rep, o->label, o->d, o->nmax, o->ng, o->nrm, o->worst_z, o->deterministic);
    for (int e = 0; e < 2 && o->windows; e++)
        window_render(rep, o->label, &o->win[e]);
}

void rl_mix_family_rows(rl_report *rep, const rl_family *f, const char *label, long nmax, int ng, double worst_z,
                        const long *grid, const double *est, const double *se, long reps,
                        const rl_family_mean_est *mc)
{
    rl_mix_fam_sum o = { 0 };
    family_core(f, label, nmax, ng, worst_z, grid, est, se, reps, mc, NULL, &o);
    family_render(rep, &o);
}

/* mixing_families.tsv, each family's rows, and mixing_windows.tsv (every
 * top-up's measurements, one line a length). */
static void sweep_render(const rl_mix_summary *S, const rl_outdir *out, rl_report *rep)
{
    rl_tsv *t = rl_tsv_open(out, "mixing_families.tsv",
                            "family\td\tn\tnorm\tnorm_se\tnorm_pred\topnorm_svd\tcoherence\tcoherence_se\t"
                            "coherence_pred\tsq\tsq_se\tsq_pred\treps\tb0\tb0_se\tb0_pred\tb0_phase\tb0_phase_pred");
    for (int k = 0; k < S->nfam; k++) {
        const rl_mix_fam_sum *o = &S->fam[k];
        for (int g = 0; g < o->ng; g++) {
            const rl_mix_point *p = &o->pt[g];
            rl_tsv_row(t, "%s\t%d\t%ld\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g\t%.3g\t%.6g\t%.6g\t%.3g\t%.6g\t%ld\t%.6g\t%.3g\t%.6g\t%.6g\t%.6g",
                       o->label, o->d, p->n, p->norm, p->norm_se, p->norm_pred, p->op, p->coh, p->coh_se, p->coh_pred,
                       p->sq, p->sq_se, p->sq_pred, o->reps, p->b0, p->b0_se, p->b0_pred, p->b0_phase,
                       p->b0_phase_pred);
        }
        family_render(rep, o);
    }
    rl_tsv_close(t);
    t = rl_tsv_open(out, "mixing_windows.tsv", "family\teps\tn\treps\testimate\tse\tpredicted");
    for (int k = 0; k < S->nfam; k++)
        for (int e = 0; e < 2 && S->fam[k].windows; e++)
            topup_render(t, S->fam[k].label, &S->fam[k].win[e]);
    rl_tsv_close(t);
}

static const char *const mix_class[3] = { "mixes within 512", "coherent past 65536", "between" };

/* The study's variant at one d: its curves into curves, its blocks' file,
 * table and check. */
static void study_render(const rl_mix_study_sum *s, const rl_outdir *out, rl_report *rep, rl_tsv *curves)
{
    const int d = s->d, nb = s->nb, ng = s->ng;
    char name[64], b[160], w[256];
    snprintf(name, sizeof name, "mixing_blocks_d%d.tsv", d);
    rl_tsv *t = rl_tsv_open(out, name,
                            "block\tomega\tnorm\tW0.1_pred\tW0.01_pred\tW0.1_meas\tat512\tat512_se\tat512_pred\t"
                            "at65536\tat65536_se\tat65536_pred\tclass");
    size_t cap = 1 << 16, used = 0;
    char *tab = rl_xmalloc(cap);
    used += snprintf(tab + used, cap - used, "block\tω_b\t‖E R‖\tW(0.1)\tW(0.01)\t|mean P_512|\t|mean P_65536|\tclass\n");
    for (int bb = 0; bb < nb && bb < RL_MIX_STUDY_MAXB; bb++) {
        const rl_mix_block *k = &s->blk[bb];
        for (int g = 0; g < ng; g++)
            rl_tsv_row(curves, "%d\t%d\t%.6g\t%ld\t%.6g\t%.3g\t%.6g", d, bb, k->omega, s->grid[g],
                       s->curve_est[(long)bb * ng + g], s->curve_se[(long)bb * ng + g],
                       s->curve_pred[(long)bb * ng + g]);
        const char *cls = mix_class[k->cls];
        rl_tsv_row(t, "%d\t%.6g\t%.12g\t%ld\t%ld\t%ld\t%.4g\t%.2g\t%.4g\t%.4g\t%.2g\t%.4g\t%s", bb, k->omega, k->norm,
                   k->w1, k->w2, k->wm, k->m512, k->s512, k->p512, k->mL, k->sL, k->pL, cls);
        if (used + 256 < cap)
            used += snprintf(tab + used, cap - used, "%d\t%.3g\t%.9f\t%ld\t%ld\t%.3f ± %.3f (pred %.3f)\t%.3f ± %.3f (pred %.3f)\t%s\n",
                             bb, k->omega, k->norm, k->w1, k->w2, k->m512, k->s512, k->p512, k->mL, k->sL, k->pL, cls);
    }
    rl_tsv_close(t);
    snprintf(w, sizeof w, RL_PROSE_MIXING_BLOCKS_CAPTION, d, s->reps);
    rl_report_table(rep, w, tab);
    rl_report_decide(rep, &rl_rule_agree, s->zmax, NULL,
                     rl_fmt(w, sizeof w, RL_PROSE_MIXING_BLOCKS_CHECK, d, s->mixed, s->coherent, s->nmax, s->wlast),
                     "|mean P_n| = (sin ω_b/ω_b)^n at n = 512 and 65,536",
                     rl_fmt(b, sizeof b, "max |z| = %.2f; %d of %d blocks within 5 SE at both lengths", s->zmax,
                            s->agree, nb));
    free(tab);
}

/* mixing_tokens.tsv and the text's rows. */
static void tokens_render(const rl_mix_tokens_sum *s, const rl_outdir *out, rl_report *rep)
{
    const int nb = s->nb, ng = s->ng;
    rl_tsv *t = rl_tsv_open(out, "mixing_tokens.tsv", "context\tblock\tn\tmeasured\tse\tunigram_pred");
    for (int c = 0; c < 2; c++)
        for (int bb = 0; bb < nb; bb++)
            for (int g = 0; g < ng; g++)
                rl_tsv_row(t, "%ld\t%d\t%ld\t%.6g\t%.3g\t%.6g", mix_ctxs[c], bb, s->grid[g], s->est[c][bb * ng + g],
                           s->se[c][bb * ng + g], s->pred[bb * ng + g]);
    rl_tsv_close(t);
    for (int bb = 0; bb < nb; bb++)
        if (s->shown[bb])
            rl_mix_text_row(rep, bb, s->w0[bb], s->w1[bb], s->wp[bb]);
    rl_report_text(rep, RL_PROSE_MIXING_TOKENS_INTRO, s->d, s->ntok, s->path, s->close, s->resolvable, s->same,
                   s->resolvable);
}

static void drift_render(rl_report *rep, const rl_mix_drift_sum *o)
{
    char a[160], b[160];
    /* the study's remark ("positive steps drift like RoPE") is about trained
     * models; that drift angles mix at the zero-mean rate is our reading */
    rl_report_info(rep, RL_PROSE_MIXING_DRIFT_INFO,
                   "|E e^{iθ}| = |sin ω/ω| for both laws",
                   rl_fmt(a, sizeof a, "|mean P_n| drift vs uniform, n = 1..%ld: max |z| = %.2f", o->nmax, o->worst));
    /* E[P_n] = E[M]^n with E e^{iθ} = e^{iω} sin ω/ω: the phase is n ω */
    rl_report_decide(rep, &rl_rule_agree, o->worst_phase, NULL, "what drift adds: a RoPE-like mean rotation",
                     "arg E[P_n] = n ω (mod 2π)",
                     rl_fmt(b, sizeof b, "max |z| of the phase error = %.2f", o->worst_phase));
}

void rl_mix_drift_rows(rl_report *rep, const long *grid, int ng, const double complex *chi_u, const double *se_u,
                       const double complex *chi_d, const double *se_d)
{
    rl_mix_drift_sum o;
    drift_summarise(grid, ng, chi_u, se_u, chi_d, se_d, &o);
    drift_render(rep, &o);
}

void rl_exp_mixing_report(const void *res, const rl_outdir *out, rl_report *rep)
{
    rl_mix_summary *S = rl_xmalloc(sizeof *S);
    rl_mixing_summarise(res, S);
    const rl_mix_size z = S->z;
    rl_report_text(rep,
                   RL_PROSE_MIXING_INTRO,
                   z.reps, z.d, z.nmax);
    sweep_render(S, out, rep);
    rl_tsv *curves = rl_tsv_open(out, "mixing_block_curves.tsv", "d\tblock\tomega\tn\tmeasured\tse\tpred");
    study_render(&S->study[0], out, rep, curves);
    study_render(&S->study[1], out, rep, curves);
    rl_tsv_close(curves);
    tokens_render(&S->tok, out, rep);
    drift_render(rep, &S->drift);
    rl_mixing_summary_free(S);
    free(S);

    const rl_plotvar vars[] = { RL_PV_I("d", z.d) };
    rl_plot(out, "mixing_families", "mixing_families", vars, RL_NVARS(vars));
    rl_plot(out, "mixing_laws", "mixing_laws", vars, RL_NVARS(vars));
    rl_plot(out, "mixing_blocks", "mixing_blocks", NULL, 0);
    rl_plot(out, "mixing_tokens", "mixing_tokens", NULL, 0);
    rl_plot(out, "mixing_coherence", "mixing_coherence", vars, RL_NVARS(vars));
    rl_report_figure(rep, "mixing_families.png",
                     RL_PROSE_MIXING_FIG_FAMILIES);
    rl_report_figure(rep, "mixing_laws.png",
                     RL_PROSE_MIXING_FIG_LAWS);
    rl_report_figure(rep, "mixing_blocks.png",
                     RL_PROSE_MIXING_FIG_BLOCKS);
    rl_report_figure(rep, "mixing_tokens.png",
                     RL_PROSE_MIXING_FIG_TOKENS);
    rl_report_figure(rep, "mixing_coherence.png",
                     RL_PROSE_MIXING_FIG_COHERENCE);
}
