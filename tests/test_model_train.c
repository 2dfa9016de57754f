/* test_model_train.c: the whole training step learns, schedules. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/train.h"
#include "test_model_util.h"

/* A small model memorizes a short text: the mean cross-entropy over
 * windows of the text falls below 0.1 nats (from ln 256 = 5.5). */
static void memorize(const char *pos)
{
    /* one thread: `make test` runs two test jobs on two cores, and spinning
     * OpenMP teams of two in each would oversubscribe them badly */
    omp_set_num_threads(1);
    /* few repeated substrings, so that little of the loss is the inherent
     * ambiguity of the first positions of a window */
    const char *text = "Sphinx of black quartz, judge my vow! Pack my box with five dozen liquor "
                       "jugs. How vexingly quick daft zebras jump; the five boxing wizards jump "
                       "quickly.";
    rl_tokens t = { malloc(strlen(text) * 2), (long)strlen(text) };
    for (long i = 0; i < t.n; i++)
        t.tok[i] = (unsigned char)text[i];
    rl_gpt_config cfg = { 2, 64, 4, 48, 256, 0.0f, tm_pos(pos) };
    rl_gpt *m = rl_gpt_alloc(&cfg, 8);
    rl_gpt_init(m, 42);
    rl_trainer *tr = rl_trainer_alloc(m, &t, 8, 1, 42);
    double loss = 0;
    for (long s = 0; s < 500; s++) {
        loss = rl_trainer_step(tr, s, s < 350 ? 3e-3 : 1e-3, NULL);
        cr_assert(isfinite(loss));
    }
    double val = rl_trainer_val_loss(tr, &t, 4);
    cr_log_info("%s: train loss %.4f, loss over fixed windows %.4f", pos, loss, val);
    cr_expect_lt(val, 0.1, "%s: loss %g after 500 steps", pos, val);
    rl_trainer_free(tr);
    rl_gpt_free(m);
    free(t.tok);
}

Test(model_train, memorizes_rope, .timeout = 120) { memorize("rope"); }
Test(model_train, memorizes_alibi, .timeout = 120) { memorize("alibi"); }

Test(model_train, lr_schedules)
{
    rl_lr_schedule s;
    char err[256];
    cr_assert_eq(rl_lr_parse("5e-4:100,2e-4:50,5e-5:50", &s, err, sizeof err), 0);
    cr_expect_eq(rl_lr_stage_total(&s), 200);
    cr_expect_eq(rl_lr_at(&s, 0, 200), 5e-4);
    cr_expect_eq(rl_lr_at(&s, 99, 200), 5e-4);
    cr_expect_eq(rl_lr_at(&s, 100, 200), 2e-4);
    cr_expect_eq(rl_lr_at(&s, 150, 200), 5e-5);
    cr_expect_eq(rl_lr_at(&s, 500, 200), 5e-5);
    cr_assert_eq(rl_lr_parse("cosine:1e-3:10:1e-4", &s, err, sizeof err), 0);
    cr_expect_float_eq(rl_lr_at(&s, 0, 110), 1e-4, 1e-12);   /* warm-up 1/10 */
    cr_expect_float_eq(rl_lr_at(&s, 9, 110), 1e-3, 1e-12);   /* peak */
    cr_expect_float_eq(rl_lr_at(&s, 10, 110), 1e-3, 1e-12);  /* cosine starts at peak */
    cr_expect_float_eq(rl_lr_at(&s, 109, 110), 1e-4, 1e-12); /* ends at min */
    cr_expect_eq(rl_lr_parse("3e-4", &s, err, sizeof err), 0);
    cr_expect_eq(rl_lr_at(&s, 12345, 20000), 3e-4);
    const char *bad[] = { "", "x", "1e-3:", "1e-3:0", "1e-3,2e-4", "-1:10", "cosine:1e-3", "1e-3:5,",
                          NULL };
    for (int i = 0; bad[i]; i++)
        cr_expect_eq(rl_lr_parse(bad[i], &s, err, sizeof err), -1, "'%s' accepted", bad[i]);
}
