/* bench_ranks.h: data-parallel training steps (`routelab bench --what ranks`). */
#ifndef RL_BENCH_RANKS_H
#define RL_BENCH_RANKS_H

#include "../../base/core/err.h"

/* Training steps of the bench's first shape (4 layers, width 256, 4 heads,
 * T = 128, vocab 256) with a global batch of 2 shards of 8 windows, on this
 * job's ranks (base/par/par.h) and threads: median step time, tokens/s and the
 * median share of a step spent in MPI (the gradient tree's messages and
 * broadcast, waits for a slower rank included).  Run alone with 2 threads
 * and under `mpirun -np 2` with 1 thread, it prints what two processes cost
 * against two threads. */
rl_status rl_bench_ranks(double budget, rl_err *err);

#endif
