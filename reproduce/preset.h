/* preset.h: the experiment grids of `routelab reproduce`. */
#ifndef RL_PRESET_H
#define RL_PRESET_H

#include "../core/err.h"
#include "../model/evaluate.h"
#include "../model/trainopts.h"
#include "../theory/matched.h"

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

#define RL_GRID_PRESETS "quick|cpu|mechanism|vtraj|bpe|paper"
#define RL_GRID_MAX_SEEDS 64 /* --seeds: at most this many models per variant */
/* The grid's rotation base is train's own option (train.rot_base, default
 * RL_ROT_BASE_DEFAULT = the study's 10000): a child is passed --rot-base only
 * when its base differs from that default (rl_train_opts_argv). */
/* The matched scale's tolerance and multiple: the windows W_b(0.1) of the
 * study's fractions (10 of 48 blocks within T, 23 of 48 within 128T). */
#define RL_GRID_MATCH_EPS RL_MATCH_STUDY_EPS

/* The named preset: `routelab train`'s defaults (rl_train_opts_default)
 * with the preset's sizes set over them, and the grid's own settings.
 * RL_EINPUT for a name not in RL_GRID_PRESETS. */
rl_status rl_grid_preset(const char *name, rl_grid *g, rl_err *err);

/* The mixing-matched scale of g (theory/matched.h): the base whose
 * fractions of blocks mixing within T and 128T (head dim width/heads, T =
 * ctx, eps RL_GRID_MATCH_EPS) best match the study's, ties to the study's
 * base (rl_match_choose).  RL_EINPUT for a head dim the chooser refuses. */
rl_status rl_grid_match(const rl_grid *g, rl_match *m, rl_err *err);

#endif
