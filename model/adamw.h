/* adamw.h: AdamW over the one parameter buffer, global-norm clipping. */
#ifndef RL_MODEL_ADAMW_H
#define RL_MODEL_ADAMW_H

#include "gpt.h"

typedef struct {
    float beta1, beta2, eps, weight_decay;
} rl_adamw;

/* beta1 0.9, beta2 0.95, eps 1e-8, weight decay 0.1 (nanoGPT's GPT-2 values). */
rl_adamw rl_adamw_default(void);

/* Whether weight decay applies to a tensor of this kind: matrices and the
 * token embedding, not biases or LayerNorm parameters. */
int rl_tensor_decays(rl_tensor_kind kind);

/* L2 norm of g[0..n-1]: 64 fixed chunks summed in double, combined in
 * order, so the same for any thread count. */
double rl_grad_norm(const float *g, long n);

/* One AdamW step on every tensor with gradient gscale * grads (gscale < 1
 * clips); t = ++m->adam_t:
 *   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
 *   p -= lr (m/(1-b1^t) / (sqrt(v/(1-b2^t)) + eps) + wd p)   (decoupled decay) */
void rl_adamw_step(rl_gpt *m, const rl_adamw *o, float lr, float gscale);

#endif
