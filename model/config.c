/* config.c: configuration checks, scheme names and the counts derived from a shape. */
#include "config.h"

#include <stdio.h>
#include <string.h>

static const char *const ROT_NAMES[RL_ROT_KINDS] = { "none", "rope", "random", "pemb", "lf" };

/* Canonical names [alibi][rot][mode]: the study's spelling; fixed-rope is
 * RoPE with value transport. */
static const char *const NAMES[2][RL_ROT_KINDS][2] = {
    { { "none", "?" }, { "rope", "fixed-rope" }, { "random_qk", "random_qkv" },
      { "pemb_qk", "pemb_qkv" }, { "lf_qk", "lf_qkv" } },
    { { "alibi", "?" }, { "alibi+rope", "alibi+fixed-rope" },
      { "alibi+random_qk", "alibi+random_qkv" }, { "alibi+pemb_qk", "alibi+pemb_qkv" },
      { "alibi+lf_qk", "alibi+lf_qkv" } }
};

const char *rl_pos_name(rl_pos_config p)
{
    if (p.path)
        return "path";
    if (p.rot < 0 || p.rot >= RL_ROT_KINDS || (p.mode != RL_MODE_QK && p.mode != RL_MODE_QKV) ||
        (p.alibi != 0 && p.alibi != 1))
        return "?";
    return NAMES[p.alibi][p.rot][p.mode];
}

/* A rotation name without the alibi+ prefix: BASE, BASE_qk, BASE_qkv,
 * fixed-rope.  *fixed receives the mode the name fixes, or -1. */
static int parse_rotation(const char *s, int *rot, int *fixed)
{
    *fixed = -1;
    if (!strcmp(s, "fixed-rope")) {
        *rot = RL_ROT_ROPE;
        *fixed = RL_MODE_QKV;
        return 0;
    }
    for (int r = 0; r < RL_ROT_KINDS; r++) {
        size_t k = strlen(ROT_NAMES[r]);
        if (strncmp(s, ROT_NAMES[r], k))
            continue;
        if (!s[k] || !strcmp(s + k, "_qk") || !strcmp(s + k, "_qkv")) {
            *rot = r;
            if (s[k])
                *fixed = strcmp(s + k, "_qk") ? RL_MODE_QKV : RL_MODE_QK;
            return 0;
        }
    }
    return -1;
}

int rl_pos_parse(const char *name, int mode, rl_pos_config *out, char *err, size_t n)
{
    rl_pos_config p = { RL_ROT_NONE, RL_MODE_QK, 0, 0 };
    int fixed = -1;
    const char *s = name;
    if (!strcmp(name, "path")) { /* PaTH: its own transport of the scores, no rotation */
        if (mode == RL_MODE_QKV) {
            snprintf(err, n, "--pos path takes no --mode qkv: PaTH does not transform the values");
            return -1;
        }
        p.path = 1;
        *out = p;
        return 0;
    }
    if (!strcmp(name, "alibi")) {
        p.alibi = 1;
        s = "none";
    } else if (!strncmp(name, "alibi+", 6)) {
        p.alibi = 1;
        s = name + 6;
        if (!strcmp(s, "random")) /* the study's remedy: far-mass control plus transport */
            s = "random_qkv";
    }
    if (parse_rotation(s, &p.rot, &fixed)) {
        snprintf(err, n, "--pos %s: unknown position scheme (%s)", name, RL_POS_NAMES);
        return -1;
    }
    if (fixed >= 0 && mode >= 0 && mode != fixed) {
        snprintf(err, n, "--pos %s fixes mode %s; --mode %s contradicts it", name,
                 fixed ? "qkv" : "qk", mode ? "qkv" : "qk");
        return -1;
    }
    p.mode = fixed >= 0 ? fixed : mode >= 0 ? mode : RL_MODE_QK;
    if (p.mode == RL_MODE_QKV && p.rot == RL_ROT_NONE) {
        snprintf(err, n, "--pos %s with mode qkv: value transport needs a rotation "
                 "(rope, random, pemb or lf)", name);
        return -1;
    }
    *out = p;
    return 0;
}

const char *rl_gpt_config_check(const rl_gpt_config *c, char *buf, size_t n)
{
    const rl_pos_config *p = &c->pos;
    if (c->layers < 1 || c->width < 2 || c->heads < 1 || c->ctx < 1 || c->vocab < 2)
        snprintf(buf, n, "layers, width, heads, context and vocabulary must be positive "
                 "(got %d, %d, %d, %d, %d)", c->layers, c->width, c->heads, c->ctx, c->vocab);
    else if (c->width % c->heads)
        snprintf(buf, n, "width %d is not a multiple of heads %d", c->width, c->heads);
    else if (p->rot < 0 || p->rot >= RL_ROT_KINDS || (p->mode != RL_MODE_QK &&
             p->mode != RL_MODE_QKV) || (p->alibi != 0 && p->alibi != 1) ||
             (p->path != 0 && p->path != 1))
        snprintf(buf, n, "unknown position scheme (rotation %d, mode %d, alibi %d, path %d)",
                 p->rot, p->mode, p->alibi, p->path);
    else if (p->path && (p->rot != RL_ROT_NONE || p->mode != RL_MODE_QK || p->alibi))
        snprintf(buf, n, "PaTH attention takes no rotation, value transport or ALiBi bias");
    else if (p->rot != RL_ROT_NONE && (c->width / c->heads) % 2)
        snprintf(buf, n, "%s needs an even head dimension, got %d", rl_pos_name(*p),
                 c->width / c->heads);
    else if (p->mode == RL_MODE_QKV && p->rot == RL_ROT_NONE)
        snprintf(buf, n, "mode qkv (value transport) needs a rotation");
    else if (!(c->dropout >= 0 && c->dropout < 1))
        snprintf(buf, n, "dropout %g is outside [0, 1)", c->dropout);
    else if (c->vocab > 65536)
        snprintf(buf, n, "vocabulary %d exceeds 65536 (tokens are uint16)", c->vocab);
    else
        return NULL;
    return buf;
}

long rl_pos_param_count(const rl_gpt_config *c)
{
    const long C = c->width, V = c->vocab, P = c->width / c->heads / 2, HP = C / 2;
    if (c->pos.path) /* per layer: W_w (C x C) and its bias, u (H x C) and its bias */
        return c->layers * (C * C + C + (long)c->heads * C + c->heads);
    switch (c->pos.rot) {
    case RL_ROT_PEMB: return c->layers * V * P;
    case RL_ROT_LF: return C * C + C + HP * C + HP + 2 * HP;
    default: return 0;
    }
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
    if (c->pos.rot == RL_ROT_LF) /* the shared MLP runs once per layer */
        matmul_weights += L * (C * C + C * C / 2);
    if (c->pos.path) /* the projections to w and beta (the Householder products are not
                      * counted: model FLOPs are those of the standard decoder) */
        matmul_weights += L * (C * C + c->heads * C);
    return 6.0 * matmul_weights + 12.0 * L * C * T;
}
