/* chain.h: the routes from one query back to every earlier key.
 *
 * A query at position i sees the key at distance delta through
 * P_delta = P(i-delta -> i) = M_i ... M_{i-delta+1}.  Walking back one token
 * adds one older step on the right: P_delta = P_{delta-1} M_{i-delta+1}, so
 * for any vector x, P_delta^T x = M^T (P_{delta-1}^T x): the chain keeps
 * P_delta^T x for a set of vectors (a query, or the identity rows when the
 * whole route is needed) at the natural cost of one transposed step each.
 * SO(2) routes keep only the accumulated angles (compensated, double). */
#ifndef RL_CHAIN_H
#define RL_CHAIN_H

#include <gsl/gsl_rng.h>
#include "../base/core/err.h"
#include "../sampling/family.h"

typedef struct rl_chain rl_chain;

/* A chain that tracks nvec vectors of the family's dimension; NULL when
 * memory runs out (the caller reports RL_ENOMEM). */
rl_chain *rl_chain_alloc(const rl_family *f, int nvec);
void rl_chain_free(rl_chain *c);

/* delta = 0 (P_0 = I) with the tracked vectors X (nvec x d, row-major). */
void rl_chain_reset(rl_chain *c, const double *X);

/* delta = 0 with the identity rows tracked (the whole route); RL_EINPUT
 * unless the chain tracks nvec = d vectors. */
rl_status rl_chain_reset_identity(rl_chain *c, rl_err *err);

/* delta <- delta + 1: draw the next older step (token: its token id for
 * token-so2).  A failed draw does not return a status (see sampling/steps.h):
 * it leaves NaN rows and is kept for rl_chain_status. */
void rl_chain_step(rl_chain *c, gsl_rng *r, int token);

/* RL_OK, or the first failed draw since rl_chain_alloc (its message copied
 * into err, which may be NULL): ask once after the loop that stepped c. */
rl_status rl_chain_status(const rl_chain *c, rl_err *err);

/* Current P_delta^T x_k for the tracked vectors (nvec x d, row-major). */
const double *rl_chain_rows(rl_chain *c);

/* out = P_delta v (identity rows tracked, or any SO(2) chain). */
void rl_chain_apply(rl_chain *c, const double *v, double *out);

long rl_chain_delta(const rl_chain *c);

#endif
