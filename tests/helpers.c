/* helpers.c: test helpers (statistics, running the CLI). */
#include "helpers.h"

#include <criterion/criterion.h>

#include <lapacke.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void th_add(th_acc *a, double x)
{
    rl_welford_add(a, x);
}

double th_se(const th_acc *a)
{
    return a->n > 1 ? rl_welford_se(a) : INFINITY;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double th_ks(double *x, long n, double (*cdf)(double, void *), void *ctx)
{
    qsort(x, n, sizeof *x, cmp_double);
    double D = 0;
    for (long i = 0; i < n; i++) {
        double F = cdf(x[i], ctx);
        double lo = F - (double)i / n, hi = (double)(i + 1) / n - F;
        if (lo > D)
            D = lo;
        if (hi > D)
            D = hi;
    }
    return sqrt((double)n) * D;
}

static void slurp(const char *path, char *buf, size_t len)
{
    if (!buf)
        return;
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

int th_run(const char *args, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *bin = getenv("ROUTELAB");
    if (!bin)
        bin = "build/routelab";
    char o[] = "/tmp/rl-out-XXXXXX", e[] = "/tmp/rl-err-XXXXXX";
    close(mkstemp(o));
    close(mkstemp(e));
    size_t n = strlen(bin) + strlen(args) + 128;
    char *cmd = malloc(n);
    snprintf(cmd, n, "%s %s >%s 2>%s </dev/null", bin, args, o, e);
    int st = system(cmd);
    free(cmd);
    slurp(o, out, outlen);
    slurp(e, err, errlen);
    unlink(o);
    unlink(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

double th_orth_err(const double *A, int d)
{
    double worst = 0;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double s = 0;
            for (int k = 0; k < d; k++)
                s += A[(long)k * d + i] * A[(long)k * d + j];
            double e = fabs(s - (i == j));
            if (e > worst)
                worst = e;
        }
    return worst;
}

double th_det(const double *A, int d)
{
    double *B = malloc(sizeof(double) * d * d);
    lapack_int *ipiv = malloc(sizeof(lapack_int) * d);
    memcpy(B, A, sizeof(double) * d * d);
    double det = 1;
    if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, d, d, B, d, ipiv) < 0)
        det = NAN;
    for (int i = 0; i < d; i++) {
        det *= B[(long)i * d + i];
        if (ipiv[i] != i + 1)
            det = -det;
    }
    free(B);
    free(ipiv);
    return det;
}

void th_to_root(void)
{
    if (access("NOTES.md", R_OK) == 0)
        return;
    const char *bin = getenv("ROUTELAB");
    cr_assert(bin, "run from the repository root or set ROUTELAB");
    char buf[PATH_MAX];
    cr_assert(realpath(bin, buf), "ROUTELAB=%s", bin);
    for (int up = 0; up < 2; up++)
        *strrchr(buf, '/') = 0;
    cr_assert_eq(chdir(buf), 0);
    cr_assert_eq(access("NOTES.md", R_OK), 0, "no NOTES.md in %s", buf);
}

char *th_tmpdir(void)
{
    char *t = strdup("/tmp/rl-test-XXXXXX");
    return mkdtemp(t);
}

void th_rmdir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

char *th_path(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

int th_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void th_write_text(const char *path, int reps)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    for (int i = 0; i < reps; i++)
        fprintf(f, "line %d: the quick brown fox jumps over the lazy dog %d times.\n", i, i % 7);
    fclose(f);
}

void th_cli_quick(const char *cmd, const char *const *files, const char *const *same)
{
    char *dir = th_tmpdir(), line[1024];
    static char err[1 << 14];
    snprintf(line, sizeof line, "%s --preset quick --threads 2 --out %s", cmd, dir);
    cr_assert_eq(th_run(line, NULL, 0, err, sizeof err), 0, "%s", err);
    for (const char *const *f = files; *f; f++) {
        char *p = th_path(dir, *f);
        cr_assert_eq(access(p, R_OK), 0, "%s: missing %s", cmd, *f);
        free(p);
    }
    if (same) { /* a random stream per work item and ordered sums: the same bytes */
        char *dir1 = th_tmpdir();
        snprintf(line, sizeof line, "%s --preset quick --threads 1 --out %s", cmd, dir1);
        cr_assert_eq(th_run(line, NULL, 0, err, sizeof err), 0, "%s", err);
        for (const char *const *f = same; *f; f++) {
            snprintf(line, sizeof line, "cmp -s %s/%s %s/%s", dir, *f, dir1, *f);
            cr_assert_eq(system(line), 0, "%s: %s differs between --threads 1 and 2", cmd, *f);
        }
        th_rmdir(dir1);
        free(dir1);
    }
    th_rmdir(dir);
    free(dir);
}

int th_in_child(void (*fn)(void *), void *arg, char *err, size_t errlen)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        fn(arg);
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < errlen && (got = read(fd[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)got;
    err[n] = 0;
    close(fd[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st), "the child did not exit (status %d)", st);
    return WEXITSTATUS(st);
}

void th_mini_grid(const char *dir, const char *txt, const char *flags, char *out, size_t outlen)
{
    char args[2048], err[4096];
    snprintf(args, sizeof args, "reproduce --data %s --out %s/g " TH_MINI_GRID " %s", txt, dir, flags);
    int st = th_run(args, out, outlen, err, sizeof err);
    cr_assert_eq(st, 0, "routelab %s: status %d: %s", args, st, err);
}
