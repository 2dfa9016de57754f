/* config.h: the shape of a GPT-style decoder and its position scheme. */
#ifndef RL_MODEL_CONFIG_H
#define RL_MODEL_CONFIG_H

#include <stddef.h>

/* Position schemes.  Rotations (rope, and the accumulated schemes that come
 * later) are transforms of q and k around the one attention kernel; alibi is a
 * per-head slope the kernel itself adds to the scaled logits. */
typedef enum { RL_POS_NONE = 0, RL_POS_ROPE, RL_POS_ALIBI } rl_pos_kind;
#define RL_POS_CHOICES "none|rope|alibi"

typedef struct {
    int layers;    /* decoder blocks */
    int width;     /* model width C */
    int heads;     /* attention heads H; head dim C/H */
    int ctx;       /* training context T */
    int vocab;     /* token vocabulary V */
    float dropout; /* probability on the embedding and both residual branches */
    int pos;       /* rl_pos_kind */
} rl_gpt_config;

const char *rl_pos_name(int pos);

/* NULL when the configuration is usable, else a one-line reason in buf. */
const char *rl_gpt_config_check(const rl_gpt_config *c, char *buf, size_t n);

/* Parameter count of the whole model (embedding included). */
long rl_gpt_param_count(const rl_gpt_config *c);

/* Model FLOPs per trained token, PaLM's accounting: 6 N for every matmul
 * weight (embedding lookup excluded) plus 12 L C T for the attention
 * products QK^T and PV over the full (not causally halved) T x T. */
double rl_gpt_flops_per_token(const rl_gpt_config *c, int T);

#endif
