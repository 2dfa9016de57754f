/* bpe.h: a byte-fallback BPE (SentencePiece, through model/spm.h) and the
 * token data sets it makes: `routelab data bpe` and `routelab data decode`.
 *
 * The input is text: a file, or the files of a folder in byte order of their
 * names, concatenated as they are.  It is split like every data set
 * (rl_data_split: the first 90% of the bytes train), the cut moved back to
 * the start of the UTF-8 character it falls in; the tokenizer is trained on
 * the training part only.  Decoding train.bin then val.bin gives back the
 * input bytes exactly, which is checked before anything is written.
 *
 * The input may also be a byte data set (a folder holding train.bin and
 * val.bin, e.g. data/brown): its split is kept, and each document, ended by
 * a NUL byte there, is ended by the token </s> here (rl_bpe_make_dataset). */
#ifndef RL_MODEL_BPE_H
#define RL_MODEL_BPE_H

#include <stddef.h>
#include <stdio.h>

#include "../base/core/tokfile.h"

/* 256 byte pieces, <unk>, <s>, </s> and at least one piece of text; ids are
 * uint16 in the token files. */
#define RL_BPE_VOCAB_MIN 260
#define RL_BPE_VOCAB_MAX 65536
/* The longest word (bytes between spaces and newlines) given to SentencePiece.
 * Its BPE trainer packs a symbol's position in a word into 16 bits of an int
 * shifted left by 16 (bpe_model_trainer.h's EncodePos): from position 32768 the
 * shift overflows and it crashes (a 38,000-byte word: SIGSEGV, nothing on
 * stderr), from 65,536 its CHECK aborts.  Half the first unsafe length keeps a
 * margin for the space sign it prefixes and for multi-byte characters being
 * counted here as bytes. */
#define RL_BPE_MAX_WORD 16384

typedef struct {
    rl_tokens train, val;
    char *model; /* the serialised tokenizer (tokenizer.model) */
    size_t model_len;
    int pieces; /* the tokenizer's vocabulary: every id is below it */
    size_t train_bytes, val_bytes;
    long train_docs, val_docs; /* documents (</s> tokens); 0 for text */
} rl_bpe;

/* RL_EINPUT naming the range when vocab is outside it. */
rl_status rl_bpe_check_vocab(int vocab, rl_err *err);

/* Refuse what cannot be text that round-trips (name: for the message):
 * binary (a NUL byte, or more than 1 byte in 100 a control character other
 * than tab, newline, vertical tab, form feed, carriage return and escape),
 * bytes that are not UTF-8 (SentencePiece would turn them into U+FFFD) and
 * U+2581 (SentencePiece's sign for a space: it would come back as one), and
 * a word longer than RL_BPE_MAX_WORD bytes. */
rl_status rl_bpe_check_text(const char *name, const char *b, size_t n, rl_err *err);

/* The text of from (a file or a folder, as above), each file checked;
 * malloc'ed, n bytes (RL_EINPUT: unreadable, empty, binary, ...). */
rl_status rl_bpe_read(const char *from, char **text, size_t *n, rl_err *err);

/* Split, train a tokenizer of vocab pieces, encode both parts and check the
 * round trip (RL_EINPUT: vocab out of range or too small for the text's
 * characters, too little text to split). */
rl_status rl_bpe_make(const char *text, size_t n, int vocab, rl_bpe *b, rl_err *err);
void rl_bpe_free(rl_bpe *b);

/* The work of rl_bpe_make on a split already made: train on train[0..ntr),
 * encode it and val[0..nva), check the round trip.  docs: both parts are
 * documents each ended by a NUL byte (the last one may lack it); the
 * tokenizer trains on the training documents, each document is encoded on
 * its own and its NUL becomes </s> (SentencePiece's end-of-sentence id), which
 * decoding turns back into the NUL byte. */
rl_status rl_bpe_build(const char *train, size_t ntr, const char *val, size_t nva, int vocab, int docs,
                       rl_bpe *b, rl_err *err);

/* A byte data set: dir holds train.bin or val.bin (as `data brown` and
 * `data text` write), not a folder of text. */
int rl_bpe_is_dataset(const char *dir);

/* A BPE of the byte data set dir (model/bpe_docs.c): its own split kept,
 * documents ended by NUL (Brown's) ended by </s>.  RL_EINPUT: train.bin or
 * val.bin missing or not a token file of bytes (ids < 256), a document that
 * is not text (rl_bpe_check_text), and rl_bpe_build's reasons. */
rl_status rl_bpe_make_dataset(const char *dir, int vocab, rl_bpe *b, rl_err *err);

/* dir/train.bin, dir/val.bin (llm.c token files) and dir/tokenizer.model,
 * each through a temporary; on failure none of them (and no folder this
 * made) is left. */
rl_status rl_bpe_write(const rl_bpe *b, const char *dir, rl_err *err);

/* Write the text of the token file bin to out, with the tokenizer at
 * model_path; </s> is written as the NUL byte that ends a document
 * (RL_EINPUT: not a tokenizer, not a token file, an id with no text:
 * <unk>, <s>, an unused piece). */
rl_status rl_bpe_decode(const char *model_path, const char *bin, FILE *out, rl_err *err);

#endif
