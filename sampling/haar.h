/* haar.h: Haar-distributed orthogonal matrices on O(d) and SO(d). */
#ifndef RL_HAAR_H
#define RL_HAAR_H

#include <gsl/gsl_rng.h>
#include "normal.h"
#include "../base/core/err.h"

typedef struct {
    int d;
    double *tau;   /* d Householder scalars of the QR */
    double *work;  /* LAPACK workspace, lwork doubles */
    int *sign;     /* d signs of diag(R) */
    rl_ziggurat zig; /* normal sampler tables */
    int lwork;
} rl_haar_workspace;

/* NULL when memory runs out (the caller returns RL_ENOMEM). */
rl_haar_workspace *rl_haar_alloc(int d);
void rl_haar_free(rl_haar_workspace *w);

/* U (d x d, row-major) ~ Haar on O(d), or on SO(d) when special != 0.
 * RL_EINTERNAL when LAPACK reports a failure (U is then undefined). */
rl_status rl_haar_draw(rl_haar_workspace *w, gsl_rng *r, int special, double *U, rl_err *err);

/* The deterministic half of rl_haar_draw: turn a matrix G of i.i.d. N(0,1)
 * entries into a Haar matrix in place; *det (may be NULL) receives its
 * determinant, +1 or -1.  RL_EINTERNAL when LAPACK's info is not 0. */
rl_status rl_haar_from_gaussian(rl_haar_workspace *w, int special, double *G, int *det, rl_err *err);

#endif
