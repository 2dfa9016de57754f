/* moment2.h: second-moment certificates of a step family.
 *
 * ||E M|| alone certifies no concentration (M = +-I: E M = 0, yet
 * |q^T P q| = 1 forever).  The score s_n = q^T P_n k, P_n = M_n ... M_1,
 * has E[s_n^2] = <q q^T, T^n(k k^T)> with the second-moment operator
 *     T(X) = E[M X M^T]    (on d x d matrices; row-major vec: E[M (x) M]).
 * Let F be the family's fixed space (X with M X M^T = X for every step).
 * For orthogonal steps T maps F and its complement to themselves, so
 *     |E[s_n^2] - q^T Pi_F(k k^T) q| <= rate^n |q|^2 |k|^2,
 *     rate = ||T restricted to F^perp||_op,
 * and the level it settles at is at most limit_max |q|^2 |k|^2.  A
 * certificate needs both: rate < 1 and limit_max small (1/d for Haar; 1/2
 * for any SO(2) family: q, k in one block never concentrate).  W2(eps) =
 * rl_mixing_window(rate, eps).  Derivations: /work/wt/notes_moment2.md.
 *
 * F used here is the family's nominal one (span(I); span{I_b, J_b} for SO(2)
 * blocks; {0} for PaTH with beta < 2).  When a degenerate law fixes more
 * (M = +-I; a constant angle), the extra part shows up as rate 1: no
 * certificate, as it should. */
#ifndef RL_MOMENT2_H
#define RL_MOMENT2_H

#include <complex.h>

#include "../base/core/err.h"
#include "../sampling/family.h"
#include "../sampling/so2.h"

typedef struct {
    double rate;      /* ||T on F^perp||_op; NAN when there is no closed form */
    int closed;       /* whether rate is a closed form (0: none; rate is NAN) */
    int fixdim;       /* dim F */
    double limit_max; /* sup over unit q, k of q^T Pi_F(k k^T) q */
} rl_moment2;

/* rl_angle_charfn2 (E[exp(2 i theta)]): sampling/so2.h. */

/* Closed forms (any d).  SO(2) families: block_rate[b] (d/2 values, may be
 * NULL) = max(|E e^{2i theta_b}|, max_{b' != b} |E e^{i(theta_b +- theta_b')}|),
 * block_diag[b] = |E e^{2i theta_b}| (may be NULL); token-so2 under the token
 * probabilities probs (NULL: uniform).  From the family's object (family_ops.h);
 * with no closed form (brownian and cayley at d >= 3) m->closed is 0 and
 * m->rate NAN. */
void rl_moment2_closed(const rl_family *f, const double *probs, rl_moment2 *m, double *block_diag,
                       double *block_rate);

/* dim F, and an orthonormal basis of F (fixdim rows of d*d, row-major vec,
 * Frobenius inner product) into basis. */
int rl_moment2_fixed_dim(const rl_family *f);
void rl_moment2_fixed_basis(const rl_family *f, double *basis);

/* ||Pi T Pi||_op, Pi the projector onto the complement of span(basis) (k
 * orthonormal rows of n = d*d; k = 0: no projection), T n x n row-major.
 * RL_EINTERNAL when LAPACK fails, RL_ENOMEM when memory runs out. */
rl_status rl_moment2_perp_norm(int d, const double *T, int k, const double *basis, double *out,
                               rl_err *err);

/* The hypothesis of claim 2's concentration at route length n, one fact
 * used by every report that labels rows "hypothesis not met": the second
 * moment of the score has settled to within the Haar level of its limit,
 *     rate^n <= 1/d      (n >= W2(1/d)),
 * so E[s_n^2] <= q^T Pi_F(k k^T) q + 1/d (|q| = |k| = 1).  (The level
 * q^T Pi_F(k k^T) q depends on q and k: 1/d for Haar-like F = span(I) and
 * for q spread evenly over SO(2) blocks; the caller states it.)  Returns
 * NULL when met; otherwise the reason, one phrase, in buf ("rate 0.9999 at
 * d = 64: rate^n = 0.51 > 1/d at n = 4096; met from n = 2.3e+07"); a NAN
 * rate (no closed form) is not met ("no second-moment certificate"). */
const char *rl_moment2_unmet(double rate, int d, long n, char *buf, size_t len);

#endif
