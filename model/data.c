/* data.c: token files (llm.c, nanoGPT, raw bytes) and data sets. */
#include "data.h"

#include "../sampling/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/util.h"

uint64_t rl_fnv64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The whole file in memory. */
static unsigned char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read %s: %s", path, fp ? "not a regular file" : strerror(errno));
        if (fp)
            fclose(fp);
        return NULL;
    }
    unsigned char *buf = rl_xmalloc((size_t)st.st_size + 1);
    size_t got = fread(buf, 1, (size_t)st.st_size, fp);
    int bad = ferror(fp) || got != (size_t)st.st_size;
    fclose(fp);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

int rl_tokens_read(const char *path, int vocab, rl_tokens *t, char *err, size_t errlen)
{
    size_t len;
    unsigned char *buf = slurp(path, &len, err, errlen);
    if (!buf)
        return -1;
    const unsigned char *ids = buf;
    long n;
    int wide = 1;
    int32_t hdr[3] = { 0, 0, 0 };
    if (len >= sizeof hdr)
        memcpy(hdr, buf, sizeof hdr);
    const size_t hbytes = RL_LLMC_HEADER_INTS * sizeof(int32_t);
    if (!ends_with(path, ".bin")) {
        wide = 0;
        n = (long)len;
    } else if (hdr[0] == RL_LLMC_MAGIC) {
        if (hdr[1] != 1) {
            snprintf(err, errlen, "%s: llm.c header has version %d, expected 1", path, hdr[1]);
            goto fail;
        }
        if (len < hbytes || hdr[2] < 0 || len != hbytes + 2 * (size_t)hdr[2]) {
            snprintf(err, errlen, "%s: truncated or corrupt: header says %d tokens (%zu bytes), "
                     "file has %zu bytes", path, hdr[2], hbytes + 2 * (size_t)(hdr[2] < 0 ? 0 : hdr[2]), len);
            goto fail;
        }
        ids = buf + hbytes;
        n = hdr[2];
    } else {
        if (len % 2) {
            snprintf(err, errlen, "%s: truncated: headerless uint16 token file of odd length %zu "
                     "(llm.c files start with magic %d)", path, len, RL_LLMC_MAGIC);
            goto fail;
        }
        n = (long)(len / 2);
    }
    if (n == 0) {
        snprintf(err, errlen, "%s: no tokens", path);
        goto fail;
    }
    t->tok = rl_xmalloc(sizeof(uint16_t) * n);
    t->n = n;
    for (long i = 0; i < n; i++) {
        unsigned id = wide ? (unsigned)ids[2 * i] | (unsigned)ids[2 * i + 1] << 8 : ids[i];
        if (id >= (unsigned)vocab) {
            snprintf(err, errlen, "%s: token id %u at index %ld is outside the vocabulary of %d",
                     path, id, i, vocab);
            free(t->tok);
            t->tok = NULL;
            goto fail;
        }
        t->tok[i] = (uint16_t)id;
    }
    free(buf);
    return 0;
fail:
    free(buf);
    return -1;
}

void rl_data_load(const char *cmd, const char *path, int vocab, rl_dataset *d)
{
    char err[512];
    struct stat st;
    memset(d, 0, sizeof *d);
    if (stat(path, &st) != 0)
        rl_die("%s: cannot read %s: %s", cmd, path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char *tr = rl_path_join(path, "train.bin"), *va = rl_path_join(path, "val.bin");
        if (rl_tokens_read(tr, vocab, &d->train, err, sizeof err) ||
            rl_tokens_read(va, vocab, &d->val, err, sizeof err))
            rl_die("%s: %s", cmd, err);
        free(tr);
        free(va);
        return;
    }
    rl_tokens all;
    if (rl_tokens_read(path, vocab, &all, err, sizeof err))
        rl_die("%s: %s", cmd, err);
    long ntr = all.n - all.n / 10;
    if (all.n / 10 < 2)
        rl_die("%s: %s has %ld tokens, too few to split 90/10", cmd, path, all.n);
    d->train.tok = all.tok;
    d->train.n = ntr;
    d->val.tok = rl_xmalloc(sizeof(uint16_t) * (all.n - ntr));
    d->val.n = all.n - ntr;
    memcpy(d->val.tok, all.tok + ntr, sizeof(uint16_t) * d->val.n);
}

void rl_data_free(rl_dataset *d)
{
    free(d->train.tok);
    free(d->val.tok);
    memset(d, 0, sizeof *d);
}

void rl_tokens_write(const char *path, const uint16_t *tok, long n)
{
    if (n > INT32_MAX)
        rl_die("data: %ld tokens exceed the llm.c header's int32 count", n);
    int32_t hdr[RL_LLMC_HEADER_INTS] = { RL_LLMC_MAGIC, 1, (int32_t)n };
    rl_outfile *o = rl_outfile_open(path);
    fwrite(hdr, sizeof hdr, 1, o->f);
    fwrite(tok, sizeof(uint16_t), (size_t)n, o->f);
    rl_outfile_commit(o);
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
