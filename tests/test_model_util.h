/* test_model_util.h: small helpers shared by the model tests. */
#ifndef RL_TEST_MODEL_UTIL_H
#define RL_TEST_MODEL_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "../model/config.h"
#include "../sampling/rng.h"

/* n normal draws of standard deviation sd from stream 0 of seed. */
static inline void tm_randn(float *x, long n, uint64_t seed, float sd)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, seed, 0);
    for (long i = 0; i < n; i++)
        x[i] = (float)(sd * rl_normal(r));
    gsl_rng_free(r);
}

/* The scheme of a study name ("rope", "random_qkv", "alibi", ...). */
static inline rl_pos_config tm_pos(const char *name)
{
    rl_pos_config p;
    char err[256];
    if (rl_pos_parse(name, -1, &p, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    return p;
}

#endif
