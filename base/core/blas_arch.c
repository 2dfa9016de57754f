/* blas_arch.c: OpenBLAS's kernel set on virtual machines (blas_arch.h). */
#include "blas_arch.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* OpenBLAS's own report of the kernel set it loaded, and of its build
 * ("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... Cooperlake MAX_THREADS=64"). */
char *openblas_get_corename(void);
char *openblas_get_config(void);

const char *rl_blas_core(void)
{
    return openblas_get_corename();
}

const char *rl_blas_kernels(void)
{
    static char name[128];
    static const char lib[] = "OpenBLAS ";
    const char *cfg = openblas_get_config(), *core = rl_blas_core();
    /* at most 32 + 11 + 20 characters: a grid's record holds entries of 64 (program/reproduce/buildrec.h) */
    if (cfg && !strncmp(cfg, lib, sizeof lib - 1) && cfg[sizeof lib - 1] && cfg[sizeof lib - 1] != ' ') {
        const size_t n = strcspn(cfg + sizeof lib - 1, " ");
        snprintf(name, sizeof name, "%.32s, %s%.*s", core, lib, (int)(n < 20 ? n : 20), cfg + sizeof lib - 1);
    } else
        snprintf(name, sizeof name, "%.32s", core);
    return name;
}

const char *rl_blas_arch_choice(const char *core, int avx512, int avx2_fma)
{
    if (!core || strcmp(core, "Prescott") != 0)
        return NULL;
    return avx512 ? "SkylakeX" : avx2_fma ? "Haswell" : NULL;
}

const char *rl_blas_arch_wanted(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    const int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                       __builtin_cpu_supports("avx512vl");
    const int avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return rl_blas_arch_choice(rl_blas_core(), avx512, avx2_fma);
#else
    return NULL;
#endif
}

/* The address space mapped so far (/proc/self/statm's first field), or -1. */
static long long mapped_bytes(void)
{
    char buf[64];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return atoll(buf) * (long long)sysconf(_SC_PAGESIZE);
}

/* Run from the executable's .preinit_array, before any shared library's
 * initialiser: OpenBLAS's (gotoblas_init) maps its RL_BLAS_START_BYTES
 * buffer and, when the address-space limit refuses it, retries for ever.
 * Only system calls and snprintf: nothing of the program is set up yet. */
void rl_blas_room_preinit(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return;
    const long long now = mapped_bytes();
    if (now < 0 || (unsigned long long)now + RL_BLAS_START_BYTES <= (unsigned long long)r.rlim_cur)
        return;
    char line[320];
    int n = snprintf(line, sizeof line,
                     "routelab: the address-space limit (ulimit -v) of %llu MiB is too small: the "
                     "program maps %lld MiB and OpenBLAS needs %llu MiB more at start-up (at least "
                     "%llu MiB in all)\n",
                     (unsigned long long)r.rlim_cur >> 20, now >> 20,
                     (unsigned long long)RL_BLAS_START_BYTES >> 20,
                     ((unsigned long long)now + RL_BLAS_START_BYTES + ((1 << 20) - 1)) >> 20);
    if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
        n = 0;
    _exit(1);
}

rl_status rl_blas_room_check(int n, unsigned long long stack, rl_err *err)
{
    struct rlimit r;
    if (n < 1 || getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return RL_OK;
    if (stack == 0) {
        struct rlimit s;
        stack = getrlimit(RLIMIT_STACK, &s) == 0 && s.rlim_cur != RLIM_INFINITY ? s.rlim_cur
                                                                                : (unsigned long long)8 << 20;
    }
    const long long now = mapped_bytes();
    if (now < 0)
        return RL_OK;
    /* what the run adds: a buffer per thread, a stack per thread beyond main's */
    const unsigned long long need = (unsigned long long)n * RL_BLAS_BUFFER_BYTES + (unsigned long long)(n - 1) * stack;
    if ((unsigned long long)now + need <= (unsigned long long)r.rlim_cur)
        return RL_OK;
    return rl_fail(err, RL_EINTERNAL,
                   "the address-space limit (ulimit -v) of %llu MiB is too small for %d thread%s: the program "
                   "maps %lld MiB and OpenBLAS and OpenMP need %llu MiB more (at least %llu MiB in all%s)",
                   (unsigned long long)r.rlim_cur >> 20, n, n == 1 ? "" : "s", now >> 20, need >> 20,
                   ((unsigned long long)now + need + ((1 << 20) - 1)) >> 20, n > 1 ? "; fewer --threads need less" : "");
}

#define OMP_STACK_MAX ((unsigned long long)1 << 30)

rl_status rl_omp_stacksize(unsigned long long *bytes, rl_err *err)
{
    *bytes = 0;
    const char *v = getenv("OMP_STACKSIZE");
    if (!v)
        return RL_OK;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    unsigned shift = 10;
    if (*end) {
        const char *u = strchr("bBkKmMgG", *end);
        shift = u ? (unsigned)((u - "bBkKmMgG") / 2) * 10 : 99;
        end++;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == v || *end || !isdigit((unsigned char)v[0]) || errno || shift == 99)
        return rl_fail(err, RL_EINPUT, "OMP_STACKSIZE '%s' is not a size (a number with an optional B, K, M or G)", v);
    if (n == 0 || n > OMP_STACK_MAX >> shift)
        return rl_fail(err, RL_EINPUT, "OMP_STACKSIZE '%s' is out of range (1 byte to 1G per OpenMP thread)", v);
    *bytes = n << shift;
    return RL_OK;
}
