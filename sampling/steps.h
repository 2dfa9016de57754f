/* steps.h: drawing and applying one step M_t of a family, and transporting
 * vectors along a route P = M_n ... M_1. */
#ifndef RL_STEPS_H
#define RL_STEPS_H

#include <gsl/gsl_rng.h>
#include "family.h"
#include "../base/core/err.h"

/* Workspace holding the family, the current step and the scratch its
 * application needs: allocate once per thread, reuse for every step.
 *
 * Errors: drawing a step runs in the innermost loop of every Monte Carlo
 * kernel, often inside an OpenMP region that cannot return early, so a draw
 * does not return a status.  A failed draw (LAPACK info != 0: RL_EINTERNAL;
 * a token outside the table: RL_EINPUT) records the first failure in the
 * stepper, like the error indicator of a FILE, and leaves a NaN step so
 * that nothing computed from it passes for a result; the caller asks
 * rl_stepper_status once after its loop. */
typedef struct rl_stepper rl_stepper;

/* cap: the largest number of vectors passed to one apply.  NULL when
 * memory runs out (the caller returns RL_ENOMEM). */
rl_stepper *rl_stepper_alloc(const rl_family *f, int cap);
void rl_stepper_free(rl_stepper *s);
const rl_family *rl_stepper_family(const rl_stepper *s);

/* RL_OK, or the first failure of any draw since rl_stepper_alloc (its
 * one-line message copied into err, which may be NULL). */
rl_status rl_stepper_status(const rl_stepper *s, rl_err *err);

/* Draw the next step M_t from r; token is the token id read at step t
 * (used by token-so2 only, must lie in [0, vocab); see rl_stepper_status). */
void rl_stepper_draw(rl_stepper *s, gsl_rng *r, int token);

/* X <- M X for the nvec row vectors of X (nvec x d, row-major), or M^T X when
 * transpose != 0.  Cost O(d) per vector for SO(2), Householder and PaTH,
 * O(d^2) for dense steps.  nvec <= cap. */
void rl_stepper_apply(rl_stepper *s, int transpose, double *X, int nvec);

/* The current step as a dense d x d row-major matrix. */
void rl_stepper_matrix(const rl_stepper *s, double *M);

/* SO(2) families: the current step's angles (d/2 of them). */
const double *rl_stepper_angles(const rl_stepper *s);

/* Apply the route P = M_n ... M_1 (n fresh steps drawn from r, step t reading
 * tokens[t-1] when the family is token-dependent) to the nvec vectors of X.
 * SO(2) routes are never formed as matrices: the angles are summed in double
 * precision, reduced modulo 2 pi, and applied once, O(n d/2 + d nvec).
 * A failed draw is recorded as in rl_stepper_draw. */
void rl_transport(rl_stepper *s, gsl_rng *r, long n, const int *tokens, double *X, int nvec);

/* SO(2) families: accumulated angles Phi_b = sum_{t<=n} theta_{t,b} of a
 * route, reduced to (-pi, pi] (d/2 values). */
void rl_so2_route_angles(rl_stepper *s, gsl_rng *r, long n, const int *tokens, double *phi);

#endif
