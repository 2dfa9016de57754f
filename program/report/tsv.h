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

/* Reading one back: the tab-separated fields of line (modified: the line
 * end and the tabs become NULs) into col[0..max-1]; returns how many. */
int rl_tsv_fields(char *line, char **col, int max);
/* A number of a field ("NA", "nan" or a bad field: NaN). */
double rl_tsv_num(const char *s);

#endif
