/* test_cli.c: the command line: help, errors with status 2, reproducibility
 * across thread counts, output formats. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static char out[1 << 20], err[1 << 16];

Test(cli, help_lists_commands_and_flags)
{
    cr_assert_eq(th_run("help", out, sizeof out, err, sizeof err), 0);
    cr_assert(strstr(out, "sample") && strstr(out, "bound"));
    cr_assert_eq(th_run("sample --help", out, sizeof out, NULL, 0), 0);
    const char *flags[] = { "--family", "--d", "--count", "--seed", "--threads", "--angles", "--base",
                            "--scale", "--beta", "--p", "--sigma", "--table", "--text" };
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        cr_assert(strstr(out, flags[i]), "sample --help does not document %s", flags[i]);
    cr_assert(strstr(out, "default"));
    cr_assert_eq(th_run("bound --help", out, sizeof out, NULL, 0), 0);
    cr_assert(strstr(out, "farmass") && strstr(out, "levy") && strstr(out, "hoeffding"));
}

/* `routelab --version`: the library's version and the commit built from
 * (once there was none); an argument after it is a bad input. */
Test(cli, version_names_the_commit)
{
    cr_assert_eq(th_run("--version", out, sizeof out, err, sizeof err), 0, "%s", err);
    char v[32], c[64];
    cr_assert_eq(sscanf(out, "routelab %31s (commit %63[^)])", v, c), 2, "%s", out);
    cr_expect_eq(th_lines(out), 1, "%s", out);
    cr_expect(strlen(c) >= 7, "commit '%s'", c); /* a hash (or "unknown" outside git) */
    /* and the kernel set, as OPENBLAS_CORETYPE takes it (make pytest reads it) */
    char k[64];
    cr_expect_eq(sscanf(out, "routelab %*s (commit %*[^)]); kernels: %63[A-Za-z0-9]", k), 1, "%s", out);
    cr_expect_eq(th_run("--version extra", out, sizeof out, err, sizeof err), 2);
    cr_expect(th_lines(err) == 1 && strstr(err, "unexpected argument"), "%s", err);
    cr_assert_eq(th_run("help", out, sizeof out, NULL, 0), 0);
    cr_expect(strstr(out, "--version"), "help does not list --version");
}

Test(cli, bad_input_exits_2_with_one_line)
{
    const char *bad[] = {
        "frobnicate",
        "sample --frob 3",
        "sample --d",
        "sample --d 1",
        "sample --d abc",
        "sample --count 0",
        "sample --family nope",
        "sample --family so2 --d 7",
        "sample --family lazy-haar --p 1.5",
        "sample --family lazy-haar --p -0.1",
        "sample --family path --beta 0",
        "sample --family path --beta 2.5",
        "sample --family brownian --sigma -1",
        "sample --family so2 --angles sideways",
        "sample --family so2 --base 0",
        "sample --threads 0",
        "sample --family haar --table x",
        "sample --family token-so2 --table /nonexistent/table",
        "sample --family token-so2 --text /nonexistent/text",
        "sample --family token-so2 --text /dev/null",
        "sample --family token-so2 --text Makefile --vocab 10",
        "sample --family token-so2 --text Makefile --count 100000000",
        "sample extra",
        "sample --out /nonexistent/dir/file",
        "bound",
        "bound nope",
        "bound farmass --t 1",
        "bound farmass --lambda -1",
        "bound window --eps 0",
        "bound window --eps 1",
        "bound levy --t nan",
        "bound hoeffding --a 1,,2",
        "bound hoeffding --a 1,-2",
        "bound norm --family so2 --d 8 --block 4",
        "bound value-incoherent --rho 2",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int st = th_run(bad[i], out, sizeof out, err, sizeof err);
        cr_assert_eq(st, 2, "'%s' exited %d", bad[i], st);
        size_t n = strlen(err);
        cr_assert(n > 10 && strncmp(err, "routelab: ", 10) == 0, "'%s': stderr '%s'", bad[i], err);
        cr_assert(strchr(err, '\n') == err + n - 1, "'%s': error is not one line: '%s'", bad[i], err);
    }
}

Test(cli, malformed_table_is_rejected)
{
    char *dir = th_tmpdir(), path[256], cmd[512];
    snprintf(path, sizeof path, "%s/table.txt", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "0.1 0.2\n0.3\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "sample --family token-so2 --d 4 --table %s", path);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 2);
    cr_assert(strstr(err, ":2:"), "error does not name the line: %s", err);
    f = fopen(path, "w");
    fprintf(f, "0.1 0.2\n0.3 0.4\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "sample --family token-so2 --d 4 --table %s --count 2", path);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    th_rmdir(dir);
    free(dir);
}

static char out2[1 << 20];

Test(cli, same_seed_same_bytes_any_thread_count)
{
    const char *fams[] = { "haar --d 6", "haar-so --d 5", "so2 --d 8 --angles gauss", "householder --d 7",
                           "lazy-haar --d 4 --p 0.3", "brownian --d 4 --sigma 0.5", "token-so2 --d 6",
                           "path --d 5 --beta 1.2" };
    for (size_t i = 0; i < sizeof fams / sizeof *fams; i++) {
        char a[256], b[256];
        snprintf(a, sizeof a, "sample --family %s --count 300 --seed 11 --threads 1", fams[i]);
        snprintf(b, sizeof b, "sample --family %s --count 300 --seed 11 --threads 2", fams[i]);
        cr_assert_eq(th_run(a, out, sizeof out, NULL, 0), 0);
        cr_assert_eq(th_run(b, out2, sizeof out2, NULL, 0), 0);
        cr_assert(strlen(out) > 1000);
        cr_assert_str_eq(out, out2, "%s differs between 1 and 2 threads", fams[i]);
        snprintf(b, sizeof b, "sample --family %s --count 300 --seed 12 --threads 2", fams[i]);
        cr_assert_eq(th_run(b, out2, sizeof out2, NULL, 0), 0);
        cr_assert_str_neq(out, out2, "%s: seeds 11 and 12 agree", fams[i]);
    }
}

Test(cli, sample_prints_orthogonal_matrices_row_major)
{
    cr_assert_eq(th_run("sample --family haar --d 5 --count 4 --seed 3", out, sizeof out, NULL, 0), 0);
    char *p = out;
    for (int m = 0; m < 4; m++) {
        double A[25];
        for (int i = 0; i < 25; i++) {
            char *end;
            A[i] = strtod(p, &end);
            cr_assert(end != p);
            p = end;
        }
        cr_assert_eq(*p, '\n', "matrix %d is not on one line of 25 numbers", m);
        p++;
        cr_assert_lt(th_orth_err(A, 5), 1e-12);
    }
    cr_assert_eq(*p, '\0');
    /* so2: the (b, b+h) entry is -sin, row-major */
    cr_assert_eq(th_run("sample --family so2 --d 2 --angles constant --scale 0.5", out, sizeof out, NULL, 0), 0);
    double c, s1, s2, c2;
    cr_assert_eq(sscanf(out, "%lf %lf %lf %lf", &c, &s1, &s2, &c2), 4);
    cr_assert_float_eq(c, cos(0.5), 1e-15);
    cr_assert_float_eq(s1, -sin(0.5), 1e-15);
    cr_assert_float_eq(s2, sin(0.5), 1e-15);
}

Test(cli, sample_out_file_is_atomic)
{
    char *dir = th_tmpdir(), cmd[512];
    snprintf(cmd, sizeof cmd, "sample --family householder --d 4 --count 3 --out %s/m.txt", dir);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    FILE *p = popen(cmd, "r");
    char line[256];
    int files = 0;
    while (fgets(line, sizeof line, p)) {
        files++;
        cr_assert_str_eq(line, "m.txt\n");
    }
    pclose(p);
    cr_assert_eq(files, 1);
    th_rmdir(dir);
    free(dir);
}

static double bound(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "bound %s", args);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s: %s", args, err);
    return strtod(out, NULL);
}

Test(cli, bound_calculator)
{
    cr_assert_float_eq(bound("farmass --ml 65024 --k 8 --lambda 2"), 65024 / (65024 + 8 * exp(4.0)), 1e-14);
    cr_assert_float_eq(bound("window --norm 0.9 --eps 0.01"), 44, 0);
    cr_assert_float_eq(bound("norm --family householder --d 64"), 1 - 2.0 / 64, 1e-15);
    cr_assert_float_eq(bound("norm --family path --d 64 --beta 0.5"), 1 - 0.5 / 64, 1e-15);
    cr_assert_float_eq(bound("norm --family lazy-haar --p 0.25"), 0.75, 1e-15);
    cr_assert_float_eq(bound("norm --family so2 --angles uniform --d 64 --block 0"), sin(1.0), 1e-15);
    cr_assert_float_eq(bound("norm --family so2 --angles pm --d 64 --block 0"), cos(1.0), 1e-15);
    cr_assert_float_eq(bound("norm --family so2 --angles gauss --d 64 --block 0 --scale 0.5"), exp(-0.125), 1e-15);
    cr_assert_float_eq(bound("levy --d 10 --t 0.5"), 2 * exp(-1.25), 1e-15);
    cr_assert_float_eq(bound("beta-tail --d 3 --t 0.25"), 0.75, 1e-12);
    cr_assert_float_eq(bound("hoeffding --t 1 --a 0.5,0.5"), 2 * exp(-1.0), 1e-15);
    cr_assert_float_eq(bound("value-coherent --rho 0.5 --vnorm 2"), 1.0, 1e-15);
    cr_assert_float_eq(bound("value-incoherent --rho 1 --vnorm 1 --ml 100 --c 0"), 0.1, 1e-15);
    cr_assert(isinf(bound("window --norm 1 --eps 0.1")));
}

/* `routelab claims` prints the claims table: one markdown row per claim, in
 * the table's order and numbering; each row's subcommand exists, its --help is
 * the table's help and keeps every experiment flag, and `routelab help` lists
 * it as "claim N: title". */
Test(cli, claims_table_and_the_subcommands_it_derives)
{
    static const struct {
        int number;
        const char *id, *title;
    } rows[] = {
        { 1, "mixing", "Mixing window" },
        { 1, "mixstay", "Mix or stay: far angle laws against those met within T (routelab's)" },
        { 2, "concentration", "Score concentration of far routes" },
        { 2, "scoregap", "Score gap: near target against far distractors" },
        { 3, "farmass", "Far-mass lower bound" },
        { 4, "values", "Value-side incoherence" },
        { 5, "stylized", "Length extrapolation of one stylized attention layer" },
    };
    const int n = sizeof rows / sizeof *rows;
    cr_assert_eq(th_run("claims", out, sizeof out, err, sizeof err), 0, "stderr: %s", err);
    cr_assert(strncmp(out, "| claim | id | title | command |\n|---|---|---|---|\n", 50) == 0, "header: %s", out);
    cr_assert_eq(th_lines(out), 2 + n, "%s", out);
    const char *p = strchr(strchr(out, '\n') + 1, '\n') + 1;
    for (int i = 0; i < n; i++) {
        char want[256];
        snprintf(want, sizeof want, "| %d | %s | %s | `routelab %s` |\n", rows[i].number, rows[i].id, rows[i].title,
                 rows[i].id);
        cr_assert(strncmp(p, want, strlen(want)) == 0, "row %d: want %s got %.200s", i, want, p);
        p += strlen(want);
    }
    static char help[1 << 16];
    cr_assert_eq(th_run("help", help, sizeof help, NULL, 0), 0);
    for (int i = 0; i < n; i++) {
        char want[256], cmd[64];
        snprintf(want, sizeof want, "claim %d: %s", rows[i].number, rows[i].title);
        cr_assert(strstr(help, want), "help lacks '%s'", want);
        snprintf(cmd, sizeof cmd, "%s --help", rows[i].id);
        cr_assert_eq(th_run(cmd, out, sizeof out, NULL, 0), 0, "%s", cmd);
        const char *flags[] = { "--out", "--seed", "--threads", "--preset" };
        for (size_t f = 0; f < sizeof flags / sizeof *flags; f++)
            cr_assert(strstr(out, flags[f]), "%s does not document %s", cmd, flags[f]);
        /* only the token-driven claim reads a text */
        cr_assert(!strstr(out, "--text") == !!strcmp(rows[i].id, "mixing"), "%s: --text offered wrongly", cmd);
        cr_assert(strstr(out, "go to --out"), "%s: the table's help text is missing", cmd);
    }
}

/* A norm within an ulp of 1 once never returned (the window's
 * correction stepped one at a time); now the least n with norm^n <= eps, in
 * well under a second: log(10) / -log1p(-2^-53 (1 + ...)) steps. */
Test(cli, window_near_one_returns, .timeout = 10)
{
    cr_assert_eq(th_run("bound window --norm 0.9999999999999999 --eps 0.1", out, sizeof out, err, sizeof err), 0,
                 "%s", err);
    cr_expect_str_eq(out, "20739842733593684\n");
    cr_assert_eq(th_run("bound norm2 --family lazy-haar --d 4 --p 1e-16", out, sizeof out, err, sizeof err), 0, "%s",
                 err);
}

/* A tiny number strtod flags as underflow (ERANGE) is a
 * finite number: in range, it is read; out of range, the range says so. */
Test(cli, underflowing_numbers_are_numbers)
{
    cr_assert_eq(th_run("bound farmass --ml 100 --k 1e-308 --lambda 1", out, sizeof out, err, sizeof err), 0, "%s",
                 err);
    cr_expect_eq(th_run("bound farmass --ml 100 --k 1e-400 --lambda 1", out, sizeof out, err, sizeof err), 2);
    cr_expect(strstr(err, "--k 1e-400 is out of range"), "%s", err);
    cr_expect_eq(th_run("bound farmass --ml 100 --k 1e400 --lambda 1", out, sizeof out, err, sizeof err), 2);
    cr_expect(strstr(err, "expects a finite number"), "%s", err);
}
