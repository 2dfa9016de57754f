/* ckpt.c: checkpoint writing and checked loading (format in ckpt.h). */
#include "ckpt.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "data.h"
#include "train.h"
#include "trainopts.h"

static const char MAGIC[8] = { 'R', 'L', 'G', 'P', 'T', 'C', 'K', 'P' };

/* Header fields after the magic, each an int64 (dropout as its double's bits). */
enum { H_VERSION, H_LAYERS, H_WIDTH, H_HEADS, H_CTX, H_VOCAB, H_ROT, H_MODE, H_ALIBI, H_PATH,
       H_DROPOUT, H_STEP,
       H_STEPS, H_BATCH, H_ACCUM, H_SEED, H_VAL_EVERY, H_VAL_BATCHES, H_DATA_N, H_DATA_HASH,
       H_ADAM_T, H_NPARAMS, H_FIELDS };
#define HEADER_BYTES (sizeof MAGIC + 8 * H_FIELDS + 128)
/* version 3's extension after the header: the rotation base */
#define EXT_BYTES 8

/* The header (and the extension, when the model needs version 3) into h;
 * returns its length. */
static size_t put_header(unsigned char *h, const rl_gpt *m, const rl_ckpt_meta *mt)
{
    int64_t f[H_FIELDS];
    double dp = m->cfg.dropout;
    const int v3 = m->cfg.rot_base != RL_ROT_BASE_DEFAULT;
    f[H_VERSION] = v3 ? 3 : 2;
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
    if (!v3)
        return HEADER_BYTES;
    memcpy(h + HEADER_BYTES, &m->cfg.rot_base, EXT_BYTES);
    return HEADER_BYTES + EXT_BYTES;
}

long rl_ckpt_nonfinite(const rl_gpt *m, long *first)
{
    const size_t n = 3 * (size_t)m->nparams; /* the parameters, then m, then v */
    long bad = 0;
    *first = -1;
    for (size_t i = 0; i < n; i++) {
        const float x = i < (size_t)m->nparams ? m->params[i] : m->adam[i - (size_t)m->nparams];
        if (!isfinite(x)) {
            if (!bad)
                *first = (long)i;
            bad++;
        }
    }
    return bad;
}

/* Which array index i of rl_ckpt_nonfinite is in, for the message. */
static const char *state_part(const rl_gpt *m, long i)
{
    return i < m->nparams ? "parameter" : i < 2 * m->nparams ? "first AdamW moment" : "second AdamW moment";
}

rl_status rl_ckpt_save(const char *path, const rl_gpt *m, const rl_ckpt_meta *meta, rl_err *err)
{
    long first, bad = rl_ckpt_nonfinite(m, &first);
    if (bad) /* never a checkpoint that no run could continue from */
        return rl_fail(err, RL_EINPUT, "%s not written: %ld non-finite values (the first: %s %ld)", path, bad,
                       state_part(m, first), first % m->nparams);
    unsigned char h[HEADER_BYTES + EXT_BYTES];
    const size_t hn = put_header(h, m, meta);
    const size_t np = sizeof(float) * (size_t)m->nparams;
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, h, hn);
    sum = rl_fnv64(sum, m->params, np);
    sum = rl_fnv64(sum, m->adam, 2 * np);
    rl_outfile *o;
    RL_TRY(rl_outfile_create(path, &o, err));
    fwrite(h, hn, 1, o->f);
    fwrite(m->params, 1, np, o->f);
    fwrite(m->adam, 1, 2 * np, o->f);
    fwrite(&sum, sizeof sum, 1, o->f);
    return rl_outfile_close(o, err);
}

/* A field against the range of its flag (trainopts.c, the one definition),
 * as a 64-bit value before anything narrows it. */
#define FIELD(flag, v) RL_TRY(rl_train_opts_check_field(flag, (double)(v), err))
/* A field without a flag: lo <= v <= hi. */
#define BOUNDED(name, v, lo, hi)                                                           \
    do {                                                                                   \
        if ((v) < (lo) || (v) > (hi))                                                      \
            return rl_fail(err, RL_EINPUT, name " %lld is outside [%lld, %lld]",           \
                           (long long)(v), (long long)(lo), (long long)(hi));              \
    } while (0)

/* Every stored field, before use: the model's shape and the run's settings
 * with the ranges of their flags, the others with what a run writes. */
static rl_status check_fields(const int64_t *f, double dropout, const char *lr, rl_err *err)
{
    FIELD("layers", f[H_LAYERS]);
    FIELD("width", f[H_WIDTH]);
    FIELD("heads", f[H_HEADS]);
    FIELD("ctx", f[H_CTX]);
    FIELD("vocab", f[H_VOCAB]);
    BOUNDED("rotation code", f[H_ROT], 0, INT32_MAX); /* rl_gpt_config_check: a scheme's */
    BOUNDED("mode", f[H_MODE], RL_MODE_QK, RL_MODE_QKV);
    BOUNDED("alibi", f[H_ALIBI], 0, 1);
    BOUNDED("path", f[H_PATH], 0, INT32_MAX); /* rl_gpt_config_check: a scheme's */
    FIELD("dropout", dropout);
    FIELD("steps", f[H_STEPS]);
    BOUNDED("steps", f[H_STEPS], 1, INT64_MAX); /* rl_lr_plan sets it before a run saves */
    BOUNDED("step", f[H_STEP], 0, f[H_STEPS]);
    FIELD("batch", f[H_BATCH]);
    FIELD("accum", f[H_ACCUM]);
    FIELD("seed", f[H_SEED]);
    FIELD("val-every", f[H_VAL_EVERY]);
    FIELD("val-batches", f[H_VAL_BATCHES]);
    BOUNDED("data_n", f[H_DATA_N], f[H_CTX] + 1, INT64_MAX); /* a stream of ctx + 1 tokens */
    BOUNDED("adam_t", f[H_ADAM_T], f[H_STEP], f[H_STEP]);    /* one AdamW step per step */
    BOUNDED("nparams", f[H_NPARAMS], 1, INT64_MAX / 16);
    if (!memchr(lr, 0, 128))
        return rl_fail(err, RL_EINPUT, "lr is not a terminated string");
    rl_lr_schedule s;
    long total;
    if (rl_lr_plan(lr, f[H_STEPS], &s, &total, err))
        return RL_EINPUT;
    return RL_OK;
}

/* The header from fp (size bytes, path its name) into h (*hn bytes: the
 * extension too in version 3), its fields into f and the rotation base into
 * *base; RL_EINPUT for a file too short, of another kind or of a version this
 * routelab does not read. */
static rl_status read_header(FILE *fp, const char *path, size_t size, unsigned char *h, size_t *hn, int64_t *f,
                             double *base, rl_err *err)
{
    const rl_status st = RL_EINPUT;
    *hn = HEADER_BYTES;
    if (size < *hn || fread(h, *hn, 1, fp) != 1)
        return rl_fail(err, st, "%s: truncated checkpoint (shorter than its header)", path);
    memcpy(f, h + sizeof MAGIC, sizeof(int64_t) * H_FIELDS);
    if (memcmp(h, MAGIC, sizeof MAGIC))
        return rl_fail(err, st, "%s: not a routelab checkpoint (bad magic)", path);
    if (f[H_VERSION] == 1)
        return rl_fail(err, st, "%s: checkpoint version 1 predates the position schemes of version %d "
                       "(rotation, mode, alibi); this routelab does not read it: train it again", path,
                       RL_CKPT_VERSION);
    if (f[H_VERSION] != 2 && f[H_VERSION] != RL_CKPT_VERSION)
        return rl_fail(err, st, "%s: checkpoint version %lld, this routelab reads 2 and %d", path,
                       (long long)f[H_VERSION], RL_CKPT_VERSION);
    *base = RL_ROT_BASE_DEFAULT; /* version 2: the base before it was a setting */
    if (f[H_VERSION] == 3) {
        if (size < *hn + EXT_BYTES || fread(h + *hn, EXT_BYTES, 1, fp) != 1)
            return rl_fail(err, st, "%s: truncated checkpoint (shorter than its header)", path);
        memcpy(base, h + *hn, EXT_BYTES);
        *hn += EXT_BYTES;
    }
    return RL_OK;
}

/* The run's settings from the checked header fields f and its schedule's
 * text lr (128 bytes). */
static void get_meta(rl_ckpt_meta *mt, const int64_t *f, const char *lr)
{
    mt->step = f[H_STEP];
    mt->steps = f[H_STEPS];
    mt->batch = (int)f[H_BATCH];
    mt->accum = (int)f[H_ACCUM];
    mt->seed = (uint64_t)f[H_SEED];
    mt->val_every = f[H_VAL_EVERY];
    mt->val_batches = f[H_VAL_BATCHES];
    mt->data_n = f[H_DATA_N];
    mt->data_hash = (uint64_t)f[H_DATA_HASH];
    memcpy(mt->lr, lr, 128);
    mt->lr[127] = 0;
}

rl_status rl_ckpt_load(const char *path, int B, rl_gpt **out, rl_ckpt_meta *mt, rl_err *err)
{
    *out = NULL;
    /* a regular file only: a FIFO would block the read, a device never ends */
    FILE *fp;
    size_t size;
    rl_status open = rl_fopen_regular(path, RL_MAX_CKPT_FILE, &fp, &size, err);
    if (open != RL_OK) { /* "checkpoint: cannot read PATH: why": say which file it is */
        rl_err_prefix(err, "checkpoint");
        return open;
    }
    unsigned char h[HEADER_BYTES + EXT_BYTES];
    size_t hn;
    int64_t f[H_FIELDS] = { 0 }; /* read_header's: zero only to the compiler's eyes */
    rl_gpt *m = NULL;
    rl_status st = RL_EINPUT;
    double base;
    if (read_header(fp, path, size, h, &hn, f, &base, err))
        goto fail;
    double dp;
    memcpy(&dp, &f[H_DROPOUT], 8);
    if (check_fields(f, dp, (const char *)h + sizeof MAGIC + sizeof f, err) ||
        rl_train_opts_check_field("rot-base", base, err)) {
        rl_err_prefix(err, "%s: corrupt checkpoint", path);
        goto fail;
    }
    /* every field is now in its range: the narrowing below keeps its value */
    rl_gpt_config cfg = { (int)f[H_LAYERS], (int)f[H_WIDTH], (int)f[H_HEADS], (int)f[H_CTX],
                          (int)f[H_VOCAB], (float)dp,
                          { (int)f[H_ROT], (int)f[H_MODE], (int)f[H_ALIBI], (int)f[H_PATH] }, base };
    char why[160];
    if (rl_gpt_config_check(&cfg, why, sizeof why)) {
        rl_fail(err, st, "%s: corrupt checkpoint (%s)", path, why);
        goto fail;
    }
    if (rl_gpt_param_count(&cfg) != f[H_NPARAMS]) {
        rl_fail(err, st, "%s: corrupt checkpoint (nparams %lld, the configuration has %ld)", path,
                (long long)f[H_NPARAMS], rl_gpt_param_count(&cfg));
        goto fail;
    }
    size_t bytes; /* refuse what the machine cannot hold before reading on */
    const rl_status sb = rl_gpt_bytes(&cfg, B, &bytes, err);
    if (sb) { /* RL_EINPUT, or RL_ENOMEM counting the scheme's buffers */
        rl_err_prefix(err, "%s", path);
        st = sb;
        goto fail;
    }
    const size_t np = sizeof(float) * (size_t)f[H_NPARAMS];
    if (size != hn + 3 * np + 8) {
        rl_fail(err, st, "%s: truncated or padded checkpoint (%zu bytes, expected %zu)", path, size,
                hn + 3 * np + 8);
        goto fail;
    }
    st = rl_gpt_new(&m, &cfg, B, err);
    if (st) {
        rl_err_prefix(err, "%s", path);
        goto fail;
    }
    st = RL_EINPUT;
    uint64_t stored;
    if (fread(m->params, 1, np, fp) != np || fread(m->adam, 1, 2 * np, fp) != 2 * np ||
        fread(&stored, 8, 1, fp) != 1) {
        rl_fail(err, st, "%s: read error", path);
        goto fail;
    }
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, h, hn);
    sum = rl_fnv64(sum, m->params, np);
    sum = rl_fnv64(sum, m->adam, 2 * np);
    if (sum != stored) {
        rl_fail(err, st, "%s: corrupt checkpoint (checksum mismatch)", path);
        goto fail;
    }
    long first, bad = rl_ckpt_nonfinite(m, &first);
    if (bad) { /* a diverged state: eval of it would print NaN, a resume would train on NaN */
        rl_fail(err, st, "%s: the checkpoint holds %ld non-finite values (NaN or infinity; the first: %s %ld); "
                "it cannot be evaluated or resumed", path, bad, state_part(m, first), first % m->nparams);
        goto fail;
    }
    fclose(fp);
    m->adam_t = f[H_ADAM_T];
    get_meta(mt, f, (const char *)h + sizeof MAGIC + sizeof f);
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
    /* no training activations: evaluation has its own workspace, and a
     * checkpoint's context must not size buffers that are never used */
    RL_TRY(rl_ckpt_load(ckpath, 0, m, meta, err));
    (void)cmd;
    return rl_data_load(data, (*m)->cfg.vocab, ds, err);
}

rl_status rl_eval_check_lengths(const rl_gpt *m, const long *L, int n, long minlen,
                                const rl_dataset *ds, const char *data, long *maxL, rl_err *err)
{
    *maxL = 0;
    for (int i = 0; i < n; i++) {
        if (L[i] < minlen)
            return rl_fail(err, RL_EINPUT, "length %ld must be at least %ld", L[i], minlen);
        /* L + 1 tokens, compared as L >= n: L + 1 overflows at LONG_MAX */
        if (L[i] >= ds->val.n)
            return rl_fail(err, RL_EINPUT,
                           "length %ld needs %ld + 1 validation tokens; the validation stream of "
                           "%s has %ld", L[i], L[i], data, ds->val.n);
        *maxL = L[i] > *maxL ? L[i] : *maxL;
    }
    return m ? rl_gpt_eval_check(m, *maxL, err) : RL_OK;
}
