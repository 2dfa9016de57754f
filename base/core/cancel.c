/* cancel.c: a caller's request to stop a long library call (<routelab/err.h>,
 * docs/library-robustness.md#ctrl-c).  Python's Ctrl-C sets it from another thread while a
 * call runs; the long loops (evaluation windows and layers, the probe's
 * windows, the reference's batches, the Monte Carlo sweeps and walks) read
 * it and return RL_ECANCEL.  The one process-wide flag besides the RNG seed: a request, like a signal, that
 * the command line never makes. */
#include "err.h"

#include <stdatomic.h>

static atomic_int requested;

void rl_cancel_request(void)
{
    atomic_store(&requested, 1);
}

void rl_cancel_clear(void)
{
    atomic_store(&requested, 0);
}

int rl_cancelled(void)
{
    return atomic_load_explicit(&requested, memory_order_relaxed);
}
