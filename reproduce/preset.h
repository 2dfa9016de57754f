/* preset.h: the experiment grids of `routelab reproduce`. */
#ifndef RL_PRESET_H
#define RL_PRESET_H

typedef struct {
    const char *name;       /* quick | cpu | paper */
    const char *variants;   /* comma-separated position schemes (train --pos names) */
    int layers, width, heads, ctx, vocab, batch, accum;
    double dropout;
    long steps;             /* optimizer steps (0: the sum of the lr stages) */
    const char *lr;         /* train --lr schedule */
    int val_every, val_batches, ckpt_every;
    int max_mult;           /* evaluate at 1x, 2x, ... up to this multiple of ctx */
    int eval_batches;       /* windows per evaluation length */
    const char *theory;     /* theory preset: quick | full | none */
    const char *probe;      /* comma-separated variants to probe (or "all", "none") */
    int probe_mult;         /* probe at this multiple of ctx */
    const char *data;       /* default data set */
    long seed;
} rl_grid;

/* The named preset, or NULL. */
const rl_grid *rl_grid_preset(const char *name);

#define RL_GRID_PRESETS "quick|cpu|paper"

#endif
