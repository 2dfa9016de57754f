/* probe.h: attention diagnostics of a trained model (routelab probe). */
#ifndef RL_MODEL_PROBE_H
#define RL_MODEL_PROBE_H

#include <stdio.h>

#include "../base/core/tokfile.h"
#include "gpt.h"

#define RL_PROBE_MAXW 24

typedef struct rl_probe rl_probe;

/* Statistics of windows of length L: the last query block of each window,
 * every layer and head (slopes: the model's ALiBi slopes or NULL), far mass
 * beyond each W of W[0..nw-1].  NULL when memory runs out. */
rl_probe *rl_probe_alloc(int layers, int H, long L, const float *slopes, const long *W, int nw);
void rl_probe_free(rl_probe *p);

/* The rl_gpt_observe_fn to install with rl_gpt_eval_observe(e, rl_probe_observe, p). */
void rl_probe_observe(void *ctx, int layer, int b, int h, long i0, long i1, long j0, long j1,
                      const float *S, long lds);

/* Rows of probe.tsv (length, layer, head, W, far_mass, far_mass_se, bound_mean,
 * bound_at_max_lambda, lambda_mean, lambda_max, rows, violations, then
 * bound_range_mean, bound_range_at_max_delta, delta_mean, delta_max,
 * L_star_half, violations_range: bound_* with lambda the row's max |logit|,
 * bound_range_* with Delta = max near - min far logit, L_star_half =
 * K + K e^{delta_max}, K = W, then entropy: the rows' mean attention
 * entropy -sum alpha log alpha in nats, the same for every W) and of
 * distance.tsv (length, layer, head, dist_lo, dist_hi, mean_logit,
 * mean_weight per key). */
void rl_probe_write(const rl_probe *p, FILE *probe_tsv, FILE *dist_tsv);

/* The header lines of probe.tsv and distance.tsv (the columns above). */
void rl_probe_write_headers(FILE *probe_tsv, FILE *dist_tsv);

/* The lengths probed when none are given: T and 16 T into L[0..1]; returns 2. */
int rl_probe_default_lengths(long T, long *L);

/* Length L of `routelab probe`: the probe over the first `windows` windows
 * of length L drawn from val (rl_data_window, seed), at far-distance
 * thresholds W = T/4, T/2, ... up to L/2 (at least W = 1), through the
 * evaluation workspace ev (for windows of at least L), its rows into
 * probe_tsv and dist_tsv.  The caller has checked L against the stream and
 * the workspace (rl_eval_check_lengths, minimum length 2).  RL_ENOMEM
 * (no message: the caller names the call) when memory runs out, in the
 * probe's buffers or in a window (rl_gpt_eval_nomem; ev is then marked):
 * nothing is written then. */
rl_status rl_probe_length(const rl_gpt *m, rl_gpt_eval *ev, const rl_tokens *val, long L, long windows,
                          uint64_t seed, FILE *probe_tsv, FILE *dist_tsv);

#endif
