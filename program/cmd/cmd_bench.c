/* cmd_bench.c: `routelab bench`, speed measured against this machine's own
 * LAPACK (the floor a Haar sampler cannot beat) and per-step costs. */
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "../../base/core/opts.h"
#include "../../base/core/blas_arch.h"
#include "../../base/core/util.h"
#include "../../sampling/haar.h"
#include "../../sampling/rng.h"
#include "../../sampling/steps.h"
#include "../bench/bench_model.h"
#include "../bench/bench_prune.h"
#include "../bench/bench_path.h"
#include "../bench/bench_ranks.h"
#include "../bench/peak.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Haar samples per second at dimension d, and the time LAPACK's QR alone
 * (dgeqrf + dorgqr) takes on the same Gaussian matrices, in the same run. */
static void bench_haar(int d, double budget)
{
    rl_haar_workspace *w = rl_haar_alloc(d);
    if (!w)
        rl_fatal("out of memory allocating a Haar workspace (d = %d)", d);
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    const long d2 = (long)d * d;
    double *U = rl_xmalloc(sizeof(double) * d2), *G = rl_xmalloc(sizeof(double) * d2);
    /* calibrate the repetition count on the sampler */
    long n = 0;
    double t0 = now(), t;
    rl_err err;
    rl_rng_stream(r, 7, 0);
    do {
        rl_check_in("bench", rl_haar_draw(w, r, 0, U, &err), &err);
        n++;
    } while ((t = now() - t0) < budget / 4);
    n = (long)(n * (budget / 2) / t) + 1;

    /* sampler: Gaussian fill + QR + sign correction */
    rl_rng_stream(r, 7, 1);
    t0 = now();
    for (long i = 0; i < n; i++)
        rl_check_in("bench", rl_haar_draw(w, r, 0, U, &err), &err);
    double t_samp = now() - t0;

    /* floor: LAPACK's QR alone on a Gaussian matrix (copy excluded by
     * subtracting a timed copy loop) */
    rl_rng_stream(r, 7, 2);
    rl_ziggurat_fill(&w->zig, r, G, d2);
    t0 = now();
    for (long i = 0; i < n; i++) {
        memcpy(U, G, sizeof(double) * d2);
        LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, d, d, U, d, w->tau, w->work, w->lwork);
        LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, d, d, d, U, d, w->tau, w->work, w->lwork);
    }
    double t_qr = now() - t0;
    t0 = now();
    for (long i = 0; i < n; i++) {
        memcpy(U, G, sizeof(double) * d2);
        __asm__ volatile("" ::: "memory");
    }
    t_qr -= now() - t0;
    printf("haar     d=%-5d %10.0f samples/s   LAPACK QR floor %10.0f /s   ratio %.3f\n", d, n / t_samp,
           n / t_qr, t_samp / t_qr);
    free(U);
    free(G);
    rl_haar_free(w);
}

/* ns per step (draw + apply to one vector) and ns per step per dimension:
 * a constant last column is O(d) per step. */
static void bench_steps(rl_family_kind kind, int d, double budget)
{
    rl_family f = rl_family_default(kind, d);
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    if (!s)
        rl_fatal("out of memory allocating a stepper (d = %d)", d);
    rl_rng_local r_l; /* no allocation: nothing to fail (sampling/rng.h) */
    gsl_rng *r = rl_rng_local_init(&r_l);
    double *x = rl_xcalloc(d, sizeof(double));
    x[0] = 1;
    rl_rng_stream(r, 7, 3);
    long n = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < 64; i++) {
            rl_stepper_draw(s, r, 0);
            rl_stepper_apply(s, 0, x, 1);
        }
        n += 64;
    } while ((t = now() - t0) < budget);
    rl_err err;
    rl_check_in("bench", rl_stepper_status(s, &err), &err);
    printf("step     %-12s d=%-5d %9.1f ns/step   %7.3f ns/step/d\n", rl_family_name(kind), d,
           1e9 * t / n, 1e9 * t / n / d);
    free(x);
    rl_stepper_free(s);
}

int cmd_bench(int argc, char **argv)
{
    int quick = 0, what = 0;
    const char *ckpt = NULL, *data = "data/brown";
    double eps = 1e-6;
    rl_opt opts[] = {
        RL_OPT_CHOICE_("what", &what, "which benchmarks", "all|haar|steps|model|path|ranks|prune"),
        RL_OPT_FLAG_("quick", &quick, "shorter runs (less precise)"),
        RL_OPT_STR_("ckpt", &ckpt, "prune: a trained ALiBi checkpoint (make bench trains one)"),
        RL_OPT_STR_("data", &data, "prune: its data set (the window: the first tokens of its validation stream)"),
        RL_OPT_DBL_("prune-eps", &eps, "prune: the pruned run's eps (eval --prune-eps)", 0, 1,
                    RL_LO_OPEN | RL_HI_OPEN),
        RL_OPT_END_
    };
    rl_opts_parse("bench", "[--what all|haar|steps|model|path|ranks|prune] [--quick] [--ckpt FILE]",
                  "Print speed figures measured in this run against this machine's own\n"
                  "LAPACK/BLAS: Haar sampling and step costs single-threaded (so the ratios\n"
                  "compare like with like), the model on all cores against the sgemm peak;\n"
                  "ranks: data-parallel training steps on this job's ranks (run it under\n"
                  "mpirun -np 2 against one process: the MPI share of a step); prune: one\n"
                  "window of 65,536 tokens (16,384 with --quick) through a trained ALiBi model\n"
                  "(--ckpt), exact against pruned (docs/speed/reproduction-and-pruning.md#pruned-attention).",
                  opts, argc, argv, NULL, 0);
    if (what == 6 && !ckpt)
        rl_die("bench: --what prune needs --ckpt FILE (a trained ALiBi checkpoint)");
    if (what != 0 && what != 6 && (rl_opt_seen(opts, "ckpt") || rl_opt_seen(opts, "data") ||
                                   rl_opt_seen(opts, "prune-eps")))
        rl_die("bench: --ckpt, --data and --prune-eps apply to --what prune (or all)");
    double budget = quick ? 0.2 : 1.0;
    /* which kernels every figure below ran on (base/core/blas_arch.h) */
    rl_bench_print_kernels();
    if (what == 0 || what == 1 || what == 2) {
        rl_set_threads(1);
        printf("# sampling (single thread; ratio = time of the sampler / time of LAPACK's QR floor)\n");
    }
    if (what == 0 || what == 1) {
        int dims[] = { 16, 64, 256, 1024 };
        for (int i = 0; i < 4; i++)
            bench_haar(dims[i], budget * (dims[i] >= 1024 ? 3 : 1));
    }
    if (what == 0 || what == 2) {
        int dims[] = { 64, 256, 1024 };
        rl_family_kind kinds[] = { RL_FAM_SO2, RL_FAM_HOUSEHOLDER, RL_FAM_PATH };
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++)
                bench_steps(kinds[k], dims[i], budget / 2);
    }
    if (what == 0 || what == 3) { /* all cores, against the sgemm peak of the same run */
        rl_set_threads(rl_ncores());
        rl_err err;
        rl_check(rl_bench_model(quick, &err), &err);
    }
    if (what == 0 || what == 4) { /* the PaTH kernel against the standard one, one thread */
        rl_set_threads(1);
        rl_bench_path(quick);
    }
    if (what == 0 || what == 5) { /* data-parallel steps on this job's ranks (mpirun -np 2: two) */
        rl_err err;
        rl_check(rl_bench_ranks(quick ? 3 : 10, &err), &err);
    }
    if ((what == 0 || what == 6) && ckpt) { /* the pruned ALiBi evaluation, all cores */
        rl_err err;
        rl_set_threads(rl_ncores());
        rl_check_in("bench", rl_bench_prune(ckpt, data, quick ? 16384 : 65536, eps, quick ? 1 : 2, &err), &err);
    } else if (what == 0 || what == 6) {
        printf("model prune: not measured (it needs a trained ALiBi model: --ckpt FILE; make bench trains one)\n");
    }
    return 0;
}
