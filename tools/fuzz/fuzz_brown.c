/* fuzz_brown.c: the corpus reader's parser, rl_brown_detag, on one tagged
 * document.  Its contract (brown.h) is an output of at most n + 1 bytes for
 * n of input; the buffer is exactly that, so AddressSanitizer reports any
 * write past it.  (The archive around the documents is unpacked by tar(1)
 * in rl_brown_build, a child process, not fuzzed here.) */
#include "fuzz.h"
#include "../../model/brown.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *out = malloc(size + 1);
    if (!out)
        return 0;
    size_t n = rl_brown_detag((const char *)data, size, out);
    if (n > size + 1)
        abort();
    free(out);
    return 0;
}
