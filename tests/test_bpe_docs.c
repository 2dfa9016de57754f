/* test_bpe_docs.c: `routelab data bpe --from DIR` on a byte data set (as
 * `data brown` writes: documents ended by a NUL byte, split by document):
 * the split and the document boundaries kept, </s> for each NUL, the exact
 * round trip part by part, training on the training documents only, the
 * same bytes on every run, and a `data text` set (no documents). */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/core/tokfile.h"
#include "helpers.h"

static char err[1 << 14], line[4096];

/* A Brown-like document k of about 3 KB: sentences of words and made-up
 * words (UTF-8 beyond ASCII among them), paragraphs ended by a newline, a
 * tab or a quote now and then; the text of `data brown` in miniature. */
static size_t make_doc(int k, const char *extra, char *out)
{
    static const char *const words[] = { "the", "jury", "said", "Friday", "an", "investigation", "of",
                                         "Atlanta's", "recent", "primary", "election", "produced", "\"no",
                                         "evidence\"", "that", "any", "irregularities", "took", "place",
                                         "naïve", "café", "—", "1,260", "(see", "below)", "α", "Grüße" };
    static const char *const syl[] = { "ka", "ro", "ti", "mun", "sel", "ve", "dra", "qu" };
    uint64_t s = 977u + 31u * (uint64_t)k;
    size_t o = 0;
    for (int p = 0; p < 6; p++) {
        if (p % 3 == 2)
            out[o++] = '\t';
        for (int w = 0; w < 70; w++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *x = (s >> 40) % 3 ? words[(s >> 33) % (sizeof words / sizeof *words)] : NULL;
            if (x) {
                o += (size_t)sprintf(out + o, "%s", x);
            } else {
                for (uint64_t j = 0, m = 1 + (s >> 20) % 3; j < m; j++)
                    o += (size_t)sprintf(out + o, "%s", syl[(s >> (24 + 3 * j)) % 8]);
            }
            out[o++] = w % 13 == 12 ? '.' : ' ';
            if (w % 13 == 12)
                out[o++] = ' ';
        }
        if (extra)
            o += (size_t)sprintf(out + o, "%s", extra);
        out[o++] = '\n';
    }
    return o;
}

/* dir/train.bin and dir/val.bin of bytes: documents 0..ntr-1 and ntr..
 * ntr+nva-1, each ended by a NUL (document `empty`, when >= 0, is empty);
 * the bytes of each part go to want[0] and want[1] (malloc'ed). */
static void write_set(const char *dir, int ntr, int nva, int empty, const char *val_extra, char *want[2],
                      size_t wn[2])
{
    char *doc = malloc(1 << 16);
    for (int part = 0; part < 2; part++) {
        int first = part ? ntr : 0, count = part ? nva : ntr;
        size_t cap = (size_t)count * 8192 + 16, n = 0;
        char *b = malloc(cap);
        uint16_t *t = malloc(sizeof *t * cap);
        for (int k = first; k < first + count; k++) {
            size_t m = k == empty ? 0 : make_doc(k, part ? val_extra : NULL, doc);
            memcpy(b + n, doc, m);
            n += m;
            b[n++] = '\0';
        }
        for (size_t i = 0; i < n; i++)
            t[i] = (unsigned char)b[i];
        char *p = th_path(dir, part ? "val.bin" : "train.bin");
        rl_err e;
        cr_assert_eq(rl_tokens_write(p, t, (long)n, NULL, &e), RL_OK, "%s", e.msg);
        want[part] = b;
        wn[part] = n;
        free(p);
        free(t);
    }
    free(doc);
}

static int bpe(int v, const char *from, const char *out)
{
    snprintf(line, sizeof line, "data bpe --vocab %d --from %s --out %s", v, from, out);
    return th_run(line, NULL, 0, err, sizeof err);
}

/* The decoded bytes of out/name (malloc'ed, *n of them). */
static char *decode(const char *out, const char *name, size_t *n)
{
    char *dst = th_path(out, "decoded"), *m = th_path(out, "tokenizer.model"), *bin = th_path(out, name);
    snprintf(line, sizeof line, "%s data decode --tokenizer %s %s > %s", getenv("ROUTELAB"), m, bin, dst);
    cr_assert_eq(system(line), 0, "decode failed: %s", line);
    FILE *f = fopen(dst, "rb");
    cr_assert(f);
    char *b = malloc(1 << 22);
    *n = fread(b, 1, 1 << 22, f);
    fclose(f);
    unlink(dst);
    free(dst);
    free(m);
    free(bin);
    return b;
}

static void assert_same(const char *what, const char *got, size_t ng, const char *want, size_t nw)
{
    size_t i = 0;
    while (i < ng && i < nw && got[i] == want[i])
        i++;
    cr_assert(i == ng && i == nw, "%s: decoded differs at byte %zu (%zu vs %zu bytes)", what, i, ng, nw);
}

static long count(const rl_tokens *t, uint16_t id)
{
    long c = 0;
    for (long i = 0; i < t->n; i++)
        c += t->tok[i] == id;
    return c;
}

/* Each part decodes to the byte data set's part exactly; one </s> (id 2) per
 * document, the last token of each part; the learned pieces are used. */
Test(bpe_docs, split_documents_and_exact_round_trip)
{
    char *d = th_tmpdir(), *src = th_path(d, "brown"), *out = th_path(d, "bpe");
    mkdir(src, 0755);
    char *want[2];
    size_t wn[2];
    write_set(src, 18, 2, 5, NULL, want, wn); /* document 5: empty */
    const int V = 600;
    cr_assert_eq(bpe(V, src, out), 0, "%s", err);
    const long docs[2] = { 18, 2 };
    for (int part = 0; part < 2; part++) {
        const char *name = part ? "val.bin" : "train.bin";
        size_t n;
        char *got = decode(out, name, &n);
        assert_same(name, got, n, want[part], wn[part]);
        char *p = th_path(out, name);
        rl_tokens t;
        rl_err e;
        cr_assert_eq(rl_tokens_read(p, V, &t, &e), RL_OK, "%s", e.msg);
        cr_assert_eq(count(&t, 2), docs[part], "%s: %ld </s> for %ld documents", name, count(&t, 2),
                     docs[part]);
        cr_assert_eq(t.tok[t.n - 1], 2, "%s does not end with </s>", name);
        cr_assert((double)wn[part] / (double)t.n > 1.5, "%s: %zu bytes in %ld tokens", name, wn[part], t.n);
        free(t.tok);
        free(p);
        free(got);
        free(want[part]);
    }
    th_rmdir(d);
    free(out);
    free(src);
    free(d);
}

/* The tokenizer learns from the training documents only: another val.bin
 * (here with a word repeated hundreds of times, which a tokenizer trained
 * on it would make a piece) gives the same tokenizer.model and train.bin
 * tokens (the header's set identity names the validation tokens too);
 * and a second run gives the same bytes of all three files. */
Test(bpe_docs, trained_on_training_documents_only_and_deterministic)
{
    char *d = th_tmpdir(), *s1 = th_path(d, "s1"), *s2 = th_path(d, "s2");
    mkdir(s1, 0755);
    mkdir(s2, 0755);
    char *want[2], *want2[2];
    size_t wn[2], wn2[2];
    write_set(s1, 12, 2, -1, NULL, want, wn);
    write_set(s2, 12, 2, -1, " zyxwvutsrq zyxwvutsrq zyxwvutsrq zyxwvutsrq", want2, wn2);
    cr_assert_neq(wn[1], wn2[1]);
    char *a = th_path(d, "a"), *a2 = th_path(d, "a2"), *b = th_path(d, "b");
    cr_assert_eq(bpe(500, s1, a), 0, "%s", err);
    cr_assert_eq(bpe(500, s1, a2), 0, "%s", err);
    cr_assert_eq(bpe(500, s2, b), 0, "%s", err);
    static const char *const files[] = { "train.bin", "val.bin", "tokenizer.model" };
    for (int i = 0; i < 3; i++) {
        snprintf(line, sizeof line, "cmp -s %s/%s %s/%s", a, files[i], a2, files[i]);
        cr_assert_eq(system(line), 0, "%s differs between two runs", files[i]);
        if (i == 1)
            continue;
        /* train.bin's tokens (after the llm.c header of 1024 bytes, whose
         * words 3-6 name the whole set, validation included: base/core/tokfile.h) */
        snprintf(line, sizeof line, "cmp -s %s %s/%s %s/%s", i == 0 ? "-i 1024" : "", a, files[i], b, files[i]);
        cr_assert_eq(system(line), 0, "%s depends on the validation documents", files[i]);
    }
    size_t n;
    char *got = decode(b, "val.bin", &n);
    assert_same("val.bin with the extra word", got, n, want2[1], wn2[1]);
    free(got);
    for (int i = 0; i < 2; i++) {
        free(want[i]);
        free(want2[i]);
    }
    th_rmdir(d);
    free(a);
    free(a2);
    free(b);
    free(s1);
    free(s2);
    free(d);
}

/* A `data text` set has no documents: no </s>, and still the exact bytes. */
Test(bpe_docs, text_data_set_without_documents)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *set = th_path(d, "set"), *out = th_path(d, "bpe");
    char *doc = malloc(1 << 16);
    FILE *f = fopen(txt, "wb");
    cr_assert(f);
    for (int k = 0; k < 10; k++) {
        size_t m = make_doc(k, NULL, doc);
        for (size_t i = 0; i < m; i++) /* ASCII: the split by position falls between characters */
            if ((unsigned char)doc[i] >= 0x80)
                doc[i] = 'x';
        fwrite(doc, 1, m, f);
    }
    fclose(f);
    snprintf(line, sizeof line, "data text %s --out %s", txt, set);
    cr_assert_eq(th_run(line, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(bpe(400, set, out), 0, "%s", err);
    size_t n0, n1, nt;
    char *g0 = decode(out, "train.bin", &n0), *g1 = decode(out, "val.bin", &n1);
    f = fopen(txt, "rb");
    char *want = malloc(1 << 20);
    nt = fread(want, 1, 1 << 20, f);
    fclose(f);
    cr_assert(n0 > 0 && n1 > 0);
    assert_same("train.bin", g0, n0, want, n0 < nt ? n0 : nt);
    assert_same("train.bin then val.bin", g1, n1, want + n0, nt - n0);
    rl_tokens t;
    rl_err e;
    char *p = th_path(out, "train.bin");
    cr_assert_eq(rl_tokens_read(p, 400, &t, &e), RL_OK, "%s", e.msg);
    cr_assert_eq(count(&t, 2), 0, "</s> in a set without documents");
    free(t.tok);
    free(p);
    free(g0);
    free(g1);
    free(want);
    free(doc);
    th_rmdir(d);
    free(out);
    free(set);
    free(txt);
    free(d);
}

/* </s> decodes to the NUL byte that ends a document. */
Test(bpe_docs, end_of_document_decodes_to_nul)
{
    char *d = th_tmpdir(), *src = th_path(d, "brown"), *out = th_path(d, "bpe");
    mkdir(src, 0755);
    char *want[2];
    size_t wn[2];
    write_set(src, 12, 2, -1, NULL, want, wn);
    cr_assert_eq(bpe(400, src, out), 0, "%s", err);
    const uint16_t ids[] = { 3 + 'h', 2, 3 + 'i', 2 };
    char *bin = th_path(d, "known.bin");
    rl_err e;
    cr_assert_eq(rl_tokens_write(bin, ids, 4, NULL, &e), RL_OK, "%s", e.msg);
    char *m = th_path(out, "tokenizer.model"), *dst = th_path(d, "known.out");
    snprintf(line, sizeof line, "%s data decode --tokenizer %s %s > %s", getenv("ROUTELAB"), m, bin, dst);
    cr_assert_eq(system(line), 0);
    FILE *f = fopen(dst, "rb");
    char got[16];
    size_t n = fread(got, 1, sizeof got, f);
    fclose(f);
    cr_assert(n == 4 && memcmp(got, "h\0i\0", 4) == 0, "decoded %zu bytes", n);
    free(want[0]);
    free(want[1]);
    free(dst);
    free(m);
    free(bin);
    th_rmdir(d);
    free(out);
    free(src);
    free(d);
}
