/* tokfile.h: token files, read and written in one place.
 *
 * Formats read (all little-endian):
 *   - llm.c token files: 256 int32 header (magic 20240520, version 1, token
 *     count), then that many uint16 ids; the size must match the count.
 *   - nanoGPT train.bin / val.bin: headerless uint16 ids (even byte length).
 *   - any other file: its bytes as tokens 0..255 (byte-level vocabulary).
 * A file whose name ends in ".bin" is a token file (llm.c when it starts with
 * the magic, else nanoGPT); anything else is text.  Only regular files are
 * read (a device or a FIFO is refused).  `routelab data` writes the llm.c
 * format (self-describing, so truncation is detected).  The transformer's
 * data sets (model/data.h) and the token-driven step families
 * (sampling/family_cli.h) both read through rl_tokens_read. */
#ifndef RL_TOKFILE_H
#define RL_TOKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define RL_LLMC_MAGIC 20240520
#define RL_LLMC_HEADER_INTS 256

/* A data set's files are written one after another, each by a rename
 * (`routelab data`: val.bin, train.bin, then tokenizer.model): a writer
 * killed between two renames left half a set, or a new val.bin beside the
 * old train.bin.  So every file of a set carries the
 * set's identity in llm.c header words that llm.c leaves zero: words 3-4
 * the set (FNV-1a of the training then the validation tokens, then of the
 * tokenizer's bytes where there is one; never 0), words 5-6 the tokenizer's
 * own hash (0: none).  Readers compare them (rl_data_load,
 * rl_bpe_decode); a file without them (0) is an older set or another
 * producer's, read as before. */
typedef struct {
    uint64_t set, tokenizer;
} rl_tokens_id;

typedef struct {
    uint16_t *tok;
    long n;
    rl_tokens_id id; /* from the llm.c header; zeros for other files */
} rl_tokens;

/* Read one file as above, checking every id < vocab.  RL_OK, or RL_EINPUT
 * with a one-line reason naming the file. */
rl_status rl_tokens_read(const char *path, int vocab, rl_tokens *t, rl_err *err);

/* Write tokens as an llm.c token file through a temporary and a rename
 * (RL_EINPUT: more tokens than the int32 header counts, or the file cannot
 * be written); id (may be NULL: zeros) goes into the header. */
rl_status rl_tokens_write(const char *path, const uint16_t *tok, long n, const rl_tokens_id *id, rl_err *err);

/* The identity of the set of these training and validation tokens and this
 * tokenizer (model may be NULL, len 0: a byte-level set). */
/* The tokenizer's part of that identity: FNV-1a of its bytes, never 0. */
uint64_t rl_tokens_tokenizer_id(const void *model, size_t len);

rl_tokens_id rl_tokens_set_id(const rl_tokens *train, const rl_tokens *val, const void *model, size_t len);

/* FNV-1a (64 bit) over 8-byte words, then the tail bytes: checksums of
 * checkpoints and the identity of a training stream. */
uint64_t rl_fnv64(uint64_t h, const void *p, size_t n);
#define RL_FNV64_INIT 0xcbf29ce484222325ULL

#endif
