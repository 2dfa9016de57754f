/* bench_path.h: PaTH attention kernel speed (`routelab bench --what path`). */
#ifndef RL_MODEL_BENCH_PATH_H
#define RL_MODEL_BENCH_PATH_H

/* One head, hd = 32 and 64, T = 1,024 / 4,096 / 16,384 (and hd = 32 at
 * 65,536 without the walk, unless quick): seconds (best of up to 5 within
 * 1 s) of the logits by the naive walk and by the blockwise fast path, of
 * the whole streaming PaTH forward and of the standard streaming
 * attention; then the
 * training kernels (forward + backward) of PaTH and standard attention at
 * the two training shapes of the model bench.  On the calling thread count
 * (`routelab bench` runs one). */
void rl_bench_path(int quick);

#endif
