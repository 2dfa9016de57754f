/* tails.c: tail frequencies with binomial and cluster standard errors. */
#include "tails.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"

rl_status rl_tails_alloc(const double *t, int nt, long reps, int m, rl_tails **out, rl_err *err)
{
    *out = NULL;
    if (m > 65535)
        return rl_fail(err, RL_EINPUT, "tails: at most 65535 scores per replicate, not %d", m);
    rl_tails *T = rl_xcalloc(1, sizeof *T);
    T->nt = nt;
    T->m = m;
    T->reps = reps;
    T->t = rl_xmalloc(sizeof(double) * (nt > 0 ? nt : 1));
    memcpy(T->t, t, sizeof(double) * nt);
    T->cnt = rl_xcalloc((size_t)reps * (nt > 0 ? nt : 1), sizeof(unsigned short));
    *out = T;
    return RL_OK;
}

void rl_tails_free(rl_tails *T)
{
    if (!T)
        return;
    free(T->t);
    free(T->cnt);
    free(T);
}

void rl_tails_add(rl_tails *T, long rep, const double *s, int m)
{
    unsigned short *row = T->cnt + (size_t)rep * T->nt;
    for (int i = 0; i < m; i++) {
        double a = fabs(s[i]);
        for (int k = 0; k < T->nt && a >= T->t[k]; k++) /* thresholds increase */
            row[k]++;
    }
}

rl_tail_est rl_tails_est(const rl_tails *T, int k)
{
    /* the per-replicate frequencies c_r / m: their mean is p, their standard
     * error the cluster one */
    const long N = T->reps;
    double *f = rl_xmalloc(sizeof(double) * (N > 0 ? N : 1));
    for (long r = 0; r < N; r++)
        f[r] = (double)T->cnt[(size_t)r * T->nt + k] / T->m;
    rl_tail_est e;
    e.n = N * T->m;
    rl_mean_se(f, N, 1, &e.p, &e.se_cluster);
    free(f);
    e.se_binom = sqrt(e.p * (1 - e.p) / e.n);
    e.se = fmax(e.se_binom, e.se_cluster);
    return e;
}

double rl_tail_se_at(const rl_tail_est *e, double p0)
{
    double b = sqrt(fmax(p0 * (1 - p0), 0) / e->n);
    return fmax(b, e->se_cluster);
}

int rl_tail_testable(const rl_tail_est *e, double p0)
{
    return e->n * p0 >= 10 && e->n * (1 - p0) >= 10;
}
