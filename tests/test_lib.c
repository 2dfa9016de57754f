/* test_lib.c: libroutelab, the library (docs/library.md#library): its ABI name, no MPI
 * in it, closed forms that link with libm alone, the C example built with
 * pkg-config against an install, and the family surface (rl_family_named,
 * rl_family_set, rl_sample, rl_family_window, rl_family_norm) giving the
 * command's numbers and messages.  Run after `make lib` (make test). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../api/include/routelab/bounds.h"
#include "../api/include/routelab/family.h"
#include "../api/include/routelab/version.h"
#include "../base/core/blas_arch.h" /* rl_blas_core: the kernels this process loaded (not public API) */
#include "helpers.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define SOLIB "build/libroutelab.so." STR(ROUTELAB_ABI_MAJOR) "." STR(ROUTELAB_ABI_MINOR)

/* Run a shell command from the root; its stdout and stderr into out; the exit status. */
static int sh(const char *cmd, char *out, size_t n)
{
    char full[4096];
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
    FILE *p = popen(full, "r");
    cr_assert(p, "cannot run %s", cmd);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(lib, abi_version_and_soname)
{
    th_to_root();
    char out[65536];
    cr_assert_str_eq(routelab_version(), STR(ROUTELAB_ABI_MAJOR) "." STR(ROUTELAB_ABI_MINOR));
    cr_assert_eq(sh("readelf -d " SOLIB, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "[libroutelab.so." STR(ROUTELAB_ABI_MAJOR) "]"), "soname: %s", out);
    cr_expect_eq(sh("readlink build/libroutelab.so", out, sizeof out), 0);
    cr_expect_str_eq(out, "libroutelab.so." STR(ROUTELAB_ABI_MAJOR) "\n");
}

/* MPI is the command layer's alone (docs/library.md#library-splits): the shared library
 * neither needs libmpi nor leaves an MPI symbol to be resolved. */
Test(lib, no_mpi_symbols_in_the_library)
{
    th_to_root();
    static char out[1 << 20];
    cr_assert_eq(sh("nm -D --undefined-only " SOLIB, out, sizeof out), 0, "%.2000s", out);
    cr_assert(strstr(out, "LAPACKE_zheevd_work") && strstr(out, "gsl_rng_alloc"),
              "nm listed the library's undefined symbols: %.500s", out);
    cr_expect_null(strstr(out, "MPI_"), "an MPI symbol: %.200s", strstr(out, "MPI_"));
    cr_expect_null(strstr(out, "ompi_"), "an OpenMPI symbol: %.200s", strstr(out, "ompi_"));
    cr_assert_eq(sh("readelf -d " SOLIB, out, sizeof out), 0);
    cr_expect_null(strstr(out, "libmpi"), "the library needs libmpi");
}

/* Build src against build/libroutelab.a with libs and nothing else, run it:
 * its one line must be want. */
static void link_alone(const char *src, const char *libs, const char *want)
{
    th_to_root();
    char *dir = th_tmpdir(), cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "gcc -std=c11 -Wall -Wextra -Werror -Iapi/include -o %s/x %s build/libroutelab.a %s && %s/x",
             dir, src, libs, dir);
    cr_expect_eq(sh(cmd, out, sizeof out), 0, "%s", out);
    cr_expect_str_eq(out, want, "%s", cmd);
    th_rmdir(dir);
}

/* A program that calls only closed forms links as `gcc x.c libroutelab.a
 * -lm`, and runs (tests/lib/closed_forms.c checks its numbers). */
Test(lib, closed_forms_link_with_libm_alone)
{
    link_alone("tests/lib/closed_forms.c", "-lm", "closed forms: ok\n");
}

/* The forms on GSL's special functions need GSL and nothing else of ours. */
Test(lib, gsl_forms_link_with_gsl_alone)
{
    link_alone("tests/lib/gsl_forms.c", "-lgsl -lgslcblas -lm", "gsl forms: ok\n");
}

/* api/examples/window_haar_bound.c built with `pkg-config --cflags --libs
 * routelab` against `make install PREFIX=<temporary>`, and run. */
Test(lib, example_builds_with_pkg_config_and_runs, .timeout = 300)
{
    th_to_root();
    char out[16384];
    cr_expect_eq(sh("sh tools/scripts/example_check.sh", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "W(0.1) = 776903252 steps"), "%s", out);
    cr_expect(strstr(out, "max |U^T U - I| = "), "%s", out);
    cr_expect(strstr(out, "installed program plots: ok"), "%s", out);
}

/* Only the public API is exported (the library once exported about 440
 * symbols against about 53 public ones): every symbol the shared library
 * defines for its callers is a function an installed header declares, and
 * the functions the README, the example and Python call are among them. */
Test(lib, only_the_public_api_is_exported)
{
    th_to_root();
    static char out[1 << 20], hdr[1 << 18];
    cr_assert_eq(sh("cat api/include/routelab/*.h", hdr, sizeof hdr), 0);
    cr_assert_eq(sh("nm -D --defined-only " SOLIB " | awk '{print $3}'", out, sizeof out), 0, "%.500s", out);
    int n = 0;
    for (char *name = strtok(out, "\n"); name; name = strtok(NULL, "\n"), n++) {
        char call[256];
        snprintf(call, sizeof call, "%s(", name);
        cr_expect(strstr(hdr, call), "%s is exported but no public header declares it", name);
    }
    cr_expect_geq(n, 50, "%d symbols exported", n);
    cr_assert_eq(sh("nm -D --defined-only " SOLIB, out, sizeof out), 0);
    const char *want[] = { "rl_farmass_lower", "rl_family_window", "rl_sample", "rl_model_load", "rl_mc_routes",
                           "rl_mixstay_family", "routelab_version" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char pat[128];
        snprintf(pat, sizeof pat, " %s\n", want[i]);
        cr_expect(strstr(out, pat), "%s is not exported", want[i]);
    }
}

/* family, d, then key value pairs, NULL-terminated: the library's family */
static void named(rl_family *f, const char *name, int d, const char *const *kv)
{
    rl_err err;
    cr_assert_eq(rl_family_named(f, name, d, &err), RL_OK, "%s: %s", name, err.msg);
    for (; kv && kv[0]; kv += 2)
        cr_assert_eq(rl_family_set(f, kv[0], kv[1], &err), RL_OK, "%s %s: %s", kv[0], kv[1], err.msg);
}

/* the same family as flags: "--family NAME --d D --KEY VALUE ..." */
static void flags(char *buf, size_t n, const char *name, int d, const char *const *kv)
{
    int off = snprintf(buf, n, "--family %s --d %d", name, d);
    for (; kv && kv[0]; kv += 2)
        off += snprintf(buf + off, n - off, " --%s %s", kv[0], kv[1]);
}

static const struct {
    const char *name;
    int d;
    const char *kv[7];
} cases[] = {
    { "haar", 5, { NULL } },
    { "haar-so", 4, { NULL } },
    { "so2", 8, { "angles", "gauss", "base", "100", "scale", "2", NULL } },
    { "token-so2", 6, { "vocab", "7", NULL } },
    { "householder", 4, { NULL } },
    { "path", 3, { "beta", "1.5", NULL } },
    { "lazy-haar", 4, { "p", "0.25", NULL } },
    { "brownian", 4, { "sigma", "0.3", NULL } },
    { "cayley", 3, { NULL } },
};

/* rl_sample gives the doubles `routelab sample` prints, byte for byte at
 * %.17g, for the same family flags and seed, on any thread count, within
 * one kernel set (docs/speed/reproduction-and-pruning.md#reproduction-across-builds): the command
 * is told to load this process's OpenBLAS kernels.  Without that, on a virtual machine whose CPU
 * OpenBLAS does not recognise, this process runs Prescott's kernels while the
 * command pins SkylakeX or Haswell (base/core/blas_arch.h), and the Haar families'
 * QR differ in the last bits (seen 2026-12-07 on an AVX-512 "Intel(R)
 * Xeon(R) Processor"). */
Test(lib, sample_matches_the_command)
{
    cr_assert_eq(setenv("OPENBLAS_CORETYPE", rl_blas_core(), 1), 0);
    static char want[1 << 16], got[1 << 16];
    char args[512], err2[1024];
    rl_family *f = malloc(rl_family_sizeof());
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int d = cases[c].d;
        const long count = 6;
        named(f, cases[c].name, d, cases[c].kv);
        double *m = malloc(sizeof(double) * count * d * d), *m1 = malloc(sizeof(double) * count * d * d);
        rl_err err;
        cr_assert_eq(rl_sample(f, count, 42, 3, m, &err), RL_OK, "%s: %s", cases[c].name, err.msg);
        cr_assert_eq(rl_sample(f, count, 42, 1, m1, &err), RL_OK);
        cr_expect_eq(memcmp(m, m1, sizeof(double) * count * d * d), 0, "%s: threads change the steps",
                     cases[c].name);
        size_t off = 0;
        for (long k = 0; k < count; k++) {
            for (int j = 0; j < d * d; j++)
                off += snprintf(got + off, sizeof got - off, j ? " %.17g" : "%.17g", m[k * d * d + j]);
            off += snprintf(got + off, sizeof got - off, "\n");
        }
        int n = snprintf(args, sizeof args, "sample --count %ld --seed 42 ", count);
        flags(args + n, sizeof args - n, cases[c].name, d, cases[c].kv);
        cr_assert_eq(th_run(args, want, sizeof want, err2, sizeof err2), 0, "%s: %s", args, err2);
        cr_expect_str_eq(got, want, "%s", args);
        free(m);
        free(m1);
    }
    free(f);
}

/* rl_family_window and rl_family_norm print as `routelab bound window|norm`. */
Test(lib, window_and_norm_match_the_command)
{
    static const struct {
        const char *name;
        int d, block;
        double eps;
        const char *kv[5];
    } w[] = {
        { "so2", 64, 31, 0.1, { "angles", "uniform", NULL } },
        { "so2", 64, -1, 0.01, { "angles", "pm", NULL } },
        { "so2", 16, 2, 0.5, { "angles", "constant", NULL } }, /* never: inf */
        { "token-so2", 8, -1, 0.1, { NULL } },
        { "householder", 8, -1, 0.01, { NULL } },
        { "lazy-haar", 16, -1, 1e-6, { "p", "0.01", NULL } },
        { "brownian", 4, -1, 0.1, { "sigma", "0.2", NULL } },
    };
    rl_family *f = malloc(rl_family_sizeof());
    char args[512], want[256], got[256], e2[1024];
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        named(f, w[i].name, w[i].d, w[i].kv);
        rl_err err;
        double v;
        for (int norm = 0; norm < 2; norm++) {
            rl_status st = norm ? rl_family_norm(f, w[i].block, &v, &err)
                                : rl_family_window(f, w[i].block, w[i].eps, &v, &err);
            cr_assert_eq(st, RL_OK, "%s: %s", w[i].name, err.msg);
            int n = norm ? snprintf(args, sizeof args, "bound norm ")
                         : snprintf(args, sizeof args, "bound window --eps %.17g ", w[i].eps);
            flags(args + n, sizeof args - n, w[i].name, w[i].d, w[i].kv);
            if (w[i].block >= 0)
                snprintf(args + strlen(args), sizeof args - strlen(args), " --block %d", w[i].block);
            cr_assert_eq(th_run(args, want, sizeof want, e2, sizeof e2), 0, "%s: %s", args, e2);
            snprintf(got, sizeof got, "%.17g\n", v);
            cr_expect_str_eq(got, want, "%s", args);
        }
    }
    /* the worked example */
    named(f, "so2", 64, (const char *const[]){ "angles", "uniform", NULL });
    double v;
    cr_assert_eq(rl_family_window(f, 31, 0.1, &v, NULL), RL_OK);
    cr_expect_eq(v, 776903252.0);
    free(f);
}

/* A bad input is RL_EINPUT with the command's own line (after its command
 * name), never an exit; a request beyond memory is refused before it is made. */
Test(lib, bad_inputs_are_the_commands_messages)
{
    rl_family *f = malloc(rl_family_sizeof());
    rl_err err;
    char out[256], e2[1024];
    static const struct {
        const char *name, *key, *value, *cli;
    } bad[] = {
        { "so2", "beta", "1", "sample --family so2 --beta 1" },
        { "path", "beta", "3", "sample --family path --beta 3" },
        { "so2", "angles", "wide", "sample --family so2 --angles wide" },
        { "brownian", "sigma", "x", "sample --family brownian --sigma x" },
        { "lazy-haar", "p", "1.5", "sample --family lazy-haar --p 1.5" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        named(f, bad[i].name, 4, NULL);
        cr_assert_eq(rl_family_set(f, bad[i].key, bad[i].value, &err), RL_EINPUT, "%s %s", bad[i].key, bad[i].value);
        cr_assert_eq(th_run(bad[i].cli, out, sizeof out, e2, sizeof e2), 2, "%s", bad[i].cli);
        /* "routelab: sample: MSG" and the library's "[family: ]MSG" end alike */
        const char *msg = strncmp(err.msg, "family: ", 8) ? err.msg : err.msg + 8;
        char want[700];
        snprintf(want, sizeof want, "routelab: sample: %s\n", msg);
        cr_expect_str_eq(e2, want, "%s", bad[i].cli);
    }
    cr_expect_eq(rl_family_named(f, "nope", 4, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "--family must be one of"), "%s", err.msg);
    cr_expect_eq(rl_family_named(f, "so2", 5, &err), RL_EINPUT);
    cr_expect_eq(rl_family_named(f, "haar", 1, &err), RL_EINPUT);
    named(f, "so2", 4, NULL);
    cr_expect_eq(rl_family_set(f, "table", "angles.txt", &err), RL_EINPUT);
    cr_expect_eq(rl_family_set(f, "colour", "red", &err), RL_EINPUT);
    double buf[16], v;
    cr_expect_eq(rl_sample(f, 0, 1, 1, buf, &err), RL_EINPUT);
    cr_expect_eq(rl_sample(f, 1, 1, 0, buf, &err), RL_EINPUT);
    cr_expect_eq(rl_family_window(f, -1, 1.5, &v, &err), RL_EINPUT);
    cr_expect_eq(rl_family_window(f, 2, 0.1, &v, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "--block 2 is out of range [0, 1]"), "%s", err.msg);
    named(f, "haar", 4096, NULL);
    cr_expect_eq(rl_sample(f, 1000000000L, 1, 1, buf, &err), RL_EINPUT); /* 1.3e17 bytes: never allocated */
    cr_expect(strstr(err.msg, "the sampled steps"), "%s", err.msg);
    cr_expect_eq(rl_family_norm(f, 3, &v, &err), RL_EINPUT);
    cr_expect_str_eq(err.msg, "--block applies to the SO(2) families only");
    free(f);
}
