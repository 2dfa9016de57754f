/* fuzz_tokfile_llmc.c: rl_tokens_read on llm.c token files.  The harness
 * writes the magic itself (int32 20240520, little-endian) and the input
 * after it (version, count, the rest of the 256-int header, the ids), so
 * every input reaches the header's checks. */
#define FUZZ_SUFFIX ".bin"
#include "fuzz.h"
#include "../../base/core/tokfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size + 4);
    if (!buf)
        return 0;
    const uint32_t magic = RL_LLMC_MAGIC;
    const uint8_t le[4] = { magic & 255, magic >> 8 & 255, magic >> 16 & 255, magic >> 24 };
    memcpy(buf, le, 4);
    memcpy(buf + 4, data, size);
    char path[512];
    int bad = fuzz_write(buf, size + 4, path, sizeof path);
    free(buf);
    if (bad)
        return 0;
    rl_tokens t = { 0 };
    rl_err err;
    if (rl_tokens_read(path, 50304, &t, &err) == RL_OK)
        free(t.tok);
    return 0;
}
