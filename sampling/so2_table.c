/* so2_table.c: a token-so2 angle table read from a text file, or drawn for
 * a family that needs one (so2.h). */
#include "so2.h"
#include "../base/core/mem.h"
#include "../base/core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

rl_status rl_so2_table_load(const char *path, int d, double **table, int *vocab, rl_err *err)
{
    *table = NULL;
    char *buf;
    size_t blen;
    rl_err e;
    rl_status st = rl_read_regular(path, RL_MAX_ANGLE_TABLE, &buf, &blen, &e);
    if (st != RL_OK) /* "cannot read PATH: why" as "cannot read angle table PATH: why" */
        return rl_fail(err, st, "cannot read angle table %s",
                       strncmp(e.msg, "cannot read ", 12) ? e.msg : e.msg + 12);
    if (memchr(buf, '\0', blen)) {
        free(buf);
        return rl_fail(err, RL_EINPUT, "angle table %s holds a NUL byte: not a text table", path);
    }
    const int h = d / 2;
    size_t cap = 256, rows = 0;
    double *t = rl_xmalloc(sizeof(double) * cap * h);
    long lineno = 0;
    for (char *line = buf, *next; st == RL_OK && line < buf + blen; line = next) {
        lineno++;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : buf + blen;
        if (nl)
            *nl = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\r' || *p == '\0' || *p == '#')
            continue;
        if (rows == (size_t)RL_MAX_ANGLE_ROWS) {
            st = rl_fail(err, RL_EINPUT, "angle table %s has more than %ld rows (token ids)", path,
                         RL_MAX_ANGLE_ROWS);
            break;
        }
        if (rows == cap)
            t = rl_xrealloc(t, sizeof(double) * (cap *= 2) * h);
        for (int b = 0; b < h && st == RL_OK; b++) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || !isfinite(x))
                st = rl_fail(err, RL_EINPUT, "%s:%ld: expected %d angles per line, found %d", path,
                             lineno, h, b);
            t[rows * h + b] = x;
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (st == RL_OK && *p)
            st = rl_fail(err, RL_EINPUT, "%s:%ld: more than %d angles on the line", path, lineno, h);
        rows++;
    }
    if (st == RL_OK && rows == 0)
        st = rl_fail(err, RL_EINPUT, "angle table %s has no rows", path);
    free(buf);
    if (st != RL_OK) {
        free(t);
        return st;
    }
    *table = t;
    *vocab = (int)rows;
    return RL_OK;
}

/* rl_family_check, with a token-so2 table that is still to be drawn (it is
 * drawn by the call that needs it, rl_family_with_table) taken as present:
 * everything else is checked now. */
rl_status rl_family_check_untabled(const rl_family *f, rl_err *err)
{
    static const double none = 0;
    rl_family g = *f;
    if (g.kind == RL_FAM_TOKEN_SO2 && !g.table)
        g.table = &none;
    return rl_family_check(&g, err);
}

rl_status rl_family_with_table(const rl_family *f, unsigned long seed, unsigned long stream, rl_family *g,
                               double **table, rl_err *err)
{
    *table = NULL;
    RL_TRY(rl_family_check_untabled(f, err));
    rl_family h = *f;
    if (h.kind == RL_FAM_TOKEN_SO2 && !h.table) {
        int over = 0;
        const size_t need = rl_szmul(rl_szmul((size_t)h.vocab, (size_t)(h.d / 2), &over), sizeof(double), &over);
        RL_TRY(rl_mem_check("the token-so2 angle table", need, over, err));
        if (!(*table = rl_alloc(need, err)))
            return RL_ENOMEM;
        rl_so2_table_draw(&h, seed, stream, *table);
        h.table = *table;
    }
    *g = h;
    return RL_OK;
}
