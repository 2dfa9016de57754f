/* scheme_random_pos.c: random_pos, the drifting control of random (the
 * study author's): per-token steps
 *     theta ~ U(0, 2 omega_p) = omega_p (1 + U),  U ~ U(-1, 1),
 * i.i.d. over window, position, head and plane, independent per layer,
 * redrawn at every forward, omega_p = B^(-2p/hd) (B: rot_base).  Its
 * characteristic function chi(n) = e^{i n omega} sinc(n omega)
 * (RL_ANG_DRIFT, sampling/angle_law.c) has random's modulus sin(omega)/omega
 * per step, so the same spectral gap and mixing windows, but a mean drift of
 * omega_p per token, as RoPE's.  U comes from random's streams in random's
 * order (accum_rot.h), so the table is random's plus t omega_p up to
 * rounding, the difference being the drift alone.  No parameters; value
 * transport (qkv) as for every rotation.  Everything but the law is
 * random's: the closed-law hooks of accum_rot.c read it from step_law. */
#include "accum_rot.h"

const rl_scheme rl_scheme_random_pos = {
    .name = "random_pos",
    .names = { { "random_pos_qk", "random_pos_qkv" },
               { "alibi+random_pos_qk", "alibi+random_pos_qkv" } },
    .rot = RL_ROT_RANDOM_POS,
    .logits = "q.k / sqrt(hd), q and k turned by running sums of random angles drifting by omega_p",
    .state_bytes = sizeof(rl_acc_state),
    .layout = rl_acc_closed_layout,
    .prepare = rl_acc_closed_prepare,
    .attend = rl_rot_attend,
    .attend_backward = rl_rot_attend_backward,
    .alibi_qkv = 1, /* as random: alibi+random_pos is alibi+random_pos_qkv */
    .steps_kind = RL_STEPS_CLOSED,
    .step_law = RL_ANG_DRIFT,
    .step_lanes = rl_acc_head_lanes,
    .steps = rl_acc_closed_steps,
};
