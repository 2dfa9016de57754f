/* fam_so2.c: the block-diagonal SO(2) families -- so2 (angle theta_b ~
 * law(omega_b), independent blocks) and token-so2 (theta_b = table[token][b],
 * one token setting every block). */
#include "family_ops.h"
#include "so2.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/opts.h"
#include "../base/core/util.h"

/* The block frequencies' parameters, so2's and a random token-so2 table's
 * (omega_b = scale * base^(-2b/d), b = 0..d/2-1; so2.h). */
#define SO2_PARAMS_                                                                                       \
    { "angles", RL_PAR_CHOICE, offsetof(rl_family, law), RL_ANG_UNIFORM, 0, 0, 0, RL_ANGLE_NAMES,          \
      "angle law of each block (of a random table's entries for token-so2)" },                           \
    { "base", RL_PAR_DOUBLE, offsetof(rl_family, base), 10000.0, 1, 0, RL_LO_OPEN, NULL,                  \
      "frequency base: omega_b = scale*base^(-2b/d)" },                                                   \
    { "scale", RL_PAR_DOUBLE, offsetof(rl_family, scale), 1.0, 0, 0, RL_LO_OPEN, NULL,                    \
      "frequency scale (s of the gauss law)" }

static const rl_family_param so2_params[] = { SO2_PARAMS_ };
static const rl_family_param token_params[] = {
    SO2_PARAMS_,
    { "vocab", RL_PAR_INT, offsetof(rl_family, vocab), 256, 1, 1 << 24, RL_LO | RL_HI, NULL,
      "vocabulary of a random table" },
};

/* the ranges are the tables' (rl_family_check); d/2 blocks need d even */
static rl_status so2_check(const rl_family *f, rl_err *err)
{
    if (f->d % 2)
        return rl_fail(err, RL_EINPUT, "%s needs an even dimension, got d = %d", rl_family_name(f->kind), f->d);
    return RL_OK;
}

static rl_status token_check(const rl_family *f, rl_err *err)
{
    RL_TRY(so2_check(f, err));
    if (f->vocab < 1 || !f->table)
        return rl_fail(err, RL_EINPUT, "token-so2 needs an angle table of at least one token");
    return RL_OK;
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

const rl_family_ops rl_family_so2 = {
    .desc = "block-diagonal SO(2) rotations, x[b] paired with x[b+d/2], angle law per block",
    RL_FAMILY_PARAMS(so2_params),
    .form = RL_STEP_SO2,
    .check = so2_check,
    .det_sign = rl_family_det_plus,
    .ws_alloc = so2_ws,
    .ws_free = so2_ws_free,
    .draw = so2_draw,
    .mean = so2_mean,
    .log_mean = so2_log_mean,
    .moment2 = so2_moment2,
    .route_cost = so2_cost,
};

const rl_family_ops rl_family_token_so2 = {
    .desc = "block-diagonal SO(2) rotations, angle = table[token][b] for the token read at that step",
    RL_FAMILY_PARAMS(token_params),
    .files = "table text",
    .form = RL_STEP_SO2,
    .check = token_check,
    .det_sign = rl_family_det_plus,
    .draw = token_draw,
    .mean = token_mean,
    .moment2 = token_moment2,
    .route_cost = so2_cost,
};
