/* peak.c: the sgemm peak of the loaded kernel set (see peak.h). */
#include "peak.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../base/core/blas_arch.h"
#include "../../base/core/util.h"

double rl_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double rl_bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* 2 n^3 FLOPs per C = A B, n = 2048 (large enough that packing is noise). */
double rl_bench_sgemm(double budget, int cpu)
{
    const int n = 2048;
    float *a = rl_xmalloc(sizeof(float) * n * n), *b = rl_xmalloc(sizeof(float) * n * n);
    float *c = rl_xcalloc((size_t)n * n, sizeof(float));
    for (long i = 0; i < (long)n * n; i++) {
        a[i] = (float)((i * 7 % 13) - 6) / 13.0f;
        b[i] = (float)((i * 5 % 11) - 5) / 11.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    double best = 0;
    for (double t0 = rl_bench_now(); rl_bench_now() - t0 < budget;) {
        double t = cpu ? rl_bench_cpu_now() : rl_bench_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
        double g = 2.0 * n * n * (double)n / ((cpu ? rl_bench_cpu_now() : rl_bench_now()) - t) / 1e9;
        best = g > best ? g : best;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

void rl_bench_peak_sample(rl_bench_peak *p, double budget)
{
    if (p->n < RL_BENCH_PEAK_MAX)
        p->g[p->n++] = rl_bench_sgemm(budget, p->cpu);
}

double rl_bench_peak_value(const rl_bench_peak *p)
{
    double m = 0;
    for (int i = 0; i < p->n; i++)
        m = p->g[i] > m ? p->g[i] : m;
    return m;
}

void rl_bench_print_kernels(void)
{
    const char *env = getenv("OPENBLAS_CORETYPE");
    if (env)
        printf("# OpenBLAS kernels: %s (pinned: OPENBLAS_CORETYPE=%s; every fraction below is of this set's "
               "peak, measured in this run)\n", rl_blas_core(), env);
    else
        printf("# OpenBLAS kernels: %s (OpenBLAS's own choice; every fraction below is of this set's peak, "
               "measured in this run)\n", rl_blas_core());
}

void rl_bench_peak_print(const char *label, const rl_bench_peak *p)
{
    double hi = rl_bench_peak_value(p), lo = hi;
    printf("%s sgemm peak (2048^3, %d thread%s, %s, %s kernels): %.1f GFLOP/s, the largest of %d samples",
           label, p->threads, p->threads == 1 ? "" : "s", p->cpu ? "CPU time" : "wall time", rl_blas_core(),
           hi, p->n);
    for (int i = 0; i < p->n; i++) {
        printf("%s%.1f", i ? " " : " (", p->g[i]);
        lo = p->g[i] < lo ? p->g[i] : lo;
    }
    printf("; spread %.0f%%)\n", hi > 0 ? 100 * (hi - lo) / hi : 0.0);
}
