/* shape.c: a configuration's checks and counts that read its scheme's
 * object (shape.h). */
#include "shape.h"

#include <math.h>
#include <stdio.h>

#include "scheme.h"

const char *rl_gpt_config_check(const rl_gpt_config *c, char *buf, size_t n)
{
    if (c->layers < RL_GPT_LAYERS_MIN || c->width < RL_GPT_WIDTH_MIN || c->heads < RL_GPT_HEADS_MIN ||
        c->ctx < RL_GPT_CTX_MIN || c->vocab < RL_GPT_VOCAB_MIN)
        snprintf(buf, n, "layers, width, heads, context and vocabulary must be positive "
                 "(got %d, %d, %d, %d, %d)", c->layers, c->width, c->heads, c->ctx, c->vocab);
    else if (c->width % c->heads)
        snprintf(buf, n, "width %d is not a multiple of heads %d", c->width, c->heads);
    else if (rl_scheme_check(c->pos, c->width / c->heads, buf, n))
        return buf;
    else if (!(c->dropout >= 0 && c->dropout < 1))
        snprintf(buf, n, "dropout %g is outside [0, 1)", c->dropout);
    else if (!(isfinite(c->rot_base) && c->rot_base > 1))
        snprintf(buf, n, "rotation base %g must be finite and greater than 1", c->rot_base);
    else if (c->vocab > RL_GPT_VOCAB_MAX)
        snprintf(buf, n, "vocabulary %d exceeds %d (tokens are uint16)", c->vocab, RL_GPT_VOCAB_MAX);
    else
        return NULL;
    return buf;
}

long rl_gpt_param_count(const rl_gpt_config *c)
{
    long C = c->width, V = c->vocab;
    long block = 2 * C + 3 * C * C + 3 * C + C * C + C + 2 * C + 4 * C * C + 4 * C + 4 * C * C + C;
    return V * C + c->layers * block + 2 * C + V * C + V + rl_pos_param_count(c);
}

/* The matmul weights a token meets: the decoder's, the head's, the scheme's. */
static double matmul_weights(const rl_gpt_config *c)
{
    const double C = c->width, L = c->layers;
    const rl_scheme *s = rl_scheme_of(c->pos);
    return L * 12.0 * C * C + (double)c->vocab * C + (s && s->matmul_weights ? s->matmul_weights(c) : 0);
}

/* The scheme's own logit multiply-adds per layer, head and window of T. */
static double logit_madds(const rl_gpt_config *c, long T)
{
    const rl_scheme *s = rl_scheme_of(c->pos);
    return s && s->logit_madds ? s->logit_madds(T, c->width / c->heads) : 0;
}

double rl_gpt_flops_per_token(const rl_gpt_config *c, int T)
{
    const double C = c->width, L = c->layers;
    /* the scheme's logits: 2 FLOPs a multiply-add, forward + a 3x backward */
    const double own = T > 0 ? 8.0 * L * c->heads * logit_madds(c, T) / T : 0;
    return 6.0 * matmul_weights(c) + 12.0 * L * C * T + own;
}

double rl_gpt_eval_flops(const rl_gpt_config *c, long L)
{
    const double C = c->width, n = (double)L, layers = c->layers;
    return 2.0 * matmul_weights(c) * n + 4.0 * layers * C * n * (n + 1) / 2 +
           2.0 * layers * c->heads * logit_madds(c, L);
}
