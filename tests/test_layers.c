/* test_layers.c: the include graph runs one way, downward (NOTES.md,
 * "Layout"): scripts/check_layers.sh passes on this tree and fails on
 * constructed trees that break each of its rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

/* Run the check on root; its output into out, its exit status returned. */
static int check(const char *root, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sh scripts/check_layers.sh '%s' 2>&1", root ? root : ".");
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run scripts/check_layers.sh");
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* root/rel with the given text (its folder created). */
static void put(const char *root, const char *rel, const char *text)
{
    char *path = th_path(root, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    mkdir(path, 0777);
    *slash = '/';
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
    put(d, "core/util.h", "int u(void);\n");
    put(d, "sampling/s.c", "#include \"../core/util.h\"\n");
    put(d, "cmd/c.c", "#include \"../sampling/s.h\"\n#include \"../model/m.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    th_rmdir(d);
}

Test(layers, an_upward_include_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "sampling/s.c", "#include \"../model/gpt.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "sampling/s.c includes ../model/gpt.h"), "%s", out);
    th_rmdir(d);
}

Test(layers, two_folders_including_each_other_fail)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "model/m.c", "#include \"../experiments/e.h\"\n");
    put(d, "experiments/e.c", "#include \"../model/m.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "model/m.c"), "%s", out);
    th_rmdir(d);
}

Test(layers, a_library_floor_that_exits_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "mc/k.c", "void f(void) { rl_die(\"bad\"); }\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "mc/k.c calls rl_die"), "%s", out);
    th_rmdir(d);
}

Test(layers, a_library_floor_with_a_dying_helper_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "model/w.c", "void f(void) { rl_outfile *o = rl_outfile_open(\"x\"); }\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "model/w.c calls rl_outfile_open"), "%s", out);
    th_rmdir(d);
}

Test(layers, an_unknown_folder_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "misc/x.c", "int x;\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "misc/x.c"), "%s", out);
    th_rmdir(d);
}

Test(layers, a_circle_of_files_in_one_folder_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "core/a.h", "#include \"b.h\"\n");
    put(d, "core/b.h", "#include \"c.h\"\n");
    put(d, "core/c.h", "#include \"a.h\"\n");
    put(d, "core/a.c", "#include \"a.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "a circle of files: core/a.h -> core/b.h -> core/c.h -> core/a.h\n"), "%s", out);
    cr_assert_null(strstr(out, "core/a.c ->"), "a.c is outside the circle:\n%s", out);
    th_rmdir(d);
}

Test(layers, a_header_including_itself_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "model/m.h", "#ifndef M\n#define M\n#include \"m.h\"\n#endif\n");
    cr_assert_eq(check(d, out, sizeof out), 1, "%s", out);
    cr_assert(strstr(out, "a circle of files: model/m.h -> model/m.h\n"), "%s", out);
    th_rmdir(d);
}

Test(layers, a_shared_header_is_no_circle)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "core/err.h", "int e;\n");
    put(d, "core/util.h", "#include \"err.h\"\n");
    put(d, "core/opts.h", "#include \"err.h\"\n#include \"util.h\"\n");
    put(d, "sampling/s.h", "#include \"../core/opts.h\"\n#include \"../core/util.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "%s", out);
    th_rmdir(d);
}

Test(layers, mpi_outside_its_floor_fails)
{
    static char out[4096];
    char *d = th_tmpdir();
    put(d, "par/p.c", "#include <mpi.h>\n#include \"../core/err.h\"\n");
    put(d, "core/err.h", "int e;\n");
    cr_assert_eq(check(d, out, sizeof out), 0, "par/ may call MPI:\n%s", out);
    put(d, "mc/k.c", "#include <mpi.h>\n");
    put(d, "core/u.c", "#include \"../par/p.h\"\n");
    cr_assert_eq(check(d, out, sizeof out), 1);
    cr_assert(strstr(out, "mc/k.c includes <mpi.h>"), "%s", out);
    cr_assert(strstr(out, "core/u.c includes ../par/p.h (core may not include par)"), "%s", out);
    th_rmdir(d);
}
