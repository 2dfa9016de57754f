/* bench_model.h: the model section of `routelab bench`. */
#ifndef RL_MODEL_BENCH_H
#define RL_MODEL_BENCH_H

#include "../core/err.h"

/* sgemm peak of this machine (all cores), training throughput at llm.c's
 * two CPU shapes as tokens/s, model FLOP/s and fraction of that peak, and
 * forward-only evaluation at T = 16,384 (time, workspace, peak memory). */
rl_status rl_bench_model(int quick, rl_err *err);

#endif
