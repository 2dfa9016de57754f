/* data.c: token files (llm.c, nanoGPT, raw bytes) and data sets. */
#include "data.h"

#include "../sampling/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/core/streams.h"
#include "../base/core/util.h"

/* dir/name, malloc'ed (rl_path_join's result, with RL_ENOMEM in err when
 * memory runs out: NULL then). */
static char *join(const char *dir, const char *name, rl_err *err)
{
    const size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *p = rl_alloc(n, err);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* A folder's train.bin and val.bin are one set (base/core/tokfile.h): the same
 * identity in both headers, and for a byte-level set the identity of their
 * tokens (a tokenizer's bytes are not read here).  Files without one (an
 * older set, nanoGPT's) pass. */
static rl_status same_set(const char *dir, const rl_dataset *d, rl_err *err)
{
    const rl_tokens_id a = d->train.id, b = d->val.id;
    if (!a.set && !b.set)
        return RL_OK;
    int same = a.set == b.set && a.tokenizer == b.tokenizer;
    if (same && !a.tokenizer)
        same = rl_tokens_set_id(&d->train, &d->val, NULL, 0).set == a.set;
    if (!same)
        return rl_fail(err, RL_EINPUT, "%s: train.bin and val.bin are not one data set (written by two runs: "
                       "a data command stopped between its files?); run the data command again", dir);
    return RL_OK;
}

rl_status rl_data_load(const char *path, int vocab, rl_dataset *d, rl_err *err)
{
    struct stat st;
    rl_status s;
    memset(d, 0, sizeof *d);
    if (stat(path, &st) != 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char *tr = join(path, "train.bin", err), *va = tr ? join(path, "val.bin", err) : NULL;
        s = va ? rl_tokens_read(tr, vocab, &d->train, err) : RL_ENOMEM;
        if (s == RL_OK)
            s = rl_tokens_read(va, vocab, &d->val, err);
        if (s == RL_OK)
            s = same_set(path, d, err);
        free(tr);
        free(va);
        if (s != RL_OK)
            rl_data_free(d);
        return s;
    }
    rl_tokens all;
    RL_TRY(rl_tokens_read(path, vocab, &all, err));
    long ntr = rl_data_split(all.n);
    if (all.n - ntr < 2) {
        free(all.tok);
        return rl_fail(err, RL_EINPUT, "%s has %ld tokens, too few to split 90/10", path, all.n);
    }
    d->val.tok = rl_alloc_array((size_t)(all.n - ntr), sizeof(uint16_t), err);
    if (!d->val.tok) {
        free(all.tok);
        return RL_ENOMEM;
    }
    d->train.tok = all.tok;
    d->train.n = ntr;
    d->val.n = all.n - ntr;
    memcpy(d->val.tok, all.tok + ntr, sizeof(uint16_t) * d->val.n);
    return RL_OK;
}

void rl_data_describe(const rl_dataset *d, char *buf, size_t len)
{
    uint64_t h = rl_fnv64(RL_FNV64_INIT, d->train.tok, sizeof(uint16_t) * (size_t)d->train.n);
    h = rl_fnv64(h, d->val.tok, sizeof(uint16_t) * (size_t)d->val.n);
    snprintf(buf, len, "data of %ld training and %ld validation tokens, hash %016llx", d->train.n, d->val.n,
             (unsigned long long)h);
}

long rl_data_split(long n)
{
    return n - n / 10;
}

void rl_data_free(rl_dataset *d)
{
    free(d->train.tok);
    free(d->val.tok);
    memset(d, 0, sizeof *d);
}

long rl_data_window(const rl_tokens *t, long L, uint64_t seed, long w, uint64_t *key)
{
    gsl_rng *r = rl_rng_alloc();
    if (!r)
        return -1;
    rl_rng_stream(r, seed + (uint64_t)L, (uint64_t)w);
    long start = (long)(rl_rng_next64(r) % (uint64_t)(t->n - L));
    gsl_rng_free(r);
    *key = rl_stream_key(seed + (uint64_t)L, (uint64_t)w);
    return start;
}

rl_status rl_eval_windows_plan(const rl_tokens *t, long L, long targets, long windows,
                               uint64_t seed, rl_eval_windows *w, rl_err *err)
{
    memset(w, 0, sizeof *w);
    if (L < 1 || targets < 0 || windows < 0)
        return rl_fail(err, RL_EINPUT, "length %ld, targets %ld, windows %ld: must be positive", L,
                       targets, windows);
    /* L + 1 tokens, compared as L >= n: L + 1 overflows at LONG_MAX */
    if (L >= t->n)
        return rl_fail(err, RL_EINPUT, "length %ld needs %ld + 1 tokens; the stream has %ld", L, L,
                       t->n);
    w->L = L;
    w->wanted = targets > 0 ? targets / L + (targets % L != 0) : windows;
    w->slots = (t->n - 1) / L;
    w->n = w->wanted < w->slots ? w->wanted : w->slots;
    w->start = rl_xmalloc(sizeof(long) * (size_t)(w->n ? w->n : 1));
    w->key = rl_xmalloc(sizeof(uint64_t) * (size_t)(w->n ? w->n : 1));
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed ^ RL_STREAM_EVAL_WINDOWS, (uint64_t)L);
    /* the slack of the tiling, (n - 1) - slots L tokens, goes before the
     * first slot by a uniform amount, so no token is never a target */
    const long off = (long)(rl_rng_next64(r) % (uint64_t)((t->n - 1) - w->slots * L + 1));
    /* n of the slots, uniformly, already in order (rl_rng_select) */
    rl_rng_select(r, w->slots, w->n, w->start);
    for (long i = 0; i < w->n; i++) {
        const long j = w->start[i];
        w->start[i] = off + j * L;
        w->key[i] = rl_stream_key(seed + (uint64_t)L, (uint64_t)j);
    }
    gsl_rng_free(r);
    return RL_OK;
}

void rl_eval_windows_free(rl_eval_windows *w)
{
    free(w->start);
    free(w->key);
    memset(w, 0, sizeof *w);
}
