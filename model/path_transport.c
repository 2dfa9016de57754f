/* path_transport.c: routelab's first-harmonic mix-or-stay reading of an
 * accumulated Householder transport, measured on text (definitions and
 * the estimator's derivation in path_transport.h). */
#include "path_transport.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/mem.h"
#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"
#include "../theory/mixstay_forms.h"
#include "data.h"
#include "scheme.h"

struct rl_transport_ws {
    int d;
    long t, l, windows;
    long nfar, *grid; /* the far lengths (rl_mixstay_grid) */
    long *slot;       /* l entries: delta's stored slot (near delta; far t + its grid index), -1: not stored */
    double *sum;      /* (t + nfar) slots x 2 halves x d^2: the halves' sums, then their means */
    int nb;           /* routes walked side by side (walk) */
    long nseq, *seq;  /* windows per route (its own, then segments); nb x nseq of them */
    double *P, *u, *w; /* nb routes' transports (column-major), P w, the step's w in double */
    double *pa, *pb;  /* d^2 each: a route's P at the pair's two lengths */
    double *dbar;     /* 2 d^2: the halves' mean differences at the pair */
    double *proj;     /* windows: each route's projection on the other half's difference */
    long *order;      /* a half's other windows, in the order a route draws them */
    double *keep;     /* windows x 2 x d^2: each route's P at T-1 and L-1, the usual arg pair of a
                       * transport that moves on beyond T (the SE then needs no second walk) */
    gsl_rng *rng;
    uint64_t seed;
    int ran;
};

double rl_transport_d1(double x, int d)
{
    return sqrt(x) / (M_PI * sqrt(2.0 * d));
}

/* Routes side by side: their P's within 256 KB (a core's L2), at most 16. */
static int batch_of(int d)
{
    const long r = 32768L / ((long)d * d);
    return r < 1 ? 1 : r > 16 ? 16 : (int)r;
}

/* Windows a route walks through up to length l - 1: ceil((l - 1) / (t - 1)). */
static long nseq_of(long t, long l)
{
    return (l - 1 + t - 2) / (t - 1);
}

/* The sizes a workspace is made of; 0 (and *over) when they overflow or
 * the arguments are out of range. */
static size_t ws_bytes(int d, long t, long l, long windows, long *nfar, int *over)
{
    *nfar = rl_mixstay_grid(t, l, NULL);
    if (*nfar < 0 || d < 1 || d > RL_TRANSPORT_MAX_DIM || t < 2 || windows < 1) {
        *over = 1;
        return 0;
    }
    const size_t d2 = rl_szmul((size_t)d, (size_t)d, over);
    const size_t slots = rl_szadd((size_t)t, (size_t)*nfar, over);
    size_t doubles = rl_szmul(rl_szmul(slots, 2, over), d2, over);
    const size_t nb = (size_t)batch_of(d);
    doubles = rl_szadd(doubles, rl_szmul(d2, 4 + nb, over), over); /* P (nb), pa, pb, dbar (2) */
    doubles = rl_szadd(doubles, rl_szmul(rl_szmul((size_t)windows, 2, over), d2, over), over); /* keep */
    doubles = rl_szadd(doubles, rl_szadd(rl_szmul((size_t)d, 2, over), (size_t)windows, over), over);
    size_t longs = rl_szadd(rl_szadd((size_t)*nfar, (size_t)l, over), (size_t)windows, over);
    longs = rl_szadd(longs, rl_szmul(nb, (size_t)nseq_of(t, l), over), over);
    return rl_szadd(rl_szmul(doubles, sizeof(double), over), rl_szmul(longs, sizeof(long), over), over);
}

size_t rl_transport_ws_bytes(int d, long t, long l, long windows, int *over)
{
    long nfar;
    const size_t b = ws_bytes(d, t, l, windows, &nfar, over);
    return *over ? 0 : b;
}

rl_status rl_transport_alloc(int d, long t, long l, long windows, rl_transport_ws **ws, rl_err *err)
{
    if (!ws)
        return rl_fail(err, RL_EINPUT, "no workspace pointer (NULL)");
    *ws = NULL;
    if (d < 1 || d > RL_TRANSPORT_MAX_DIM)
        return rl_fail(err, RL_EINPUT, "transport dimension must be 1 to %d, got %d", RL_TRANSPORT_MAX_DIM, d);
    if (t < 2)
        return rl_fail(err, RL_EINPUT, "a window of %ld positions takes no step (T must be at least 2)", t);
    if (l <= t || !((double)l <= RL_MIXSTAY_MAX_LEN))
        return rl_fail(err, RL_EINPUT, "far length L must be in (T, %g], got L = %ld, T = %ld", RL_MIXSTAY_MAX_LEN,
                       l, t);
    if (windows < RL_TRANSPORT_MIN_WINDOWS)
        return rl_fail(err, RL_EINPUT, "the transport's estimate needs at least %d windows (two a half), got %ld",
                       RL_TRANSPORT_MIN_WINDOWS, windows);
    long nfar;
    int over = 0;
    const size_t need = ws_bytes(d, t, l, windows, &nfar, &over);
    if ((double)nfar * (double)t > (double)RL_MIXSTAY_MAX_PAIRS)
        return rl_fail(err, RL_EINPUT, "%ld far x %ld near lengths: more pairs than %ld", nfar, t,
                       (long)RL_MIXSTAY_MAX_PAIRS);
    RL_TRY(rl_mem_check("the transport's workspace", need, over, err));
    rl_transport_ws *w = rl_xcalloc(1, sizeof *w);
    const size_t d2 = (size_t)d * d;
    w->d = d;
    w->t = t;
    w->l = l;
    w->windows = windows;
    w->nfar = nfar;
    w->grid = rl_xmalloc(sizeof(long) * (size_t)nfar);
    rl_mixstay_grid(t, l, w->grid);
    w->slot = rl_xmalloc(sizeof(long) * (size_t)l);
    for (long delta = 0; delta < l; delta++)
        w->slot[delta] = delta < t ? delta : -1;
    for (long i = 0; i < nfar; i++)
        w->slot[w->grid[i]] = t + i;
    w->sum = rl_xmalloc(sizeof(double) * 2 * d2 * (size_t)(t + nfar));
    w->nb = batch_of(d);
    w->nseq = nseq_of(t, l);
    w->seq = rl_xmalloc(sizeof(long) * (size_t)w->nb * (size_t)w->nseq);
    w->P = rl_xmalloc(sizeof(double) * d2 * (size_t)w->nb);
    w->pa = rl_xmalloc(sizeof(double) * d2);
    w->pb = rl_xmalloc(sizeof(double) * d2);
    w->dbar = rl_xmalloc(sizeof(double) * 2 * d2);
    w->u = rl_xmalloc(sizeof(double) * (size_t)d);
    w->w = rl_xmalloc(sizeof(double) * (size_t)d);
    w->proj = rl_xmalloc(sizeof(double) * (size_t)windows);
    w->order = rl_xmalloc(sizeof(long) * (size_t)windows);
    w->keep = rl_xmalloc(sizeof(double) * 2 * d2 * (size_t)windows);
    w->rng = rl_rng_alloc();
    if (!w->rng) {
        rl_transport_free(w);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a random number generator");
    }
    *ws = w;
    return RL_OK;
}

void rl_transport_free(rl_transport_ws *ws)
{
    if (!ws)
        return;
    free(ws->grid);
    free(ws->slot);
    free(ws->sum);
    free(ws->seq);
    free(ws->P);
    free(ws->pa);
    free(ws->pb);
    free(ws->dbar);
    free(ws->u);
    free(ws->w);
    free(ws->proj);
    free(ws->order);
    free(ws->keep);
    gsl_rng_free(ws->rng);
    free(ws);
}

/* P <- P H, H = I - beta w w^T:  P H = P - beta (P w) w^T, O(d^2).  P is
 * column-major, so u = P w is a sum of columns (u += w_j P[:, j]) and the
 * update takes beta w_j u from column j: both are vector updates over a
 * column (vectorized with the model floor's flags, no sum reordered, the
 * same bytes on every machine). */
static void step(double *restrict P, double *restrict u, double *restrict w, const float *wf, double beta, int d)
{
    for (int i = 0; i < d; i++) {
        w[i] = wf[i];
        u[i] = 0;
    }
    for (int j = 0; j < d; j++) {
        const double c = w[j], *pc = P + (size_t)j * d;
        for (int i = 0; i < d; i++)
            u[i] += c * pc[i];
    }
    for (int j = 0; j < d; j++) {
        const double c = beta * w[j];
        double *pc = P + (size_t)j * d;
        for (int i = 0; i < d; i++)
            pc[i] -= c * u[i];
    }
}

/* What a walk does at each length: acc adds each route's P into its
 * half's sum at the stored lengths; da, db (-1: none) copy route r0 + b's P
 * into pa + b stride, pb + b stride. */
typedef struct {
    int acc;
    long da, db;
    double *pa, *pb;
    size_t stride;
} visit_plan;

static void visit(rl_transport_ws *ws, const visit_plan *v, long r, int b, const double *P, long delta)
{
    const size_t d2 = (size_t)ws->d * ws->d;
    if (v->acc && ws->slot[delta] >= 0) {
        double *s = ws->sum + ((size_t)ws->slot[delta] * 2 + (r >= ws->windows / 2)) * d2;
        for (size_t e = 0; e < d2; e++)
            s[e] += P[e];
    }
    if (delta == v->da)
        memcpy(v->pa + b * v->stride, P, sizeof(double) * d2);
    if (delta == v->db)
        memcpy(v->pb + b * v->stride, P, sizeof(double) * d2);
}

/* The windows of route r into seq[0 .. nseq-1]: r itself, then segments,
 * the other windows of r's half in the order of a Fisher-Yates shuffle
 * drawn from stream (seed, r), one draw per segment (a fresh shuffle once
 * every other window was used), so a route's windows depend on (seed, r)
 * only and, while the half has windows enough, no window enters it twice. */
static void route_windows(rl_transport_ws *ws, long r, long *seq)
{
    const long nA = ws->windows / 2, h0 = r >= nA ? nA : 0, h1 = r >= nA ? ws->windows : nA;
    long m = 0, used = 0;
    for (long s = h0; s < h1; s++)
        if (s != r)
            ws->order[m++] = s;
    rl_rng_stream(ws->rng, ws->seed, (uint64_t)r);
    seq[0] = r;
    for (long k = 1; k < ws->nseq; k++) {
        const long j = used + (long)gsl_rng_uniform_int(ws->rng, (unsigned long)(m - used));
        const long tmp = ws->order[used];
        ws->order[used] = ws->order[j];
        ws->order[j] = tmp;
        seq[k] = ws->order[used++];
        if (used == m)
            used = 0;
    }
}

/* Routes r0 .. r0 + nr - 1 (nr <= ws->nb) up to length top, side by side:
 *   P(0) = I,  P(delta + 1) = P(delta) H_(pos),
 * step delta (>= 1) at window seq[(delta - 1) / (T - 1)], position T - 1 -
 * (delta - 1) mod (T - 1) (each window's positions T-1 .. 1; position 0
 * takes no step).  Side by side, because the sums are the cost: one route
 * at a time streams every stored slot (2 (T + far) d^2 doubles, 16 MB at
 * the cpu grid) through memory once per route; a batch adds its routes
 * into a slot while the slot is in cache.  Each slot still receives the
 * routes in route order: the same sums as one route at a time. */
static void walk(rl_transport_ws *ws, const rl_transport_steps *st, long r0, int nr, long top, const visit_plan *v)
{
    const int d = ws->d;
    const size_t d2 = (size_t)d * d;
    const long T = ws->t, per = T - 1;
    for (int b = 0; b < nr; b++) {
        route_windows(ws, r0 + b, ws->seq + b * ws->nseq);
        double *P = ws->P + b * d2;
        memset(P, 0, sizeof(double) * d2);
        for (int i = 0; i < d; i++)
            P[(size_t)i * d + i] = 1;
        visit(ws, v, r0 + b, b, P, 0);
    }
    for (long delta = 1; delta <= top; delta++) {
        const long k = (delta - 1) / per, pos = T - 1 - (delta - 1) % per;
        for (int b = 0; b < nr; b++) {
            const long row = ws->seq[b * ws->nseq + k] * T + pos;
            double *P = ws->P + b * d2;
            step(P, ws->u, ws->w, st->w + row * st->ldw, (double)st->beta[row * st->ldb], d);
            visit(ws, v, r0 + b, b, P, delta);
        }
    }
}

/* X of two stored slots from the halves' means:
 *   X = <A_f - A_n, B_f - B_n>_F,
 * summed as differences (no cancellation between the four inner
 * products), entry order fixed. */
static double cross(const rl_transport_ws *ws, long f, long n)
{
    const size_t d2 = (size_t)ws->d * ws->d;
    const double *af = ws->sum + (size_t)f * 2 * d2, *bf = af + d2;
    const double *an = ws->sum + (size_t)n * 2 * d2, *bn = an + d2;
    double x = 0;
    for (size_t e = 0; e < d2; e++)
        x += (af[e] - an[e]) * (bf[e] - bn[e]);
    return x;
}

static rl_status check_steps(const rl_transport_ws *ws, const rl_transport_steps *st, rl_err *err)
{
    if (!ws || !st || !st->w || !st->beta)
        return rl_fail(err, RL_EINPUT, "no workspace or steps (NULL)");
    if (st->d != ws->d || st->t != ws->t || st->windows != ws->windows)
        return rl_fail(err, RL_EINPUT, "steps of d = %d, T = %ld, %ld windows on a workspace of d = %d, T = %ld, "
                       "%ld windows", st->d, st->t, st->windows, ws->d, ws->t, ws->windows);
    if (st->ldw < st->d || st->ldb < 1)
        return rl_fail(err, RL_EINPUT, "row strides ldw = %ld (at least d = %d), ldb = %ld (at least 1)", st->ldw,
                       st->d, st->ldb);
    return RL_OK;
}

/* The pair's X and its SE: one more walk per route to max(da, db),
 *   SE_X^2 = Var_{r in A} <Delta_r, Dbar_B> / n_A + Var_{r in B} <Delta_r, Dbar_A> / n_B,
 * Delta_r = P_r(da) - P_r(db), Dbar_h half h's mean difference; sample
 * variances about the half's own mean projection (two passes over the
 * stored projections). */
static void pair_se(rl_transport_ws *ws, const rl_transport_steps *st, long da, long db, double *x, double *se)
{
    const size_t d2 = (size_t)ws->d * ws->d;
    const long S = ws->windows, nA = S / 2, sa = ws->slot[da], sb = ws->slot[db];
    const long kf = ws->l - 1, kn = ws->t - 1; /* the lengths the first walk kept */
    const int kept = (da == kf && db == kn) || (da == kn && db == kf);
    *x = cross(ws, sa, sb);
    for (int h = 0; h < 2; h++) {
        const double *ma = ws->sum + ((size_t)sa * 2 + h) * d2, *mb = ws->sum + ((size_t)sb * 2 + h) * d2;
        for (size_t e = 0; e < d2; e++)
            ws->dbar[h * d2 + e] = ma[e] - mb[e];
    }
    const visit_plan v = { 0, da, db, ws->pa, ws->pb, 0 };
    for (long r = 0; r < S; r++) {
        const double *pa = ws->pa, *pb = ws->pb;
        if (kept) {
            pa = ws->keep + ((size_t)r * 2 + (da == kn)) * d2;
            pb = ws->keep + ((size_t)r * 2 + (db == kn)) * d2;
        } else { /* one route at a time: no sums to stream */
            walk(ws, st, r, 1, da > db ? da : db, &v);
        }
        const double *other = ws->dbar + (r < nA ? d2 : 0);
        double p = 0;
        for (size_t e = 0; e < d2; e++)
            p += (pa[e] - pb[e]) * other[e];
        ws->proj[r] = p;
    }
    double var = 0;
    for (int h = 0; h < 2; h++) {
        const long r0 = h ? nA : 0, r1 = h ? S : nA, n = r1 - r0;
        double mean = 0, ss = 0;
        for (long r = r0; r < r1; r++)
            mean += ws->proj[r];
        mean /= (double)n;
        for (long r = r0; r < r1; r++)
            ss += (ws->proj[r] - mean) * (ws->proj[r] - mean);
        var += ss / (double)(n - 1) / (double)n;
    }
    *se = sqrt(var);
}

rl_status rl_transport_run(rl_transport_ws *ws, const rl_transport_steps *st, uint64_t seed,
                           rl_transport_dist *out, rl_err *err)
{
    RL_TRY(check_steps(ws, st, err));
    if (!out)
        return rl_fail(err, RL_EINPUT, "no output (NULL)");
    const int d = ws->d;
    const long T = ws->t, S = ws->windows, nA = S / 2;
    for (long s = 0; s < S; s++)
        for (long p = 1; p < T; p++) {
            const long row = s * T + p;
            double n2 = 0;
            for (int i = 0; i < d; i++)
                n2 += (double)st->w[row * st->ldw + i] * st->w[row * st->ldw + i];
            if (!isfinite(n2) || !isfinite(st->beta[row * st->ldb]))
                return rl_fail(err, RL_EINPUT, "step of window %ld, position %ld is not finite", s, p);
        }
    const size_t d2 = (size_t)d * d;
    ws->seed = seed;
    ws->ran = 0;
    memset(ws->sum, 0, sizeof(double) * 2 * d2 * (size_t)(T + ws->nfar));
    for (long r0 = 0; r0 < S; r0 += ws->nb) { /* keep[r]: P_r(L-1), then P_r(T-1) */
        const int nr = S - r0 < ws->nb ? (int)(S - r0) : ws->nb;
        double *kr = ws->keep + (size_t)r0 * 2 * d2;
        const visit_plan acc = { 1, ws->l - 1, T - 1, kr, kr + d2, 2 * d2 };
        walk(ws, st, r0, nr, ws->l - 1, &acc);
    }
    /* sums to means: Mhat_h = (1/n_h) sum_{r in h} P_r */
    for (long k = 0; k < T + ws->nfar; k++)
        for (int h = 0; h < 2; h++) {
            const double n = (double)(h ? S - nA : nA);
            double *s = ws->sum + ((size_t)k * 2 + h) * d2;
            for (size_t e = 0; e < d2; e++)
                s[e] /= n;
        }
    ws->ran = 1;
    /* max over far of min over near of X, far lengths from the far end.  A
     * far length is first compared with the near length nearest to the far
     * length before it; when that X is already at or below the running
     * maximum, so is its minimum: it cannot be the arg max and is dropped
     * (mixstay.c's first pruning: the same numbers as the double loop).
     * Ties: the first the search meets. */
    double best = -INFINITY;
    long bf = -1, bn = -1, prev = T - 1;
    for (long i = ws->nfar - 1; i >= 0; i--) {
        const long f = T + i;
        const double x0 = cross(ws, f, prev);
        if (x0 <= best)
            continue;
        double mn = x0;
        long an = prev;
        for (long n = 0; n < T; n++) {
            if (n == prev)
                continue;
            const double x = cross(ws, f, n);
            if (x < mn) {
                mn = x;
                an = n;
            }
        }
        prev = an;
        if (mn > best) {
            best = mn;
            bf = ws->grid[i];
            bn = an;
        }
    }
    if (bf < 0) /* every X NaN: the products overflowed */
        return rl_fail(err, RL_EINPUT, "the mean transports are not finite (steps too large for double)");
    double x, xse;
    pair_se(ws, st, bf, bn, &x, &xse);
    /* the clamp and sqrt are increasing: d_1 of the max-min of X is the
     * max-min of d_1; the noise, one SE of X up through the square root */
    const double x0 = x > 0 ? x : 0;
    out->x = x;
    out->x_se = xse;
    out->far = bf;
    out->near = bn;
    out->d1 = rl_transport_d1(x0, d);
    out->se = rl_transport_d1(x0 + xse, d) - out->d1;
    out->hi = rl_transport_d1(x0 + 3 * xse, d);
    return RL_OK;
}

rl_status rl_transport_pair(rl_transport_ws *ws, const rl_transport_steps *st, long delta, long delta2,
                            double *x, double *se, rl_err *err)
{
    RL_TRY(check_steps(ws, st, err));
    if (!x || !se)
        return rl_fail(err, RL_EINPUT, "no output (NULL)");
    if (!ws->ran)
        return rl_fail(err, RL_EINPUT, "no means yet: rl_transport_run first");
    if (delta < 0 || delta >= ws->l || delta2 < 0 || delta2 >= ws->l || ws->slot[delta] < 0 || ws->slot[delta2] < 0)
        return rl_fail(err, RL_EINPUT, "lengths %ld, %ld: both must be stored (0 .. T-1 = %ld or on the far grid)",
                       delta, delta2, ws->t - 1);
    pair_se(ws, st, delta, delta2, x, se);
    return RL_OK;
}

const double *rl_transport_mean(const rl_transport_ws *ws, long delta, int h)
{
    if (!ws || !ws->ran || delta < 0 || delta >= ws->l || ws->slot[delta] < 0 || h < 0 || h > 1)
        return NULL;
    return ws->sum + ((size_t)ws->slot[delta] * 2 + h) * (size_t)ws->d * ws->d;
}

rl_status rl_transport_measure(rl_gpt *m, const rl_tokens *val, uint64_t key, rl_transport_dist *out,
                               long *windows, rl_err *err)
{
    if (!m || !val || !val->tok || !out || !windows)
        return rl_fail(err, RL_EINPUT, "no model, tokens or output (NULL)");
    const rl_scheme *sc = m->sx.s;
    if (sc->steps_kind != RL_STEPS_TRANSPORT || !sc->transport)
        return rl_fail(err, RL_EINPUT, "scheme %s accumulates no transport to measure", rl_pos_name(m->cfg.pos));
    const long T = m->cfg.ctx;
    if (m->B < 1)
        return rl_fail(err, RL_EINPUT, "measuring the transport needs a model with activations (B >= 1)");
    if (T < 2)
        return rl_fail(err, RL_EINPUT, "a training context of %ld takes no steps", T);
    /* windows of T tokens and their targets (the forward reads T + 1),
     * disjoint, spread uniformly over the whole stream (many documents),
     * ascending: half A the earlier text, half B the later */
    const long need_tok = (long)RL_TRANSPORT_MIN_WINDOWS * T + 1;
    if (val->n < need_tok)
        return rl_fail(err, RL_EINPUT, "measuring the transport needs %d windows of T = %ld tokens (%ld tokens), "
                       "got %ld", RL_TRANSPORT_MIN_WINDOWS, T, need_tok, val->n);
    rl_eval_windows plan;
    RL_TRY(rl_eval_windows_plan(val, T, 0, RL_TRANSPORT_WINDOWS, key ^ RL_STREAM_TRANSPORT_WINDOWS, &plan, err));
    const long S = plan.n;
    const int Lay = m->cfg.layers, H = m->cfg.heads, C = m->cfg.width, hd = m->hd;
    const int nx = Lay * H, nt = omp_get_max_threads() < nx ? omp_get_max_threads() : nx;
    const long L = RL_MIXSTAY_MULT * T;
    int over = 0;
    size_t need = rl_szmul(rl_transport_ws_bytes(hd, T, L, S, &over), (size_t)nt, &over);
    const size_t nsteps = rl_szmul(rl_szmul((size_t)Lay, (size_t)(S * T), &over), (size_t)(C + H), &over);
    need = rl_szadd(need, rl_szmul(nsteps, sizeof(float), &over), &over);
    rl_status st = rl_mem_check("the transport's steps and workspaces", need, over, err);
    rl_transport_ws *ws[nt];
    for (int i = 0; i < nt && st == RL_OK; i++) {
        st = rl_transport_alloc(hd, T, L, S, &ws[i], err);
        if (st != RL_OK)
            while (i-- > 0)
                rl_transport_free(ws[i]);
    }
    if (st != RL_OK) {
        rl_eval_windows_free(&plan);
        return st;
    }
    /* every layer's steps of the S windows, kept: w rows of C (head h at
     * columns h hd), beta rows of H, window s at rows s T .. */
    const size_t rows = (size_t)S * T;
    float *wb = rl_xmalloc(sizeof(float) * (size_t)Lay * rows * C),
          *bb = rl_xmalloc(sizeof(float) * (size_t)Lay * rows * H);
    uint16_t *tok = rl_xmalloc(sizeof(uint16_t) * (size_t)m->B * (T + 1));
    for (long w0 = 0; w0 < S; w0 += m->B) {
        const int nb = S - w0 < m->B ? (int)(S - w0) : m->B;
        for (int b = 0; b < nb; b++)
            memcpy(tok + (long)b * (T + 1), val->tok + plan.start[w0 + b], sizeof(uint16_t) * (size_t)(T + 1));
        rl_gpt_forward(m, tok, T + 1, nb, (int)T, 0, rl_stream_key(key, (uint64_t)w0));
        if (m->nomem) /* the command layer's path alone */
            rl_fatal("out of memory (the position scheme's noise)");
        for (int l = 0; l < Lay; l++) {
            const float *w, *beta;
            sc->transport(m->ss.st, &m->sx, l, &w, &beta);
            memcpy(wb + ((size_t)l * rows + (size_t)w0 * T) * C, w, sizeof(float) * (size_t)nb * T * C);
            memcpy(bb + ((size_t)l * rows + (size_t)w0 * T) * H, beta, sizeof(float) * (size_t)nb * T * H);
        }
    }
    rl_status *sts = rl_xcalloc((size_t)nx, sizeof *sts);
    rl_err *errs = rl_xcalloc((size_t)nx, sizeof *errs);
    const uint64_t seed = key ^ RL_STREAM_TRANSPORT_SEGMENTS;
#pragma omp parallel for num_threads(nt) schedule(dynamic)
    for (int x = 0; x < nx; x++) {
        const int l = x / H, h = x % H;
        const rl_transport_steps st = { hd, T, S, wb + (size_t)l * rows * C + (size_t)h * hd, C,
                                        bb + (size_t)l * rows * H + h, H };
        sts[x] = rl_transport_run(ws[omp_get_thread_num()], &st, seed, &out[x], &errs[x]);
    }
    for (int x = 0; x < nx && st == RL_OK; x++) /* the first failing head, in head order */
        if (sts[x] != RL_OK)
            st = rl_fail(err, sts[x], "layer %d head %d: %s", x / H, x % H, errs[x].msg);
    *windows = S;
    rl_eval_windows_free(&plan);
    free(tok);
    free(sts);
    free(errs);
    free(wb);
    free(bb);
    for (int i = 0; i < nt; i++)
        rl_transport_free(ws[i]);
    return st;
}
