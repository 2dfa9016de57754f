/* rng.c: xoshiro256++ as a GSL generator, seeded per stream by SplitMix64. */
#include "rng.h"

#include "../base/core/err.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

typedef struct {
    uint64_t s[4];
} xoshiro_state;

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* One step of xoshiro256++ (Blackman & Vigna 2019):
 *   out = rotl(s0 + s3, 23) + s0,  then the linear state update. */
static inline uint64_t next64(xoshiro_state *st)
{
    uint64_t *s = st->s;
    uint64_t out = rotl(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t rl_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t rl_stream_key(uint64_t a, uint64_t b)
{
    return rl_mix64(rl_mix64(a + 0x9e3779b97f4a7c15ULL) ^ (b + 0x632be59bd9b4e019ULL));
}

/* Fill the 256-bit state with four SplitMix64 outputs from the key
 * (the seeding its authors recommend); the state is never all zero since
 * SplitMix64 is a bijection of distinct counters. */
static void seed_state(xoshiro_state *st, uint64_t key)
{
    uint64_t x = key;
    for (int i = 0; i < 4; i++) {
        x += 0x9e3779b97f4a7c15ULL;
        st->s[i] = rl_mix64(x);
    }
}

static void xo_set(void *vstate, unsigned long seed)
{
    seed_state(vstate, rl_stream_key((uint64_t)seed, 0));
}

/* GSL's ziggurat and integer samplers expect a 32-bit range: return the
 * high half, the best bits of the output. */
static unsigned long xo_get(void *vstate)
{
    return (unsigned long)(next64(vstate) >> 32);
}

/* 53 random bits in [0, 1): the top bits of one output. */
static inline double unit_double(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

static double xo_get_double(void *vstate)
{
    return unit_double(next64(vstate));
}

static const gsl_rng_type xoshiro_type = {
    "xoshiro256++", 0xffffffffUL, 0, sizeof(xoshiro_state), xo_set, xo_get, xo_get_double
};

const gsl_rng_type *rl_rng_xoshiro = &xoshiro_type;

gsl_rng *rl_rng_alloc(void)
{
    rl_gsl_quiet(); /* GSL's handler would abort when memory runs out */
    return gsl_rng_alloc(rl_rng_xoshiro); /* NULL when memory runs out */
}

/* gsl_rng is a public pair (type, state): one of the project's type over
 * the caller's storage is what gsl_rng_alloc would build, less the
 * malloc, seeded as gsl_rng_alloc seeds it (gsl_rng_set: the default seed). */
gsl_rng *rl_rng_local_init(rl_rng_local *l)
{
    _Static_assert(sizeof l->state == sizeof(xoshiro_state), "rl_rng_local holds xoshiro256++'s state");
    l->r.type = rl_rng_xoshiro;
    l->r.state = l->state;
    gsl_rng_set(&l->r, gsl_rng_default_seed);
    return &l->r;
}

void rl_rng_stream(gsl_rng *r, uint64_t seed, uint64_t stream)
{
    seed_state(r->state, rl_stream_key(seed, stream));
}

double rl_normal(gsl_rng *r)
{
    return gsl_ran_gaussian_ziggurat(r, 1.0);
}

/* A normalised Gaussian vector is uniform on the sphere (rotation
 * invariance); GSL's ziggurat is ~4x faster than the polar method that
 * gsl_ran_dir_nd uses. */
void rl_unit_vector(gsl_rng *r, int d, double *w)
{
    double s;
    do {
        s = 0;
        for (int i = 0; i < d; i++) {
            w[i] = gsl_ran_gaussian_ziggurat(r, 1.0);
            s += w[i] * w[i];
        }
    } while (s == 0);
    s = 1.0 / sqrt(s);
    for (int i = 0; i < d; i++)
        w[i] *= s;
}

void rl_rng_uniform_fill(gsl_rng *r, int n, double *u)
{
    if (r->type == &xoshiro_type) {
        xoshiro_state *st = r->state;
        for (int i = 0; i < n; i++)
            u[i] = unit_double(next64(st)); /* xo_get_double's number */
        return;
    }
    for (int i = 0; i < n; i++)
        u[i] = gsl_rng_uniform(r);
}

uint64_t rl_rng_next64(gsl_rng *r)
{
    if (r->type == &xoshiro_type)
        return next64(r->state);
    /* any other GSL generator: two 32-bit words from its uniform doubles */
    uint64_t hi = (uint64_t)(gsl_rng_uniform(r) * 4294967296.0);
    return (hi << 32) | (uint64_t)(gsl_rng_uniform(r) * 4294967296.0);
}

void rl_rng_select(gsl_rng *r, long N, long n, long *idx)
{
    long got = 0;
    for (long j = 0; j < N && got < n; j++) {
        const double u = (double)(rl_rng_next64(r) >> 11) * 0x1p-53;
        if (u * (double)(N - j) < (double)(n - got))
            idx[got++] = j;
    }
}
