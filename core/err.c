/* err.c: the error convention of err.h. */
#include "err.h"

#include "lock.h"
#include "par.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rl_status rl_fail(rl_err *err, rl_status s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* one line: a newline inside a message (from a file name, say) would
         * break the one-line rule */
        for (char *p = err->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
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

/* Undo what the run made (lock.h), one line and the status; under MPI the
 * whole job stops (par.h). */
void rl_exit_line(int status, const char *msg)
{
    rl_cleanup_failed(); /* a failed run leaves no temporary and no folder it made */
    char line[4096];
    snprintf(line, sizeof line, "%s", msg);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    rl_par_exit(status, line);
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
