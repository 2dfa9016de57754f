/* farpred_forms.h: the far mass of a trained head beyond its training context T,
 * predicted from what the head does within T (docs/theory/farpred.md#far-mass-prediction).
 *
 * A head's score of key j at query i, distance delta = i - j, splits into the
 * SO(2) blocks b of its rotation (position.h: plane p pairs x[p], x[p+hd/2]):
 *     s_ij = c_ij - m_h delta + sum_b Re(A_b e^{i Theta_b(delta)}),
 *     A_b = q~_b conj(k~_b) / sqrt(hd)     (q~, k~: the unrotated plane as a
 *                                           complex number),
 *     Theta_b(delta) = theta_{j+1} + ... + theta_i   (the accumulated angle),
 * c the part of the score no block turns (every dimension for none/alibi),
 * m_h the ALiBi slope (0 without).  With the steps i.i.d. per block, with
 * characteristic function chi_b(n) = E e^{i n theta}, independent across
 * blocks and of the content (A, c), the Jacobi-Anger expansion
 * e^{x cos phi} = sum_n I_n(x) e^{i n phi} gives the exact conditional mean
 *     E[e^{Re(A e^{i Theta(delta)})} | A]
 *         = I_0(|A|) + 2 sum_{n >= 1} I_n(|A|) Re(e^{i n arg A} chi(n)^delta)   (F1)
 * (a deterministic step, |chi(1)| = 1: the block contributes
 * Re(A e^{i delta c}) to the exponent itself).  Averaging over content pairs
 * drawn from the farthest band seen in training (stationarity of the text)
 * gives the mean weight of a far key,
 *     m(delta) = mean_p e^{c_p - m_h delta} prod_b F_pb(delta).            (F2)
 * A row at i with T near keys (sum N_r) and far keys delta = T .. i has far
 * mass F/(N_r + F); replacing the far sum by its mean q_r f(i), f(i) = sum
 * m(delta), q_r the query's own level (law of large numbers over the far
 * keys) gives the prediction
 *     rho(i) = mean_r q_r f(i) / (N_r + q_r f(i)),                          (F3)
 * whose error from the replacement is one-sided: g(F) = F/(N+F) is concave,
 * so g(f) - Var(F)/N^2 <= E g(F) <= g(f). */
#ifndef RL_THEORY_FARPRED_H
#define RL_THEORY_FARPRED_H

#include <complex.h>

#include "../base/core/err.h"

/* Harmonics a law carries per block: enough for |A| up to ~20 at 1e-12. */
#define RL_FARPRED_NH 48

/* The step law of a head's nb blocks: chi[b * nh + n - 1] = E e^{i n theta_b},
 * n = 1..nh.  nb = 0: no rotation (none, alibi). */
typedef struct {
    int nb, nh;
    const double complex *chi;
} rl_farpred_law;

/* chi(n) of theta ~ c + U(-w, w): e^{i n c} sinc(n w) (sinc(0) = 1), the
 * law of one step of the random, pemb and lf schemes (steplaw.h) and of
 * RoPE (w = 0). */
double complex rl_farpred_step_charfn(double c, double w, int n);

/* log m(delta) of (F2) for delta = d0 .. d0 + nd - 1 into logm (nd values):
 * np content pairs with unrotated parts c[p] (NULL: 0) and block alignments
 * A[p * nb + b], slope the ALiBi slope (0: none).  sbar (NULL: not wanted):
 * the far key's weight-averaged score E[s e^s]/E[e^s] at each delta (for
 * the entropy), from d/dt E e^{t X} at t = 1 of (F1):
 *     E[X e^X | A] = |A| (I_1(|A|) + 2 sum_n I'_n(|A|) Re(e^{in arg A} chi(n)^delta)),
 * I'_n = (I_{n-1} + I_{n+1})/2.  RL_EINPUT on np < 1, nd < 1, d0 < 0, a
 * non-finite input or |chi| > 1; RL_EINTERNAL when the Bessel functions
 * fail. */
rl_status rl_farpred_logmean(const rl_farpred_law *law, long np, const double *c,
                             const double complex *A, double slope, long d0, long nd, double *logm,
                             double *sbar, rl_err *err);

/* The same with its scratch from a workspace (no allocation: for loops over
 * many keys), GSL style: ws from rl_farpred_ws_alloc(nb, nd) serves laws of
 * at most nb blocks over at most nd distances (RL_EINPUT beyond; NULL
 * from the allocation for nb < 0 or nd < 1). */
typedef struct rl_farpred_ws rl_farpred_ws;
rl_farpred_ws *rl_farpred_ws_alloc(int nb, long nd);
void rl_farpred_ws_free(rl_farpred_ws *ws);
rl_status rl_farpred_logmean_ws(rl_farpred_ws *ws, const rl_farpred_law *law, long np, const double *c,
                                const double complex *A, double slope, long d0, long nd, double *logm,
                                double *sbar, rl_err *err);

/* (F3) averaged over the rows i = i0 .. i1 - 1 of a window and over R
 * queries r: query r has near sum N[r] and far keys at delta = T .. i - 1
 * of mean weight q[r] m[delta - T] (m: i1 - 1 - T values, may be 0 long
 * when i1 - 1 <= T) plus one key at delta = i of weight qs[r] m0[i - T]
 * (the window's first token; m0 NULL: none).  q, qs (NULL: 1) carry each
 * query's own level (a query that scores its near keys low scores its far
 * ones low too: the near and far sums of a row share the query).  Returns
 * the mean predicted far mass (0 when no row has a far key). */
double rl_farpred_rho(const double *N, const double *q, const double *qs, long R, const double *m,
                      const double *m0, long T, long i0, long i1);

/* The rows' predicted attention entropy H = log Z - (sum_j s_j e^{s_j})/Z
 * with the far keys at their means: query r has near sums N[r] (of e^s)
 * and NS[r] (of s e^s); its far keys weigh q[r] m and score sbar + log q[r]
 * on average, its first token qs[r] m0 and sbar0 + log qs[r] (m0, sbar0
 * NULL: none); arrays as rl_farpred_rho's.  Averaged over the rows i0 ..
 * i1 - 1 with i >= T and the queries. */
double rl_farpred_entropy(const double *N, const double *NS, const double *q, const double *qs, long R,
                          const double *m, const double *sbar, const double *m0, const double *sbar0, long T,
                          long i0, long i1);

#endif
