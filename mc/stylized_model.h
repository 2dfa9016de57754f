/* stylized_model.h: one attention layer retrieving a target value among
 * distractors, for `routelab stylized` (claim 5).
 *
 * A query at position i attends to the L tokens at distances delta = 1..L.
 * The key at distance delta reaches the query through the route
 * P_delta = P(i-delta -> i) of a transport (none, RoPE angles, accumulated
 * random SO(2) angles, accumulated Householder reflections), so its logit is
 *     l_delta = q^T P_delta k_delta - m delta          (m = 0 without ALiBi),
 * keys are unit vectors and |q| <= lambda, hence |l| <= lambda before the bias.
 * What training gives a real layer is modelled explicitly:
 *   - distractor keys share a direction u: k = normalize(u + s g / sqrt(d));
 *   - the target key (one token, at a near distance delta_t uniform in
 *     1..k_near) has its own direction w (w orthogonal to u);
 *   - distractor values share a background vbar: v = vbar + sigma_v g / sqrt(d);
 *     the target value is v_t (orthogonal to vbar);
 *   - the query q is fitted (sty_fit) by gradient ascent on log alpha_t inside
 *     training windows of length T_train.
 * The output is o = sum_delta alpha_delta V_delta, with V_delta = v_delta, or
 * P_delta v_delta when the scheme also transports values (rotating values
 * and inverse-rotating the output amounts to exactly that). */
#ifndef RL_STYLIZED_MODEL_H
#define RL_STYLIZED_MODEL_H

#include <gsl/gsl_rng.h>

#include "../base/core/err.h"
#include "../sampling/family.h"
#include "../sampling/normal.h"

/* Transports of the keys (and of the values where a scheme asks for it). */
typedef enum {
    STY_TR_NONE,        /* P = I (NoPE, ALiBi) */
    STY_TR_ROPE,        /* SO(2), angle delta * omega_b: position-indexed */
    STY_TR_RANDOM,      /* SO(2), accumulated U(-omega_b, omega_b) steps */
    STY_TR_HOUSEHOLDER, /* accumulated I - 2 w w^T, w uniform (PaTH at beta = 2) */
    STY_TR_COUNT
} sty_transport;

/* A score process: a transport and whether the ALiBi bias is added.  Each
 * has its own fitted query. */
typedef struct {
    const char *name;
    sty_transport tr;
    int alibi;
} sty_fit_spec;

/* A scheme of the study: a score process and whether values are transported. */
typedef struct {
    const char *name;
    int fit;    /* index into sty_fits */
    int values; /* 1: o = sum alpha P v (Q/K/V); 0: o = sum alpha v */
} sty_scheme;

enum { STY_NFIT = 6, STY_NSCHEME = 7 };
extern const sty_fit_spec sty_fits[STY_NFIT];
extern const sty_scheme sty_schemes[STY_NSCHEME];

typedef struct {
    int d;
    int k_near;          /* target distance uniform in 1..k_near; near = distances 1..k_near */
    double lambda;       /* |q| <= lambda */
    double key_noise;    /* s */
    double value_noise;  /* sigma_v */
    double slope;        /* ALiBi m */
    double *u, *w, *vbar, *vt; /* unit vectors, d each (one allocation) */
    rl_ziggurat zig;
} sty_model;

/* Directions u, w (w orthogonal to u), vbar, v_t (orthogonal to vbar) drawn
 * uniformly from stream (seed, stream). */
void sty_model_init(sty_model *m, int d, int k_near, double lambda, double key_noise, double value_noise,
                    double slope, unsigned long seed, unsigned long stream);
void sty_model_free(sty_model *m);

/* The step family of a transport (STY_TR_NONE has none: returns 0). */
int sty_transport_family(sty_transport tr, int d, rl_family *f);

/* ---- one training window ---- */

typedef struct sty_win_ws sty_win_ws;
sty_win_ws *sty_win_alloc(const sty_model *m, sty_transport tr, long T);
void sty_win_free(sty_win_ws *ws);

/* One window of length T (at most the workspace's): draws delta_t and the
 * keys from rd, the transport steps from rt, and sets *logp = log alpha_t.
 * When grad is not NULL it adds
 *     d log alpha_t / dq = sum_delta (1[delta = delta_t] - alpha_delta) P_delta k_delta
 * to grad (the bias does not depend on q).  RL_EINPUT for T too long; a
 * failed draw of the workspace's chain (sampling/steps.h), now or in an
 * earlier window, is returned as its status. */
rl_status sty_window(const sty_model *m, const sty_fit_spec *f, const double *q, long T, gsl_rng *rd, gsl_rng *rt,
                     sty_win_ws *ws, double *grad, double *logp, rl_err *err);

/* ---- fitting the query ---- */

typedef struct {
    long T;          /* training window */
    int steps, batch;
    double lr;       /* Adam step size (decays linearly to lr/10) */
    unsigned long seed, tag;
    unsigned long rep; /* the fit's index among independent fits (0: the first) */
} sty_fit_opts;

/* Fit q (d values, started at 0) for score process f: Adam ascent on the
 * batch mean of log alpha_t, projected on |q| <= lambda.  Window b of step t
 * reads data stream (seed, key(key(tag, rep), t*batch + b)) and transport
 * stream (seed, key(key(tag + 1 + tr, rep), t*batch + b)): the same data for
 * every process of one fit index, independent data for another fit index.
 * curve (steps values, may be NULL) gets the batch mean of log alpha_t. */
rl_status sty_fit(const sty_model *m, const sty_fit_spec *f, const sty_fit_opts *o, double *q, double *curve,
                  rl_err *err);

/* ---- evaluation: all schemes on the same draws ---- */

/* Quantities per (scheme, grid point). */
enum { STY_Q_ALPHA, STY_Q_RHO, STY_Q_NLL, STY_Q_SNR, STY_Q_BG, STY_Q_SIG, STY_Q_VIOL, STY_NQ };

typedef struct sty_eval_ws sty_eval_ws;
/* The evaluation workspace; RL_EINPUT (and *out = NULL) when a scheme
 * transports values along a non-SO(2) chain (not supported). */
rl_status sty_eval_alloc(const sty_model *m, sty_eval_ws **out, rl_err *err);
void sty_eval_free(sty_eval_ws *ws);

/* One query against contexts of every grid length (increasing): walks
 * delta = 1..grid[ng-1] once, so the context of length L is the first L
 * tokens of the longest one.  Q: the fitted queries (STY_NFIT x d).  rd: data
 * (delta_t, keys, output noise); rt[tr]: steps of transport tr.  out[(s * ng +
 * g) * STY_NQ + q]: alpha_t, far mass rho_D (distances > k_near), -log alpha_t,
 * output SNR = signal / |o - signal v_t|, background leakage
 * |sum_{j != t} alpha_j V_j^bg|, signal = the target's own term alpha_t v_t.V_t,
 * and 1 if rho_D < M/(M + K e^{2 lambda}) (the rotation-only bound; ALiBi
 * schemes report 0).  RL_EINPUT when the shortest context is shorter than the
 * target's distance; a failed draw of a chain (sampling/steps.h), now or in
 * an earlier call, is returned as its status. */
rl_status sty_eval(const sty_model *m, const double *Q, const long *grid, int ng, gsl_rng *rd, gsl_rng *const *rt,
                   sty_eval_ws *ws, double *out, rl_err *err);

#endif
