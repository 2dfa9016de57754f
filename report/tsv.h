/* tsv.h: tab-separated output files, written atomically (a temporary file
 * renamed into place on close). */
#ifndef RL_TSV_H
#define RL_TSV_H

#include "outdir.h"

typedef struct rl_tsv rl_tsv;
/* OUT->dir/NAME with the header row (tab-separated column names). */
rl_tsv *rl_tsv_open(const rl_outdir *out, const char *name, const char *header);
void rl_tsv_row(rl_tsv *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rl_tsv_close(rl_tsv *t);

#endif
