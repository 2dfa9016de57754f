/* buildrec.c: a grid's build and kernel-set record (buildrec.h). */
#include "buildrec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* What every run of another build promises: the grid's own statistics,
 * its verdicts decided on seeds with their SE
 * (docs/speed/reproduction-and-pruning.md#reproduction-across-builds). */
static const char STATISTICALLY[] = "the same verdicts, numbers within their SE";

/* One entry of a value, s[0..n-1]: a build is printable without spaces; a
 * kernel set ("Haswell, OpenBLAS 0.3.21") may hold single spaces inside. */
static int entry_ok(const char *s, size_t n, int build)
{
    if (n == 0 || n > RL_BUILDREC_ENTRY || s[0] == ' ' || s[n - 1] == ' ')
        return 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || (c == ' ' && (build || s[i + 1] == ' ')))
            return 0;
    }
    return 1;
}

/* Every entry of value v (entries joined by RL_BUILDREC_JOIN) is one. */
static int value_ok(const char *v, int build)
{
    for (;;) {
        const char *j = strstr(v, RL_BUILDREC_JOIN);
        const size_t n = j ? (size_t)(j - v) : strlen(v);
        if (!entry_ok(v, n, build))
            return 0;
        if (!j)
            return 1;
        v = j + strlen(RL_BUILDREC_JOIN);
    }
}

rl_status rl_buildrec_read(const char *text, const char *path, rl_buildrec *rec, rl_err *err)
{
    static const char *const key[2] = { "build", "kernels" };
    char *val[2] = { rec->build, rec->kernels };
    int seen[2] = { 0, 0 };
    memset(rec, 0, sizeof *rec);
    for (const char *l = text; l && *l;) {
        const char *end = strchr(l, '\n');
        const size_t len = end ? (size_t)(end - l) : strlen(l);
        for (int k = 0; k < 2; k++) {
            const size_t kl = strlen(key[k]);
            if (len <= kl || strncmp(l, key[k], kl) || l[kl] != '\t')
                continue;
            const size_t vl = len - kl - 1;
            if (seen[k]++)
                return rl_fail(err, RL_EINPUT, "%s: its %s line is given twice", path, key[k]);
            if (vl >= RL_BUILDREC_MAX)
                return rl_fail(err, RL_EINPUT, "%s: its %s line is longer than %d characters", path, key[k],
                               RL_BUILDREC_MAX - 1);
            memcpy(val[k], l + kl + 1, vl);
            val[k][vl] = 0;
            if (!value_ok(val[k], k == 0))
                return rl_fail(err, RL_EINPUT,
                               "%s: its %s line '%.80s' is not %s (entries of 1 to %d printable characters%s, "
                               "joined by '%s')",
                               path, key[k], val[k], k ? "a kernel set" : "a build", RL_BUILDREC_ENTRY,
                               k ? "" : " without spaces", RL_BUILDREC_JOIN);
        }
        l = end ? end + 1 : NULL;
    }
    if (seen[0] != seen[1])
        return rl_fail(err, RL_EINPUT, "%s has a %s line and no %s line (a grid records both or neither)", path,
                       key[!seen[0]], key[!seen[1]]);
    rec->has = seen[0];
    return RL_OK;
}

/* A build that names its commit exactly: not a tree with uncommitted
 * changes (-dirty) and not one built outside git (unknown). */
static int exact(const char *b)
{
    const size_t n = strlen(b), d = strlen("-dirty");
    return strcmp(b, "unknown") && !(n >= d && !strcmp(b + n - d, "-dirty"));
}

static int hex_hash(const char *b)
{
    size_t n = 0;
    while (isxdigit((unsigned char)b[n]))
        n++;
    return n >= 7 && !b[n];
}

/* Builds a and b are one commit (buildrec.h, rl_buildrec_compare). */
static int same_commit(const char *a, const char *b, int strict)
{
    if (strict && (!exact(a) || !exact(b)))
        return 0;
    if (!strcmp(a, b))
        return 1;
    const size_t na = strlen(a), nb = strlen(b);
    return hex_hash(a) && hex_hash(b) && !strncmp(a, b, na < nb ? na : nb);
}

static int mixed(const char *v)
{
    return strstr(v, RL_BUILDREC_JOIN) != NULL;
}

rl_build_match rl_buildrec_compare(const rl_buildrec *rec, const char *build, const char *kernels, int strict)
{
    if (!rec->has)
        return RL_BUILD_NONE;
    if (mixed(rec->build) || mixed(rec->kernels))
        return RL_BUILD_MIXED;
    /* the kernel set decides the sums, so it is named first: another one
     * changes the bytes whatever the commit */
    if (strcmp(rec->kernels, kernels))
        return RL_BUILD_KERNELS;
    return same_commit(rec->build, build, strict) ? RL_BUILD_SAME : RL_BUILD_COMMIT;
}

void rl_buildrec_line(const rl_buildrec *rec, rl_build_match m, const char *build, const char *kernels, int strict,
                      char *line, size_t n)
{
    /* the kernel name alone, the value OPENBLAS_CORETYPE takes to load them */
    const int core = (int)strcspn(rec->kernels, ",");
    switch (m) {
    case RL_BUILD_SAME:
        snprintf(line, n, "this grid's files are bitwise from build %s with kernels %s, this run's", rec->build,
                 rec->kernels);
        break;
    case RL_BUILD_KERNELS:
        if (strict)
            snprintf(line, n, "--strict: this run (build %s, kernels %s) does not reproduce this grid's files "
                     "bitwise: they are from build %s with kernels %s (OPENBLAS_CORETYPE=%.*s)", build, kernels,
                     rec->build, rec->kernels, core, rec->kernels);
        else
            snprintf(line, n, "this grid's files are bitwise from build %s with kernels %s "
                     "(OPENBLAS_CORETYPE=%.*s); this run (build %s, kernels %s) reproduces them statistically: %s",
                     rec->build, rec->kernels, core, rec->kernels, build, kernels, STATISTICALLY);
        break;
    case RL_BUILD_COMMIT:
        if (strict)
            snprintf(line, n, "--strict: this grid's files are bitwise from build %s with kernels %s; this run's "
                     "build %s %s", rec->build, rec->kernels, build,
                     exact(build) && exact(rec->build)
                         ? "is another commit, which may compute otherwise"
                         : "is not known to be that one (a -dirty or unknown build never is, under --strict)");
        else
            snprintf(line, n, "this grid's files are bitwise from build %s with kernels %s; this run (build %s, "
                     "the same kernels) reproduces them statistically (%s), bitwise only where the two commits "
                     "compute alike", rec->build, rec->kernels, build, STATISTICALLY);
        break;
    case RL_BUILD_MIXED:
        if (strict)
            snprintf(line, n, "--strict: this grid's files come from builds %s with kernels %s: no one build "
                     "reproduces them bitwise", rec->build, rec->kernels);
        else
            snprintf(line, n, "this grid's files come from builds %s with kernels %s: no one build reproduces "
                     "them bitwise; this run (build %s, kernels %s) reproduces them statistically: %s",
                     rec->build, rec->kernels, build, kernels, STATISTICALLY);
        break;
    case RL_BUILD_NONE:
        if (strict)
            snprintf(line, n, "--strict: this grid's config.txt records no build or kernel set (a grid from "
                     "before the record): no build can promise its bytes");
        else
            snprintf(line, n, "this grid's config.txt records no build or kernel set (a grid from before the "
                     "record): this run (build %s, kernels %s) reproduces its files statistically: %s", build,
                     kernels, STATISTICALLY);
        break;
    }
}

/* Whether e is among the entries of v (builds: as one commit). */
static int listed(const char *v, const char *e, int build)
{
    const size_t ne = strlen(e);
    for (;;) {
        const char *j = strstr(v, RL_BUILDREC_JOIN);
        const size_t n = j ? (size_t)(j - v) : strlen(v);
        char one[RL_BUILDREC_MAX];
        snprintf(one, sizeof one, "%.*s", (int)n, v);
        if (n && (build ? same_commit(one, e, 0) : n == ne && !strncmp(v, e, n)))
            return 1;
        if (!j)
            return 0;
        v = j + strlen(RL_BUILDREC_JOIN);
    }
}

/* e after v's entries, when it fits (buildrec.h: a full value is mixed already). */
static void append(char *v, const char *e)
{
    const size_t n = strlen(v), j = n ? strlen(RL_BUILDREC_JOIN) : 0, ne = strlen(e);
    if (n + j + ne >= RL_BUILDREC_MAX)
        return;
    memcpy(v + n, RL_BUILDREC_JOIN, j);
    memcpy(v + n + j, e, ne + 1);
}

void rl_buildrec_add(rl_buildrec *rec, const char *build, const char *kernels)
{
    if (!rec->has)
        rec->build[0] = rec->kernels[0] = 0;
    rec->has = 1;
    if (!listed(rec->build, build, 1))
        append(rec->build, build);
    if (!listed(rec->kernels, kernels, 0))
        append(rec->kernels, kernels);
}
