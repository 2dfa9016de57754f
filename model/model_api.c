/* model_api.c: the public model API (include/routelab/model.h) over the
 * checkpoint reader, the evaluation protocol and the probe: the same calls
 * as `routelab eval` and `routelab probe` (cmd/cmd_eval.c, cmd/cmd_probe.c),
 * without their files and folders, every failure a status (NOTES.md §18). */
#include "../include/routelab/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "ckpt.h"
#include "data.h"
#include "evaluate.h"
#include "gpt.h"
#include "probe.h"
#include "scheme.h"

struct rl_model {
    rl_gpt *g;
    rl_ckpt_meta meta;
};

rl_status rl_model_load(const char *path, rl_model **m, rl_err *err)
{
    if (!m)
        return rl_fail(err, RL_EINPUT, "model: no place for the model (NULL)");
    *m = NULL;
    if (!path || !*path)
        return rl_fail(err, RL_EINPUT, "model: no checkpoint path");
    rl_model *x = rl_xcalloc(1, sizeof *x);
    /* no training activations: evaluation has its own workspace (ckpt.c) */
    rl_status s = rl_ckpt_load(path, 0, &x->g, &x->meta, err);
    if (s != RL_OK) {
        free(x);
        return s;
    }
    *m = x;
    return RL_OK;
}

void rl_model_free(rl_model *m)
{
    if (!m)
        return;
    rl_gpt_free(m->g);
    free(m);
}

void rl_model_get_info(const rl_model *m, rl_model_info *info)
{
    const rl_gpt_config *c = &m->g->cfg;
    memset(info, 0, sizeof *info);
    info->layers = c->layers, info->width = c->width, info->heads = c->heads;
    info->ctx = c->ctx, info->vocab = c->vocab;
    info->dropout = c->dropout, info->rot_base = c->rot_base;
    snprintf(info->pos, sizeof info->pos, "%s", rl_pos_name(c->pos));
    info->step = m->meta.step, info->steps = m->meta.steps, info->seed = m->meta.seed;
    info->nparams = m->g->nparams, info->ntensors = m->g->ntensors;
}

rl_status rl_model_tensor(const rl_model *m, int i, const char **name, const float **data, long *n,
                          rl_err *err)
{
    if (i < 0 || i >= m->g->ntensors)
        return rl_fail(err, RL_EINPUT, "model: tensor %d is outside [0, %d)", i, m->g->ntensors);
    const rl_tensor *t = &m->g->tensors[i];
    *name = t->name;
    *data = m->g->params + t->off;
    *n = t->n;
    return RL_OK;
}

rl_status rl_model_data(const char *path, int vocab, uint16_t **train, long *ntrain, uint16_t **val,
                        long *nval, rl_err *err)
{
    *train = *val = NULL;
    *ntrain = *nval = 0;
    if (!path || !*path)
        return rl_fail(err, RL_EINPUT, "data: no path");
    if (vocab < RL_GPT_VOCAB_MIN || vocab > RL_GPT_VOCAB_MAX)
        return rl_fail(err, RL_EINPUT, "data: vocab %d is outside [%d, %d]", vocab, RL_GPT_VOCAB_MIN,
                       RL_GPT_VOCAB_MAX);
    rl_dataset ds;
    RL_TRY(rl_data_load(path, vocab, &ds, err));
    *train = ds.train.tok, *ntrain = ds.train.n;
    *val = ds.val.tok, *nval = ds.val.n;
    return RL_OK;
}

void rl_model_buffer_free(void *p)
{
    free(p);
}

/* Token ids against the vocabulary (the commands' reader checks them as it
 * reads a file; an array from the caller is checked here). */
static rl_status check_tokens(const char *what, const uint16_t *t, long n, int vocab, rl_err *err)
{
    if (n < 0 || (n > 0 && !t))
        return rl_fail(err, RL_EINPUT, "%s: %ld tokens at %p", what, n, (const void *)t);
    for (long i = 0; i < n; i++)
        if (t[i] >= vocab)
            return rl_fail(err, RL_EINPUT, "%s: token %ld is id %u, outside the model's vocabulary %d", what,
                           i, (unsigned)t[i], vocab);
    return RL_OK;
}

/* The arguments that eval and probe share: the validation stream as a data
 * set (not owned), the lengths against it and the workspace, the threads. */
static rl_status check_common(const rl_model *m, const uint16_t *val, long nval, const long *lengths, int nl,
                              long minlen, int threads, rl_dataset *ds, long *maxL, rl_err *err)
{
    if (!m)
        return rl_fail(err, RL_EINPUT, "model: no model (NULL)");
    if (nl < 1 || !lengths)
        return rl_fail(err, RL_EINPUT, "model: no lengths");
    if (threads < 1 || threads > 1024)
        return rl_fail(err, RL_EINPUT, "model: threads %d is outside [1, 1024]", threads);
    RL_TRY(check_tokens("validation stream", val, nval, m->g->cfg.vocab, err));
    memset(ds, 0, sizeof *ds);
    ds->val.tok = (uint16_t *)val; /* read only: every reader takes a const rl_tokens */
    ds->val.n = nval;
    return rl_eval_check_lengths(m->g, lengths, nl, minlen, ds, "the validation stream", maxL, err);
}

rl_status rl_model_eval(const rl_model *m, const uint16_t *val, long nval, const uint16_t *train,
                        long ntrain, const long *lengths, int nl, long targets, unsigned long seed,
                        int threads, rl_model_eval_row *rows, rl_err *err)
{
    rl_dataset ds;
    long maxL;
    RL_TRY(check_common(m, val, nval, lengths, nl, 1, threads, &ds, &maxL, err));
    if (targets < 0)
        return rl_fail(err, RL_EINPUT, "eval: targets %ld is negative (0: the full stream)", targets);
    if (train)
        RL_TRY(check_tokens("training stream", train, ntrain, m->g->cfg.vocab, err));
    rl_set_threads(threads);
    const rl_gpt *g = m->g;
    const long T = g->cfg.ctx;
    rl_eval_spans sp;
    RL_TRY(rl_eval_spans_plan(&ds.val, maxL, targets, &sp, err));
    float *ref = rl_eval_reference(g, &ds.val, &sp, (uint64_t)seed);
    if (!ref) {
        rl_eval_spans_free(&sp);
        return rl_fail(err, RL_EINTERNAL, "eval: no memory for the reference's %d windows of %ld tokens",
                       rl_eval_ref_batch(T), T);
    }
    const rl_tokens tr = { (uint16_t *)train, ntrain };
    float *uni = train ? rl_eval_unigram(&tr, g->cfg.vocab) : NULL;
    rl_gpt_eval *ev = rl_gpt_eval_alloc(g, maxL);
    double ppl0 = 0;
    for (int i = 0; i < nl; i++) {
        const rl_eval_row r = rl_eval_length(g, ev, &ds.val, &sp, ref, uni, lengths[i], T, (uint64_t)seed, NULL);
        rl_model_eval_row *o = &rows[i];
        const double ppl = exp(r.loss);
        if (i == 0)
            ppl0 = ppl;
        *o = (rl_model_eval_row){ .L = r.L, .windows = r.windows, .targets = r.targets,
                                  .windows_wanted = sp.wanted * (maxL / lengths[i]), .loss = r.loss, .se = r.se,
                                  .ppl = ppl, .ratio = ppl / ppl0, .ref_loss = r.ref, .dlog = r.dlog,
                                  .dlog_se = r.dlog_se, .paired_ratio = exp(r.dlog), .new_targets = r.new_targets,
                                  .new_loss = r.new_loss, .new_ref = r.new_ref, .new_dlog = r.new_dlog,
                                  .new_se = r.new_se, .new_ratio = exp(r.new_dlog), .unigram = r.unigram,
                                  .spans = sp.n, .slots = sp.slots };
    }
    rl_gpt_eval_free(ev);
    free(uni);
    free(ref);
    rl_eval_spans_free(&sp);
    return RL_OK;
}

rl_status rl_model_probe(const rl_model *m, const uint16_t *val, long nval, const long *lengths, int nl,
                         long windows, unsigned long seed, int threads, char **probe_tsv,
                         char **distance_tsv, rl_err *err)
{
    *probe_tsv = *distance_tsv = NULL;
    long def[2];
    if (m && nl == 0) {
        nl = rl_probe_default_lengths(m->g->cfg.ctx, def);
        lengths = def;
    }
    rl_dataset ds;
    long maxL;
    RL_TRY(check_common(m, val, nval, lengths, nl, 2, threads, &ds, &maxL, err));
    if (windows < 1 || windows > 1000000)
        return rl_fail(err, RL_EINPUT, "probe: windows %ld is outside [1, 1e6]", windows);
    rl_set_threads(threads);
    size_t np, nd;
    FILE *po = open_memstream(probe_tsv, &np), *dout = open_memstream(distance_tsv, &nd);
    if (!po || !dout) {
        if (po)
            fclose(po);
        if (dout)
            fclose(dout);
        free(*probe_tsv), free(*distance_tsv);
        *probe_tsv = *distance_tsv = NULL;
        return rl_fail(err, RL_EINTERNAL, "probe: no memory for its tables");
    }
    rl_probe_write_headers(po, dout);
    rl_gpt_eval *ev = rl_gpt_eval_alloc(m->g, maxL);
    for (int i = 0; i < nl; i++)
        rl_probe_length(m->g, ev, &ds.val, lengths[i], windows, (uint64_t)seed, po, dout);
    rl_gpt_eval_free(ev);
    const int bad = fclose(po) != 0;
    if ((fclose(dout) != 0) | bad) {
        free(*probe_tsv), free(*distance_tsv);
        *probe_tsv = *distance_tsv = NULL;
        return rl_fail(err, RL_EINTERNAL, "probe: its tables could not be written to memory");
    }
    return RL_OK;
}
