/* findings.c: connected groups of orderings (findings.h). */
#include "findings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/core/util.h"

/* r = sum (x - mx)(y - my) / sqrt(sum (x - mx)^2 sum (y - my)^2), over the
 * seeds where both are finite. */
double rl_findings_r(const double *x, const double *y, int k)
{
    double mx = 0, my = 0;
    int n = 0;
    for (int i = 0; i < k; i++)
        if (isfinite(x[i]) && isfinite(y[i]))
            mx += x[i], my += y[i], n++;
    if (n < RL_FINDINGS_MIN_SEEDS)
        return NAN;
    mx /= n, my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < k; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            const double dx = x[i] - mx, dy = y[i] - my;
            sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
        }
    if (sxx <= 0 || syy <= 0)
        return NAN;
    return sxy / sqrt(sxx * syy);
}

static int same(const char *p, const char *q)
{
    return (!p && !q) || (p && q && !strcmp(p, q));
}

/* the shared link: the same unordered pair at the same multiple */
static int shared(const rl_finding_row *p, const rl_finding_row *q)
{
    if (p->mult != q->mult)
        return 0;
    return (same(p->a, q->a) && same(p->b, q->b)) || (same(p->a, q->b) && same(p->b, q->a));
}

static int share_variant(const rl_finding_row *p, const rl_finding_row *q)
{
    const char *u[2] = { p->a, p->b }, *w[2] = { q->a, q->b };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (u[i] && w[j] && !strcmp(u[i], w[j]))
                return 1;
    return 0;
}

static int linked(const rl_finding_row *p, const rl_finding_row *q)
{
    if (shared(p, q))
        return 1;
    if (!p->corr || !q->corr)
        return 0;
    /* a correlation links only rows that share a variant: that variant's own
     * log ratio is what moves both across seeds; between unrelated rows a
     * 0.9 over six seeds is chance (p = 0.015 a pair, and a grid has ~100
     * pairs), and chained links would merge unrelated findings */
    if (!share_variant(p, q))
        return 0;
    const int k = p->k < q->k ? p->k : q->k;
    const double r = rl_findings_r(p->x, q->x, k);
    return isfinite(r) && fabs(r) >= RL_FINDINGS_R;
}

static int root(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

int rl_findings_group(const rl_finding_row *rows, int n, int *group)
{
    /* union-find over the links; group[] doubles as the parent array */
    for (int i = 0; i < n; i++)
        group[i] = i;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (linked(&rows[i], &rows[j])) {
                const int ri = root(group, i), rj = root(group, j);
                if (ri != rj)
                    group[ri > rj ? ri : rj] = ri < rj ? ri : rj;
            }
    /* number the sets in the order of their first row: a root is the
     * smallest index of its set, so it is met before its other rows */
    int *id = rl_xmalloc(sizeof(int) * (n > 0 ? n : 1)), ng = 0;
    for (int i = 0; i < n; i++) {
        const int r = root(group, i);
        id[i] = r == i ? ng++ : id[r];
    }
    memcpy(group, id, sizeof(int) * n);
    free(id);
    return ng;
}

rl_verdict rl_findings_verdict(const rl_finding_row *rows, int n, const int *group, int g,
                               int counts[RL_NVERDICT])
{
    memset(counts, 0, sizeof(int) * RL_NVERDICT);
    int m = 0;
    rl_verdict v = RL_NVERDICT;
    for (int i = 0; i < n; i++)
        if (group[i] == g) {
            counts[rows[i].v]++;
            v = m++ ? (rows[i].v == v ? v : RL_NVERDICT) : rows[i].v;
        }
    return v;
}
