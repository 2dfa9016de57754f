/* softmax_mass.c: compensated near/far softmax sums (see softmax_mass.h). */
#include "softmax_mass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../sampling/so2.h"

struct rl_mass {
    const rl_mass_spec *s;
    double *near, *far; /* nlam * nconf sums, then their compensations */
    double *ncomp, *fcomp;
    double *e;          /* nlam scratch: e^{lambda score} */
};

rl_mass_spec *rl_mass_spec_alloc(int K, int nlam, const double *lam, int nslope, const double *slope, long lmax)
{
    rl_mass_spec *s = rl_alloc_array(1, sizeof *s, NULL);
    if (!s)
        return NULL;
    *s = (rl_mass_spec){ K, nlam, lam, nslope, slope, lmax, NULL };
    s->decay = rl_alloc_array((size_t)(nslope > 0 ? nslope : 1) * (lmax + 1), sizeof(double), NULL);
    if (!s->decay) {
        free(s);
        return NULL;
    }
    /* a long table (lmax up to 1e8 per slope) stops where the caller asks */
    for (int c = 0; c < nslope; c++)
        for (long d = 0; d <= lmax; d++) {
            if ((d & 0xffff) == 0 && rl_cancelled())
                return s;
            s->decay[(long)c * (lmax + 1) + d] = exp(-slope[c] * (double)d);
        }
    return s;
}

void rl_mass_spec_free(rl_mass_spec *s)
{
    if (!s)
        return;
    free(s->decay);
    free(s);
}

rl_mass *rl_mass_alloc(const rl_mass_spec *s)
{
    rl_mass *m = rl_alloc_array(1, sizeof *m, NULL);
    if (!m)
        return NULL;
    const int n = s->nlam * rl_mass_nconf(s);
    m->s = s;
    m->near = rl_alloc_array(4 * (size_t)n, sizeof(double), NULL);
    m->e = rl_alloc(sizeof(double) * s->nlam, NULL);
    if (!m->near || !m->e) {
        rl_mass_free(m);
        return NULL;
    }
    m->far = m->near + n;
    m->ncomp = m->near + 2 * n;
    m->fcomp = m->near + 3 * n;
    return m;
}

void rl_mass_free(rl_mass *m)
{
    if (!m)
        return;
    free(m->near);
    free(m->e);
    free(m);
}

void rl_mass_reset(rl_mass *m)
{
    memset(m->near, 0, sizeof(double) * 4 * (size_t)m->s->nlam * rl_mass_nconf(m->s));
}

void rl_mass_add(rl_mass *m, long delta, double score)
{
    const rl_mass_spec *s = m->s;
    const int nc = rl_mass_nconf(s);
    const int far = delta > s->K;
    double *sum = far ? m->far : m->near, *comp = far ? m->fcomp : m->ncomp;
    for (int l = 0; l < s->nlam; l++) {
        double e = exp(s->lam[l] * score);
        rl_sum_add(&sum[l * nc], &comp[l * nc], e);
        /* ALiBi: e^{lambda s - m delta} = e^{lambda s} e^{-m delta} */
        for (int c = 1; c < nc; c++)
            rl_sum_add(&sum[l * nc + c], &comp[l * nc + c], e * s->decay[(long)(c - 1) * (s->lmax + 1) + delta]);
    }
}

const rl_mass_spec *rl_mass_spec_of(const rl_mass *m)
{
    return m->s;
}

double rl_mass_rho(const rl_mass *m, int l, int c)
{
    const int i = l * rl_mass_nconf(m->s) + c;
    double F = m->far[i] + m->fcomp[i], N = m->near[i] + m->ncomp[i];
    return F / (F + N);
}
