/* preset.c: the three presets; NOTES.md §11.2 ("Presets and why these
 * sizes") justifies each size.
 *
 * A preset only sets defaults: it starts from `routelab train`'s own
 * (rl_train_opts_default) and overrides the fields below; the flags and
 * their checks are the one table of model/trainopts.c. */
#include "preset.h"

#include <string.h>

#include "../theory/study.h"

rl_status rl_grid_match(const rl_grid *g, rl_match *m, rl_err *err)
{
    const rl_train_opts *t = &g->train;
    if (t->heads < 1 || t->width % t->heads)
        return rl_fail(err, RL_EINPUT, "width %d does not split into %d heads", t->width, t->heads);
    rl_match_query q = { t->width / t->heads, t->ctx, rl_study_mult(), RL_GRID_MATCH_EPS, 0, 0, RL_STUDY_BASE };
    RL_TRY(rl_match_study(q.eps, q.mult, &q.f_ctx, &q.f_far, err));
    return rl_match_choose(&q, m, err);
}

rl_status rl_grid_preset(const char *name, rl_grid *g, rl_err *err)
{
    memset(g, 0, sizeof *g);
    rl_train_opts *t = &g->train;
    *t = rl_train_opts_default();
    g->theory = "quick";
    g->probe = "rope,random_qkv";
    g->farpred = 1;
    g->data = "data/brown";
    if (!strcmp(name, "quick")) {
        /* what `make run` runs, under 15 minutes on 2 cores with the theory
         * report: three tiny models, evaluated to 32x their context */
        g->name = "quick";
        g->variants = "rope,random_qkv,alibi";
        t->layers = 3, t->width = 96, t->heads = 4, t->ctx = 64, t->vocab = 256;
        t->batch = 16, t->accum = 1, t->dropout = 0.0, t->steps = 0;
        t->lr = "2e-3:600,8e-4:300,2e-4:300";
        t->val_every = 150, t->val_batches = 8, t->ckpt_every = 300, t->seed = 42;
        g->max_mult = 32, g->probe_mult = 16;
        /* 2^12 targets at each of the six lengths: 2 spans of 32T spread over
         * the stream, token-paired (the reference costs a window of T per
         * target beyond T, about as much as the six lengths together); the
         * study's base, not the matched scale, so that make run's models
         * stay those of the committed quick runs */
        g->eval_targets = 4096;
        /* four seeds, from a power computation (NOTES.md §11.13): five seeds
         * measured "rope degrades more than random_qkv at 16T" +1.034 +-
         * 0.067 (sd 0.150); the effect rule decides it with power 0.23 at 3
         * seeds, 0.88 at 4 (rl_order_power), and five seeds took make run to
         * 17.9 min, over its 15 */
        g->seeds = 4;
    } else if (!strcmp(name, "cpu")) {
        /* the phenomena grid (NOTES.md §11.12): Brown bytes, where the models use
         * position sharply enough for RoPE to fail past T (the pilot, 3,200
         * steps: RoPE 4.3x and 8.6x at 16T at the matched base, 6.5x and 7.0x
         * at 10000, worse than no context from 4T on), 4 layers x 128 in 4
         * heads (ALiBi's slopes need them: with 2 heads ALiBi was 1.10x at
         * 16T), T = 64, the study's three constant stages (lr ratios 1 : 0.4 :
         * 0.1, lengths 2 : 1 : 1).  Six seeds: the pilot's power computation
         * (every ordering it could read that is expected to show needs at
         * most 6 for 80% power at x >= 3; value transport's "absent" would
         * need 27).  8 variants x 6 seeds in 150 minutes on two cores (two
         * ranks of one thread, 8.7K tokens/s each) leave 2,400 steps of 16
         * windows a model: 2.5M tokens, 283 s, and 65 s of evaluation.
         * Its pemb is pemb-shared_qk (one table shared by the heads, the
         * query's token on the path), the pemb of the committed grid
         * docs/results/; the study author's, pemb_qk, is one --variants away
         * (NOTES.md §7.7).
         * Every rotation scheme at the mixing-matched base for head dim 32 at
         * T = 64 (935.67: 2 and 8 of 16 blocks mixing within T and 128T, the
         * study's 10 and 23 of 48), RoPE also at the study's 10000 as the
         * control arm.  Evaluated to 128T on 2 spans of 8,192 bytes spread
         * over the stream, token-paired. */
        g->name = "cpu";
        g->variants = "rope,random_qk,random_qkv,pemb-shared_qk,lf_qk,alibi,none,rope@10000";
        t->layers = 4, t->width = 128, t->heads = 4, t->ctx = 64, t->vocab = 256;
        t->batch = 16, t->accum = 1, t->dropout = 0.0, t->steps = 0;
        t->lr = "2e-3:1200,8e-4:600,2e-4:600";
        t->val_every = 300, t->val_batches = 8, t->ckpt_every = 600, t->seed = 42;
        g->max_mult = 128, g->probe_mult = 32;
        g->eval_targets = 16384;
        g->seeds = 6;
        g->matched = 1;
    } else if (!strcmp(name, "bpe")) {
        /* the matched-scale BPE grid (the cpu preset of issue 13, its report
         * in docs/results/bpe/): the variants issue 13 names (rope, random_qk, random_qkv,
         * pemb_qk, lf_qk, alibi, none; its pemb is pemb-shared_qk, the pemb
         * of the committed grid, NOTES.md §7.7), all on the same tokens and seeds,
         * evaluated to 128x; the study's three constant stages (lr ratios
         * 1 : 0.4 : 0.1, lengths 2 : 1 : 1) at a small model's rate.  The
         * mixing-matched scale (NOTES.md §11.6): head dim 32 (width 128 / 4
         * heads) at T = 128 is the cheapest T at which a base reaches 3 and
         * 8 of 16 blocks mixing within T and 128T (the study: 10 and 23 of
         * 48); every rotation scheme trains with that base (rl_grid_match,
         * about 1966), and rope also at the study's 10000 as the control arm
         * (2 and 7 of 16).  random_qk@10000, a second control, ran in the
         * first full grid (NOTES.md §11.9: 1.170 at 128x against 1.150 at the
         * matched base) and was dropped for the time budget: 24 models fit
         * the 150 minutes, 27 did not (163.9 min).  Data: the Brown corpus as a 4096-piece
         * BPE (NOTES.md §11.5; 3.56 bytes a token), built by `routelab data
         * brown` then `routelab data bpe --vocab 4096 --from data/brown --out
         * data/brown-bpe4096`.  The other schemes (fixed-rope, *_qkv of pemb
         * and lf, path, alibi+random_qkv) are one --variants away. */
        g->name = "bpe";
        g->variants = "rope,random_qk,random_qkv,pemb-shared_qk,lf_qk,alibi,none,rope@10000";
        g->data = "data/brown-bpe4096";
        t->layers = 4, t->width = 128, t->heads = 4, t->ctx = 128, t->vocab = 4096;
        t->batch = 16, t->accum = 1, t->dropout = 0.0, t->steps = 0;
        /* 1,800 steps (the stages 2 : 1 : 1) of 3.7M tokens: measured 4.5-5.7
         * min of training and ~0.6 min of evaluation a model; one seed's 8
         * models with the theory report ran in 43 min, so the 24 models take
         * about 2 h 10 min (NOTES.md §11.9) */
        t->lr = "2e-3:900,8e-4:450,2e-4:450";
        t->val_every = 150, t->val_batches = 8, t->ckpt_every = 300, t->seed = 42;
        g->max_mult = 128, g->probe_mult = 32;
        g->eval_targets = 65536; /* 2^16 targets: 512 windows at T, 4 at 128T = 16,384 */
        g->seeds = 3; /* issue 13: at least three seeds per variant */
        g->matched = 1;
    } else if (!strcmp(name, "paper")) {
        /* the study's configuration, for a machine that can afford it (a
         * token file of GPT-2 ids, e.g. OpenWebText, given with --data) */
        g->name = "paper";
        g->variants = "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,"
                      "path,alibi+random_qkv";
        t->layers = 16, t->width = 768, t->heads = 8, t->ctx = 512, t->vocab = 50257;
        t->batch = 32, t->accum = 1, t->dropout = 0.1, t->steps = 0;
        t->lr = "5e-4:100000,2e-4:50000,5e-5:50000";
        t->val_every = 1000, t->val_batches = 20, t->ckpt_every = 2000, t->seed = 42;
        g->max_mult = 128, g->theory = "full", g->probe_mult = 16;
        /* 2^18 targets: 4 windows at the longest length, 65,536 */
        g->eval_targets = 262144;
        /* the study's own scale: the chooser returns its base, 10000 */
        g->matched = 1;
        g->data = NULL;
        g->seeds = 3;
    } else {
        return rl_fail(err, RL_EINPUT, "--preset must be one of %s, got '%s'", RL_GRID_PRESETS, name);
    }
    if (g->matched) {
        rl_match m;
        RL_TRY(rl_grid_match(g, &m, err));
        g->train.rot_base = m.base;
    }
    return RL_OK;
}
