/* tsv.c: tab-separated output files. */
#include "tsv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../base/core/util.h"

struct rl_tsv {
    rl_outfile *o;
};

rl_tsv *rl_tsv_open(const rl_outdir *out, const char *name, const char *header)
{
    rl_tsv *t = rl_xcalloc(1, sizeof *t);
    char *path = rl_path_join(out->dir, name);
    t->o = rl_outfile_open(path);
    free(path);
    fprintf(t->o->f, "%s\n", header);
    return t;
}

void rl_tsv_row(rl_tsv *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->o->f, fmt, ap);
    va_end(ap);
    fputc('\n', t->o->f);
}

void rl_tsv_close(rl_tsv *t)
{
    rl_outfile_commit(t->o);
    free(t);
}


int rl_tsv_fields(char *line, char **col, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < max;) {
        col[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            break;
        *p++ = 0;
    }
    return n;
}

double rl_tsv_num(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    return end == s || *end ? NAN : x;
}
