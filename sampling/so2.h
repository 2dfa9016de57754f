/* so2.h: block-diagonal SO(2) rotations with the study's half-split pairing. */
#ifndef RL_SO2_H
#define RL_SO2_H

#include <complex.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include "family.h"
#include "../base/core/err.h"
#include "../api/include/routelab/bounds.h"

/* The frequencies rl_so2_freq(s) and the angle laws' closed forms
 * (rl_angle_charfn, rl_angle_charfn2, rl_one_minus_sinc, rl_angle_log_norm)
 * are public, declared once in <routelab/bounds.h> (included above), defined
 * in angle_law.c: libm alone, no random draws (docs/library.md#library-splits). */

/* One angle step theta ~ law(omega) (so2_draw.c). */
double rl_so2_draw_angle(gsl_rng *r, rl_angle_law law, double omega);

/* n angle steps phi[b] ~ law(omega[b]), b = 0 .. n - 1: the numbers of n
 * calls of rl_so2_draw_angle in order, from one block of uniforms where the
 * law takes one uniform per angle (so2_draw.c). */
void rl_so2_draw_angles(gsl_rng *r, rl_angle_law law, const double *omega, int n, double *phi);

/* Rotate each of the nvec vectors of X (row-major, nvec x d) block by block:
 * (x_b, x_{b+h}) <- (c x_b - s x_{b+h}, s x_b + c x_{b+h}),  h = d/2,
 * c = cos(sign*phi_b), s = sin(sign*phi_b).  sign = -1 applies the transpose. */
void rl_so2_rotate(int d, const double *phi, int sign, double *X, int nvec);

/* Neumaier-compensated accumulation sum += x: a constant angle added 65,536
 * times drifts by ~1e-8 rad in plain double summation (correlated rounding);
 * compensated, the error of sum + comp stays at a few ulps. */
static inline void rl_sum_add(double *sum, double *comp, double x)
{
    double t = *sum + x;
    *comp += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

/* Reduce an accumulated angle to (-pi, pi] (exact in double for |phi| < 2^52). */
double rl_angle_reduce(double phi);

/* A random token table (so2_draw.c): vocab x (d/2) entries, entry (v, b)
 * ~ law(omega_b), drawn from stream `stream` of `seed`. */
void rl_so2_table_draw(const rl_family *f, unsigned long seed, unsigned long stream, double *table);

/* Load a token table from a text file (so2_table.c): one line per token,
 * d/2 angles each (blank lines and lines opening with # skipped).  *table receives a
 * malloc'ed vocab x (d/2) table and *vocab its rows; RL_EINPUT naming the
 * file and line when it cannot be read or is malformed. */
rl_status rl_so2_table_load(const char *path, int d, double **table, int *vocab, rl_err *err);

/* rl_family_check with a token-so2 table that is still to be drawn (drawn
 * by the call that needs it, rl_family_with_table) taken as present:
 * everything else is checked now. */
rl_status rl_family_check_untabled(const rl_family *f, rl_err *err);

/* *g = *f (so2_table.c), with a token-so2 family's random table drawn from
 * stream `stream` of seed when f has none (then *table is that malloc'ed table,
 * else NULL; free it after use): the draw of `routelab sample` and `bound`,
 * and of the library's rl_sample and rl_family_window.  The table's bytes
 * are checked against the machine's memory first (base/core/mem.h); RL_EINPUT
 * for a family that is not well formed (rl_family_check), RL_ENOMEM when
 * memory runs out. */
rl_status rl_family_with_table(const rl_family *f, unsigned long seed, unsigned long stream, rl_family *g,
                               double **table, rl_err *err);

/* The second-moment rate (angle_law.c) of h independent-or-not SO(2)
 * blocks (theory/moment2.h): on block b's symmetric traceless part T is E[rotation by
 * 2 theta_b] (norm |chi2_b|); on the 2x2 piece X_{bb'} the part commuting
 * with rotations turns by theta_b - theta_b' and the anticommuting part by
 * theta_b + theta_b'.  cross[b h + c] = max(|E e^{i(theta_b + theta_c)}|,
 * |E e^{i(theta_b - theta_c)}|) for a joint law, NULL for independent blocks
 * (then |chi_b| |chi_c|).  rate[b] = max(|chi2_b|, max_{c != b} cross),
 * diag[b] = |chi2_b| (either may be NULL); returns max_b rate[b]. */
double rl_so2_block_rates(int h, const double complex *chi, const double complex *chi2, const double *cross,
                          double *diag, double *rate);
/* Block b's rate alone (rate[b] and diag[b] written as above): cross_row is
 * row b of cross (h values), NULL for independent blocks.  For a joint
 * law whose h x h cross terms are formed a row at a time. */
double rl_so2_block_rate(int h, int b, const double complex *chi, const double complex *chi2,
                         const double *cross_row, double *diag, double *rate);

#endif
