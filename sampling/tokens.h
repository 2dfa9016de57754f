/* tokens.h: token sequences that drive token-dependent steps. */
#ifndef RL_TOKENS_H
#define RL_TOKENS_H

#include <stddef.h>

/* Unigram law of ids 0..vocab-1 in tok[0..n-1] into probs (vocab values). */
void rl_tokens_unigram(const int *tok, long n, int vocab, double *probs);

/* n ids drawn uniformly from [0, vocab) into tok, from stream `stream`
 * of seed (token-so2's tokens when no text names them: `routelab sample`,
 * rl_sample). */
void rl_tokens_draw(int vocab, long n, unsigned long seed, unsigned long stream, int *tok);

#endif
