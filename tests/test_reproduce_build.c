/* test_reproduce_build.c: a grid's build record (program/reproduce/buildrec.h,
 * docs/speed/reproduction-and-pruning.md#reproduction-across-builds).  OUT/config.txt names the
 * build and the OpenBLAS kernel set that made the grid's files; a run of the same says nothing, a
 * run of another says in one line that it reproduces them statistically and goes
 * on (and, when it adds models, records the grid as mixed), --strict
 * refuses it with nothing written, a malformed record is refused, and
 * --report-only compares nothing.  The other kernel set is a record edited
 * to a name no OpenBLAS loads, so every outcome is driven on any machine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/core/blas_arch.h"
#include "../base/core/util.h"
#include "../program/reproduce/buildrec.h"
#include "helpers.h"

/* The miniature grid (helpers.h), one variant, one seed unless a test adds
 * --seeds after it. */
#define GRID TH_MINI_GRID " --eval-batches 2 --variants rope --probe none --seeds 1"

/* A kernel set no OpenBLAS has: never this run's. */
#define OTHER_KERNELS "Testcore, OpenBLAS 0.0"

/* ---- the record alone ---- */

static rl_status read_text(const char *text, rl_buildrec *rec, rl_err *err)
{
    return rl_buildrec_read(text, "g/config.txt", rec, err);
}

Test(reproduce_build, record_read_or_refused)
{
    rl_buildrec rec;
    rl_err err;
    cr_assert_eq(read_text("# c\ncommand\tx\npreset\tquick\n", &rec, &err), RL_OK, "%s", err.msg);
    cr_expect_eq(rec.has, 0);
    cr_assert_eq(read_text("command\tx\nbuild\taa4939566a8a\nkernels\tHaswell, OpenBLAS 0.3.21\nseeds\t6\n", &rec,
                           &err), RL_OK, "%s", err.msg);
    cr_expect(rec.has && !strcmp(rec.build, "aa4939566a8a") && !strcmp(rec.kernels, "Haswell, OpenBLAS 0.3.21"));
    cr_assert_eq(read_text("build\ta + b-dirty\nkernels\tHaswell + Zen, OpenBLAS 0.3.26", &rec, &err), RL_OK, "%s",
                 err.msg);
    cr_expect(!strcmp(rec.build, "a + b-dirty") && !strcmp(rec.kernels, "Haswell + Zen, OpenBLAS 0.3.26"));
    char long_entry[200] = "build\t", long_value[2 * RL_BUILDREC_MAX] = "build\t";
    memset(long_entry + 6, 'a', RL_BUILDREC_ENTRY + 1);
    strcat(long_entry, "\nkernels\tHaswell\n");
    for (int i = 0; i < 300; i++)
        strcat(long_value, i ? " + abc" : "abc");
    strcat(long_value, "\nkernels\tHaswell\n");
    const struct {
        const char *text, *needle;
    } bad[] = {
        { "build\t\nkernels\tHaswell\n", "build line '' is not a build" },
        { "build\taa49395 x\nkernels\tHaswell\n", "is not a build" },
        { "build\taa49395\nkernels\tHas\twell\n", "is not a kernel set" },
        { "build\taa49395\nkernels\t Haswell\n", "is not a kernel set" },
        { "build\taa49395\nkernels\tHaswell  x\n", "is not a kernel set" },
        { "build\taa49395\r\nkernels\tHaswell\n", "is not a build" },
        { "build\ta + \nkernels\tHaswell\n", "is not a build" },
        { "build\taa49395\nkernels\tHaswell\nbuild\taa49395\n", "build line is given twice" },
        { "build\taa49395\n", "a build line and no kernels line" },
        { "kernels\tHaswell\n", "a kernels line and no build line" },
        { long_entry, "is not a build" },
        { long_value, "longer than 1023 characters" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_expect_eq(read_text(bad[i].text, &rec, &err), RL_EINPUT, "%zu: accepted", i);
        cr_expect(strstr(err.msg, bad[i].needle) && strstr(err.msg, "g/config.txt") && !strchr(err.msg, '\n'),
                  "%zu: %s", i, err.msg);
    }
}

static rl_buildrec record(const char *build, const char *kernels)
{
    rl_buildrec r = { .has = 1 };
    snprintf(r.build, sizeof r.build, "%s", build);
    snprintf(r.kernels, sizeof r.kernels, "%s", kernels);
    return r;
}

Test(reproduce_build, every_outcome_of_the_comparison)
{
    const char *K = "Haswell, OpenBLAS 0.3.21";
    const struct {
        const char *build, *kernels, *own;
        int strict;
        rl_build_match want;
    } c[] = {
        { "aa4939566a8a", K, "aa4939566a8a", 0, RL_BUILD_SAME },
        { "aa4939566a8a", K, "aa4939566a8a", 1, RL_BUILD_SAME },
        { "aa49395", K, "aa4939566a8a", 1, RL_BUILD_SAME },    /* build.txt's abbreviation */
        { "aa4939566a8a", K, "aa49395", 1, RL_BUILD_SAME },
        { "aa4939566a8a", K, "aa4939566a8b", 0, RL_BUILD_COMMIT },
        { "aa4939", K, "aa4939566a8a", 0, RL_BUILD_COMMIT },   /* 6 digits name no commit */
        { "2c7c43fc3e0b", K, "aa4939566a8a", 0, RL_BUILD_COMMIT },
        { "aa4939566a8a-dirty", K, "aa4939566a8a-dirty", 0, RL_BUILD_SAME },
        { "aa4939566a8a-dirty", K, "aa4939566a8a-dirty", 1, RL_BUILD_COMMIT }, /* never under --strict */
        { "aa4939566a8a", K, "aa4939566a8a-dirty", 0, RL_BUILD_COMMIT },
        { "unknown", K, "unknown", 0, RL_BUILD_SAME },
        { "unknown", K, "unknown", 1, RL_BUILD_COMMIT },
        { "aa4939566a8a", K, "aa4939566a8a", 0, RL_BUILD_KERNELS },            /* own kernels below */
        { "aa4939566a8a + 2c7c43fc3e0b", K, "aa4939566a8a", 0, RL_BUILD_MIXED },
        { "aa4939566a8a", "Haswell, OpenBLAS 0.3.21 + Zen, OpenBLAS 0.3.21", "aa4939566a8a", 0, RL_BUILD_MIXED },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        rl_buildrec r = record(c[i].build, c[i].kernels);
        const char *own = c[i].want == RL_BUILD_KERNELS ? "Cooperlake, OpenBLAS 0.3.21" : K;
        cr_expect_eq(rl_buildrec_compare(&r, c[i].own, own, c[i].strict), c[i].want, "%zu: %s / %s against %s%s", i,
                     c[i].build, c[i].kernels, c[i].own, c[i].strict ? " (strict)" : "");
    }
    rl_buildrec none = { 0 };
    cr_expect_eq(rl_buildrec_compare(&none, "aa4939566a8a", K, 0), RL_BUILD_NONE);
    /* the same kernel name of another OpenBLAS is another kernel set */
    rl_buildrec r = record("aa4939566a8a", K);
    cr_expect_eq(rl_buildrec_compare(&r, "aa4939566a8a", "Haswell, OpenBLAS 0.3.26", 0), RL_BUILD_KERNELS);
}

Test(reproduce_build, each_line_names_what_gives_the_bytes)
{
    const char *own = "bb4939566a8a", *ok = "Cooperlake, OpenBLAS 0.3.21";
    char line[4096];
    for (int strict = 0; strict < 2; strict++) {
        rl_buildrec r = record("aa49395", "Haswell, OpenBLAS 0.3.21");
        rl_buildrec_line(&r, RL_BUILD_KERNELS, own, ok, strict, line, sizeof line);
        cr_expect(strstr(line, "from build aa49395 with kernels Haswell, OpenBLAS 0.3.21 (OPENBLAS_CORETYPE=Haswell)")
                      && strstr(line, own) && strstr(line, ok) && !strchr(line, '\n'), "%s", line);
        cr_expect(strict ? !strncmp(line, "--strict: ", 10) && !strstr(line, "statistically")
                         : strstr(line, "reproduces them statistically: the same verdicts, numbers within their SE")
                               != NULL, "%s", line);
        rl_buildrec_line(&r, RL_BUILD_COMMIT, own, r.kernels, strict, line, sizeof line);
        cr_expect(strstr(line, "from build aa49395") && strstr(line, own), "%s", line);
        cr_expect(strict ? strstr(line, "another commit, which may compute otherwise") != NULL
                         : strstr(line, "bitwise only where the two commits compute alike") != NULL, "%s", line);
        if (strict) {
            rl_buildrec_line(&r, RL_BUILD_COMMIT, "aa49395-dirty", r.kernels, 1, line, sizeof line);
            cr_expect(strstr(line, "a -dirty or unknown build never is, under --strict") != NULL, "%s", line);
        }
        r = record("aa49395 + bb49395", "Haswell, OpenBLAS 0.3.21 + Zen, OpenBLAS 0.3.21");
        rl_buildrec_line(&r, RL_BUILD_MIXED, own, ok, strict, line, sizeof line);
        cr_expect(strstr(line, "come from builds aa49395 + bb49395 with kernels Haswell, OpenBLAS 0.3.21 + Zen")
                      && strstr(line, "no one build reproduces them bitwise"), "%s", line);
        rl_buildrec none = { 0 };
        rl_buildrec_line(&none, RL_BUILD_NONE, own, ok, strict, line, sizeof line);
        cr_expect(strstr(line, "records no build or kernel set") != NULL, "%s", line);
    }
}

Test(reproduce_build, add_lists_each_build_once)
{
    const char *K = "Haswell, OpenBLAS 0.3.21", *Z = "Zen, OpenBLAS 0.3.21";
    rl_buildrec r = { 0 };
    rl_buildrec_add(&r, "aa4939566a8a", K); /* a new grid: this run's */
    cr_expect(r.has && !strcmp(r.build, "aa4939566a8a") && !strcmp(r.kernels, K), "%s / %s", r.build, r.kernels);
    rl_buildrec_add(&r, "aa49395", K); /* the same commit abbreviated: nothing added */
    cr_expect(!strcmp(r.build, "aa4939566a8a") && !strcmp(r.kernels, K), "%s / %s", r.build, r.kernels);
    rl_buildrec_add(&r, "aa4939566a8a", Z);
    cr_expect(!strcmp(r.build, "aa4939566a8a") && !strcmp(r.kernels, "Haswell, OpenBLAS 0.3.21 + Zen, OpenBLAS 0.3.21"),
              "%s / %s", r.build, r.kernels);
    cr_expect_eq(rl_buildrec_compare(&r, "aa4939566a8a", K, 0), RL_BUILD_MIXED);
    rl_buildrec_add(&r, "bb4939566a8a-dirty", Z);
    cr_expect(!strcmp(r.build, "aa4939566a8a + bb4939566a8a-dirty"), "%s", r.build);
    /* a full value keeps its entries, and the record reads back */
    for (int i = 0; i < 100; i++) {
        char b[32];
        snprintf(b, sizeof b, "%012x", 0xabc000 + i);
        rl_buildrec_add(&r, b, K);
    }
    cr_expect(strlen(r.build) < RL_BUILDREC_MAX && strstr(r.build, "aa4939566a8a + bb4939566a8a-dirty + "));
    char text[3 * RL_BUILDREC_MAX];
    snprintf(text, sizeof text, "build\t%s\nkernels\t%s\n", r.build, r.kernels);
    rl_buildrec back;
    rl_err err;
    cr_expect_eq(rl_buildrec_read(text, "c", &back, &err), RL_OK, "%s", err.msg);
}

/* The one name of the kernel set: OpenBLAS's loaded set first, its version after. */
Test(reproduce_build, kernels_named_by_the_loaded_set)
{
    const char *k = rl_blas_kernels(), *core = rl_blas_core();
    cr_expect(!strncmp(k, core, strlen(core)) && (!k[strlen(core)] || !strncmp(k + strlen(core), ", OpenBLAS ", 11)),
              "'%s' against the core '%s'", k, core);
    char text[256];
    snprintf(text, sizeof text, "build\tunknown\nkernels\t%s\n", k);
    rl_buildrec r;
    rl_err err;
    cr_expect_eq(rl_buildrec_read(text, "c", &r, &err), RL_OK, "this run's kernels are no record: %s", err.msg);
}

/* ---- the command ---- */

static char out[1 << 16], err[1 << 14];

/* `routelab reproduce --data d/t.txt --out d/g GRID extra`: its status,
 * stdout into out, stderr into err. */
static int grid(const char *d, const char *extra)
{
    char args[4096];
    snprintf(args, sizeof args, "reproduce --data %s/t.txt --out %s/g " GRID " %s", d, d, extra);
    return th_run(args, out, sizeof out, err, sizeof err);
}

/* A finished miniature grid in d/g. */
static char *new_grid(void)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt");
    th_write_text(txt, 300);
    free(txt);
    cr_assert_eq(grid(d, ""), 0, "%s", err);
    return d;
}

static char *config(const char *d)
{
    char *p = th_path(d, "g/config.txt"), *t = rl_read_file(p, NULL);
    cr_assert(t, "no %s", p);
    free(p);
    return t;
}

/* The value of config.txt's line key (static). */
static const char *value(const char *d, const char *key)
{
    static char v[RL_BUILDREC_MAX];
    char *t = config(d), k[64];
    snprintf(k, sizeof k, "\n%s\t", key);
    const char *p = strstr(t, k);
    v[0] = 0;
    if (p)
        snprintf(v, sizeof v, "%.*s", (int)strcspn(p + strlen(k), "\n"), p + strlen(k));
    free(t);
    return v;
}

/* config.txt's line key set to val (or removed: val NULL). */
static void set_line(const char *d, const char *key, const char *val)
{
    char cmd[1024];
    if (val)
        snprintf(cmd, sizeof cmd, "sed -i 's/^%s\t.*/%s\t%s/' %s/g/config.txt", key, key, val, d);
    else
        snprintf(cmd, sizeof cmd, "sed -i '/^%s\t/d' %s/g/config.txt", key, d);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* This program's build, as `routelab --version` names it. */
static const char *own_build(void)
{
    static char b[128];
    char o[256];
    cr_assert_eq(th_run("--version", o, sizeof o, NULL, 0), 0);
    cr_assert_eq(sscanf(o, "routelab %*s (commit %127[^)])", b), 1, "%s", o);
    return b;
}

/* How many of stderr's lines are the build line, which always starts so
 * (the report's own lines on stderr, its unresolved orderings, do not). */
static int build_lines(void)
{
    static const char start[] = "reproduce: this grid";
    int n = 0;
    for (const char *p = err; (p = strstr(p, start)); p++)
        n += p == err || p[-1] == '\n';
    return n;
}

/* The grid folder is what it was (d/before, a copy taken by snapshot). */
static void snapshot(const char *d)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf %s/before && cp -a %s/g %s/before", d, d, d);
    cr_assert_eq(system(cmd), 0);
}

static void expect_unchanged(const char *d, const char *what)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "diff -r %s/before %s/g > /dev/null", d, d);
    cr_expect_eq(system(cmd), 0, "%s: the grid's folder was written", what);
}

/* The same build and kernel set: nothing said, resumed or grown; the
 * record is this run's (the commit --version names, rl_blas_kernels'
 * set) and stays one build. */
Test(reproduce_build, matching_build_says_nothing, .timeout = 240)
{
    char *d = new_grid();
    cr_expect_str_eq(value(d, "build"), own_build());
    const char *k = value(d, "kernels");
    cr_expect(*k && !strchr(k, '+'), "kernels '%s'", k);
    cr_expect_eq(build_lines(), 0, "%s", err);
    cr_assert_eq(grid(d, ""), 0, "%s", err); /* resumed, nothing to do */
    cr_expect_eq(build_lines(), 0, "%s", err);
    cr_assert_eq(grid(d, "--seeds 2"), 0, "%s", err); /* grown by a seed */
    cr_expect_eq(build_lines(), 0, "%s", err);
    cr_expect(strstr(out, "rope seed 43: training") != NULL, "%s", out);
    cr_expect_str_eq(value(d, "build"), own_build());
    cr_expect(!strstr(value(d, "kernels"), RL_BUILDREC_JOIN), "%s", value(d, "kernels"));
    th_rmdir(d);
}

/* Another kernel set: one line naming the grid's build and kernels (and the
 * OPENBLAS_CORETYPE that loads them) and this run's, and the run goes on.
 * A run that writes nothing but the report keeps the record; one that
 * trains a model into the grid lists both kernel sets (mixed), and the
 * next run says no one build gives the files bitwise. */
Test(reproduce_build, other_kernels_one_line_and_the_run_goes_on, .timeout = 240)
{
    char *d = new_grid();
    char *build = strdup(value(d, "build")), *kernels = strdup(value(d, "kernels"));
    set_line(d, "kernels", OTHER_KERNELS);
    cr_assert_eq(grid(d, ""), 0, "%s", err);
    cr_expect_eq(build_lines(), 1, "%s", err);
    char want[512];
    snprintf(want, sizeof want, "reproduce: this grid's files are bitwise from build %s with kernels " OTHER_KERNELS
             " (OPENBLAS_CORETYPE=Testcore); this run (build %s, kernels %s) reproduces them statistically: the "
             "same verdicts, numbers within their SE\n", build, own_build(), kernels);
    cr_expect(strstr(err, want) != NULL, "not the line\n%s\nin\n%s", want, err);
    cr_expect_str_eq(value(d, "kernels"), OTHER_KERNELS, "a run that trained nothing changed the record");

    cr_assert_eq(grid(d, "--seeds 2"), 0, "%s", err);
    cr_expect_eq(build_lines(), 1, "%s", err);
    cr_expect(strstr(out, "rope seed 43: training") != NULL, "%s", out);
    char mixed[512];
    snprintf(mixed, sizeof mixed, OTHER_KERNELS RL_BUILDREC_JOIN "%s", kernels);
    cr_expect_str_eq(value(d, "kernels"), mixed);
    cr_expect_str_eq(value(d, "build"), build, "the same commit listed twice");

    cr_assert_eq(grid(d, "--seeds 2"), 0, "%s", err);
    cr_expect_eq(build_lines(), 1, "%s", err);
    cr_expect(strstr(err, "no one build reproduces them bitwise; this run") != NULL, "%s", err);
    cr_expect_eq(grid(d, "--seeds 2 --strict"), 2, "a mixed grid passed --strict");
    free(build);
    free(kernels);
    th_rmdir(d);
}

/* --strict with another kernel set: status 2, one line, nothing written,
 * though the run had a seed to train; --check-build says the same line and
 * stops (status 0 without --strict), writing nothing either. */
Test(reproduce_build, strict_refuses_other_kernels_and_writes_nothing, .timeout = 240)
{
    char *d = new_grid();
    set_line(d, "kernels", OTHER_KERNELS);
    snapshot(d);
    cr_expect_eq(grid(d, "--seeds 2 --strict"), 2, "%s", err);
    cr_expect(th_lines(err) == 1 && strstr(err, "routelab: reproduce: --strict: this run (build ") &&
                  strstr(err, "kernels " OTHER_KERNELS " (OPENBLAS_CORETYPE=Testcore)"),
              "%s", err);
    expect_unchanged(d, "--strict");
    cr_expect_eq(grid(d, "--seeds 2 --strict --check-build"), 2, "%s", err);
    cr_expect(th_lines(err) == 1 && strstr(err, "--strict: this run"), "%s", err);
    cr_expect_eq(grid(d, "--seeds 2 --check-build"), 0, "%s", err);
    cr_expect(th_lines(err) == 1 && build_lines() == 1 && strstr(err, "statistically"), "%s", err);
    cr_expect(strstr(out, "training") == NULL, "%s", out);
    expect_unchanged(d, "--check-build");
    th_rmdir(d);
}

/* --strict with this very build: it runs where the build names its commit
 * exactly; a -dirty or unknown build never matches under --strict.  Which
 * one this is depends on the tree the test binary was built from. */
Test(reproduce_build, strict_with_this_build, .timeout = 240)
{
    char *d = new_grid();
    const char *b = own_build();
    const size_t n = strlen(b);
    const int exact = strcmp(b, "unknown") && !(n > 6 && !strcmp(b + n - 6, "-dirty"));
    snapshot(d);
    const int st = grid(d, "--strict");
    if (exact) {
        cr_expect_eq(st, 0, "%s", err);
        cr_expect_eq(build_lines(), 0, "%s", err);
    } else {
        cr_expect_eq(st, 2, "build %s passed --strict", b);
        cr_expect(th_lines(err) == 1 && strstr(err, "a -dirty or unknown build never is, under --strict"), "%s", err);
        expect_unchanged(d, "--strict, this build");
    }
    th_rmdir(d);
}

/* A malformed record: one line naming config.txt, status 2, nothing
 * written, with or without --strict; a grid from before the record has
 * none: one line (its files are reproduced statistically), --strict
 * refuses it. */
Test(reproduce_build, malformed_or_missing_record, .timeout = 240)
{
    char *d = new_grid();
    const char *bad[][2] = {
        { "build", "" },                         /* empty */
        { "build", "aa49395 and more" },         /* spaces in a build */
        { "kernels", "Has\\x01well" },           /* a control character */
    };
    char *orig = config(d);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        set_line(d, bad[i][0], bad[i][1]);
        snapshot(d);
        for (int strict = 0; strict < 2; strict++) {
            cr_expect_eq(grid(d, strict ? "--seeds 2 --strict" : "--seeds 2"), 2, "%s '%s': %s", bad[i][0],
                         bad[i][1], err);
            cr_expect(th_lines(err) == 1 && strstr(err, "g/config.txt: its ") && strstr(err, " is not a "), "%s",
                      err);
            expect_unchanged(d, bad[i][0]);
        }
        FILE *f = fopen(th_path(d, "g/config.txt"), "w");
        cr_assert(f);
        fputs(orig, f);
        fclose(f);
    }
    set_line(d, "kernels", NULL); /* a build line alone */
    snapshot(d);
    cr_expect_eq(grid(d, ""), 2);
    cr_expect(th_lines(err) == 1 && strstr(err, "has a build line and no kernels line"), "%s", err);
    expect_unchanged(d, "a build line alone");

    set_line(d, "build", NULL); /* neither: a grid from before the record */
    snapshot(d);
    cr_expect_eq(grid(d, "--strict"), 2);
    cr_expect(th_lines(err) == 1 && strstr(err, "--strict: this grid's config.txt records no build or kernel set"),
              "%s", err);
    expect_unchanged(d, "--strict, no record");
    cr_assert_eq(grid(d, "--seeds 2"), 0, "%s", err);
    cr_expect(build_lines() == 1 && strstr(err, "records no build or kernel set (a grid from before the record): "
                                                "this run (build "), "%s", err);
    cr_expect_eq(value(d, "build")[0], 0, "a record written for files of an unknown build");
    free(orig);
    th_rmdir(d);
}

/* --report-only rewrites the report from the files, whatever build made
 * them: no comparison, no line, the record untouched; --strict and
 * --check-build do not apply to it. */
Test(reproduce_build, report_only_compares_nothing, .timeout = 240)
{
    char *d = new_grid();
    set_line(d, "kernels", OTHER_KERNELS);
    cr_assert_eq(grid(d, "--report-only"), 0, "%s", err);
    cr_expect_eq(build_lines(), 0, "%s", err);
    cr_expect_str_eq(value(d, "kernels"), OTHER_KERNELS);
    set_line(d, "build", ""); /* malformed: --report-only does not read it */
    cr_assert_eq(grid(d, "--report-only"), 0, "%s", err);
    const char *flag[] = { "--strict", "--check-build" };
    for (int i = 0; i < 2; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, "--report-only %s", flag[i]);
        cr_expect_eq(grid(d, extra), 2);
        cr_expect(th_lines(err) == 1 && strstr(err, "does not apply with --report-only") && strstr(err, flag[i]),
                  "%s", err);
    }
    th_rmdir(d);
}

/* A rerun with other settings is refused before anything is written: the
 * grid's config.txt keeps its command and record (it was rewritten with the
 * refused flags before the model folders were compared). */
Test(reproduce_build, refused_rerun_leaves_the_config, .timeout = 240)
{
    char *d = new_grid();
    snapshot(d);
    cr_expect_eq(grid(d, "--width 32"), 2);
    cr_expect(th_lines(err) == 1 && strstr(err, "other settings"), "%s", err);
    expect_unchanged(d, "a rerun with other settings");
    th_rmdir(d);
}
