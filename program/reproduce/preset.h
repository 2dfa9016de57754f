/* preset.h: the experiment grids of `routelab reproduce`. */
#ifndef RL_PRESET_H
#define RL_PRESET_H

#include "../../base/core/err.h"
#include "../../model/evaluate.h"
#include "../../model/trainopts.h"
#include "../../theory/matched.h"

typedef struct {
    const char *name;       /* quick | cpu | bpe | paper | vtraj */
    const char *variants;   /* comma-separated position schemes (train --pos names) */
    rl_train_opts train;    /* every model's training options (its --pos: one variant each) */
    int max_mult;           /* evaluate at 1x, 2x, ... up to this multiple of ctx */
    long eval_targets;      /* token-matched evaluation: next-token targets per length (eval --targets);
                             * 0 when eval_batches is used instead */
    int eval_batches;       /* the old protocol: windows per length (eval --batches); 0 when eval_targets */
    int eval_full;          /* every span of the validation stream (eval --full) instead of eval_targets */
    int eval_windows;       /* where the spans lie (eval --windows): RL_EVAL_SAMPLED in every preset (each
                             * seed its own spans over the whole stream,
                             * docs/protocol.md#sampled-windows); a grid whose config.txt has no
                             * eval-windows line predates it and reads RL_EVAL_SPANS */
    const char *theory;     /* theory preset: quick | full | none */
    const char *probe;      /* comma-separated variants to probe (or "all", "none") */
    int probe_mult;         /* probe at this multiple of ctx */
    int farpred;            /* every model: far mass predicted from within T (farpred) and
                             * measured by the probe at every evaluated length beyond T */
    const char *data;       /* default data set */
    int seeds;              /* models per variant, seeds --seed, --seed + 1, ... (the replication unit) */
    int matched;            /* the rotation base is chosen by rl_grid_match (the mixing-matched scale) */
} rl_grid;

/* A grid's scale: its models, their batch, their evaluation and data.  A
 * scale is written once and named by every preset that asks its question
 * of those models (the cpu grid's, cpu_scale in program/reproduce/preset.c). */
typedef struct {
    int layers, width, heads, ctx, vocab; /* layers x width in heads, context T, vocabulary */
    int batch;                            /* windows a step (one micro-batch) */
    double dropout;
    long val_batches;                     /* validation windows at each check (train --val-batches) */
    int max_mult, probe_mult;             /* evaluate at 1x, 2x, ... max_mult T; probe at probe_mult T */
    long eval_targets;                    /* next-token targets per length (eval --targets) */
    const char *data;                     /* the default data set; NULL: none (--data names it) */
    int matched;                          /* the rotation base is rl_grid_match's */
} rl_grid_scale;

/* One preset: a row of rl_grid_presets (program/reproduce/preset.c), everything the
 * grid sets over `routelab train`'s defaults (rl_train_opts_default). */
typedef struct {
    const char *name;            /* the --preset choice */
    const char *about;           /* what it is for, in --preset's help */
    const rl_grid_scale *scale;  /* its models, batch, evaluation, data and base */
    const char *variants;        /* the grid's variants (rl_grid's) */
    const char *lr;              /* the schedule; the steps come from it (steps 0: rl_lr_plan) */
    const char *keep_ckpt;       /* train --keep-ckpt (the trajectory's stages); NULL: none */
    long val_every, ckpt_every;  /* the cadence of validation and checkpoints, in steps */
    int seeds;                   /* models per variant */
    const char *theory;          /* the theory report preset; NULL: quick */
    const char *probe;           /* the variants probed; NULL: rope,random_qkv */
    int no_farpred;              /* 1: no far-mass prediction (every other grid predicts it) */
} rl_grid_row;

/* The presets, in the order --preset lists them: the one place each is
 * written.  The --preset choices, its help and the error message for a
 * name outside them are generated from it (rl_grid_preset_names,
 * rl_grid_preset_help). */
extern const rl_grid_row rl_grid_presets[];
extern const int rl_grid_npresets;

/* The presets' names joined by '|' (the --preset choices, "quick|cpu|...")
 * into buf; truncated to n - 1 bytes (RL_GRID_PRESETS_CHARS is room). */
const char *rl_grid_preset_names(char *buf, size_t n);
/* --preset's help: "the grid: NAME (ABOUT), ..." into buf (room:
 * RL_GRID_PRESETS_HELP_CHARS). */
const char *rl_grid_preset_help(char *buf, size_t n);
#define RL_GRID_PRESETS_CHARS 256
#define RL_GRID_PRESETS_HELP_CHARS 1024

#define RL_GRID_MAX_SEEDS 64 /* --seeds: at most this many models per variant */
/* The grid's rotation base is train's own option (train.rot_base, default
 * RL_ROT_BASE_DEFAULT = the study's 10000): a child is passed --rot-base only
 * when its base differs from that default (rl_train_opts_argv). */
/* The matched scale's tolerance and multiple: the windows W_b(0.1) of the
 * study's fractions (10 of 48 blocks within T, 23 of 48 within 128T). */
#define RL_GRID_MATCH_EPS RL_MATCH_STUDY_EPS

/* The named preset: `routelab train`'s defaults (rl_train_opts_default)
 * with its row's sizes set over them, and the grid's own settings.
 * RL_EINPUT, naming the choices, for a name no row of rl_grid_presets has. */
rl_status rl_grid_preset(const char *name, rl_grid *g, rl_err *err);

/* The mixing-matched scale of g (theory/matched.h): the base whose
 * fractions of blocks mixing within T and 128T (head dim width/heads, T =
 * ctx, eps RL_GRID_MATCH_EPS) best match the study's, ties to the study's
 * base (rl_match_choose).  RL_EINPUT for a head dim the chooser refuses. */
rl_status rl_grid_match(const rl_grid *g, rl_match *m, rl_err *err);

#endif
