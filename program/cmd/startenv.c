/* startenv.c: the environment the libraries read before main (startenv.h). */
#include "startenv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/core/blas_arch.h"
#include "../../base/core/err.h"
#include "../../base/core/util.h"

/* Start-up state, set once before main and cleared by rl_startenv_check:
 * the real stderr and the pipe's read end (-1: nothing held). */
static int real_stderr = -1, held = -1;

void rl_startenv_preinit(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv;
    int omp = 0;
    for (char **e = envp; e && *e && !omp; e++)
        omp = !strncmp(*e, "OMP_", 4) || !strncmp(*e, "GOMP_", 5);
    if (!omp)
        return;
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return;
    /* libgomp says a line per bad variable (OMP_DISPLAY_ENV a few KB): the
     * pipe holds 1 MiB where it may, and a full pipe drops text rather than
     * blocking the loader for ever */
    (void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    (void)fcntl(p[1], F_SETFL, O_NONBLOCK);
    int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved < 0 || dup2(p[1], 2) < 0) {
        if (saved >= 0)
            close(saved);
        close(p[0]);
        close(p[1]);
        return;
    }
    close(p[1]);
    real_stderr = saved;
    held = p[0];
}

/* What the libraries wrote while stderr was held, NUL-terminated (malloc'ed). */
static char *take_held(void)
{
    dup2(real_stderr, 2); /* closes the pipe's last write end: read sees EOF */
    close(real_stderr);
    real_stderr = -1;
    size_t n = 0, cap = 4096;
    char *text = rl_xmalloc(cap);
    for (;;) {
        if (n + 1 == cap)
            text = rl_xrealloc(text, cap *= 2);
        ssize_t k = read(held, text + n, cap - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    text[n] = 0;
    close(held);
    held = -1;
    return text;
}

static const char *blas_wanted(void);
static int wait_wanted(void);

void rl_startenv_check(void)
{
    if (real_stderr >= 0) {
        char *text = take_held();
        /* "\nlibgomp: Invalid value for environment variable OMP_NUM_THREADS\n":
         * its first such line, with the value the variable has */
        char *line = strstr(text, "libgomp: ");
        if (line) {
            line[strcspn(line, "\n")] = 0;
            const char *var = strrchr(line, ' ') + 1, *val = getenv(var);
            rl_die("the environment: %s%s%s%s", line, val ? " ('" : "", val ? val : "", val ? "')" : "");
        }
        /* what else they printed (OMP_DISPLAY_ENV), unless rl_startenv_fix
         * runs the program again: that run prints it, once */
        if (!blas_wanted() && !wait_wanted())
            fputs(text, stderr);
        free(text);
    }
    unsigned long long stack;
    rl_err err = { 0 };
    rl_check(rl_omp_stacksize(&stack, &err), &err);
}

/* The variables rl_startenv_fix would set: the kernel set (NULL: none), and
 * whether the wait policy is the user's to leave. */
static const char *blas_wanted(void)
{
    return getenv("OPENBLAS_CORETYPE") ? NULL : rl_blas_arch_wanted();
}

static int wait_wanted(void)
{
    return !getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT");
}

void rl_startenv_fix(char **argv)
{
    const char *want = blas_wanted();
    const int blas = want && setenv("OPENBLAS_CORETYPE", want, 1) == 0;
    const int wait = wait_wanted() && setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
    if (!blas && !wait)
        return;
    execv("/proc/self/exe", argv);
    if (blas)
        unsetenv("OPENBLAS_CORETYPE");
    if (wait)
        unsetenv("OMP_WAIT_POLICY");
}
