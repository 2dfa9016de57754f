/* err_exit.c: the command layer's end of the error convention (err.h): one
 * line on stderr and the exit status, the stdout guard, the fatal exit of
 * the allocation helpers.  Apart from err.c so that the library's calls
 * that only record failures do not pull the job and its clean-up in
 * (docs/library.md#library-splits). */
#include "err.h"

#include "job.h"
#include "lock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set once a failure's line is on its way: that exit already has its one
 * line and its status. */
static int exit_line_given;

/* At exit: output that never reached stdout (a full disk, /dev/full, a
 * closed pipe's reader) is a failure, not exit 0.  Status 1: the output was
 * refused by the system, not by the input (err.h's RL_EINTERNAL). */
static void stdout_check(void)
{
    if (exit_line_given)
        return;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return;
    const int e = errno;
    fprintf(stderr, "routelab: cannot write standard output%s%s\n", e ? ": " : "", e ? strerror(e) : "");
    fflush(stderr);
    _exit(1);
}

void rl_stdout_guard(void)
{
    atexit(stdout_check);
}

/* Undo what the run made (lock.h), one line and the status; under MPI the
 * whole job stops (job.h: the MPI floor's stop, once installed). */
void rl_exit_line(int status, const char *msg)
{
    exit_line_given = 1;
    rl_cleanup_failed(); /* a failed run leaves no temporary and no folder it made */
    char line[4096];
    rl_err_escape(line, sizeof line, msg);
    rl_job_exit(status, line);
}

void rl_err_exit(const rl_err *err)
{
    rl_exit_line(err && err->status == RL_EINPUT ? 2 : 1, err && err->msg[0] ? err->msg : "internal error");
}

void rl_check(rl_status s, const rl_err *err)
{
    if (s != RL_OK) {
        rl_err e = { s, "" };
        if (err)
            e = *err;
        e.status = s;
        rl_err_exit(&e);
    }
}

void rl_check_in(const char *cmd, rl_status s, rl_err *err)
{
    if (s != RL_OK && err)
        rl_err_prefix(err, "%s", cmd);
    rl_check(s, err);
}

void rl_exit_linev(int status, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    rl_exit_line(status, msg);
}

void rl_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rl_exit_linev(1, fmt, ap);
}
