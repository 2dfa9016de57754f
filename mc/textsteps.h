/* textsteps.h: SO(2) routes driven by a real token sequence.  There is no
 * independence to average over: the mean of e^{i Phi_b} over routes of
 * length n is taken over their start positions j inside each context window
 * [kC, (k+1)C), so routes never cross a context boundary. */
#ifndef RL_TEXTSTEPS_H
#define RL_TEXTSTEPS_H

#include <complex.h>
#include "../base/core/err.h"
#include "../sampling/family.h"

typedef struct {
    int ng, nb;
    double complex *chi; /* [g * nb + b]: mean over routes of e^{i Phi_b(j, j+n)} */
    double *se;          /* its standard error by 16 batch means */
} rl_textsteps_stats;

/* f: a token-so2 family; tok[0..n-1]; ctx: context length C (when n < C the
 * text is read cyclically to fill one context); grid of route lengths < C.
 * Under MPI the blocks are split over the ranks and gathered (base/core/par.h);
 * fails (*out NULL) only when that exchange fails (RL_EINTERNAL) or memory
 * runs out (RL_ENOMEM). */
rl_status rl_textsteps_run(const rl_family *f, const int *tok, long n, long ctx, const long *grid, int ng,
                           rl_textsteps_stats **out, rl_err *err);
void rl_textsteps_free(rl_textsteps_stats *s);

#endif
