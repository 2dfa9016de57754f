/* horizon.h: predicted against measured extrapolation horizons.  Predicted:
 * from the per-block windows of the model's step law (model/steplaw.h,
 * docs/theory/claim1-mixing.md#mixing-window).  Measured: from the model's eval.tsv. */
#ifndef RL_REPRO_HORIZON_H
#define RL_REPRO_HORIZON_H

#include <stdio.h>

#include "../../base/core/err.h"
#include "../../model/steplaw.h"
#include "grid.h"

/* Tokens of validation text the learned steps are read on, by default. */
#define RL_HORIZON_TOKENS 16384
#define RL_HORIZON_EPS 0.1

/* The measured horizon of one evaluation, len[0] = T: the first length
 * L > T whose ratio ppl(L)/ppl(T) exceeds 1 by 2 SE, tested on the log:
 * loss(L) - loss(T) > 2 hypot(se(L), se(T)) (the delta method's SE of the
 * log ratio, the two lengths' windows independent); -1 when none does
 * (beyond the grid).  A NaN loss or SE at a length skips it. */
long rl_horizon_measured(const long *len, const double *loss, const double *se, int n);

/* The same from an eval.tsv (length, windows, mean_loss, stderr, ...);
 * *top the longest length in it.  RL_EINPUT when unreadable or empty. */
rl_status rl_horizon_measured_file(const char *path, long *H, long *top, rl_err *err);

/* Load the checkpoint (with activations for the forward) and the data set,
 * read the step law (rl_steplaw_of on the first ntok validation tokens,
 * noise keyed by seed) and write it to out (horizon.tsv: one row per block;
 * see rl_horizon_write).  RL_EINPUT for a bad checkpoint, data set, ntok
 * or eps. */
rl_status rl_horizon_run(const char *ckpt, const char *data, long ntok, long seed, double eps,
                         const char *out, rl_steplaw *s, rl_err *err);

/* horizon.tsv: variant, kind, T, eps, base, block, layer, head, pair,
 * omega, log_chi, chi, window, predicted, mixstay, mixstay_hi (routelab's
 * mix-or-stay distance D_b(T, RL_MIXSTAY_MULT T) and its upper end; one row
 * per block; a law with no blocks: one row with block -1; kind transport
 * (path): one row per (layer, head), block = layer x heads + head, base,
 * pair, omega, log_chi, chi and window NA, mixstay the head's
 * first-harmonic D(T, RL_MIXSTAY_MULT T) estimate and mixstay_hi its 3-SE
 * upper end, model/path_transport.h). */
rl_status rl_horizon_write(const char *path, const char *variant, const rl_steplaw *s, rl_err *err);

/* Its kind and predicted horizon (-1: none).  RL_EINPUT when unreadable. */
rl_status rl_horizon_read(const char *path, char *kind, size_t nkind, long *H, rl_err *err);

/* The mean of horizon.tsv's column mixstay over its rows (each block's
 * routelab mix-or-stay distance at RL_MIXSTAY_MULT T: the model's score);
 * NaN when the file or the column is missing or a row has none. */
double rl_horizon_read_mixstay(const char *path);

/* Model (v, k)'s score: its horizon.tsv's (rl_horizon_read_mixstay),
 * written first from its checkpoint when missing; NaN when neither is
 * there or its law has no blocks. */
double rl_repro_mixstay_score(const rl_repro *r, int v, int k);

/* The report's section: a table per variant and seed of predicted against
 * measured horizon, horizons.tsv and the figure horizon.png.  A model
 * without horizon.tsv gets one (rl_horizon_run) when its checkpoint is
 * there. */
void rl_repro_horizon_section(const rl_repro *r, FILE *fp);

#endif
