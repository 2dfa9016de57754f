/* tokens.h: token sequences that drive token-dependent steps. */
#ifndef RL_TOKENS_H
#define RL_TOKENS_H

#include <stddef.h>

/* The bytes of a file as token ids 0..255.  Returns a malloc'ed array and
 * its length, or NULL with a one-line reason (unreadable or empty file). */
int *rl_tokens_read_bytes(const char *path, long *len, char *err, size_t errlen);

/* Unigram law of ids 0..vocab-1 in tok[0..n-1] into probs (vocab values). */
void rl_tokens_unigram(const int *tok, long n, int vocab, double *probs);

#endif
