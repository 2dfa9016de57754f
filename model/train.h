/* train.h: learning-rate schedules and the training step.
 *
 * The step is data parallel (base/par/par.h): the global batch of accum x B
 * windows is cut into accum shards of B windows, fixed by the run and not by
 * the rank count; each rank computes the gradients of its block of shards and
 * the gradient is their sum along one fixed tree, so an update is the same
 * bytes for 1, 2 or 4 ranks (and for any thread count). */
#ifndef RL_MODEL_TRAIN_H
#define RL_MODEL_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "../base/core/err.h"
#include "../base/par/par.h"
#include "adamw.h"
#include "data.h"
#include "gpt.h"

#define RL_LR_MAX_STAGES 32
/* The steps of a run whose schedule does not count them (a constant rate,
 * cosine) and whose --steps is 0. */
#define RL_LR_DEFAULT_STEPS 1000
/* The longest stage, warm-up and sum of stages: --steps's own limit, so that
 * a schedule's sum cannot overflow and a run cannot be longer than --steps
 * allows. */
#define RL_LR_MAX_STEPS 1000000000000L

/* "LR:STEPS,LR:STEPS,..." constant stages (after the last one its rate
 * stays), "LR" constant, or "cosine:PEAK:WARMUP[:MIN]": linear warm-up from
 * 0 over WARMUP steps, then cosine from PEAK to MIN (default PEAK/10) at the
 * run's last step. */
typedef struct {
    int cosine, n;
    double lr[RL_LR_MAX_STAGES];
    long len[RL_LR_MAX_STAGES];
    double peak, min;
    long warmup;
} rl_lr_schedule;

/* RL_OK, or RL_EINPUT with the schedule's forms in err. */
rl_status rl_lr_parse(const char *s, rl_lr_schedule *out, rl_err *err);
/* Sum of the stage lengths (0 for a constant or cosine schedule), saturated
 * at LONG_MAX (a parsed schedule's sum is at most 32 RL_LR_MAX_STEPS). */
long rl_lr_stage_total(const rl_lr_schedule *s);
/* The one rule for a run's length: parse lr into *s and set *total to steps
 * when it is > 0, else the sum of the LR:STEPS stages when there are any,
 * else RL_LR_DEFAULT_STEPS.  RL_EINPUT for a bad schedule or a cosine
 * warm-up that does not fit in the run (warm-up >= total). */
rl_status rl_lr_plan(const char *lr, long steps, rl_lr_schedule *s, long *total, rl_err *err);
/* Rate of step (0-based) of a run of total steps. */
double rl_lr_at(const rl_lr_schedule *s, long step, long total);

typedef struct {
    rl_gpt *m;
    const rl_tokens *train, *val;
    int B, T, accum;  /* accum: the shards of a step */
    uint64_t seed;
    rl_adamw opt;
    double clip;      /* gradient-norm clip (1.0) */
    uint16_t *batch;  /* B windows of T + 1 tokens */
    gsl_rng *rng;
    long step;        /* the step whose shards are computed */
    float scale;      /* 1/(B T accum) */
    float *gsum;      /* the tree's sum of the shards' gradients */
    double *loss;     /* each shard's mean loss */
    rl_par_tree *tree;
} rl_trainer;

/* A trainer of m on the stream train, validated on val (both at least
 * context + 1 tokens long, else RL_EINPUT). */
rl_status rl_trainer_alloc(rl_gpt *m, const rl_tokens *train, const rl_tokens *val, int B,
                           int accum, uint64_t seed, rl_trainer **out, rl_err *err);
void rl_trainer_free(rl_trainer *t);

/* The trainer's memory beyond the model (rl_gpt_bytes): the gradient sum,
 * the tree's workspace and the shard losses. */
size_t rl_trainer_extra_bytes(long nparams, int accum);

/* One optimizer step (0-based step index) over accum shards of B random
 * windows: window w of shard s starts at a uniform position drawn from
 * stream (seed, key(step, s B + w)); dropout and rotation noise keyed by
 * (seed, step, s).  The gradient is the fixed-tree sum of the shards'
 * gradients (base/par/par.h, rl_par_tree_sum; one shard: its gradient); clips,
 * steps AdamW at rate lr.  *loss: the mean of the shards' losses (added in
 * shard order); *gnorm (may be NULL): the norm before clipping.  Fails only
 * when MPI does (RL_EINTERNAL). */
rl_status rl_trainer_step(rl_trainer *t, long step, double lr, double *loss, double *gnorm, rl_err *err);

/* Mean loss on nb fixed batches of validation windows (same windows at
 * every call: stream (seed, key(VAL, i))), dropout off; the batches split
 * over ranks, their losses added in batch order. */
rl_status rl_trainer_val_loss(rl_trainer *t, int nb, double *loss, rl_err *err);

#endif
