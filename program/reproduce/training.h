/* training.h: the grid's training curves as a mean per variant with a band
 * over seeds (training.png once overplotted every seed's raw curve). */
#ifndef RL_REPRO_TRAINING_H
#define RL_REPRO_TRAINING_H

#include "../report/outdir.h"
#include "grid.h"

/* Steps of the moving average of the training loss (one batch's loss is
 * noisy; the band is over seeds, not over batches). */
#define RL_TRAINING_SMOOTH 50
/* Rows of training.tsv per variant (the curve thinned to at most this many
 * steps, every validation step kept). */
#define RL_TRAINING_ROWS 400

/* OUT/training.tsv (variant, step, seeds, train, train_se, val, val_se:
 * per variant and step, the mean over seeds of the training loss averaged
 * over the RL_TRAINING_SMOOTH steps up to it, and of the validation loss
 * where it was measured, each with its SE over seeds; NA where none) from
 * every model's log.tsv, and training.png from it.  A variant whose seeds'
 * logs are missing or disagree on their steps is left out of both, and
 * named in the return (NULL when none; to free). */
char *rl_repro_training(const rl_repro *r, const rl_outdir *od);

#endif
