/* data.h: data sets for training and evaluation (token files are read by
 * core/tokfile.h) and the evaluation protocol's windows. */
#ifndef RL_MODEL_DATA_H
#define RL_MODEL_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tokfile.h"

typedef struct {
    rl_tokens train, val;
} rl_dataset;

/* A data set from DIR (DIR/train.bin and DIR/val.bin) or from one FILE,
 * split by position: the first 90% trains, the last 10% validates.
 * RL_EINPUT naming the file when it cannot be read, is malformed, holds an
 * id >= vocab or is too short to split (d is then empty). */
rl_status rl_data_load(const char *path, int vocab, rl_dataset *d, rl_err *err);
void rl_data_free(rl_dataset *d);

/* The split of one stream of n items (tokens, or bytes of text): the first
 * rl_data_split(n) = n - n/10 train, the rest validate.  rl_data_load and
 * `data bpe` both split by it. */
long rl_data_split(long n);

/* The evaluation protocol's window w of length L (L + 1 tokens with the
 * targets) in the stream t: a uniform random start from stream (seed + L, w);
 * *key receives the window's own key for rotation noise (random, lf).
 * eval and probe draw the same windows. */
long rl_data_window(const rl_tokens *t, long L, uint64_t seed, long w, uint64_t *key);

#endif
