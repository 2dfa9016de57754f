/* evalpos.h: per-position loss and prefix perplexity of the evaluation at
 * its longest length (docs/protocol.md#sampled-windows), the curves long-context papers report.
 *
 * From the losses of nw windows of L (loss[w L + i]: window w, position i,
 * the target with i + 1 tokens of context):
 *     L(i) = mean over windows of loss[w L + i],        i = 0 .. L - 1,
 *     prefix perplexity at l = exp(mean_{i<l} L(i)),    l = 1 .. L.
 * At l = L the prefix loss is the mean over every target of the windows,
 * eval.tsv's mean_loss at that length.  Positions are grouped in bins: one
 * per position when L <= RL_EVALPOS_BINS, else about RL_EVALPOS_BINS
 * log-spaced ones (positions [first, last]), so a file stays small at any L. */
#ifndef RL_MODEL_EVALPOS_H
#define RL_MODEL_EVALPOS_H

#include <stdio.h>

#define RL_EVALPOS_BINS 64

/* The bins' ends: end[k] is one past bin k's last position, ascending,
 * end[nb - 1] = L; bin k starts at end[k - 1] (0 for k = 0).  end holds at
 * least RL_EVALPOS_BINS longs; returns nb (1 .. RL_EVALPOS_BINS).  Log
 * spacing: end[k] = max(end[k - 1] + 1, floor(L^((k + 1) / B))), B =
 * RL_EVALPOS_BINS, the last one L, so the first bins are single positions. */
int rl_evalpos_bins(long L, long *end);

/* The TSV's header (one definition: eval writes it, reproduce reads by name). */
#define RL_EVALPOS_HEADER "first\tlast\tpositions\twindows\tloss\tloss_se\tprefix_len\tprefix_loss\tprefix_ppl\n"

/* Write the header and one row per bin to f: first, last (positions),
 * positions (last - first + 1), windows (nw), loss (mean of L(i) over the
 * bin), loss_se (SE over windows of each window's mean over the bin; NA for
 * one window), prefix_len (l = last + 1), prefix_loss (mean_{i<l} L(i)),
 * prefix_ppl (its exp).  Sums in double, in position order, one thread. */
void rl_evalpos_write(FILE *f, const float *loss, long nw, long L);

#endif
