/* fuzz_text.c: a text file as a data set (rl_data_load: its bytes as tokens
 * 0..255 through rl_tokens_read, split 90/10), as `train --data FILE.txt`
 * and `sample --text` read it.  The first byte picks the vocabulary (2..257)
 * so that the id check is exercised too. */
#define FUZZ_SUFFIX ".txt"
#include "fuzz.h"
#include "../../model/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[512];
    if (fuzz_write(data + 1, size - 1, path, sizeof path))
        return 0;
    rl_dataset d;
    rl_err err;
    if (rl_data_load(path, 2 + data[0], &d, &err) == RL_OK)
        rl_data_free(&d);
    return 0;
}
