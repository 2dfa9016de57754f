/* bpe.c: byte-fallback BPE token data sets; see bpe.h. */
#include "bpe.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/core/lock.h"
#include "../base/core/util.h"
#include "data.h"
#include "spm.h"

/* Length of the UTF-8 character at b[0..n) (strict: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when it is not one. */
static size_t utf8_len(const unsigned char *b, size_t n)
{
    unsigned c = b[0];
    if (c < 0x80)
        return 1;
    size_t k = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((b[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && b[1] < 0xA0) || (c == 0xED && b[1] > 0x9F) || (c == 0xF0 && b[1] < 0x90) ||
        (c == 0xF4 && b[1] > 0x8F))
        return 0;
    return k;
}

rl_status rl_bpe_check_text(const char *name, const char *text, size_t n, rl_err *err)
{
    const unsigned char *b = (const unsigned char *)text;
    size_t ctl = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == 0)
            return rl_fail(err, RL_EINPUT, "%s: binary input (a NUL byte at offset %zu); text only", name, i);
        if ((b[i] < 0x20 && !strchr("\t\n\v\f\r\x1b", b[i])) || b[i] == 0x7f)
            ctl++;
    }
    if (ctl * 100 > n)
        return rl_fail(err, RL_EINPUT, "%s: binary input (%zu of %zu bytes are control characters; "
                       "text has at most 1 in 100)", name, ctl, n);
    for (size_t i = 0, run = 0; i < n; i++) {
        run = b[i] == ' ' || b[i] == '\n' ? 0 : run + 1;
        if (run > RL_BPE_MAX_WORD)
            return rl_fail(err, RL_EINPUT, "%s: a word (a run without a space or newline) passes %d bytes "
                           "at offset %zu; SentencePiece's trainer breaks on such words, so they are "
                           "refused", name, RL_BPE_MAX_WORD, i);
    }
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(b + i, n - i);
        if (k == 0)
            return rl_fail(err, RL_EINPUT, "%s: not UTF-8 at offset %zu (SentencePiece would turn the "
                           "byte into U+FFFD, so it could not be given back exactly)", name, i);
        if (k == 3 && b[i] == 0xE2 && b[i + 1] == 0x96 && b[i + 2] == 0x81)
            return rl_fail(err, RL_EINPUT, "%s: holds U+2581 at offset %zu, SentencePiece's sign for a "
                           "space: it would come back as a space", name, i);
        i += k;
    }
    return RL_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir not starting with '.', sorted (malloc'ed, *n of them). */
static rl_status list_dir(const char *dir, char ***names, size_t *n, rl_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", dir, strerror(errno));
    size_t cap = 0;
    *names = NULL;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap)
            *names = rl_xrealloc(*names, sizeof **names * (cap = cap ? 2 * cap : 16));
        if (!((*names)[*n] = strdup(e->d_name))) {
            closedir(d);
            for (size_t i = 0; i < *n; i++)
                free((*names)[i]);
            free(*names);
            *names = NULL;
            *n = 0;
            return rl_fail(err, RL_EINTERNAL, "out of memory listing %s", dir);
        }
        (*n)++;
    }
    closedir(d);
    if (*n) /* qsort's base must not be NULL, even for no elements */
        qsort(*names, *n, sizeof **names, by_name);
    return RL_OK;
}

/* Append the checked text of the file path to *text. */
static rl_status append_file(const char *path, char **text, size_t *n, rl_err *err)
{
    char *buf;
    size_t len;
    RL_TRY(rl_read_regular(path, RL_MAX_TEXT_FILE, &buf, &len, err));
    rl_status s = rl_bpe_check_text(path, buf, len, err);
    if (s == RL_OK && *n + len > RL_MAX_TEXT_FILE)
        s = rl_fail(err, RL_EINPUT, "%s: the input passes %zu bytes", path, (size_t)RL_MAX_TEXT_FILE);
    if (s == RL_OK && len) {
        *text = rl_xrealloc(*text, *n + len + 1);
        memcpy(*text + *n, buf, len);
        *n += len;
    }
    free(buf);
    return s;
}

rl_status rl_bpe_read(const char *from, char **text, size_t *n, rl_err *err)
{
    struct stat st;
    *text = NULL;
    *n = 0;
    if (stat(from, &st) != 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", from, strerror(errno));
    rl_status s = RL_OK;
    if (S_ISDIR(st.st_mode)) {
        char **names = NULL;
        size_t k = 0;
        RL_TRY(list_dir(from, &names, &k, err));
        for (size_t i = 0; i < k; i++) {
            char *p = rl_path_join(from, names[i]);
            if (s == RL_OK)
                s = append_file(p, text, n, err);
            free(p);
            free(names[i]);
        }
        free(names);
    } else {
        s = append_file(from, text, n, err);
    }
    if (s == RL_OK && *n == 0)
        s = rl_fail(err, RL_EINPUT, "%s: empty input (no text to train on)", from);
    if (s != RL_OK) {
        free(*text);
        *text = NULL;
        *n = 0;
    }
    return s;
}

/* The bytes of ids[0..n) (malloc'ed, *len bytes); </s> is the NUL byte
 * that ends a document; RL_EINPUT naming the first id with no text. */
static rl_status decode_ids(const rl_spm *sp, const uint16_t *ids, long n, const char *name, char **out,
                            size_t *len, rl_err *err)
{
    size_t cap = 4096, o = 0;
    char *buf = rl_xmalloc(cap), piece[1024], msg[RL_SPM_MSG];
    const int eos = rl_spm_eos(sp);
    for (long i = 0; i < n; i++) {
        long k = 1;
        if (ids[i] == eos)
            piece[0] = '\0'; /* the end of a document: the byte data set's NUL */
        else
            k = rl_spm_piece(sp, ids[i], piece, sizeof piece, msg);
        if (k < 0 || (size_t)k == sizeof piece) {
            free(buf);
            return rl_fail(err, RL_EINPUT, "%s: token at index %ld: %s", name, i,
                           k < 0 ? msg : "a piece too long to decode");
        }
        if (o + (size_t)k > cap)
            buf = rl_xrealloc(buf, cap = 2 * cap + (size_t)k);
        memcpy(buf + o, piece, (size_t)k);
        o += (size_t)k;
    }
    *out = buf;
    *len = o;
    return RL_OK;
}

/* Append the ids of text[0..n) to t (grown as needed, *cap ids room). */
static rl_status encode_into(const rl_spm *sp, const char *text, size_t n, const char *part, rl_tokens *t,
                             size_t *cap, rl_err *err)
{
    int *ids;
    size_t k;
    char msg[RL_SPM_MSG];
    int st = rl_spm_encode(sp, text, n, &ids, &k, msg);
    if (st != 0)
        return rl_fail(err, (rl_status)st, "encoding the %s text: %s", part, msg);
    if ((size_t)t->n + k + 1 > *cap)
        t->tok = rl_xrealloc(t->tok, sizeof(uint16_t) * (*cap = 2 * ((size_t)t->n + k + 1)));
    for (size_t i = 0; i < k; i++)
        t->tok[t->n++] = (uint16_t)ids[i]; /* ids < pieces <= RL_BPE_VOCAB_MAX */
    free(ids);
    return RL_OK;
}

/* The ids of text[0..n) as uint16 tokens, checked to decode back to it.
 * docs: the text is documents each ended by a NUL byte (the last may have
 * none); each is encoded on its own and its NUL becomes </s>, so no piece
 * spans two documents and the boundaries stay. */
static rl_status encode_part(const rl_spm *sp, const char *text, size_t n, int docs, const char *part,
                             rl_tokens *t, long *ndocs, rl_err *err)
{
    size_t cap = 0;
    rl_status s = RL_OK;
    t->tok = NULL;
    t->n = 0;
    *ndocs = 0;
    if (!docs) {
        s = encode_into(sp, text, n, part, t, &cap, err);
    } else {
        for (size_t at = 0; s == RL_OK && at < n;) {
            const char *nul = memchr(text + at, '\0', n - at);
            size_t end = nul ? (size_t)(nul - text) : n;
            s = encode_into(sp, text + at, end - at, part, t, &cap, err);
            if (s == RL_OK && nul) {
                if ((size_t)t->n + 1 > cap)
                    t->tok = rl_xrealloc(t->tok, sizeof(uint16_t) * (cap = 2 * (size_t)t->n + 1));
                t->tok[t->n++] = (uint16_t)rl_spm_eos(sp);
                ++*ndocs;
            }
            at = end + 1;
        }
    }
    if (!t->tok)
        t->tok = rl_xmalloc(sizeof(uint16_t));
    char *back;
    size_t len;
    char name[64];
    snprintf(name, sizeof name, "the %s text", part);
    if (s == RL_OK && (s = decode_ids(sp, t->tok, t->n, name, &back, &len, err)) == RL_OK) {
        size_t i = 0;
        while (i < len && i < n && back[i] == text[i])
            i++;
        if (i < len || i < n)
            s = rl_fail(err, RL_EINPUT, "the %s text does not round-trip through the tokenizer: it "
                        "decodes differently from byte %zu on", part, i);
        free(back);
    }
    return s;
}

rl_status rl_bpe_check_vocab(int vocab, rl_err *err)
{
    if (vocab < RL_BPE_VOCAB_MIN || vocab > RL_BPE_VOCAB_MAX)
        return rl_fail(err, RL_EINPUT, "--vocab %d is out of range: %d..%d (256 byte pieces, <unk>, <s>, "
                       "</s> and at least one piece of text; ids are 16-bit)", vocab, RL_BPE_VOCAB_MIN,
                       RL_BPE_VOCAB_MAX);
    return RL_OK;
}

rl_status rl_bpe_make(const char *text, size_t n, int vocab, rl_bpe *b, rl_err *err)
{
    memset(b, 0, sizeof *b);
    RL_TRY(rl_bpe_check_vocab(vocab, err));
    size_t ntr = (size_t)rl_data_split((long)n);
    while (ntr > 0 && ((unsigned char)text[ntr] & 0xC0) == 0x80)
        ntr--; /* not inside a UTF-8 character */
    if (n - ntr < 2 || ntr < 2)
        return rl_fail(err, RL_EINPUT, "%zu bytes of text are too few to split 90/10", n);
    return rl_bpe_build(text, ntr, text + ntr, n - ntr, vocab, 0, b, err);
}

rl_status rl_bpe_build(const char *train, size_t ntr, const char *val, size_t nva, int vocab, int docs,
                       rl_bpe *b, rl_err *err)
{
    memset(b, 0, sizeof *b);
    RL_TRY(rl_bpe_check_vocab(vocab, err));
    char msg[RL_SPM_MSG], *lines = NULL;
    if (docs) { /* SentencePiece trains on lines: a document's end ends one */
        lines = rl_xmalloc(ntr ? ntr : 1);
        for (size_t i = 0; i < ntr; i++)
            lines[i] = train[i] ? train[i] : '\n';
    }
    int st = rl_spm_train(docs ? lines : train, ntr, vocab, &b->model, &b->model_len, msg);
    free(lines);
    if (st != 0) {
        int have, need;
        const char *rc = strstr(msg, "required_chars. ");
        if (rc && sscanf(rc, "required_chars. %d vs %d", &have, &need) == 2)
            return rl_fail(err, RL_EINPUT, "--vocab %d is too small for this text: its 256 byte pieces, "
                           "3 specials and %d characters need --vocab >= %d", vocab, need - 259, need);
        const char *hi = strstr(msg, "set it to a value <= ");
        if (hi && sscanf(hi, "set it to a value <= %d", &need) == 1)
            return rl_fail(err, RL_EINPUT, "--vocab %d is too large for this text: its training part "
                           "yields at most %d pieces", vocab, need);
        return rl_fail(err, (rl_status)st, "training the tokenizer: %s", msg);
    }
    rl_spm *sp = rl_spm_load(b->model, b->model_len, msg);
    if (!sp) {
        rl_bpe_free(b);
        return rl_fail(err, RL_EINTERNAL, "the trained tokenizer does not load: %s", msg);
    }
    b->pieces = rl_spm_size(sp);
    b->train_bytes = ntr;
    b->val_bytes = nva;
    rl_status s = RL_OK;
    if (docs && (rl_spm_eos(sp) < 0 || rl_spm_eos(sp) >= b->pieces))
        s = rl_fail(err, RL_EINTERNAL, "the trained tokenizer has no end-of-document piece </s>");
    if (s == RL_OK)
        s = encode_part(sp, train, ntr, docs, "training", &b->train, &b->train_docs, err);
    if (s == RL_OK)
        s = encode_part(sp, val, nva, docs, "validation", &b->val, &b->val_docs, err);
    rl_spm_free(sp);
    if (s != RL_OK)
        rl_bpe_free(b);
    return s;
}

void rl_bpe_free(rl_bpe *b)
{
    free(b->train.tok);
    free(b->val.tok);
    free(b->model);
    memset(b, 0, sizeof *b);
}

rl_status rl_bpe_write(const rl_bpe *b, const char *dir, rl_err *err)
{
    char *made;
    RL_TRY(rl_mkdirs_new(dir, &made, err));
    /* one writer per data folder: not half of two data sets (base/core/lock.h);
     * a folder another process holds is theirs, never undone */
    rl_lock *lk;
    RL_TRY(rl_lock_dir(dir, &lk, err));
    char *va = rl_path_join(dir, "val.bin"), *tr = rl_path_join(dir, "train.bin"),
         *mo = rl_path_join(dir, "tokenizer.model");
    rl_outfile *o = NULL;
    /* one set with its tokenizer (base/core/tokfile.h), tokenizer.model last */
    const rl_tokens_id id = rl_tokens_set_id(&b->train, &b->val, b->model, b->model_len);
    rl_status s = rl_tokens_write(va, b->val.tok, b->val.n, &id, err);
    int wrote = s == RL_OK;
    if (s == RL_OK && (s = rl_tokens_write(tr, b->train.tok, b->train.n, &id, err)) == RL_OK)
        wrote = 2;
    if (s == RL_OK && (s = rl_outfile_create(mo, &o, err)) == RL_OK) {
        fwrite(b->model, 1, b->model_len, o->f);
        s = rl_outfile_close(o, err);
    }
    if (s != RL_OK) { /* not part of a data set */
        if (wrote >= 1)
            unlink(va);
        if (wrote >= 2)
            unlink(tr);
        if (made)
            rl_rmtree(made);
    }
    rl_unlock(lk);
    free(made);
    free(va);
    free(tr);
    free(mo);
    return s;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

rl_status rl_bpe_decode(const char *model_path, const char *bin, FILE *out, rl_err *err)
{
    char *raw, msg[RL_SPM_MSG];
    size_t len;
    if (!ends_with(bin, ".bin"))
        return rl_fail(err, RL_EINPUT, "%s: not a token file (a .bin file, as data bpe writes)", bin);
    RL_TRY(rl_read_regular(model_path, RL_MAX_SMALL_FILE, &raw, &len, err));
    rl_spm *sp = len ? rl_spm_load(raw, len, msg) : NULL;
    const uint64_t mine = rl_tokens_tokenizer_id(raw, len);
    free(raw);
    if (!sp)
        return rl_fail(err, RL_EINPUT, "%s: not a SentencePiece tokenizer (%s)", model_path,
                       len ? msg : "empty file");
    rl_tokens t;
    rl_status s = rl_tokens_read(bin, rl_spm_size(sp), &t, err);
    if (s == RL_OK && t.id.tokenizer && t.id.tokenizer != mine) {
        free(t.tok);
        s = rl_fail(err, RL_EINPUT, "%s was not made with %s (another data bpe's tokenizer: a data command "
                    "stopped between its files?)", bin, model_path);
    }
    char *text = NULL;
    if (s == RL_OK) {
        s = decode_ids(sp, t.tok, t.n, bin, &text, &len, err);
        free(t.tok);
    }
    rl_spm_free(sp);
    if (s == RL_OK && (fwrite(text, 1, len, out) != len || fflush(out) != 0))
        s = rl_fail(err, RL_EINTERNAL, "writing the text of %s: %s", bin, strerror(errno));
    free(text);
    return s;
}
