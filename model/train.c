/* train.c: schedules and the training step (see train.h). */
#include "train.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/par/par.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"

rl_status rl_lr_parse(const char *s, rl_lr_schedule *o, rl_err *err)
{
    memset(o, 0, sizeof *o);
    char *end;
    if (strncmp(s, "cosine:", 7) == 0) {
        o->cosine = 1;
        errno = 0;
        o->peak = strtod(s + 7, &end);
        if (end == s + 7 || *end != ':' || !(o->peak > 0) || !isfinite(o->peak))
            goto bad;
        const char *w = end + 1;
        errno = 0;
        o->warmup = strtol(w, &end, 10);
        if (end == w || o->warmup < 0 || (*end && *end != ':'))
            goto bad;
        if (errno || o->warmup > RL_LR_MAX_STEPS)
            goto too_long;
        o->min = o->peak / 10;
        if (*end) {
            const char *mn = end + 1;
            o->min = strtod(mn, &end);
            if (end == mn || *end || !(o->min >= 0) || !isfinite(o->min))
                goto bad;
        }
        return RL_OK;
    }
    const char *p = s;
    while (*p) {
        if (o->n == RL_LR_MAX_STAGES)
            goto bad;
        errno = 0;
        o->lr[o->n] = strtod(p, &end);
        if (end == p || errno || !(o->lr[o->n] > 0) || !isfinite(o->lr[o->n]))
            goto bad;
        o->len[o->n] = 0;
        if (*end == ':') {
            const char *q = end + 1;
            errno = 0;
            o->len[o->n] = strtol(q, &end, 10);
            if (end == q || o->len[o->n] < 1)
                goto bad;
            if (errno || o->len[o->n] > RL_LR_MAX_STEPS)
                goto too_long;
        } else if (*end || o->n) /* a bare rate only as the whole schedule */
            goto bad;
        o->n++;
        if (*end == ',' && end[1])
            p = end + 1;
        else if (*end)
            goto bad;
        else
            p = end;
    }
    if (o->n)
        return RL_OK;
bad:
    return rl_fail(err, RL_EINPUT,
                   "--lr '%s' is neither LR, LR:STEPS,LR:STEPS,... nor cosine:PEAK:WARMUP[:MIN]", s);
too_long: /* before any sum: stage lengths near LONG_MAX would overflow it */
    return rl_fail(err, RL_EINPUT, "--lr '%s': a stage or warm-up is longer than the %ld steps "
                   "a run may have", s, RL_LR_MAX_STEPS);
}

long rl_lr_stage_total(const rl_lr_schedule *s)
{
    long t = 0;
    for (int i = 0; !s->cosine && i < s->n; i++)
        if (__builtin_add_overflow(t, s->len[i], &t))
            return LONG_MAX;
    return t;
}

rl_status rl_lr_plan(const char *lr, long steps, rl_lr_schedule *s, long *total, rl_err *err)
{
    RL_TRY(rl_lr_parse(lr, s, err));
    const long stages = rl_lr_stage_total(s);
    if (stages > RL_LR_MAX_STEPS)
        return rl_fail(err, RL_EINPUT, "--lr '%s': its stages add up to %ld steps, more than the "
                       "%ld a run may have", lr, stages, RL_LR_MAX_STEPS);
    *total = steps > 0 ? steps : stages > 0 ? stages : RL_LR_DEFAULT_STEPS;
    if (s->cosine && s->warmup >= *total)
        return rl_fail(err, RL_EINPUT, "warm-up of %ld steps does not fit in %ld steps", s->warmup,
                       *total);
    return RL_OK;
}

double rl_lr_at(const rl_lr_schedule *s, long step, long total)
{
    if (s->cosine) {
        if (step < s->warmup) {
            const double r = s->peak * (step + 1) / (double)s->warmup;
            /* a peak near DBL_MAX overflows the product; the quotient first
             * stays below it (not the default: it rounds differently) */
            return isfinite(r) ? r : s->peak * ((step + 1) / (double)s->warmup);
        }
        long span = total - s->warmup;
        double f = span > 1 ? (double)(step - s->warmup) / (double)(span - 1) : 1.0;
        if (f > 1)
            f = 1;
        return s->min + 0.5 * (s->peak - s->min) * (1 + cos(M_PI * f));
    }
    for (int i = 0; i < s->n; i++) {
        if (step < s->len[i] || s->len[i] == 0)
            return s->lr[i];
        step -= s->len[i];
    }
    return s->lr[s->n - 1];
}

rl_status rl_trainer_alloc(rl_gpt *m, const rl_tokens *train, const rl_tokens *val, int B,
                           int accum, uint64_t seed, rl_trainer **out, rl_err *err)
{
    *out = NULL;
    /* fill_windows draws starts in [0, n - T): a stream needs T + 1 tokens */
    if (train->n < m->T + 1)
        return rl_fail(err, RL_EINPUT, "the training stream has %ld tokens, fewer than context + 1 = %d",
                       train->n, m->T + 1);
    if (val->n < m->T + 1)
        return rl_fail(err, RL_EINPUT, "the validation stream has %ld tokens, fewer than context + 1 = %d",
                       val->n, m->T + 1);
    rl_trainer *t = rl_xcalloc(1, sizeof *t);
    t->m = m;
    t->train = train;
    t->val = val;
    t->B = B;
    t->T = m->T;
    t->accum = accum;
    t->seed = seed;
    t->opt = rl_adamw_default();
    t->clip = 1.0;
    t->batch = rl_xmalloc(sizeof(uint16_t) * (size_t)B * (t->T + 1));
    t->rng = rl_rng_alloc();
    t->gsum = rl_xmalloc(sizeof(float) * (size_t)m->nparams);
    t->tree = rl_par_tree_alloc(accum, (size_t)m->nparams);
    t->loss = rl_xcalloc((size_t)accum, sizeof *t->loss);
    if (!t->rng) {
        rl_trainer_free(t);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a random number generator");
    }
    *out = t;
    return RL_OK;
}

size_t rl_trainer_extra_bytes(long nparams, int accum)
{
    /* gsum, the tree's depth + 1 vectors (base/par/par.h), the shard losses */
    int depth = 0;
    while (((long)1 << depth) < accum)
        depth++;
    return sizeof(float) * (size_t)nparams * (size_t)(depth + 2) + sizeof(double) * (size_t)accum;
}

void rl_trainer_free(rl_trainer *t)
{
    if (!t)
        return;
    free(t->batch);
    gsl_rng_free(t->rng);
    free(t->gsum);
    rl_par_tree_free(t->tree);
    free(t->loss);
    free(t);
}

/* Copy B windows of T+1 tokens into the batch; window w from stream key. */
static void fill_windows(rl_trainer *t, const rl_tokens *src, uint64_t dom, uint64_t key0)
{
    const long span = src->n - t->T; /* starts 0 .. n-T-1 */
    for (int w = 0; w < t->B; w++) {
        rl_rng_stream(t->rng, t->seed ^ dom, rl_stream_key(key0, (uint64_t)w));
        long pos = (long)(rl_rng_next64(t->rng) % (uint64_t)span);
        memcpy(t->batch + (size_t)w * (t->T + 1), src->tok + pos, sizeof(uint16_t) * (t->T + 1));
    }
}

/* Shard s of step t->step: its B windows (stream key (step, s B + w)), the
 * forward with dropout and rotation noise keyed by (step, s), the backward
 * from zero with the step's scale 1/(B T accum); its gradient into out. */
static rl_status shard_grad(void *ctx, long s, float *out, rl_err *err)
{
    (void)err;
    rl_trainer *t = ctx;
    rl_gpt *m = t->m;
    rl_gpt_zero_grad(m);
    fill_windows(t, t->train, RL_STREAM_TRAIN_WINDOWS, rl_stream_key((uint64_t)t->step, (uint64_t)s * t->B));
    uint64_t dkey = rl_stream_key(t->seed ^ RL_STREAM_TRAIN_DROPOUT, rl_stream_key((uint64_t)t->step, (uint64_t)s));
    t->loss[s] = rl_gpt_forward(m, t->batch, t->T + 1, t->B, t->T, 1, dkey);
    if (m->nomem) /* training is the command layer's: it may end the process */
        rl_fatal("out of memory (the position scheme's noise)");
    rl_gpt_backward(m, t->scale);
    memcpy(out, m->grads, sizeof(float) * (size_t)m->nparams);
    return RL_OK;
}

rl_status rl_trainer_step(rl_trainer *t, long step, double lr, double *loss, double *gnorm, rl_err *err)
{
    rl_gpt *m = t->m;
    t->step = step;
    t->scale = 1.0f / ((float)t->B * t->T * t->accum);
    /* g = S[0, accum) of the shards' gradients along the fixed tree, on
     * whichever ranks hold them; every rank gets the same bytes */
    RL_TRY(rl_par_tree_sum(t->tree, t->accum, shard_grad, t, t->gsum, err));
    memcpy(m->grads, t->gsum, sizeof(float) * (size_t)m->nparams);
    RL_TRY(rl_par_gather(t->loss, t->accum, sizeof *t->loss, err));
    double sum = 0;
    for (int u = 0; u < t->accum; u++) /* shard order, as one process adds them */
        sum += t->loss[u];
    double norm = rl_grad_norm(m->grads, m->nparams);
    if (gnorm)
        *gnorm = norm;
    float gscale = norm > t->clip ? (float)(t->clip / norm) : 1.0f;
    rl_adamw_step(m, &t->opt, (float)lr, gscale);
    *loss = sum / t->accum;
    return RL_OK;
}

rl_status rl_trainer_val_loss(rl_trainer *t, int nb, double *loss, rl_err *err)
{
    /* batch i's loss on the rank that owns i, then the sum in batch order */
    double *each = rl_xcalloc((size_t)nb, sizeof *each);
    long lo, hi;
    rl_par_range(nb, &lo, &hi);
    for (long i = lo; i < hi; i++) {
        fill_windows(t, t->val, RL_STREAM_TRAIN_VAL, (uint64_t)i * t->B);
        /* rotation noise (random, lf): a key per batch, the same at every call */
        each[i] = rl_gpt_forward(t->m, t->batch, t->T + 1, t->B, t->T, 0,
                                 rl_stream_key(t->seed ^ RL_STREAM_TRAIN_VAL, (uint64_t)i));
        if (t->m->nomem)
            rl_fatal("out of memory (the position scheme's noise)");
    }
    rl_status st = rl_par_gather(each, nb, sizeof *each, err);
    double sum = 0;
    for (int i = 0; i < nb; i++)
        sum += each[i];
    free(each);
    *loss = sum / nb;
    return st;
}
