/* bench_path.c: PaTH kernel timings (see bench_path.h). */
#include "bench_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../base/core/util.h"
#include "../../sampling/rng.h"
#include "../../model/attention.h"
#include "../../model/path.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* q, k, v, w (w normalised) in one buffer of row stride 4C, beta in (0, 2). */
typedef struct {
    rl_attn_shape s;
    long ld;
    float *x, *beta;
} inputs;

static inputs inputs_new(int B, int T, int H, int hd)
{
    inputs in = { { .B = B, .T = T, .H = H, .hd = hd }, 4L * H * hd, NULL, NULL };
    const long N = (long)B * T, C = (long)H * hd;
    in.x = rl_xmalloc(sizeof(float) * N * in.ld);
    in.beta = rl_xmalloc(sizeof(float) * N * H);
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    rl_rng_stream(r, 1, 0);
    for (long i = 0; i < N * in.ld; i++)
        in.x[i] = (float)rl_normal(r);
    for (long i = 0; i < N * H; i++)
        in.beta[i] = (float)(2.0 * gsl_rng_uniform(r));
    float *rn = rl_xmalloc(sizeof(float) * N * H);
    rl_path_wnorm_forward(in.x + 3 * C, rn, in.ld, N, H, hd);
    free(rn);
    return in;
}

/* What one long timing runs: the logits by one provider, or a whole
 * streaming forward (PaTH or standard). */
typedef enum { LOGITS_NAIVE, LOGITS_FAST, FWD_PATH, FWD_ATTN } long_kind;

/* Every logit of (0, 0) by the provider, query block by query block (each
 * with all its keys in one call), into a 64 x T buffer. */
static void run_logits(const inputs *in, int naive)
{
    const int T = in->s.T, hd = in->s.hd, C = in->s.H * hd;
    rl_path_ctx c = { .s = in->s, .q = in->x, .k = in->x + C, .w = in->x + 3 * C,
                      .beta = in->beta, .ld = in->ld, .ldw = in->ld, .streaming = 1 };
    rl_attn_logits lg = rl_path_logits(&c, naive);
    c.work = rl_xmalloc(sizeof(float) * c.per);
    float *S = rl_xmalloc(sizeof(float) * RL_ATTN_SQ * T);
    float *state = rl_xmalloc(sizeof(float) * lg.state_floats);
    if (lg.prepare)
        lg.prepare(&lg, 0, 0);
    for (long i0 = 0; i0 < T; i0 += RL_ATTN_SQ) {
        const long i1 = i0 + RL_ATTN_SQ < T ? i0 + RL_ATTN_SQ : T;
        lg.block(&lg, S, T, 0, 0, i0, i1, 0, i1, state);
    }
    free(S);
    free(state);
    free(c.work);
}

/* Seconds of one run of kind, the best of as many as fit in 1 s (at most
 * 5; at least one). */
static double time_long(const inputs *in, long_kind kind, float *out)
{
    const int hd = in->s.hd;
    const float *x = in->x;
    double best = 1e30, spent = 0;
    for (int rep = 0; rep < 5 && spent < 1.0; rep++) {
        double t = now();
        switch (kind) {
        case LOGITS_NAIVE:
        case LOGITS_FAST: run_logits(in, kind == LOGITS_NAIVE); break;
        case FWD_PATH:
            rl_path_forward_streaming(out, hd, x, x + hd, x + 2 * hd, in->ld, x + 3 * hd, in->ld,
                                      in->beta, &in->s);
            break;
        case FWD_ATTN:
            rl_attention_forward_streaming(out, hd, x, x + hd, x + 2 * hd, in->ld, &in->s);
            break;
        }
        t = now() - t;
        spent += t;
        best = t < best ? t : best;
    }
    return best;
}

static void bench_long(int hd, int T, int naive)
{
    inputs in = inputs_new(1, T, 1, hd);
    float *out = rl_xmalloc(sizeof(float) * T * hd);
    double t[4];
    for (int k = 0; k < 4; k++)
        t[k] = k == LOGITS_NAIVE && !naive ? 0 : time_long(&in, (long_kind)k, out);
    char nv[32] = "       -";
    if (naive)
        snprintf(nv, sizeof nv, "%8.3f", t[LOGITS_NAIVE]);
    printf("path long   hd=%-3d T=%-6d  logits naive %s s  fast %8.3f s   forward: path %8.3f s"
           "  attention %8.3f s  (x%.2f)\n", hd, T, nv, t[LOGITS_FAST], t[FWD_PATH], t[FWD_ATTN],
           t[FWD_PATH] / t[FWD_ATTN]);
    free(out);
    free(in.x);
    free(in.beta);
}

/* Milliseconds per forward + backward call of both kernels (best of n). */
static void bench_train(int B, int T, int H, int hd, int n)
{
    inputs in = inputs_new(B, T, H, hd);
    const long N = (long)B * T, C = (long)H * hd, nt = (long)B * H * T * T;
    float *out = rl_xmalloc(sizeof(float) * N * C), *att = rl_xmalloc(sizeof(float) * nt);
    float *datt = rl_xmalloc(sizeof(float) * nt), *d = rl_xmalloc(sizeof(float) * N * in.ld);
    float *dbeta = rl_xmalloc(sizeof(float) * N * H);
    float *work = rl_xmalloc(sizeof(float) * rl_path_work_floats(&in.s));
    const float *q = in.x, *k = in.x + C, *v = in.x + 2 * C, *w = in.x + 3 * C;
    double best[2][2] = { { 1e30, 1e30 }, { 1e30, 1e30 } };
    for (int it = 0; it < n; it++) {
        double t0 = now();
        rl_attention_forward(out, C, att, q, k, v, in.ld, &in.s);
        double t1 = now();
        rl_attention_backward(d, d + C, d + 2 * C, in.ld, datt, out, C, att, q, k, v, in.ld,
                              &in.s);
        double t2 = now();
        rl_path_forward(out, C, att, work, q, k, v, in.ld, w, in.ld, in.beta, &in.s);
        double t3 = now();
        rl_path_backward(d, d + C, d + 2 * C, in.ld, d + 3 * C, in.ld, dbeta, datt, work, out, C,
                         att, q, k, v, in.ld, w, in.ld, in.beta, &in.s);
        double t4 = now();
        const double ts[4] = { t1 - t0, t2 - t1, t3 - t2, t4 - t3 };
        for (int i = 0; i < 4; i++)
            best[i / 2][i % 2] = ts[i] < best[i / 2][i % 2] ? ts[i] : best[i / 2][i % 2];
    }
    printf("path train  B=%d T=%d H=%d hd=%d: attention fwd %7.2f ms bwd %7.2f ms | "
           "path fwd %7.2f ms bwd %7.2f ms  (x%.2f fwd+bwd; work %.1f MiB)\n", B, T, H, hd,
           1e3 * best[0][0], 1e3 * best[0][1], 1e3 * best[1][0], 1e3 * best[1][1],
           (best[1][0] + best[1][1]) / (best[0][0] + best[0][1]),
           rl_path_work_floats(&in.s) * 4.0 / 1048576);
    free(out); free(att); free(datt); free(d); free(dbeta); free(work);
    free(in.x);
    free(in.beta);
}

void rl_bench_path(int quick)
{
    const int hds[2] = { 32, 64 }, Ts[3] = { 1024, 4096, 16384 };
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            bench_long(hds[a], Ts[b], !quick || Ts[b] < 16384);
    if (!quick) /* the longest evaluation window; the walk would take minutes */
        bench_long(32, 65536, 0);
    bench_train(8, 128, 4, 64, quick ? 3 : 10);
    bench_train(4, 256, 6, 64, quick ? 3 : 10);
}
