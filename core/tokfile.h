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

typedef struct {
    uint16_t *tok;
    long n;
} rl_tokens;

/* Read one file as above, checking every id < vocab.  RL_OK, or RL_EINPUT
 * with a one-line reason naming the file. */
rl_status rl_tokens_read(const char *path, int vocab, rl_tokens *t, rl_err *err);

/* Write tokens as an llm.c token file through a temporary and a rename
 * (RL_EINPUT: more tokens than the int32 header counts, or the file cannot
 * be written). */
rl_status rl_tokens_write(const char *path, const uint16_t *tok, long n, rl_err *err);

/* FNV-1a (64 bit) over 8-byte words, then the tail bytes: checksums of
 * checkpoints and the identity of a training stream. */
uint64_t rl_fnv64(uint64_t h, const void *p, size_t n);
#define RL_FNV64_INIT 0xcbf29ce484222325ULL

#endif
