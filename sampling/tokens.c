/* tokens.c: the unigram law of a token sequence. */
#include "tokens.h"


void rl_tokens_unigram(const int *tok, long n, int vocab, double *probs)
{
    for (int v = 0; v < vocab; v++)
        probs[v] = 0;
    for (long t = 0; t < n; t++)
        if (tok[t] >= 0 && tok[t] < vocab)
            probs[tok[t]] += 1.0;
    for (int v = 0; v < vocab; v++)
        probs[v] /= (double)n;
}
