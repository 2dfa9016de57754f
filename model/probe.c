/* probe.c: the theory's quantities measured inside a trained model.
 *
 * For the last block of queries of each evaluation window (the queries with
 * the longest context), every layer and head: the attention mass on keys
 * at distance >= W (the far mass rho_D of claim 3, for several W), the
 * largest logit magnitude lambda of the row, the bound
 * M_L / (M_L + K e^{2 lambda}) with K = W near and M_L = i + 1 - W far keys
 * (a row's logits all lie in [-lambda, lambda], so the bound holds row by
 * row: a violation would be a bug), and the mean logit and attention weight
 * by distance.  Beside it the shift-invariant form M_L / (M_L + K e^{Delta}),
 * Delta = max near logit - min far logit of the row (theory.h,
 * rl_farmass_range: the tightest of the forms that holds for the realised
 * logits; a violation would again be a bug), and the admissible length
 * L*(1/2) = K + K e^{Delta} at which it forces far mass >= 1/2.  The logits come from the streaming kernel's observer, so
 * they are exactly those of the evaluation (every position scheme, PaTH
 * included); the ALiBi bias is added here. */
#include "probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/stats.h"
#include "../base/core/util.h"
#include "attention.h"
#include "data.h"
#include "../theory/theory.h"

/* per (layer, head, W), beside the far mass's running moments (base/core/stats):
 * bound sum, violations, lambda sum, lambda max; range bound sum, its
 * violations, Delta sum, Delta max */
enum { ST_BOUND, ST_VIOL, ST_LAM, ST_LAMMAX, ST_RBOUND, ST_RVIOL, ST_DELTA, ST_DELTAMAX, NSTAT };

struct rl_probe {
    int layers, H;
    long L, i0, nq;     /* window length; probed queries [i0, L) */
    int nw;
    long W[RL_PROBE_MAXW];
    int nbins;
    const float *slopes;
    float *rows;        /* H x nq x L logits of the current layer */
    rl_welford *far;    /* [layer][h][w]: the far mass's mean and variance, one pass; its n counts the rows */
    double *stat;       /* [layer][h][w][NSTAT] */
    double *dist;       /* [layer][h][bin][3]: logit sum, weight sum, count */
    double *alpha;      /* H x L softmax scratch (one row per head) */
    rl_welford *ent;    /* [layer][h]: the rows' attention entropy -sum alpha log alpha (nats) */
};

/* Distance bin of delta = i - j >= 0: 0 for delta = 0, else 1 + floor(log2 delta). */
static int dbin(long delta)
{
    int b = 0;
    while (delta > 0) {
        delta >>= 1;
        b++;
    }
    return b;
}

rl_probe *rl_probe_alloc(int layers, int H, long L, const float *slopes, const long *W, int nw)
{
    rl_probe *p = rl_alloc_array(1, sizeof *p, NULL);
    if (!p)
        return NULL;
    p->layers = layers;
    p->H = H;
    p->L = L;
    p->i0 = (L - 1) / RL_ATTN_SQ * RL_ATTN_SQ;
    p->nq = L - p->i0;
    p->nw = nw < RL_PROBE_MAXW ? nw : RL_PROBE_MAXW;
    memcpy(p->W, W, sizeof(long) * p->nw);
    p->nbins = dbin(L) + 1;
    p->slopes = slopes;
    const size_t lh = (size_t)layers * H;
    if (!(p->rows = rl_alloc_array((size_t)H * p->nq * L, sizeof(float), NULL)) ||
        !(p->far = rl_alloc_array(lh * p->nw, sizeof(rl_welford), NULL)) ||
        !(p->stat = rl_alloc_array(lh * p->nw * NSTAT, sizeof(double), NULL)) ||
        !(p->dist = rl_alloc_array(lh * p->nbins * 3, sizeof(double), NULL)) ||
        !(p->alpha = rl_alloc_array((size_t)H * L, sizeof(double), NULL)) ||
        !(p->ent = rl_alloc_array(lh, sizeof(rl_welford), NULL))) {
        rl_probe_free(p);
        return NULL;
    }
    for (long k = 0; k < (long)layers * H * p->nw; k++)
        rl_welford_init(&p->far[k]);
    for (long k = 0; k < (long)layers * H; k++)
        rl_welford_init(&p->ent[k]);
    return p;
}

void rl_probe_free(rl_probe *p)
{
    if (!p)
        return;
    free(p->rows);
    free(p->far);
    free(p->stat);
    free(p->dist);
    free(p->alpha);
    free(p->ent);
    free(p);
}

/* The rows of (layer, h) are complete: their statistics. */
static void rows_done(rl_probe *p, int layer, int h)
{
    const float sl = p->slopes ? p->slopes[h] : 0.0f;
    double *a = p->alpha + (long)h * p->L;
    for (long r = 0; r < p->nq; r++) {
        const long i = p->i0 + r;
        const float *S = p->rows + ((long)h * p->nq + r) * p->L;
        /* logits with the bias; softmax in double */
        double mx = -INFINITY, lam = 0, sum = 0;
        for (long j = 0; j <= i; j++) {
            a[j] = S[j] - (double)sl * (double)(i - j);
            mx = fmax(mx, a[j]);
            lam = fmax(lam, fabs(a[j]));
        }
        /* the realised range per W: max near logit (j > i - W), min far (j <= i - W) */
        double nearmax[RL_PROBE_MAXW], farmin[RL_PROBE_MAXW];
        for (int w = 0; w < p->nw; w++) {
            const long W = p->W[w];
            nearmax[w] = -INFINITY;
            farmin[w] = INFINITY;
            for (long j = 0; j <= i && W <= i; j++)
                if (j <= i - W)
                    farmin[w] = fmin(farmin[w], a[j]);
                else
                    nearmax[w] = fmax(nearmax[w], a[j]);
        }
        double *dist = p->dist + ((long)layer * p->H + h) * p->nbins * 3;
        for (long j = 0; j <= i; j++) {
            double *d = dist + 3 * dbin(i - j);
            d[0] += a[j];
            d[2] += 1;
            a[j] = exp(a[j] - mx);
            sum += a[j];
        }
        double ent = 0;
        for (long j = 0; j <= i; j++) {
            a[j] /= sum;
            dist[3 * dbin(i - j) + 1] += a[j];
            if (a[j] > 0)
                ent -= a[j] * log(a[j]);
        }
        rl_welford_add(&p->ent[(long)layer * p->H + h], ent);
        /* far mass beyond W: keys j <= i - W, a prefix; cumulate once */
        double *st = p->stat + ((long)layer * p->H + h) * p->nw * NSTAT;
        rl_welford *fw = p->far + ((long)layer * p->H + h) * p->nw;
        for (int w = 0; w < p->nw; w++) {
            const long W = p->W[w];
            if (W > i)
                continue;
            double far = 0;
            for (long j = 0; j <= i - W; j++)
                far += a[j];
            const double M = (double)(i + 1 - W), K = (double)W;
            const double bound = rl_farmass_lower(M, K, lam); /* theory/: M/(M + K e^{2 lam}) */
            double *s = st + w * NSTAT;
            rl_welford_add(&fw[w], far);
            s[ST_BOUND] += bound;
            s[ST_VIOL] += far < bound * (1 - 1e-6) - 1e-12; /* a violation: impossible but for a bug */
            s[ST_LAM] += lam;
            s[ST_LAMMAX] = fmax(s[ST_LAMMAX], lam);
            const double dr = nearmax[w] - farmin[w], br = rl_farmass_range(M, K, dr);
            s[ST_RBOUND] += br;
            s[ST_RVIOL] += far < br * (1 - 1e-6) - 1e-12;
            s[ST_DELTA] += dr;
            s[ST_DELTAMAX] = fw[w].n == 1 ? dr : fmax(s[ST_DELTAMAX], dr);
        }
    }
}

void rl_probe_observe(void *ctx, int layer, int b, int h, long i0, long i1, long j0, long j1,
                      const float *S, long lds)
{
    rl_probe *p = ctx;
    (void)b; /* evaluation windows are single sequences */
    if (i0 != p->i0)
        return;
    for (long r = 0; r < i1 - i0; r++)
        memcpy(p->rows + ((long)h * p->nq + r) * p->L + j0, S + r * lds, sizeof(float) * (j1 - j0));
    if (j0 == 0) /* the kernel visits key blocks down to 0 last */
        rows_done(p, layer, h);
}

void rl_probe_write(const rl_probe *p, FILE *probe_tsv, FILE *dist_tsv)
{
    for (int l = 0; l < p->layers; l++)
        for (int h = 0; h < p->H; h++) {
            const double *st = p->stat + ((long)l * p->H + h) * p->nw * NSTAT;
            const rl_welford *fw = p->far + ((long)l * p->H + h) * p->nw;
            for (int w = 0; w < p->nw; w++) {
                const double *s = st + w * NSTAT, n = (double)fw[w].n;
                if (n == 0)
                    continue;
                /* the bound at the largest lambda seen, for the last query */
                const double M = (double)(p->L - p->W[w]), K = (double)p->W[w];
                /* appended after the first twelve columns, whose meaning is
                 * unchanged: the range form, Delta, and L*(1/2) at the
                 * largest Delta seen (every row forced to >= 1/2 beyond it) */
                fprintf(probe_tsv, "%ld\t%d\t%d\t%ld\t%.6g\t%.3g\t%.6g\t%.6g\t%.4g\t%.4g\t%.0f\t%.0f\t"
                                   "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.0f\t%.6g\n", p->L,
                        l, h, p->W[w], fw[w].mean, rl_welford_se(&fw[w]), s[ST_BOUND] / n,
                        rl_farmass_range(M, K, 2 * s[ST_LAMMAX]), s[ST_LAM] / n, s[ST_LAMMAX], n, s[ST_VIOL],
                        s[ST_RBOUND] / n, rl_farmass_range(M, K, s[ST_DELTAMAX]), s[ST_DELTA] / n, s[ST_DELTAMAX],
                        K + rl_farmass_admissible(K, 0.5, s[ST_DELTAMAX]), s[ST_RVIOL],
                        p->ent[(long)l * p->H + h].mean);
            }
            const double *d = p->dist + ((long)l * p->H + h) * p->nbins * 3;
            for (int b = 0; b < p->nbins; b++)
                if (d[3 * b + 2] > 0)
                    fprintf(dist_tsv, "%ld\t%d\t%d\t%ld\t%ld\t%.6g\t%.6g\n", p->L, l, h,
                            b ? 1L << (b - 1) : 0L, b ? (1L << b) - 1 : 0L, d[3 * b] / d[3 * b + 2],
                            d[3 * b + 1] / d[3 * b + 2]);
        }
}

void rl_probe_write_headers(FILE *probe_tsv, FILE *dist_tsv)
{
    fprintf(probe_tsv, "length\tlayer\thead\tW\tfar_mass\tfar_mass_se\tbound_mean\tbound_at_max_lambda\t"
                       "lambda_mean\tlambda_max\trows\tviolations\tbound_range_mean\tbound_range_at_max_delta\t"
                       "delta_mean\tdelta_max\tL_star_half\tviolations_range\tentropy\n");
    fprintf(dist_tsv, "length\tlayer\thead\tdist_lo\tdist_hi\tmean_logit\tmean_weight\n");
}

int rl_probe_default_lengths(long T, long *L)
{
    L[0] = T;
    L[1] = 16 * T;
    return 2;
}

rl_status rl_probe_length(const rl_gpt *m, rl_gpt_eval *ev, const rl_tokens *val, long L, long windows,
                          uint64_t seed, FILE *probe_tsv, FILE *dist_tsv)
{
    const long T = m->cfg.ctx;
    long W[RL_PROBE_MAXW];
    int nw = 0;
    for (long w = T / 4 > 0 ? T / 4 : 1; w <= L / 2 && nw < RL_PROBE_MAXW; w *= 2)
        W[nw++] = w;
    if (nw == 0)
        W[nw++] = 1;
    rl_probe *p = rl_probe_alloc(m->cfg.layers, m->cfg.heads, L, rl_gpt_alibi_slopes(m), W, nw);
    if (!p)
        return RL_ENOMEM;
    rl_gpt_eval_observe(ev, rl_probe_observe, p);
    for (long w = 0; w < windows && !rl_cancelled() && !rl_gpt_eval_nomem(ev); w++) { /* a caller's stop (err.h) */
        uint64_t key;
        const long start = rl_data_window(val, L, seed, w, &key);
        if (start < 0) {
            rl_gpt_eval_set_nomem(ev);
            break;
        }
        rl_gpt_eval_window(m, ev, val->tok + start, L, key);
    }
    rl_gpt_eval_observe(ev, NULL, NULL);
    const rl_status s = rl_gpt_eval_nomem(ev) ? RL_ENOMEM : RL_OK;
    if (s == RL_OK) /* no rows from windows that did not run */
        rl_probe_write(p, probe_tsv, dist_tsv);
    rl_probe_free(p);
    return s;
}
