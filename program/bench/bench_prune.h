/* bench_prune.h: the pruned ALiBi evaluation of `routelab bench`
 * (docs/speed/reproduction-and-pruning.md#pruned-attention). */
#ifndef RL_BENCH_PRUNE_H
#define RL_BENCH_PRUNE_H

#include "../../base/core/err.h"

/* One window of L tokens of data's validation stream through the trained
 * ALiBi checkpoint ckpt, on all cores: exact (no pruning), at
 * RL_ATTN_PRUNE_EXACT (byte-identical: checked) and at eps, each the best of
 * `rounds` (wall seconds), with the speed-ups, the skipped fraction, the
 * bounds and the change of the window's mean loss.  RL_EINPUT for a
 * checkpoint without a distance bias, or a stream shorter than L + 1. */
rl_status rl_bench_prune(const char *ckpt, const char *data, long L, double eps, int rounds, rl_err *err);

#endif
