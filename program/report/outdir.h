/* outdir.h: where a report writes its files: the output folder.  The one
 * thing the TSV and figure writers need to know about a run (every figure
 * is written as PNG and SVG: program/report/plot.h). */
#ifndef RL_OUTDIR_H
#define RL_OUTDIR_H

typedef struct {
    const char *dir;    /* output folder (must exist) */
} rl_outdir;

#endif
