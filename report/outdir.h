/* outdir.h: where a report writes its files: the output folder and whether
 * figures are also written as SVG.  The one thing the TSV and figure writers
 * need to know about a run. */
#ifndef RL_OUTDIR_H
#define RL_OUTDIR_H

typedef struct {
    const char *dir;    /* output folder (must exist) */
    int svg;            /* figures also as SVG */
} rl_outdir;

#endif
