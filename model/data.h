/* data.h: token streams for training and evaluation.
 *
 * Formats read (all little-endian):
 *   - llm.c token files: 256 int32 header (magic 20240520, version 1, token
 *     count), then that many uint16 ids; the size must match the count.
 *   - nanoGPT train.bin / val.bin: headerless uint16 ids (even byte length).
 *   - any other file: its bytes as tokens 0..255 (byte-level vocabulary).
 * A file whose name ends in ".bin" is a token file (llm.c when it starts with
 * the magic, else nanoGPT); anything else is text.  `routelab data` writes the
 * llm.c format (self-describing, so truncation is detected). */
#ifndef RL_MODEL_DATA_H
#define RL_MODEL_DATA_H

#include <stddef.h>
#include <stdint.h>

#define RL_LLMC_MAGIC 20240520
#define RL_LLMC_HEADER_INTS 256

typedef struct {
    uint16_t *tok;
    long n;
} rl_tokens;

typedef struct {
    rl_tokens train, val;
} rl_dataset;

/* Read one file as above, checking every id < vocab.  0 on success, else -1
 * with a one-line reason in err. */
int rl_tokens_read(const char *path, int vocab, rl_tokens *t, char *err, size_t errlen);

/* A data set from DIR (DIR/train.bin and DIR/val.bin) or from one FILE,
 * split by position: the first 90% trains, the last 10% validates.  Dies
 * (status 2, naming cmd) on any error. */
void rl_data_load(const char *cmd, const char *path, int vocab, rl_dataset *d);
void rl_data_free(rl_dataset *d);

/* The evaluation protocol's window w of length L (L + 1 tokens with the
 * targets) in the stream t: a uniform random start from stream (seed + L, w);
 * *key receives the window's own key for rotation noise (random, lf).
 * eval and probe draw the same windows. */
long rl_data_window(const rl_tokens *t, long L, uint64_t seed, long w, uint64_t *key);

/* Write tokens as an llm.c token file through a temporary and a rename. */
void rl_tokens_write(const char *path, const uint16_t *tok, long n);

/* FNV-1a (64 bit) over 8-byte words, then the tail bytes: checksums of
 * checkpoints and the identity of a training stream. */
uint64_t rl_fnv64(uint64_t h, const void *p, size_t n);
#define RL_FNV64_INIT 0xcbf29ce484222325ULL

#endif
