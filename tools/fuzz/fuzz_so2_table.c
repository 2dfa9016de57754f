/* fuzz_so2_table.c: rl_so2_table_load, the token-so2 angle table (text, one
 * row of d/2 angles per token).  The first byte picks d (2..64, even). */
#define FUZZ_SUFFIX ".txt"
#include "fuzz.h"
#include "../../sampling/so2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[512];
    if (fuzz_write(data + 1, size - 1, path, sizeof path))
        return 0;
    double *table = NULL;
    int vocab = 0;
    rl_err err;
    if (rl_so2_table_load(path, 2 * (1 + data[0] % 32), &table, &vocab, &err) == RL_OK)
        free(table);
    return 0;
}
