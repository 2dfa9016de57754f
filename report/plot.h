/* plot.h: figures drawn by gnuplot from the plots/ scripts. */
#ifndef RL_PLOT_H
#define RL_PLOT_H

#include "outdir.h"

/* Run plots/SCRIPT.gp with gnuplot: variables `plotdir`, `dir` (the output folder),
 * `out` (the image file), `term` ("png" or "svg") and the extra definitions
 * in vars ("a='x'; b=2", may be NULL).  Writes OUTNAME.png (and .svg when
 * out->svg) through a temporary file; dies if gnuplot fails. */
void rl_plot(const rl_outdir *out, const char *script, const char *outname, const char *vars);

#endif
