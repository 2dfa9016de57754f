/* test_model_path.c: PaTH attention (model/path.h).
 *
 * - the naive walk's backward and the whole fast kernel (softmax, P V, the
 *   w normalisation and beta = 2 sigmoid(z) included) against central
 *   differences;
 * - the blockwise fast path against the naive walk (logits and gradients);
 * - streaming forward against the training forward;
 * - beta = 0 (every H = I) is standard attention;
 * - beta = 2 with one fixed w is a reflection: l_ij alternates with i - j;
 * - the same bits with 1 and 2 threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/attention.h"
#include "../model/path.h"
#include "test_model_util.h"

/* One PaTH problem: B windows of T, H heads of hd; q, k, v in one buffer of
 * row stride 3C, w (normalised from wraw) in its own of row stride C, as
 * the model has them; beta = 2 sigmoid(z). */
typedef struct {
    rl_attn_shape s;
    int C;
    long N, ld;
    float *qkv, *w, *wraw, *rnorm, *z, *beta, *out, *att, *datt, *work, *R;
    float *d, *dw, *dbeta; /* gradients: d like qkv, dw like w */
} prob;

static prob prob_new(int B, int T, int H, int hd, uint64_t seed, float zsd)
{
    prob p = { .s = { B, T, H, hd, NULL }, .C = H * hd };
    p.N = (long)B * T;
    p.ld = 3L * p.C;
    const long NC = p.N * p.C, nt = (long)B * H * T * T, nz = p.N * H;
    p.qkv = calloc(p.N * p.ld, sizeof(float));
    p.d = calloc(p.N * p.ld, sizeof(float));
    p.w = calloc(NC, sizeof(float));
    p.dw = calloc(NC, sizeof(float));
    p.wraw = malloc(sizeof(float) * NC);
    p.out = malloc(sizeof(float) * NC);
    p.R = malloc(sizeof(float) * NC);
    p.rnorm = malloc(sizeof(float) * nz);
    p.z = malloc(sizeof(float) * nz);
    p.beta = malloc(sizeof(float) * nz);
    p.dbeta = malloc(sizeof(float) * nz);
    p.att = T <= 2048 ? malloc(sizeof(float) * nt) : NULL; /* the T x T buffers */
    p.datt = T <= 2048 ? malloc(sizeof(float) * nt) : NULL;
    p.work = malloc(sizeof(float) * rl_path_work_floats(&p.s));
    tm_randn(p.qkv, p.N * p.ld, seed, 1.0f);
    tm_randn(p.wraw, NC, seed + 1, 1.0f);
    tm_randn(p.z, nz, seed + 2, zsd);
    tm_randn(p.R, NC, seed + 3, 1.0f);
    return p;
}

static void prob_free(prob *p)
{
    free(p->qkv); free(p->d); free(p->w); free(p->dw); free(p->wraw); free(p->out); free(p->R); free(p->rnorm);
    free(p->z); free(p->beta); free(p->dbeta); free(p->att); free(p->datt); free(p->work);
}

/* w and beta from their raw forms (the model's inputs to the kernel). */
static void prob_inputs(prob *p)
{
    memcpy(p->w, p->wraw, sizeof(float) * p->N * p->C);
    rl_path_wnorm_forward(p->w, p->rnorm, p->C, p->N, p->s.H, p->s.hd);
    rl_path_beta_forward(p->beta, p->z, p->N * p->s.H);
}

static float *Q(prob *p) { return p->qkv; }
static float *K(prob *p) { return p->qkv + p->C; }
static float *V(prob *p) { return p->qkv + 2 * p->C; }

static double dotd(const float *a, const float *b, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* Context of the provider over p (gradients into p->d, p->dbeta). */
static rl_path_ctx prob_ctx(prob *p)
{
    rl_path_ctx c = { .s = p->s, .q = Q(p), .k = K(p), .w = p->w, .beta = p->beta,
                      .ld = p->ld, .ldw = p->C, .dq = p->d, .dk = p->d + p->C, .dw = p->dw,
                      .dbeta = p->dbeta, .ldd = p->ld, .lddw = p->C, .work = p->work };
    return c;
}

/* All B*H logit triangles (T x T, upper part zeroed) of a provider. */
static void logits_of(prob *p, int naive, float *S)
{
    rl_path_ctx c = prob_ctx(p);
    rl_attn_logits lg = rl_path_logits(&c, naive);
    const int T = p->s.T;
    for (int bh = 0; bh < p->s.B * p->s.H; bh++) {
        float *Sb = S + (long)bh * T * T;
        if (lg.prepare)
            lg.prepare(&lg, bh / p->s.H, bh % p->s.H);
        lg.block(&lg, Sb, T, bh / p->s.H, bh % p->s.H, 0, T, 0, T, NULL);
        for (long i = 0; i < T; i++)
            for (long j = i + 1; j < T; j++)
                Sb[i * T + j] = 0.0f;
    }
}

/* The provider's gradient from G = dL/dS (lower triangles) into p->d, p->dbeta. */
static void logits_grad(prob *p, int naive, const float *G)
{
    rl_path_ctx c = prob_ctx(p);
    rl_attn_logits lg = rl_path_logits(&c, naive);
    const long TT = (long)p->s.T * p->s.T;
    for (int bh = 0; bh < p->s.B * p->s.H; bh++)
        lg.grad(&lg, G + bh * TT, bh / p->s.H, bh % p->s.H);
}

static double max_abs_diff(const float *a, const float *b, long n, long stride, long w)
{
    double m = 0;
    for (long r = 0; r < n; r++)
        for (long i = 0; i < w; i++)
            m = fmax(m, fabs((double)a[r * stride + i] - b[r * stride + i]));
    return m;
}

static double max_abs(const float *a, long n)
{
    double m = 0;
    for (long i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* ---- finite differences ------------------------------------------------ *
 * Relative error ||num - ana|| / ||num|| over the 6 coordinates of largest
 * |ana| and every stride-th one, num = (L(x+e) - L(x-e)) / 2e, e = 1e-2 (L
 * summed in double, float forward: rounding noise ~1e-5, truncation
 * O(e^2) ~ 1e-4 relative).  Bound 1e-2: a wrong sign gives 2, a missing
 * term (a transport, a masked part, one of the two terms of dw) an error
 * of order 1 on the coordinates it touches, and the largest coordinates
 * are always among those checked. */
typedef double (*loss_fn)(void *ctx);

/* x and ana are views of rows x width entries, row stride ldx; the checked
 * coordinates are numbered k = row * width + col. */
static double fd_err(loss_fn f, void *p, float *x, const float *ana, long rows, long width,
                     long ldx, long stride, const char *what)
{
    const float e = 1e-2f;
    const long n = rows * width;
#define AT(k) ((k) / width * ldx + (k) % width)
    long pick[6] = { -1, -1, -1, -1, -1, -1 };
    for (int j = 0; j < 6; j++)
        for (long k = 0; k < n; k++) {
            int used = 0;
            for (int l = 0; l < j; l++)
                used |= pick[l] == k;
            if (!used && (pick[j] < 0 || fabsf(ana[AT(k)]) > fabsf(ana[AT(pick[j])])))
                pick[j] = k;
        }
    double num2 = 0, diff2 = 0;
    for (long t = -6; t < n; t += t < 0 ? 1 : stride) {
        const long k = t < 0 ? pick[t + 6] : t;
        if (k < 0)
            continue;
        const long i = AT(k);
        const float keep = x[i];
        x[i] = keep + e;
        const double lp = f(p);
        x[i] = keep - e;
        const double lm = f(p);
        x[i] = keep;
        const double num = (lp - lm) / (2.0 * e);
        num2 += num * num;
        diff2 += (num - ana[i]) * (num - ana[i]);
    }
#undef AT
    const double err = sqrt(diff2) / (sqrt(num2) + 1e-12);
    cr_log_info("%s: relative error %.2e (norm %.3e)", what, err, sqrt(num2));
    return err;
}

/* G = dL/dS: random lower triangles (in p->datt). */
static void random_lower(prob *p, uint64_t seed)
{
    const int T = p->s.T;
    const long TT = (long)T * T;
    tm_randn(p->datt, p->s.B * p->s.H * TT, seed, 1.0f);
    for (int bh = 0; bh < p->s.B * p->s.H; bh++)
        for (long i = 0; i < T; i++)
            for (long j = i + 1; j < T; j++)
                p->datt[bh * TT + i * T + j] = 0.0f;
}

/* L = sum_(j <= i) G_ij l_ij of the naive logits of the kernel's own inputs
 * (w not renormalised: the walk is defined for any w). */
static double naive_logit_loss(void *ctx)
{
    prob *p = ctx;
    logits_of(p, 1, p->att);
    return dotd(p->att, p->datt, (long)p->s.B * p->s.H * p->s.T * p->s.T);
}

/* The naive walk's reverse mode (the derivation in path.c) against central
 * differences, for q, k, w and beta. */
Test(model_path, naive_grad)
{
    prob p = prob_new(2, 9, 2, 4, 21, 1.0f);
    prob_inputs(&p);
    random_lower(&p, 22);
    logits_grad(&p, 1, p.datt);
    const long n = p.N * p.ld, nw = p.N * p.C, nb = p.N * p.s.H;
    cr_expect_lt(fd_err(naive_logit_loss, &p, p.qkv, p.d, 1, n, n, 1, "naive dq, dk"), 1e-2);
    cr_expect_lt(fd_err(naive_logit_loss, &p, p.w, p.dw, 1, nw, nw, 1, "naive dw"), 1e-2);
    cr_expect_lt(fd_err(naive_logit_loss, &p, p.beta, p.dbeta, 1, nb, nb, 1, "naive dbeta"), 1e-2);
    prob_free(&p);
}

/* Fast == naive: logits to 1e-5 of their scale and the gradients of a
 * random G to 1e-4 (norm-wise), for lengths below, at and across the
 * 64-blocks (partial last block, several transports); the last case with
 * strongly correlated w (a common direction twice the noise: cosines
 * about 0.8), where the blockwise form's X is far from diagonal. */
Test(model_path, fast_equals_naive)
{
    const int Ts[] = { 1, 5, 64, 65, 150, 300, 300 };
    for (int t = 0; t < 7; t++) {
        const int T = Ts[t];
        prob p = prob_new(2, T, 2, 16, 31 + t, 1.5f);
        if (t == 6) {
            float common[32];
            tm_randn(common, 32, 39, 2.0f);
            for (long r = 0; r < p.N; r++)
                for (int c = 0; c < 32; c++)
                    p.wraw[r * 32 + c] += common[c];
        }
        prob_inputs(&p);
        const long nt = 4L * T * T, n = p.N * p.ld, nw = p.N * p.C, nb = p.N * 2;
        float *S1 = malloc(sizeof(float) * nt), *S2 = malloc(sizeof(float) * nt);
        logits_of(&p, 0, S1);
        logits_of(&p, 1, S2);
        const double dl = max_abs_diff(S1, S2, 1, 0, nt), scale = max_abs(S2, nt);
        cr_log_info("T=%d%s: max |fast - naive| logit %.2e (max logit %.2f)", T,
                    t == 6 ? " correlated w" : "", dl, scale);
        cr_expect_lt(dl, 1e-5 * scale, "T=%d logits: %g", T, dl);
        random_lower(&p, 40 + t);
        const long ng = n + nw + nb;
        float *g[2] = { malloc(sizeof(float) * ng), malloc(sizeof(float) * ng) };
        for (int naive = 0; naive < 2; naive++) {
            logits_grad(&p, naive, p.datt);
            memcpy(g[naive], p.d, sizeof(float) * n);
            memcpy(g[naive] + n, p.dw, sizeof(float) * nw);
            memcpy(g[naive] + n + nw, p.dbeta, sizeof(float) * nb);
        }
        const float *g1 = g[0], *g2 = g[1];
        double num = 0, den = 0;
        for (long i = 0; i < ng; i++) {
            num += ((double)g1[i] - g2[i]) * ((double)g1[i] - g2[i]);
            den += (double)g2[i] * g2[i];
        }
        cr_log_info("T=%d: |grad fast - naive| / |grad| = %.2e", T, sqrt(num / den));
        cr_expect_lt(sqrt(num / den), 1e-4, "T=%d gradients", T);
        free(S1); free(S2); free(g[0]); free(g[1]);
        prob_free(&p);
    }
}

/* Far from the start: the logits of whole query blocks at the end and in
 * the middle of 8,192 positions (127 transports for the last), by the
 * streaming path's provider (its own layout, one key call from the
 * diagonal to 0), against the walk of every 5th query, to 1e-5 of their
 * scale: the sweep accumulates no error (every B_n is a contraction;
 * measured 1e-6 at 65,536 in docs/model/path.md#path-accuracy). */
Test(model_path, long_window_equals_naive)
{
    const int T = 8192;
    prob p = prob_new(1, T, 1, 16, 101, 1.5f);
    prob_inputs(&p);
    rl_path_ctx cf = prob_ctx(&p), cn = cf;
    cf.streaming = 1;
    rl_attn_logits lf = rl_path_logits(&cf, 0), ln = rl_path_logits(&cn, 1);
    cf.work = malloc(sizeof(float) * cf.per);
    float *state = malloc(sizeof(float) * lf.state_floats);
    float *Sf = malloc(sizeof(float) * RL_ATTN_SQ * T), *row = malloc(sizeof(float) * T);
    lf.prepare(&lf, 0, 0);
    const long starts[2] = { T - RL_ATTN_SQ, T / 2 + RL_ATTN_SQ };
    for (int b = 0; b < 2; b++) {
        const long i0 = starts[b], i1 = i0 + RL_ATTN_SQ;
        lf.block(&lf, Sf, T, 0, 0, i0, i1, 0, i1, state);
        double md = 0, ms = 0;
        for (long i = i0; i < i1; i += 5) {
            ln.block(&ln, row, T, 0, 0, i, i + 1, 0, i + 1, NULL);
            for (long j = 0; j <= i; j++) {
                md = fmax(md, fabs((double)row[j] - Sf[(i - i0) * T + j]));
                ms = fmax(ms, fabs(row[j]));
            }
        }
        cr_log_info("T=%d, queries %ld..: max |fast - naive| %.2e (max logit %.2f)", T, i0, md,
                    ms);
        cr_expect_lt(md, 1e-5 * ms, "queries from %ld: %g", i0, md);
    }
    free(cf.work);
    free(state);
    free(Sf);
    free(row);
    prob_free(&p);
}

/* L = sum out . R of the fast kernel, from the raw w and z. */
static double kernel_loss(void *ctx)
{
    prob *p = ctx;
    prob_inputs(p);
    rl_path_forward(p->out, p->C, p->att, p->work, Q(p), K(p), V(p), p->ld, p->w, p->C, p->beta,
                    &p->s);
    return dotd(p->out, p->R, p->N * p->C);
}

/* The whole fast kernel (softmax and P V shared with attention.c), with the
 * normalisation of w and beta = 2 sigmoid(z) in front: gradients of q, k,
 * v (each part on its own, so a missing term in one is not hidden by the
 * others), the raw w and z against central differences; three blocks (two
 * transports), ALiBi off and on. */
Test(model_path, kernel_grad)
{
    float slopes[2] = { 0.3f, 0.05f };
    const char *names[3] = { "dq", "dk", "dv" };
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1); /* 300 small forwards: threads only contend */
    for (int al = 0; al < 2; al++) {
        prob p = prob_new(2, 140, 2, 8, 51 + al, 1.5f);
        p.s.slopes = al ? slopes : NULL;
        kernel_loss(&p);
        rl_path_backward(p.d, p.d + p.C, p.d + 2 * p.C, p.ld, p.dw, p.C, p.dbeta, p.datt, p.work,
                         p.R, p.C, p.att, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
        rl_path_wnorm_backward(p.dw, p.C, p.w, p.C, p.rnorm, p.N, 2, 8);
        rl_path_beta_backward(p.dbeta, p.dbeta, p.beta, p.N * 2);
        const long NC = p.N * p.C;
        char what[64];
        for (int part = 0; part < 3; part++) {
            snprintf(what, sizeof what, "kernel %s%s", names[part], al ? " (alibi)" : "");
            cr_expect_lt(fd_err(kernel_loss, &p, p.qkv + part * p.C, p.d + part * p.C, p.N,
                                p.C, p.ld, 61, what),
                         1e-2, "%s", what);
        }
        snprintf(what, sizeof what, "kernel dw_raw%s", al ? " (alibi)" : "");
        cr_expect_lt(fd_err(kernel_loss, &p, p.wraw, p.dw, 1, NC, NC, 37, what), 1e-2, "%s", what);
        snprintf(what, sizeof what, "kernel dz%s", al ? " (alibi)" : "");
        cr_expect_lt(fd_err(kernel_loss, &p, p.z, p.dbeta, 1, p.N * 2, p.N * 2, 7, what), 1e-2,
                     "%s", what);
        prob_free(&p);
    }
    omp_set_num_threads(threads);
}

/* Streaming forward == training forward to 1e-5 (outputs are O(1)), for
 * lengths that are not multiples of the 64-query / 512-key blocks and span
 * several key blocks (the running query carried from one to the next),
 * with and without ALiBi; larger z (beta near 0 and 2) too. */
Test(model_path, streaming_equals_training)
{
    float slopes[2] = { 0.5f, 0.0625f };
    const int Ts[] = { 1, 63, 200, 1100 };
    for (int t = 0; t < 4; t++)
        for (int v = 0; v < 3; v++) {
            prob p = prob_new(2, Ts[t], 2, 16, 61 + t, v == 2 ? 4.0f : 1.0f);
            p.s.slopes = v == 1 ? slopes : NULL;
            prob_inputs(&p);
            float *o2 = malloc(sizeof(float) * p.N * p.C);
            rl_path_forward(p.out, p.C, p.att, p.work, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta,
                            &p.s);
            rl_path_forward_streaming(o2, p.C, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
            const double md = max_abs_diff(p.out, o2, 1, 0, p.N * p.C);
            cr_log_info("T=%d variant %d: max |training - streaming| = %.2e", Ts[t], v, md);
            cr_expect_lt(md, 1e-5, "T=%d variant %d: %g", Ts[t], v, md);
            free(o2);
            prob_free(&p);
        }
}

/* beta = 0: every H_t = I, PaTH is standard attention.  The logits of the
 * fast path are then s q_i.k_j formed by the same sgemm on 64 x 64 tiles
 * (X = 0, so every correction subtracts an exact zero), so outputs agree
 * to float rounding of the tile order; the w gradient is exactly 0 (every
 * term has a factor beta).  dbeta is the first-order effect of turning the
 * reflections on, not checked here. */
Test(model_path, beta_zero_is_attention)
{
    prob p = prob_new(2, 150, 2, 16, 71, 1.0f);
    prob_inputs(&p);
    memset(p.beta, 0, sizeof(float) * p.N * 2);
    const long NC = p.N * p.C;
    float *o = malloc(sizeof(float) * NC), *att = malloc(sizeof(float) * 4 * 150 * 150);
    float *d = calloc(p.N * p.ld, sizeof(float));
    rl_path_forward(p.out, p.C, p.att, p.work, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
    rl_attention_forward(o, p.C, att, Q(&p), K(&p), V(&p), p.ld, &p.s);
    const double df = max_abs_diff(p.out, o, 1, 0, NC);
    rl_path_forward_streaming(p.out, p.C, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
    const double ds = max_abs_diff(p.out, o, 1, 0, NC);
    rl_path_backward(p.d, p.d + p.C, p.d + 2 * p.C, p.ld, p.dw, p.C, p.dbeta, p.datt, p.work, p.R,
                     p.C, p.att, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
    rl_attention_backward(d, d + p.C, d + 2 * p.C, p.ld, p.datt, p.R, p.C, att, Q(&p), K(&p),
                          V(&p), p.ld, &p.s);
    const double dg = max_abs_diff(p.d, d, p.N, p.ld, 3 * p.C);
    const double gs = max_abs(d, p.N * p.ld);
    const double dw = max_abs(p.dw, NC);
    cr_log_info("beta=0: forward %.2e, streaming %.2e, dq/dk/dv %.2e (of %.2f), dw %.2e", df,
                ds, dg, gs, dw);
    cr_expect_lt(df, 1e-6, "forward %g", df);
    cr_expect_lt(ds, 1e-6, "streaming %g", ds);
    cr_expect_lt(dg, 1e-6 * gs, "gradients %g", dg);
    cr_expect(dw == 0.0, "dw %g", dw);
    free(o); free(att); free(d);
    prob_free(&p);
}

/* beta = 2 and one unit w for every position: H = I - 2 w w^T is the
 * reflection R, R^2 = I, so l_ij = s q_i.k_j for even i - j and
 * s q_i.(R k_j) for odd.  By hand, hd = 2, w = (1, 0), R = diag(-1, 1),
 * q_2 = (1, 2), k_0 = (3, 4): l_20 = (3 + 8)/sqrt 2 = 11/sqrt 2 and, with
 * q_1 = q_2, l_10 = (-3 + 8)/sqrt 2 = 5/sqrt 2.  Then the same law on 300
 * positions (five blocks, transports through reflections) for both paths:
 * the walk to 1e-5; the fast path to 1e-3, since this is the worst case of
 * the compact WY form in float (identical w: X has alternating entries of
 * size 4 that the block's products cancel; measured 2.4e-4 on logits up to
 * 4, against 3e-6 with beta random in (0, 2), see docs/model/path.md#path-accuracy).  Getting
 * the parity wrong anywhere costs 2 (q.w)(w.k)/sqrt(8), of order 1. */
Test(model_path, reflection)
{
    prob p = prob_new(1, 3, 1, 2, 81, 1.0f);
    const float rows[3][6] = { { 0, 0, 3, 4, 0, 0 }, { 1, 2, 0, 0, 0, 0 }, { 1, 2, 0, 0, 0, 0 } };
    for (int t = 0; t < 3; t++) { /* q, k, v; w = (1, 0) */
        memcpy(p.qkv + t * p.ld, rows[t], sizeof rows[t]);
        p.w[2 * t] = 1.0f;
        p.w[2 * t + 1] = 0.0f;
        p.beta[t] = 2.0f;
    }
    float S[9];
    for (int naive = 0; naive < 2; naive++) {
        logits_of(&p, naive, S);
        cr_expect_float_eq(S[2 * 3 + 0], 11.0f / sqrtf(2.0f), 1e-6f, "l_20 (naive %d)", naive);
        cr_expect_float_eq(S[1 * 3 + 0], 5.0f / sqrtf(2.0f), 1e-6f, "l_10 (naive %d)", naive);
    }
    prob_free(&p);

    const int T = 300, hd = 8;
    p = prob_new(1, T, 1, hd, 82, 1.0f);
    float w[8];
    tm_randn(w, hd, 83, 1.0f);
    const float nw = sqrtf((float)dotd(w, w, hd));
    for (int t = 0; t < T; t++) {
        for (int c = 0; c < hd; c++)
            p.w[t * hd + c] = w[c] / nw;
        p.beta[t] = 2.0f;
    }
    float *L = malloc(sizeof(float) * T * T);
    for (int naive = 0; naive < 2; naive++) {
        logits_of(&p, naive, L);
        double worst = 0;
        for (int i = 0; i < T; i++)
            for (int j = 0; j <= i; j++) {
                const float *q = p.qkv + i * p.ld, *k = p.qkv + j * p.ld + hd, *u = p.w;
                double ref = dotd(q, k, hd);
                if ((i - j) % 2)
                    ref -= 2 * dotd(q, u, hd) * dotd(u, k, hd);
                worst = fmax(worst, fabs(ref / sqrt(hd) - L[i * T + j]));
            }
        cr_log_info("reflection T=%d (naive %d): max error %.2e", T, naive, worst);
        cr_expect_lt(worst, naive ? 1e-5 : 1e-3, "naive %d: %g", naive, worst);
    }
    free(L);
    prob_free(&p);
}

/* Forward, backward and streaming: the same bits with 1 and 2 threads. */
Test(model_path, thread_count_independent)
{
    float *keep[2][3];
    long n[3];
    const int threads = omp_get_max_threads();
    for (int th = 0; th < 2; th++) {
        omp_set_num_threads(th + 1);
        prob p = prob_new(2, 200, 3, 16, 91, 1.5f);
        prob_inputs(&p);
        rl_path_forward(p.out, p.C, p.att, p.work, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta,
                        &p.s);
        rl_path_backward(p.d, p.d + p.C, p.d + 2 * p.C, p.ld, p.dw, p.C, p.dbeta, p.datt, p.work,
                         p.R, p.C, p.att, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta, &p.s);
        n[0] = p.N * p.C;
        n[1] = p.N * p.ld + p.N * p.C + p.N * 3;
        n[2] = p.N * p.C;
        for (int k = 0; k < 3; k++)
            keep[th][k] = malloc(sizeof(float) * n[k]);
        memcpy(keep[th][0], p.out, sizeof(float) * n[0]);
        memcpy(keep[th][1], p.d, sizeof(float) * p.N * p.ld);
        memcpy(keep[th][1] + p.N * p.ld, p.dw, sizeof(float) * p.N * p.C);
        memcpy(keep[th][1] + p.N * (p.ld + p.C), p.dbeta, sizeof(float) * p.N * 3);
        rl_path_forward_streaming(keep[th][2], p.C, Q(&p), K(&p), V(&p), p.ld, p.w, p.C, p.beta,
                                  &p.s);
        prob_free(&p);
    }
    const char *what[3] = { "forward", "gradients", "streaming" };
    omp_set_num_threads(threads);
    for (int k = 0; k < 3; k++) {
        cr_expect(memcmp(keep[0][k], keep[1][k], sizeof(float) * n[k]) == 0,
                  "%s differs between 1 and 2 threads", what[k]);
        free(keep[0][k]);
        free(keep[1][k]);
    }
}

/* ---- the optional short convolution on w ---- */
typedef struct {
    int B, T, C;
    float *x, *a, *y, *R;
} conv_ctx;

static double conv_loss(void *ctx)
{
    conv_ctx *c = ctx;
    rl_path_conv_forward(c->y, c->C, c->x, 2L * c->C, c->a, c->B, c->T, c->C);
    return dotd(c->y, c->R, (long)c->B * c->T * c->C);
}

/* Causal width-3 depthwise convolution + SiLU: dx and da against central
 * differences (x with row stride 2C, windows of 5 so the causal edge
 * matters); and a = (1, 0, 0) gives silu(x) exactly. */
Test(model_path, conv_grad)
{
    conv_ctx c = { 2, 5, 6, NULL, NULL, NULL, NULL };
    const long N = 10, n = N * 12;
    float *buf = calloc(2 * n + 2 * 18 + 3 * N * 6, sizeof(float));
    c.x = buf;
    c.a = buf + n;
    c.y = c.a + 18;
    c.R = c.y + N * 6;
    float *dx = c.R + N * 6, *da = dx + n;
    tm_randn(c.x, n, 111, 1.5f);
    tm_randn(c.a, 18, 112, 1.0f);
    tm_randn(c.R, N * 6, 113, 1.0f);
    rl_path_conv_backward(dx, 12, da, c.R, 6, c.x, 12, c.a, 2, 5, 6);
    cr_expect_lt(fd_err(conv_loss, &c, c.x, dx, N, 6, 12, 1, "conv dx"), 1e-2);
    cr_expect_lt(fd_err(conv_loss, &c, c.a, da, 1, 18, 18, 1, "conv da"), 1e-2);
    for (int k = 0; k < 18; k++)
        c.a[k] = k % 3 == 0;
    conv_loss(&c);
    double worst = 0;
    for (long r = 0; r < N; r++)
        for (int j = 0; j < 6; j++) {
            const double u = c.x[r * 12 + j];
            worst = fmax(worst, fabs(c.y[r * 6 + j] - u / (1 + exp(-u))));
        }
    cr_expect_lt(worst, 1e-6, "a = (1, 0, 0): %g", worst);
    free(buf);
}
