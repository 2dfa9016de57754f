/* blas_arch.c: OpenBLAS's kernel set on virtual machines (blas_arch.h). */
#include "blas_arch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OpenBLAS's own report of the kernel set it loaded. */
char *openblas_get_corename(void);

const char *rl_blas_core(void)
{
    return openblas_get_corename();
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

void rl_blas_fix_arch(char **argv)
{
    if (getenv("OPENBLAS_CORETYPE"))
        return;
    const char *want = rl_blas_arch_wanted();
    if (!want || setenv("OPENBLAS_CORETYPE", want, 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* the exec failed: run on as we are, without the variable (a child
     * routelab would otherwise inherit a choice this process did not make) */
    unsetenv("OPENBLAS_CORETYPE");
}
