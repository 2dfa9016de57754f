/* hh_mean.c: routelab's closed form of random-hh's mean transport
 * (theory.h, docs/model/path-transport.md#random-hh).
 *
 * Derivation (routelab's, not the study's).  w uniform on S^(d-1) is
 * invariant under every orthogonal map, so E[w w^T] commutes with O(d) and
 * is c I; its trace E|w|^2 = 1 gives c = 1/d, hence
 *     E[M] = I - 2 E[w w^T] = (1 - 2/d) I.
 * The steps of one route are independent, so the mean of the product is
 * the product of the means:
 *     E[P(j -> i)] = E[M_i] ... E[M_(j+1)] = (1 - 2/d)^(i-j) I,
 *     ||E P(j -> i)||_op = |1 - 2/d|^(i-j) = (1 - 2/d)^(i-j)  (d >= 2),
 * a spectral gap gamma = 2/d per step, so a mixing window
 * W(eps) = log eps / log(1 - 2/d) ~ (d/2) log(1/eps).  The one-step fact
 * E[M] = (1 - 2/d) I is the householder family's (sampling/fam_reflect.c,
 * its cancellation-free log1p(-2/d)): taken from there, not restated. */
#include <math.h>

#include "theory.h"

double rl_random_hh_log_mean_norm(int hd, long n)
{
    if (hd < 2 || n < 0)
        return NAN;
    if (n == 0)
        return 0.0; /* E P = I, even at hd = 2 where one step has mean 0 */
    const rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, hd);
    return (double)n * rl_family_log_mean_norm(&f, NULL, NULL);
}
