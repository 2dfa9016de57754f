/* claim_fns.h: the run / report / free halves of every experiment, as the
 * claims table (claims.c) lists them. */
#ifndef RL_CLAIM_FNS_H
#define RL_CLAIM_FNS_H

#include "../base/core/err.h"
#include "../program/report/outdir.h"
#include "../program/report/report.h"
#include "ctx.h"

#define RL_CLAIM_FNS_(id)                                                               \
    rl_status rl_exp_##id##_run(const rl_exp_ctx *ctx, void **res, rl_err *err);       \
    void rl_exp_##id##_report(const void *res, const rl_outdir *out, rl_report *rep);   \
    void rl_exp_##id##_free(void *res)

RL_CLAIM_FNS_(mixing);
RL_CLAIM_FNS_(mixstay);
RL_CLAIM_FNS_(concentration);
RL_CLAIM_FNS_(scoregap);
RL_CLAIM_FNS_(farmass);
RL_CLAIM_FNS_(values);
RL_CLAIM_FNS_(stylized);

#endif
