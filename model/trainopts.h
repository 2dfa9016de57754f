/* trainopts.h: the options of a training run, declared once.
 *
 * `routelab train` and `routelab reproduce` parse the same flags into the
 * same struct through the one table rl_train_opts_table writes; a reproduce
 * preset only changes the struct's defaults before parsing; the grid hands
 * each model to `train` as the flags rl_train_opts_argv writes back from the
 * struct; and a run's length comes from rl_train_opts_steps (rl_lr_plan)
 * alone, so the two commands cannot disagree on it. */
#ifndef RL_MODEL_TRAINOPTS_H
#define RL_MODEL_TRAINOPTS_H

#include "../base/core/err.h"
#include "../base/core/opts.h"
#include "config.h"

typedef struct {
    /* the model */
    int layers, width, heads, ctx, vocab;
    double dropout;
    double rot_base;  /* --rot-base: the rotation schemes' frequency base */
    const char *pos;  /* position scheme, rl_pos_parse's names */
    int mode;         /* --mode: RL_MODE_QK / RL_MODE_QKV, or -1: the name's own */
    /* the run */
    int batch, accum; /* windows per micro-batch, micro-batches per step */
    long steps;       /* 0: from the schedule (rl_lr_plan) */
    const char *lr;   /* the schedule, rl_lr_parse's forms */
    long val_every, val_batches, ckpt_every, log_every;
    const char *keep_ckpt; /* --keep-ckpt: steps whose checkpoint is kept as OUT/ckpt-STEP.bin
                            * (comma-separated, increasing), or NULL: none */
    long seed;
} rl_train_opts;

/* The most steps --keep-ckpt lists. */
#define RL_TRAIN_MAX_KEPT 16

/* `routelab train`'s defaults. */
rl_train_opts rl_train_opts_default(void);

/* Which flags a table holds: the model's shape and the run (every flag the
 * grid passes to `train`), the position scheme (train's own: a grid trains
 * one scheme per model), the progress lines. */
enum {
    RL_TRAIN_OPTS_RUN = 1,
    RL_TRAIN_OPTS_POS = 2,
    RL_TRAIN_OPTS_LOG = 4,
    RL_TRAIN_OPTS_ALL = 7
};
/* Most entries rl_train_opts_table writes. */
#define RL_TRAIN_OPTS_MAX 20

/* Write the option-table entries (base/core/opts.h) of the parts of o into tab
 * (room for RL_TRAIN_OPTS_MAX), each pointing into o and holding its
 * default, help text and range; returns how many. */
int rl_train_opts_table(rl_train_opts *o, unsigned parts, rl_opt *tab);

/* The same parts of o as command-line arguments, "--name" then its value
 * (each malloc'ed), into argv (room for 2 RL_TRAIN_OPTS_MAX): parsing them
 * with the table gives back o.  --rot-base at train's default is left out:
 * a grid folder trained before the flag existed keeps matching its
 * config.txt.  Returns how many strings. */
int rl_train_opts_argv(const rl_train_opts *o, unsigned parts, char **argv);

/* The run's optimizer steps (rl_lr_plan of o->lr and o->steps): RL_EINPUT
 * for a bad schedule. */
rl_status rl_train_opts_steps(const rl_train_opts *o, long *steps, rl_err *err);

/* The steps of --keep-ckpt (o->keep_ckpt) into steps[0..*n-1] (room for
 * RL_TRAIN_MAX_KEPT), checked against the run's total steps: each a whole
 * number in [1, total], strictly increasing, at most RL_TRAIN_MAX_KEPT of
 * them; RL_EINPUT naming the problem.  NULL keeps none (*n = 0). */
rl_status rl_train_opts_kept(const rl_train_opts *o, long total, long *steps, int *n, rl_err *err);

/* The name, inside a run folder, of the checkpoint kept at step:
 * "ckpt-STEP.bin" (the one definition train and reproduce share). */
void rl_train_kept_name(long step, char *buf, size_t n);

/* The model configuration of o (RL_EINPUT: a bad --pos / --mode). */
rl_status rl_train_opts_config(const rl_train_opts *o, rl_gpt_config *cfg, rl_err *err);

/* v against the range of --flag in the table above (the one definition of
 * each range): RL_EINPUT naming flag, v and the range.  For values that do
 * not come from the command line (a checkpoint's fields); v as a double so
 * that 64-bit values are checked before they are narrowed. */
rl_status rl_train_opts_check_field(const char *flag, double v, rl_err *err);

#endif
