/* bpe.h: a byte-fallback BPE (SentencePiece, through model/spm.h) and the
 * token data sets it makes: `routelab data bpe` and `routelab data decode`.
 *
 * The input is text: a file, or the files of a folder in byte order of their
 * names, concatenated as they are.  It is split like every data set
 * (rl_data_split: the first 90% of the bytes train), the cut moved back to
 * the start of the UTF-8 character it falls in; the tokenizer is trained on
 * the training part only.  Decoding train.bin then val.bin gives back the
 * input bytes exactly, which is checked before anything is written. */
#ifndef RL_MODEL_BPE_H
#define RL_MODEL_BPE_H

#include <stddef.h>
#include <stdio.h>

#include "../core/tokfile.h"

/* 256 byte pieces, <unk>, <s>, </s> and at least one piece of text; ids are
 * uint16 in the token files. */
#define RL_BPE_VOCAB_MIN 260
#define RL_BPE_VOCAB_MAX 65536

typedef struct {
    rl_tokens train, val;
    char *model; /* the serialised tokenizer (tokenizer.model) */
    size_t model_len;
    int pieces; /* the tokenizer's vocabulary: every id is below it */
    size_t train_bytes, val_bytes;
} rl_bpe;

/* RL_EINPUT naming the range when vocab is outside it. */
rl_status rl_bpe_check_vocab(int vocab, rl_err *err);

/* Refuse what cannot be text that round-trips (name: for the message):
 * binary (a NUL byte, or more than 1 byte in 100 a control character other
 * than tab, newline, vertical tab, form feed, carriage return and escape),
 * bytes that are not UTF-8 (SentencePiece would turn them into U+FFFD) and
 * U+2581 (SentencePiece's sign for a space: it would come back as one). */
rl_status rl_bpe_check_text(const char *name, const char *b, size_t n, rl_err *err);

/* The text of from (a file or a folder, as above), each file checked;
 * malloc'ed, n bytes (RL_EINPUT: unreadable, empty, binary, ...). */
rl_status rl_bpe_read(const char *from, char **text, size_t *n, rl_err *err);

/* Split, train a tokenizer of vocab pieces, encode both parts and check the
 * round trip (RL_EINPUT: vocab out of range or too small for the text's
 * characters, too little text to split). */
rl_status rl_bpe_make(const char *text, size_t n, int vocab, rl_bpe *b, rl_err *err);
void rl_bpe_free(rl_bpe *b);

/* dir/train.bin, dir/val.bin (llm.c token files) and dir/tokenizer.model,
 * each through a temporary; on failure none of them (and no folder this
 * made) is left. */
rl_status rl_bpe_write(const rl_bpe *b, const char *dir, rl_err *err);

/* Write the text of the token file bin to out, with the tokenizer at
 * model_path (RL_EINPUT: not a tokenizer, not a token file, an id with no
 * text). */
rl_status rl_bpe_decode(const char *model_path, const char *bin, FILE *out, rl_err *err);

#endif
