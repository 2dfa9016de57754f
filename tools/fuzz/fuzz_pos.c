/* fuzz_pos.c: the `--pos` names (rl_pos_parse) with and without --mode; an
 * accepted name must print back as a registered one (rl_pos_name). */
#include "fuzz.h"
#include "../../model/scheme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *s = fuzz_string(data + 1, size - 1);
    if (!s)
        return 0;
    rl_pos_config p;
    char why[512];
    if (rl_pos_parse(s, (int)(data[0] % 3) - 1, &p, why, sizeof why) == 0 &&
        strcmp(rl_pos_name(p), "?") == 0)
        abort();
    free(s);
    return 0;
}
