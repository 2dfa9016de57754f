/* bench_model.c: model throughput against this machine's own sgemm peak. */
#include "bench_model.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "../cli/util.h"
#include "gpt.h"
#include "train.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* GFLOP/s of a large square sgemm with OpenBLAS's own threading (all
 * cores): the peak that the model's throughput is a fraction of. */
static double sgemm_peak(int n, double budget)
{
    float *a = rl_xmalloc(sizeof(float) * n * n), *b = rl_xmalloc(sizeof(float) * n * n);
    float *c = rl_xcalloc((size_t)n * n, sizeof(float));
    for (long i = 0; i < (long)n * n; i++) {
        a[i] = (float)((i * 7 % 13) - 6) / 13.0f;
        b[i] = (float)((i * 5 % 11) - 5) / 11.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    double best = 0;
    for (double t0 = now(); now() - t0 < budget;) {
        double t = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
        double g = 2.0 * n * n * (double)n / (now() - t) / 1e9;
        best = g > best ? g : best;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static void bench_eval(int L, double peak)
{
    rl_gpt_config cfg = { 4, 256, 4, 128, 256, 0.0f, RL_POS_ROPE };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    rl_gpt_init(m, 1);
    uint16_t *tok = rl_xmalloc(sizeof(uint16_t) * (L + 1));
    for (int i = 0; i <= L; i++)
        tok[i] = (uint16_t)((i * 2654435761u) >> 24);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
    double t = now();
    rl_gpt_eval_window(m, e, tok, L);
    t = now() - t;
    /* forward FLOPs: a third of the training count, causal attention halved */
    double fl = (rl_gpt_flops_per_token(&cfg, 0) / 3 + 2.0 * cfg.layers * cfg.width * L) * L;
    printf("model eval  4L w256 h4 rope T=%-6d %7.2f s  %8.0f tok/s  %6.1f GFLOP/s (%.0f%% of peak)"
           "  workspace %.0f MiB  peak RSS %.0f MiB\n", L, t, L / t, fl / t / 1e9,
           100 * fl / t / 1e9 / peak, rl_gpt_eval_bytes(e) / 1048576.0, peak_rss_mib());
    rl_gpt_eval_free(e);
    free(tok);
    rl_gpt_free(m);
}

static void bench_train(int layers, int width, int heads, int T, int B, double llmc,
                        double peak, double budget)
{
    rl_gpt_config cfg = { layers, width, heads, T, 256, 0.0f, RL_POS_NONE };
    rl_gpt *m = rl_gpt_alloc(&cfg, B);
    rl_gpt_init(m, 1);
    rl_tokens data = { rl_xmalloc(sizeof(uint16_t) * 1 << 20), 1 << 20 };
    for (long i = 0; i < data.n; i++)
        data.tok[i] = (uint16_t)(((uint32_t)i * 2654435761u) >> 24);
    rl_trainer *tr = rl_trainer_alloc(m, &data, B, 1, 1);
    rl_trainer_step(tr, 0, 1e-4, NULL); /* warm-up: first touch of the buffers */
    /* the median step time: robust to other work on the machine */
    enum { MAXN = 512 };
    double st[MAXN];
    long n = 0;
    for (double t0 = now(); n < MAXN && (now() - t0 < budget || n < 5);) {
        double t = now();
        rl_trainer_step(tr, ++n, 1e-4, NULL);
        st[n - 1] = now() - t;
    }
    qsort(st, n, sizeof *st, cmp_double);
    double dt = st[n / 2], tps = (double)B * T / dt;
    double gf = tps * rl_gpt_flops_per_token(&cfg, T) / 1e9;
    printf("model train %dL w%d h%d T=%d B=%d: %8.0f tok/s  %6.1f GFLOP/s  %4.0f%% of peak  "
           "%.2fx llm.c (%.0f tok/s)  median of %ld steps %.0f ms\n", layers, width, heads, T, B,
           tps, gf, 100 * gf / peak, tps / llmc, llmc, n, 1e3 * dt);
    fflush(stdout);
    rl_trainer_free(tr);
    free(data.tok);
    rl_gpt_free(m);
}

void rl_bench_model(int quick)
{
    rl_set_threads(rl_ncores());
    double peak = sgemm_peak(2048, quick ? 1.0 : 3.0);
    printf("model sgemm peak (2048^3, %d threads, OpenBLAS, best of a %.0f s run): %.1f GFLOP/s\n",
           rl_ncores(), quick ? 1.0 : 3.0, peak);
    fflush(stdout);
    bench_eval(16384, peak);
    bench_train(4, 256, 4, 128, 8, 1358, peak, quick ? 3 : 10);
    bench_train(6, 384, 6, 256, 4, 354, peak, quick ? 3 : 10);
    rl_set_threads(1);
}
