/* shape.h: what a configuration costs, and whether its position scheme
 * takes it: the checks and counts that read both the shape (config.h) and
 * the scheme's object (scheme.h), above both so that neither includes the
 * other's module. */
#ifndef RL_MODEL_SHAPE_H
#define RL_MODEL_SHAPE_H

#include <stddef.h>

#include "config.h"

/* NULL when the configuration is usable, else a one-line reason in buf. */
const char *rl_gpt_config_check(const rl_gpt_config *c, char *buf, size_t n);

/* Parameter count of the whole model (embedding and scheme included:
 * rl_pos_param_count, scheme.h). */
long rl_gpt_param_count(const rl_gpt_config *c);

/* Model FLOPs per trained token, PaLM's accounting: 6 N for every matmul
 * weight (embedding lookup and pemb tables excluded; the scheme's matmul
 * weights, e.g. lf's MLP once per layer, included)
 * plus 12 L C T for the attention products QK^T and PV over the full (not
 * causally halved) T x T, plus the scheme's own logit arithmetic (PaTH's
 * Householder products: scheme.h's logit_madds, 2 FLOPs each, forward and
 * a 3x backward). */
double rl_gpt_flops_per_token(const rl_gpt_config *c, int T);

/* Forward FLOPs of one evaluated window of L tokens: 2 N L for the matmul
 * weights, 4 C L(L+1)/2 a layer for the causal QK^T and PV, and the
 * scheme's own logit arithmetic (2 FLOPs a multiply-add). */
double rl_gpt_eval_flops(const rl_gpt_config *c, long L);

#endif
