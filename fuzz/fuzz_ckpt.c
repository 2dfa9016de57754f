/* fuzz_ckpt.c: rl_ckpt_load on raw bytes (the magic, version, size and
 * checksum checks; most inputs stop at one of them). */
#define FUZZ_SUFFIX ".ckpt"
#include "fuzz.h"
#include "../model/ckpt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    if (fuzz_write(data, size, path, sizeof path))
        return 0;
    rl_gpt *m = NULL;
    rl_ckpt_meta meta;
    rl_err err;
    if (rl_ckpt_load(path, 1, &m, &meta, &err) == RL_OK)
        rl_gpt_free(m);
    return 0;
}
