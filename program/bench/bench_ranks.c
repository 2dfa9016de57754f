/* bench_ranks.c: data-parallel training steps (bench_ranks.h). */
#include "bench_ranks.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../base/par/par.h"
#include "../../base/core/util.h"
#include "../../model/gpt.h"
#include "../../model/train.h"

enum { NSHARD = 2, B = 8, T = 128, MAXSTEPS = 256 };

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

rl_status rl_bench_ranks(double budget, rl_err *err)
{
    /* the cores this rank may use (rl_ncores: shared among the node's ranks) */
    rl_set_threads(rl_ncores());
    rl_gpt_config cfg = { 4, 256, 4, T, 256, 0.0f, { 0 }, RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, B);
    if (!m)
        rl_fatal("bench: out of memory (the model)");
    rl_gpt_init(m, 1);
    rl_tokens data = { NULL, 1 << 20, { 0, 0 } };
    data.tok = rl_xmalloc(sizeof(uint16_t) * data.n);
    for (long i = 0; i < data.n; i++) /* the same synthetic stream as the model bench */
        data.tok[i] = (uint16_t)(((uint32_t)i * 2654435761u) >> 24);
    rl_trainer *tr;
    rl_status st = rl_trainer_alloc(m, &data, &data, B, NSHARD, 1, &tr, err);
    double step_s[MAXSTEPS], comm_s[MAXSTEPS], loss;
    long n = 0;
    if (st == RL_OK)
        st = rl_trainer_step(tr, 0, 1e-4, &loss, NULL, err); /* warm-up */
    /* every rank runs the same number of steps: rank 0's clock decides */
    for (double t0 = wall(); st == RL_OK && n < MAXSTEPS;) {
        int go = wall() - t0 < budget || n < 5;
        if ((st = rl_par_bcast(&go, sizeof go, err)) != RL_OK || !go)
            break;
        const double c0 = rl_par_tree_comm_seconds(tr->tree), s0 = wall();
        st = rl_trainer_step(tr, n + 1, 1e-4, &loss, NULL, err);
        step_s[n] = wall() - s0;
        comm_s[n] = (rl_par_tree_comm_seconds(tr->tree) - c0) / step_s[n];
        n++;
    }
    if (st == RL_OK) {
        qsort(step_s, n, sizeof *step_s, cmp_double);
        qsort(comm_s, n, sizeof *comm_s, cmp_double);
        printf("ranks train 4L w256 h4 T=%d, %d shards x %d windows: %d rank(s) x %d thread(s): "
               "%.1f ms/step  %.0f tok/s  MPI %.1f%% of a step (median of %ld steps)\n", T, NSHARD, B,
               rl_par_size(), omp_get_max_threads(), 1e3 * step_s[n / 2], (double)NSHARD * B * T / step_s[n / 2],
               100 * comm_s[n / 2], n);
    }
    rl_trainer_free(tr);
    free(data.tok);
    rl_gpt_free(m);
    return st;
}
