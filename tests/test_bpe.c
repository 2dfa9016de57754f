/* test_bpe.c: `routelab data bpe` and `data decode` (model/bpe.c through the
 * SentencePiece shim model/spm.cc): exact round trip, determinism, the ids
 * and header of the token files, the split, decoding a known file. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/core/tokfile.h"
#include "../model/data.h"
#include "helpers.h"

static char err[1 << 14], line[4096];

static void put(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    fwrite(s, 1, n, f);
    fclose(f);
}

static char *get(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n + 1);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* About 60 KB of prose with markdown, UTF-8 beyond ASCII (accents, CJK,
 * emoji, a combining accent, a BOM), tabs, CRLF, runs of spaces and blank
 * lines: the spacing SentencePiece would normalise by default. */
static void write_corpus(const char *path)
{
    static const char *const words[] = {
        "the", "rotation", "of", "each", "block", "mixes", "within", "T", "tokens,", "and",
        "**attention**", "`routelab`", "naïve", "café", "Grüße", "日本語", "テキスト", "😀", "e\xcc\x81",
        "—", "(see", "NOTES.md)", "1,260", "0.73–0.79", "α", "β", "x²",
    };
    const int nw = sizeof words / sizeof *words;
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fputs("\xef\xbb\xbf# A title\n\n", f);
    uint64_t s = 12345;
    for (int l = 0; l < 1200; l++) {
        static const char *const lead[] = { "", "", "  ", "\t", "- ", "    " };
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        fputs(lead[(s >> 33) % 6], f);
        int k = 4 + (int)((s >> 40) % 9);
        for (int w = 0; w < k; w++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((s >> 45) % 2) { /* a made-up word of 1-4 syllables: many pairs to merge */
                static const char *const syl[] = { "ka", "ro", "ti", "mun", "sel", "ve", "dra", "qu",
                                                   "io", "ne", "st", "por", "lé", "zu", "ch", "ya" };
                for (uint64_t j = 0, m = 1 + (s >> 20) % 4; j < m; j++)
                    fputs(syl[(s >> (24 + 4 * j)) % 16], f);
            } else {
                fputs(words[(s >> 33) % (uint64_t)nw], f);
            }
            fputs((s >> 50) % 11 == 0 ? "  " : w + 1 < k ? " " : "", f);
        }
        fputs(l % 17 == 0 ? " \r\n" : l % 23 == 0 ? "\n\n\n" : "\n", f);
    }
    fclose(f);
}

/* data bpe --vocab v --from from --out out; the exit status, stderr in err. */
static int bpe(int v, const char *from, const char *out)
{
    snprintf(line, sizeof line, "data bpe --vocab %d --from %s --out %s", v, from, out);
    return th_run(line, NULL, 0, err, sizeof err);
}

/* The decoded text of out/train.bin followed by that of out/val.bin. */
static char *decode_both(const char *out, size_t *n)
{
    char *dst = th_path(out, "decoded"), *m = th_path(out, "tokenizer.model");
    snprintf(line, sizeof line, "sh -c '%s data decode --tokenizer %s %s/train.bin && %s data decode "
             "--tokenizer %s %s/val.bin' > %s", getenv("ROUTELAB"), m, out, getenv("ROUTELAB"), m, out, dst);
    cr_assert_eq(system(line), 0, "decode failed: %s", line);
    char *b = get(dst, n);
    unlink(dst);
    free(dst);
    free(m);
    return b;
}

static void assert_round_trip(const char *from_text, const char *out)
{
    size_t a, b;
    char *want = get(from_text, &a), *got = decode_both(out, &b);
    size_t i = 0;
    while (i < a && i < b && want[i] == got[i])
        i++;
    cr_assert(i == a && i == b, "decoded text differs from the input at byte %zu (%zu vs %zu bytes)", i, b, a);
    free(want);
    free(got);
}

Test(bpe, round_trip_is_exact)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *out = th_path(d, "out");
    write_corpus(txt);
    cr_assert_eq(bpe(500, txt, out), 0, "%s", err);
    assert_round_trip(txt, out);
    /* the project's own README too, when the tests run from the tree */
    struct stat st;
    if (stat("README.md", &st) == 0) {
        char *o2 = th_path(d, "readme");
        cr_assert_eq(bpe(600, "README.md", o2), 0, "%s", err);
        assert_round_trip("README.md", o2);
        free(o2);
    }
    th_rmdir(d);
    free(out);
    free(txt);
    free(d);
}

Test(bpe, same_input_same_bytes)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *a = th_path(d, "a"), *b = th_path(d, "b");
    write_corpus(txt);
    cr_assert_eq(bpe(400, txt, a), 0, "%s", err);
    cr_assert_eq(bpe(400, txt, b), 0, "%s", err);
    static const char *const files[] = { "train.bin", "val.bin", "tokenizer.model" };
    for (int i = 0; i < 3; i++) {
        snprintf(line, sizeof line, "cmp -s %s/%s %s/%s", a, files[i], b, files[i]);
        cr_assert_eq(system(line), 0, "%s differs between two runs", files[i]);
    }
    th_rmdir(d);
    free(a);
    free(b);
    free(txt);
    free(d);
}

/* The token files are llm.c files whose ids fall in the vocabulary, the
 * learned pieces are used (ids past the 259 byte and special pieces, fewer
 * tokens than bytes), and the split is rl_data_split's. */
Test(bpe, token_files_header_ids_and_split)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *out = th_path(d, "out");
    write_corpus(txt);
    const int V = 700;
    cr_assert_eq(bpe(V, txt, out), 0, "%s", err);
    size_t nin;
    free(get(txt, &nin));
    long total = 0;
    for (int part = 0; part < 2; part++) {
        char *p = th_path(out, part ? "val.bin" : "train.bin");
        size_t n;
        char *raw = get(p, &n);
        int32_t h[3];
        memcpy(h, raw, sizeof h);
        cr_assert_eq(h[0], RL_LLMC_MAGIC);
        cr_assert_eq(h[1], 1);
        cr_assert_eq(n, RL_LLMC_HEADER_INTS * 4 + 2 * (size_t)h[2], "header count %d, %zu bytes", h[2], n);
        rl_tokens t;
        rl_err e;
        cr_assert_eq(rl_tokens_read(p, V, &t, &e), RL_OK, "%s", e.msg);
        int hi = 0;
        for (long i = 0; i < t.n; i++)
            hi = t.tok[i] > hi ? t.tok[i] : hi;
        cr_assert(hi < V && hi >= 259, "largest id %d (vocabulary %d)", hi, V);
        total += t.n;
        free(t.tok);
        free(raw);
        free(p);
    }
    cr_assert((double)nin / (double)total > 1.5, "%zu bytes in %ld tokens: the merges are not used", nin, total);
    /* train.bin decodes to the first rl_data_split bytes (moved back to the
     * start of a UTF-8 character) */
    char *m = th_path(out, "tokenizer.model"), *dst = th_path(d, "train.txt");
    snprintf(line, sizeof line, "%s data decode --tokenizer %s %s/train.bin > %s", getenv("ROUTELAB"), m,
             out, dst);
    cr_assert_eq(system(line), 0);
    size_t ntr;
    char *in = get(txt, &nin), *tr = get(dst, &ntr);
    size_t want = (size_t)rl_data_split((long)nin);
    while (((unsigned char)in[want] & 0xC0) == 0x80)
        want--;
    cr_assert_eq(ntr, want, "train part %zu bytes, split rule says %zu", ntr, want);
    free(in);
    free(tr);
    free(m);
    free(dst);
    th_rmdir(d);
    free(out);
    free(txt);
    free(d);
}

/* --from DIR: the files in name order, concatenated as they are. */
Test(bpe, folder_in_name_order)
{
    char *d = th_tmpdir(), *src = th_path(d, "src"), *out = th_path(d, "out"), *cat = th_path(d, "cat.txt");
    mkdir(src, 0755);
    char *big = th_path(d, "big.txt");
    write_corpus(big);
    size_t n;
    char *b = get(big, &n);
    static const char *const names[] = { "b.txt", "a.txt", "c.md" }; /* written out of order */
    size_t cut[4] = { 0, n / 3, 2 * n / 3, n };
    while (((unsigned char)b[cut[1]] & 0xC0) == 0x80)
        cut[1]++;
    while (((unsigned char)b[cut[2]] & 0xC0) == 0x80)
        cut[2]++;
    static const int order[] = { 1, 0, 2 }; /* a.txt gets the first third, b.txt the second */
    for (int i = 0; i < 3; i++) {
        char *p = th_path(src, names[i]);
        put(p, b + cut[order[i]], cut[order[i] + 1] - cut[order[i]]);
        free(p);
    }
    cr_assert_eq(bpe(500, src, out), 0, "%s", err);
    assert_round_trip(big, out);
    free(b);
    free(big);
    th_rmdir(d);
    free(cat);
    free(out);
    free(src);
    free(d);
}

/* Byte pieces follow <unk>, <s> and </s>: id 3 + b is the byte b, so a
 * hand-made file of byte ids decodes to known bytes, UTF-8 or not. */
Test(bpe, decode_of_a_known_file)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *out = th_path(d, "out");
    write_corpus(txt);
    cr_assert_eq(bpe(400, txt, out), 0, "%s", err);
    const char want[] = "hi \xc3\xa9\n";
    uint16_t ids[sizeof want - 1];
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        ids[i] = (uint16_t)(3 + (unsigned char)want[i]);
    char *bin = th_path(d, "known.bin"), *m = th_path(out, "tokenizer.model");
    rl_err e;
    cr_assert_eq(rl_tokens_write(bin, ids, (long)(sizeof ids / sizeof *ids), NULL, &e), RL_OK, "%s", e.msg);
    char got[64];
    snprintf(line, sizeof line, "data decode --tokenizer %s %s", m, bin);
    cr_assert_eq(th_run(line, got, sizeof got, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(got, want);
    /* a token file whose header names another tokenizer
     * (a data bpe stopped between its renames) is refused, not decoded */
    const rl_tokens_id other = { 3, 5 };
    cr_assert_eq(rl_tokens_write(bin, ids, (long)(sizeof ids / sizeof *ids), &other, &e), RL_OK, "%s", e.msg);
    cr_assert_eq(th_run(line, got, sizeof got, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "was not made with") != NULL, "%s", err);
    /* and the set data bpe wrote decodes: its files name its own tokenizer */
    char *val = th_path(out, "val.bin");
    snprintf(line, sizeof line, "data decode --tokenizer %s %s", m, val);
    static char whole[1 << 16];
    cr_assert_eq(th_run(line, whole, sizeof whole, err, sizeof err), 0, "%s", err);
    free(val);
    free(m);
    free(bin);
    th_rmdir(d);
    free(out);
    free(txt);
    free(d);
}

/* SentencePiece runs a tokenizer's own self-test when it loads it, and logs
 * each failing sample to std::cerr (LOG(INFO)) before it refuses the model;
 * loading runs at the library's default log level.  A tokenizer.model with
 * a failing sample appended (ModelProto field 4, self_test_data: one sample
 * "hi" expected as "zz") is refused in routelab's one line, with none of the
 * library's own. */
Test(bpe, a_tokenizer_failing_its_self_test_is_one_line)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *out = th_path(d, "out");
    write_corpus(txt);
    cr_assert_eq(bpe(400, txt, out), 0, "%s", err);
    char *m = th_path(out, "tokenizer.model"), *bin = th_path(out, "val.bin");
    /* sample {input "hi", expected "zz"} in samples (1) of field 4 */
    static const unsigned char self_test[] = { 0x22, 0x0a, 0x0a, 0x08, 0x0a, 0x02, 'h', 'i', 0x12, 0x02, 'z', 'z' };
    FILE *f = fopen(m, "ab");
    cr_assert(f);
    cr_assert_eq(fwrite(self_test, 1, sizeof self_test, f), sizeof self_test);
    fclose(f);
    snprintf(line, sizeof line, "data decode --tokenizer %s %s", m, bin);
    char got[64];
    cr_expect_eq(th_run(line, got, sizeof got, err, sizeof err), 2, "%s", err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    cr_expect(strstr(err, "not a SentencePiece tokenizer (its own self-test fails: 1/1 samples did not pass") != NULL,
              "%s", err);
    free(m);
    free(bin);
    th_rmdir(d);
    free(out);
    free(txt);
    free(d);
}

/* What cannot come back exactly is refused (exit 2, one line) and nothing
 * is written: bytes that are not UTF-8 and SentencePiece's space sign. */
Test(bpe, refuses_what_cannot_round_trip)
{
    char *d = th_tmpdir(), *txt = th_path(d, "corpus.txt"), *out = th_path(d, "out");
    write_corpus(txt);
    size_t n;
    char *b = get(txt, &n);
    static const char *const bad[] = { "\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xe2\x96\x81" };
    static const char *const why[] = { "not UTF-8", "not UTF-8", "not UTF-8", "not UTF-8", "U\\+2581|U+2581" };
    for (int i = 0; i < 5; i++) {
        char *p = th_path(d, "bad.txt");
        size_t k = strlen(bad[i]);
        char *c = malloc(n + k);
        memcpy(c, b, n / 2);
        memcpy(c + n / 2, bad[i], k);
        memcpy(c + n / 2 + k, b + n / 2, n - n / 2);
        put(p, c, n + k);
        cr_assert_eq(bpe(500, p, out), 2, "case %d: %s", i, err);
        cr_assert_eq(th_lines(err), 1, "%s", err);
        cr_assert(strstr(err, i == 4 ? "U+2581" : "not UTF-8"), "case %d (%s): %s", i, why[i], err);
        struct stat st;
        cr_assert_neq(stat(out, &st), 0, "case %d left %s behind", i, out);
        free(c);
        free(p);
    }
    free(b);
    th_rmdir(d);
    free(out);
    free(txt);
    free(d);
}
