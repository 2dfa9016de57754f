/* tokens.c: the unigram law of a token sequence, and uniform token draws. */
#include "tokens.h"
#include "rng.h"

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

void rl_tokens_draw(int vocab, long n, unsigned long seed, unsigned long stream, int *tok)
{
    rl_rng_local l; /* no allocation: the draw cannot fail */
    gsl_rng *r = rl_rng_local_init(&l);
    rl_rng_stream(r, seed, stream);
    for (long t = 0; t < n; t++)
        tok[t] = (int)gsl_rng_uniform_int(r, (unsigned long)vocab);
}
