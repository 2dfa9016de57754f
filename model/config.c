/* config.c: configuration checks and the counts derived from a shape (the
 * scheme's share comes from its object, scheme.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "scheme.h"

const char *rl_gpt_config_check(const rl_gpt_config *c, char *buf, size_t n)
{
    if (c->layers < 1 || c->width < 2 || c->heads < 1 || c->ctx < 1 || c->vocab < 2)
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
    else if (c->vocab > 65536)
        snprintf(buf, n, "vocabulary %d exceeds 65536 (tokens are uint16)", c->vocab);
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

double rl_gpt_flops_per_token(const rl_gpt_config *c, int T)
{
    double C = c->width, L = c->layers;
    double matmul_weights = L * 12.0 * C * C + (double)c->vocab * C;
    const rl_scheme *s = rl_scheme_of(c->pos);
    if (s && s->matmul_weights)
        matmul_weights += s->matmul_weights(c);
    return 6.0 * matmul_weights + 12.0 * L * C * T;
}
