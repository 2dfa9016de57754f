/* test_model_train.c: the whole training step learns, schedules. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/opts.h"
#include "../model/train.h"
#include "../model/trainopts.h"
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
    rl_tokens t = { malloc(strlen(text) * 2), (long)strlen(text), { 0, 0 } };
    for (long i = 0; i < t.n; i++)
        t.tok[i] = (unsigned char)text[i];
    rl_gpt_config cfg = { 2, 64, 4, 48, 256, 0.0f, tm_pos(pos), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 8);
    rl_gpt_init(m, 42);
    rl_trainer *tr;
    cr_assert_eq(rl_trainer_alloc(m, &t, &t, 8, 1, 42, &tr, NULL), RL_OK);
    double loss = 0;
    for (long s = 0; s < 500; s++) {
        cr_assert_eq(rl_trainer_step(tr, s, s < 350 ? 3e-3 : 1e-3, &loss, NULL, NULL), RL_OK);
        cr_assert(isfinite(loss));
    }
    double val;
    cr_assert_eq(rl_trainer_val_loss(tr, 4, &val, NULL), RL_OK);
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
    rl_err err;
    cr_assert_eq(rl_lr_parse("5e-4:100,2e-4:50,5e-5:50", &s, &err), RL_OK);
    cr_expect_eq(rl_lr_stage_total(&s), 200);
    cr_expect_eq(rl_lr_at(&s, 0, 200), 5e-4);
    cr_expect_eq(rl_lr_at(&s, 99, 200), 5e-4);
    cr_expect_eq(rl_lr_at(&s, 100, 200), 2e-4);
    cr_expect_eq(rl_lr_at(&s, 150, 200), 5e-5);
    cr_expect_eq(rl_lr_at(&s, 500, 200), 5e-5);
    cr_assert_eq(rl_lr_parse("cosine:1e-3:10:1e-4", &s, &err), RL_OK);
    cr_expect_float_eq(rl_lr_at(&s, 0, 110), 1e-4, 1e-12);   /* warm-up 1/10 */
    cr_expect_float_eq(rl_lr_at(&s, 9, 110), 1e-3, 1e-12);   /* peak */
    cr_expect_float_eq(rl_lr_at(&s, 10, 110), 1e-3, 1e-12);  /* cosine starts at peak */
    cr_expect_float_eq(rl_lr_at(&s, 109, 110), 1e-4, 1e-12); /* ends at min */
    cr_expect_eq(rl_lr_parse("3e-4", &s, &err), RL_OK);
    cr_expect_eq(rl_lr_at(&s, 12345, 20000), 3e-4);
    const char *bad[] = { "", "x", "1e-3:", "1e-3:0", "1e-3,2e-4", "-1:10", "cosine:1e-3", "1e-3:5,",
                          NULL };
    for (int i = 0; bad[i]; i++)
        cr_expect_eq(rl_lr_parse(bad[i], &s, &err), RL_EINPUT, "'%s' accepted", bad[i]);
}

/* The one rule for a run's length, every schedule form with and without
 * --steps: --steps when given, else the stages' sum, else 1000 (the grid
 * once counted the numbers after each ':', giving cosine:1e-3:100 101
 * steps where train ran 1000). */
Test(model_train, run_length_of_every_schedule_form)
{
    const struct {
        const char *lr;
        long steps, want;
    } c[] = {
        { "5e-4", 0, RL_LR_DEFAULT_STEPS },
        { "5e-4", 7, 7 },
        { "1e-3:10,5e-4:20", 0, 30 },
        { "1e-3:10,5e-4:20", 7, 7 },
        { "1e-3:10,5e-4:20", 45, 45 },
        { "cosine:1e-3:100", 0, RL_LR_DEFAULT_STEPS },
        { "cosine:1e-3:100", 150, 150 },
        { "cosine:1e-3:100:1e-5", 0, RL_LR_DEFAULT_STEPS },
        { "cosine:1e-3:2:1e-5", 9, 9 },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        rl_train_opts o = rl_train_opts_default();
        o.lr = c[i].lr;
        o.steps = c[i].steps;
        long n = -1;
        rl_err err;
        cr_expect_eq(rl_train_opts_steps(&o, &n, &err), RL_OK, "%s: %s", c[i].lr, err.msg);
        cr_expect_eq(n, c[i].want, "--lr %s --steps %ld: %ld steps, not %ld", c[i].lr, c[i].steps, n,
                     c[i].want);
    }
    /* a warm-up must fit in the run; a bad schedule is a bad input */
    rl_lr_schedule s;
    long n;
    rl_err err;
    cr_expect_eq(rl_lr_plan("cosine:1e-3:10", 10, &s, &n, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "warm-up") != NULL, "%s", err.msg);
    cr_expect_eq(rl_lr_plan("cosine:1e-3:10", 11, &s, &n, &err), RL_OK);
    cr_expect_eq(rl_lr_plan("1e-3:", 0, &s, &n, &err), RL_EINPUT);
}

/* The flags rl_train_opts_argv writes parse back, through the same table,
 * into the same options (what the grid relies on to hand a model to
 * train); the table holds each part's flags once. */
/* The model's shape flags take the model's own limits (model/config.h): at
 * each end the flag table and the model agree, with the same line. */
Test(model_train, shape_flags_take_the_models_limits)
{
    const struct {
        const char *flag;
        long lo, hi;
    } lim[] = { { "layers", RL_GPT_LAYERS_MIN, RL_GPT_LAYERS_MAX }, { "width", RL_GPT_WIDTH_MIN, RL_GPT_WIDTH_MAX },
                { "heads", RL_GPT_HEADS_MIN, RL_GPT_HEADS_MAX },    { "ctx", RL_GPT_CTX_MIN, RL_GPT_CTX_MAX },
                { "vocab", RL_GPT_VOCAB_MIN, RL_GPT_VOCAB_MAX },    { "batch", RL_GPT_BATCH_MIN, RL_GPT_BATCH_MAX } };
    rl_train_opts o = rl_train_opts_default();
    rl_opt tab[RL_TRAIN_OPTS_MAX];
    const int n = rl_train_opts_table(&o, RL_TRAIN_OPTS_ALL, tab);
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++) {
        int found = 0;
        for (int k = 0; k < n; k++)
            if (!strcmp(tab[k].name, lim[i].flag)) {
                found = 1;
                cr_expect(tab[k].lo == lim[i].lo && tab[k].hi == lim[i].hi, "--%s: [%g, %g], the model's [%ld, %ld]",
                          lim[i].flag, tab[k].lo, tab[k].hi, lim[i].lo, lim[i].hi);
            }
        cr_expect(found, "no --%s", lim[i].flag);
    }
    /* beyond each end the model refuses what the flag refuses, in its words */
    const rl_gpt_config ok = { .layers = 2, .width = 16, .heads = 2, .ctx = 8, .vocab = 256, .rot_base = 1e4 };
    for (int i = 0; i < 4; i++) /* layers, width, heads, ctx: the fields rl_gpt_limits_check reads */
        for (int end = 0; end < 2; end++) {
            rl_gpt_config c = ok;
            const long v = end ? lim[i].hi + 1 : lim[i].lo - 1;
            int *field[] = { &c.layers, &c.width, &c.heads, &c.ctx };
            *field[i] = (int)v;
            rl_err a = { RL_OK, "" }, b = { RL_OK, "" };
            cr_expect_eq(rl_gpt_limits_check(&c, 4, &a), RL_EINPUT, "--%s %ld", lim[i].flag, v);
            cr_expect_eq(rl_train_opts_check_field(lim[i].flag, (double)v, &b), RL_EINPUT);
            cr_expect_str_eq(a.msg, b.msg);
        }
    rl_err a = { RL_OK, "" }, b = { RL_OK, "" };
    cr_expect_eq(rl_gpt_limits_check(&ok, RL_GPT_BATCH_MAX + 1, &a), RL_EINPUT);
    cr_expect_eq(rl_train_opts_check_field("batch", RL_GPT_BATCH_MAX + 1.0, &b), RL_EINPUT);
    cr_expect_str_eq(a.msg, b.msg);
    cr_expect_eq(rl_gpt_limits_check(&ok, 0, &a), RL_OK, "B = 0: no activations, nothing to check");
}

Test(model_train, options_round_trip_through_the_table)
{
    rl_train_opts a = rl_train_opts_default();
    a.layers = 3, a.width = 96, a.ctx = 64, a.dropout = 0.1, a.pos = "random_qkv", a.mode = 1;
    a.batch = 16, a.steps = 77, a.lr = "cosine:1e-3:5:1e-5", a.val_every = 150, a.log_every = 3;
    a.seed = 1234567890123L, a.rot_base = 1260.25, a.keep_ckpt = "10,20";
    char *v[2 * RL_TRAIN_OPTS_MAX + 1];
    v[0] = "train";
    int n = rl_train_opts_argv(&a, RL_TRAIN_OPTS_ALL, v + 1);
    rl_train_opts b = rl_train_opts_default();
    rl_opt tab[RL_TRAIN_OPTS_MAX + 1];
    int k = rl_train_opts_table(&b, RL_TRAIN_OPTS_ALL, tab);
    cr_assert_leq(k, RL_TRAIN_OPTS_MAX);
    cr_expect_eq(n, 2 * k, "every flag written once");
    tab[k] = (rl_opt)RL_OPT_END_;
    rl_opts_parse("train", "", "", tab, n + 1, v, NULL, 0);
    cr_expect(b.layers == a.layers && b.width == a.width && b.heads == a.heads && b.ctx == a.ctx &&
              b.vocab == a.vocab && b.dropout == a.dropout && b.rot_base == a.rot_base);
    cr_expect_str_eq(b.pos, a.pos);
    cr_expect_str_eq(b.lr, a.lr);
    cr_expect_str_eq(b.keep_ckpt, a.keep_ckpt);
    cr_expect(b.mode == a.mode && b.batch == a.batch && b.accum == a.accum && b.steps == a.steps &&
              b.val_every == a.val_every && b.val_batches == a.val_batches &&
              b.ckpt_every == a.ckpt_every && b.log_every == a.log_every && b.seed == a.seed);
    for (int i = 1; i <= n; i++)
        free(v[i]);
    /* the grid's part: no --pos, --mode or --log-every; the base, which
     * determines the model, is passed on to train */
    n = rl_train_opts_argv(&a, RL_TRAIN_OPTS_RUN, v);
    int base = 0;
    for (int i = 0; i < n; i++) {
        cr_expect(strcmp(v[i], "--pos") && strcmp(v[i], "--mode") && strcmp(v[i], "--log-every"),
                  "%s in the run part", v[i]);
        base += !strcmp(v[i], "--rot-base") && i + 1 < n && !strcmp(v[i + 1], "1260.25");
    }
    cr_expect_eq(base, 1, "--rot-base 1260.25 not handed on");
    for (int i = 0; i < n; i++)
        free(v[i]);
    /* at train's default the base is left out, and so are no kept
     * checkpoints: the text a grid folder trained before either flag
     * existed holds in its config.txt */
    a.rot_base = RL_ROT_BASE_DEFAULT;
    a.keep_ckpt = NULL;
    n = rl_train_opts_argv(&a, RL_TRAIN_OPTS_RUN, v);
    for (int i = 0; i < n; i++) {
        cr_expect(strcmp(v[i], "--rot-base"), "--rot-base at its default written");
        cr_expect(strcmp(v[i], "--keep-ckpt"), "--keep-ckpt without steps written");
        free(v[i]);
    }
}

/* A stream shorter than context + 1 tokens holds no window: the trainer
 * refuses it with a status and one line, and allocates nothing. */
Test(model_train, short_streams_are_a_bad_input)
{
    rl_gpt_config cfg = { 1, 16, 2, 8, 256, 0.0f, tm_pos("rope"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 2);
    uint16_t tok[9] = { 0 };
    rl_tokens ok = { tok, 9, { 0, 0 } }, shrt = { tok, 8, { 0, 0 } };
    rl_trainer *tr = (rl_trainer *)1;
    rl_err err;
    cr_expect_eq(rl_trainer_alloc(m, &shrt, &ok, 2, 1, 1, &tr, &err), RL_EINPUT);
    cr_expect(tr == NULL && strstr(err.msg, "training stream has 8 tokens"), "%s", err.msg);
    cr_expect_eq(rl_trainer_alloc(m, &ok, &shrt, 2, 1, 1, &tr, &err), RL_EINPUT);
    cr_expect(tr == NULL && strstr(err.msg, "validation stream has 8 tokens"), "%s", err.msg);
    cr_assert_eq(rl_trainer_alloc(m, &ok, &ok, 2, 1, 1, &tr, &err), RL_OK);
    rl_trainer_free(tr);
    rl_gpt_free(m);
}
