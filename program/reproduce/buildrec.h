/* buildrec.h: which build and OpenBLAS kernel set made a grid's files, and
 * what a run of another build can promise of them
 * (docs/speed/reproduction-and-pruning.md#reproduction-across-builds).
 *
 * A grid's bytes are reproducible within one build and one kernel set, for
 * any thread or rank count: another kernel set sums the matmuls in another
 * order and, from the first step, trains another model
 * (docs/theory/farpred.md#farpred-committed-grid); another commit may or may not compute alike.
 * Across builds a grid reproduces statistically: the same verdicts, numbers within their SE.  So
 * OUT/config.txt records the build (`build`, rl_build_commit's name: a commit
 * from git describe, "-dirty" for a tree with uncommitted changes, "unknown"
 * without git) and the kernel set (`kernels`, rl_blas_kernels' name), and a
 * run over an existing grid compares them with its own. */
#ifndef RL_BUILDREC_H
#define RL_BUILDREC_H

#include <stddef.h>

#include "../../base/core/err.h"

/* One value of the record: its entries joined by RL_BUILDREC_JOIN (a grid
 * into which runs of several builds or kernel sets wrote: mixed), each
 * entry at most RL_BUILDREC_ENTRY characters (a build: printable, no space;
 * a kernel set: printable, single spaces inside; neither holds the join). */
#define RL_BUILDREC_MAX 1024
#define RL_BUILDREC_ENTRY 64
#define RL_BUILDREC_JOIN " + "

typedef struct {
    int has;                       /* config.txt has the two lines (0: a grid from before the record) */
    char build[RL_BUILDREC_MAX];   /* "" without them */
    char kernels[RL_BUILDREC_MAX];
} rl_buildrec;

/* The record of a config.txt's text (path names it in a message).
 * RL_EINPUT, one line naming path, for a malformed record: a `build` or
 * `kernels` line given twice, one without the other, a value longer than
 * RL_BUILDREC_MAX - 1, an entry that is empty, longer than RL_BUILDREC_ENTRY
 * or holds a character its kind does not (a tab or control character, a
 * space in a build). */
rl_status rl_buildrec_read(const char *text, const char *path, rl_buildrec *rec, rl_err *err);

/* What this run (build, kernels) can promise of a grid recorded as rec. */
typedef enum {
    RL_BUILD_SAME,    /* one build and kernel set, this run's: the same bytes */
    RL_BUILD_KERNELS, /* another kernel set (any commit): other sums, statistically the same */
    RL_BUILD_COMMIT,  /* the same kernels, another commit, or under strict one that names no exact commit */
    RL_BUILD_MIXED,   /* the files come from several builds or kernel sets: no one build gives their bytes */
    RL_BUILD_NONE,    /* no record */
} rl_build_match;

/* The comparison.  Two builds are one commit when their names are equal or
 * one clean hash abbreviates the other (7 hex digits at least: build.txt
 * names aa49395, rl_build_commit aa4939566a8a); under strict a build that
 * names no exact commit (-dirty, unknown), this run's or the record's, is
 * one with none, its own name included. */
rl_build_match rl_buildrec_compare(const rl_buildrec *rec, const char *build, const char *kernels, int strict);

/* The one line for an outcome other than RL_BUILD_SAME, without the
 * "reproduce: " of its caller and without a newline: which build and kernel
 * set give the files bitwise (with the OPENBLAS_CORETYPE that loads those
 * kernels) and what this run gives, or, strict, why --strict refuses. */
void rl_buildrec_line(const rl_buildrec *rec, rl_build_match m, const char *build, const char *kernels, int strict,
                      char *line, size_t n);

/* rec after this run has written files into the grid: this run's build and
 * kernels added to each value where not among its entries already (an
 * empty record becomes this run's; a differing one, mixed).  A value whose
 * entries fill RL_BUILDREC_MAX keeps them: it is mixed already. */
void rl_buildrec_add(rl_buildrec *rec, const char *build, const char *kernels);

#endif
