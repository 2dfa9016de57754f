/* attention.c: causal attention, plain (training) and streaming (long
 * evaluation), every product through cblas_sgemm but the streaming kernel's
 * P V, which reads P in place where it can (attn_pv.h).  The softmax, P V, the
 * online softmax and the softmax backward are written once here, over a
 * logits provider (attention.h); the standard provider, q k^T / sqrt(hd),
 * is at the end. */
#include "attention.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "../base/core/util.h"
#include "attn_pv.h"
#include "attn_qk.h"
#include "fastmath.h"
#include "softmax_row.h"

/* Query/key block sizes of the streaming kernel: a 64 x 512 score block is
 * 128 KiB (128 x 512: 256 KiB), resident in L2 while it is formed,
 * exponentiated and used. */
#define SQ RL_ATTN_SQ
#define SK RL_ATTN_SK
/* The standard provider's streaming forward takes 128 queries at a time:
 * with sgemm, each key and value block is packed by OpenBLAS half as often
 * (hd 32: 4% less CPU time than 64 rows; 256 rows gain nothing more).
 * With the packed-key kernel (attn_qk.h) the block size changes no bit of
 * the logits (each is its own chain over d), only the loop overheads. */
#define SQ_QK 128
_Static_assert(SQ_QK % SQ == 0 && SK % SQ_QK == 0, "query blocks must tile the key blocks");

/* The training kernels (docs/speed/kernels.md#training-attention-kernels): the products whose inner
 * index is d through the logits kernel (attn_qk.h), their second operand's rows
 * packed one panel at a time into HD_MAX W floats on the stack; the
 * products whose inner index is a key or a query through the P V kernel
 * (attn_pv.h), P and dS read in place or transposed.  Causal: row block
 * [r0, r1) of a product over keys needs keys below r1 only, and the
 * transposed products (key rows) need queries from the block's first key
 * on; the entries left out are exact zeros of P and dS, so leaving them out
 * changes no sum.  Rows of TRB: the P V kernel's tiles (8 rows AVX-512, 4
 * AVX2) fill them. */
#define HD_MAX 256
#define TRB 8

/* S[(i - i0) lds + (j - j0)] = scale A_i . B_j for i0 <= i < i1, j0 <= j < j1
 * and j <= i, panel by panel (entries j > i of a panel that reaches row i
 * are formed too; the rest are not written).  A and B point at row 0. */
static void qk_causal(rl_attn_qk_fn qk, float *S, long lds, const float *A, long lda, const float *B,
                      long ldb, long i0, long i1, long j0, long j1, int hd, float scale)
{
    float kp[RL_ATTN_QK_W * HD_MAX];
    for (long p = j0; p < j1 && p < i1; p += RL_ATTN_QK_W) {
        const long nk = j1 - p < RL_ATTN_QK_W ? j1 - p : RL_ATTN_QK_W, r0 = i0 > p ? i0 : p;
        rl_attn_qk_pack(kp, B + p * ldb, ldb, nk, hd);
        qk(S + (r0 - i0) * lds + (p - j0), lds, A + r0 * lda, lda, kp, (int)(i1 - r0), (int)nk, hd, scale);
    }
}

/* C = scale M X (over = 0), rows [0, T) of C ldc apart: M causal (row i
 * nonzero in columns <= i) in place (ldm), or, with over = 1, C = scale M^T
 * X (row j of C from rows i >= j of X); X's rows ldx apart. */
static void pv_causal(rl_attn_pv_fn pv, float *C, long ldc, const float *M, long ldm, const float *X, long ldx,
                      int T, int hd, float scale, int over)
{
    for (int r0 = 0; r0 < T; r0 += TRB) {
        const int nr = T - r0 < TRB ? T - r0 : TRB;
        if (over) /* (M^T)[r][k] = M[k][r]: from the block's first row on */
            pv(C + (long)r0 * ldc, ldc, M + (long)r0 * ldm + r0, 1, ldm, X + (long)r0 * ldx, ldx, nr, T - r0, hd, 1,
               scale);
        else
            pv(C + (long)r0 * ldc, ldc, M + (long)r0 * ldm, ldm, 1, X, ldx, nr, r0 + nr, hd, 1, scale);
    }
}

/* <p, d> over n entries in one fixed order: eight partial sums over
 * p[8k + l] d[8k + l], added in order, then the tail (the same bytes at
 * any vector width the compiler picks) */
static float dot8(const float *p, const float *d, int n)
{
    float a[8] = { 0 };
    int j = 0;
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; l++)
            a[l] += p[j + l] * d[j + l];
    float s = a[0];
    for (int l = 1; l < 8; l++)
        s += a[l];
    for (; j < n; j++)
        s += p[j] * d[j];
    return s;
}

void rl_attention_forward_logits(float *out, long ldo, float *att, const float *v, long ld,
                                 const rl_attn_shape *s, const rl_attn_logits *lg)
{
    const int T = s->T, H = s->H, hd = s->hd;
    const rl_attn_pv_fn pv = hd <= HD_MAX ? rl_attn_pv_pick(hd) : NULL;
    const rl_softmax_row_fn row_step = rl_softmax_row_pick();
#pragma omp parallel for schedule(static)
    for (long bh = 0; bh < (long)s->B * H; bh++) { /* B H may pass INT_MAX */
        const int b = (int)(bh / H), h = (int)(bh % H);
        float *P = att + (long)bh * T * T;
        if (lg->prepare)
            lg->prepare(lg, b, h);
        lg->block(lg, P, T, b, h, 0, T, 0, T, NULL);
        const float sl = s->slopes ? s->slopes[h] : 0.0f;
        /* p_ij = e^(s_ij - m_i) / sum_j' e^(s_ij' - m_i), j <= i; 0 above */
        for (int i = 0; i < T; i++) {
            float *row = P + (long)i * T, sum, corr;
            row_step(row, i + 1, T, sl, i, 0, -INFINITY, &sum, &corr);
            const float inv = 1.0f / sum;
#pragma omp simd
            for (int q = 0; q <= i; q++)
                row[q] *= inv;
        }
        /* O = P V */
        const float *V = v + (long)b * T * ld + (long)h * hd;
        float *O = out + (long)b * T * ldo + (long)h * hd;
        if (pv)
            pv_causal(pv, O, ldo, P, T, V, ld, T, hd, 1.0f, 0);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, hd, T, 1.0f, P, T, V, (int)ld, 0.0f, O,
                        (int)ldo);
    }
}

void rl_attention_backward_logits(float *dv, long ldd, float *datt, const float *dout,
                                  long lddo, const float *att, const float *v, long ld,
                                  const rl_attn_shape *s, const rl_attn_logits *lg)
{
    const int T = s->T, H = s->H, hd = s->hd;
    const rl_attn_pv_fn pv = hd <= HD_MAX ? rl_attn_pv_pick(hd) : NULL;
    const rl_attn_qk_fn qk = hd <= HD_MAX ? rl_attn_qk_pick(hd) : NULL;
#pragma omp parallel for schedule(static)
    for (long bh = 0; bh < (long)s->B * H; bh++) { /* B H may pass INT_MAX */
        const int b = (int)(bh / H), h = (int)(bh % H);
        const float *P = att + (long)bh * T * T, *dO = dout + (long)b * T * lddo + (long)h * hd;
        const float *V = v + (long)b * T * ld + (long)h * hd;
        float *dS = datt + (long)bh * T * T, *dV = dv + (long)b * T * ldd + (long)h * hd;
        /* dP = dO V^T (entries j <= i read below) */
        if (qk)
            qk_causal(qk, dS, T, dO, lddo, V, ld, 0, T, 0, T, hd, 1.0f);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, hd, 1.0f, dO, (int)lddo, V, (int)ld, 0.0f,
                        dS, T);
        /* dV = P^T dO */
        if (pv)
            pv_causal(pv, dV, ldd, P, T, dO, lddo, T, hd, 1.0f, 1);
        else
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, T, hd, T, 1.0f, P, T, dO, (int)lddo, 0.0f, dV,
                        (int)ldd);
        /* softmax backward, row by row: dS = P (dP - <P, dP>) */
        for (long i = 0; i < T; i++) {
            const float *p = P + i * T;
            float *d = dS + i * T;
            const float dot = dot8(p, d, (int)i + 1);
            for (long j = 0; j <= i; j++)
                d[j] = p[j] * (d[j] - dot);
            for (long j = i + 1; j < T; j++)
                d[j] = 0.0f;
        }
        lg->grad(lg, dS, b, h);
    }
}

/* The pruning bound's inputs for every (b, h) (attention.h): the
 * provider's factor qn_i, and the prefix maxima K_j = max_{j' < j} kn_j',
 * V_j = max_{j' < j} |v_j'| (T + 1 each). */
typedef struct {
    double lneps;            /* ln eps */
    float *qn, *kpre, *vpre; /* B H T, B H (T + 1), B H (T + 1) */
} prune_in;

/* Whether query block [i0, i1) may skip keys 0 .. j1 - 1 (every key block
 * below the ones already done), m the rows' running maxima.  Row i's
 * skipped share of its mass is at most (attention.h, with the realised max
 * m_i >= x_ii in place of x_ii: Z_i >= e^(m_i))
 *     rho_i <= e^(qn_i K_j1 - m_i - m_h (i - j1 + 1)) min(j1, 1 / (1 - e^(-m_h))),
 * and the block is skipped when every ln rho_i + margin <= ln eps.  The
 * margin, 1 nat + 1e-3 (|qn K| + |m|), covers the float rounding of the
 * logits, the bias and the max (relative 1e-5 at most): so at eps <=
 * RL_ATTN_PRUNE_EXACT each skipped e^(x - max) is below RL_SOFTMAX_FLUSH in
 * the unpruned kernel's own arithmetic, whose max is >= m_i.  *rho: the
 * largest rho_i. */
static int prune_skips(const prune_in *p, long bh, long T, float sl, long i0, long i1, long j1, const float *m,
                       double *rho)
{
    const float *qn = p->qn + bh * T;
    const double K = p->kpre[bh * (T + 1) + j1];
    const double lneff = log(fmin((double)j1, -1.0 / expm1(-(double)sl)));
    double worst = -INFINITY;
    for (long i = i0; i < i1; i++) {
        const double top = (double)qn[i] * K, mi = m[i - i0];
        const double lr = top - mi - (double)sl * (double)(i - j1 + 1) + lneff;
        /* written so that a NaN (a non-finite activation) never skips */
        if (!(lr + 1.0 + 1e-3 * (fabs(top) + fabs(mi)) <= p->lneps))
            return 0;
        worst = lr > worst ? lr : worst;
    }
    *rho = exp(worst);
    return 1;
}

/* One query block [i0, i1) of (b, h): online softmax over the key blocks
 * [j0, j1), from the diagonal block down to 0 (the order the provider's
 * contract fixes; later blocks are all masked), or down to the first block
 * that pruning skips (pin; NULL: none) with what it did in *po.  o, v point
 * at (b, h). */
static void stream_block(float *o, long ldo, const float *v, long ld, const rl_attn_shape *s,
                         const rl_attn_logits *lg, int b, int h, long i0, long i1, float *S,
                         float *acc, float *m, float *l, float *state, rl_softmax_row_fn row_step,
                         rl_attn_pv_fn pv, const prune_in *pin, rl_attn_prune *po)
{
    const int hd = s->hd;
    const int nq = (int)(i1 - i0);
    const float sl = s->slopes ? s->slopes[h] : 0.0f;
    const long bh = (long)b * s->H + h;
    const int can_prune = pin && sl > 0.0f;
    double rho = 0;
    for (int r = 0; r < nq; r++) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }
    for (long e = 0; e < (long)nq * hd; e++)
        acc[e] = 0.0f;
    long j0;
    for (j0 = (i1 - 1) / SK * SK; j0 >= 0; j0 -= SK) {
        const long j1 = j0 + SK < i1 ? j0 + SK : i1;
        /* blocks wholly before the queries: this one and all below it skipped? */
        if (can_prune && j1 <= i0 && prune_skips(pin, bh, s->T, sl, i0, i1, j1, m, &rho))
            break;
        const int nk = (int)(j1 - j0);
        lg->block(lg, S, SK, b, h, i0, i1, j0, j1, state);
        if (s->observe)
            s->observe->fn(s->observe->ctx, b, h, i0, i1, j0, j1, S, SK);
        for (int r = 0; r < nq; r++) {
            const long i = i0 + r;
            /* keys j0 .. min(i, j1-1) are visible to query i */
            const int n = (int)((i < j1 - 1 ? i : j1 - 1) - j0 + 1);
            float sum, corr;
            const float mx = row_step(S + (long)r * SK, n, nk, sl, (int)i, (int)j0, m[r], &sum, &corr);
            if (n <= 0)
                continue;
            /* rescale what has been accumulated to the new max:
             * l <- l e^(m - m') + sum, acc <- acc e^(m - m') (corr) */
            l[r] = l[r] * corr + sum;
#pragma omp simd
            for (int c = 0; c < hd; c++)
                acc[(long)r * hd + c] *= corr;
            m[r] = mx;
        }
        if (pv) /* acc += P V, P read where the row step left it */
            pv(acc, hd, S, SK, 1, v + j0 * ld, ld, nq, nk, hd, 0, 1.0f);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nq, hd, nk, 1.0f, S, SK,
                        v + j0 * ld, (int)ld, 1.0f, acc, hd);
    }
    for (int r = 0; r < nq; r++)
        for (int c = 0; c < hd; c++)
            o[(i0 + r) * ldo + c] = acc[(long)r * hd + c] / l[r];
    if (can_prune) {
        /* rows i0 .. i1-1 see keys 0 .. i; keys 0 .. j0 + SK - 1 skipped.
         * o' - o = rho/(1 - rho) sum_kept p v - sum_skipped p v: each term
         * at most rho max|v| over the keys the rows see (kept and skipped) */
        const long nskip = j0 >= 0 ? j0 + SK : 0;
        po->pairs = (double)nq * (double)i0 + 0.5 * (double)nq * (double)(nq + 1);
        po->skipped = (double)nq * (double)nskip;
        if (nskip > 0) {
            po->mass = rho;
            po->out = 2.0 * rho * pin->vpre[bh * (s->T + 1) + i1];
        }
    }
}

/* |x| of n floats, rounded up to a float (a bound, not an estimate) */
static float norm_up(const float *x, int n, double scale)
{
    double ss = 0;
    for (int c = 0; c < n; c++)
        ss += (double)x[c] * x[c];
    return nextafterf((float)(sqrt(ss) * scale), INFINITY);
}

/* The pruning bound's inputs (prune_in) for every (b, h); RL_ENOMEM. */
static rl_status prune_prepare(prune_in *p, const float *v, long ld, const rl_attn_shape *s,
                               const rl_attn_logits *lg)
{
    const long T = s->T, nbh = (long)s->B * s->H;
    p->lneps = log(s->prune_eps);
    p->qn = rl_alloc_array((size_t)(3 * T + 2) * (size_t)nbh, sizeof(float), NULL);
    if (!p->qn)
        return RL_ENOMEM;
    p->kpre = p->qn + nbh * T;
    p->vpre = p->kpre + nbh * (T + 1);
#pragma omp parallel for schedule(dynamic, 1)
    for (long bh = 0; bh < nbh; bh++) {
        const long b = bh / s->H, h = bh % s->H;
        float *kp = p->kpre + bh * (T + 1), *vp = p->vpre + bh * (T + 1);
        lg->bound(lg, (int)b, (int)h, p->qn + bh * T, kp + 1); /* kn_j at kp[j + 1] */
        kp[0] = vp[0] = 0.0f;
        for (long j = 0; j < T; j++) {
            const float vj = norm_up(v + (b * T + j) * ld + h * s->hd, s->hd, 1.0);
            kp[j + 1] = kp[j + 1] > kp[j] ? kp[j + 1] : kp[j];
            vp[j + 1] = vj > vp[j] ? vj : vp[j];
        }
    }
    return RL_OK;
}

/* The streaming forward with query blocks of gq rows (a multiple of SQ
 * that divides SK, so a block never straddles a key block); RL_ENOMEM when
 * the per-thread blocks cannot be allocated.  Pruning (attention.h) with
 * the ALiBi slopes, a provider's bound, eps > 0 and no observer (which is
 * promised every block). */
static rl_status stream_logits(float *out, long ldo, const float *v, long ld, const rl_attn_shape *s,
                               const rl_attn_logits *lg, long gq)
{
    const int T = s->T, H = s->H, hd = s->hd;
    const long nqb = (T + gq - 1) / gq;
    const long per = gq * SK + gq * hd + 2 * gq + lg->state_floats;
    const int prune = s->slopes && lg->bound && s->prune_eps > 0 && !s->observe;
    prune_in pin = { 0 };
    if (prune && prune_prepare(&pin, v, ld, s, lg) != RL_OK)
        return RL_ENOMEM;
    float *scratch = rl_alloc_array((size_t)per * (size_t)omp_get_max_threads(), sizeof(float), NULL);
    if (!scratch) {
        free(pin.qn);
        return RL_ENOMEM;
    }
    if (lg->prepare) {
#pragma omp parallel for schedule(dynamic, 1)
        for (long bh = 0; bh < (long)s->B * H; bh++)
            lg->prepare(lg, (int)(bh / H), (int)(bh % H));
    }
    const rl_softmax_row_fn row_step = rl_softmax_row_pick();
    const rl_attn_pv_fn pv = rl_attn_pv_pick(hd);
    /* sums of whole numbers below 2^53 and maxima: the same whatever the
     * schedule */
    double pairs = 0, skipped = 0, mass = 0, obound = 0;
    /* items (b, h, query block), largest (latest) blocks first for balance;
     * each item's arithmetic is fixed, so the schedule cannot change results */
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : pairs, skipped) reduction(max : mass, obound)
    for (long it = 0; it < (long)s->B * H * nqb; it++) {
        const long qb = nqb - 1 - it % nqb, bh = it / nqb;
        const long b = bh / H, h = bh % H;
        float *S = scratch + per * omp_get_thread_num(), *acc = S + gq * SK;
        float *m = acc + gq * hd, *l = m + gq, *state = l + gq;
        const long i1 = (qb + 1) * gq < T ? (qb + 1) * gq : T;
        rl_attn_prune po = { 0, 0, 0, 0 };
        stream_block(out + b * T * ldo + h * hd, ldo, v + b * T * ld + h * hd, ld, s, lg,
                     (int)b, (int)h, qb * gq, i1, S, acc, m, l, state, row_step, pv, prune ? &pin : NULL, &po);
        pairs += po.pairs;
        skipped += po.skipped;
        mass = po.mass > mass ? po.mass : mass;
        obound = po.out > obound ? po.out : obound;
    }
    free(scratch);
    free(pin.qn);
    if (prune && s->prune) {
        rl_attn_prune *q = s->prune;
        q->pairs += pairs;
        q->skipped += skipped;
        q->mass = mass > q->mass ? mass : q->mass;
        q->out = obound > q->out ? obound : q->out;
    }
    return RL_OK;
}

rl_status rl_attention_forward_streaming_logits(float *out, long ldo, const float *v, long ld,
                                                const rl_attn_shape *s, const rl_attn_logits *lg)
{
    return stream_logits(out, ldo, v, ld, s, lg, SQ);
}

/* ---- the standard provider: s_ij = q_i . k_j / sqrt(hd) --------------- */

typedef struct {
    const float *q, *k;
    long ld;
    float *dq, *dk;
    long ldd;
    int T, hd, H;
    /* the logits kernel (attn_qk.h; NULL: sgemm) and, streaming only (else
     * NULL), each (b, h)'s keys packed by prepare for it; training packs a
     * panel at a time (qk_causal) */
    float *kp;
    rl_attn_qk_fn qk;
} qk_ctx;

/* (b, h)'s packed keys: rl_attn_qk_packed_floats(T, hd) floats each, the
 * heads of b in order */
static float *qk_packed(const qk_ctx *c, int b, int h)
{
    return c->kp + ((size_t)b * (size_t)c->H + (size_t)h) * rl_attn_qk_packed_floats(c->T, c->hd);
}

static void qk_prepare(const rl_attn_logits *lg, int b, int h)
{
    const qk_ctx *c = lg->ctx;
    rl_attn_qk_pack(qk_packed(c, b, h), c->k + (long)b * c->T * c->ld + (long)h * c->hd, c->ld, c->T,
                    c->hd);
}

static void qk_block(const rl_attn_logits *lg, float *S, long lds, int b, int h, long i0,
                     long i1, long j0, long j1, float *state)
{
    (void)state;
    const qk_ctx *c = lg->ctx;
    const long base = (long)b * c->T * c->ld + (long)h * c->hd;
    if (c->kp) { /* j0 is a multiple of SK, so of the panel width */
        c->qk(S, lds, c->q + base + i0 * c->ld, c->ld, qk_packed(c, b, h) + j0 * c->hd,
              (int)(i1 - i0), (int)(j1 - j0), c->hd, 1.0f / sqrtf((float)c->hd));
        return;
    }
    if (c->qk) { /* training: the causal part, keys packed a panel at a time */
        qk_causal(c->qk, S, lds, c->q + base, c->ld, c->k + base, c->ld, i0, i1, j0, j1, c->hd,
                  1.0f / sqrtf((float)c->hd));
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(i1 - i0), (int)(j1 - j0), c->hd,
                1.0f / sqrtf((float)c->hd), c->q + base + i0 * c->ld, (int)c->ld,
                c->k + base + j0 * c->ld, (int)c->ld, 0.0f, S, (int)lds);
}

/* dQ = dS K / sqrt(hd),  dK = dS^T Q / sqrt(hd) */
static void qk_grad(const rl_attn_logits *lg, const float *dS, int b, int h)
{
    const qk_ctx *c = lg->ctx;
    const int T = c->T, hd = c->hd;
    const float scale = 1.0f / sqrtf((float)hd);
    const long base = (long)b * T * c->ld + (long)h * hd;
    const long dbase = (long)b * T * c->ldd + (long)h * hd;
    const rl_attn_pv_fn pv = hd <= HD_MAX ? rl_attn_pv_pick(hd) : NULL;
    if (pv) {
        pv_causal(pv, c->dq + dbase, c->ldd, dS, T, c->k + base, c->ld, T, hd, scale, 0);
        pv_causal(pv, c->dk + dbase, c->ldd, dS, T, c->q + base, c->ld, T, hd, scale, 1);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, hd, T, scale, dS, T, c->k + base,
                (int)c->ld, 0.0f, c->dq + dbase, (int)c->ldd);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, T, hd, T, scale, dS, T, c->q + base,
                (int)c->ld, 0.0f, c->dk + dbase, (int)c->ldd);
}

/* |q_i . k_j| / sqrt(hd) <= (|q_i| / sqrt(hd)) |k_j|  (Cauchy-Schwarz) */
static void qk_bound(const rl_attn_logits *lg, int b, int h, float *qn, float *kn)
{
    const qk_ctx *c = lg->ctx;
    const long base = (long)b * c->T * c->ld + (long)h * c->hd;
    for (long t = 0; t < c->T; t++) {
        qn[t] = norm_up(c->q + base + t * c->ld, c->hd, 1.0 / sqrt((double)c->hd));
        kn[t] = norm_up(c->k + base + t * c->ld, c->hd, 1.0);
    }
}

static rl_attn_logits qk_logits(qk_ctx *c)
{
    rl_attn_logits lg = { NULL, qk_block, qk_grad, 0, c, qk_bound };
    return lg;
}

void rl_attention_forward(float *out, long ldo, float *att, const float *q, const float *k,
                          const float *v, long ld, const rl_attn_shape *s)
{
    qk_ctx c = { q, k, ld, NULL, NULL, 0, s->T, s->hd, s->H, NULL, s->hd <= HD_MAX ? rl_attn_qk_pick(s->hd) : NULL };
    rl_attn_logits lg = qk_logits(&c);
    rl_attention_forward_logits(out, ldo, att, v, ld, s, &lg);
}

void rl_attention_backward(float *dq, float *dk, float *dv, long ldd, float *datt,
                           const float *dout, long lddo, const float *att, const float *q,
                           const float *k, const float *v, long ld, const rl_attn_shape *s)
{
    qk_ctx c = { q, k, ld, dq, dk, ldd, s->T, s->hd, s->H, NULL, NULL };
    rl_attn_logits lg = qk_logits(&c);
    rl_attention_backward_logits(dv, ldd, datt, dout, lddo, att, v, ld, s, &lg);
}

rl_status rl_attention_forward_streaming(float *out, long ldo, const float *q, const float *k,
                                         const float *v, long ld, const rl_attn_shape *s)
{
    qk_ctx c = { q, k, ld, NULL, NULL, 0, s->T, s->hd, s->H, NULL, rl_attn_qk_pick(s->hd) };
    rl_attn_logits lg = qk_logits(&c);
    if (c.qk) { /* keys packed once per head, by prepare (attn_qk.h) */
        c.kp = rl_alloc_array(rl_attn_qk_packed_floats(s->T, s->hd) * (size_t)s->H, (size_t)s->B * sizeof(float),
                              NULL);
        if (!c.kp)
            return RL_ENOMEM;
        lg.prepare = qk_prepare;
    }
    /* the observer's contract (and the probe) sees blocks of SQ queries */
    const rl_status st = stream_logits(out, ldo, v, ld, s, &lg, s->observe ? SQ : SQ_QK);
    free(c.kp);
    return st;
}
