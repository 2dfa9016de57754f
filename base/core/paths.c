/* paths.c: outputs against inputs (paths.h). */
#include "paths.h"

#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    int exists;
    dev_t dev;
    ino_t ino;
    char *canon; /* malloc'ed */
} ident;

/* The realpath of path, or, for a path not made yet, that of its deepest
 * existing folder joined with the rest as written.  malloc'ed. */
static char *canonical(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *copy = strdup(path);
    if (!copy)
        rl_fatal("out of memory");
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = 0;
    char *slash = strrchr(copy, '/'), *parent, *out;
    const char *base;
    if (!slash) {
        parent = realpath(".", NULL);
        base = copy;
    } else {
        *slash = 0;
        base = slash + 1;
        parent = canonical(slash == copy ? "/" : copy);
    }
    if (!parent) /* the working folder is gone: compare as written */
        return copy;
    if (asprintf(&out, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", base) < 0)
        rl_fatal("out of memory");
    free(parent);
    free(copy);
    return out;
}

static ident identify(const char *path)
{
    ident id = { 0 };
    struct stat st;
    if (stat(path, &st) == 0) {
        id.exists = 1;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
    }
    id.canon = canonical(path);
    return id;
}

static int same(const ident *a, const ident *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return !strcmp(a->canon, b->canon);
}

/* Whether b lies inside the folder a (its canonical path below a's). */
static int inside(const ident *a, const ident *b)
{
    size_t n = strlen(a->canon);
    if (n == 1 && a->canon[0] == '/')
        n = 0;
    return !strncmp(a->canon, b->canon, n) && b->canon[n] == '/';
}

rl_status rl_paths_check(const rl_path_use *in, int nin, const rl_path_use *out, int nout, rl_err *err)
{
    ident *ii = rl_xcalloc((size_t)nin + 1, sizeof *ii), *oi = rl_xcalloc((size_t)nout + 1, sizeof *oi);
    for (int i = 0; i < nin; i++)
        if (in[i].path)
            ii[i] = identify(in[i].path);
    for (int j = 0; j < nout; j++)
        if (out[j].path)
            oi[j] = identify(out[j].path);
    rl_status st = RL_OK;
    for (int j = 0; j < nout && st == RL_OK; j++) {
        if (!out[j].path || rl_output_direct(out[j].path))
            continue; /* standard output, /dev/null: no file of ours */
        for (int i = 0; i < nin && st == RL_OK; i++) {
            if (!in[i].path)
                continue;
            if (same(&oi[j], &ii[i]))
                st = rl_fail(err, RL_EINPUT, "%s and %s name the same %s (%s): an output may not "
                             "overwrite an input", out[j].flag, in[i].flag,
                             out[j].folder ? "folder" : "file", out[j].path);
            else if (out[j].folder && inside(&oi[j], &ii[i]))
                st = rl_fail(err, RL_EINPUT, "%s folder %s holds the input %s (%s): an output "
                             "may not overwrite an input", out[j].flag, out[j].path, in[i].flag, in[i].path);
        }
        for (int k = 0; k < j && st == RL_OK; k++)
            if (out[k].path && same(&oi[j], &oi[k]))
                st = rl_fail(err, RL_EINPUT, "%s and %s name the same file (%s)", out[k].flag, out[j].flag,
                             out[j].path);
    }
    for (int i = 0; i < nin; i++)
        free(ii[i].canon);
    for (int j = 0; j < nout; j++)
        free(oi[j].canon);
    free(ii);
    free(oi);
    return st;
}

void rl_paths_data(const char *flag, const char *data, rl_path_use u[3], char *keep[2])
{
    keep[0] = data ? rl_path_join(data, "train.bin") : NULL;
    keep[1] = data ? rl_path_join(data, "val.bin") : NULL;
    u[0] = (rl_path_use){ flag, data, 0 };
    u[1] = (rl_path_use){ flag, keep[0], 0 };
    u[2] = (rl_path_use){ flag, keep[1], 0 };
}
