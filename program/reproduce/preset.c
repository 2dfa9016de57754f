/* preset.c: the presets, one row each of rl_grid_presets with the reason
 * for each size beside it; docs/grids/design.md#presets ("Presets and why these sizes")
 * justifies each size, docs/grids/vtraj-and-reruns.md#vtraj the vtraj preset's,
 * docs/grids/seed-question.md#seed-question the mechanism preset's.
 *
 * A preset only sets defaults: preset_apply starts from `routelab train`'s
 * own (rl_train_opts_default) and overrides the fields a row gives; the
 * flags and their checks are the one table of model/trainopts.c. */
#include "preset.h"

#include <stdio.h>
#include <string.h>

#include "../../theory/study.h"

rl_status rl_grid_match(const rl_grid *g, rl_match *m, rl_err *err)
{
    const rl_train_opts *t = &g->train;
    if (t->heads < 1 || t->width % t->heads)
        return rl_fail(err, RL_EINPUT, "width %d does not split into %d heads", t->width, t->heads);
    rl_match_query q = { t->width / t->heads, t->ctx, rl_study_mult(), RL_GRID_MATCH_EPS, 0, 0, RL_STUDY_BASE };
    RL_TRY(rl_match_study(q.eps, q.mult, &q.f_ctx, &q.f_far, err));
    return rl_match_choose(&q, m, err);
}

/* The byte-level Brown corpus (`routelab data brown`): the data of every
 * grid at vocabulary 256. */
#define BROWN_BYTES "data/brown"

/* The cpu preset's scale, shared by the grids that ask their question of
 * its models (cpu, mechanism, vtraj): Brown bytes, 4 layers x 128 in 4
 * heads, T = 64, batch 16, evaluated to 128T on 16,384 targets, the
 * mixing-matched base (docs/grids/bpe-and-phenomena.md#pilot). */
static const rl_grid_scale cpu_scale = {
    .layers = 4, .width = 128, .heads = 4, .ctx = 64, .vocab = 256, .batch = 16, .dropout = 0.0,
    .val_batches = 8, .max_mult = 128, .probe_mult = 32, .eval_targets = 16384,
    .data = BROWN_BYTES, .matched = 1,
};

/* A row's scale written in the row itself (a scale no other grid shares). */
#define SCALE_(...) (&(const rl_grid_scale){ __VA_ARGS__ })

const rl_grid_row rl_grid_presets[] = {
    /* what `make run` runs, under 15 minutes on 2 cores with the theory
     * report: three tiny models, evaluated to 32x their context */
    {
        .name = "quick", .about = "make run",
        .variants = "rope,random_qkv,alibi",
        .scale = SCALE_(.layers = 3, .width = 96, .heads = 4, .ctx = 64, .vocab = 256, .batch = 16, .dropout = 0.0,
                        .val_batches = 8, .max_mult = 32, .probe_mult = 16, .data = BROWN_BYTES,
                        /* 2^12 targets at each of the six lengths: 2 spans of 32T drawn at
                         * random over the stream by each seed, token-paired (the reference costs a window of T per
                         * target beyond T, about as much as the six lengths together); the
                         * study's base, not the matched scale, so that make run's models
                         * stay those of the committed quick runs */
                        .eval_targets = 4096, .matched = 0),
        .lr = "2e-3:600,8e-4:300,2e-4:300", .val_every = 150, .ckpt_every = 300,
        /* four seeds, from a power computation (docs/grids/bpe-and-phenomena.md#headline): five
         * seeds measured "rope degrades more than random_qkv at 16T" +1.034 +-
         * 0.067 (sd 0.150); the effect rule decides it with power 0.23 at 3
         * seeds, 0.88 at 4 (rl_order_power), and five seeds took make run to
         * 17.9 min, over its 15 */
        .seeds = 4,
    },
    /* the phenomena grid (docs/grids/bpe-and-phenomena.md#pilot): Brown bytes, where the models use
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
     * Both pembs, paired (docs/model/schemes.md#pemb-author,
     * docs/grids/vtraj-and-reruns.md#cpu-grid-second-run): pemb_qk, the study author's (a table per
     * head, the key's token on the path), whose verdict this grid re-decides, and pemb-shared_qk
     * (one table shared by the heads, the query's token on the path), the pemb of
     * the first committed grid; 9 variants x 6 seeds = 54 models, from
     * the first grid's measured 124.9 min for 48: about 140 min.
     * Every rotation scheme at the mixing-matched base for head dim 32 at
     * T = 64 (935.67: 2 and 8 of 16 blocks mixing within T and 128T, the
     * study's 10 and 23 of 48), RoPE also at the study's 10000 as the
     * control arm.  Evaluated to 128T on 2 spans of 8,192 bytes drawn at
     * random over the stream by each seed, token-paired (the committed
     * grid, grids/, read the same 2 evenly spread spans for every
     * seed: its config.txt has no eval-windows line). */
    {
        .name = "cpu", .about = "the matched scale",
        .variants = "rope,random_qk,random_qkv,pemb_qk,pemb-shared_qk,lf_qk,alibi,none,rope@10000",
        .scale = &cpu_scale,
        .lr = "2e-3:1200,8e-4:600,2e-4:600", .val_every = 300, .ckpt_every = 600,
        .seeds = 6,
    },
    /* the seed's question (docs/grids/seed-question.md#seed-question): is PaTH's
     * extrapolation the Householder algebra or accumulation along the
     * route?  A factorial {SO(2) blocks, Householder reflections} x
     * {random i.i.d. steps, steps computed from the hidden state}:
     * random_qk, lf_qk, random-hh, path; rope and alibi as anchors, and
     * random_pos_qk, the drift test (steps U(0, 2 omega_b), the same gap
     * as random_qk).  The cpu preset's models (Brown bytes, 4 x 128 in 4
     * heads, T = 64, the matched base, the stages 2 : 1 : 1) trained
     * 2,000 steps instead of 2,400, so that six seeds fit: measured on one
     * quiet thread (docs/grids/seed-question.md#mechanism-factorial) PaTH trains at 0.54x RoPE's
     * tokens/s (7,473 against 13,828) and evaluates to 128T in 1.46x its time
     * (56.4 s against 38.6 s); the cpu grid's 2,400-step model is 283 s
     * of training and 65 s of evaluation on a rank of two, so a seed is
     * 5 x (236 + 65) + 2 x (236 / 0.54 + 65 x 1.46) = 2,569 rank-seconds,
     * 21.4 min on two ranks, 23 min with the cpu grid's 8% of farpred and
     * report, and six seeds 139 min.  Six seeds, from the power
     * computation of docs/grids/seed-question.md#power-seeds: the algebra rows' equivalence at
     * log 1.10 with the committed per-seed sd of a paired difference at
     * 16T (0.032) is reached with probability 0.77 at six seeds (0.47 at
     * five; Monte Carlo of the rule); at 128T (sd 0.108) it needs 29, so
     * those rows are expected unresolved and say so; PaTH against RoPE
     * and the drift row (effects of 0.3 and more on the log ratio, sd <=
     * 0.15) need at most 9, 6 at the cpu grid's sd.  No probe: the
     * probes' questions are the cpu grid's. */
    {
        .name = "mechanism", .about = "PaTH's algebra against accumulation, docs/grids/seed-question.md#seed-question",
        .variants = "rope,alibi,random_qk,lf_qk,random-hh,path,random_pos_qk",
        .scale = &cpu_scale,
        .lr = "2e-3:1000,8e-4:500,2e-4:500", .val_every = 250, .ckpt_every = 500,
        .probe = "none",
        .seeds = 6,
    },
    /* value transport through training (docs/grids/vtraj-and-reruns.md#vtraj):
     * random_qk against random_qkv only, at the cpu preset's model and
     * data (Brown bytes, 4 x 128 in 4 heads, T = 64, the matched base,
     * batch 16, its evaluation to 128T: sampled windows, token-paired), trained
     * longer with a long low-learning-rate tail, evaluated at five
     * stages.  The study's gap opens only in its low-rate stages (its
     * notebook: random_qk 1.03x and random_qkv 0.96x at 16T after 100K
     * steps at the top rate, 1.60x and 1.03x after the 2e-4 and 5e-5
     * stages), so the schedule keeps the cpu preset's first 2,400
     * steps exactly (2e-3:1200, 8e-4:600, then 2e-4: the stage at 2,400
     * is the cpu preset's model of the same seed, the same bytes on the
     * same OpenBLAS kernel set) and adds the tail:
     * 2e-4 to 3,600 (the study's third rate, 1 : 0.4 : 0.1, three times
     * the cpu preset's 600 steps of it) and a final very-low stage
     * 5e-5:1200 (0.025 of the top rate: the study's last stage was its
     * lowest rate, where its gap opened).  Stages at 1,200 and 1,800
     * (the ends of the first two rates), 2,400 (the cpu grid's models),
     * 3,600 (the end of the third rate) and 4,800 (the end).
     * Time (two ranks of one thread; docs/grids/vtraj-and-reruns.md#vtraj): the committed
     * grid trained random_qk and random_qkv in 238-280 s for 2,400
     * steps (at most 0.117 s a step), and evaluated and probed a model
     * in at most 56 s;
     * a model here is 4,800 x 0.117 s = 9.4 min of training and 5 x
     * 56 s = 4.7 min of evaluation, 14.0 min; 20 models on two ranks
     * take 140 min of the 150.  So ten seeds (42-51): the power
     * computation on the committed grid's per-seed differences (sd
     * 0.031 at 16T, 0.108 at 128T) detects with 80% power a difference
     * of log ratios of 0.051 at 16T and 0.179 at 128T at ten seeds; the
     * committed 128T mean (+0.031) would need 186 seeds.  No probe, no
     * far-mass prediction, no theory report: not what this grid asks. */
    {
        .name = "vtraj", .about = "value transport through training, docs/grids/vtraj-and-reruns.md#vtraj",
        .variants = "random_qk,random_qkv",
        .scale = &cpu_scale,
        .lr = "2e-3:1200,8e-4:600,2e-4:1800,5e-5:1200", .keep_ckpt = "1200,1800,2400,3600",
        .val_every = 300, .ckpt_every = 600,
        .theory = "none", .probe = "none", .no_farpred = 1,
        .seeds = 10,
    },
    /* the matched-scale BPE grid (its report in grids/bpe/): the
     * variants the matched-scale question needs (rope, random_qk, random_qkv,
     * pemb_qk, lf_qk, alibi, none; its pemb is now the study author's,
     * pemb_qk, docs/model/schemes.md#pemb-author: the committed grid ran pemb-shared_qk and
     * spans windows, and its 150 minutes hold no ninth variant,
     * docs/grids/vtraj-and-reruns.md#cpu-grid-second-run), all on the same tokens and seeds,
     * evaluated to 128x; the study's three constant stages (lr ratios
     * 1 : 0.4 : 0.1, lengths 2 : 1 : 1) at a small model's rate.  The
     * mixing-matched scale (docs/grids/design.md#mixing-matched-scale): head dim 32 (width 128 / 4
     * heads) at T = 128 is the cheapest T at which a base reaches 3 and
     * 8 of 16 blocks mixing within T and 128T (the study: 10 and 23 of
     * 48); every rotation scheme trains with that base (rl_grid_match,
     * about 1966), and rope also at the study's 10000 as the control arm
     * (2 and 7 of 16).  random_qk@10000, a second control, ran in the
     * first full grid (docs/grids/bpe-and-phenomena.md#cpu-grid-bpe: 1.170 at 128x against 1.150 at
     * the matched base) and was dropped for the time budget: 24 models fit
     * the 150 minutes, 27 did not (163.9 min).  Data: the Brown corpus as a 4096-piece
     * BPE (docs/grids/design.md#bpe; 3.56 bytes a token), built by `routelab data
     * brown` then `routelab data bpe --vocab 4096 --from data/brown --out
     * data/brown-bpe4096`.  The other schemes (fixed-rope, *_qkv of pemb
     * and lf, path, alibi+random_qkv) are one --variants away. */
    {
        .name = "bpe", .about = "BPE tokens",
        .variants = "rope,random_qk,random_qkv,pemb_qk,lf_qk,alibi,none,rope@10000",
        .scale = SCALE_(.layers = 4, .width = 128, .heads = 4, .ctx = 128, .vocab = 4096, .batch = 16,
                        .dropout = 0.0, .val_batches = 8, .max_mult = 128, .probe_mult = 32,
                        /* 2^15 targets: 256 windows at T, 2 spans of 128T = 16,384 per seed.
                         * The first run read 2^16 on 4 fixed spans; with the token-paired
                         * reference (a forward of T tokens per target,
                         * docs/grids/bpe-and-phenomena.md#phenomena-grid) that evaluation took 8
                         * min a model on one thread, 4 min with the reference's last-row forward
                         * (docs/speed/kernels.md#training-attention-kernels): 24 models then need
                         * about 168 min, over the 150
                         * (docs/grids/vtraj-and-reruns.md#bpe-grid-rerun); half the targets,
                         * sampled per seed, about 138 */
                        .eval_targets = 32768, .data = "data/brown-bpe4096", .matched = 1),
        /* 1,800 steps (the stages 2 : 1 : 1) of 3.7M tokens: measured 4.5-5.7
         * min of training a model on two threads (docs/grids/bpe-and-phenomena.md#cpu-grid-bpe),
         * 9.0 min on one of two ranks (docs/grids/vtraj-and-reruns.md#bpe-grid-rerun); the
         * evaluation, above */
        .lr = "2e-3:900,8e-4:450,2e-4:450", .val_every = 150, .ckpt_every = 300,
        .seeds = 3, /* at least three seeds per variant */
    },
    /* the study's configuration, for a machine that can afford it (a
     * token file of GPT-2 ids, e.g. OpenWebText, given with --data) */
    {
        .name = "paper", .about = "the study's",
        .variants = "rope,fixed-rope,random_qk,random_qkv,pemb_qk,pemb_qkv,lf_qk,lf_qkv,alibi,none,"
                    "path,alibi+random_qkv",
        .scale = SCALE_(.layers = 16, .width = 768, .heads = 8, .ctx = 512, .vocab = 50257, .batch = 32,
                        .dropout = 0.1, .val_batches = 20, .max_mult = 128, .probe_mult = 16,
                        /* 2^18 targets: 4 windows at the longest length, 65,536 */
                        .eval_targets = 262144,
                        /* no default data set: the study's tokens are named with --data */
                        .data = NULL,
                        /* the study's own scale: the chooser returns its base, 10000 */
                        .matched = 1),
        .lr = "5e-4:100000,2e-4:50000,5e-5:50000", .val_every = 1000, .ckpt_every = 2000,
        .theory = "full",
        .seeds = 3,
    },
};
const int rl_grid_npresets = sizeof rl_grid_presets / sizeof *rl_grid_presets;

const char *rl_grid_preset_names(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < rl_grid_npresets && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? "|" : "", rl_grid_presets[i].name);
    return buf;
}

const char *rl_grid_preset_help(char *buf, size_t n)
{
    size_t at = (size_t)snprintf(buf, n, "the grid:");
    for (int i = 0; i < rl_grid_npresets && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s %s (%s)", i ? "," : "", rl_grid_presets[i].name,
                               rl_grid_presets[i].about);
    return buf;
}

/* Row p over `routelab train`'s defaults and the grid's common settings:
 * the one place a row's fields reach an rl_grid. */
static void preset_apply(const rl_grid_row *p, rl_grid *g)
{
    const rl_grid_scale *s = p->scale;
    rl_train_opts *t = &g->train;
    memset(g, 0, sizeof *g);
    *t = rl_train_opts_default();
    t->layers = s->layers, t->width = s->width, t->heads = s->heads, t->ctx = s->ctx, t->vocab = s->vocab;
    /* one micro-batch a step; the steps come from the schedule (steps 0: rl_lr_plan) */
    t->batch = s->batch, t->accum = 1, t->dropout = s->dropout, t->steps = 0;
    t->lr = p->lr, t->keep_ckpt = p->keep_ckpt;
    t->val_every = p->val_every, t->val_batches = s->val_batches, t->ckpt_every = p->ckpt_every;
    t->seed = 42; /* every grid's first seed: models/NAME/seed42 of the committed grids */
    g->name = p->name, g->variants = p->variants;
    g->max_mult = s->max_mult, g->probe_mult = s->probe_mult, g->eval_targets = s->eval_targets;
    g->eval_windows = RL_EVAL_SAMPLED; /* every seed its own spans of the stream (docs/protocol.md#sampled-windows) */
    g->theory = p->theory ? p->theory : "quick";
    g->probe = p->probe ? p->probe : "rope,random_qkv";
    g->farpred = !p->no_farpred;
    g->data = s->data, g->matched = s->matched, g->seeds = p->seeds;
}

rl_status rl_grid_preset(const char *name, rl_grid *g, rl_err *err)
{
    int i = 0;
    while (i < rl_grid_npresets && strcmp(name, rl_grid_presets[i].name))
        i++;
    if (i == rl_grid_npresets) {
        char names[RL_GRID_PRESETS_CHARS];
        return rl_fail(err, RL_EINPUT, "--preset must be one of %s, got '%s'",
                       rl_grid_preset_names(names, sizeof names), name);
    }
    preset_apply(&rl_grid_presets[i], g);
    if (g->matched) {
        rl_match m;
        RL_TRY(rl_grid_match(g, &m, err));
        g->train.rot_base = m.base;
    }
    return RL_OK;
}
