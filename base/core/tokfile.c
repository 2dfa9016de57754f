/* tokfile.c: token files (llm.c, nanoGPT, raw bytes); see tokfile.h. */
#include "tokfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

rl_status rl_tokens_read(const char *path, int vocab, rl_tokens *t, rl_err *err)
{
    memset(&t->id, 0, sizeof t->id);
    size_t len;
    char *raw;
    /* a .bin file is a token file, anything else text: each its own limit */
    RL_TRY(rl_read_regular(path, ends_with(path, ".bin") ? RL_MAX_TOKEN_FILE : RL_MAX_TEXT_FILE, &raw, &len,
                           err));
    unsigned char *buf = (unsigned char *)raw;
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
            rl_fail(err, RL_EINPUT, "%s: llm.c header has version %d, expected 1", path, hdr[1]);
            goto fail;
        }
        if (len < hbytes || hdr[2] < 0 || len != hbytes + 2 * (size_t)hdr[2]) {
            rl_fail(err, RL_EINPUT, "%s: truncated or corrupt: header says %d tokens (%zu bytes), "
                     "file has %zu bytes", path, hdr[2], hbytes + 2 * (size_t)(hdr[2] < 0 ? 0 : hdr[2]), len);
            goto fail;
        }
        ids = buf + hbytes;
        n = hdr[2];
        int32_t w[4];
        memcpy(w, buf + 3 * sizeof(int32_t), sizeof w);
        t->id.set = (uint64_t)(uint32_t)w[0] | (uint64_t)(uint32_t)w[1] << 32;
        t->id.tokenizer = (uint64_t)(uint32_t)w[2] | (uint64_t)(uint32_t)w[3] << 32;
    } else {
        if (len % 2) {
            rl_fail(err, RL_EINPUT, "%s: truncated: headerless uint16 token file of odd length %zu "
                     "(llm.c files start with magic %d)", path, len, RL_LLMC_MAGIC);
            goto fail;
        }
        n = (long)(len / 2);
    }
    if (n == 0) {
        rl_fail(err, RL_EINPUT, "%s: no tokens", path);
        goto fail;
    }
    t->tok = rl_alloc(sizeof(uint16_t) * n, err);
    if (!t->tok) {
        free(buf);
        return RL_ENOMEM;
    }
    t->n = n;
    for (long i = 0; i < n; i++) {
        unsigned id = wide ? (unsigned)ids[2 * i] | (unsigned)ids[2 * i + 1] << 8 : ids[i];
        if (id >= (unsigned)vocab) {
            rl_fail(err, RL_EINPUT, "%s: token id %u at index %ld is outside the vocabulary of %d",
                     path, id, i, vocab);
            free(t->tok);
            t->tok = NULL;
            goto fail;
        }
        t->tok[i] = (uint16_t)id;
    }
    free(buf);
    return RL_OK;
fail:
    free(buf);
    return RL_EINPUT;
}

rl_status rl_tokens_write(const char *path, const uint16_t *tok, long n, const rl_tokens_id *id, rl_err *err)
{
    if (n > INT32_MAX)
        return rl_fail(err, RL_EINPUT, "%s: %ld tokens exceed the llm.c header's int32 count", path, n);
    int32_t hdr[RL_LLMC_HEADER_INTS] = { RL_LLMC_MAGIC, 1, (int32_t)n };
    if (id) { /* words 3-6: the set's identity (tokfile.h) */
        hdr[3] = (int32_t)(uint32_t)id->set, hdr[4] = (int32_t)(uint32_t)(id->set >> 32);
        hdr[5] = (int32_t)(uint32_t)id->tokenizer, hdr[6] = (int32_t)(uint32_t)(id->tokenizer >> 32);
    }
    rl_outfile *o;
    RL_TRY(rl_outfile_create(path, &o, err));
    fwrite(hdr, sizeof hdr, 1, o->f);
    fwrite(tok, sizeof(uint16_t), (size_t)n, o->f);
    return rl_outfile_close(o, err);
}


uint64_t rl_tokens_tokenizer_id(const void *model, size_t len)
{
    return rl_fnv64(RL_FNV64_INIT, model, len) | 1;
}

rl_tokens_id rl_tokens_set_id(const rl_tokens *train, const rl_tokens *val, const void *model, size_t len)
{
    rl_tokens_id id = { 0, 0 };
    uint64_t h = rl_fnv64(RL_FNV64_INIT, train->tok, sizeof(uint16_t) * (size_t)train->n);
    h = rl_fnv64(h, val->tok, sizeof(uint16_t) * (size_t)val->n);
    if (model && len) {
        id.tokenizer = rl_tokens_tokenizer_id(model, len);
        h = rl_fnv64(h, &id.tokenizer, sizeof id.tokenizer);
    }
    id.set = h | 1; /* never 0: 0 is "no identity" */
    return id;
}
