/* test_layers.c: the include graph runs one way, downward (NOTES.md,
 * "Layout"): tools/scripts/check_layers.sh passes on this tree and fails on
 * constructed trees that break each of its rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/core/util.h"
#include "helpers.h"

/* Run the check on root; its output into out, its exit status returned. */
static int check(const char *root, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/check_layers.sh '%s' 2>&1", root ? root : ".");
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run tools/scripts/check_layers.sh");
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* root/rel with the given text (its folders created: a floor may sit one
 * level inside a grouping folder, base/core/err.h). */
static void put(const char *root, const char *rel, const char *text)
{
    char *path = th_path(root, rel);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(path, 0777);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    free(path);
}

Test(layers, this_tree_runs_downward)
{
    static char out[1 << 16];
    int st = check(NULL, out, sizeof out);
    cr_assert_eq(st, 0, "the include graph has violations:\n%s", out);
}

Test(layers, a_clean_constructed_tree_passes)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "base/core/err.h", "int e;\n");
    put(d, "base/core/util.h", "#include \"err.h\"\nint u(void);\n");
    put(d, "base/core/opts.h", "#include \"err.h\"\n#include \"util.h\"\n"); /* err.h twice: no circle */
    put(d, "sampling/s.c", "#include \"../core/util.h\"\n#include \"../core/opts.h\"\n");
    put(d, "base/par/p.c", "#include <mpi.h>\n#include \"../core/err.h\"\n"); /* MPI on its floor */
    put(d, "program/cmd/c.c", "#include \"../sampling/s.h\"\n#include \"../model/m.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    th_rmdir(d);
}

typedef struct {
    const char *rel, *text;
} file;

/* A tree of the n files fails the check, its output holding each line of
 * want (NULL-terminated); returns the output. */
static const char *refused(const file *files, int n, const char *const *want)
{
    static char out[4096];
    char *d = th_tmpdir();
    for (int i = 0; i < n; i++)
        put(d, files[i].rel, files[i].text);
    cr_assert_eq(check(d, out, sizeof out), 1, "%s", out);
    for (; *want; want++)
        cr_assert(strstr(out, *want), "no '%s' in:\n%s", *want, out);
    th_rmdir(d);
    return out;
}
#define REFUSED(files, ...) refused(files, sizeof files / sizeof *files, (const char *const[]){ __VA_ARGS__, NULL })

/* A floor one level inside a grouping folder (base/core, program/cmd) is
 * named by its own folder: the table and the MPI rule read the same. */
Test(layers, a_floor_inside_a_grouping_folder_keeps_its_name)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "base/core/err.h", "int e;\n");
    put(d, "base/par/p.c", "#include <mpi.h>\n#include \"../core/err.h\"\n");
    put(d, "sampling/s.c", "#include \"../base/core/err.h\"\n");
    put(d, "program/cmd/c.c", "#include \"../../sampling/s.h\"\n#include \"../../base/par/p.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    th_rmdir(d);
    const file f[] = { { "base/core/u.c", "#include \"../par/p.h\"\n" }, { "mc/k.c", "#include \"../program/cmd/c.h\"\n" },
                       { "program/report/r.c", "#include <mpi.h>\n" } };
    REFUSED(f, "base/core/u.c includes ../par/p.h (core may not include par)",
            "mc/k.c includes ../program/cmd/c.h (mc may not include cmd)", "program/report/r.c includes <mpi.h>");
}

Test(layers, an_upward_include_fails)
{
    const file f[] = { { "sampling/s.c", "#include \"../model/gpt.h\"\n" } };
    REFUSED(f, "sampling/s.c includes ../model/gpt.h");
}

/* A floor's generated prose header (build/gen/prose_FLOOR.h) is that
 * floor's: a floor below may not include it. */
Test(layers, another_floors_prose_fails)
{
    const file f[] = { { "experiments/e.c", "#include \"prose_experiments.h\"\n#include \"prose_reproduce.h\"\n" } };
    REFUSED(f, "experiments/e.c includes prose_reproduce.h (experiments may not include reproduce)");
}

/* api/include/ is the lowest floor (docs/library.md#library-abi): every folder may include
 * it, a public header includes nothing of ours but its siblings, and an
 * example only the public headers. */
Test(layers, the_public_headers_are_the_lowest_floor)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "api/include/keep.h", ""); /* put makes one folder a file */
    put(d, "api/include/routelab/err.h", "int e;\n");
    put(d, "api/include/routelab/family.h", "#include \"err.h\"\n");
    put(d, "base/core/err.h", "#include \"../include/routelab/err.h\"\n");
    put(d, "theory/t.h", "#include \"../include/routelab/family.h\"\n");
    put(d, "api/examples/x.c", "#include \"../include/routelab/family.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    th_rmdir(d);
    const file up[] = { { "api/include/keep.h", "" }, { "api/include/routelab/bounds.h", "#include \"../../core/err.h\"\n" } };
    REFUSED(up, "api/include/routelab/bounds.h includes ../../core/err.h (include may not include core)");
    const file ex[] = { { "api/examples/x.c", "#include \"../theory/theory.h\"\n" } };
    REFUSED(ex, "api/examples/x.c includes ../theory/theory.h (examples may not include theory)");
}

Test(layers, two_folders_including_each_other_fail)
{
    const file f[] = { { "model/m.c", "#include \"../experiments/e.h\"\n" },
                       { "experiments/e.c", "#include \"../model/m.h\"\n" } };
    REFUSED(f, "model/m.c");
}

Test(layers, a_library_floor_that_exits_fails)
{
    const file f[] = { { "mc/k.c", "void f(void) { rl_die(\"bad\"); }\n" } };
    REFUSED(f, "mc/k.c calls rl_die");
}

Test(layers, a_library_floor_with_a_dying_helper_fails)
{
    const file f[] = { { "model/w.c", "void f(void) { rl_outfile *o = rl_outfile_open(\"x\"); }\n" } };
    REFUSED(f, "model/w.c calls rl_outfile_open");
}

Test(layers, an_unknown_folder_fails)
{
    const file f[] = { { "misc/x.c", "int x;\n" } };
    REFUSED(f, "misc/x.c");
}

Test(layers, a_circle_of_files_in_one_folder_fails)
{
    const file f[] = { { "base/core/a.h", "#include \"b.h\"\n" },
                       { "base/core/b.h", "#include \"c.h\"\n" },
                       { "base/core/c.h", "#include \"a.h\"\n" },
                       { "base/core/a.c", "#include \"a.h\"\n" } };
    const char *out = REFUSED(f, "a circle of files: base/core/a.h -> base/core/b.h -> base/core/c.h -> base/core/a.h\n");
    cr_assert_null(strstr(out, "base/core/a.c ->"), "a.c is outside the circle:\n%s", out);
}

/* A .c and its .h are one module: a.c including b.h while b.c includes a.h
 * is a circle of modules, though no file includes itself. */
Test(layers, a_circle_of_modules_fails)
{
    const file f[] = { { "base/core/a.h", "int a(void);\n" },
                       { "base/core/a.c", "#include \"a.h\"\n#include \"b.h\"\n" },
                       { "base/core/b.h", "int b(void);\n" },
                       { "base/core/b.c", "#include \"b.h\"\n#include \"a.h\"\n" } };
    const char *out = REFUSED(f, "a circle of modules: base/core/a -> base/core/b -> base/core/a\n");
    cr_assert_null(strstr(out, "a circle of files"), "no file includes itself:\n%s", out);
}

/* A header with no .c of its own (a module's private or vector half) is no
 * module: f.c including v.h, which includes f.h, is no circle. */
Test(layers, a_header_without_its_c_is_no_module)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "model/f.h", "float f(float);\n");
    put(d, "model/v.h", "#include \"f.h\"\n#define V 1\n");
    put(d, "model/f.c", "#include \"f.h\"\n#include \"v.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    /* with a v.c, v is a module and f <-> v a circle */
    put(d, "model/v.c", "#include \"v.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "a circle of modules: model/f -> model/v -> model/f"), "%s", out);
    th_rmdir(d);
}

Test(layers, a_header_including_itself_fails)
{
    const file f[] = { { "model/m.h", "#ifndef M\n#define M\n#include \"m.h\"\n#endif\n" } };
    REFUSED(f, "a circle of files: model/m.h -> model/m.h\n");
}

Test(layers, mpi_outside_its_floor_fails)
{
    const file f[] = { { "mc/k.c", "#include <mpi.h>\n" }, { "base/core/u.c", "#include \"../par/p.h\"\n" } };
    REFUSED(f, "mc/k.c includes <mpi.h>", "base/core/u.c includes ../par/p.h (core may not include par)");
}

/* File names are unique across the program's folders: "report.c" or
 * "farmass.h" names one file, so a grep, a stack trace or a doc that says
 * the name points at one place.  The public headers of api/include/routelab/
 * are the one exception: a floor's own header with the same name is the
 * internal face of the same module (base/core/err.h and <routelab/err.h>). */
static int unique_names(const char *const *dirs, int nd, char *dup, size_t duplen)
{
    char seen[1024][128], where[1024][64];
    int n = 0;
    for (int i = 0; i < nd; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "ls %s 2>/dev/null", dirs[i]);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        char name[128];
        while (fgets(name, sizeof name, p)) {
            name[strcspn(name, "\n")] = 0;
            size_t l = strlen(name);
            if (l < 3 || !(strcmp(name + l - 2, ".c") == 0 || strcmp(name + l - 2, ".h") == 0 ||
                           strcmp(name + l - 3, ".cc") == 0))
                continue;
            for (int k = 0; k < n; k++)
                if (!strcmp(seen[k], name)) {
                    snprintf(dup, duplen, "%s/%s and %s/%s", where[k], name, dirs[i], name);
                    pclose(p);
                    return 0;
                }
            cr_assert_lt(n, 1024);
            snprintf(seen[n], sizeof seen[n], "%s", name);
            snprintf(where[n++], sizeof where[0], "%s", dirs[i]);
        }
        pclose(p);
    }
    return 1;
}

Test(layers, file_names_are_unique)
{
    th_to_root();
    static const char *const dirs[] = { "base/core", "base/par", "sampling", "theory", "mc", "model", "program/report",
                                        "experiments", "program/reproduce", "program/bench", "program/cmd" };
    char dup[512] = "";
    cr_expect(unique_names(dirs, (int)(sizeof dirs / sizeof *dirs), dup, sizeof dup), "two files named alike: %s",
              dup);
    /* and the check finds a repeated name: base/core/ listed twice */
    static const char *const twice[] = { "base/core", "base/core" };
    cr_expect_not(unique_names(twice, 2, dup, sizeof dup), "a repeated folder passed");
}

/* The longest function body of a C file's text, in lines from its opening
 * "{" to its closing "}", both at column 0 (the house style: a function's
 * braces stand alone on their lines; a table's initializer opens on its
 * declaration's line, so it is not counted).  *at: the line it starts. */
static int longest_body(const char *text, int *at)
{
    int line = 1, open = 0, best = 0;
    for (const char *p = text; *p; p++) {
        if ((p == text || p[-1] == '\n') && p[0] == '{' && (p[1] == '\n' || p[1] == '\0'))
            open = line;
        if ((p == text || p[-1] == '\n') && p[0] == '}' && open) {
            if (line - open + 1 > best) {
                best = line - open + 1;
                *at = open;
            }
            open = 0;
        }
        line += *p == '\n';
    }
    return best;
}

/* No function of the program or the library is longer than 120 lines (a
 * reader holds one on a screen or two); the scan is checked on a made-up
 * text first. */
Test(layers, no_function_over_120_lines)
{
    th_to_root();
    char made[4096] = "int f(void)\n{\n";
    for (int i = 0; i < 130; i++)
        strcat(made, "x\n");
    strcat(made, "}\nstatic const int t[] = {\n1,\n};\n");
    int at = 0;
    cr_assert_eq(longest_body(made, &at), 132, "the scan counts a body's lines");
    cr_assert_eq(at, 2);
    FILE *p = popen("git ls-files '*.c' | grep -v '^tests/\\|^tools/fuzz/'", "r");
    cr_assert(p);
    char path[512];
    int files = 0;
    while (fgets(path, sizeof path, p)) {
        path[strcspn(path, "\n")] = 0;
        char *text = rl_read_file(path, NULL);
        cr_assert(text, "cannot read %s", path);
        const int n = longest_body(text, &at);
        cr_expect_leq(n, 120, "%s:%d: a function of %d lines", path, at, n);
        free(text);
        files++;
    }
    pclose(p);
    cr_expect_geq(files, 100, "the scan read the tree (%d files)", files);
}
