/* model_api.c: the public model API (api/include/routelab/model.h) over the
 * checkpoint reader, the evaluation protocol and the probe: the same calls
 * as `routelab eval` and `routelab probe` (program/cmd/cmd_eval.c, program/cmd/cmd_probe.c),
 * without their files and folders, every failure a status (docs/library.md#library). */
#include "../api/include/routelab/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
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
    rl_model *x = rl_alloc_array(1, sizeof *x, err);
    if (!x)
        return RL_ENOMEM;
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

size_t rl_model_info_sizeof(void)
{
    return sizeof(rl_model_info);
}

size_t rl_model_eval_row_sizeof(void)
{
    return sizeof(rl_model_eval_row);
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
    if (!m || !name || !data || !n)
        return rl_fail(err, RL_EINPUT, "model: no model, or no place for a tensor's name, values or count (NULL)");
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
    if (!train || !ntrain || !val || !nval)
        return rl_fail(err, RL_EINPUT, "data: no place for a stream or its length (NULL)");
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

/* RL_ENOMEM when memory ran out in a window or a reader of ev (its results
 * are then not valid); RL_EINPUT when a window's activations were not
 * finite (a checkpoint of finite weights that overflow float),
 * naming the layer. */
static rl_status finite_or_fail(const rl_gpt *g, const rl_gpt_eval *ev, rl_err *err)
{
    char what[64];
    if (rl_gpt_eval_nomem(ev))
        return rl_fail(err, RL_ENOMEM, "model: out of memory in the evaluation of a window");
    if (rl_gpt_eval_bad_layer(ev) < 0)
        return RL_OK;
    return rl_fail(err, RL_EINPUT, "model: the activations of %s are not finite (its weights overflow float)",
                   rl_gpt_eval_bad_what(g, ev, what, sizeof what));
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
    if (!rows)
        return rl_fail(err, RL_EINPUT, "eval: no place for the rows (NULL)");
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
        return rl_fail(err, RL_ENOMEM, "eval: out of memory for the reference's %d windows of %ld tokens",
                       rl_eval_ref_batch(T), T);
    }
    const rl_tokens tr = { (uint16_t *)train, ntrain, { 0, 0 } };
    float *uni = train ? rl_eval_unigram(&tr, g->cfg.vocab) : NULL;
    rl_gpt_eval *ev = !train || uni ? rl_gpt_eval_alloc(g, maxL) : NULL;
    if (!ev) {
        free(uni);
        free(ref);
        rl_eval_spans_free(&sp);
        return rl_fail(err, RL_ENOMEM, "eval: out of memory for the %s", train && !uni ? "unigram losses"
                       : "evaluation workspace");
    }
    double ppl0 = 0;
    for (int i = 0; i < nl && !rl_gpt_eval_nomem(ev); i++) {
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
    const rl_status fin = finite_or_fail(g, ev, err);
    rl_gpt_eval_free(ev);
    free(uni);
    free(ref);
    if (rl_cancelled()) {
        rl_eval_spans_free(&sp);
        return rl_fail(err, RL_ECANCEL, "eval: cancelled");
    }
    if (fin != RL_OK) {
        rl_eval_spans_free(&sp);
        return fin;
    }
    rl_eval_spans_free(&sp);
    return RL_OK;
}

rl_status rl_model_probe(const rl_model *m, const uint16_t *val, long nval, const long *lengths, int nl,
                         long windows, unsigned long seed, int threads, char **probe_tsv,
                         char **distance_tsv, rl_err *err)
{
    if (!probe_tsv || !distance_tsv)
        return rl_fail(err, RL_EINPUT, "probe: no place for its tables (NULL)");
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
        return rl_fail(err, RL_ENOMEM, "probe: out of memory for its tables");
    }
    rl_probe_write_headers(po, dout);
    rl_gpt_eval *ev = rl_gpt_eval_alloc(m->g, maxL);
    rl_status fin = ev ? RL_OK : rl_fail(err, RL_ENOMEM, "probe: out of memory for the evaluation workspace");
    for (int i = 0; i < nl && fin == RL_OK; i++)
        if (rl_probe_length(m->g, ev, &ds.val, lengths[i], windows, (uint64_t)seed, po, dout) != RL_OK)
            fin = rl_fail(err, RL_ENOMEM, "probe: out of memory at length %ld", lengths[i]);
    if (fin == RL_OK)
        fin = finite_or_fail(m->g, ev, err);
    rl_gpt_eval_free(ev);
    const int bad = fclose(po) != 0;
    if ((fclose(dout) != 0) | bad | rl_cancelled() | (fin != RL_OK)) {
        free(*probe_tsv), free(*distance_tsv);
        *probe_tsv = *distance_tsv = NULL;
        return rl_cancelled() ? rl_fail(err, RL_ECANCEL, "probe: cancelled")
               : fin != RL_OK ? fin
                              : rl_fail(err, RL_EINTERNAL, "probe: its tables could not be written to memory");
    }
    return RL_OK;
}

rl_status rl_model_tensor_shape(const rl_model *m, int i, long shape[2], int *ndim, rl_err *err)
{
    if (!m || !shape || !ndim)
        return rl_fail(err, RL_EINPUT, "model: no model, or no place for a shape (NULL)");
    if (i < 0 || i >= m->g->ntensors)
        return rl_fail(err, RL_EINPUT, "model: tensor %d is outside [0, %d)", i, m->g->ntensors);
    const rl_tensor *t = &m->g->tensors[i];
    shape[0] = t->rows, shape[1] = t->cols;
    *ndim = t->cols ? 2 : 1;
    return RL_OK;
}

/* One window of n tokens through the streaming evaluation (the kernels of
 * `routelab eval`): tok[0 .. n-1] as inputs, a padding target after the
 * last (its loss is not read), key drawing the rotation noise. */
static rl_status one_window(const rl_model *m, const uint16_t *tok, long n, unsigned long key, int threads,
                            float *logits, rl_gpt_observe_fn fn, void *ctx, rl_err *err)
{
    if (!m)
        return rl_fail(err, RL_EINPUT, "model: no model (NULL)");
    if (threads < 1 || threads > 1024)
        return rl_fail(err, RL_EINPUT, "model: threads %d is outside [1, 1024]", threads);
    if (n < 1)
        return rl_fail(err, RL_EINPUT, "model: no tokens (%ld)", n);
    RL_TRY(check_tokens("tokens", tok, n, m->g->cfg.vocab, err));
    RL_TRY(rl_gpt_eval_check(m->g, n, err));
    uint16_t *pad = rl_alloc_array((size_t)n + 1, sizeof *pad, NULL);
    rl_gpt_eval *ev = pad ? rl_gpt_eval_alloc(m->g, n) : NULL;
    if (!ev) {
        free(pad);
        return rl_fail(err, RL_ENOMEM, "model: out of memory for a window of %ld tokens", n);
    }
    memcpy(pad, tok, sizeof *pad * (size_t)n);
    pad[n] = 0;
    rl_set_threads(threads);
    rl_gpt_eval_keep_logits(ev, logits);
    if (fn)
        rl_gpt_eval_observe(ev, fn, ctx);
    /* the noise eval draws for a window of n tokens at the stream's start
     * with seed `key` (model/evaluate.h): forward and eval agree */
    rl_gpt_eval_window(m->g, ev, pad, n, rl_eval_window_key((uint64_t)key, n, 0));
    const rl_status fin = finite_or_fail(m->g, ev, err);
    rl_gpt_eval_free(ev);
    free(pad);
    if (rl_cancelled())
        return rl_fail(err, RL_ECANCEL, "model: cancelled");
    return fin;
}

rl_status rl_model_forward(const rl_model *m, const uint16_t *tok, long n, unsigned long key, int threads,
                           float *logits, rl_err *err)
{
    if (!logits)
        return rl_fail(err, RL_EINPUT, "forward: no output (NULL)");
    return one_window(m, tok, n, key, threads, logits, NULL, NULL, err);
}

/* The scaled logits S of one layer, gathered block by block as the
 * streaming kernel visits them (rows i0..i1, keys j0..j1 of head h). */
typedef struct {
    int layer;
    long n;
    float *att; /* H x n x n */
} att_gather;

static void gather(void *ctx, int layer, int b, int h, long i0, long i1, long j0, long j1, const float *S, long lds)
{
    att_gather *g = ctx;
    (void)b; /* one window */
    if (layer != g->layer)
        return;
    for (long i = i0; i < i1; i++)
        memcpy(g->att + ((long)h * g->n + i) * g->n + j0, S + (i - i0) * lds, sizeof(float) * (size_t)(j1 - j0));
}

rl_status rl_model_attention(const rl_model *m, const uint16_t *tok, long n, int layer, unsigned long key,
                             int threads, float *att, rl_err *err)
{
    if (!att)
        return rl_fail(err, RL_EINPUT, "attention: no output (NULL)");
    if (m && (layer < 0 || layer >= m->g->cfg.layers))
        return rl_fail(err, RL_EINPUT, "attention: layer %d is outside [0, %d)", layer, m->g->cfg.layers);
    if (n > RL_MODEL_ATTENTION_MAX)
        return rl_fail(err, RL_EINPUT, "attention: %ld tokens, more than %d (the map holds heads x n x n floats)",
                       n, RL_MODEL_ATTENTION_MAX);
    att_gather g = { layer, n, att };
    RL_TRY(one_window(m, tok, n, key, threads, NULL, gather, &g, err));
    /* alpha_ij = softmax_{j <= i}(S_ij - slope_h (i - j)): the kernel's
     * scaled logits, the distance bias it adds after the scaling (ALiBi;
     * rl_gpt_alibi_slopes), causal; in double, as the probe (model/probe.c) */
    const float *slopes = rl_gpt_alibi_slopes(m->g);
    const int H = m->g->cfg.heads;
    for (int h = 0; h < H; h++)
        for (long i = 0; i < n; i++) {
            float *row = att + ((long)h * n + i) * n;
            const double sl = slopes ? slopes[h] : 0.0;
            double mx = -INFINITY, sum = 0;
            for (long j = 0; j <= i; j++)
                mx = fmax(mx, (double)row[j] - sl * (double)(i - j));
            for (long j = 0; j <= i; j++)
                sum += exp((double)row[j] - sl * (double)(i - j) - mx);
            for (long j = 0; j <= i; j++)
                row[j] = (float)(exp((double)row[j] - sl * (double)(i - j) - mx) / sum);
            for (long j = i + 1; j < n; j++)
                row[j] = 0;
        }
    return RL_OK;
}
