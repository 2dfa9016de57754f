/* farpred.h: what a trained model's heads do within the training context T,
 * read as the inputs of the far-mass prediction (theory/farpred_forms.h,
 * docs/theory/farpred.md#far-mass-prediction), and the prediction at longer lengths beside its two
 * baselines.
 *
 * On nwin windows of T tokens (the probe's window starts at length T; the
 * rotation noise keyed per batch of windows), for every layer and head:
 *   - the realised scores s_ij = q.k/sqrt(hd) - m_h (i - j) by distance:
 *     mean, spread and mean weight e^s (the logit against distance);
 *   - the near sums N_r = sum_{delta < T - 1} e^{s} of each window's last
 *     query (its T - 1 nearest keys that are not the window's first token)
 *     and the row's largest |s| (lambda);
 *   - content pairs (i, j) from the far band delta in [T/2, T - 1], j >= 1,
 *     and the window's first token (j = 0, the "sink") at the same
 *     distances: each pair's unrotated block alignments A_b =
 *     q~_b conj(k~_b)/sqrt(hd) and unrotated score c (no rotation: every
 *     dimension; else 0);
 *   - the step law's chi_b(n) = mean over the text of E_U e^{i n theta}
 *     (rl_scheme_steps: exact in the noise, closed form for random, the
 *     model's own steps on text for pemb and lf; RoPE: e^{i n omega_b}),
 *     read in a first pass over the same windows (the same noise);
 *   - each last query's level at its band keys, the realised weight with
 *     every block that mixes at the band (|chi_b(1)|^{T/2} <= 0.1) at its
 *     conditional mean given the content (F1): that block's realised phase
 *     is noise the far keys do not share.
 * The Householder transports (path, random-hh) transport scores, not blocks:
 * no prediction (RL_EINPUT). */
#ifndef RL_MODEL_FARPRED_H
#define RL_MODEL_FARPRED_H

#include <complex.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/core/err.h"
#include "../base/core/tokfile.h"
#include "gpt.h"

typedef struct {
    int layers, heads, nb; /* blocks per head (0: no rotation) */
    long T, nwin, np, ns;  /* windows; content pairs; sink pairs (per head) */
    int nh;                /* harmonics of chi */
    /* per head (layer * heads + h): */
    double *slope;         /* ALiBi slope */
    double *dsum, *dsq, *dexp; /* [head][delta]: sums of s, s^2, e^s over (windows x rows) */
    double *dcount;        /* [delta]: pairs per distance (every head alike) */
    double *nearN, *nearS, *lam; /* [head][window]: sums of e^s and s e^s, largest |s| */
    double *rowb, *rowbc, *rows0, *rows0c; /* [head][window]: the last query's mean e^s over its band
                            * keys, its level there (e^{s + m_h delta}, each block that mixes at the
                            * band at its conditional mean:
                            * docs/theory/farpred.md#farpred-derivation), its first token's e^s and
                            * level */
    double *bandc, *sinkc; /* [head]: mean e^{s + m_h delta} (the content without the ALiBi bias)
                            * over every band pair (j >= 1), and over the sink pairs */
    double *c, *cs;        /* [head][np], [head][ns]: unrotated scores */
    double *sr, *srs;      /* [head][np], [head][ns]: the pairs' realised scores s */
    long *pdist, *sdist;   /* [np], [ns]: each pair's distance (every head alike) */
    double complex *A, *As; /* [head][np][nb], [head][ns][nb] */
    double complex *chi;   /* [head][nb][nh] */
    /* routelab's predictor, the route form (farpred_route.h, docs/theory/farpred.md#route-form): */
    uint64_t seed;         /* the routes' streams: (seed ^ RL_STREAM_FARPRED_ROUTE, head, window) */
    int hd, lanes;         /* step lanes per layer (rl_scheme_step_lanes; 0: constant steps or none) */
    long nseg;             /* segments: windows 0 .. nseg - 1 */
    float *qr, *ks;        /* [head][window][hd]: the last query's unrotated q; the window's first key */
    double *junc;          /* [head][window][nb]: each block's realised angle at delta = T - 1 */
    float *kseg;           /* [head][segment][T][hd]: the segments' unrotated keys */
    double *scen, *shw;    /* [layer][segment][T][lanes]: the step law theta = c + w U at each position */
    double *om;            /* [nb]: the constant steps (lanes == 0: RoPE's omega_b) */
} rl_farpred_within;

/* Segments measured for the route (at most; fewer windows, fewer). */
#define RL_FARPRED_SEGMENTS 64
/* The most block steps the route may take (heads x windows x far lengths x
 * blocks, both forms): about an hour on one core; beyond, RL_EINPUT. */
#define RL_FARPRED_MAX_STEPS 1e12

/* Measure on windows w = 0..nwin-1 of rl_data_window(val, T, seed, w): m
 * with training activations (rl_ckpt_load with B >= 1), np content pairs
 * per head (spread over the windows and the band deterministically).
 * RL_EINPUT for PaTH, nwin < 1, np < 1, a stream shorter than T + 1;
 * RL_EINTERNAL when the Bessel functions fail (w is then freed). */
rl_status rl_farpred_measure(rl_gpt *m, const rl_tokens *val, long nwin, long np, uint64_t seed,
                             rl_farpred_within *w, rl_err *err);
void rl_farpred_within_free(rl_farpred_within *w);

/* One predicted row: length L, layer, head, the probe's rows [i0, L) of a
 * window of L; far mass at delta >= T by routelab's predictor (the route
 * form: every window's last query's row simulated, farpred_route.h), by the
 * same with mixing switched off, by the mean-field form (F2, F3), by
 * dilution (every far key weighs the band's mean e^s, the sink its own),
 * and the bound M/(M + K e^{2 lambda}) (K = T, M = i + 1 - T, lambda the
 * mean of the within-T rows' largest |s|), each averaged over the rows. */
typedef struct {
    long L;
    int layer, head;
    double route, route_se;  /* routelab's predictor (the route form) and its Monte Carlo SE */
    double nomix, nomix_se;  /* the same with mixing switched off (every step arg chi_b(1)) */
    double meanfield;        /* the mean-field form F1-F3 (the committed grid's "theory") */
    double dilution, bound, lambda;
    double ent_route, ent_meanfield, ent_dilution; /* the rows' attention entropy (nats) */
} rl_farpred_row;

/* Rows for lengths L[0..nl-1] (each > T), layers x heads per length, into
 * rows (nl * layers * heads); RL_EINPUT for a length <= T, a route of more
 * than RL_FARPRED_MAX_STEPS block steps, or tables beyond the memory.
 * logm_band (may be NULL): the theory's m(delta) for delta in [T/2, T) per
 * head (heads x T/2), the within-T check of F1. */
rl_status rl_farpred_predict(const rl_farpred_within *w, const long *L, int nl, rl_farpred_row *rows,
                             double *logm_band, rl_err *err);

/* rl_farpred_predict's checks of the lengths for model m measured on nwin
 * windows, before the measurement (the command calls it first). */
rl_status rl_farpred_check(const rl_gpt *m, long nwin, const long *L, int nl, rl_err *err);

#endif
