/* bench_prune.c: the pruned ALiBi evaluation against the exact one, on a
 * trained checkpoint (a random model's logits are far smaller than a
 * trained one's, so it would prune more than any real model). */
#include "bench_prune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../model/ckpt.h"
#include "../../model/data.h"
#include "../../model/gpt.h"
#include "peak.h"

typedef struct {
    double sec, loss; /* best wall seconds of the rounds; mean loss of the window */
    rl_attn_prune p;  /* of the last round */
} prune_run;

static prune_run run_at(const rl_gpt *m, rl_gpt_eval *e, const uint16_t *tok, long L, double eps, int rounds)
{
    prune_run r = { INFINITY, 0, { 0, 0, 0, 0 } };
    rl_gpt_eval_prune_eps(e, eps);
    for (int k = 0; k < rounds; k++) {
        rl_gpt_eval_prune_take(e);
        const double t0 = rl_bench_now();
        r.loss = rl_gpt_eval_window(m, e, tok, L, 1) / (double)L;
        const double t = rl_bench_now() - t0;
        r.sec = t < r.sec ? t : r.sec;
        r.p = rl_gpt_eval_prune_take(e);
    }
    return r;
}

rl_status rl_bench_prune(const char *ckpt, const char *data, long L, double eps, int rounds, rl_err *err)
{
    rl_gpt *m;
    rl_ckpt_meta meta;
    rl_dataset ds;
    RL_TRY(rl_ckpt_open_eval("bench", ckpt, data, &m, &meta, &ds, err));
    rl_status st = RL_OK;
    rl_gpt_eval *e = NULL;
    if (!rl_gpt_alibi_slopes(m))
        st = rl_fail(err, RL_EINPUT, "%s (%s) has no distance bias: nothing to prune", ckpt, rl_pos_name(m->cfg.pos));
    else if (ds.val.n < L + 1)
        st = rl_fail(err, RL_EINPUT, "%s's validation stream has %ld tokens, fewer than %ld + 1", data, ds.val.n, L);
    else if (!(e = rl_gpt_eval_alloc(m, L)))
        st = rl_fail(err, RL_ENOMEM, "no memory for the evaluation workspace of %ld tokens", L);
    if (st == RL_OK) {
        const prune_run x = run_at(m, e, ds.val.tok, L, 0, rounds);
        const prune_run z = run_at(m, e, ds.val.tok, L, RL_ATTN_PRUNE_EXACT, rounds);
        const prune_run p = run_at(m, e, ds.val.tok, L, eps, rounds);
        printf("model prune %s (%s, %d layers w%d h%d, T=%d), one window of %ld validation tokens, all cores, "
               "best of %d:\n", ckpt, rl_pos_name(m->cfg.pos), m->cfg.layers, m->cfg.width, m->cfg.heads,
               m->cfg.ctx, L, rounds);
        printf("model prune   exact (--prune-eps 0): %.2f s\n", x.sec);
        printf("model prune   eps 2^-100 (the default): %.2f s = %.2fx faster, %.1f%% of the pairs skipped, "
               "mean loss %s the exact one's (%.6f)\n", z.sec, x.sec / z.sec, 100 * z.p.skipped / z.p.pairs,
               memcmp(&z.loss, &x.loss, sizeof x.loss) ? "DIFFERS FROM" : "byte-identical to", z.loss);
        printf("model prune   eps %g: %.2f s = %.2fx faster, %.1f%% of the pairs skipped; skipped mass <= %.3g "
               "a row, a head output moved <= %.3g; mean loss %.6f (exact %+.2e)\n", eps, p.sec, x.sec / p.sec,
               100 * p.p.skipped / p.p.pairs, p.p.mass, p.p.out, p.loss, p.loss - x.loss);
    }
    rl_gpt_eval_free(e);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return st;
}
