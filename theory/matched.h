/* matched.h: a mixing-matched scale.
 *
 * What the theory says matters for length extrapolation is how many SO(2)
 * blocks of a head mix within the training length T and within mult*T
 * (docs/theory/claim1-mixing.md#mixing-window: block b of random angles U(-omega_b, omega_b) has
 * ||E M_b|| = sin(omega_b)/omega_b and window W_b(eps); a route longer than
 * W_b has forgotten its start in that block).  A smaller model keeps the
 * study's regime if it keeps the study's two fractions; the free knob is the
 * rotation base.  Every window here is rl_mixing_window_log of the family's
 * per-block log norms (rl_family_log_mean_norm): no second formula. */
#ifndef RL_MATCHED_H
#define RL_MATCHED_H

#include "../base/core/err.h"

/* Head dimensions the chooser takes (even, 2 .. this), the bases it searches
 * ([min, max]) and the largest mult*T. */
#define RL_MATCH_MAX_D 1024
#define RL_MATCH_BASE_MIN 2.0
#define RL_MATCH_BASE_MAX 1e8
#define RL_MATCH_MAX_LEN 1e15
/* The tolerance at which the study's mixing regime is quoted (its windows
 * W_b(0.1): 10 of 48 blocks within T, 23 of 48 within 128T), used by the
 * grids' matched base, `routelab bound match` and the mixstay claim. */
#define RL_MATCH_STUDY_EPS 0.1

/* Blocks of the so2 family at head dimension d (d/2 blocks, uniform angles,
 * omega_b = base^(-2b/d), scale 1) whose window W_b(eps) is at most len
 * (a block that never mixes does not count) into *count.  Nonincreasing in
 * base: omega_b (b >= 1) falls with the base, sin(w)/w rises as w falls on
 * (0, 1], so each W_b grows.  Block 0 (omega = 1) does not depend on it. */
rl_status rl_match_count(int d, double base, double eps, long len, int *count, rl_err *err);

/* The study's fractions (RL_STUDY_HEAD_DIM, RL_STUDY_BASE, T =
 * rl_study_lengths[0], theory/study.h): the fraction of its blocks that mix
 * within T (*f_ctx) and within mult*T (*f_far), at tolerance eps. */
rl_status rl_match_study(double eps, long mult, double *f_ctx, double *f_far, rl_err *err);

typedef struct {
    int d;             /* head dimension (even) */
    long ctx, mult;    /* T and the multiple: lengths T and mult*T */
    double eps;        /* window tolerance */
    double f_ctx, f_far; /* target fractions (the study's: rl_match_study) */
    double ref_base;   /* tie-break: the base nearest this (the study's) */
} rl_match_query;

typedef struct {
    double base;       /* the chosen base */
    double lo, hi;     /* every base in (lo, hi) gives the same two counts */
    int nb;            /* blocks, d/2 */
    int at_ctx, at_far; /* blocks that mix within T and within mult*T */
    double cost;       /* |at_ctx - nb f_ctx| + |at_far - nb f_far| */
    int ties;          /* intervals of bases at that least cost (>= 1) */
} rl_match;

/* Choose the base for q.  "Best" is explicit:
 *  1. least cost |c_T - nb f_ctx| + |c_mT - nb f_far| in block counts, over
 *     bases in [RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX] (costs within 1e-9
 *     are equal);
 *  2. among the intervals of bases at that cost, the one nearest ref_base in
 *     |log base - log ref_base| (0 when it contains it); the lower one of
 *     two at the same distance;
 *  3. the base returned is ref_base itself when that interval contains it,
 *     else the interval's geometric midpoint (no block's window then sits at
 *     exactly T or mult*T, where a rounding would move a count).
 * The counts are step functions of the base; their steps are found exactly
 * by bisection on each block's window (monotone in the base, see
 * rl_match_count), so the search is over every attainable pair of counts,
 * not a grid.  RL_EINPUT on a bad query. */
rl_status rl_match_choose(const rl_match_query *q, rl_match *m, rl_err *err);

/* Among n candidate (head dimension, T) pairs, each matched to the study's
 * fractions at (mult, eps) with rl_match_choose (ref_base the study's):
 * out[i] per candidate, and *best the index of the least cost per block
 * (cost / nb, so that head dimensions compare), ties to the earlier one
 * (list candidates cheapest first). */
rl_status rl_match_pick(const int *d, const long *ctx, int n, long mult, double eps, rl_match *out,
                        int *best, rl_err *err);

#endif
