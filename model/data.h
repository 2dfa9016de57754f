/* data.h: data sets for training and evaluation (token files are read by
 * base/core/tokfile.h) and the evaluation protocol's windows. */
#ifndef RL_MODEL_DATA_H
#define RL_MODEL_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../base/core/tokfile.h"

typedef struct {
    rl_tokens train, val;
} rl_dataset;

/* A data set from DIR (DIR/train.bin and DIR/val.bin) or from one FILE,
 * split by position: the first 90% trains, the last 10% validates.
 * RL_EINPUT naming the file when it cannot be read, is malformed, holds an
 * id >= vocab or is too short to split, RL_ENOMEM when memory runs out (d
 * is then empty). */
rl_status rl_data_load(const char *path, int vocab, rl_dataset *d, rl_err *err);
void rl_data_free(rl_dataset *d);

/* The data set's line in a run description (base/par/par.h, rl_par_same), in
 * buf: both streams' sizes and a 64-bit hash (FNV-1a) of their tokens, so
 * that ranks reading different files, or the same path holding different
 * bytes on different nodes, are told apart. */
void rl_data_describe(const rl_dataset *d, char *buf, size_t len);

/* The split of one stream of n items (tokens, or bytes of text): the first
 * rl_data_split(n) = n - n/10 train, the rest validate.  rl_data_load and
 * `data bpe` both split by it. */
long rl_data_split(long n);

/* probe's window w of length L (L + 1 tokens with the targets) in the
 * stream t: a uniform random start from stream (seed + L, w), windows may
 * overlap; *key receives the window's own key for rotation noise (random,
 * lf).  (eval drew these before it used rl_eval_windows_plan.)  -1 when
 * memory runs out (its generator). */
long rl_data_window(const rl_tokens *t, long L, uint64_t seed, long w, uint64_t *key);

/* eval's windows at one length L: disjoint target sets (window i reads
 * tokens start[i] .. start[i] + L, its targets start[i] + 1 .. start[i] + L),
 * so the standard error over windows is one of independent-ish pieces of
 * text and not of overlapping copies.  The stream holds `slots` windows laid
 * end to end from a random offset; `n` of them (all when wanted >= slots),
 * chosen uniformly without replacement, in ascending order.  Everything
 * depends on (the stream's length, L, wanted, seed) only: never on the
 * model, so every variant evaluated with the same seed reads the same
 * windows (paired), and a prefix property holds for no one (a different
 * `wanted` draws a different subset). */
typedef struct {
    long L, wanted; /* length, windows asked for */
    long slots;     /* disjoint windows the stream holds: (t->n - 1) / L */
    long n;         /* windows used: min(wanted, slots) */
    long *start;    /* n ascending starts */
    uint64_t *key;  /* each window's rotation-noise key (random, lf) */
} rl_eval_windows;

/* The windows that give at least `targets` next-token targets at length L
 * (ceil(targets / L) windows; fewer when the stream holds fewer), or, with
 * targets = 0, `windows` windows.  RL_EINPUT when L < 1 or the stream has
 * fewer than L + 1 tokens. */
rl_status rl_eval_windows_plan(const rl_tokens *t, long L, long targets, long windows,
                               uint64_t seed, rl_eval_windows *w, rl_err *err);
void rl_eval_windows_free(rl_eval_windows *w);

#endif
