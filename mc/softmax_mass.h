/* softmax_mass.h: the far share rho_D of a full softmax, accumulated one key
 * at a time while a walker moves back from the query (distance delta = 1, 2, ...).
 *
 * Keys at distances 1..K are near, beyond K far.  For every logit scale lambda
 * (logit = lambda * score, |score| <= 1 so |logit| <= lambda) and every
 * configuration c (c = 0: no bias; c = 1..nslope: ALiBi bias -m_c * delta),
 *   rho_D = F / (F + N),  F = sum_far e^{logit}, N = sum_near e^{logit},
 * both Neumaier-compensated so that the extremal configuration reproduces the
 * closed form M / (M + K e^{2 lambda}) to rounding (~1e-15).
 * A common shift of all distances multiplies F and N by the same factor, so
 * near keys at 1..K here and at 0..K-1 in rl_farmass_alibi give the same rho. */
#ifndef RL_SOFTMAX_MASS_H
#define RL_SOFTMAX_MASS_H

typedef struct {
    int K;               /* near keys: distances 1..K */
    int nlam;
    const double *lam;   /* logit scales (not owned) */
    int nslope;
    const double *slope; /* ALiBi slopes (not owned) */
    long lmax;           /* longest distance */
    double *decay;       /* nslope x (lmax + 1): e^{-m delta}, exact exp per entry */
} rl_mass_spec;

/* Build the spec (allocates the decay table); NULL when memory runs out.
 * Filling the table stops early when the caller asks to stop (rl_cancelled,
 * base/core/err.h): a caller that can be cancelled reads rl_cancelled() after
 * this call and drops the spec. */
rl_mass_spec *rl_mass_spec_alloc(int K, int nlam, const double *lam, int nslope, const double *slope, long lmax);
void rl_mass_spec_free(rl_mass_spec *s);
/* Configurations per lambda: 1 + nslope. */
static inline int rl_mass_nconf(const rl_mass_spec *s)
{
    return 1 + s->nslope;
}

typedef struct rl_mass rl_mass;
/* An accumulator for spec s; NULL when memory runs out. */
rl_mass *rl_mass_alloc(const rl_mass_spec *s);
void rl_mass_free(rl_mass *m);
void rl_mass_reset(rl_mass *m);
/* The key at distance delta (1, 2, ... in order; delta <= lmax) has this score. */
void rl_mass_add(rl_mass *m, long delta, double score);
/* The spec m was made from. */
const rl_mass_spec *rl_mass_spec_of(const rl_mass *m);
/* rho_D so far for lambda index l and configuration c. */
double rl_mass_rho(const rl_mass *m, int l, int c);

#endif
