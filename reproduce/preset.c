/* preset.c: the three presets; NOTES.md §9.2 justifies each size. */
#include "preset.h"

#include <string.h>

static const rl_grid presets[] = {
    /* quick: what `make run` runs, under 15 minutes on 2 cores with the
     * theory report: three tiny models, evaluated to 32x their context */
    { .name = "quick", .variants = "rope,random_qkv,alibi", .layers = 3, .width = 96, .heads = 4, .ctx = 64,
      .vocab = 256, .batch = 16, .accum = 1, .dropout = 0.0, .steps = 0, .lr = "2e-3:600,8e-4:300,2e-4:300",
      .val_every = 150, .val_batches = 8, .ckpt_every = 300, .max_mult = 32, .eval_batches = 12,
      .theory = "quick", .probe = "rope,random_qkv", .probe_mult = 16, .data = "data/brown", .seed = 42 },
    /* cpu: every variant of the study plus none, path and alibi+random_qkv,
     * all on the same tokens and seed, evaluated to 128x, under 90 minutes;
     * the study's three constant stages (lr ratios 1 : 0.4 : 0.1, lengths
     * 2 : 1 : 1) at a small model's rate */
    { .name = "cpu",
      .variants = "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,path,"
                  "alibi+random_qkv",
      .layers = 4, .width = 128, .heads = 4, .ctx = 64, .vocab = 256, .batch = 16, .accum = 1, .dropout = 0.0,
      .steps = 0, .lr = "2e-3:1500,8e-4:750,2e-4:750", .val_every = 250, .val_batches = 8, .ckpt_every = 500,
      .max_mult = 128, .eval_batches = 8, .theory = "quick", .probe = "rope,random_qkv", .probe_mult = 32,
      .data = "data/brown", .seed = 42 },
    /* paper: the study's configuration, for a machine that can afford it
     * (a token file of GPT-2 ids, e.g. OpenWebText, given with --data) */
    { .name = "paper",
      .variants = "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,path,"
                  "alibi+random_qkv",
      .layers = 16, .width = 768, .heads = 8, .ctx = 512, .vocab = 50257, .batch = 32, .accum = 1,
      .dropout = 0.1, .steps = 0, .lr = "5e-4:100000,2e-4:50000,5e-5:50000", .val_every = 1000,
      .val_batches = 20, .ckpt_every = 2000, .max_mult = 128, .eval_batches = 20, .theory = "full",
      .probe = "rope,random_qkv", .probe_mult = 16, .data = NULL, .seed = 42 },
};

const rl_grid *rl_grid_preset(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (!strcmp(presets[i].name, name))
            return &presets[i];
    return NULL;
}
