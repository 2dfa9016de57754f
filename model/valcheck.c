/* valcheck.c: ppl(T) against the final validation loss (valcheck.h). */
#include "valcheck.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

rl_status rl_val_from_log(const char *path, long step, double *val, char *why, size_t n,
                          rl_err *err)
{
    *val = NAN;
    FILE *f;
    RL_TRY(rl_fopen_regular(path, (size_t)1 << 34, &f, NULL, err));
    char line[1024];
    snprintf(why, n, "%s has no row for step %ld (the checkpoint's)", path, step);
    while (fgets(line, sizeof line, f)) {
        char *end;
        errno = 0;
        const long s = strtol(line, &end, 10);
        if (end == line || *end != '\t' || errno || s != step)
            continue; /* the header, or another step */
        /* the last such row wins: a resumed log has one anyway */
        *val = NAN;
        char *v = strchr(end + 1, '\t');
        if (!v) {
            snprintf(why, n, "%s: the row of step %ld has no val_loss column", path, step);
            continue;
        }
        v++;
        const double x = strtod(v, &end);
        if (end == v || (*end != '\t' && *end != '\n' && *end) || !isfinite(x)) {
            snprintf(why, n, "%s: no validation loss at step %ld (val_loss '%.*s')", path, step,
                     (int)strcspn(v, "\t\n"), v);
            continue;
        }
        *val = x;
    }
    fclose(f);
    return RL_OK;
}

void rl_val_check_make(rl_val_check *c, double val, const char *why, long nval, double loss,
                       double se, long windows)
{
    memset(c, 0, sizeof *c);
    c->val = val;
    c->nval = nval;
    c->diff = loss - val;
    c->se = NAN;
    if (isnan(val)) {
        snprintf(c->why, sizeof c->why, "%s", why ? why : "no validation loss");
        return;
    }
    if (windows < 2 || !isfinite(se) || nval < 1) {
        snprintf(c->why, sizeof c->why, "%ld window(s) at L = T give no standard error", windows);
        return;
    }
    const double sd = se * sqrt((double)windows);
    c->se = sqrt(se * se + sd * sd / (double)nval);
    c->verdict = fabs(c->diff) <= 2 * c->se ? RL_VAL_AGREE : RL_VAL_DISAGREE;
}

const char *rl_val_verdict_name(rl_val_verdict v)
{
    return v == RL_VAL_AGREE ? "agree" : v == RL_VAL_DISAGREE ? "disagree" : "unavailable";
}
