/* preset.c: the three presets; NOTES.md (section 8) justifies each size. */
#include "preset.h"

#include <string.h>

static const rl_grid presets[] = {
    /* quick: what `make run` runs, under 15 minutes on 2 cores with the
     * theory report: three tiny models, evaluated to 32x their context */
    { "quick", "rope,random_qkv,alibi", 3, 96, 4, 64, 256, 16, 1, 0.0, 0, "2e-3:900,1e-3:300,2.5e-4:150",
      150, 8, 300, 32, 12, "quick", "rope,random_qkv", 16, "data/brown", 42 },
    /* cpu: every variant of the study plus none, path and alibi+random_qkv,
     * all on the same tokens and seed, evaluated to 128x, under 90 minutes */
    { "cpu",
      "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,path,alibi+random_qkv", 4,
      128, 4, 64, 256, 16, 1, 0.0, 0, "2e-3:1200,1e-3:500,2.5e-4:300", 200, 8, 500, 128, 8, "quick",
      "rope,random_qkv", 32, "data/brown", 42 },
    /* paper: the study's configuration, for a machine that can afford it */
    { "paper",
      "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,path,alibi+random_qkv", 16,
      768, 8, 512, 50257, 32, 1, 0.1, 0, "5e-4:100000,2e-4:50000,5e-5:50000", 1000, 20, 2000, 128, 20, "full",
      "rope,random_qkv", 16, NULL, 42 },
};

const rl_grid *rl_grid_preset(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (!strcmp(presets[i].name, name))
            return &presets[i];
    return NULL;
}
