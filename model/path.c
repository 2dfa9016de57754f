/* path.c: PaTH attention logits (path.h), naive walk and blockwise UT form,
 * forward and backward, as a provider of the shared attention kernel.
 *
 * Notation per (b, h): s = 1/sqrt(hd); M_(i,j) = H_i ... H_(j+1) (identity
 * for j = i); l_ij = s q_i^T M_(i,j) k_j.  Every H_t is symmetric, so
 * l_ij = s (M_(i,j)^T q_i) . k_j = s (H_(j+1) ... H_i q_i) . k_j. */
#include "path.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "attn_qk.h"

#define CB RL_PATH_C
_Static_assert(RL_ATTN_SK % RL_PATH_C == 0, "key blocks must be whole PaTH blocks");
_Static_assert(RL_PATH_C % RL_ATTN_QK_W == 0, "PaTH blocks must be whole panels of packed keys");

/* C = alpha op(A) op(B) + beta C, row-major, one thread (we are inside the
 * per-(b, h) or per-query-block parallel loop of attention.c). */
static void mm(int ta, int tb, int M, int N, int K, float alpha, const float *A, long lda,
               const float *B, long ldb, float beta, float *C, long ldc)
{
    if (M <= 0 || N <= 0)
        return;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                M, N, K, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

static float dotf(const float *a, const float *b, int n)
{
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static void axpy(float *y, float a, const float *x, int n)
{
#pragma omp simd
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* Zero the strict upper (keep = lower incl. diagonal) or the lower incl.
 * diagonal (keep = strict upper) part of an n x n tile, row stride ld. */
static void keep_lower(float *A, int n, long ld)
{
    for (int r = 0; r < n; r++)
        for (int c = r + 1; c < n; c++)
            A[r * ld + c] = 0.0f;
}

static void keep_strict_upper(float *A, int n, long ld)
{
    for (int r = 0; r < n; r++)
        for (int c = 0; c <= r; c++)
            A[r * ld + c] = 0.0f;
}

/* ---- workspace of one (b, h) ------------------------------------------- */

/* Prepared per block m (positions mc .. mc+c_m-1, c_m = c except maybe the
 * last): the keys transported to the block's end K~_m (c x hd, stacked) and
 * the block's product B_m (hd x hd); for training also the block's own G,
 * X, Zk (c x c) and E, F (c x hd), which the forward's intra-block logits
 * and the backward use again (the streaming forward recomputes them per
 * query block instead: O(T c) more floats per head otherwise).  Then the
 * tiles, the running query U (and a second one to multiply into); the
 * backward adds the sweep's stored U^(n) and the accumulators of dK~, dB. */
typedef struct {
    float *Kt, *B;                                    /* prepared */
    float *Ktp;                                       /* prepared: streaming only, K~ packed (attn_qk.h) */
    float *Gs, *Xs, *Zks, *Es, *Fs;                   /* prepared: training only */
    float *G, *X, *Gq, *Y, *Zk, *E, *F, *U, *U2;      /* tiles */
    float *Us, *dKt, *dB;                             /* backward: T-long */
    float *dY, *dZk, *dX, *Psi, *dG, *dE, *dF, *g;    /* backward: tiles */
} path_ws;

static float *take(float *base, size_t *used, size_t n)
{
    float *p = base ? base + *used : NULL;
    *used += (n + 15) & ~(size_t)15;
    return p;
}

static size_t ws_layout(path_ws *w, float *base, int T, int hd, int train)
{
    const size_t nb = ((size_t)T + CB - 1) / CB, Tp = nb * CB, c2 = (size_t)CB * CB;
    const size_t cd = (size_t)CB * hd, d2 = (size_t)hd * hd;
    size_t u = 0;
    path_ws z = { 0 };
    w = w ? w : &z;
    w->Kt = take(base, &u, Tp * hd);
    w->B = take(base, &u, nb * d2);
    w->Ktp = NULL;
    if (train) {
        w->Gs = take(base, &u, nb * c2);
        w->Xs = take(base, &u, nb * c2);
        w->Zks = take(base, &u, nb * c2);
        w->Es = take(base, &u, Tp * hd);
        w->Fs = take(base, &u, Tp * hd);
    }
    float **tiles[] = { &w->G, &w->X, &w->Gq, &w->Y, &w->Zk };
    for (int i = 0; i < 5; i++)
        *tiles[i] = take(base, &u, c2);
    w->E = take(base, &u, cd);
    w->F = take(base, &u, cd);
    w->U = take(base, &u, cd);
    w->U2 = take(base, &u, cd);
    if (!train) {
        w->Ktp = take(base, &u, rl_attn_qk_packed_floats((long)Tp, hd));
        return u;
    }
    w->Us = take(base, &u, Tp * hd);
    w->dKt = take(base, &u, Tp * hd);
    w->dB = take(base, &u, nb * d2);
    float **gtiles[] = { &w->dY, &w->dZk, &w->dX, &w->Psi, &w->dG };
    for (int i = 0; i < 5; i++)
        *gtiles[i] = take(base, &u, c2);
    w->dE = take(base, &u, cd);
    w->dF = take(base, &u, cd);
    w->g = take(base, &u, cd);
    return u;
}

/* Per-thread state of the streaming forward: U, U2 and the query-side tiles. */
static long state_floats(int hd)
{
    return 2L * CB * hd + 5L * CB * CB;
}

double rl_path_logit_madds(long T, int hd)
{
    const double c = RL_PATH_C, t = (double)T, d = hd;
    return t / c * (9 * c * c * d + 2 * c * c * c) + t * t / 2 * (d * d / c);
}

size_t rl_path_work_floats(const rl_attn_shape *s)
{
    return (size_t)s->B * s->H * ws_layout(NULL, NULL, s->T, s->hd, 1);
}

/* Pointers of (b, h) into the inputs. */
typedef struct {
    const float *q, *k, *w, *beta; /* beta: stride H */
    long ld, ldw, sb;
    int T, hd;
    float scale;
    path_ws ws;
    rl_attn_qk_fn qk; /* streaming: the packed-key logits kernel, or NULL (sgemm) */
} head;

static head head_of(const rl_path_ctx *c, int b, int h)
{
    const int T = c->s.T, H = c->s.H, hd = c->s.hd;
    const long base = (long)b * T * c->ld + (long)h * hd;
    head x = { c->q + base, c->k + base, c->w + (long)b * T * c->ldw + (long)h * hd,
               c->beta + (long)b * T * H + h, c->ld, c->ldw, H, T, hd, 1.0f / sqrtf((float)hd),
               { 0 }, c->streaming ? rl_attn_qk_pick(hd) : NULL };
    ws_layout(&x.ws, c->work + (long)(b * H + h) * c->per, T, hd, !c->streaming);
    return x;
}

/* ---- naive reference: the walk of each query --------------------------- */

/* Query i: u_i = q_i, and going down u_(j-1) = H_j u_j, so that
 * u_j = H_(j+1) ... H_i q_i and l_ij = s u_j . k_j.  Logits for keys
 * j0 .. min(i, j1-1) into srow[j - j0]; u is hd floats of scratch. */
static void walk_row(const head *x, long i, long j0, long j1, float *srow, float *u)
{
    const int hd = x->hd;
    memcpy(u, x->q + i * x->ld, sizeof(float) * hd);
    for (long j = i; j >= j0; j--) {
        const float *wj = x->w + j * x->ldw;
        if (j < j1)
            srow[j - j0] = x->scale * dotf(u, x->k + j * x->ld, hd);
        if (j > j0) /* u <- H_j u = u - beta_j (w_j . u) w_j */
            axpy(u, -x->beta[j * x->sb] * dotf(wj, u, hd), wj, hd);
    }
}

static void naive_block(const rl_attn_logits *lg, float *S, long lds, int b, int h, long i0,
                        long i1, long j0, long j1, float *state)
{
    const head x = head_of(lg->ctx, b, h);
    for (long i = i0; i < i1; i++)
        walk_row(&x, i, j0, j1, S + (i - i0) * lds, state ? state : x.ws.U);
}

/* Reverse mode through the walk of query i, given the logit gradients
 * d_j = dL/dl_ij.  Forward step j (from j = i down to 0):
 *     l_ij = s u_j . k_j,        u_(j-1) = H_j u_j   (j >= 1).
 * Let g = dL/du_(j-1) (zero before the first reverse step, j = 0: u_(-1) is
 * never formed).  Going back up, j = 0 .. i:
 *   through u_(j-1) = H_j u_j = u_j - beta_j (w_j.u_j) w_j, with a = w_j.u_j
 *   and c = w_j.g, the term of L is g^T H_j u_j = g.u_j - beta_j c a, so
 *     dbeta_j += -a c,
 *     dw_j    += -beta_j (a g + c u_j)         (d/dw of (g.w)(w.u)),
 *     g       <- H_j g = g - beta_j c w_j      (H_j symmetric);
 *   then the logit itself:  g += s d_j k_j,  dk_j += s d_j u_j.
 * After step i, g = dL/du_i = dL/dq_i.  The walk's u_j are recomputed and
 * kept (us, (i+1) x hd): going up cannot invert H_j (singular at beta = 1). */
static void walk_row_backward(const head *x, long i, const float *drow, float *dq, float *dk,
                              long ldd, float *dw, long lddw, float *dbeta, float *us, float *g)
{
    const int hd = x->hd;
    memcpy(us + i * hd, x->q + i * x->ld, sizeof(float) * hd);
    for (long j = i; j >= 1; j--) {
        const float *wj = x->w + j * x->ldw, *uj = us + j * hd;
        float *un = us + (j - 1) * hd;
        memcpy(un, uj, sizeof(float) * hd);
        axpy(un, -x->beta[j * x->sb] * dotf(wj, uj, hd), wj, hd);
    }
    memset(g, 0, sizeof(float) * hd);
    for (long j = 0; j <= i; j++) {
        const float *wj = x->w + j * x->ldw, *uj = us + j * hd;
        if (j >= 1) {
            const float bj = x->beta[j * x->sb], a = dotf(wj, uj, hd), c = dotf(wj, g, hd);
            dbeta[j * x->sb] -= a * c;
            float *dwj = dw + j * lddw;
            axpy(dwj, -bj * a, g, hd);
            axpy(dwj, -bj * c, uj, hd);
            axpy(g, -bj * c, wj, hd);
        }
        const float d = x->scale * drow[j];
        axpy(g, d, x->k + j * x->ld, hd);
        axpy(dk + j * ldd, d, uj, hd);
    }
    memcpy(dq + i * ldd, g, sizeof(float) * hd);
}

/* The gradient outputs of (b, h). */
typedef struct {
    float *dq, *dk, *dw, *dbeta;
} grads;

static grads grads_of(const rl_path_ctx *c, int b, int h)
{
    const long T = c->s.T, hd = c->s.hd;
    grads g = { c->dq + b * T * c->ldd + h * hd, c->dk + b * T * c->ldd + h * hd,
                c->dw + b * T * c->lddw + h * hd, c->dbeta + b * T * c->s.H + h };
    return g;
}

static void naive_grad(const rl_attn_logits *lg, const float *dS, int b, int h)
{
    const rl_path_ctx *c = lg->ctx;
    const head x = head_of(c, b, h);
    const grads d = grads_of(c, b, h);
    const int T = c->s.T, hd = c->s.hd;
    for (long t = 0; t < T; t++) {
        memset(d.dq + t * c->ldd, 0, sizeof(float) * hd);
        memset(d.dk + t * c->ldd, 0, sizeof(float) * hd);
        memset(d.dw + t * c->lddw, 0, sizeof(float) * hd);
        d.dbeta[t * x.sb] = 0.0f;
    }
    for (long i = 0; i < T; i++)
        walk_row_backward(&x, i, dS + i * T, d.dq, d.dk, c->ldd, d.dw, c->lddw, d.dbeta,
                          x.ws.Us, x.ws.g);
}

/* ---- the blockwise (UT / compact WY) form ------------------------------ *
 *
 * Block product.  For positions 0 .. r of a block (local index), let
 * P_r = H_r ... H_0 and claim P_r = I - W_r^T X_r W_r, W_r the rows w_0..w_r,
 * X_r lower triangular.  P_r = H_r P_(r-1) gives
 *   X_r = [[X_(r-1), 0], [-beta_r (w_r^T W_(r-1)^T) X_(r-1), beta_r]],
 * i.e. row r: X[r,:] = beta_r (e_r - sum_(s<r) (w_r.w_s) X[s,:]), so
 *   (I + D stril(G)) X = D,   D = diag(beta), G = W W^T:   (X)
 * a unit lower triangular solve, no division by beta.  The diagonal blocks
 * of the inverse of a lower triangular matrix are the inverses of its
 * diagonal blocks, so the product over any local range [a, e] is
 * I - W_[a,e]^T X[a..e, a..e] W_[a,e] with the same X.
 *
 * With the block m's rows Q, K, W (c x hd), and l_ij for j < i both in it:
 *   q_i^T (I - W^T X[(rj,ri]] W) k_j = q_i.k_j - sum_(rj<b<=a<=ri) (q_i.w_a) X[a,b] (w_b.k_j);
 * the constraint a > rj follows from a >= b > rj, so with
 *   Y = tril(Q W^T) X  (row i keeps a <= ri),   Zk = striu(K W^T)  (b > rj):
 *   S_mm = s (Q K^T - Y Zk^T)                                     (intra)
 * Across blocks, l_ij = s q~_i^T B_(m-1) ... B_(n+1) k~_j with the block
 * products B_n, the query transported to its block's start and the key to
 * its block's end:
 *   Q~ = Q - Y W  (= P_(ri)^T q_i),   K~ = K - Zk E, E = X^T W  (= H_(c-1)..H_(rj+1) k_j),
 *   B = I - W^T F,  F = X W  (hd x hd, formed once per block).
 * For query block m the running U^(n) (U^(m-1) = Q~_m) gives
 *   S_mn = s U^(n) K~_n^T,   U^(n-1) = U^(n) B_n,
 * for n = m-1 down to 0: the key-update form run from the query's side,
 * each query block independent, all sgemm.  B_n is formed explicitly
 * rather than applied as (U W^T) F: when the w of a block are nearly
 * parallel, X has large alternating entries (all w equal and beta = 2:
 * entries +-4, products exactly I or a reflection), and (U W^T) F would
 * cancel them at every block boundary; B_n is a contraction with entries
 * of size 1, so the sweep itself adds no such error (and costs 2 c hd^2
 * instead of 4 c^2 hd per block pair).  The remaining cancellation is
 * inside one block (Y, K~, B), measured in docs/model/path.md#path-accuracy. */

/* G = W W^T and X of block i0 (n rows) by (X). */
static void loc_x(const head *x, long i0, int n, float *G, float *X)
{
    const float *W = x->w + i0 * x->ldw, *bt = x->beta + i0 * x->sb;
    mm(0, 1, n, n, x->hd, 1.0f, W, x->ldw, W, x->ldw, 0.0f, G, CB);
    for (int r = 0; r < n; r++) {
        float *xr = X + r * CB;
        memset(xr, 0, sizeof(float) * CB);
        for (int s = 0; s < r; s++)
            axpy(xr, -G[r * CB + s], X + s * CB, s + 1);
        const float br = bt[r * x->sb];
        for (int t = 0; t < r; t++)
            xr[t] *= br;
        xr[r] = br;
    }
}

/* Zk = striu(K W^T) of block i0. */
static void loc_zk(const head *x, long i0, int n, float *Zk)
{
    mm(0, 1, n, n, x->hd, 1.0f, x->k + i0 * x->ld, x->ld, x->w + i0 * x->ldw, x->ldw, 0.0f, Zk,
       CB);
    keep_strict_upper(Zk, n, CB);
}

/* Gq = tril(Q W^T) and Y = Gq X of block i0. */
static void loc_y(const head *x, long i0, int n, const float *X, float *Gq, float *Y)
{
    mm(0, 1, n, n, x->hd, 1.0f, x->q + i0 * x->ld, x->ld, x->w + i0 * x->ldw, x->ldw, 0.0f, Gq,
       CB);
    keep_lower(Gq, n, CB);
    mm(0, 0, n, n, n, 1.0f, Gq, CB, X, CB, 0.0f, Y, CB);
}

/* E = X^T W, F = X W, K~ and B of block i0 (G, X, Zk given). */
static void loc_keys(const head *x, long i0, int n, const float *X, const float *Zk, float *E,
                     float *F)
{
    const int hd = x->hd;
    const float *W = x->w + i0 * x->ldw, *K = x->k + i0 * x->ld;
    float *Kt = x->ws.Kt + i0 * hd, *B = x->ws.B + i0 / CB * hd * hd;
    mm(1, 0, n, hd, n, 1.0f, X, CB, W, x->ldw, 0.0f, E, hd);
    mm(0, 0, n, hd, n, 1.0f, X, CB, W, x->ldw, 0.0f, F, hd);
    for (int r = 0; r < n; r++)
        memcpy(Kt + r * hd, K + r * x->ld, sizeof(float) * hd);
    mm(0, 0, n, hd, n, -1.0f, Zk, CB, E, hd, 1.0f, Kt, hd);
    memset(B, 0, sizeof(float) * hd * hd);
    for (int a = 0; a < hd; a++)
        B[a * hd + a] = 1.0f;
    mm(1, 0, hd, hd, n, -1.0f, W, x->ldw, F, hd, 1.0f, B, hd);
}

/* Block i0's own G, X, Zk, E, F: the stored ones (training layout) or the
 * tiles (streaming layout). */
typedef struct {
    float *G, *X, *Zk, *E, *F;
} own;

static own own_of(const head *x, long i0)
{
    const path_ws *w = &x->ws;
    const long m = i0 / CB, c2 = (long)CB * CB;
    if (w->Xs) {
        own o = { w->Gs + m * c2, w->Xs + m * c2, w->Zks + m * c2, w->Es + i0 * x->hd,
                  w->Fs + i0 * x->hd };
        return o;
    }
    own o = { w->G, w->X, w->Zk, w->E, w->F };
    return o;
}

/* Prepare: K~_m and B_m of every block of (b, h) (and its own quantities). */
static void fast_prepare_head(const head *x)
{
    for (long i0 = 0; i0 < x->T; i0 += CB) {
        const int n = x->T - i0 < CB ? (int)(x->T - i0) : CB;
        const own o = own_of(x, i0);
        loc_x(x, i0, n, o.G, o.X);
        loc_zk(x, i0, n, o.Zk);
        loc_keys(x, i0, n, o.X, o.Zk, o.E, o.F);
    }
    /* streaming: the transported keys packed once for the logits kernel */
    if (x->ws.Ktp && x->qk)
        rl_attn_qk_pack(x->ws.Ktp, x->ws.Kt, x->hd, x->T, x->hd);
}

static void fast_prepare(const rl_attn_logits *lg, int b, int h)
{
    const head x = head_of(lg->ctx, b, h);
    fast_prepare_head(&x);
}

/* U <- U B_n (n rows; U2 scratch). */
static void transport(const head *x, int n, long k0, float *U, float *U2)
{
    const int hd = x->hd;
    mm(0, 0, n, hd, hd, 1.0f, U, hd, x->ws.B + k0 / CB * hd * hd, hd, 0.0f, U2, hd);
    memcpy(U, U2, sizeof(float) * n * hd);
}

/* The query side's tiles: the running query U, U2 to multiply into, and
 * block m's G, X, Gq, Y, Zk. */
typedef struct {
    float *U, *U2, *G, *X, *Gq, *Y, *Zk;
} qtiles;

/* Logits of query block [i0, i1) (one PaTH block) against keys [j0, j1),
 * j0 a multiple of c: the first call (j1 = i1) forms the intra-block
 * logits and U = Q~_m; each further c-block n (downwards) is s U K~_n^T,
 * then U <- U B_n, so a later call continues at key j1 = this j0. */
static void fast_qblock(const head *x, float *S, long lds, long i0, long i1, long j0, long j1,
                        const qtiles *t)
{
    const int n = (int)(i1 - i0), hd = x->hd;
    long top = j1;
    if (j1 == i1) {
        const float *Q = x->q + i0 * x->ld, *K = x->k + i0 * x->ld, *W = x->w + i0 * x->ldw;
        float *Smm = S + (i0 - j0), *X = t->X, *Zk = t->Zk;
        if (x->ws.Xs) { /* prepared (training) */
            const own o = own_of(x, i0);
            X = o.X;
            Zk = o.Zk;
        } else {
            loc_x(x, i0, n, t->G, X);
            loc_zk(x, i0, n, Zk);
        }
        loc_y(x, i0, n, X, t->Gq, t->Y);
        mm(0, 1, n, n, hd, x->scale, Q, x->ld, K, x->ld, 0.0f, Smm, lds);
        mm(0, 1, n, n, n, -x->scale, t->Y, CB, Zk, CB, 1.0f, Smm, lds);
        for (int r = 0; r < n; r++)
            memcpy(t->U + r * hd, Q + r * x->ld, sizeof(float) * hd);
        mm(0, 0, n, hd, n, -1.0f, t->Y, CB, W, x->ldw, 1.0f, t->U, hd);
        top = i0;
    }
    for (long k0 = top - CB; k0 >= j0; k0 -= CB) {
        if (x->ws.Ktp && x->qk) /* k0 a multiple of c, so of the panel width */
            x->qk(S + (k0 - j0), lds, t->U, hd, x->ws.Ktp + k0 * hd, n, CB, hd, x->scale);
        else
            mm(0, 1, n, CB, hd, x->scale, t->U, hd, x->ws.Kt + k0 * hd, hd, 0.0f, S + (k0 - j0),
               lds);
        if (k0 > 0)
            transport(x, n, k0, t->U, t->U2);
    }
}

static void fast_block(const rl_attn_logits *lg, float *S, long lds, int b, int h, long i0,
                       long i1, long j0, long j1, float *state)
{
    const head x = head_of(lg->ctx, b, h);
    if (state) { /* streaming: one query block, the running U in the state */
        const long cd = (long)CB * x.hd, c2 = (long)CB * CB;
        qtiles t = { state, state + cd, state + 2 * cd, state + 2 * cd + c2,
                     state + 2 * cd + 2 * c2, state + 2 * cd + 3 * c2, state + 2 * cd + 4 * c2 };
        fast_qblock(&x, S, lds, i0, i1, j0, j1, &t);
        return;
    }
    /* the whole triangle (training): every query block from its diagonal */
    const qtiles t = { x.ws.U, x.ws.U2, x.ws.G, x.ws.X, x.ws.Gq, x.ws.Y, x.ws.Zk };
    for (long m0 = i0; m0 < i1; m0 += CB) {
        const long m1 = m0 + CB < i1 ? m0 + CB : i1;
        fast_qblock(&x, S + (m0 - i0) * lds, lds, m0, m1, j0, m1, &t);
    }
}

/* ---- backward of the blockwise form ------------------------------------ *
 *
 * Reverse mode through the forward above, per (b, h), query blocks m from
 * the last down: when block m is reached, every use of K~_m and B_m (by the
 * query blocks after it) has been accounted for, so block m's own
 * quantities can be finished.  With G = dL/dS (scaled logits):
 * 1. the sweep of query block m, recomputed: U^(m-1) = Q~_m,
 *    U^(n-1) = U^(n) B_n (kept: Us);
 * 2. back up it, n = 0 .. m-1, with g = dL/dU^(n-1) (0 at n = 0):
 *      dB_n += U^(n)T g,  g <- g B_n^T          (the transport),
 *      g += s G_mn K~_n,  dK~_n += s G_mn^T U^(n)   (the logits);
 *    at the end g = dL/dQ~_m;
 * 3. block m's own quantities (intra logits, Q~, K~, B, then X), given
 *    G_mm, dQ~ = g, dK~_m, dB_m:
 *      S_mm = s (Q K^T - Y Zk^T):  dQ = s G_mm K,  dK = s G_mm^T Q,
 *                                  dY = -s G_mm Zk,  dZk = -s G_mm^T Y;
 *      Q~ = Q - Y W:   dQ += dQ~,  dY -= dQ~ W^T,  dW = -Y^T dQ~;
 *      K~ = K - Zk E:  dK += dK~,  dZk -= dK~ E^T,  dE = -Zk^T dK~;
 *      B = I - W^T F:  dW -= F dB^T,  dF = -W dB;
 *      Y = Gq X:       dX = Gq^T dY,  dGq = tril(dY X^T):  dQ += dGq W,  dW += dGq^T Q;
 *      Zk = striu(K W^T): striu(dZk):  dK += dZk W,  dW += dZk^T K;
 *      E = X^T W:      dX += W dE^T,  dW += X dE;
 *      F = X W:        dX += dF W^T,  dW += X^T dF;
 * 4. (X) X = M^-1 D, M = I + D stril(G):  with Psi = M^-T dX (only the
 *    lower part of dX: X's upper part is identically zero),
 *      dD = Psi (diagonal: dbeta_r = Psi[r,r]),  dM = -Psi X^T;
 *    M[r,s] = beta_r G[r,s] (s < r):  dbeta_r += sum_(s<r) dM[r,s] G[r,s],
 *      dG[r,s] = beta_r dM[r,s];  G = W W^T:  dW += (dG + dG^T) W.
 * Block m's dq, dk, dw, dbeta are all formed in step 3-4: written. */

/* Step 4 for block i0 (n rows): dX (lower part used) into dbeta (written)
 * and dW (added). */
static void x_backward(const head *x, long i0, int n, const own *o, float *dW, long lddw,
                       float *dbeta)
{
    const path_ws *ws = &x->ws;
    const int hd = x->hd;
    const float *W = x->w + i0 * x->ldw, *bt = x->beta + i0 * x->sb;
    const float *G = o->G, *X = o->X;
    float *dX = ws->dX, *Psi = ws->Psi, *dG = ws->dG;
    keep_lower(dX, n, CB);
    /* M^T Psi = dX, M^T unit upper with M^T[r,s] = beta_s G[s,r] (s > r) */
    for (int r = n - 1; r >= 0; r--) {
        float *pr = Psi + r * CB;
        memcpy(pr, dX + r * CB, sizeof(float) * n);
        for (int s = r + 1; s < n; s++)
            axpy(pr, -bt[s * x->sb] * G[s * CB + r], Psi + s * CB, n);
    }
    for (int r = 0; r < n; r++) {
        float db = Psi[r * CB + r];
        memset(dG + r * CB, 0, sizeof(float) * n);
        for (int s = 0; s < r; s++) {
            /* dM[r,s] = -(Psi X^T)[r,s], X[s,t] = 0 for t > s */
            const float dm = -dotf(Psi + r * CB, X + s * CB, s + 1);
            db += dm * G[r * CB + s];
            dG[r * CB + s] = bt[r * x->sb] * dm;
        }
        dbeta[r * x->sb] = db;
    }
    mm(0, 0, n, hd, n, 1.0f, dG, CB, W, x->ldw, 1.0f, dW, lddw);
    mm(1, 0, n, hd, n, 1.0f, dG, CB, W, x->ldw, 1.0f, dW, lddw);
}

/* Step 3 for block m = i0/c; dQt = dL/dQ~_m or NULL (m = 0).  o and the
 * tiles Gq, Y hold block m's forward quantities. */
static void local_backward(const head *x, long i0, int n, const own *o, const float *Gmm,
                           long ldg,
                           const float *dQt, float *dQ, float *dK, long ldd, float *dW,
                           long lddw, float *dbeta)
{
    const path_ws *w = &x->ws;
    const int hd = x->hd;
    const long ld = x->ld, ldw = x->ldw;
    const float sc = x->scale;
    const float *Q = x->q + i0 * ld, *K = x->k + i0 * ld, *W = x->w + i0 * ldw;
    const float *dKt = w->dKt + i0 * hd, *dB = w->dB + i0 / CB * hd * hd;
    mm(0, 0, n, hd, n, sc, Gmm, ldg, K, ld, 0.0f, dQ, ldd);
    mm(1, 0, n, hd, n, sc, Gmm, ldg, Q, ld, 0.0f, dK, ldd);
    mm(0, 0, n, n, n, -sc, Gmm, ldg, o->Zk, CB, 0.0f, w->dY, CB);
    mm(1, 0, n, n, n, -sc, Gmm, ldg, w->Y, CB, 0.0f, w->dZk, CB);
    mm(0, 1, n, hd, hd, -1.0f, o->F, hd, dB, hd, 0.0f, dW, lddw);
    if (dQt) {
        for (int r = 0; r < n; r++)
            axpy(dQ + r * ldd, 1.0f, dQt + r * hd, hd);
        mm(0, 1, n, n, hd, -1.0f, dQt, hd, W, ldw, 1.0f, w->dY, CB);
        mm(1, 0, n, hd, n, -1.0f, w->Y, CB, dQt, hd, 1.0f, dW, lddw);
    }
    for (int r = 0; r < n; r++)
        axpy(dK + r * ldd, 1.0f, dKt + r * hd, hd);
    mm(0, 1, n, n, hd, -1.0f, dKt, hd, o->E, hd, 1.0f, w->dZk, CB);
    mm(1, 0, n, hd, n, -1.0f, o->Zk, CB, dKt, hd, 0.0f, w->dE, hd);
    mm(0, 0, n, hd, hd, -1.0f, W, ldw, dB, hd, 0.0f, w->dF, hd);
    mm(1, 0, n, n, n, 1.0f, w->Gq, CB, w->dY, CB, 0.0f, w->dX, CB);
    mm(0, 1, n, n, n, 1.0f, w->dY, CB, o->X, CB, 0.0f, w->Gq, CB); /* dGq, over Gq */
    keep_lower(w->Gq, n, CB);
    mm(0, 0, n, hd, n, 1.0f, w->Gq, CB, W, ldw, 1.0f, dQ, ldd);
    mm(1, 0, n, hd, n, 1.0f, w->Gq, CB, Q, ld, 1.0f, dW, lddw);
    keep_strict_upper(w->dZk, n, CB);
    mm(0, 0, n, hd, n, 1.0f, w->dZk, CB, W, ldw, 1.0f, dK, ldd);
    mm(1, 0, n, hd, n, 1.0f, w->dZk, CB, K, ld, 1.0f, dW, lddw);
    mm(0, 1, n, n, hd, 1.0f, W, ldw, w->dE, hd, 1.0f, w->dX, CB);
    mm(0, 0, n, hd, n, 1.0f, o->X, CB, w->dE, hd, 1.0f, dW, lddw);
    mm(0, 1, n, n, hd, 1.0f, w->dF, hd, W, ldw, 1.0f, w->dX, CB);
    mm(1, 0, n, hd, n, 1.0f, o->X, CB, w->dF, hd, 1.0f, dW, lddw);
    x_backward(x, i0, n, o, dW, lddw, dbeta);
}

static void fast_grad(const rl_attn_logits *lg, const float *dS, int b, int h)
{
    const rl_path_ctx *c = lg->ctx;
    const head x = head_of(c, b, h);
    const path_ws *w = &x.ws;
    const int T = x.T, hd = x.hd;
    const long ld = x.ld, ldd = c->ldd, nb = (T + CB - 1) / CB;
    const grads d = grads_of(c, b, h);
    fast_prepare_head(&x);
    memset(w->dKt, 0, sizeof(float) * nb * CB * hd);
    memset(w->dB, 0, sizeof(float) * nb * hd * hd);
    for (long m = nb - 1; m >= 0; m--) {
        const long i0 = m * CB;
        const int n = T - i0 < CB ? (int)(T - i0) : CB;
        const float *Q = x.q + i0 * ld, *W = x.w + i0 * x.ldw;
        const own o = own_of(&x, i0);
        loc_y(&x, i0, n, o.X, w->Gq, w->Y);
        if (m > 0) {
            /* 1. the sweep: Us[k] = U^(k), rows of query block m */
            float *Um = w->Us + (m - 1) * CB * hd;
            for (int r = 0; r < n; r++)
                memcpy(Um + r * hd, Q + r * ld, sizeof(float) * hd);
            mm(0, 0, n, hd, n, -1.0f, w->Y, CB, W, x.ldw, 1.0f, Um, hd);
            for (long k = m - 1; k >= 1; k--)
                mm(0, 0, n, hd, hd, 1.0f, w->Us + k * CB * hd, hd, w->B + k * hd * hd, hd,
                   0.0f, w->Us + (k - 1) * CB * hd, hd);
            /* 2. back up the sweep */
            float *g = w->g, *g2 = w->U;
            memset(g, 0, sizeof(float) * n * hd);
            for (long k = 0; k < m; k++) {
                const float *Uk = w->Us + k * CB * hd, *Gk = dS + i0 * T + k * CB;
                if (k > 0) {
                    const float *Bk = w->B + k * hd * hd;
                    mm(1, 0, hd, hd, n, 1.0f, Uk, hd, g, hd, 1.0f, w->dB + k * hd * hd, hd);
                    mm(0, 1, n, hd, hd, 1.0f, g, hd, Bk, hd, 0.0f, g2, hd);
                    memcpy(g, g2, sizeof(float) * n * hd);
                }
                mm(0, 0, n, hd, CB, x.scale, Gk, T, w->Kt + k * CB * hd, hd, 1.0f, g, hd);
                mm(1, 0, CB, hd, n, x.scale, Gk, T, Uk, hd, 1.0f, w->dKt + k * CB * hd, hd);
            }
        }
        /* 3-4. block m's own quantities */
        local_backward(&x, i0, n, &o, dS + i0 * T + i0, T, m > 0 ? w->g : NULL,
                       d.dq + i0 * ldd, d.dk + i0 * ldd, ldd, d.dw + i0 * c->lddw, c->lddw,
                       d.dbeta + i0 * x.sb);
    }
}

/* ---- provider and wrappers --------------------------------------------- */

rl_attn_logits rl_path_logits(rl_path_ctx *c, int naive)
{
    c->per = (long)ws_layout(NULL, NULL, c->s.T, c->s.hd, !c->streaming);
    rl_attn_logits lg;
    lg.prepare = naive ? NULL : fast_prepare;
    lg.block = naive ? naive_block : fast_block;
    lg.grad = naive ? naive_grad : fast_grad;
    lg.state_floats = naive ? c->s.hd : state_floats(c->s.hd);
    lg.ctx = c;
    lg.bound = NULL; /* PaTH with a distance bias is no scheme: nothing to prune */
    return lg;
}

void rl_path_forward(float *out, long ldo, float *att, float *work, const float *q,
                     const float *k, const float *v, long ld, const float *w, long ldw,
                     const float *beta, const rl_attn_shape *s)
{
    rl_path_ctx c = { .s = *s, .q = q, .k = k, .w = w, .beta = beta, .ld = ld, .ldw = ldw,
                      .work = work };
    rl_attn_logits lg = rl_path_logits(&c, 0);
    rl_attention_forward_logits(out, ldo, att, v, ld, s, &lg);
}

void rl_path_backward(float *dq, float *dk, float *dv, long ldd, float *dw, long lddw,
                      float *dbeta, float *datt, float *work, const float *dout, long lddo,
                      const float *att, const float *q, const float *k, const float *v, long ld,
                      const float *w, long ldw, const float *beta, const rl_attn_shape *s)
{
    rl_path_ctx c = { .s = *s, .q = q, .k = k, .w = w, .beta = beta, .ld = ld, .ldw = ldw,
                      .dq = dq, .dk = dk, .dw = dw, .dbeta = dbeta, .ldd = ldd, .lddw = lddw,
                      .work = work };
    rl_attn_logits lg = rl_path_logits(&c, 0);
    rl_attention_backward_logits(dv, ldd, datt, dout, lddo, att, v, ld, s, &lg);
}

rl_status rl_path_forward_streaming(float *out, long ldo, const float *q, const float *k,
                                    const float *v, long ld, const float *w, long ldw,
                                    const float *beta, const rl_attn_shape *s)
{
    rl_path_ctx c = { .s = *s, .q = q, .k = k, .w = w, .beta = beta, .ld = ld, .ldw = ldw,
                      .streaming = 1 };
    rl_attn_logits lg = rl_path_logits(&c, 0);
    c.work = rl_alloc_array((size_t)s->B * s->H, sizeof(float) * (size_t)c.per, NULL);
    if (!c.work)
        return RL_ENOMEM;
    const rl_status st = rl_attention_forward_streaming_logits(out, ldo, v, ld, s, &lg);
    free(c.work);
    return st;
}

/* ---- inputs ------------------------------------------------------------ */

void rl_path_wnorm_forward(float *w, float *rnorm, long ld, long N, int H, int hd)
{
#pragma omp parallel for schedule(static)
    for (long t = 0; t < N; t++)
        for (int h = 0; h < H; h++) {
            float *x = w + t * ld + (long)h * hd;
            const float r = 1.0f / sqrtf(dotf(x, x, hd) + 1e-12f);
            for (int i = 0; i < hd; i++)
                x[i] *= r;
            rnorm[t * H + h] = r;
        }
}

/* y = x r, r = (|x|^2 + eps)^(-1/2):  dy/dx = r I - r^3 x x^T, so
 * dx = r dy - r^3 x (x.dy) = r (dy - y (y.dy)) with y the normalised x. */
void rl_path_wnorm_backward(float *dw, long ldd, const float *w, long ld, const float *rnorm,
                            long N, int H, int hd)
{
#pragma omp parallel for schedule(static)
    for (long t = 0; t < N; t++)
        for (int h = 0; h < H; h++) {
            float *d = dw + t * ldd + (long)h * hd;
            const float *y = w + t * ld + (long)h * hd, r = rnorm[t * H + h];
            const float p = dotf(y, d, hd);
            for (int i = 0; i < hd; i++)
                d[i] = r * (d[i] - y[i] * p);
        }
}

/* Pre-activation of the short convolution at row (b, t), channel c. */
static float conv_pre(const float *x, long ldx, const float *a, int t, int c)
{
    float s = a[3 * c] * x[c];
    if (t >= 1)
        s += a[3 * c + 1] * x[c - ldx];
    if (t >= 2)
        s += a[3 * c + 2] * x[c - 2 * ldx];
    return s;
}

void rl_path_conv_forward(float *y, long ldy, const float *x, long ldx, const float *a, int B,
                          int T, int C)
{
#pragma omp parallel for schedule(static)
    for (long r = 0; r < (long)B * T; r++)
        for (int c = 0; c < C; c++) {
            const float u = conv_pre(x + r * ldx, ldx, a, (int)(r % T), c);
            y[r * ldy + c] = u / (1.0f + expf(-u));
        }
}

/* silu'(u) = sigma(u) (1 + u (1 - sigma(u))).  With g_t = dL/du at (b, t):
 *   dx[b,t,c] = a[3c] g_t + a[3c+1] g_(t+1) + a[3c+2] g_(t+2)  (0 past the window),
 *   da[3c+k] += sum_(b,t) x[b,t-k,c] g_t,
 * one channel per thread, positions from the end of each window (carrying
 * g_(t+1), g_(t+2)), so that da's sums do not depend on the thread count. */
void rl_path_conv_backward(float *dx, long lddx, float *da, const float *dy, long lddy,
                           const float *x, long ldx, const float *a, int B, int T, int C)
{
#pragma omp parallel for schedule(static)
    for (int c = 0; c < C; c++) {
        const float *ac = a + 3 * c;
        double s[3] = { 0, 0, 0 };
        for (long b = 0; b < B; b++) {
            float g1 = 0, g2 = 0;
            for (long t = T - 1; t >= 0; t--) {
                const long r = b * T + t;
                const float u = conv_pre(x + r * ldx, ldx, a, (int)t, c);
                const float sg = 1.0f / (1.0f + expf(-u));
                const float g = dy[r * lddy + c] * sg * (1.0f + u * (1.0f - sg));
                dx[r * lddx + c] = ac[0] * g + ac[1] * g1 + ac[2] * g2;
                for (int k = 0; k < 3 && k <= t; k++)
                    s[k] += (double)x[(r - k) * ldx + c] * g;
                g2 = g1;
                g1 = g;
            }
        }
        for (int k = 0; k < 3; k++)
            da[3 * c + k] += (float)s[k];
    }
}

void rl_path_beta_forward(float *beta, const float *z, long n)
{
    for (long i = 0; i < n; i++)
        beta[i] = 2.0f / (1.0f + expf(-z[i]));
}

void rl_path_beta_backward(float *dz, const float *dbeta, const float *beta, long n)
{
    for (long i = 0; i < n; i++)
        dz[i] = dbeta[i] * beta[i] * (1.0f - 0.5f * beta[i]);
}
