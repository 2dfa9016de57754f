/* fuzz_tokfile_nanogpt.c: rl_tokens_read on a ".bin" file as given: a
 * headerless nanoGPT stream of uint16 ids, or llm.c's when the bytes start
 * with its magic (the seeds hold both). */
#define FUZZ_SUFFIX ".bin"
#include "fuzz.h"
#include "../../base/core/tokfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    if (fuzz_write(data, size, path, sizeof path))
        return 0;
    rl_tokens t = { 0 };
    rl_err err;
    /* GPT-2's padded vocabulary: ids above it must be refused */
    if (rl_tokens_read(path, 50304, &t, &err) == RL_OK)
        free(t.tok);
    return 0;
}
