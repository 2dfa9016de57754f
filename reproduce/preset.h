/* preset.h: the experiment grids of `routelab reproduce`. */
#ifndef RL_PRESET_H
#define RL_PRESET_H

#include "../core/err.h"
#include "../model/trainopts.h"

typedef struct {
    const char *name;       /* quick | cpu | paper */
    const char *variants;   /* comma-separated position schemes (train --pos names) */
    rl_train_opts train;    /* every model's training options (its --pos: one variant each) */
    int max_mult;           /* evaluate at 1x, 2x, ... up to this multiple of ctx */
    int eval_batches;       /* windows per evaluation length */
    const char *theory;     /* theory preset: quick | full | none */
    const char *probe;      /* comma-separated variants to probe (or "all", "none") */
    int probe_mult;         /* probe at this multiple of ctx */
    const char *data;       /* default data set */
    int seeds;              /* models per variant, seeds --seed, --seed + 1, ... (the replication unit) */
} rl_grid;

#define RL_GRID_PRESETS "quick|cpu|paper"
#define RL_GRID_MAX_SEEDS 64 /* --seeds: at most this many models per variant */

/* The named preset: `routelab train`'s defaults (rl_train_opts_default)
 * with the preset's sizes set over them, and the grid's own settings.
 * RL_EINPUT for a name not in RL_GRID_PRESETS. */
rl_status rl_grid_preset(const char *name, rl_grid *g, rl_err *err);

#endif
