/* farpred.c: the within-T measurement and the far-mass prediction of
 * farpred.h (docs/theory/farpred.md#far-mass-prediction). */
#include "farpred.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/mem.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../theory/farpred_forms.h"
#include "../theory/theory.h"
#include "accum_rot.h"
#include "attention.h"
#include "data.h"
#include "farpred_route.h"
#include "layers.h"
#include "scheme_rot.h"

void rl_farpred_within_free(rl_farpred_within *w)
{
    free(w->slope);
    free(w->dsum);
    free(w->dsq);
    free(w->dexp);
    free(w->dcount);
    free(w->nearN);
    free(w->lam);
    free(w->nearS);
    free(w->rowb);
    free(w->rowbc);
    free(w->rows0);
    free(w->rows0c);
    free(w->bandc);
    free(w->sinkc);
    free(w->c);
    free(w->cs);
    free(w->sr);
    free(w->srs);
    free(w->pdist);
    free(w->sdist);
    free(w->A);
    free(w->As);
    free(w->chi);
    free(w->qr);
    free(w->ks);
    free(w->junc);
    free(w->kseg);
    free(w->scen);
    free(w->shw);
    free(w->om);
    memset(w, 0, sizeof *w);
}

/* Sums over positions 1..T-1 of the windows of e^{i n c} sinc(n w), the
 * scheme's own step law (rl_scheme_steps), per layer and lane, into
 * acc[(l * lanes + lane) * nh + n - 1]; e^{i n c} and e^{i n w} by
 * recurrence.  Called once per batch (windows g0 ..), after the forward (lf
 * reads LN1); the laws of windows below w->nseg are kept for the route
 * (scen, shw). */
static void add_steps(rl_gpt *m, const uint16_t *tok, long g0, int nbw, long T, int nh, double complex *acc,
                      double *cen, double *hw, rl_farpred_within *w)
{
    const int lanes = rl_scheme_step_lanes(&m->sx);
    for (int l = 0; l < m->cfg.layers; l++) {
        if (rl_scheme_steps(&m->sx, l, m->a[l].ln1, tok, (long)nbw * T, cen, hw) != RL_OK)
            rl_fatal("out of memory (the position scheme's steps)"); /* the command layer's path alone */
        for (int b = 0; b < nbw && g0 + b < w->nseg; b++) {
            const size_t o = ((size_t)(l * w->nseg + g0 + b) * T) * lanes;
            memcpy(w->scen + o, cen + (long)b * T * lanes, sizeof(double) * T * lanes);
            memcpy(w->shw + o, hw + (long)b * T * lanes, sizeof(double) * T * lanes);
        }
        for (long r = 0; r < (long)nbw * T; r++) {
            if (r % T == 0) /* position 0 takes no step */
                continue;
            for (int j = 0; j < lanes; j++) {
                const double c = cen[r * lanes + j], wd = hw[r * lanes + j];
                const double complex zc = cexp(I * c), zw = cexp(I * wd);
                double complex pc = 1, pw = 1;
                double complex *a = acc + ((long)l * lanes + j) * nh;
                for (int n = 1; n <= nh; n++) {
                    pc *= zc;
                    pw *= zw;
                    a[n - 1] += (wd == 0 ? 1.0 : cimag(pw) / (n * wd)) * pc;
                }
            }
        }
    }
}

/* Windows g0 .. g0 + nbw - 1 of rl_data_window into tok (T + 1 each) and
 * the forward over them; the windows' noise: one key per batch (the
 * forward draws each window's from streams of it), the same at every pass. */
static void window_batch(rl_gpt *m, const rl_tokens *val, long T, uint64_t seed, long g0, int nbw,
                         uint16_t *tok)
{
    uint64_t key0 = 0;
    for (int b = 0; b < nbw; b++) {
        uint64_t key;
        const long s0 = rl_data_window(val, T, seed, g0 + b, &key);
        if (s0 < 0) /* the command layer's path alone (no public entry reaches it) */
            rl_fatal("out of memory (a random number generator)");
        if (b == 0)
            key0 = key;
        memcpy(tok + (long)b * (T + 1), val->tok + s0, sizeof(uint16_t) * (T + 1));
    }
    rl_gpt_forward(m, tok, T + 1, nbw, (int)T, 0, key0);
    if (m->nomem)
        rl_fatal("out of memory (the position scheme's noise)");
}

/* Pair k of window g: a distance in the band [T/2, T) and a query with a
 * key j >= 1 there, spread over both by two coprime strides. */
static void band_pair(long T, long g, long k, long *i, long *j)
{
    const long half = T / 2, u = g * 7919 + k * 104729, nd = T - 1 - half;
    const long d = half + u % nd; /* <= T - 2: some i <= T - 1 has j = i - d >= 1 */
    *i = d + 1 + (u / nd) % (T - 1 - d);
    *j = *i - d;
}

/* The unrotated alignments of pair (i, j) of head h: raw q, k rows (row
 * stride 3C: q at 0, k at C) into A (nb values) and c. */
static void content(const float *raw, int C, int hd, int h, int rotates, long i, long j, double complex *A,
                    double *c)
{
    const float *q = raw + i * 3 * C + h * hd, *k = raw + j * 3 * C + C + h * hd;
    const double sc = 1 / sqrt((double)hd);
    const int P = hd / 2;
    double dot = 0;
    for (int t = 0; t < hd; t++)
        dot += (double)q[t] * k[t];
    if (!rotates) {
        *c = dot * sc;
        return;
    }
    *c = 0;
    for (int p = 0; p < P; p++) /* q~ conj(k~): (q1 + i q2)(k1 - i k2) */
        A[p] = sc * ((double)q[p] + I * (double)q[p + P]) * ((double)k[p] - I * (double)k[p + P]);
}

/* A block mixes at the band when its coherence there, |chi_b(1)|^{T/2},
 * is at most this: the accumulated angle at the band has forgotten the
 * query's path, and a far key's angle (the band's, continued) more so. */
#define BAND_MIXED 0.1

/* The level a band key (i, j) of head h shows the far keys
 * (docs/theory/farpred.md#farpred-derivation, correction 1): its realised log weight s + m_h delta,
 * with each block that mixes at the band (mixed[p]) not at its realised score
 * X_p = Re(A_p e^{i Theta_p}) but at its conditional mean given the
 * content, log F1(A_p, delta): a far key shares the query and the path
 * with the band key, and a mixed block's realised phase is neither, only
 * noise that lowers the mean of q f/(N + q f) by concavity (F3).  qr, kr
 * the rotated rows (the realised X_p), raw the unrotated (A_p); Ak P
 * values of scratch, fws a workspace of one block at one distance (this
 * runs once per band key and head: no allocation in it). */
static rl_status band_level(const float *qr, const float *raw, int C, int hd, int h, long i, long j, double s,
                            double slope, const double complex *chi, int nh, const char *mixed, int nmixed,
                            double complex *Ak, rl_farpred_ws *fws, double *lw, rl_err *err)
{
    const long d = i - j;
    *lw = s + slope * (double)d;
    if (nmixed == 0)
        return RL_OK;
    const int P = hd / 2;
    const double sc = 1 / sqrt((double)hd);
    double c;
    content(raw, C, hd, h, 1, i, j, Ak, &c);
    const float *q = qr + i * 3 * C + h * hd, *k = qr + j * 3 * C + C + h * hd;
    for (int p = 0; p < P; p++) {
        if (!mixed[p])
            continue;
        const rl_farpred_law law = { 1, nh, chi + (long)p * nh };
        double lf;
        const rl_status st = rl_farpred_logmean_ws(fws, &law, 1, NULL, Ak + p, 0, d, 1, &lf, NULL, err);
        if (st != RL_OK)
            return st;
        *lw += lf - sc * ((double)q[p] * k[p] + (double)q[p + P] * k[p + P]);
    }
    return RL_OK;
}

/* w's fields and arrays for m, nwin windows and np content pairs
 * (rl_farpred_within, farpred.h), zeroed; ALiBi's slopes per head, the
 * RoPE frequencies omega_b. */
static void within_alloc(rl_farpred_within *w, const rl_gpt *m, long nwin, long np, uint64_t seed)
{
    const rl_gpt_config *cfg = &m->cfg;
    const long T = cfg->ctx;
    const int H = cfg->heads, Lay = cfg->layers, hd = m->hd;
    const int P = cfg->pos.rot != RL_ROT_NONE ? hd / 2 : 0;
    const long NH = (long)Lay * H, ns = nwin < np ? nwin : np;
    const int lanes = rl_scheme_step_lanes(&m->sx);
    w->layers = Lay;
    w->heads = H;
    w->nb = P;
    w->T = T;
    w->nwin = nwin;
    w->np = np;
    w->ns = ns;
    w->nh = P ? RL_FARPRED_NH : 0;
    w->slope = rl_xcalloc(NH, sizeof(double));
    w->dsum = rl_xcalloc(NH * T, sizeof(double));
    w->dsq = rl_xcalloc(NH * T, sizeof(double));
    w->dexp = rl_xcalloc(NH * T, sizeof(double));
    w->dcount = rl_xcalloc(T, sizeof(double));
    w->nearN = rl_xcalloc(NH * nwin, sizeof(double));
    w->lam = rl_xcalloc(NH * nwin, sizeof(double));
    w->nearS = rl_xcalloc(NH * nwin, sizeof(double));
    w->rowb = rl_xcalloc(NH * nwin, sizeof(double));
    w->rowbc = rl_xcalloc(NH * nwin, sizeof(double));
    w->rows0 = rl_xcalloc(NH * nwin, sizeof(double));
    w->rows0c = rl_xcalloc(NH * nwin, sizeof(double));
    w->bandc = rl_xcalloc(NH, sizeof(double));
    w->sinkc = rl_xcalloc(NH, sizeof(double));
    w->c = rl_xcalloc(NH * np, sizeof(double));
    w->cs = rl_xcalloc(NH * ns, sizeof(double));
    w->sr = rl_xcalloc(NH * np, sizeof(double));
    w->srs = rl_xcalloc(NH * ns, sizeof(double));
    w->pdist = rl_xcalloc(np, sizeof(long));
    w->sdist = rl_xcalloc(ns, sizeof(long));
    w->A = rl_xcalloc((size_t)(NH * np * (P ? P : 1)), sizeof(double complex));
    w->As = rl_xcalloc((size_t)(NH * ns * (P ? P : 1)), sizeof(double complex));
    w->chi = rl_xcalloc((size_t)(NH * (P ? P : 1) * (w->nh ? w->nh : 1)), sizeof(double complex));
    const float *sl = rl_gpt_alibi_slopes(m);
    for (long x = 0; x < NH; x++)
        w->slope[x] = sl ? sl[x % H] : 0;
    /* the route's inputs (docs/theory/farpred.md#route-form) */
    w->seed = seed;
    w->hd = hd;
    w->lanes = lanes;
    w->nseg = nwin < RL_FARPRED_SEGMENTS ? nwin : RL_FARPRED_SEGMENTS;
    w->qr = rl_xcalloc((size_t)NH * nwin * hd, sizeof(float));
    w->ks = rl_xcalloc((size_t)NH * nwin * hd, sizeof(float));
    w->junc = rl_xcalloc((size_t)NH * nwin * (P ? P : 1), sizeof(double));
    w->kseg = rl_xcalloc((size_t)NH * w->nseg * T * hd, sizeof(float));
    w->scen = rl_xcalloc((size_t)Lay * w->nseg * T * (lanes ? lanes : 1), sizeof(double));
    w->shw = rl_xcalloc((size_t)Lay * w->nseg * T * (lanes ? lanes : 1), sizeof(double));
    w->om = rl_xcalloc((size_t)(P ? P : 1), sizeof(double));
    if (P)
        rl_so2_freqs(hd, cfg->rot_base, 1.0, w->om);
}

/* The step law chi_b^n, n = 1 .. nh, per head and block (w->chi): RoPE's
 * constant step e^{i n omega_b}, or for a scheme with step lanes the mean of
 * e^{i n (step)} over the windows' positions, read by a first pass over the
 * windows the measuring pass reads again (the same noise).  tok, cen, hw:
 * the caller's buffers for a batch of windows. */
static void step_law(rl_gpt *m, const rl_tokens *val, uint64_t seed, rl_farpred_within *w, uint16_t *tok,
                     double *cen, double *hw)
{
    const long T = w->T, nwin = w->nwin, NH = (long)w->layers * w->heads;
    const int B = m->B, H = w->heads, P = w->nb, lanes = w->lanes, Lay = w->layers;
    double complex *acc = rl_xcalloc((size_t)Lay * (lanes ? lanes : 1) * (w->nh ? w->nh : 1), sizeof *acc);
    long npos = 0;
    /* two passes over the same windows (the same noise): the first reads the
     * step law chi (schemes with lanes), which the second's band levels need */
    for (long g0 = 0; lanes && g0 < nwin; g0 += B) {
        const int nbw = nwin - g0 < B ? (int)(nwin - g0) : B;
        window_batch(m, val, T, seed, g0, nbw, tok);
        add_steps(m, tok, g0, nbw, T, w->nh, acc, cen, hw, w);
        npos += (long)nbw * (T - 1);
    }
    if (P && lanes == 0) { /* RoPE: the constant step omega_b */
        for (long x = 0; x < NH; x++)
            for (int p = 0; p < P; p++)
                for (int n = 1; n <= w->nh; n++)
                    w->chi[(x * P + p) * w->nh + n - 1] = cexp(I * (double)n * w->om[p]);
    } else if (P) /* lanes: H hd/2 head-major (random, lf, pemb) or hd/2 shared (pemb-shared) */
        for (long x = 0; x < NH; x++)
            for (int p = 0; p < P; p++) {
                const int l = (int)(x / H), h = (int)(x % H), j = lanes == P ? p : h * P + p;
                for (int n = 0; n < w->nh; n++)
                    w->chi[(x * P + p) * w->nh + n] = acc[((long)l * lanes + j) * w->nh + n] / (double)npos;
            }
    free(acc);
}

/* One head h of layer l on window g (batch row b): the route's inputs
 * (the last query, the first key, the junction angles, a segment's keys),
 * the scores s_ij of every causal pair by distance, the last query's near
 * sum, lambda and band levels, the content pairs and the sink.  qb: the
 * batch row's rotated q, k; rb: its raw ones; S: a T x T workspace. */
static rl_status head_window(rl_farpred_within *w, const rl_gpt *m, int l, int brow, int h, long g, const float *qb,
                             const float *rb, double *S, const char *mixed, const int *nmixed,
                             double complex *Ak, rl_farpred_ws *fws, rl_err *err)
{
    const long T = w->T, nwin = w->nwin, np = w->np, ns = w->ns;
    const int H = w->heads, hd = w->hd, P = w->nb, C = m->cfg.width;
    const int rotates = m->cfg.pos.rot != RL_ROT_NONE;
    const long ppw = (np + nwin - 1) / nwin; /* content pairs per window */
    const double sc = 1 / sqrt((double)hd);
    rl_status st = RL_OK;
            const long x = (long)l * H + h;
            /* the route's query (the last), the window's first key, the
             * realised junction angles, and a segment's keys */
            memcpy(w->qr + (x * nwin + g) * hd, rb + (T - 1) * 3 * C + h * hd, sizeof(float) * hd);
            memcpy(w->ks + (x * nwin + g) * hd, rb + C + h * hd, sizeof(float) * hd);
            for (int p = 0; p < P; p++)
                w->junc[(x * nwin + g) * P + p] = rl_rot_angle(m->ss.st, l, brow, T - 1, h, p);
            if (g < w->nseg)
                for (long t = 0; t < T; t++)
                    memcpy(w->kseg + ((x * w->nseg + g) * T + t) * hd, rb + t * 3 * C + C + h * hd,
                           sizeof(float) * hd);
            for (long i = 0; i < T; i++)
                for (long j = 0; j <= i; j++) {
                    const float *q = qb + i * 3 * C + h * hd, *k = qb + j * 3 * C + C + h * hd;
                    double dot = 0;
                    for (int t = 0; t < hd; t++)
                        dot += (double)q[t] * k[t];
                    const double s = dot * sc - w->slope[x] * (double)(i - j);
                    S[i * T + j] = s;
                    const long d = i - j;
                    w->dsum[x * T + d] += s;
                    w->dsq[x * T + d] += s * s;
                    w->dexp[x * T + d] += exp(s);
                    if (d >= T / 2) {
                        const double sc0 = exp(s + w->slope[x] * (double)d);
                        if (j >= 1)
                            w->bandc[x] += sc0;
                        else
                            w->sinkc[x] += sc0;
                    }
                }
            /* the last query: its near sum (delta < T - 1) and lambda */
            double N = 0, NS = 0, lam = 0;
            for (long j = 0; j < T; j++) {
                const double s = S[(T - 1) * T + j];
                lam = fmax(lam, fabs(s));
                if (j >= 1) {
                    N += exp(s);
                    NS += s * exp(s);
                }
            }
            w->nearN[x * nwin + g] = N;
            w->nearS[x * nwin + g] = NS;
            w->lam[x * nwin + g] = lam;
            /* its own level: its band keys j = 1 .. T/2 - 1 (delta in
             * [T/2, T - 2]) and its first token (delta = T - 1) */
            double b = 0, bc = 0, lw = 0;
            const double complex *chx = w->chi + x * (P ? P : 1) * (w->nh ? w->nh : 1);
            for (long j = 1; j < T / 2 && st == RL_OK; j++) {
                const double s = S[(T - 1) * T + j];
                b += exp(s);
                st = band_level(qb, rb, C, hd, h, T - 1, j, s, w->slope[x], chx, w->nh, mixed + x * P,
                                nmixed[x], Ak, fws, &lw, err);
                bc += exp(lw);
            }
            if (st == RL_OK)
                st = band_level(qb, rb, C, hd, h, T - 1, 0, S[(T - 1) * T], w->slope[x], chx, w->nh,
                                mixed + x * P, nmixed[x], Ak, fws, &lw, err);
            if (st != RL_OK)
                return st;
            w->rowb[x * nwin + g] = b / (double)(T / 2 - 1);
            w->rowbc[x * nwin + g] = bc / (double)(T / 2 - 1);
            w->rows0[x * nwin + g] = exp(S[(T - 1) * T]);
            w->rows0c[x * nwin + g] = exp(lw);
            for (long k = 0; k < ppw; k++) {
                const long p = g * ppw + k;
                if (p >= np)
                    break;
                long i, j;
                band_pair(T, g, k, &i, &j);
                content(rb, C, hd, h, rotates, i, j, w->A + (x * np + p) * (P ? P : 1),
                        &w->c[x * np + p]);
                w->sr[x * np + p] = S[i * T + j]; /* realised, with the bias */
                w->pdist[p] = i - j;
            }
            if (g < ns) { /* the sink at a band distance */
                const long i = T / 2 + g % (T - T / 2);
                content(rb, C, hd, h, rotates, i, 0, w->As + (x * ns + g) * (P ? P : 1), &w->cs[x * ns + g]);
                w->srs[x * ns + g] = S[i * T];
                w->sdist[g] = i;
            }
    return st;
}

rl_status rl_farpred_measure(rl_gpt *m, const rl_tokens *val, long nwin, long np, uint64_t seed,
                             rl_farpred_within *w, rl_err *err)
{
    memset(w, 0, sizeof *w);
    const rl_gpt_config *cfg = &m->cfg;
    const long T = cfg->ctx;
    if (cfg->pos.path)
        return rl_fail(err, RL_EINPUT, "%s transports scores by Householder steps, not SO(2) blocks: "
                       "no prediction", rl_pos_name(cfg->pos));
    if (nwin < 1 || np < 1)
        return rl_fail(err, RL_EINPUT, "--windows and --pairs must be >= 1");
    if (m->B < 1)
        return rl_fail(err, RL_EINPUT, "farpred needs a model with training activations (B >= 1)");
    if (T < 4 || val->n < T + 1)
        return rl_fail(err, RL_EINPUT, "need T >= 4 and a stream of at least T + 1 tokens");
    const int H = cfg->heads, Lay = cfg->layers, hd = m->hd, C = cfg->width;
    const int P = cfg->pos.rot != RL_ROT_NONE ? hd / 2 : 0;
    const long NH = (long)Lay * H;
    within_alloc(w, m, nwin, np, seed);
    const int B = m->B, lanes = w->lanes;
    uint16_t *tok = rl_xmalloc(sizeof(uint16_t) * (size_t)B * (T + 1));
    float *raw = rl_xmalloc(sizeof(float) * (size_t)B * T * 3 * C);
    double *S = rl_xmalloc(sizeof(double) * T * T);
    double *cen = rl_xmalloc(sizeof(double) * (size_t)B * T * (lanes ? lanes : 1)),
           *hw = rl_xmalloc(sizeof(double) * (size_t)B * T * (lanes ? lanes : 1));
    step_law(m, val, seed, w, tok, cen, hw);
    /* the blocks that mix at the band, per head (band_level) */
    char *mixed = rl_xcalloc((size_t)(NH * (P ? P : 1)), 1);
    int *nmixed = rl_xcalloc((size_t)NH, sizeof(int));
    for (long x = 0; x < NH; x++)
        for (int p = 0; p < P; p++)
            if (lanes && pow(cabs(w->chi[(x * P + p) * w->nh]), (double)(T / 2)) <= BAND_MIXED) {
                mixed[x * P + p] = 1;
                nmixed[x]++;
            }
    double complex *Ak = rl_xmalloc(sizeof(double complex) * (size_t)(P ? P : 1));
    rl_farpred_ws *fws = rl_farpred_ws_alloc(1, 1);
    rl_status st = RL_OK;
    for (long g0 = 0; g0 < nwin && st == RL_OK; g0 += B) {
        const int nbw = nwin - g0 < B ? (int)(nwin - g0) : B;
        window_batch(m, val, T, seed, g0, nbw, tok);
        for (int l = 0; l < Lay && st == RL_OK; l++) {
            const float *qkv = m->a[l].qkv; /* q, k rotated in place by the forward */
            const float *wq = m->p.blk[l][RL_QKVW], *bq = m->p.blk[l][RL_QKVB];
            rl_matmul_forward(raw, m->a[l].ln1, wq, bq, (long)nbw * T, C, 3 * C, NULL);
            for (int b = 0; b < nbw && st == RL_OK; b++) {
                const long g = g0 + b;
                const float *qb = qkv + (long)b * T * 3 * C, *rb = raw + (long)b * T * 3 * C;
                for (int h = 0; h < H && st == RL_OK; h++)
                    st = head_window(w, m, l, b, h, g, qb, rb, S, mixed, nmixed, Ak, fws, err);
            }
        }
        for (long d = 0; d < T; d++)
            w->dcount[d] += (double)nbw * (T - d);
    }
    /* band means over the exact counts */
    double nb_band = 0, nb_sink = 0;
    for (long d = T / 2; d < T; d++) {
        nb_band += (double)nwin * (T - d - 1);
        nb_sink += (double)nwin;
    }
    for (long x = 0; x < NH; x++) {
        w->bandc[x] /= nb_band;
        w->sinkc[x] /= nb_sink;
    }
    free(mixed);
    free(nmixed);
    free(Ak);
    rl_farpred_ws_free(fws);
    free(tok);
    free(raw);
    free(S);
    free(cen);
    free(hw);
    if (st != RL_OK)
        rl_farpred_within_free(w);
    return st;
}

/* log mean_p e^{s_p + slope d_p} (the pairs' content without the bias),
 * without overflow. */
static double log_mean_content(const double *s, const long *d, double slope, long n)
{
    double mx = -INFINITY, sum = 0;
    for (long i = 0; i < n; i++)
        mx = fmax(mx, s[i] + slope * (double)d[i]);
    for (long i = 0; i < n; i++)
        sum += exp(s[i] + slope * (double)d[i] - mx);
    return mx + log(sum / (double)n);
}

/* Head x's segments and steps as the route reads them (farpred_route.h);
 * md: nb doubles for the mixing-off steps arg chi_b(1). */
static rl_route_head route_head(const rl_farpred_within *w, long x, double *md)
{
    const int P = w->nb, l = (int)(x / w->heads), h = (int)(x % w->heads);
    for (int b = 0; b < P; b++)
        md[b] = carg(w->chi[(x * P + b) * w->nh]);
    rl_route_head rh = { P, w->hd, w->T, w->nseg, w->slope[x], w->kseg + x * w->nseg * w->T * w->hd, w->hd,
                         NULL, NULL, w->lanes, w->om, md };
    if (w->lanes) { /* lanes H hd/2 head-major (random, lf, pemb) or hd/2 shared (pemb-shared) */
        const long off = (long)l * w->nseg * w->T * w->lanes + (w->lanes == P ? 0 : (long)h * P);
        rh.cen = w->scen + off;
        rh.hw = w->shw + off;
    }
    return rh;
}

/* routelab's predictor, the route form, and its mixing-off ablation: every
 * window's last query's row simulated once (farpred_route.h), heads and
 * queries in parallel, each (head, query) from its own streams (the same
 * bytes for any thread count), the segments shared by the two forms (a
 * paired comparison); the rows' means over the queries and their SE. */
static void predict_routes(const rl_farpred_within *w, const long *L, int nl, rl_farpred_row *rows)
{
    const long NH = (long)w->layers * w->heads, R = w->nwin;
    const int P = w->nb;
    double *rho = rl_xmalloc(sizeof(double) * NH * R * nl * 3);
    double *ent = rho + NH * R * nl, *rho0 = ent + NH * R * nl;
#pragma omp parallel
    {
        rl_rng_local rs_l, ru_l; /* no allocation: nothing to fail (sampling/rng.h) */
        gsl_rng *rs = rl_rng_local_init(&rs_l), *ru = rl_rng_local_init(&ru_l);
        double *scr = rl_xmalloc(sizeof(double) * (4 * (size_t)P + 1)), *md = scr + 3 * P;
        double *e0 = rl_xmalloc(sizeof(double) * nl);
#pragma omp for schedule(dynamic, 4)
        for (long xr = 0; xr < NH * R; xr++) {
            const long x = xr / R, r = xr % R;
            const rl_route_head rh = route_head(w, x, md);
            const rl_route_query q = { w->qr + xr * w->hd, w->ks + (x * R + (r + R / 2) % R) * w->hd,
                                       w->nearN[xr], w->nearS[xr], w->junc + xr * P };
            const uint64_t key = rl_stream_key((uint64_t)x, (uint64_t)r);
            rl_rng_stream(rs, w->seed ^ RL_STREAM_FARPRED_ROUTE, rl_stream_key(key, 0));
            rl_rng_stream(ru, w->seed ^ RL_STREAM_FARPRED_ROUTE, rl_stream_key(key, 1));
            rl_route_rows(&rh, &q, 0, rs, ru, L, nl, scr, rho + xr * nl, ent + xr * nl);
            rl_rng_stream(rs, w->seed ^ RL_STREAM_FARPRED_ROUTE, rl_stream_key(key, 0));
            rl_route_rows(&rh, &q, 1, rs, ru, L, nl, scr, rho0 + xr * nl, e0);
        }
        free(scr);
        free(e0);
    }
    for (long x = 0; x < NH; x++)
        for (int k = 0; k < nl; k++) {
            double s = 0, s2 = 0, z = 0, z2 = 0, e = 0;
            for (long r = 0; r < R; r++) {
                const double a = rho[(x * R + r) * nl + k], b = rho0[(x * R + r) * nl + k];
                s += a;
                s2 += a * a;
                z += b;
                z2 += b * b;
                e += ent[(x * R + r) * nl + k];
            }
            rl_farpred_row *row = rows + (long)k * NH + x;
            row->route = s / R;
            row->nomix = z / R;
            row->ent_route = e / R;
            row->route_se = R > 1 ? sqrt(fmax(0, (s2 - s * s / R) / (R - 1)) / R) : NAN;
            row->nomix_se = R > 1 ? sqrt(fmax(0, (z2 - z * z / R) / (R - 1)) / R) : NAN;
        }
    free(rho);
}

/* The lengths' checks, one place for the command (before it measures) and
 * for rl_farpred_predict: each beyond T; the route's work, heads x windows
 * x (Lmax - T) steps of every block, twice (mixing on and off), within
 * RL_FARPRED_MAX_STEPS (a length from the command line must not start a run
 * of days); the far-key tables (10 doubles a length) within the memory.
 * *Lmax receives the longest. */
static rl_status check_lengths(long T, long NH, long nwin, int nb, const long *L, int nl, long *Lmax, rl_err *err)
{
    *Lmax = T + 1;
    for (int k = 0; k < nl; k++) {
        if (L[k] <= T)
            return rl_fail(err, RL_EINPUT, "every length must exceed T = %ld, got %ld", T, L[k]);
        if (L[k] > *Lmax)
            *Lmax = L[k];
    }
    const double steps = 2.0 * (double)NH * (double)nwin * (double)(*Lmax - T) * (nb > 0 ? nb : 1);
    if (steps > RL_FARPRED_MAX_STEPS)
        return rl_fail(err, RL_EINPUT,
                       "length %ld: the route would take %.3g block steps (at most %.3g): fewer --windows or "
                       "shorter --lengths",
                       *Lmax, steps, (double)RL_FARPRED_MAX_STEPS);
    int over = 0;
    const size_t need = rl_szmul((size_t)*Lmax, 10 * sizeof(double), &over);
    return rl_mem_check("farpred's far-key tables", need, over, err);
}

rl_status rl_farpred_check(const rl_gpt *m, long nwin, const long *L, int nl, rl_err *err)
{
    long Lmax;
    const int nb = m->cfg.pos.rot != RL_ROT_NONE ? m->hd / 2 : 0;
    return check_lengths(m->cfg.ctx, (long)m->cfg.layers * m->cfg.heads, nwin, nb, L, nl, &Lmax, err);
}

rl_status rl_farpred_predict(const rl_farpred_within *w, const long *L, int nl, rl_farpred_row *rows,
                             double *logm_band, rl_err *err)
{
    const long T = w->T, NH = (long)w->layers * w->heads;
    long Lmax;
    RL_TRY(check_lengths(T, NH, w->nwin, w->nb, L, nl, &Lmax, err));
    /* m over delta = T/2 .. Lmax - 1 (the band for the within-T check, then
     * the far keys) */
    const long d0 = T / 2, nd = Lmax - d0;
    double *lm = rl_xmalloc(sizeof(double) * nd), *ls = rl_xmalloc(sizeof(double) * nd);
    double *mt = rl_xmalloc(sizeof(double) * nd), *m0 = rl_xmalloc(sizeof(double) * nd);
    double *one = rl_xmalloc(sizeof(double) * nd), *zero = rl_xmalloc(sizeof(double) * nd);
    double *sb = rl_xmalloc(sizeof(double) * nd), *sb0 = rl_xmalloc(sizeof(double) * nd);
    const long R = w->nwin;
    double *N = rl_xmalloc(sizeof(double) * R), *Nd = rl_xmalloc(sizeof(double) * R);
    double *q = rl_xmalloc(sizeof(double) * R), *qs = rl_xmalloc(sizeof(double) * R);
    double *NS = rl_xmalloc(sizeof(double) * R), *NSd = rl_xmalloc(sizeof(double) * R);
    rl_status st = RL_OK;
    for (long x = 0; x < NH && st == RL_OK; x++) {
        const rl_farpred_law law = { w->nb, w->nh, w->chi + x * (w->nb ? w->nb : 1) * (w->nh ? w->nh : 1) };
        const int P = w->nb ? w->nb : 1;
        st = rl_farpred_logmean(&law, w->np, w->c + x * w->np, w->A + x * w->np * P, w->slope[x], d0, nd, lm,
                                sb, err);
        if (st == RL_OK)
            st = rl_farpred_logmean(&law, w->ns, w->cs + x * w->ns, w->As + x * w->ns * P, w->slope[x], d0, nd,
                                    ls, sb0, err);
        if (st != RL_OK)
            break;
        /* the ratio estimator: the sample's content level onto the whole
         * band's (both without the ALiBi bias) */
        const double an = log(w->bandc[x]) - log_mean_content(w->sr + x * w->np, w->pdist, w->slope[x], w->np),
                     as = log(w->sinkc[x]) - log_mean_content(w->srs + x * w->ns, w->sdist, w->slope[x], w->ns);
        for (long t = 0; t < nd; t++) { /* a level e^a is every score shifted by a */
            lm[t] += an;
            ls[t] += as;
            sb[t] += an;
            sb0[t] += as;
        }
        if (logm_band)
            memcpy(logm_band + x * (T - d0), lm, sizeof(double) * (T - d0));
        for (long t = 0; t < nd; t++) {
            mt[t] = exp(lm[t]);
            m0[t] = exp(ls[t]);
            one[t] = 1;
            zero[t] = 0;
        }
        /* each query's own level (theory: relative to the mean query, whose
         * level m carries; dilution: its band keys' mean weight itself), and
         * the near sums with the delta = T - 1 key each predictor expects
         * there (in a long window it is text, not the window's first token) */
        const double *rb = w->rowb + x * R, *rbc = w->rowbc + x * R, *r0 = w->rows0 + x * R,
                     *r0c = w->rows0c + x * R;
        double mb = 0, m0b = 0, lam = 0;
        for (long r = 0; r < R; r++) {
            mb += rbc[r] / (double)R;
            m0b += r0c[r] / (double)R;
            lam += w->lam[x * R + r] / (double)R;
        }
        for (long r = 0; r < R; r++) {
            q[r] = mb > 0 ? rbc[r] / mb : 1;
            qs[r] = m0b > 0 ? r0c[r] / m0b : 1;
            N[r] = w->nearN[x * R + r] + q[r] * mt[T - 1 - d0];
            Nd[r] = w->nearN[x * R + r] + rb[r];
            NS[r] = w->nearS[x * R + r] + q[r] * mt[T - 1 - d0] * (sb[T - 1 - d0] + log(q[r]));
            NSd[r] = w->nearS[x * R + r] + rb[r] * log(rb[r]);
        }
        for (int k = 0; k < nl; k++) {
            const long i0 = (L[k] - 1) / RL_ATTN_SQ * RL_ATTN_SQ, i1 = L[k];
            rl_farpred_row *r = rows + (long)k * NH + x;
            r->L = L[k];
            r->layer = (int)(x / w->heads);
            r->head = (int)(x % w->heads);
            r->lambda = lam;
            r->meanfield = rl_farpred_rho(N, q, qs, R, mt + (T - d0), m0 + (T - d0), T, i0, i1);
            r->dilution = rl_farpred_rho(Nd, rb, r0, R, one, one, T, i0, i1);
            /* dilution: a far key weighs rb (score log rb), the first token r0 */
            r->ent_meanfield = rl_farpred_entropy(N, NS, q, qs, R, mt + (T - d0), sb + (T - d0), m0 + (T - d0),
                                               sb0 + (T - d0), T, i0, i1);
            r->ent_dilution = rl_farpred_entropy(Nd, NSd, rb, r0, R, one, zero, one, zero, T, i0, i1);
            double b = 0;
            long n = 0;
            for (long i = i0 > T ? i0 : T; i < i1; i++, n++)
                b += rl_farmass_lower((double)(i + 1 - T), (double)T, lam);
            r->bound = n ? b / (double)n : 0;
        }
    }
    free(lm);
    free(ls);
    free(mt);
    free(m0);
    free(one);
    free(zero);
    free(sb);
    free(sb0);
    free(q);
    free(qs);
    free(NS);
    free(NSd);
    free(N);
    free(Nd);
    if (st == RL_OK)
        predict_routes(w, L, nl, rows);
    return st;
}
