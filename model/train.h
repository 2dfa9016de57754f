/* train.h: learning-rate schedules and the training step.
 *
 * The step is shaped for data parallelism: each process draws its own shard
 * of windows (stream keys include the rank), accumulates into the one
 * contiguous gradient buffer, and rl_allreduce_grads is the single place
 * where an MPI_Allreduce (sum, then divide by the process count) would go. */
#ifndef RL_MODEL_TRAIN_H
#define RL_MODEL_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "../core/err.h"
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
    int B, T, accum;
    int rank, nranks; /* this process's shard (1 process here) */
    uint64_t seed;
    rl_adamw opt;
    double clip;      /* gradient-norm clip (1.0) */
    uint16_t *batch;  /* B windows of T + 1 tokens */
    gsl_rng *rng;
} rl_trainer;

/* A trainer of m on the stream train, validated on val (both at least
 * context + 1 tokens long, else RL_EINPUT). */
rl_status rl_trainer_alloc(rl_gpt *m, const rl_tokens *train, const rl_tokens *val, int B,
                           int accum, uint64_t seed, rl_trainer **out, rl_err *err);
void rl_trainer_free(rl_trainer *t);

/* Sum gradients over processes and divide by their count (no-op for one). */
void rl_allreduce_grads(rl_gpt *m, int nranks);

/* One optimizer step (0-based step index): accum micro-batches of B random
 * windows, window w of micro-batch u starting at a uniform position drawn
 * from stream (seed, key(step, (rank accum + u) B + w)); dropout keyed by
 * (seed, step, rank, u).  Clips, steps AdamW at rate lr.  Returns the mean
 * training loss; *gnorm receives the norm before clipping. */
double rl_trainer_step(rl_trainer *t, long step, double lr, double *gnorm);

/* Mean loss on nb fixed batches of validation windows (same windows at
 * every call: stream (seed, key(VAL, i))), dropout off. */
double rl_trainer_val_loss(rl_trainer *t, int nb);

#endif
