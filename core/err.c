/* err.c: the error convention of err.h. */
#include "err.h"

#include "job.h"
#include "lock.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rl_err_escape(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && k + 1 < n; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            dst[k++] = (char)*p;
            continue;
        }
        if (k + 5 > n) /* no room for the whole escape: cut before it */
            break;
        snprintf(dst + k, 5, "\\x%02x", *p);
        k += 4;
    }
    if (n)
        dst[k] = 0;
}

rl_status rl_fail(rl_err *err, rl_status s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        char raw[sizeof err->msg];
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        rl_err_escape(err->msg, sizeof err->msg, raw);
        err->status = s;
    }
    return s;
}

void rl_err_prefix(rl_err *err, const char *fmt, ...)
{
    if (!err)
        return;
    char pre[256], both[sizeof pre + sizeof err->msg + 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    snprintf(both, sizeof both, "%s: %s", pre, err->msg);
    memcpy(err->msg, both, sizeof err->msg - 1);
    err->msg[sizeof err->msg - 1] = 0;
}

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

void rl_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rl_exit_line(1, msg);
}
