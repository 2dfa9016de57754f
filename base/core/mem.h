/* mem.h: checked size arithmetic and the memory a run may plan on.
 *
 * Sizes computed from flags or file headers go through rl_szmul/rl_szadd,
 * which keep a sticky overflow flag instead of wrapping, and a
 * configuration's total is compared with rl_mem_limit before anything is
 * allocated (a run that asks for more than the machine has is a bad input). */
#ifndef RL_CORE_MEM_H
#define RL_CORE_MEM_H

#include <stddef.h>

#include "err.h"

/* a * b and a + b; *over is set (never cleared) when the result wraps. */
static inline size_t rl_szmul(size_t a, size_t b, int *over)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r))
        *over = 1;
    return r;
}

static inline size_t rl_szadd(size_t a, size_t b, int *over)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r))
        *over = 1;
    return r;
}

/* Bytes a run may plan on: ROUTELAB_MEM_LIMIT (bytes, for tests) when set,
 * else the machine's physical memory, lowered to a cgroup v2 limit
 * (/sys/fs/cgroup/memory.max) when there is one.  Physical memory, not
 * MemAvailable: the same command on the same machine then passes or fails
 * whatever else runs at the moment.  RL_EINPUT for a malformed
 * ROUTELAB_MEM_LIMIT. */
rl_status rl_mem_limit(size_t *bytes, rl_err *err);

/* RL_EINPUT naming what and the bytes it needs when over is set (the size
 * does not fit in 64 bits) or need exceeds rl_mem_limit. */
rl_status rl_mem_check(const char *what, size_t need, int over, rl_err *err);

#endif
