/* spm.h: the C face of SentencePiece (model/spm.cc, the project's one C++
 * file: the library has only a C++ API).  Every function catches every C++
 * exception; failures come back as a status (0 ok, 1 internal, 2 bad input,
 * the values of base/core/err.h) and one line in msg. */
#ifndef RL_MODEL_SPM_H
#define RL_MODEL_SPM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_SPM_MSG 400

typedef struct rl_spm rl_spm;

/* Train a byte-fallback BPE of vocab pieces on the lines of text[0..n)
 * (split at '\n', one thread, identity normalisation, no dummy prefix, no
 * whitespace removal, the library's logging silenced).  *model receives the
 * serialised model (malloc'ed, *len bytes). */
int rl_spm_train(const char *text, size_t n, int vocab, char **model, size_t *len, char msg[RL_SPM_MSG]);

/* A processor from a serialised model; NULL with the reason in msg. */
rl_spm *rl_spm_load(const char *model, size_t len, char msg[RL_SPM_MSG]);
void rl_spm_free(rl_spm *p);
int rl_spm_size(const rl_spm *p);

/* The id of </s>, the end of a sentence (-1 when the model has none). */
int rl_spm_eos(const rl_spm *p);

/* The ids of text[0..n) (*ids malloc'ed, *nids of them; NULL when n is 0). */
int rl_spm_encode(const rl_spm *p, const char *text, size_t n, int **ids, size_t *nids,
                  char msg[RL_SPM_MSG]);

/* The bytes piece id stands for, written to buf (cap >= 4 * the longest
 * piece; a byte piece "<0xAB>" is the one byte 0xAB, U+2581 is a space).
 * Returns the length, or -1 when the id has no text (out of range, <unk>, a
 * control piece such as <s>, an unused piece) with its name in msg. */
long rl_spm_piece(const rl_spm *p, int id, char *buf, size_t cap, char msg[RL_SPM_MSG]);

#ifdef __cplusplus
}
#endif

#endif
