/* bpe_docs.c: a BPE of a byte data set (data/brown), its split and its
 * documents kept; see bpe.h. */
#include "bpe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/core/util.h"

static int exists(const char *dir, const char *name)
{
    struct stat st;
    char *p = rl_path_join(dir, name);
    int ok = lstat(p, &st) == 0;
    free(p);
    return ok;
}

int rl_bpe_is_dataset(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (exists(dir, "train.bin") || exists(dir, "val.bin"));
}

/* The bytes of dir/name, a token file of ids < 256 (malloc'ed, *n bytes);
 * each of its documents checked to be text that round-trips. */
static rl_status read_part(const char *dir, const char *name, char **bytes, size_t *n, rl_err *err)
{
    char *p = rl_path_join(dir, name);
    rl_tokens t = { 0 };
    *bytes = NULL;
    rl_status s = RL_OK;
    if (!exists(dir, name))
        s = rl_fail(err, RL_EINPUT, "%s: a byte data set needs %s (as data brown writes)", dir, name);
    if (s == RL_OK && (s = rl_tokens_read(p, 256, &t, err)) != RL_OK)
        rl_err_prefix(err, "not a byte data set (data brown, data text)");
    if (s == RL_OK) {
        *bytes = rl_xmalloc((size_t)t.n + 1);
        for (long i = 0; i < t.n; i++)
            (*bytes)[i] = (char)t.tok[i];
        *n = (size_t)t.n;
        /* document by document: the NULs are their ends, not binary */
        long doc = 0;
        for (size_t at = 0; s == RL_OK && at < *n; doc++) {
            const char *nul = memchr(*bytes + at, '\0', *n - at);
            size_t end = nul ? (size_t)(nul - *bytes) : *n;
            char what[1200];
            snprintf(what, sizeof what, "%s, document %ld (bytes %zu..%zu)", p, doc, at, end);
            s = rl_bpe_check_text(what, *bytes + at, end - at, err);
            at = end + 1;
        }
    }
    free(t.tok);
    free(p);
    if (s != RL_OK) {
        free(*bytes);
        *bytes = NULL;
    }
    return s;
}

rl_status rl_bpe_make_dataset(const char *dir, int vocab, rl_bpe *b, rl_err *err)
{
    memset(b, 0, sizeof *b);
    RL_TRY(rl_bpe_check_vocab(vocab, err));
    char *tr = NULL, *va = NULL;
    size_t ntr = 0, nva = 0;
    rl_status s = read_part(dir, "train.bin", &tr, &ntr, err);
    if (s == RL_OK)
        s = read_part(dir, "val.bin", &va, &nva, err);
    if (s == RL_OK)
        s = rl_bpe_build(tr, ntr, va, nva, vocab, 1, b, err);
    free(tr);
    free(va);
    return s;
}
