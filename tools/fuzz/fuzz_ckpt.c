/* fuzz_ckpt.c: rl_ckpt_load on raw bytes (the magic, version, size and
 * checksum checks; most inputs stop at one of them). */
#define FUZZ_SUFFIX ".ckpt"
#include "ckpt_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_ckpt_load(data, size);
}
