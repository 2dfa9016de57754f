/* path_transport.h: routelab's first-harmonic mix-or-stay reading of an
 * accumulated Householder transport (PaTH, path.h), measured on text.
 *
 * Why.  routelab's mix-or-stay condition (theory/mixstay_forms.h) asks of each
 * SO(2) block whether the law mu_delta of the accumulated angle at a far
 * distance (T <= delta <= L - 1) lies near some law met within the training
 * length (0 <= delta' <= T - 1).  PaTH has no angles: a key j reaches query
 * i through the transport P = H_i H_(i-1) ... H_(j+1), H_t = I - beta_t w_t
 * w_t^T.  Its law is a law on d x d matrices; its first harmonic (the
 * defining representation) is the mean transport
 *     Mbar(delta) = E[P(delta)],   P(delta) = H_i ... H_(i-delta+1),
 * and routelab's first-harmonic distance is
 *     d_1(delta, delta') = ||Mbar(delta) - Mbar(delta')||_F / (pi sqrt(2 d)).
 * For a block-diagonal SO(2) transport (blocks b = 1 .. d/2 turning by the
 * accumulated angle of steps with characteristic function chi_b) E P is
 * block-diagonal with the rotation-scaling matrix of chi_b^delta in block
 * b, [[Re z, -Im z], [Im z, Re z]], whose squared Frobenius norm is 2 |z|^2,
 * so
 *     d_1^2 = (1/(d/2)) sum_b |chi_b^delta - chi_b^delta'|^2 / (2 pi^2),
 * the mean over the blocks of the square of the k = 1 term of Watson's
 * distance (bounds.h): d_1 is the RMS over the blocks of that term, and so
 * a lower bound of the RMS of the blocks' Watson distances (test
 * path_transport/so2_identity).  The head's first-harmonic out-of-range
 * distance
 *     D(T, L) = max_{delta in far grid} min_{0 <= delta' <= T-1} d_1(delta, delta'),
 * the far grid rl_mixstay_grid's (every delta in [T, L-1] at the cpu
 * grid's sizes); a model's score: the mean of D over layers and heads at
 * L = RL_MIXSTAY_MULT T.
 *
 * The estimate on text (rl_transport_run).  The steps of S windows of T
 * positions (w_t, beta_t at positions 1 .. T-1; position 0 takes no step
 * and is never read).  Route r starts at window r's last position with P =
 * I and walks back: P(delta + 1) = P(delta) H_(T-1-delta) through its own
 * window (delta = 0 .. T-1), then through "segments", other windows taken
 * whole and in order (positions T-1 .. 1, each step applied in turn), up
 * to delta = L - 1.  The routes split into two halves, windows 0 .. S/2-1
 * (A) and S/2 .. S-1 (B), and a route draws its segments from its own
 * half only, without replacement (a random order of the half's other
 * windows, from the keyed stream (seed, r); a fresh order when a route
 * needs more segments than the half has), so that no window enters a
 * route twice and the halves share no step.  Mhat_A, Mhat_B: the halves'
 * mean transports.  ||Mhat(delta) - Mhat(delta')||^2 of one mean is
 * biased upward by its noise (about 2 tr Cov / n); the halves' cross
 * product is not:
 *     X(delta, delta') = <Mhat_A(delta) - Mhat_A(delta'), Mhat_B(delta) - Mhat_B(delta')>_F,
 *     E X = ||Mbar(delta) - Mbar(delta')||_F^2   (A, B independent),
 * and d_1 is estimated by sqrt(max(X, 0)) / (pi sqrt(2 d)).  X's standard
 * error (rl_transport_pair) is that of a two-sample bilinear form to first
 * order: with Delta_r = P_r(delta) - P_r(delta'),
 *     SE_X^2 = Var_{r in A} <Delta_r, Dbar_B> / n_A + Var_{r in B} <Delta_r, Dbar_A> / n_B
 * (sample variances of each route's projection on the other half's mean
 * difference; when Mbar(delta) = Mbar(delta') the projection on the
 * other half's noise carries the second-order term, counted twice:
 * conservative).  D takes the max-min on X (the clamp and the square root
 * are increasing, so the arg max-min is the same) and reports the SE of X
 * at the arg pair, mapped through the square root (one SE up), and the
 * upper end sqrt(max(X, 0) + 3 SE_X) / (pi sqrt(2 d)).  The SE is that of
 * the pair; the max over far lengths and the min over near lengths select
 * on noise, which it does not count (docs/model/path-transport.md#path-mix-or-stay).
 *
 * Determinism: the segment orders come from the keyed streams of the
 * routes, each head's sums run in route order in one thread: the same
 * bytes for any thread count. */
#ifndef RL_MODEL_PATH_TRANSPORT_H
#define RL_MODEL_PATH_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/core/err.h"
#include "../base/core/tokfile.h"
#include "gpt.h"

/* Windows (routes) the model-level reading uses: RL_TRANSPORT_WINDOWS
 * (fewer when the stream holds fewer), at least RL_TRANSPORT_MIN_WINDOWS
 * (two routes a half: a variance each, and a segment from another
 * window).  The choice of 256: docs/model/path-transport.md#path-mix-or-stay. */
#define RL_TRANSPORT_WINDOWS 256
#define RL_TRANSPORT_MIN_WINDOWS 4
#define RL_TRANSPORT_MAX_DIM 4096

/* The steps of one head: window s (0 .. windows-1), position p (0 ..
 * t-1) has w at w + (s t + p) ldw (d floats, any norm: H = I - beta w w^T)
 * and beta at beta[(s t + p) ldb]; position 0 is never read. */
typedef struct {
    int d;
    long t, windows;
    const float *w;
    long ldw;
    const float *beta;
    long ldb;
} rl_transport_steps;

/* D(T, L) of one head: d1 = sqrt(max(x, 0)) / (pi sqrt(2 d)) at the arg
 * pair (far, near); x its unbiased estimate of ||Mbar(far) -
 * Mbar(near)||_F^2 and x_se that estimate's SE; se = one SE_X up mapped
 * through the square root, d_1(max(x, 0) + x_se) - d1; hi = d_1(max(x, 0)
 * + 3 x_se). */
typedef struct {
    double d1, se, hi;
    double x, x_se;
    long far, near;
} rl_transport_dist;

typedef struct rl_transport_ws rl_transport_ws;

/* Bytes of one workspace (0 with *over set when it overflows): the halves'
 * sums at the stored lengths (near 0 .. T-1 and the far grid), 2 (T + far)
 * d^2 doubles, and O(d^2 + S + L) more. */
size_t rl_transport_ws_bytes(int d, long t, long l, long windows, int *over);

/* A workspace for heads of dimension d, windows of t positions, far
 * lengths up to l - 1, `windows` routes.  RL_EINPUT with the reason for d
 * outside [1, RL_TRANSPORT_MAX_DIM], t < 2, l <= t or l beyond
 * RL_MIXSTAY_MAX_LEN, windows < RL_TRANSPORT_MIN_WINDOWS, more pairs than
 * RL_MIXSTAY_MAX_PAIRS or more memory than the machine has. */
rl_status rl_transport_alloc(int d, long t, long l, long windows, rl_transport_ws **ws, rl_err *err);
void rl_transport_free(rl_transport_ws *ws);

/* The halves' mean transports of st's routes (seed keys the segment
 * orders) and D(T, L) with its SE into out.  RL_EINPUT for NULL, a step set
 * whose d, t or windows differ from the workspace's, ldw < d, ldb < 1, or
 * a step that is not finite. */
rl_status rl_transport_run(rl_transport_ws *ws, const rl_transport_steps *st, uint64_t seed,
                           rl_transport_dist *out, rl_err *err);

/* After rl_transport_run on the same st: X(delta, delta2) and its SE (one
 * more pass over the routes).  Both lengths must be stored ones (0 .. T-1
 * or on the far grid); RL_EINPUT otherwise or before a run. */
rl_status rl_transport_pair(rl_transport_ws *ws, const rl_transport_steps *st, long delta, long delta2,
                            double *x, double *se, rl_err *err);

/* After a run: half h's (0: A, 1: B) mean transport at a stored length,
 * column-major (entry (i, j) at j d + i); NULL when delta is not stored,
 * h is not 0 or 1, or before a run. */
const double *rl_transport_mean(const rl_transport_ws *ws, long delta, int h);

/* d_1 from a squared Frobenius distance x >= 0: sqrt(x) / (pi sqrt(2 d)). */
double rl_transport_d1(double x, int d);

/* The model-level reading: S = min(RL_TRANSPORT_WINDOWS, the stream's
 * slots) disjoint windows of T tokens spread uniformly over the whole
 * stream val (rl_eval_windows_plan keyed by key ^
 * RL_STREAM_TRANSPORT_WINDOWS: many documents, where the first 16384
 * tokens are one or two; ascending, so half A reads the earlier text), the
 * forward (training layout, no dropout; window batch w0 keyed
 * rl_stream_key(key, w0)) over each batch, the steps the scheme's
 * transport hook exposes, and D(T, L) of every (layer, head) into out[l H
 * + h] (L = RL_MIXSTAY_MULT T), heads in parallel; segment orders keyed by
 * key ^ RL_STREAM_TRANSPORT_SEGMENTS.  *windows receives S.  RL_EINPUT for
 * a scheme without a transport, a model without activations, T < 2, a
 * stream shorter than RL_TRANSPORT_MIN_WINDOWS T + 1 tokens, and as
 * rl_transport_alloc and rl_transport_run. */
rl_status rl_transport_measure(rl_gpt *m, const rl_tokens *val, uint64_t key, rl_transport_dist *out,
                               long *windows, rl_err *err);

#endif
