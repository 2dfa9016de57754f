/* fuzz_lr.c: the `--lr` schedule (rl_lr_plan: rl_lr_parse and the run's
 * length), then rates at the steps where the schedule changes, as training
 * asks for them.  The first byte picks --steps (0: from the schedule). */
#include "fuzz.h"
#include <math.h>

#include "../../model/train.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const long steps_of[4] = { 0, 1, 1000, 1000000000000L };
    char *s = fuzz_string(data + 1, size - 1);
    if (!s)
        return 0;
    rl_lr_schedule sch;
    long total;
    rl_err err;
    if (rl_lr_plan(s, steps_of[data[0] % 4], &sch, &total, &err) == RL_OK) {
        const long at[] = { 0, 1, sch.warmup - 1, sch.warmup, sch.warmup + 1, total / 2, total - 2,
                            total - 1 };
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            if (at[i] >= 0 && at[i] < total) {
                double r = rl_lr_at(&sch, at[i], total);
                if (!(r >= 0) || !isfinite(r))
                    abort(); /* an accepted schedule gives finite, non-negative rates */
            }
    }
    free(s);
    return 0;
}
