/* test_tracker_names.c: the tree says what was built, not which tracker item,
 * helper or branch asked for it.  A maintainer who takes the repository over
 * has no tracker: "see issue 12" or "fault 5" in a comment points nowhere.
 *
 * Every source, script, plot script, build file and markdown document under
 * the root (NOTES.md, README.md, docs/ and each folder's README.md; not the
 * build folders, the data, the committed results or .git) is read and no line
 * may match a tracker pattern; this file alone is not read, as its examples
 * must match. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "helpers.h"

/* { regex, flags }: an item number, a possessive "the issue's", a numbered
 * fault list, a lettered helper, the library and Python branches. */
static const struct {
    const char *re;
    int flags;
} patterns[] = {
    { "issue[s]? #?[0-9]", REG_ICASE },
    { "issue'[s]", REG_ICASE },
    { "(^|[^a-z])fault[s]? [0-9]", REG_ICASE },
    { "helper [A-H]([^a-z]|$)", 0 },
    { "(lib|py)2[4]", 0 },
};
#define NPAT (sizeof patterns / sizeof patterns[0])

/* Folders that hold no hand-written text: outputs, data, history. */
static const char *const skipped[] = { "./.git", "./build", "./build-san", "./build-floor", "./build-fuzz",
                                       "./data", "./results", "./grids", "./node_modules" };

static regex_t re[NPAT];
static int nfiles, nbad, ndocs;

static int scanned(const char *path)
{
    static const char *const ext[] = { ".c", ".h", ".cc", ".py", ".sh", ".gp", ".sbatch", ".md", ".txt" };
    const char *base = strrchr(path, '/') + 1;
    if (!strcmp(base, "Makefile") || !strcmp(path, "./.ci/run"))
        return 1;
    const char *dot = strrchr(base, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
        if (!strcmp(dot, ext[i]))
            return 1;
    return 0;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)f;
    if (type == FTW_D) {
        for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
            if (!strcmp(path, skipped[i]))
                return FTW_SKIP_SUBTREE;
        return FTW_CONTINUE;
    }
    if (type != FTW_F || !scanned(path) || !strcmp(path, "./tests/test_tracker_names.c"))
        return FTW_CONTINUE;
    char *text = rl_read_file(path, NULL);
    cr_assert(text, "cannot read %s", path);
    nfiles++;
    ndocs += strlen(path) > 3 && !strcmp(path + strlen(path) - 3, ".md");
    int line = 1;
    for (char *p = text; *p; line++) {
        char *e = strchr(p, '\n');
        if (e)
            *e = 0;
        for (size_t k = 0; k < NPAT; k++)
            if (!regexec(&re[k], p, 0, NULL, 0)) {
                cr_log_error("%s:%d: %s", path, line, p);
                nbad++;
                break;
            }
        p = e ? e + 1 : p + strlen(p);
    }
    free(text);
    return FTW_CONTINUE;
}

Test(tracker_names, none_in_the_code)
{
    th_to_root();
    for (size_t k = 0; k < NPAT; k++)
        cr_assert_eq(regcomp(&re[k], patterns[k].re, REG_EXTENDED | REG_NOSUB | patterns[k].flags), 0);
    cr_assert_eq(nftw(".", visit, 16, FTW_PHYS | FTW_ACTIONRETVAL), 0);
    cr_expect_geq(nfiles, 300, "the walk found the sources (%d files)", nfiles);
    /* NOTES.md, README.md, the docs files and the folders' README.md */
    cr_expect_geq(ndocs, 40, "the walk found the documents (%d .md files)", ndocs);
    cr_expect_eq(nbad, 0, "%d lines name a tracker item, helper or branch (see the log)", nbad);
}

/* The patterns catch what they are for and pass ordinary prose. */
Test(tracker_names, patterns_catch_and_pass)
{
    static const char *const caught[] = { "see issue 12", "Issue #3 asked", "the issue's example",
                                          "/* fault 5 */", "helper B wrote", "branch lib24", "py24's" };
    static const char *const passed[] = { "to issue a call", "a default of 5", "the helper function",
                                          "faulty input", "helpers.h", "default 5" };
    for (size_t k = 0; k < NPAT; k++)
        cr_assert_eq(regcomp(&re[k], patterns[k].re, REG_EXTENDED | REG_NOSUB | patterns[k].flags), 0);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        int hit = 0;
        for (size_t k = 0; k < NPAT; k++)
            hit |= !regexec(&re[k], caught[i], 0, NULL, 0);
        cr_expect(hit, "\"%s\" not caught", caught[i]);
    }
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++)
        for (size_t k = 0; k < NPAT; k++)
            cr_expect(regexec(&re[k], passed[i], 0, NULL, 0), "\"%s\" caught by %s", passed[i], patterns[k].re);
}
