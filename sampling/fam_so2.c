/* fam_so2.c: the block-diagonal SO(2) families -- so2 (angle theta_b ~
 * law(omega_b), independent blocks) and token-so2 (theta_b = table[token][b],
 * one token setting every block). */
#include "family_ops.h"
#include "so2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static rl_status so2_check(const rl_family *f, rl_err *err)
{
    if (f->d % 2)
        return rl_fail(err, RL_EINPUT, "%s needs an even dimension, got d = %d", rl_family_name(f->kind), f->d);
    if ((unsigned)f->law >= RL_ANG_COUNT)
        return rl_fail(err, RL_EINPUT, "unknown angle law");
    if (!(f->base > 0) || !isfinite(f->base))
        return rl_fail(err, RL_EINPUT, "base %g must be positive", f->base);
    if (!(f->scale > 0) || !isfinite(f->scale))
        return rl_fail(err, RL_EINPUT, "scale %g must be positive", f->scale);
    return RL_OK;
}

static rl_status token_check(const rl_family *f, rl_err *err)
{
    RL_TRY(so2_check(f, err));
    if (f->vocab < 1 || !f->table)
        return rl_fail(err, RL_EINPUT, "token-so2 needs an angle table of at least one token");
    return RL_OK;
}

static rl_det_sign det_plus(const rl_family *f)
{
    (void)f;
    return RL_DET_PLUS;
}

/* the base frequencies omega_b, computed once per stepper (NULL when
 * memory runs out) */
static void *so2_ws(const rl_family *f)
{
    double *omega = rl_alloc_array(f->d / 2 > 0 ? (size_t)(f->d / 2) : 1, sizeof(double), NULL);
    if (omega)
        rl_so2_freqs(f->d, f->base, f->scale, omega);
    return omega;
}

static void so2_ws_free(void *ws)
{
    free(ws);
}

static rl_status so2_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)token, (void)err;
    rl_so2_draw_angles(r, f->law, ws, f->d / 2, st->phi);
    return RL_OK;
}

static rl_status token_draw(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *st, rl_err *err)
{
    (void)ws, (void)r;
    const int h = f->d / 2;
    if (token < 0 || token >= f->vocab)
        return rl_fail(err, RL_EINPUT, "token id %d is outside the angle table's vocabulary of %d", token,
                       f->vocab);
    memcpy(st->phi, f->table + (long)token * h, sizeof(double) * h);
    return RL_OK;
}

/* chi_b = E e^{i theta_b} of the angle law at omega_b (so2.h) */
static int so2_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    (void)probs;
    const int h = f->d / 2;
    double omega[h];
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    for (int b = 0; b < h; b++)
        chi[b] = rl_angle_charfn(f->law, omega[b]);
    if (err)
        *err = 0;
    return 1;
}

/* chi_b = sum_v p_v e^{i table[v][b]} under the token law (NULL: uniform) */
static void token_chis(const rl_family *f, const double *probs, double complex *chi, double complex *chi2)
{
    const int h = f->d / 2;
    for (int b = 0; b < h; b++) {
        chi[b] = 0;
        if (chi2)
            chi2[b] = 0;
        for (int v = 0; v < f->vocab; v++) {
            double pv = probs ? probs[v] : 1.0 / f->vocab, t = f->table[(long)v * h + b];
            chi[b] += pv * cexp(I * t);
            if (chi2)
                chi2[b] += pv * cexp(2.0 * I * t);
        }
    }
}

static int token_mean(const rl_family *f, const double *probs, double complex *chi, double *err)
{
    token_chis(f, probs, chi, NULL);
    if (err)
        *err = 0;
    return 1;
}

/* per block from rl_angle_log_norm (no 1 - |chi| formed) */
static double so2_log_mean(const rl_family *f, const double *probs, double *logblocks)
{
    (void)probs;
    const int h = f->d / 2;
    double omega[h], best = -INFINITY;
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    for (int b = 0; b < h; b++) {
        double l = rl_angle_log_norm(f->law, omega[b]);
        if (logblocks)
            logblocks[b] = l;
        if (l > best)
            best = l;
    }
    return best;
}

/* independent blocks: the cross terms are |chi_b| |chi_c| */
static int so2_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    (void)probs;
    const int h = f->d / 2;
    double omega[h];
    double complex chi[h], chi2[h];
    rl_so2_freqs(f->d, f->base, f->scale, omega);
    for (int b = 0; b < h; b++) {
        chi[b] = rl_angle_charfn(f->law, omega[b]);
        chi2[b] = rl_angle_charfn2(f->law, omega[b]);
    }
    *rate = rl_so2_block_rates(h, chi, chi2, NULL, diag, brate);
    return 1;
}

/* one token sets every block: the cross terms under the joint law, one row
 * of them at a time (h values on the stack, as chi: nothing to allocate,
 * so nothing can fail) */
static int token_moment2(const rl_family *f, const double *probs, double *rate, double *diag, double *brate)
{
    const int h = f->d / 2;
    double complex chi[h], chi2[h];
    double cross[h], best = 0;
    token_chis(f, probs, chi, chi2);
    for (int b = 0; b < h; b++) {
        for (int c = 0; c < h; c++) {
            double complex sp = 0, sm = 0;
            if (c != b)
                for (int v = 0; v < f->vocab; v++) {
                    double pv = probs ? probs[v] : 1.0 / f->vocab;
                    double tb = f->table[(long)v * h + b], tc = f->table[(long)v * h + c];
                    sp += pv * cexp(I * (tb + tc));
                    sm += pv * cexp(I * (tb - tc));
                }
            cross[c] = fmax(cabs(sp), cabs(sm));
        }
        const double rb = rl_so2_block_rate(h, b, chi, chi2, cross, diag, brate);
        if (rb > best)
            best = rb;
    }
    *rate = best;
    return 1;
}

static double so2_cost(const rl_family *f, double n, int m)
{
    (void)m;
    return 8.0 * n * f->d / 2;
}

/* The circle law U(-pi, pi) and the study's U(-w_b, w_b), base 10000, at
 * slots c and c + 1 of a sweep (their streams follow from the slots);
 * scoregap's first far distances: 64 (window 1), 512 (beyond a 512-token
 * training context: the slow blocks never mix). */
static int circle_study(rl_family f, int c, int scoregap, rl_family_case *out)
{
    f.law = RL_ANG_CIRCLE;
    out[0] = (rl_family_case){ "so2-circle", f, c, 0, scoregap ? 64 : 0, 1, 0 };
    f.law = RL_ANG_UNIFORM;
    out[1] = (rl_family_case){ "so2-study", f, c + 1, 0, scoregap ? 512 : 0, 1, 0 };
    return 2;
}

/* mixing: every angle law (slots 6..11); concentration: the circle law
 * beyond its window of 1 (slot 4) and the study's U(-w_b, w_b) at 65,536
 * steps (slot 5); farmass: circle and study at slots 2, 3; values: 1, 2;
 * scoregap: 1, 2 */
static int so2_cases(int d, rl_sweep s, rl_family_case *out)
{
    static const char *const mix[RL_ANG_COUNT] = { "so2-constant", "so2-uniform", "so2-pm", "so2-gauss",
                                                   "so2-circle", "so2-drift" };
    rl_family f = rl_family_default(RL_FAM_SO2, d);
    if (s == RL_SWEEP_FARMASS)
        return circle_study(f, 2, 0, out);
    if (s == RL_SWEEP_VALUES)
        return circle_study(f, 1, 0, out);
    if (s == RL_SWEEP_SCOREGAP)
        return circle_study(f, 1, 1, out);
    if (s == RL_SWEEP_CONCENTRATION) {
        f.law = RL_ANG_CIRCLE;
        out[0] = (rl_family_case){ "so2-circle", f, 4, 0, 16, 1, 0 };
        f.law = RL_ANG_UNIFORM;
        out[1] = (rl_family_case){ "so2-study-65536", f, 5, 0, 65536, 1, 0 };
        return 2;
    }
    for (int a = 0; a < RL_ANG_COUNT; a++) {
        f.law = (rl_angle_law)a;
        out[a] = (rl_family_case){ mix[a], f, 6 + a, 0, 0, 1, 0 };
    }
    return RL_ANG_COUNT;
}

const rl_family_ops rl_family_so2 = {
    .desc = "block-diagonal SO(2) rotations, x[b] paired with x[b+d/2], angle law per block",
    .flags = "angles base scale",
    .form = RL_STEP_SO2,
    .check = so2_check,
    .det_sign = det_plus,
    .ws_alloc = so2_ws,
    .ws_free = so2_ws_free,
    .draw = so2_draw,
    .mean = so2_mean,
    .log_mean = so2_log_mean,
    .moment2 = so2_moment2,
    .route_cost = so2_cost,
    .cases = so2_cases,
};

const rl_family_ops rl_family_token_so2 = {
    .desc = "block-diagonal SO(2) rotations, angle = table[token][b] for the token read at that step",
    .flags = "angles base scale vocab table text",
    .form = RL_STEP_SO2,
    .check = token_check,
    .det_sign = det_plus,
    .draw = token_draw,
    .mean = token_mean,
    .moment2 = token_moment2,
    .route_cost = so2_cost,
};
