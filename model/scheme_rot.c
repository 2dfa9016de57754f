/* scheme_rot.c: the attention sublayer of the rotation schemes (equations
 * in scheme_rot.h), and the two that keep no running angles: none, and
 * RoPE (angle t omega_p, a table of positions only). */
#include "scheme_rot.h"

#include <math.h>
#include <string.h>

/* Layer l's rotation, or NULL for none. */
static const rl_rotation *layer_table(const rl_rot_state *r, int l, rl_rotation *buf)
{
    if (!r->tab.cos)
        return NULL;
    *buf = r->tab;
    buf->cos += l * r->layer;
    buf->sin += l * r->layer;
    return buf;
}

/* Rotate q and k by qk (if any) and v by v (if any) of a qkv buffer, by dir. */
static void rotate_qkv(float *qkv, const rl_attn_shape *s, const rl_rotation *qk,
                       const rl_rotation *v, int dir)
{
    const long C = (long)s->H * s->hd;
    if (qk) {
        rl_rotate(qkv, 3 * C, s->B, s->T, s->H, s->hd, qk, 0, dir);
        rl_rotate(qkv + C, 3 * C, s->B, s->T, s->H, s->hd, qk, 0, dir);
    }
    if (v)
        rl_rotate(qkv + 2 * C, 3 * C, s->B, s->T, s->H, s->hd, v, 0, dir);
}

rl_status rl_rot_attend(void *st, const rl_scheme_ctx *x, int l, float *qkv, float *att, float *atty,
                        const rl_attn_shape *s)
{
    rl_rotation buf;
    const rl_rotation *qk = layer_table(st, l, &buf);
    const rl_rotation *v = x->cfg->pos.mode == RL_MODE_QKV ? qk : NULL;
    const long C = (long)s->H * s->hd;
    rotate_qkv(qkv, s, qk, v, +1);
    if (att)
        rl_attention_forward(atty, C, att, qkv, qkv + C, qkv + 2 * C, 3 * C, s);
    else
        RL_TRY(rl_attention_forward_streaming(atty, C, qkv, qkv + C, qkv + 2 * C, 3 * C, s));
    if (v)
        rl_rotate(atty, C, s->B, s->T, s->H, s->hd, v, 0, -1);
    return RL_OK;
}

/* Angle gradients into dang (the table's layout).  The output y = R(-A) x
 * of the inverse rotation: dL/dA = -(y1 dy2 - y2 dy1) = dy1 y2 - dy2 y1,
 * the rotation's angle gradient with y and dy exchanged. */
static void angle_grad_out(float *dang, const rl_rotation *tab, const float *y, const float *dy,
                           const rl_attn_shape *s)
{
    rl_rotate_angle_grad(dang, tab->sb, tab->st, tab->sh, dy, y, (long)s->H * s->hd, s->B, s->T,
                         s->H, s->hd, 0);
}

/* ... and of the rotated q, k (and v when values is set) of a qkv buffer
 * (row stride 3C) given their gradients. */
static void angle_grad_qkv(float *dang, const rl_rotation *tab, const float *qkv,
                           const float *dqkv, const rl_attn_shape *s, int values)
{
    const long C = (long)s->H * s->hd;
    for (int k = 0; k < (values ? 3 : 2); k++)
        rl_rotate_angle_grad(dang, tab->sb, tab->st, tab->sh, qkv + k * C, dqkv + k * C, 3 * C,
                             s->B, s->T, s->H, s->hd, 0);
}

/* Backward of atty = R_v^-1 Attn(R q, R k, R_v v): dL/dA (learned tables)
 * from the inverse rotation's output, then d(atty) turned by +A, the
 * kernel's backward, dL/dA from the rotated q, k (v), and the gradients
 * turned back by -A. */
void rl_rot_attend_backward(void *st, const rl_scheme_ctx *x, int l, float *datty, float *dqkv,
                            float *datt, const float *att, const float *qkv, const float *atty,
                            const rl_attn_shape *s)
{
    rl_rot_state *r = st;
    rl_rotation buf;
    const rl_rotation *qk = layer_table(r, l, &buf);
    const rl_rotation *v = x->cfg->pos.mode == RL_MODE_QKV ? qk : NULL;
    const long C = (long)s->H * s->hd;
    float *dang = qk ? r->dang : NULL;
    if (dang)
        memset(dang, 0, sizeof(float) * (size_t)s->B * s->T * qk->st);
    if (v && dang)
        angle_grad_out(dang, qk, atty, datty, s);
    if (v)
        rl_rotate(datty, C, s->B, s->T, s->H, s->hd, v, 0, +1);
    rl_attention_backward(dqkv, dqkv + C, dqkv + 2 * C, 3 * C, datt, datty, C, att, qkv, qkv + C,
                          qkv + 2 * C, 3 * C, s);
    if (dang)
        angle_grad_qkv(dang, qk, qkv, dqkv, s, v != NULL);
    rotate_qkv(dqkv, s, qk, v, -1);
}

/* ---- none: no rotation (positions only through ALiBi, if at all) ------ */

const rl_scheme rl_scheme_none = {
    .name = "none",
    .names = { { "none", NULL }, { "alibi", NULL } },
    .rot = RL_ROT_NONE,
    .logits = "q.k / sqrt(hd)",
    .state_bytes = sizeof(rl_rot_state),
    .attend = rl_rot_attend,
    .attend_backward = rl_rot_attend_backward,
};

/* ---- rope: angle(t, p) = t omega_p, one table for every layer --------- */

typedef struct {
    rl_rot_state r;
    float *cos, *sin;
} rope_state;

static void rope_layout(void *st, const rl_scheme_ctx *x, long B, long T, int eval, rl_arena *a)
{
    (void)B, (void)eval;
    rope_state *r = st;
    r->cos = rl_carve(a, (size_t)T * x->hd / 2);
    r->sin = rl_carve(a, (size_t)T * x->hd / 2);
    if (!a->base)
        return;
    rl_rope_table(r->cos, r->sin, 0, T, x->hd, x->cfg->rot_base);
    r->r.tab = rl_rope_rotation(r->cos, r->sin, x->hd);
}

const rl_scheme rl_scheme_rope = {
    .name = "rope",
    .names = { { "rope", "fixed-rope" }, { "alibi+rope", "alibi+fixed-rope" } },
    .rot = RL_ROT_ROPE,
    .logits = "q.k / sqrt(hd), q and k turned by t omega_p",
    .state_bytes = sizeof(rope_state),
    .layout = rope_layout,
    .attend = rl_rot_attend,
    .attend_backward = rl_rot_attend_backward,
    .steps_kind = RL_STEPS_CONSTANT, /* theta = omega_p at every step: |chi| = 1 */
    .step_law = RL_ANG_CONSTANT,
};

/* ---- the realised angles, for farpred's route (docs/theory/farpred.md#route-form) -------- */

double rl_rot_angle(const void *st, int l, long b, long t, int h, int p)
{
    const rl_rot_state *r = st;
    if (!r->tab.cos)
        return 0;
    const long o = l * r->layer + b * r->tab.sb + t * r->tab.st + h * r->tab.sh + p;
    return atan2((double)r->tab.sin[o], (double)r->tab.cos[o]);
}
