/* scheme_rot.h: what the rotation schemes share (none, rope here; random,
 * pemb, lf in accum_rot.c; random_pos): the attention sublayer around a table of angles,
 *     atty = Rot_v^-1( Attn( Rot_qk(q), Rot_qk(k), Rot_v(v) ) )
 * (position.h: the rotation; Rot_v = Rot_qk in qkv mode, the identity in
 * qk mode), its backward, and the angle gradients of learned tables. */
#ifndef RL_MODEL_SCHEME_ROT_H
#define RL_MODEL_SCHEME_ROT_H

#include "position.h"
#include "scheme.h"

/* The first member of every rotation scheme's state: what the shared
 * attend and attend_backward read. */
typedef struct {
    rl_rotation tab; /* layer 0's table as the last prepare left it; cos NULL: none */
    long layer;      /* floats from one layer's table to the next (0: one for all) */
    float *dang;     /* learned angles: dL/dA of one layer, N x tab.st (else NULL) */
} rl_rot_state;

/* The shared hooks of scheme.h for a state beginning with rl_rot_state. */
rl_status rl_rot_attend(void *st, const rl_scheme_ctx *x, int l, float *qkv, float *att, float *atty,
                        const rl_attn_shape *s);
void rl_rot_attend_backward(void *st, const rl_scheme_ctx *x, int l, float *datty, float *dqkv,
                            float *datt, const float *att, const float *qkv, const float *atty,
                            const rl_attn_shape *s);

/* The angle layer l's table turns plane p of head h by at position t of
 * window b of the last forward (atan2 of the table's float cos, sin: within
 * ~1e-7 of the accumulated angle, reduced to [-pi, pi]); 0 for a scheme
 * that turns nothing.  st: a rotation scheme's state (not PaTH's). */
double rl_rot_angle(const void *st, int l, long b, long t, int h, int p);

#endif
