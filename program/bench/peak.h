/* peak.h: the sgemm peak that `routelab bench` divides by, and its clocks.
 *
 * The peak is the loaded kernel set's (OpenBLAS picks its kernels when it is
 * loaded: OPENBLAS_CORETYPE, or its own reading of the CPU), measured in the
 * same run several times between the workloads, so that its own noise is
 * printed beside every fraction (docs/speed/eval-and-training.md#speed). */
#ifndef RL_BENCH_PEAK_H
#define RL_BENCH_PEAK_H

double rl_bench_now(void);     /* wall seconds (monotonic) */
double rl_bench_cpu_now(void); /* the process's CPU seconds */

/* GFLOP/s of a 2048^3 sgemm, best of budget seconds, on the threads set
 * (rl_set_threads): wall time, or the process's CPU time when cpu is set
 * (on one thread: the one-core peak, the figure other work disturbs least). */
double rl_bench_sgemm(double budget, int cpu);

enum { RL_BENCH_PEAK_MAX = 8 };

/* A peak sampled n times in one run. */
typedef struct {
    double g[RL_BENCH_PEAK_MAX];
    int n, threads, cpu;
} rl_bench_peak;

/* One more sample (ignored past RL_BENCH_PEAK_MAX). */
void rl_bench_peak_sample(rl_bench_peak *p, double budget);

/* The largest sample: the denominator of every fraction (other work on the
 * machine can lower a sample, never raise it, so the largest is the least
 * disturbed and the fractions are not inflated). */
double rl_bench_peak_value(const rl_bench_peak *p);

/* "the loaded kernel set" line: OpenBLAS's core name and who chose it. */
void rl_bench_print_kernels(void);

/* One line: the samples, their largest, and the spread (max - min) / max. */
void rl_bench_peak_print(const char *label, const rl_bench_peak *p);

#endif
