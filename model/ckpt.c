/* ckpt.c: checkpoint writing and checked loading (format in ckpt.h). */
#include "ckpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "data.h"

static const char MAGIC[8] = { 'R', 'L', 'G', 'P', 'T', 'C', 'K', 'P' };

/* Header fields after the magic, each an int64 (dropout as its double's bits). */
enum { H_VERSION, H_LAYERS, H_WIDTH, H_HEADS, H_CTX, H_VOCAB, H_ROT, H_MODE, H_ALIBI, H_PATH,
       H_DROPOUT, H_STEP,
       H_STEPS, H_BATCH, H_ACCUM, H_SEED, H_VAL_EVERY, H_VAL_BATCHES, H_DATA_N, H_DATA_HASH,
       H_ADAM_T, H_NPARAMS, H_FIELDS };
#define HEADER_BYTES (sizeof MAGIC + 8 * H_FIELDS + 128)

static void put_header(unsigned char *h, const rl_gpt *m, const rl_ckpt_meta *mt)
{
    int64_t f[H_FIELDS];
    double dp = m->cfg.dropout;
    f[H_VERSION] = RL_CKPT_VERSION;
    f[H_LAYERS] = m->cfg.layers;
    f[H_WIDTH] = m->cfg.width;
    f[H_HEADS] = m->cfg.heads;
    f[H_CTX] = m->cfg.ctx;
    f[H_VOCAB] = m->cfg.vocab;
    f[H_ROT] = m->cfg.pos.rot;
    f[H_MODE] = m->cfg.pos.mode;
    f[H_ALIBI] = m->cfg.pos.alibi;
    f[H_PATH] = m->cfg.pos.path;
    memcpy(&f[H_DROPOUT], &dp, 8);
    f[H_STEP] = mt->step;
    f[H_STEPS] = mt->steps;
    f[H_BATCH] = mt->batch;
    f[H_ACCUM] = mt->accum;
    f[H_SEED] = (int64_t)mt->seed;
    f[H_VAL_EVERY] = mt->val_every;
    f[H_VAL_BATCHES] = mt->val_batches;
    f[H_DATA_N] = mt->data_n;
    f[H_DATA_HASH] = (int64_t)mt->data_hash;
    f[H_ADAM_T] = m->adam_t;
    f[H_NPARAMS] = m->nparams;
    memcpy(h, MAGIC, sizeof MAGIC);
    memcpy(h + sizeof MAGIC, f, sizeof f);
    memset(h + sizeof MAGIC + sizeof f, 0, 128);
    snprintf((char *)h + sizeof MAGIC + sizeof f, 128, "%s", mt->lr);
}

rl_status rl_ckpt_save(const char *path, const rl_gpt *m, const rl_ckpt_meta *meta, rl_err *err)
{
    unsigned char h[HEADER_BYTES];
    put_header(h, m, meta);
    const size_t np = sizeof(float) * (size_t)m->nparams;
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, h, sizeof h);
    sum = rl_fnv64(sum, m->params, np);
    sum = rl_fnv64(sum, m->adam, 2 * np);
    rl_outfile *o;
    RL_TRY(rl_outfile_create(path, &o, err));
    fwrite(h, sizeof h, 1, o->f);
    fwrite(m->params, 1, np, o->f);
    fwrite(m->adam, 1, 2 * np, o->f);
    fwrite(&sum, sizeof sum, 1, o->f);
    return rl_outfile_close(o, err);
}

rl_status rl_ckpt_load(const char *path, int B, rl_gpt **out, rl_ckpt_meta *mt, rl_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return rl_fail(err, RL_EINPUT, "cannot read checkpoint %s", path);
    unsigned char h[HEADER_BYTES];
    int64_t f[H_FIELDS];
    rl_gpt *m = NULL;
    rl_status st = RL_EINPUT;
    if (fread(h, sizeof h, 1, fp) != 1) {
        rl_fail(err, st, "%s: truncated checkpoint (shorter than its header)", path);
        goto fail;
    }
    memcpy(f, h + sizeof MAGIC, sizeof f);
    if (memcmp(h, MAGIC, sizeof MAGIC)) {
        rl_fail(err, st, "%s: not a routelab checkpoint (bad magic)", path);
        goto fail;
    }
    if (f[H_VERSION] == 1) {
        rl_fail(err, st, "%s: checkpoint version 1 predates the position schemes of version %d "
                "(rotation, mode, alibi); this routelab does not read it: train it again", path,
                RL_CKPT_VERSION);
        goto fail;
    }
    if (f[H_VERSION] != RL_CKPT_VERSION) {
        rl_fail(err, st, "%s: checkpoint version %lld, this routelab reads %d", path,
                (long long)f[H_VERSION], RL_CKPT_VERSION);
        goto fail;
    }
    double dp;
    memcpy(&dp, &f[H_DROPOUT], 8);
    rl_gpt_config cfg = { (int)f[H_LAYERS], (int)f[H_WIDTH], (int)f[H_HEADS], (int)f[H_CTX],
                          (int)f[H_VOCAB], (float)dp,
                          { (int)f[H_ROT], (int)f[H_MODE], (int)f[H_ALIBI], (int)f[H_PATH] } };
    char why[160];
    if (f[H_LAYERS] > 4096 || f[H_WIDTH] > 1 << 16 || f[H_CTX] > 1 << 24 ||
        rl_gpt_config_check(&cfg, why, sizeof why) || rl_gpt_param_count(&cfg) != f[H_NPARAMS]) {
        rl_fail(err, st, "%s: corrupt checkpoint (inconsistent configuration)", path);
        goto fail;
    }
    const size_t np = sizeof(float) * (size_t)f[H_NPARAMS];
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    if (size < 0 || (size_t)size != sizeof h + 3 * np + 8) {
        rl_fail(err, st, "%s: truncated or padded checkpoint (%ld bytes, expected %zu)", path, size,
                sizeof h + 3 * np + 8);
        goto fail;
    }
    fseek(fp, (long)sizeof h, SEEK_SET);
    m = rl_gpt_alloc(&cfg, B);
    uint64_t stored;
    if (fread(m->params, 1, np, fp) != np || fread(m->adam, 1, 2 * np, fp) != 2 * np ||
        fread(&stored, 8, 1, fp) != 1) {
        rl_fail(err, st, "%s: read error", path);
        goto fail;
    }
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, h, sizeof h);
    sum = rl_fnv64(sum, m->params, np);
    sum = rl_fnv64(sum, m->adam, 2 * np);
    if (sum != stored) {
        rl_fail(err, st, "%s: corrupt checkpoint (checksum mismatch)", path);
        goto fail;
    }
    fclose(fp);
    m->adam_t = f[H_ADAM_T];
    mt->step = f[H_STEP];
    mt->steps = f[H_STEPS];
    mt->batch = (int)f[H_BATCH];
    mt->accum = (int)f[H_ACCUM];
    mt->seed = (uint64_t)f[H_SEED];
    mt->val_every = f[H_VAL_EVERY];
    mt->val_batches = f[H_VAL_BATCHES];
    mt->data_n = f[H_DATA_N];
    mt->data_hash = (uint64_t)f[H_DATA_HASH];
    memcpy(mt->lr, h + sizeof MAGIC + sizeof f, 128);
    mt->lr[127] = 0;
    *out = m;
    return RL_OK;
fail:
    rl_gpt_free(m);
    fclose(fp);
    return st;
}

rl_status rl_ckpt_open_eval(const char *cmd, const char *ckpath, const char *data, rl_gpt **m,
                            rl_ckpt_meta *meta, rl_dataset *ds, rl_err *err)
{
    *m = NULL;
    if (!ckpath || !data)
        return rl_fail(err, RL_EINPUT, "--ckpt and --data are required");
    RL_TRY(rl_ckpt_load(ckpath, 1, m, meta, err));
    (void)cmd;
    return rl_data_load(data, (*m)->cfg.vocab, ds, err);
}

rl_status rl_eval_check_lengths(const long *L, int n, long minlen, const rl_dataset *ds,
                                const char *data, long *maxL, rl_err *err)
{
    *maxL = 0;
    for (int i = 0; i < n; i++) {
        if (L[i] < minlen)
            return rl_fail(err, RL_EINPUT, "length %ld must be at least %ld", L[i], minlen);
        if (L[i] + 1 > ds->val.n)
            return rl_fail(err, RL_EINPUT,
                           "length %ld needs %ld validation tokens; the validation stream of %s has %ld",
                           L[i], L[i] + 1, data, ds->val.n);
        *maxL = L[i] > *maxL ? L[i] : *maxL;
    }
    return RL_OK;
}
