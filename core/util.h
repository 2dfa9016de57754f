/* util.h: allocation, safe output files, paths and list parsing.
 *
 * The functions that end the process on failure (rl_die, rl_outfile_open,
 * rl_outfile_commit, rl_mkdir_p, rl_parse_doubles/longs) are
 * the command layer's conveniences: only cmd/, experiments/, report/ and
 * reproduce/ call them (scripts/check_layers.sh enforces it).  Library floors
 * use the status forms (rl_outfile_create, rl_outfile_close, rl_mkdirs) and
 * return an rl_status (err.h). */
#ifndef RL_UTIL_H
#define RL_UTIL_H

#include <stdio.h>

#include "err.h"

/* Print "routelab: <message>" on one line of stderr and exit with status 2,
 * the project's status for every bad input. */
void rl_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* An output file written to "<path>.tmp.<pid>" and renamed over <path> only by
 * rl_outfile_commit, so a reader never sees a half-written file. */
typedef struct {
    FILE *f;
    char *path;
    char *tmp;
} rl_outfile;

/* Open path for writing (through its temporary); dies with status 2 on failure. */
rl_outfile *rl_outfile_open(const char *path);
/* The same as a status, for library floors: RL_EINPUT when path cannot be
 * written (*o is then NULL). */
rl_status rl_outfile_create(const char *path, rl_outfile **o, rl_err *err);
/* Flush, close and rename into place; dies on a write error (temp removed). */
void rl_outfile_commit(rl_outfile *o);
/* The same as a status (o is released either way; on failure the temporary
 * is removed and path untouched). */
rl_status rl_outfile_close(rl_outfile *o, rl_err *err);
/* Close and remove the temporary without touching path. */
void rl_outfile_abort(rl_outfile *o);

/* Create a directory and its parents (like mkdir -p); dies on failure. */
void rl_mkdir_p(const char *dir);
/* The same as a status, for library floors. */
rl_status rl_mkdirs(const char *dir, rl_err *err);

/* Join dir and name into a newly allocated path. */
char *rl_path_join(const char *dir, const char *name);

/* The whole file, NUL-terminated (malloc'ed; its length in *len unless
 * len is NULL); NULL when it cannot be opened or read. */
char *rl_read_file(const char *path, size_t *len);

/* Parse "a,b,c" into at most max doubles (or longs); returns the count,
 * dies naming the flag on a malformed list. */
int rl_parse_doubles(const char *flag, const char *s, double *out, int max);
int rl_parse_longs(const char *flag, const char *s, long *out, int max);

/* Number of cores, for the default of --threads. */
int rl_ncores(void);
/* Set the OpenMP (and so OpenBLAS) thread count for the rest of the run. */
void rl_set_threads(int n);

void *rl_xmalloc(size_t n);
void *rl_xcalloc(size_t n, size_t size);
void *rl_xrealloc(void *p, size_t n);

#endif
