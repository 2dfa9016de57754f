/* sample.h: steps of a family drawn as matrices, the one loop behind
 * `routelab sample` and the library's rl_sample (<routelab/family.h>,
 * docs/library.md#family-surface). */
#ifndef RL_SAMPLE_H
#define RL_SAMPLE_H

#include <stdint.h>

#include "family.h"
#include "../base/core/err.h"
#include "../base/core/opts.h"

/* Stream ids: matrix k uses stream k of the seed; a token-so2 family's
 * random table and its random tokens use two reserved ids above any count. */
#define RL_SAMPLE_TABLE_STREAM (UINT64_MAX - 1)
#define RL_SAMPLE_TOKEN_STREAM (UINT64_MAX - 2)

/* --count's entry: the range of a sample's step count, for the command and
 * the library alike. */
#define RL_OPT_SAMPLE_COUNT_(p) RL_OPT_LONG_("count", p, "number of steps to sample", 1, 1e9)

/* Steps k0 .. k0 + n - 1 of family f (its table, if any, in place) into out
 * (n x d x d doubles, row-major), step k from stream k of seed, step k
 * reading token tok[k - k0] (tok: token-so2 only, else NULL), on `threads`
 * OpenMP threads (the numbers do not depend on it).  A failed draw, or a
 * step with a non-finite entry, returns its status with "step K: why" in
 * err (the lowest failing K, whatever the thread count); RL_ENOMEM when
 * memory runs out. */
rl_status rl_sample_range(const rl_family *f, const int *tok, long k0, long n, unsigned long seed, int threads,
                          double *out, rl_err *err);

#endif
