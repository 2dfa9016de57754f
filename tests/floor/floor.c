/* floor.c: the floors below MPI stand on their own (docs/layout.md#mpi-floor).
 *
 * `make floor` compiles base/core/, sampling/ and theory/ with plain gcc, without
 * MPI's include paths, and links this program against their objects, all of
 * them, without libmpi: any MPI call left below the MPI floor (base/par/) fails
 * the compile (no mpi.h) or the link (no MPI_ symbol).  The program then uses
 * each floor once (a Haar rotation of SO(4) is orthogonal, a closed-form tail
 * is a probability, core's mean of what it drew) and stops as a job of one
 * through core's own exit path, no job installed (base/core/job.h): one line
 * "routelab: floor: ..." and status 2, which make floor checks. */
#include <math.h>
#include <stdio.h>

#include "../../base/core/err.h"
#include "../../base/core/job.h"
#include "../../base/core/stats.h"
#include "../../sampling/haar.h"
#include "../../sampling/rng.h"
#include "../../theory/theory.h"

#define D 4

int main(void)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 1, 0);
    rl_haar_workspace *w = rl_haar_alloc(D);
    double U[D * D], dev[D * D];
    rl_err err;
    if (rl_haar_draw(w, r, 1, U, &err) != RL_OK)
        rl_err_exit(&err);
    for (int i = 0; i < D; i++) /* (U U^T - I)_ij */
        for (int j = 0; j < D; j++) {
            double s = -(i == j);
            for (int k = 0; k < D; k++)
                s += U[i * D + k] * U[j * D + k];
            dev[i * D + j] = fabs(s);
        }
    double mean, se;
    rl_mean_se(dev, D * D, 1, &mean, &se);
    const double tail = rl_beta_tail(D, 0.5);
    rl_haar_free(w);
    gsl_rng_free(r);
    if (!(mean < 1e-12) || !(tail > 0 && tail < 1))
        rl_exit_line(1, "floor: a floor below MPI computed a wrong number");
    printf("floor: rank %d of %d, |U U^T - I| mean %.1e, P(|u_1| >= 1/2) = %.6f in d = %d\n", rl_job_rank(),
           rl_job_size(), mean, tail, D);
    rl_exit_line(2, "floor: core stops a job of one without MPI");
}
