/* config.c: a shape against the model's limits (config.h). */
#include "config.h"

#include "../base/core/opts.h"

rl_status rl_gpt_limits_check(const rl_gpt_config *c, int B, rl_err *err)
{
    const rl_opt lim[] = {
        RL_OPT_INT_("layers", NULL, NULL, RL_GPT_LAYERS_MIN, RL_GPT_LAYERS_MAX),
        RL_OPT_INT_("width", NULL, NULL, RL_GPT_WIDTH_MIN, RL_GPT_WIDTH_MAX),
        RL_OPT_INT_("heads", NULL, NULL, RL_GPT_HEADS_MIN, RL_GPT_HEADS_MAX),
        RL_OPT_INT_("ctx", NULL, NULL, RL_GPT_CTX_MIN, RL_GPT_CTX_MAX),
        RL_OPT_INT_("batch", NULL, NULL, RL_GPT_BATCH_MIN, RL_GPT_BATCH_MAX),
    };
    const double v[] = { c->layers, c->width, c->heads, c->ctx, B };
    const int n = B != 0 ? 5 : 4; /* B = 0: no training activations (eval, probe) */
    for (int i = 0; i < n; i++)
        RL_TRY(rl_opt_check_value(&lim[i], v[i], err));
    return RL_OK;
}
