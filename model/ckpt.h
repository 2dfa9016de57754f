/* ckpt.h: checkpoints that resume a run exactly.
 *
 * File: a fixed header of little-endian 64-bit fields (magic "RLGPTCKP",
 * version, model configuration, steps done, the run's settings, the identity
 * of its training stream, AdamW's step count), the --lr text (128 bytes,
 * NUL-terminated), in version 3 the rotation base, then the parameters and the
 * AdamW moments m and v as float32, then FNV-1a-64 of everything before it.
 * Data position and RNG state: every random draw of step s (training windows,
 * dropout masks) comes from streams keyed by (seed, s), so (seed, step)
 * is the whole state.  A checkpoint whose magic, version, size, checksum or
 * configuration does not check out, or whose parameters or moments are not
 * all finite, is rejected, never loaded. */
#ifndef RL_MODEL_CKPT_H
#define RL_MODEL_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/core/err.h"
#include "data.h"
#include "gpt.h"

/* 2: the position scheme as (rotation, mode, alibi, path) fields;
 * 3: version 2's header then the rotation base (a double's bits, 8 bytes)
 * before the parameters.  A model of base RL_ROT_BASE_DEFAULT is written as
 * version 2, byte for byte what routelab wrote before the base existed (and
 * what a routelab of version 2 still reads); a version-2 file loads with
 * that base.  Any other base is written as version 3. */
#define RL_CKPT_VERSION 3

typedef struct {
    long step;          /* optimizer steps completed */
    long steps;         /* the run's total */
    int batch, accum;
    uint64_t seed;
    char lr[128];       /* the schedule as given */
    long val_every, val_batches;
    long data_n;        /* training tokens */
    uint64_t data_hash; /* FNV-1a of the training stream */
} rl_ckpt_meta;

/* Write through a temporary file and a rename; RL_EINPUT, nothing
 * written, when the state is not finite (rl_ckpt_nonfinite). */
rl_status rl_ckpt_save(const char *path, const rl_gpt *m, const rl_ckpt_meta *meta, rl_err *err);

/* How many of m's parameters and AdamW moments are not finite (NaN or
 * infinity); *first: the index of the first in params, m, v order (-1 when
 * none).  rl_ckpt_save refuses to write such a state (RL_EINPUT) and
 * rl_ckpt_load refuses to load one: a checkpoint is always a state a run
 * can continue from. */
long rl_ckpt_nonfinite(const rl_gpt *m, long *first);

/* Load into a new model *m with activations for B windows (0: none).
 * RL_EINPUT with a one-line reason naming the file when it is unreadable,
 * truncated, corrupt or of another format, when a stored field lies outside
 * the range of its flag (trainopts.c) or of what a run writes, or when the
 * model does not fit the machine (rl_gpt_bytes; nothing is allocated then). */
rl_status rl_ckpt_load(const char *path, int B, rl_gpt **m, rl_ckpt_meta *meta, rl_err *err);

/* For the commands that read a trained model (eval, probe): the model of
 * ckpath for one window at a time and the data set at data in its
 * vocabulary.  RL_EINPUT when either is missing or the checkpoint is bad
 * (the data set is read by rl_data_load, which still names cmd and exits). */
rl_status rl_ckpt_open_eval(const char *cmd, const char *ckpath, const char *data, rl_gpt **m,
                            rl_ckpt_meta *meta, rl_dataset *ds, rl_err *err);

/* Every length of L[0..n-1] must be at least minlen and fit the validation
 * stream (L + 1 tokens: inputs and next-token targets), and m's evaluation
 * workspace for the longest must fit the machine (rl_gpt_eval_check), else
 * RL_EINPUT.  *maxL receives the longest.  m may be NULL before a model
 * exists (reproduce's up-front check): then only the data is checked, and
 * each evaluation checks its workspace when it loads the model. */
rl_status rl_eval_check_lengths(const rl_gpt *m, const long *L, int n, long minlen,
                                const rl_dataset *ds, const char *data, long *maxL, rl_err *err);

#endif
