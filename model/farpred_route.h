/* farpred_route.h: routelab's far-mass predictor, the route form
 * (docs/theory/farpred.md#route-form): the rows of a long window simulated from pieces measured
 * within the training context T, instead of the far keys replaced by their mean
 * (the mean-field form F1-F3 of theory/farpred_forms.h).
 *
 * A query at i of a long window sees its keys at distance delta through
 * the accumulated angle of each SO(2) block b,
 *     Theta_b(delta) = theta_{i-delta+1} + ... + theta_i,
 *     Theta_b(delta + 1) = Theta_b(delta) + theta_{i-delta}               (R1)
 * (the step at the position of key delta: the route continues backward one
 * key at a time), and scores key k there as
 *     s = sum_b Re(q~_b conj(k~_b) e^{i Theta_b}) / sqrt(hd) - m_h delta  (R2)
 * (q~, k~ the unrotated planes as complex numbers; without rotation,
 * q.k/sqrt(hd) - m_h delta).  The row's far mass and entropy are
 *     rho = F/(N + F),  H = log Z - (sum_j s_j e^{s_j})/Z,  Z = N + F,      (R3)
 * N over delta < T, F over delta >= T (the window's first token at
 * delta = i among them).  Everything a row needs up to delta = T - 2 is
 * measured on a window of T tokens whose last query plays the part of the
 * row's query: its near sums (realised, noise included) and the realised
 * angle of each block at delta = T - 1 (the junction).  Beyond it the route
 * is continued by (R1) with the steps of measured windows of T tokens taken
 * whole and in order ("segments": their keys at positions T-1 .. 1, each
 * followed by the step at its own position, theta = c + w U with fresh
 * U ~ U(-1, 1)), joined one after another, and the first token of a long
 * window is another window's first token.  Nothing is replaced by a mean:
 * the far keys share the realised junction and the simulated path, as the
 * far keys of a real row do, so the concave g(F) = F/(N + F) sees the
 * path's spread (no Jensen gap, unlike F3), and a block keeps its realised
 * phase exactly as long as the steps keep it.  Assumptions: the steps of
 * different segments are independent, the content of a far key is that of
 * a key of a window of T (stationarity), and the steps do not depend on
 * what lies beyond T.  With i.i.d. steps independent of the content (the
 * random schemes) and content that does not depend on the position
 * (layer 0), the law of a simulated row is the law of a real one.
 *
 * Mixing switched off (the ablation of the mixing term): every step of
 * block b is the mean direction of its law, arg chi_b(1), so |chi_b| = 1
 * with the phase kept: a zero-mean law stays at its junction, a drifting one
 * turns like RoPE. */
#ifndef RL_MODEL_FARPRED_ROUTE_H
#define RL_MODEL_FARPRED_ROUTE_H

#include <gsl/gsl_rng.h>

/* What one head's rows share: the segments and their steps. */
typedef struct {
    int nb;            /* SO(2) blocks (planes p, p + hd/2); 0: no rotation */
    int hd;
    long T, nseg;      /* segments of T positions */
    double slope;      /* ALiBi slope m_h (0: none) */
    const float *k;    /* unrotated key of segment g at position t: k + (g T + t) ldk, hd floats */
    long ldk;
    const double *cen, *hw; /* step law at (g, t), block b: [(g T + t) lds + b]; NULL: every step
                             * of block b is c0[b] (RoPE) */
    long lds;
    const double *c0;  /* nb: constant steps (cen == NULL) */
    const double *mean_dir; /* nb: arg chi_b(1), the steps with mixing switched off */
} rl_route_head;

/* One query: its unrotated q (hd floats), the first token it sees (an
 * unrotated key), the near sums over delta = 0 .. T-2 of e^s and s e^s,
 * and the realised angle of each block at delta = T - 1. */
typedef struct {
    const float *q, *sink;
    double N, NS;
    const double *junc;
} rl_route_query;

/* The rows of nl lengths L[k] (each > T): rows i in [i0_k, L_k),
 * i0_k = (L_k - 1) / RL_ATTN_SQ * RL_ATTN_SQ (the probe's).  One simulated
 * route (nomix: mixing switched off), its segments drawn from rs and its
 * noise U from ru (two generators, so that a route with and without mixing
 * can share its segments: a paired comparison); rho[k] and ent[k] receive
 * the mean over the rows of (R3).  scratch: 3 nb doubles. */
void rl_route_rows(const rl_route_head *h, const rl_route_query *q, int nomix, gsl_rng *rs, gsl_rng *ru,
                   const long *L, int nl, double *scratch, double *rho, double *ent);

#endif
