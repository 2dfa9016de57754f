/* rng.h: reproducible random streams on top of GSL's generator interface.
 *
 * Every unit of work (a matrix, a route, a Monte Carlo replicate) draws from
 * its own stream, keyed by (seed, stream id), never from a per-thread
 * generator: the numbers a work item sees do not depend on which thread runs
 * it, so output is identical for any --threads.  The generator is xoshiro256++
 * registered as a gsl_rng_type, so all of GSL's distributions run on it; GSL's
 * own generators take 32-bit seeds, and 2^16 streams keyed that way collide
 * with probability about 1/2 (birthday bound), which this 256-bit state avoids. */
#ifndef RL_RNG_H
#define RL_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

extern const gsl_rng_type *rl_rng_xoshiro;

/* A generator of the project's type (free with gsl_rng_free); NULL when
 * memory runs out (the caller returns RL_ENOMEM: no message is recorded
 * here, the failure has one cause). */
gsl_rng *rl_rng_alloc(void);

/* A generator of the project's type in the caller's storage, for a stream
 * read within one call: nothing is allocated, so nothing can fail and
 * nothing is freed (the storage must outlive the generator's use).  Its
 * numbers are those of rl_rng_alloc's generator on the same stream:
 *     rl_rng_local l;
 *     gsl_rng *r = rl_rng_local_init(&l);
 *     rl_rng_stream(r, seed, stream); */
typedef struct {
    gsl_rng r;
    uint64_t state[4]; /* xoshiro256++'s 256 bits */
} rl_rng_local;
gsl_rng *rl_rng_local_init(rl_rng_local *l);

/* Position r at the start of stream `stream` of seed `seed`. */
void rl_rng_stream(gsl_rng *r, uint64_t seed, uint64_t stream);

/* Combine two keys into one stream id (for nested work items). */
uint64_t rl_stream_key(uint64_t a, uint64_t b);

/* n uniform doubles in [0, 1) into u: exactly gsl_rng_uniform(r) n times
 * (the same numbers, the same state after), with the project's generator
 * stepped inline rather than through GSL's function pointer: the SO(2)
 * route sweeps draw a block's angle per step and spent most of their time
 * in that call (docs/log/timings.md#timings). */
void rl_rng_uniform_fill(gsl_rng *r, int n, double *u);

/* 64 random bits: straight from the state for the project's generator,
 * two 32-bit draws for any other GSL generator. */
uint64_t rl_rng_next64(gsl_rng *r);

/* Selection sampling (Knuth's algorithm S): n of the N indices 0 .. N - 1,
 * uniformly, written ascending into idx (n <= N), one 64-bit draw per index
 * looked at (at most N): item j is taken with probability (still needed) /
 * (still available).  O(N) time, O(n) memory. */
void rl_rng_select(gsl_rng *r, long N, long n, long *idx);

/* Standard normal (GSL's ziggurat), and a uniform unit vector of R^d.  Wrapped
 * here so that files using OpenBLAS's cblas.h need not include gsl_randist.h,
 * whose gsl_cblas.h clashes with it. */
double rl_normal(gsl_rng *r);
void rl_unit_vector(gsl_rng *r, int d, double *w);

/* SplitMix64 finaliser: a bijective 64-bit mix. */
uint64_t rl_mix64(uint64_t x);

#endif
