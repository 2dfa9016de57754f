/* gapchain.h: the stylized score-gap model on one chain (`routelab scoregap`).
 *
 * A query q at position i and keys at distances delta = 1, 2, ...; the key at
 * distance delta is seen through P_delta = M_i ... M_{i-delta+1}, so the far
 * scores share steps (correlated) exactly as in attention.  Every key equals
 * q (aligned: only transport separates the target from a distractor), so the
 * score at distance delta is s_delta = <P_delta^T q, q> (chain.h tracks
 * P_delta^T q).  The target sits at the near distances near[0..nnear-1] (each
 * < delta0), the M distractors at delta0, ..., delta0 + M - 1.  For every M of
 * a grid the replicate records the largest far score, the largest |s_j|, the
 * largest |s_j - E s_j|, log sum_j e^{lambda s_j} and the mean far score. */
#ifndef RL_GAPCHAIN_H
#define RL_GAPCHAIN_H

#include <stdint.h>

#include "../base/core/err.h"
#include "../sampling/family.h"

#define RL_GC_MAXNEAR 8
#define RL_GC_MAXG 40

typedef struct {
    rl_family f;
    long delta0;   /* first far distance */
    double lambda; /* logit scale: logits lambda * score */
    int nnear;     /* near distances, increasing, all < delta0 */
    long near[RL_GC_MAXNEAR];
} rl_gc_spec;

typedef struct {
    long reps;
    int ng, nnear;
    long g[RL_GC_MAXG];
    double *near;   /* reps x nnear: the target's score at each near distance */
    double *maxs;   /* reps x ng: max_j s_j over the first g[gi] far keys */
    double *maxabs; /* reps x ng: max_j |s_j| */
    double *maxcen; /* reps x ng: max_j |s_j - E s_j| */
    double *lf;     /* reps x ng: log sum_j e^{lambda s_j} */
    double *meanfar;/* reps x ng: mean of the s_j */
} rl_gc_cell;

/* reps chains of sp from the unit query q; far-key counts g[0..ng-1]
 * increasing (ng <= RL_GC_MAXG); es[j] = E s at distance delta0 + j (NULL: 0).
 * Replicate k draws from stream (seed, key(tag, k)).  RL_EINPUT (c left
 * empty) for a grid too long or a near distance not below delta0; a failed
 * draw (sampling/steps.h) is returned as its status, and RL_ENOMEM when
 * memory runs out, c left empty. */
rl_status rl_gc_run(const rl_gc_spec *sp, const double *q, const double *es, long reps, const long *g, int ng,
                    uint64_t seed, uint64_t tag, rl_gc_cell *c, rl_err *err);
void rl_gc_free(rl_gc_cell *c);

#endif
