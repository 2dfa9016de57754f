/* err.h: the project's one error convention (GSL style).
 *
 * A library function (every floor below the command layer: core, sampling,
 * theory, mc, model, bench) never exits on a bad input.  It returns an
 * rl_status and, when it fails, describes the failure in one line in the
 * rl_err its caller passed (which may be NULL: then only the status says it).
 *
 *   RL_OK        0  success
 *   RL_EINTERNAL 1  an internal or numerical failure: LAPACK info != 0, out of
 *                   memory, a write that the system refused mid-way
 *   RL_EINPUT    2  a bad input: a flag, a parameter, a file, a token id
 *   RL_ECANCEL   3  the caller asked the call to stop (rl_cancelled)
 *   RL_ENOMEM    4  malloc refused (rl_alloc, util.h)
 *
 * Only the command layer (program/cmd/, and the report halves that run under it)
 * turns a failed status into one line on stderr, "routelab: <message>", and
 * exits with the status itself (rl_err_exit): 2 for a bad input, 1 for an
 * internal failure (RL_ECANCEL and RL_ENOMEM too).  Allocation in the
 * library floors returns RL_ENOMEM up to the entry point (rl_alloc,
 * rl_alloc_array: util.h), so that no call of the
 * library ends its caller (`make test` checks it statically,
 * tools/scripts/reach_check.py, and by failing each allocation in turn,
 * tests/test_nomem.c).  rl_xmalloc, rl_xcalloc and rl_xrealloc, which end
 * the process with one line and status 1, are for the command layer and
 * for library code that no public entry point reaches. */
#ifndef RL_ERR_H
#define RL_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* rl_status and rl_err: the library's public header (installed as
 * <routelab/err.h>), declared there once. */
#include "../../api/include/routelab/err.h"

/* Record a failure (printf-style message, one line) and return s, so that a
 * library function can `return rl_fail(err, RL_EINPUT, "...", ...)`.  err may
 * be NULL. */
rl_status rl_fail(rl_err *err, rl_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix the message already in err with "prefix: " (for context added on
 * the way up: the file name, the command). */
void rl_err_prefix(rl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Propagate a failure unchanged. */
#define RL_TRY(expr)                                                                         \
    do {                                                                                     \
        rl_status rl_try_s_ = (expr);                                                        \
        if (rl_try_s_ != RL_OK)                                                              \
            return rl_try_s_;                                                                \
    } while (0)

/* Command layer only: print "routelab: <message>" on one line of stderr and
 * exit with err->status (2 for bad input, 1 for an internal failure). */
void rl_err_exit(const rl_err *err) __attribute__((noreturn));

/* Command layer only: when s is not RL_OK, rl_err_exit(err). */
void rl_check(rl_status s, const rl_err *err);

/* Command layer only: rl_check with the command's name in front of the
 * message ("sample: ..."), the form every command's errors take. */
void rl_check_in(const char *cmd, rl_status s, rl_err *err);

/* Internal failure that no caller can handle (out of memory): one line,
 * exit status 1.  Used by the allocation helpers. */
void rl_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Library floors: whether the caller asked the running call to stop
 * (rl_cancel_request; base/core/cancel.c): long loops read it and return
 * RL_ECANCEL. */
int rl_cancelled(void);

/* Library floors: GSL's error handler off before a call into GSL, whose
 * status the caller then reads (GSL's default handler aborts the process;
 * base/core/gsl_quiet.c, docs/library-robustness.md#closed-forms-never-exit).  Idempotent, from any
 * thread. */
void rl_gsl_quiet(void);

/* The one escaping of messages: src into dst (n bytes, NUL-terminated) with
 * every control byte (below 0x20, and 0x7f) written as \xNN.  A message
 * quotes user input (flag values, file names): a raw newline would break the
 * one-line rule, an escape sequence would drive the reader's terminal.
 * rl_fail and rl_exit_line apply it, so every message goes through it. */
void rl_err_escape(char *dst, size_t n, const char *src);

/* Command layer only: "routelab: <msg>" on one line of stderr (control
 * bytes in msg escaped, rl_err_escape), then exit with status; under MPI the line names the
 * rank and the whole job stops (base/core/job.h, rl_job_exit). */
void rl_exit_line(int status, const char *msg) __attribute__((noreturn));
/* The same with a printf-style message (rl_die, rl_fatal). */
void rl_exit_linev(int status, const char *fmt, va_list ap) __attribute__((noreturn));

/* Command layer only (main, first): at exit, stdout that could not be
 * written (fflush or its error flag) is one line on stderr and status 1,
 * whatever the command returned; an exit that already printed its line
 * (rl_exit_line) keeps its own line and status. */
void rl_stdout_guard(void);

#endif
