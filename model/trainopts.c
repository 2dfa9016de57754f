/* trainopts.c: the training options' one table (see trainopts.h). */
#include "trainopts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "scheme.h"
#include "train.h"

#define STR_(x) #x
#define STR(x) STR_(x)

rl_train_opts rl_train_opts_default(void)
{
    return (rl_train_opts){ .layers = 4, .width = 128, .heads = 4, .ctx = 128, .vocab = 256,
                            .dropout = 0, .rot_base = RL_ROT_BASE_DEFAULT, .pos = "rope", .mode = -1, .batch = 8, .accum = 1,
                            .steps = 0, .lr = "5e-4", .val_every = 100, .val_batches = 8,
                            .ckpt_every = 500, .log_every = 10, .keep_ckpt = NULL,
                            .seed = 42 };
}

/* The model's shape takes the model's own limits (config.h): the flags
 * cannot accept a shape the model refuses, nor refuse one it takes. */
int rl_train_opts_table(rl_train_opts *o, unsigned parts, rl_opt *tab)
{
    int n = 0;
    if (parts & RL_TRAIN_OPTS_RUN) {
        tab[n++] = (rl_opt)RL_OPT_INT_("layers", &o->layers, "decoder blocks", RL_GPT_LAYERS_MIN,
                                       RL_GPT_LAYERS_MAX);
        tab[n++] = (rl_opt)RL_OPT_INT_("width", &o->width, "model width", RL_GPT_WIDTH_MIN,
                                       RL_GPT_WIDTH_MAX);
        tab[n++] = (rl_opt)RL_OPT_INT_("heads", &o->heads, "attention heads", RL_GPT_HEADS_MIN,
                                       RL_GPT_HEADS_MAX);
        tab[n++] = (rl_opt)RL_OPT_INT_("ctx", &o->ctx, "training context T", RL_GPT_CTX_MIN,
                                       RL_GPT_CTX_MAX);
        tab[n++] = (rl_opt)RL_OPT_INT_("vocab", &o->vocab,
                                       "vocabulary (256 for the byte-level Brown corpus)",
                                       RL_GPT_VOCAB_MIN, RL_GPT_VOCAB_MAX);
        tab[n++] = (rl_opt)RL_OPT_DBL_("dropout", &o->dropout, "dropout probability", 0, 1,
                                       RL_LO | RL_HI_OPEN);
        tab[n++] = (rl_opt)RL_OPT_DBL_("rot-base", &o->rot_base,
                                       "base B of every rotation scheme's frequencies "
                                       "omega_p = B^(-2p/hd) (the study's: 10000)", 1, 0,
                                       RL_LO_OPEN);
    }
    if (parts & RL_TRAIN_OPTS_POS) {
        tab[n++] = (rl_opt)RL_OPT_STR_("pos", &o->pos, rl_pos_help);
        tab[n++] = (rl_opt)RL_OPT_CHOICE_("mode", &o->mode,
                                          "qk: rotate q, k; qkv: also v, inverse on each head's output",
                                          "qk|qkv");
    }
    if (parts & RL_TRAIN_OPTS_RUN) {
        tab[n++] = (rl_opt)RL_OPT_INT_("batch", &o->batch, "windows per micro-batch", RL_GPT_BATCH_MIN,
                                       RL_GPT_BATCH_MAX);
        tab[n++] = (rl_opt)RL_OPT_INT_("accum", &o->accum,
                                       "micro-batches per step (gradient accumulation)", 1, 1 << 20);
        tab[n++] = (rl_opt)RL_OPT_LONG_("steps", &o->steps,
                                        "optimizer steps (0: the sum of the --lr stages, else "
                                        STR(RL_LR_DEFAULT_STEPS) ")", 0, 1e12);
        tab[n++] = (rl_opt)RL_OPT_STR_("lr", &o->lr,
                                       "learning-rate schedule: LR | LR:STEPS,LR:STEPS,... | "
                                       "cosine:PEAK:WARMUP[:MIN]");
        tab[n++] = (rl_opt)RL_OPT_LONG_("val-every", &o->val_every, "validation loss every N steps",
                                        1, 1e12);
        tab[n++] = (rl_opt)RL_OPT_LONG_("val-batches", &o->val_batches,
                                        "validation batches (fixed windows)", 1, 1e6);
        tab[n++] = (rl_opt)RL_OPT_LONG_("ckpt-every", &o->ckpt_every,
                                        "checkpoint every N steps (and at the end)", 1, 1e12);
        /* the stages of a training trajectory (reproduce evaluates each kept
         * one beside the final model, docs/grids/vtraj-and-reruns.md#vtraj); in the RUN part, so
         * that a grid's config.txt names the stages its folder holds, and
         * left out of the arguments when NULL (rl_train_opts_argv): the
         * folders of grids without stages keep their config.txt */
        tab[n++] = (rl_opt)RL_OPT_STR_("keep-ckpt", &o->keep_ckpt,
                                       "keep the checkpoints of these steps as OUT/ckpt-STEP.bin "
                                       "(comma-separated, increasing; reproduce evaluates each)");
    }
    if (parts & RL_TRAIN_OPTS_LOG)
        tab[n++] = (rl_opt)RL_OPT_LONG_("log-every", &o->log_every,
                                        "plain log line every N steps (no terminal)", 1, 1e12);
    if (parts & RL_TRAIN_OPTS_RUN)
        tab[n++] = (rl_opt)RL_OPT_SEED_(&o->seed);
    return n;
}

int rl_train_opts_argv(const rl_train_opts *o, unsigned parts, char **argv)
{
    rl_train_opts copy = *o; /* the table points into its struct */
    rl_opt tab[RL_TRAIN_OPTS_MAX];
    int n = rl_train_opts_table(&copy, parts, tab), k = 0;
    for (int i = 0; i < n; i++) {
        if (tab[i].dest == &copy.rot_base && copy.rot_base == RL_ROT_BASE_DEFAULT)
            continue; /* train's default: the text written before the flag existed */
        char *v = rl_opt_value_text(&tab[i]);
        if (!v)
            continue;
        argv[k] = rl_xmalloc(strlen(tab[i].name) + 3);
        sprintf(argv[k++], "--%s", tab[i].name);
        argv[k++] = v;
    }
    return k;
}

rl_status rl_train_opts_steps(const rl_train_opts *o, long *steps, rl_err *err)
{
    rl_lr_schedule s;
    return rl_lr_plan(o->lr, o->steps, &s, steps, err);
}

rl_status rl_train_opts_kept(const rl_train_opts *o, long total, long *steps, int *n, rl_err *err)
{
    *n = 0;
    if (!o->keep_ckpt)
        return RL_OK;
    const char *s = o->keep_ckpt, *p = s;
    for (;;) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || !isdigit((unsigned char)*p) || errno || (*end && *end != ','))
            return rl_fail(err, RL_EINPUT, "--keep-ckpt '%s' is not a comma-separated list of steps", s);
        if (v < 1 || v > total)
            return rl_fail(err, RL_EINPUT, "--keep-ckpt '%s': step %ld is outside the run's steps 1 .. %ld", s, v,
                           total);
        if (*n && v <= steps[*n - 1])
            return rl_fail(err, RL_EINPUT, "--keep-ckpt '%s': the steps must increase (%ld after %ld)", s, v,
                           steps[*n - 1]);
        if (*n == RL_TRAIN_MAX_KEPT)
            return rl_fail(err, RL_EINPUT, "--keep-ckpt '%s' lists more than %d steps", s, RL_TRAIN_MAX_KEPT);
        steps[(*n)++] = v;
        if (!*end)
            return RL_OK;
        p = end + 1;
    }
}

void rl_train_kept_name(long step, char *buf, size_t n)
{
    snprintf(buf, n, "ckpt-%ld.bin", step);
}

rl_status rl_train_opts_config(const rl_train_opts *o, rl_gpt_config *cfg, rl_err *err)
{
    *cfg = (rl_gpt_config){ .layers = o->layers, .width = o->width, .heads = o->heads,
                            .ctx = o->ctx, .vocab = o->vocab, .dropout = (float)o->dropout,
                            .rot_base = o->rot_base };
    char why[512];
    if (rl_pos_parse(o->pos, o->mode, &cfg->pos, why, sizeof why))
        return rl_fail(err, RL_EINPUT, "%s", why);
    return RL_OK;
}

rl_status rl_train_opts_check_field(const char *flag, double v, rl_err *err)
{
    rl_train_opts o = rl_train_opts_default();
    rl_opt tab[RL_TRAIN_OPTS_MAX];
    const int n = rl_train_opts_table(&o, RL_TRAIN_OPTS_ALL, tab);
    for (int i = 0; i < n; i++)
        if (!strcmp(tab[i].name, flag))
            return rl_opt_check_value(&tab[i], v, err);
    return rl_fail(err, RL_EINTERNAL, "no training flag --%s", flag);
}
