/* fuzz_ckpt_sum.c: rl_ckpt_load with the checksum made right, so that
 * mutated headers get past it to the configuration and field checks and to
 * the allocation they size.  The checksum (ckpt.h) is the last 8 bytes:
 * FNV-1a-64 of everything before them; the harness rewrites it.  Seeds are
 * real checkpoints of tiny models, so most mutations keep the size right. */
#define FUZZ_SUFFIX ".ckpt"
#include "ckpt_load.h"
#include "../../base/core/tokfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    uint8_t *buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, buf, size - 8);
    memcpy(buf + size - 8, &sum, 8);
    fuzz_ckpt_load(buf, size);
    free(buf);
    return 0;
}
