/* bench_model.h: the model section of `routelab bench`. */
#ifndef RL_MODEL_BENCH_H
#define RL_MODEL_BENCH_H

#include "../../base/core/err.h"

/* The loaded kernel set's sgemm peak (all cores and one thread, sampled
 * between the workloads, spread printed); training throughput at llm.c's two
 * CPU shapes and the phenomena grid's, on all cores and on one thread, as
 * tokens/s, model FLOP/s and fraction of the peak; the first shape beside a
 * busy core against its quiet speed; forward-only evaluation at T = 16,384
 * (time, workspace, peak memory), the attention kernel alone, and every
 * position scheme's overhead over RoPE. */
rl_status rl_bench_model(int quick, rl_err *err);

#endif
