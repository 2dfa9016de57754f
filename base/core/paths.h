/* paths.h: a command's outputs against its inputs and each other.
 *
 * An output that is also an input (eval --out CK over the checkpoint it
 * reads, data bpe --from D --out D over its corpus) or two outputs that are
 * one file (eval --out F --starts F, one temporary for both) would destroy
 * data or interleave two files.  Every command that writes files lists what
 * it reads and writes and calls rl_paths_check before any work.
 *
 * Two paths are one file when both exist and have the same (st_dev,
 * st_ino) (a hard link, a symbolic link, "./x" and "x"), or, when one is not
 * made yet, when their canonical paths are equal: the realpath of the
 * deepest folder that exists, then the rest as written.  A folder output
 * clashes with an input it equals or holds (the command writes anywhere in
 * it), and an output file clashes with an input folder it equals. */
#ifndef RL_PATHS_H
#define RL_PATHS_H

#include "err.h"

typedef struct {
    const char *flag; /* "--out", as the message names it */
    const char *path; /* NULL: the flag was not given (skipped) */
    int folder;       /* an output folder (the command writes files in it) */
} rl_path_use;

/* RL_OK, or RL_EINPUT with one line naming both flags and the path:
 * "--out and --ckpt name the same file (PATH)", "--out folder D holds the
 * input --data (PATH)". */
rl_status rl_paths_check(const rl_path_use *in, int nin, const rl_path_use *out, int nout, rl_err *err);

/* The files a data set flag reads (model/data.h: a FILE, or a DIR read as
 * DIR/train.bin and DIR/val.bin): u[0..2] for data itself and the two files
 * a folder holds (paths NULL when data is NULL); the joined paths are
 * malloc'ed in keep[0..1], for the caller to free. */
void rl_paths_data(const char *flag, const char *data, rl_path_use u[3], char *keep[2]);

#endif
