/* steplaw.h: a trained model's rotation read as the theory's SO(2) blocks
 * (docs/theory/claim1-mixing.md#mixing-window and the horizon section): the step law of
 * each block, its mixing window W_b(eps), and the extrapolation horizon the
 * windows predict.
 *
 * The predicted horizon (docs/theory/claim1-mixing.md#mixing-window: a route longer than W_b has,
 * on average, forgotten its start in block b).  A block with W_b <= T is mixed
 * noise already within the training context: the model learns to read it as
 * noise.  A block with W_b > T is coherent over every training distance: a
 * position-like signal the model may rely on.  Beyond T, such a block changes
 * regime (coherent -> mixed) once the distance passes W_b, so the first
 * change the model meets is at
 *     H = min { W_b : W_b > T },
 * and none at all when no block has a finite window beyond T (constant
 * angles, RoPE and fixed-rope: |chi| = 1, no window; or every block mixed
 * within T).  The prediction is that nothing the rotation does changes
 * before H; it says nothing about other causes (ALiBi, the share of
 * positions with little context). */
#ifndef RL_MODEL_STEPLAW_H
#define RL_MODEL_STEPLAW_H

#include <complex.h>
#include <stdint.h>

#include "../base/core/err.h"
#include "../base/core/tokfile.h"
#include "gpt.h"
#include "path_transport.h"

/* rl_steps_kind (NONE, CONSTANT, CLOSED, MEASURED, TRANSPORT): scheme.h, where each
 * scheme's object names its own (steps_kind, step_law). */
const char *rl_steps_kind_name(rl_steps_kind k);

typedef struct {
    rl_steps_kind kind;
    rl_angle_law law;  /* constant, closed: the step law; measured, none: RL_ANG_COUNT */
    int layers, lanes; /* blocks: layers x lanes (closed, constant: 1 x hd/2,
                        * every layer and head alike; measured: per layer,
                        * lanes as rl_scheme_step_lanes; transport: layers x
                        * heads, one reading per head) */
    int hd, heads;
    long ctx;          /* T */
    double base, eps;
    long positions;    /* steps averaged per block (measured) */
    double *logchi;    /* layers x lanes: log |chi_b| (<= 0) */
    long *window;      /* layers x lanes: W_b(eps), -1: never */
    long horizon;      /* predicted H, -1: none */
    int at_ctx, beyond; /* blocks with W_b <= T; with a finite W_b > T */
    /* routelab's mix-or-stay reading (theory/mixstay_forms.h,
     * docs/theory/claim1-mixing.md#mix-or-stay): */
    int nharm;             /* harmonics of each block's chi(k), k = 1 .. nharm */
    double complex *harm;  /* layers x lanes x nharm: chi_b(k) */
    double *mix, *mix_hi;  /* layers x lanes: D_b(T, RL_MIXSTAY_MULT T), lower end and upper end
                            * (transport: the head's D estimate and its 3-SE upper end) */
    double score;          /* the mean of mix over the blocks (NaN without blocks) */
    /* transport (path_transport.h): per head D with its SE and arg pair;
     * measured: logchi NaN and window -1 (no one-step law, no window);
     * closed (rl_steplaw_transport_closed): log a and its window, SE 0 */
    rl_transport_dist *tr; /* layers x lanes */
    long routes;           /* S, the routes (windows) averaged; 0: closed */
} rl_steplaw;

/* Harmonics of a measured law: its chi(k) is a mean over the text's steps
 * (each position's e^{i k c} sinc(k w)), so every harmonic costs a pass over
 * them; 256 keep the truncation bracket of D_b within 0.028 (bounds.h). */
#define RL_STEPLAW_HARMONICS_MEASURED 256

/* H = min { W[i] : W[i] > T } over n windows (-1: never mixes); -1 when no
 * window is finite and > T. */
long rl_horizon_predict(const long *W, int n, long T);

/* The i.i.d. steps theta ~ law(omega_b) of hd/2 blocks, omega_b =
 * base^(-2b/hd) (rl_so2_freqs): windows through rl_family_log_mean_norm and
 * rl_mixing_window_log (no second formula).  Kind CONSTANT for
 * RL_ANG_CONSTANT, else CLOSED (random: uniform; random_pos: drift, whose
 * |chi| is uniform's).  RL_EINPUT on a bad law, hd, base, T or eps. */
rl_status rl_steplaw_closed(rl_angle_law law, int hd, double base, long ctx, double eps, rl_steplaw *s,
                            rl_err *err);

/* The learned steps of m (a scheme with rl_scheme_step_lanes > 0; m with
 * training activations, m->B >= 1) on windows of T consecutive tokens of
 * tok[0..ntok-1] (ntok >= T + 1), positions 1..T-1 of each (position 0 takes
 * no step): per layer and lane the one-step characteristic function
 *     chi = mean_t E_U e^{i theta_t} = mean_t e^{i c_t} sinc(w_t)
 * (theta_t = c_t + U(-w_t, w_t): exact over the noise U, averaged over the
 * text), and W_b from log |chi|.  The steps along a text are not independent
 * (they follow the tokens), so W_b is a reading of the one-step law, not the
 * mixing of the actual routes.  |chi| is formed without cancellation: a
 * first pass finds the phase phi of chi, a second sums 1 - |chi| =
 * mean[(1 - sinc w) + sinc w * 2 sin^2((c - phi)/2)], so constant angles
 * give |chi| = 1 to the last bit.  lf runs the forward (no dropout; the
 * noise of window i keyed by rl_stream_key(key, i)) twice. */
rl_status rl_steplaw_measure(rl_gpt *m, const uint16_t *tok, long ntok, uint64_t key, double eps,
                             rl_steplaw *s, rl_err *err);

/* PaTH's reading (kind TRANSPORT): routelab's first-harmonic mix-or-stay
 * distance D(T, RL_MIXSTAY_MULT T) of every (layer, head) on windows
 * spread over the whole stream val (rl_transport_measure, key as there),
 * mix = D, mix_hi its 3-SE upper end, score their mean; no windows and no
 * predicted horizon.  RL_EINPUT as rl_transport_measure and for a bad eps. */
rl_status rl_steplaw_transport(rl_gpt *m, const rl_tokens *val, uint64_t key, double eps, rl_steplaw *s,
                               rl_err *err);

/* routelab's closed reading of a transport whose one-step mean is E M = a I,
 * log a = log_mean (0 <= a < 1; random-hh: a = 1 - 2/hd, docs/model/path-transport.md#random-hh),
 * on m's shape: E P(delta) = a^delta I in every (layer, head), so
 *     d_1(delta, delta') = |a^delta - a^delta'| / (pi sqrt 2)
 * (path_transport.h: ||a^delta I - a^delta' I||_F = |.| sqrt d) and, a^delta
 * decreasing, D(T, L) = (a^(T-1) - a^(L-1)) / (pi sqrt 2) at L =
 * RL_MIXSTAY_MULT T (far L - 1, near T - 1); mix = mix_hi = D, SE 0, routes
 * 0.  The one-step norm a is a block's |chi|: logchi = log a per head, the
 * window W(eps) and the horizon as for SO(2) blocks.  Kind TRANSPORT.
 * RL_EINPUT for a log_mean that is NaN or positive, and as check_common. */
rl_status rl_steplaw_transport_closed(rl_gpt *m, double log_mean, double eps, rl_steplaw *s, rl_err *err);

/* The law of any model, as its scheme's object says (steps_kind): NONE;
 * CONSTANT and CLOSED in closed form from the object's step_law and the
 * configuration (rl_steplaw_closed); MEASURED on the first ntok tokens of val
 * (rl_steplaw_measure); TRANSPORT closed where the object has a closed
 * mean (transport_log_mean not NAN: rl_steplaw_transport_closed), else on
 * windows spread over the whole of val, whatever ntok (rl_steplaw_transport:
 * a route's windows should come from many documents, and Brown's first
 * 16384 tokens are one or two). */
rl_status rl_steplaw_of(rl_gpt *m, const rl_tokens *val, long ntok, uint64_t key, double eps,
                        rl_steplaw *s, rl_err *err);

void rl_steplaw_free(rl_steplaw *s);

#endif
