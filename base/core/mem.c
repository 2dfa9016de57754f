/* mem.c: the memory a run may plan on (see mem.h). */
#include "mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

/* The address space this process may still map under its RLIMIT_AS
 * (`ulimit -v`): the limit less what is mapped now (/proc/self/statm's
 * first field, in pages); SIZE_MAX without a limit.  An allocation past it
 * fails whatever the machine has ("out of memory" once ended
 * a Python interpreter that the check had let through). */
static size_t address_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return SIZE_MAX;
    unsigned long long pages = 0;
    FILE *fp = fopen("/proc/self/statm", "r");
    if (fp) {
        if (fscanf(fp, "%llu", &pages) != 1)
            pages = 0;
        fclose(fp);
    }
    const unsigned long long used = pages * (unsigned long long)sysconf(_SC_PAGE_SIZE);
    return rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
}

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
    /* a ROUTELAB_MEM_LIMIT stands for the machine; the address-space limit
     * is the process's own and binds whatever the machine has */
    const size_t room = address_room();
    if (need > room)
        return rl_fail(err, RL_EINPUT,
                       "%s needs %zu bytes (%.1f GiB), more than the %zu bytes (%.1f GiB) this process may "
                       "still map (its address-space limit, ulimit -v)", what, need, need / 1073741824.0, room,
                       room / 1073741824.0);
    return RL_OK;
}
