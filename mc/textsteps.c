/* textsteps.c: means of e^{i Phi} over the routes of a text. */
#include "textsteps.h"

#include <math.h>
#include <stdlib.h>

#include "../par/par.h"
#include "../core/util.h"

#define BATCHES 16

rl_status rl_textsteps_run(const rl_family *f, const int *tok, long n, long ctx, const long *grid, int ng,
                           rl_textsteps_stats **out, rl_err *err)
{
    *out = NULL;
    const int nb = f->d / 2;
    const long nwin = n >= ctx ? n / ctx : 1;
    /* per block b (the work items, a contiguous block of them on each rank,
     * core/par.h): its ng means and SEs at [b * ng + g], gathered below */
    double complex *bchi = rl_xcalloc((size_t)ng * nb, sizeof(double complex));
    double *bse = rl_xcalloc((size_t)ng * nb, sizeof(double));
    long lo, hi;
    rl_par_range(nb, &lo, &hi);
#pragma omp parallel for schedule(dynamic)
    for (int b = (int)lo; b < (int)hi; b++) {
        double complex *z = rl_xmalloc(sizeof(double complex) * ctx);
        double complex *bsum = rl_xcalloc((size_t)ng * BATCHES, sizeof(double complex));
        long *bcnt = rl_xcalloc((size_t)ng * BATCHES, sizeof(long));
        for (long k = 0; k < nwin; k++) {
            /* z_t = e^{i A_t}, A_t = sum of the angles of tokens 1..t of the
             * window: Phi(j, j+m) = A_{j+m} - A_j, so e^{i Phi} = z_{j+m} conj(z_j).
             * The prefix stays below C * max|theta| ~ 1e5: ~1e-11 rad of rounding. */
            double a = 0;
            for (long t = 0; t < ctx; t++) {
                if (t > 0)
                    a += f->table[(long)tok[(k * ctx + t) % n] * nb + b];
                z[t] = cexp(I * a);
            }
            for (int g = 0; g < ng; g++) {
                long m = grid[g], cnt = ctx - m;
                for (long j = 0; j < cnt; j++) {
                    long batch = (k * cnt + j) * BATCHES / (nwin * cnt);
                    bsum[g * BATCHES + batch] += z[j + m] * conj(z[j]);
                    bcnt[g * BATCHES + batch]++;
                }
            }
        }
        for (int g = 0; g < ng; g++) {
            double complex tot = 0;
            long c = 0;
            for (int q = 0; q < BATCHES; q++) {
                tot += bsum[g * BATCHES + q];
                c += bcnt[g * BATCHES + q];
            }
            double complex mean = tot / c;
            double v = 0;
            for (int q = 0; q < BATCHES; q++) {
                double complex bm = bsum[g * BATCHES + q] / bcnt[g * BATCHES + q];
                v += creal((bm - mean) * conj(bm - mean));
            }
            bchi[(long)b * ng + g] = mean;
            bse[(long)b * ng + g] = sqrt(v / (BATCHES - 1) / BATCHES);
        }
        free(z);
        free(bsum);
        free(bcnt);
    }
    rl_status st = rl_par_gather(bchi, nb, sizeof(double complex) * ng, err);
    if (st == RL_OK)
        st = rl_par_gather(bse, nb, sizeof(double) * ng, err);
    if (st == RL_OK) {
        rl_textsteps_stats *s = rl_xcalloc(1, sizeof *s);
        s->ng = ng;
        s->nb = nb;
        s->chi = rl_xmalloc(sizeof(double complex) * ng * nb);
        s->se = rl_xmalloc(sizeof(double) * ng * nb);
        for (int b = 0; b < nb; b++)
            for (int g = 0; g < ng; g++) {
                s->chi[(long)g * nb + b] = bchi[(long)b * ng + g];
                s->se[(long)g * nb + b] = bse[(long)b * ng + g];
            }
        *out = s;
    }
    free(bchi);
    free(bse);
    return st;
}

void rl_textsteps_free(rl_textsteps_stats *s)
{
    if (!s)
        return;
    free(s->chi);
    free(s->se);
    free(s);
}
