/* mem.c: the memory a run may plan on (see mem.h). */
#include "mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

rl_status rl_mem_limit(size_t *bytes, rl_err *err)
{
    const char *env = getenv("ROUTELAB_MEM_LIMIT");
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (end == env || *end || errno || *env == '-' || v == 0)
            return rl_fail(err, RL_EINPUT, "ROUTELAB_MEM_LIMIT '%s' is not a positive byte count",
                           env);
        *bytes = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
        return RL_OK;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    size_t phys = SIZE_MAX;
    if (pages > 0 && psize > 0 &&
        __builtin_mul_overflow((size_t)pages, (size_t)psize, &phys))
        phys = SIZE_MAX;
    FILE *fp = fopen("/sys/fs/cgroup/memory.max", "r");
    if (fp) {
        unsigned long long cg;
        if (fscanf(fp, "%llu", &cg) == 1 && cg > 0 && cg < phys) /* "max": no limit */
            phys = (size_t)cg;
        fclose(fp);
    }
    *bytes = phys;
    return RL_OK;
}

rl_status rl_mem_check(const char *what, size_t need, int over, rl_err *err)
{
    if (over)
        return rl_fail(err, RL_EINPUT, "%s needs more than 2^64 bytes", what);
    size_t have;
    RL_TRY(rl_mem_limit(&have, err));
    if (need > have)
        return rl_fail(err, RL_EINPUT,
                       "%s needs %zu bytes (%.1f GiB), more than the %zu bytes (%.1f GiB) of "
                       "this machine", what, need, need / 1073741824.0, have,
                       have / 1073741824.0);
    return RL_OK;
}
