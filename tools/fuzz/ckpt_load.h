/* ckpt_load.h: the body both checkpoint targets share (fuzz_ckpt.c: raw
 * bytes; fuzz_ckpt_sum.c: the checksum made right first): load the bytes
 * as a checkpoint file, free the model when it loads. */
#ifndef FUZZ_CKPT_LOAD_H
#define FUZZ_CKPT_LOAD_H

#include "fuzz.h"
#include "../../model/ckpt.h"

static int fuzz_ckpt_load(const uint8_t *bytes, size_t size)
{
    char path[512];
    if (fuzz_write(bytes, size, path, sizeof path))
        return 0;
    rl_gpt *m = NULL;
    rl_ckpt_meta meta;
    rl_err err;
    if (rl_ckpt_load(path, 1, &m, &meta, &err) == RL_OK)
        rl_gpt_free(m);
    return 0;
}

#endif
