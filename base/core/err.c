/* err.c: the error convention of err.h: recording a failure (rl_fail,
 * rl_err_prefix) and the one escaping of messages.  Nothing here stops the
 * process: the command layer's exits are err_exit.c's, so that a library
 * call that fills an rl_err links without the job's machinery
 * (docs/library.md#library-splits). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
