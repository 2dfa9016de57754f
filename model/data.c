/* data.c: token files (llm.c, nanoGPT, raw bytes) and data sets. */
#include "data.h"

#include "../sampling/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/util.h"

rl_status rl_data_load(const char *path, int vocab, rl_dataset *d, rl_err *err)
{
    struct stat st;
    rl_status s;
    memset(d, 0, sizeof *d);
    if (stat(path, &st) != 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char *tr = rl_path_join(path, "train.bin"), *va = rl_path_join(path, "val.bin");
        s = rl_tokens_read(tr, vocab, &d->train, err);
        if (s == RL_OK)
            s = rl_tokens_read(va, vocab, &d->val, err);
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
    d->train.tok = all.tok;
    d->train.n = ntr;
    d->val.tok = rl_xmalloc(sizeof(uint16_t) * (all.n - ntr));
    d->val.n = all.n - ntr;
    memcpy(d->val.tok, all.tok + ntr, sizeof(uint16_t) * d->val.n);
    return RL_OK;
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
    rl_rng_stream(r, seed + (uint64_t)L, (uint64_t)w);
    long start = (long)(rl_rng_next64(r) % (uint64_t)(t->n - L));
    gsl_rng_free(r);
    *key = rl_stream_key(seed + (uint64_t)L, (uint64_t)w);
    return start;
}
