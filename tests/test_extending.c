/* test_extending.c: the maintainer's documents name what exists.
 *
 * docs/extending.md and the README.md of each top-level folder say which
 * files to read and to touch.  Each word of a backtick span of theirs (a
 * span is often a command: `sh tools/scripts/check_layers.sh`) that reads as a
 * repository path must exist:
 *   - a span with a '/' or a source extension (.c .h .cc .md .gp .sh .py)
 *     whose first component is an entry of the repository root: a file or
 *     folder, braces {a,b} expanded, '*' matched by glob(3);
 *   - "suite/name" or "suite/ *" (one '/', no '.'): a Criterion test or
 *     suite of tests/ (some suites share a folder's name: theory, docs);
 *   - in a folder's README, a bare file name ("util.h", "test_exp_*.c"):
 *     a file of that folder or of a folder inside it.
 * Spans with other characters (calls, flags, placeholders such as
 * sampling/fam_<name>.c) and run-time outputs (build/, results/, data/) are
 * not paths.  Every NOTES.md section they cite is a heading of NOTES.md,
 * and every top-level folder has its README.md. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "doctext.h"
#include "helpers.h"

/* The top-level folders, each with its README.md. */
static const char *const folders[] = { "base/core",  "base/par",         "sampling",  "theory",  "mc",       "model",
                                       "program/report", "experiments", "program/reproduce", "program/bench",   "program/cmd",      "api/include",
                                       "api/python", "api/examples",    "tests",     "tools/fuzz",    "plots",    "tools/scripts", "base", "program", "api", "tools" };
#define NFOLDERS (sizeof folders / sizeof *folders)

/* The folders whose README.md the maintainer's set holds (api/python/'s is the
 * package's own page, older than the set, and says how to install it). */
static int in_set(const char *folder)
{
    return strcmp(folder, "api/python") != 0;
}

/* ---- the Criterion tests of tests/ (doctext.h) ---- */

typedef struct {
    strlist tests;  /* "suite/name" */
    strlist suites; /* "suite" */
} catalogue;

static catalogue catalogue_read(void)
{
    catalogue c = { 0 };
    tests_of(&c.tests, &c.suites);
    cr_assert_geq(c.tests.n, 100, "found the tests (%d)", c.tests.n);
    return c;
}

static void catalogue_free(catalogue *c)
{
    sl_free(&c->tests);
    sl_free(&c->suites);
}

/* ---- the checker ---- */

static int has_source_ext(const char *s)
{
    static const char *const ext[] = { ".c", ".h", ".cc", ".md", ".gp", ".sh", ".py" };
    const size_t n = strlen(s);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        const size_t k = strlen(ext[i]);
        if (n > k && !strcmp(s + n - k, ext[i]))
            return 1;
    }
    return 0;
}

/* Every pattern with its first {a,b,...} expanded, recursively. */
static void expand_braces(const char *pat, strlist *out)
{
    const char *open = strchr(pat, '{'), *close = open ? strchr(open, '}') : NULL;
    if (!open || !close) {
        sl_add(out, pat, strlen(pat));
        return;
    }
    for (const char *a = open + 1; a <= close;) {
        const size_t n = strcspn(a, ",}");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s%.*s%s", (int)(open - pat), pat, (int)n, a, close + 1);
        expand_braces(buf, out);
        a += n + 1;
    }
}

/* Whether a pattern (no braces) names at least one file or folder. */
static int exists(const char *pat)
{
    if (!strchr(pat, '*') && !strchr(pat, '?') && !strchr(pat, '['))
        return access(pat, F_OK) == 0;
    glob_t g;
    const int ok = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return ok;
}

/* "suite/name" or "suite/ *": one '/', no '.'; 1 when it is a test or
 * suite, 0 when it is not, -1 when the span has another shape. */
static int test_name(const char *s, const catalogue *c)
{
    const char *slash = strchr(s, '/');
    if (!slash || strchr(slash + 1, '/') || strchr(s, '.') || slash == s || !slash[1])
        return -1;
    char suite[128];
    snprintf(suite, sizeof suite, "%.*s", (int)(slash - s), s);
    if (!strcmp(slash + 1, "*"))
        return sl_has(&c->suites, suite);
    return sl_has(&c->tests, s);
}

/* 0: the span is no repository path; 1: it is one and exists; -1: it is one
 * and does not exist (why in *why).  folder: the README's folder, for bare
 * file names (NULL for a document outside the folders). */
static int check_span(const char *s, const char *folder, const catalogue *c, const char **why)
{
    if (!*s || !(isalnum((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.-+{},*/", *p))
            return 0;
    static const char *const runtime[] = { "build/", "results/", "data/" };
    for (size_t i = 0; i < sizeof runtime / sizeof *runtime; i++)
        if (!strncmp(s, runtime[i], strlen(runtime[i])))
            return 0;
    const int slash = strchr(s, '/') != NULL;
    if (!slash && !has_source_ext(s))
        return 0;
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(s, "/"), s);
    const int rooted = access(first, F_OK) == 0;
    strlist ex = { 0 };
    int ok = 1;
    if (rooted) {
        expand_braces(s, &ex);
        for (int i = 0; i < ex.n && ok; i++)
            ok = exists(ex.v[i]) || test_name(ex.v[i], c) == 1;
        *why = "no such file, nor a Criterion test";
    } else if (slash) {
        const int t = test_name(s, c);
        if (t < 0 || !sl_has(&c->suites, first)) /* DIR/train.bin, rl_f/g: no path */
            return 0;
        ok = t == 1;
        *why = "no such Criterion test or suite";
    } else {
        if (!folder)
            return 0;
        char pat[600];
        snprintf(pat, sizeof pat, "%s/%s", folder, s);
        expand_braces(pat, &ex);
        for (int i = 0; i < ex.n && ok; i++) {
            char deeper[700];
            snprintf(deeper, sizeof deeper, "%s/*/%s", folder, ex.v[i] + strlen(folder) + 1);
            ok = exists(ex.v[i]) || exists(deeper);
        }
        *why = "no such file in the README's folder";
    }
    sl_free(&ex);
    return ok ? 1 : -1;
}

static int line_at(const char *text, const char *p)
{
    int n = 1;
    for (const char *q = text; q < p; q++)
        n += *q == '\n';
    return n;
}

/* The backtick spans of text outside fenced blocks (a span may run over a
 * line end, as markdown allows), each checked; returns the number that name
 * no existing path (logged when loud) and adds the paths checked to *checked. */
static int check_text(const char *text, const char *doc, const char *folder, const catalogue *c, int loud,
                      int *checked)
{
    int bad = 0, fenced = 0;
    for (const char *p = text; *p;) {
        if ((p == text || p[-1] == '\n') && !strncmp(p, "```", 3)) {
            fenced = !fenced;
            p += strcspn(p, "\n");
            continue;
        }
        if (fenced || *p != '`') {
            p++;
            continue;
        }
        const char *end = strchr(p + 1, '`');
        if (!end)
            break;
        char span[512];
        snprintf(span, sizeof span, "%.*s", (int)(end - p - 1), p + 1);
        /* each word of the span: a command names its files among its words */
        char *save = NULL;
        for (char *w = strtok_r(span, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            const char *why = "";
            const int r = check_span(w, folder, c, &why);
            if (!r)
                continue;
            ++*checked;
            if (r < 0) {
                if (loud)
                    cr_log_error("%s:%d: `%s`: %s", doc, line_at(text, p), w, why);
                bad++;
            }
        }
        p = end + 1;
    }
    return bad;
}

/* ---- the tests ---- */

/* The documents of the set: docs/extending.md, then each folder's README
 * (its folder, for bare names). */
typedef struct {
    char path[64];
    const char *folder;
} doc;

static int documents(doc *d)
{
    int n = 0;
    snprintf(d[n].path, sizeof d[n].path, "docs/extending.md");
    d[n++].folder = NULL;
    for (size_t i = 0; i < NFOLDERS; i++)
        if (in_set(folders[i])) {
            snprintf(d[n].path, sizeof d[n].path, "%s/README.md", folders[i]);
            d[n++].folder = folders[i];
        }
    return n;
}

Test(extending, every_folder_has_a_readme)
{
    th_to_root();
    for (size_t i = 0; i < NFOLDERS; i++) {
        char path[64];
        snprintf(path, sizeof path, "%s/README.md", folders[i]);
        cr_expect_eq(access(path, R_OK), 0, "%s is missing", path);
        if (!in_set(folders[i]) || access(path, R_OK))
            continue;
        /* each says its floor and how to add what the folder grows by */
        char *t = slurp(path);
        cr_expect(strstr(t, "**Floor.**"), "%s does not say which floor it is", path);
        cr_expect(strstr(t, "## How to add"), "%s has no \"How to add\" section", path);
        cr_expect(strstr(t, "NOTES.md \xc2\xa7" "0.1"), "%s does not cite the include rule", path);
        free(t);
    }
}

Test(extending, every_named_path_exists)
{
    th_to_root();
    catalogue c = catalogue_read();
    doc d[NFOLDERS + 1];
    const int nd = documents(d);
    int bad = 0, checked = 0;
    for (int i = 0; i < nd; i++) {
        char *t = slurp(d[i].path);
        bad += check_text(t, d[i].path, d[i].folder, &c, 1, &checked);
        free(t);
    }
    cr_log_info("%d paths in %d documents", checked, nd);
    cr_expect_geq(checked, 500, "the scan found the paths (%d)", checked);
    cr_expect_eq(bad, 0, "%d quoted paths do not exist (see the log)", bad);
    catalogue_free(&c);
}

/* The checker can say no: a made-up file, a brace alternative, a glob, a
 * test name and a bare name in a folder, each of which does not exist, are
 * caught; their existing neighbours and the spans that are no paths pass. */
Test(extending, a_made_up_path_fails)
{
    th_to_root();
    catalogue c = catalogue_read();
    int checked = 0;
    const char *made_up[] = {
        "see `base/core/no_such_file.c`",    "`base/core/util.{c,x}`",    "`sampling/fam_nothing_*.c`",
        "`families/no_such_test`",      "`no_such_suite_x/*`" /* no suite: no path, see below */,
        "`docs/no_such_test_either`",   "`tests/nomem/absent/`", "`NOTES_TWO.md`",
        "`sh tools/scripts/no_such_script.sh --flag`",
    };
    const int caught[] = { 1, 1, 1, 1, 0, 1, 1, 0, 1 };
    for (size_t i = 0; i < sizeof made_up / sizeof *made_up; i++) {
        checked = 0;
        const int bad = check_text(made_up[i], "made-up", NULL, &c, 0, &checked);
        cr_expect_eq(bad, caught[i], "%s: %d caught", made_up[i], bad);
    }
    /* a bare name is looked up in the README's folder and the folders inside it */
    checked = 0;
    cr_expect_eq(check_text("`util.h` `nothere.c` `err.h`", "made-up", "base/core", &c, 0, &checked), 1);
    cr_expect_eq(checked, 3);
    checked = 0;
    cr_expect_eq(check_text("`err.h` `version.h`", "made-up", "api/include", &c, 0, &checked), 0, "api/include/routelab/");
    cr_expect_eq(checked, 2);
    /* existing files, braces, globs, tests; spans that are no paths */
    checked = 0;
    const char *fine = "`base/core/util.{c,h}` `sampling/fam_*.c` `families/registry_is_consistent` "
                       "`theory/mixing_window_is_the_least_n` `docs/*` `plots/` "
                       "`rl_family_cases` `sampling/fam_<name>.c` `--filter 'x/*'` `build/routelab` "
                       "`DIR/train.bin` `.sh`\n```\n`base/core/inside_a_fence.c`\n```\n";
    cr_expect_eq(check_text(fine, "made-up", NULL, &c, 0, &checked), 0);
    cr_expect_eq(checked, 6, "%d spans taken for paths", checked);
    /* a span may run over a line end (its words: base/core/ and a bare util.h,
     * no path outside a folder); an unclosed one is no span */
    checked = 0;
    cr_expect_eq(check_text("`base/core/\nutil.h` and `base/core/missing.h", "made-up", NULL, &c, 0, &checked), 0);
    cr_expect_eq(checked, 1);
    catalogue_free(&c);
}

/* Every NOTES.md section the documents cite ("§14.3") is a numbered heading
 * of NOTES.md. */
Test(extending, cited_sections_are_headings)
{
    th_to_root();
    char *notes = slurp("NOTES.md");
    strlist heads = headings(notes);
    cr_assert_geq(heads.n, 50, "NOTES.md has numbered headings");
    doc d[NFOLDERS + 1];
    const int nd = documents(d);
    int bad = 0, refs = 0;
    for (int i = 0; i < nd; i++) {
        char *t = slurp(d[i].path);
        for (const char *p = strstr(t, "\xc2\xa7"); p; p = strstr(p + 2, "\xc2\xa7")) {
            const char *num = p + 2 + strspn(p + 2, " ");
            size_t n = 0;
            while (isdigit((unsigned char)num[n]) || (num[n] == '.' && isdigit((unsigned char)num[n + 1])))
                n++;
            if (!n)
                continue;
            char ref[32];
            snprintf(ref, sizeof ref, "%.*s", (int)n, num);
            refs++;
            if (!sl_has(&heads, ref)) {
                cr_log_error("%s:%d: section %s is no heading of NOTES.md", d[i].path, line_at(t, p), ref);
                bad++;
            }
        }
        free(t);
    }
    cr_log_info("%d section references", refs);
    cr_expect_geq(refs, 60, "the scan found the references (%d)", refs);
    cr_expect_eq(bad, 0, "%d cited sections are no heading of NOTES.md", bad);
    sl_free(&heads);
    free(notes);
}

/* A family with a parameter of its own is one file and one registry line
 * (docs/extending.md, "A step family"): tests/family_fixture/add.sh copies
 * the floors that define families, adds fam_fixture.c (its parameter kappa
 * in a table) and the one line of RL_FAMILY_LIST, builds, and checks that
 * --kappa, rl_family_set's key, the default, the range and sampling all
 * follow from that table. */
Test(extending, a_family_with_its_own_parameter_is_one_file_and_one_line, .timeout = 600)
{
    char *d = th_tmpdir(), *tree = th_path(d, "tree"), *log = th_path(d, "log"), cmd[4096];
    snprintf(cmd, sizeof cmd, "sh tests/family_fixture/add.sh . %s > %s 2>&1", tree, log);
    const int st = system(cmd);
    char *out = rl_read_file(log, NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "add.sh failed:\n%s", out ? out : "");
    cr_assert(out && strstr(out, "flag: --kappa 0.75 -> kappa = 0.75") && strstr(out, "\nok\n"), "%s", out);
    free(out);
    th_rmdir(d);
}
