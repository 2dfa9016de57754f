/* config.h: the shape of a GPT-style decoder and its position scheme. */
#ifndef RL_MODEL_CONFIG_H
#define RL_MODEL_CONFIG_H

#include <stddef.h>

#include "../base/core/err.h"
#include "../theory/study.h"

/* The description of a position scheme, as the checkpoint stores it: the
 * scheme's code (rot, path: see the registry, scheme.h), a mode (qkv: the
 * values are rotated too and each head's output inverse-rotated: value
 * transport) and an optional ALiBi bias that the kernel adds to the scaled
 * logits.  The study's names (random_qkv, fixed-rope, ...) are
 * configurations of these fields.  The codes of the schemes written so
 * far; checkpoints store them, so a new scheme's code goes at the end
 * (before RL_ROT_KINDS) and no code is ever renumbered.  RL_ROT_PEMB is
 * pemb-shared (the first pemb written, whose checkpoints keep the code);
 * RL_ROT_PEMB_KEY is pemb, the study author's (docs/model/schemes.md#pemb-author): */
typedef enum { RL_ROT_NONE = 0, RL_ROT_ROPE, RL_ROT_RANDOM, RL_ROT_PEMB, RL_ROT_LF,
               RL_ROT_RANDOM_POS, RL_ROT_PEMB_KEY, RL_ROT_KINDS } rl_rot_kind;
typedef enum { RL_MODE_QK = 0, RL_MODE_QKV } rl_rot_mode;
/* The codes of the Householder-transport schemes (rot 0, path > 0): a
 * scheme of this family transports scores, not SO(2) blocks, so what reads
 * SO(2) blocks (farpred, the grid's rank rule) leaves every path > 0 out.
 * Stored in checkpoints: new codes at the end, none renumbered. */
typedef enum { RL_PATH_NONE = 0, RL_PATH_PATH, RL_PATH_RANDOM_HH, RL_PATH_KINDS } rl_path_kind;

typedef struct {
    int rot;   /* the scheme's code: rl_rot_kind for those below */
    int mode;  /* rl_rot_mode */
    int alibi; /* 1: ALiBi bias -m_h (i - j) on the logits */
    int path;  /* rl_path_kind (with rot 0): PaTH (scheme_path.c), random-hh
                * (scheme_random_hh.c); 0 for every other scheme */
} rl_pos_config;

static inline int rl_pos_equal(rl_pos_config a, rl_pos_config b)
{
    return a.rot == b.rot && a.mode == b.mode && a.alibi == b.alibi && a.path == b.path;
}

typedef struct {
    int layers;        /* decoder blocks */
    int width;         /* model width C */
    int heads;         /* attention heads H; head dim C/H */
    int ctx;           /* training context T */
    int vocab;         /* token vocabulary V */
    float dropout;     /* probability on the embedding and both residual branches */
    rl_pos_config pos; /* position scheme */
    double rot_base;   /* B of the SO(2) frequencies omega_p = B^(-2p/hd) of every
                          rotation scheme (rl_so2_freqs); finite, > 1 */
} rl_gpt_config;

/* `train --rot-base`'s default, the study's base; a checkpoint without the
 * field (format version 2) holds a model of this base. */
#define RL_ROT_BASE_DEFAULT RL_STUDY_BASE

/* The model's own limits, each defined here once: a shape is checked
 * against them (rl_gpt_limits_check, and shape.h's rl_gpt_config_check) and train's flags
 * take them as their ranges (trainopts.c).  Within them every count of the
 * model fits in a long (rl_gpt_bytes). */
#define RL_GPT_LAYERS_MIN 1
#define RL_GPT_LAYERS_MAX 1024
#define RL_GPT_WIDTH_MIN 2
#define RL_GPT_WIDTH_MAX 65536
#define RL_GPT_HEADS_MIN 1
#define RL_GPT_HEADS_MAX 4096
#define RL_GPT_CTX_MIN 1
#define RL_GPT_CTX_MAX (1 << 20)
#define RL_GPT_VOCAB_MIN 2
#define RL_GPT_VOCAB_MAX 65536 /* tokens are uint16 */
/* windows of training activations a model is made for (rl_gpt_bytes' B) */
#define RL_GPT_BATCH_MIN 1
#define RL_GPT_BATCH_MAX (1 << 20)

/* c's layers, width, heads and context, and B windows of activations (B = 0:
 * none, not checked), against the limits above: RL_EINPUT "layers 2000 is
 * outside the range [1, 1024] of --layers", named by the flag that sets each
 * (base/core/opts.h, rl_opt_check_value). */
rl_status rl_gpt_limits_check(const rl_gpt_config *c, int B, rl_err *err);

#endif
