/* routelab/family.h: step families M_t and their samplers (docs/sampling.md#step-families).
 *
 * A route P(j->i) = M_i ... M_{j+1} is a product of i.i.d. d x d steps drawn
 * from a family.  The families, by registry name (`routelab sample --help`):
 *
 *   haar, haar-so  Haar on O(d) / SO(d)
 *   so2            block-diagonal SO(2): x[b] paired with x[b + d/2], angle
 *                  theta_b ~ law(omega_b), omega_b = scale * base^(-2b/d)
 *                  (radians per step)
 *   token-so2      block-diagonal SO(2), theta_b = table[token][b] (a random
 *                  table: entry (v, b) ~ law(omega_b); tokens uniform)
 *   householder    I - 2 w w^T, w uniform on S^{d-1}
 *   path           I - beta w w^T, beta in (0, 2] (orthogonal only at 2)
 *   lazy-haar      I with probability 1 - p, else Haar on O(d)
 *   brownian       exp(sigma A), A skew-symmetric, A_ij ~ N(0, 1) above the
 *                  diagonal
 *   cayley         (I - sigma A)^{-1} (I + sigma A), A as for brownian
 *
 * An rl_family is opaque: allocate rl_family_sizeof() bytes (or use it from C
 * through a pointer the library filled), name it with rl_family_named, then
 * set parameters with rl_family_set.  Its random token-so2 table, when there
 * is one, is drawn inside the calls that need it (rl_sample, and the norms
 * and windows of bounds.h) from the same streams as the command line. */
#ifndef ROUTELAB_FAMILY_H
#define ROUTELAB_FAMILY_H

#include <stddef.h>

#include "err.h"

/* Law of the angle step theta of an SO(2) block with frequency omega
 * (radians): the value of rl_family_set(f, "angles", NAME), names in this
 * order in RL_ANGLE_NAMES. */
typedef enum {
    RL_ANG_CONSTANT, /* theta = omega (RoPE: no spectral gap) */
    RL_ANG_UNIFORM,  /* U(-omega, omega) (the study's random variant) */
    RL_ANG_PM,       /* +omega or -omega with probability 1/2 */
    RL_ANG_GAUSS,    /* N(0, omega^2); scale s gives the study's s*omega_b */
    RL_ANG_CIRCLE,   /* U(-pi, pi) */
    RL_ANG_DRIFT,    /* U(0, 2 omega): positive drift, mean omega */
    RL_ANG_COUNT
} rl_angle_law;

#define RL_ANGLE_NAMES "constant|uniform|pm|gauss|circle|drift"

typedef struct rl_family rl_family;

/* The bytes of one rl_family (a caller that cannot include the definition,
 * such as Python's ctypes, allocates this many). */
size_t rl_family_sizeof(void);

/* *f = the family registered as name (haar, so2, ...) in dimension d, with
 * the command line's defaults: angles uniform, base 10000, scale 1, beta 1,
 * p 0.5, sigma 0.1, vocab 256.  RL_EINPUT for an unknown name or a d outside
 * the range of `--d` ([2, 4096]; token-so2 and so2 also need d even). */
rl_status rl_family_named(rl_family *f, const char *name, int d, rl_err *err);

/* Set one parameter: key is the command line's flag without its dashes
 * (angles, base, scale, beta, p, sigma, vocab), value its text, parsed and
 * range-checked by the very option entry `routelab sample` uses (the same
 * messages).  RL_EINPUT for a bad value, for a key the family does not read
 * ("--beta does not apply to --family so2 (its flags: ...)"), and for the
 * file flags table and text (the command line's only). */
rl_status rl_family_set(rl_family *f, const char *key, const char *value, rl_err *err);

/* count steps M_0 .. M_{count-1} into out (count x d x d doubles, each matrix
 * row-major), step k drawn from random stream k of seed: the numbers
 * `routelab sample --count COUNT --seed SEED [family flags]` prints (its
 * %.17g text parses back to these doubles), for any threads (1..1024 OpenMP
 * threads).  count in [1, 1e9], seed in [0, 9.2e18] (the command's ranges);
 * a request beyond the machine's memory is RL_EINPUT before anything is
 * allocated.  A step whose draw fails is RL_EINTERNAL or RL_EINPUT naming
 * the step ("step K: ..."); out is then not all written. */
rl_status rl_sample(const rl_family *f, long count, unsigned long seed, int threads, double *out,
                    rl_err *err);

#endif
