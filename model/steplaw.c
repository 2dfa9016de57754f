/* steplaw.c: per-block step laws of a trained model's rotation, their
 * windows and the predicted horizon (definitions in steplaw.h). */
#include "steplaw.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/family.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/mixstay_forms.h"
#include "../theory/theory.h"

const char *rl_steps_kind_name(rl_steps_kind k)
{
    static const char *const n[] = { "none", "constant", "closed", "measured", "transport" };
    return (unsigned)k < 5 ? n[k] : "?";
}

long rl_horizon_predict(const long *W, int n, long T)
{
    long h = -1;
    for (int i = 0; i < n; i++)
        if (W[i] > T && (h < 0 || W[i] < h))
            h = W[i];
    return h;
}

/* windows, counts and H from s->logchi; each block's mix-or-stay distance
 * D_b(T, RL_MIXSTAY_MULT T) from its harmonics (theory/mixstay_forms.h) and the
 * law's score, their mean */
static rl_status finish(rl_steplaw *s, rl_err *err)
{
    const int nb = s->layers * s->lanes;
    s->at_ctx = s->beyond = 0;
    for (int b = 0; b < nb; b++) {
        s->window[b] = rl_mixing_window_log(s->logchi[b], s->eps);
        s->at_ctx += s->window[b] >= 1 && s->window[b] <= s->ctx;
        s->beyond += s->window[b] > s->ctx;
    }
    s->horizon = rl_horizon_predict(s->window, nb, s->ctx);
    double sum = 0;
    for (int b = 0; b < nb; b++) {
        rl_mixstay_block mb;
        RL_TRY(rl_mixstay_chi(s->harm + (long)b * s->nharm, s->nharm, s->ctx, RL_MIXSTAY_MULT * s->ctx, &mb, NULL,
                              err));
        s->mix[b] = mb.lo;
        s->mix_hi[b] = mb.hi;
        sum += mb.lo;
    }
    s->score = nb ? sum / nb : NAN;
    return RL_OK;
}

static rl_status alloc_blocks(rl_steplaw *s, int layers, int lanes, int nharm)
{
    s->layers = layers;
    s->lanes = lanes;
    s->nharm = nharm;
    s->logchi = rl_xcalloc((size_t)layers * lanes, sizeof(double));
    s->window = rl_xcalloc((size_t)layers * lanes, sizeof(long));
    s->harm = rl_xcalloc((size_t)layers * lanes * nharm, sizeof(double complex));
    s->mix = rl_xcalloc((size_t)layers * lanes, sizeof(double));
    s->mix_hi = rl_xcalloc((size_t)layers * lanes, sizeof(double));
    return RL_OK;
}

static rl_status check_common(long ctx, double eps, rl_err *err)
{
    if (ctx < 1)
        return rl_fail(err, RL_EINPUT, "training context must be at least 1, got %ld", ctx);
    if (!(eps > 0 && eps < 1))
        return rl_fail(err, RL_EINPUT, "eps must be in (0, 1), got %g", eps);
    return RL_OK;
}

rl_status rl_steplaw_closed(rl_angle_law law, int hd, double base, long ctx, double eps, rl_steplaw *s,
                            rl_err *err)
{
    memset(s, 0, sizeof *s);
    s->law = RL_ANG_COUNT;
    RL_TRY(check_common(ctx, eps, err));
    if (hd < 2 || hd % 2 || hd > 4096)
        return rl_fail(err, RL_EINPUT, "head dimension must be even, 2 to 4096, got %d", hd);
    if (!(base > 1 && base < INFINITY))
        return rl_fail(err, RL_EINPUT, "rotation base must be finite and > 1, got %g", base);
    if ((unsigned)law >= RL_ANG_COUNT)
        return rl_fail(err, RL_EINPUT, "no angle law has the code %d", (int)law);
    s->kind = law == RL_ANG_CONSTANT ? RL_STEPS_CONSTANT : RL_STEPS_CLOSED;
    s->law = law;
    s->hd = hd;
    s->heads = 1;
    s->ctx = ctx;
    s->base = base;
    s->eps = eps;
    alloc_blocks(s, 1, hd / 2, RL_MIXSTAY_HARMONICS);
    rl_family f = rl_family_default(RL_FAM_SO2, hd);
    f.law = law;
    f.base = base;
    f.scale = 1.0;
    rl_family_log_mean_norm(&f, NULL, s->logchi);
    double om[hd / 2];
    rl_so2_freqs(hd, base, 1.0, om);
    for (int b = 0; b < hd / 2; b++)
        rl_angle_harmonics(law, om[b], s->nharm, s->harm + (long)b * s->nharm);
    const rl_status st = finish(s, err);
    if (st != RL_OK)
        rl_steplaw_free(s);
    return st;
}

/* The harmonics of one step theta = c + U(-w, w) added into h[0 .. n-1]:
 * E e^{i k theta} = e^{i k c} sinc(k w), e^{i k c} and sin(k w) = Im e^{i k w}
 * by recurrence (one sincos per step, not per harmonic). */
static void add_harmonics(double c, double w, int n, double complex *h)
{
    const double complex zc = cexp(I * c), zw = cexp(I * w);
    double complex pc = 1, pw = 1;
    for (int k = 1; k <= n; k++) {
        pc *= zc;
        pw *= zw;
        h[k - 1] += (w == 0 ? 1.0 : cimag(pw) / (k * w)) * pc;
    }
}

/* One pass over the windows: pass 0 sums s e^{ic} into S and the steps'
 * harmonics into H (nh per block); pass 1 sums the terms of 1 - |chi| about
 * the phases phi into D. */
static void pass(rl_gpt *m, const uint16_t *tok, long nwin, uint64_t key, int learned_ln, int which,
                 double complex *S, double complex *H, int nh, const double *phi, double *D)
{
    const int T = m->cfg.ctx, lanes = rl_scheme_step_lanes(&m->sx);
    const long rows = (long)m->B * T;
    double *c = rl_xmalloc(sizeof(double) * rows * lanes), *w = rl_xmalloc(sizeof(double) * rows * lanes);
    for (long w0 = 0; w0 < nwin; w0 += m->B) {
        const int nb = nwin - w0 < m->B ? (int)(nwin - w0) : m->B;
        const uint16_t *t0 = tok + w0 * T;
        if (learned_ln)
            rl_gpt_forward(m, t0, T, nb, T, 0, rl_stream_key(key, (uint64_t)w0));
        if (m->nomem) /* no public entry reaches this (the command layer's) */
            rl_fatal("out of memory (the position scheme's noise)");
        for (int l = 0; l < m->cfg.layers; l++) {
            if (rl_scheme_steps(&m->sx, l, learned_ln ? m->a[l].ln1 : NULL, t0, (long)nb * T, c, w) != RL_OK)
                rl_fatal("out of memory (the position scheme's steps)");
            for (long r = 0; r < (long)nb * T; r++) {
                if (r % T == 0) /* position 0 takes no step */
                    continue;
                for (int j = 0; j < lanes; j++) {
                    const long i = r * lanes + j, b = (long)l * lanes + j;
                    const double hw = w[i], sn = hw == 0 ? 1.0 : sin(hw) / hw;
                    if (which == 0) {
                        S[b] += sn * cexp(I * c[i]);
                        add_harmonics(c[i], hw, nh, H + b * nh);
                    } else {
                        const double h = sin(0.5 * (c[i] - phi[b]));
                        D[b] += rl_one_minus_sinc(hw) + sn * 2.0 * h * h;
                    }
                }
            }
        }
    }
    free(c);
    free(w);
}

rl_status rl_steplaw_measure(rl_gpt *m, const uint16_t *tok, long ntok, uint64_t key, double eps,
                             rl_steplaw *s, rl_err *err)
{
    memset(s, 0, sizeof *s);
    s->law = RL_ANG_COUNT;
    const long T = m->cfg.ctx;
    RL_TRY(check_common(T, eps, err));
    const int lanes = rl_scheme_step_lanes(&m->sx);
    if (lanes <= 0)
        return rl_fail(err, RL_EINPUT, "scheme %s accumulates no steps to measure", rl_pos_name(m->cfg.pos));
    if (m->B < 1)
        return rl_fail(err, RL_EINPUT, "measuring the steps needs a model with activations (B >= 1)");
    if (T < 2)
        return rl_fail(err, RL_EINPUT, "a training context of %ld takes no steps", T);
    if (ntok < T + 1)
        return rl_fail(err, RL_EINPUT, "measuring the steps needs at least T + 1 = %ld tokens, got %ld", T + 1,
                       ntok);
    const long nwin = (ntok - 1) / T;
    const int L = m->cfg.layers, nb = L * lanes;
    /* only a scheme whose steps read the LN1 output (lf) needs the forward */
    const int learned_ln = m->sx.s->steps_read_ln;
    double complex *S = rl_xcalloc((size_t)nb, sizeof *S);
    double *phi = rl_xcalloc((size_t)nb, sizeof *phi), *D = rl_xcalloc((size_t)nb, sizeof *D);
    alloc_blocks(s, L, lanes, RL_STEPLAW_HARMONICS_MEASURED);
    pass(m, tok, nwin, key, learned_ln, 0, S, s->harm, s->nharm, NULL, NULL);
    for (int b = 0; b < nb; b++)
        phi[b] = carg(S[b]);
    pass(m, tok, nwin, key, learned_ln, 1, NULL, NULL, 0, phi, D);
    s->kind = RL_STEPS_MEASURED;
    s->hd = m->hd;
    s->heads = m->cfg.heads;
    s->ctx = T;
    s->base = m->cfg.rot_base;
    s->eps = eps;
    s->positions = nwin * (T - 1);
    for (int b = 0; b < nb; b++) {
        const double omc = D[b] / (double)s->positions; /* 1 - |chi| */
        s->logchi[b] = omc < 1 ? log1p(-omc) : -INFINITY;
    }
    for (long i = 0; i < (long)nb * s->nharm; i++)
        s->harm[i] /= (double)s->positions;
    free(S);
    free(phi);
    free(D);
    const rl_status st = finish(s, err);
    if (st != RL_OK)
        rl_steplaw_free(s);
    return st;
}

rl_status rl_steplaw_transport(rl_gpt *m, const rl_tokens *val, uint64_t key, double eps, rl_steplaw *s,
                               rl_err *err)
{
    memset(s, 0, sizeof *s);
    s->law = RL_ANG_COUNT;
    RL_TRY(check_common(m->cfg.ctx, eps, err));
    const int L = m->cfg.layers, H = m->cfg.heads, nb = L * H;
    rl_transport_dist *tr = rl_xcalloc((size_t)nb, sizeof *tr);
    long S = 0;
    const rl_status st = rl_transport_measure(m, val, key, tr, &S, err);
    if (st != RL_OK) {
        free(tr);
        return st;
    }
    s->kind = RL_STEPS_TRANSPORT;
    s->hd = m->hd;
    s->heads = H;
    s->ctx = m->cfg.ctx;
    s->base = NAN;
    s->eps = eps;
    s->routes = S;
    s->tr = tr;
    alloc_blocks(s, L, H, 0);
    double sum = 0;
    for (int b = 0; b < nb; b++) { /* in head order: the same sum for any thread count */
        s->logchi[b] = NAN;
        s->window[b] = -1;
        s->mix[b] = tr[b].d1;
        s->mix_hi[b] = tr[b].hi;
        sum += tr[b].d1;
    }
    s->horizon = -1;
    s->score = sum / nb;
    return RL_OK;
}

/* a^n from log a, a^0 = 1 even at a = 0 (log a = -inf) */
static double pow_log(double log_a, long n)
{
    return n == 0 ? 1.0 : exp((double)n * log_a);
}

rl_status rl_steplaw_transport_closed(rl_gpt *m, double log_mean, double eps, rl_steplaw *s, rl_err *err)
{
    memset(s, 0, sizeof *s);
    s->law = RL_ANG_COUNT;
    RL_TRY(check_common(m->cfg.ctx, eps, err));
    if (!(log_mean <= 0))
        return rl_fail(err, RL_EINPUT, "a closed mean transport needs log a <= 0, got %g", log_mean);
    const int L = m->cfg.layers, H = m->cfg.heads, nb = L * H, d = m->hd;
    const long T = m->cfg.ctx, far = RL_MIXSTAY_MULT * T - 1, near = T - 1;
    const double gap = pow_log(log_mean, near) - pow_log(log_mean, far), D = gap / (M_PI * sqrt(2.0));
    s->kind = RL_STEPS_TRANSPORT;
    s->hd = d;
    s->heads = H;
    s->ctx = T;
    s->base = NAN;
    s->eps = eps;
    s->routes = 0;
    alloc_blocks(s, L, H, 0);
    s->tr = rl_xcalloc((size_t)nb, sizeof *s->tr);
    for (int b = 0; b < nb; b++) {
        s->logchi[b] = log_mean;
        s->window[b] = rl_mixing_window_log(log_mean, eps);
        s->at_ctx += s->window[b] >= 1 && s->window[b] <= T;
        s->beyond += s->window[b] > T;
        s->mix[b] = s->mix_hi[b] = D;
        s->tr[b] = (rl_transport_dist){ D, 0, D, gap * gap * d, 0, far, near };
    }
    s->horizon = rl_horizon_predict(s->window, nb, T);
    s->score = D;
    return RL_OK;
}

rl_status rl_steplaw_of(rl_gpt *m, const rl_tokens *val, long ntok, uint64_t key, double eps, rl_steplaw *s,
                        rl_err *err)
{
    memset(s, 0, sizeof *s);
    const rl_gpt_config *c = &m->cfg;
    const int hd = m->hd;
    switch (m->sx.s->steps_kind) {
    case RL_STEPS_CONSTANT:
    case RL_STEPS_CLOSED:
        return rl_steplaw_closed(m->sx.s->step_law, hd, c->rot_base, c->ctx, eps, s, err);
    case RL_STEPS_MEASURED:
        if (ntok < 1 || ntok > val->n)
            ntok = val->n;
        return rl_steplaw_measure(m, val->tok, ntok, key, eps, s, err);
    case RL_STEPS_TRANSPORT: /* closed, or the whole stream: ntok does not apply */
        if (m->sx.s->transport_log_mean && !isnan(m->sx.s->transport_log_mean(hd)))
            return rl_steplaw_transport_closed(m, m->sx.s->transport_log_mean(hd), eps, s, err);
        return rl_steplaw_transport(m, val, key, eps, s, err);
    default:
        RL_TRY(check_common(c->ctx, eps, err));
        s->kind = RL_STEPS_NONE;
        s->law = RL_ANG_COUNT;
        s->hd = hd;
        s->heads = c->heads;
        s->ctx = c->ctx;
        s->base = NAN;
        s->eps = eps;
        s->horizon = -1;
        s->score = NAN;
        return RL_OK;
    }
}

void rl_steplaw_free(rl_steplaw *s)
{
    free(s->logchi);
    free(s->window);
    free(s->harm);
    free(s->mix);
    free(s->mix_hi);
    free(s->tr);
    s->tr = NULL;
    s->logchi = NULL;
    s->window = NULL;
    s->harm = NULL;
    s->mix = s->mix_hi = NULL;
}
