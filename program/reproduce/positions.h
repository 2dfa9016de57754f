/* positions.h: the grid's per-position curves (docs/protocol.md#sampled-windows): every
 * model's positions.tsv (model/evalpos.h, written by eval --positions) read
 * back, averaged over seeds per variant, OUT/positions.tsv, positions.png
 * and a section of REPORT.md. */
#ifndef RL_REPRO_POSITIONS_H
#define RL_REPRO_POSITIONS_H

#include <stdio.h>

#include "../report/outdir.h"
#include "grid.h"

/* The section "Per-position loss and prefix perplexity" of REPORT.md into
 * fp, with OUT/positions.tsv (variant, first, last, prefix_len, seeds, loss,
 * loss_se, prefix_ppl, prefix_ppl_se: the mean over seeds and its SE over
 * seeds, nan for one seed) and positions.png.  A grid with a model that has
 * no positions.tsv (evaluated before eval --positions existed, or with the
 * old protocol) or whose files disagree on the bins gets a paragraph saying
 * so, and neither file. */
void rl_repro_positions_section(const rl_repro *r, FILE *fp, const rl_outdir *od);

#endif
