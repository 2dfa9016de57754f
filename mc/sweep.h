/* sweep.h: the one Monte Carlo sweep: n independent items (replicates, or
 * chunks or blocks of them) over the job's ranks and each rank's threads.
 *
 * Every Monte Carlo kernel runs the same loop, and this is its one copy:
 *
 *   1. this rank's items [lo, hi) of n (rl_par_range, base/par/par.h);
 *   2. an OpenMP region in which each thread allocates its workspace once
 *      (fn->alloc: steppers, RNGs, scratch) and computes items
 *      fn->item(ctx, ws, i, err) for the i it is handed;
 *   3. the failures merged into one, the same whatever the thread count;
 *   4. the ranks agree on the job's status (rl_par_agree), every rank
 *      stopping where one failed;
 *   5. when all succeeded, each of the caller's result arrays gathered
 *      (rl_par_gather), so that every rank holds all n items in item order;
 *   6. every workspace freed (fn->free), on success and on failure.
 *
 * The contract of fn->item, which makes the results the same bytes for any
 * thread and rank count: item i writes only into slot i of the caller's
 * arrays, and its arithmetic depends on i alone, never on the thread that
 * runs it or the items run before it: its random stream is keyed by i
 * (rl_rng_stream with rl_stream_key(DOMAIN, i), base/core/streams.h), and any
 * state the workspace keeps between items is reset by the item.  Sums over
 * items are the caller's, after the sweep, in index order.
 *
 * Failures.  fn->item (or fn->alloc) returns a status other than RL_OK with
 * its one-line message in err.  Of all the failures the sweep keeps the one
 * of the worst status (RL_EINPUT over RL_EINTERNAL), then of the lowest item
 * (a failed allocation counts as item -1): rl_par_agree then picks the worst
 * status and the lowest rank, whose items come first, so the message is the
 * same for every thread and rank count (under MPI rl_par_agree prefixes it
 * with the rank).  A stepper's failure is sticky (sampling/steps.h), so a
 * workspace whose item failed is freed and allocated afresh before the
 * thread's next item: each item's status is its own.  The other items still
 * run.  After a failure the arrays hold unspecified values: the caller
 * frees them (nothing a failed route computed passes for a result).
 *
 * An item that cannot fail (a workspace that has no failure to record)
 * simply returns RL_OK.
 *
 * Cancellation.  Before each item a thread reads rl_cancelled() (base/core/err.h:
 * a relaxed atomic load); once it is set, the thread skips its remaining
 * items and the sweep returns RL_ECANCEL ("cancelled") after the region.
 * An item whose one run is long (a walk of many steps) may read it too and
 * return RL_ECANCEL itself.  The caller names the call in the message
 * ("routes: cancelled").  A sweep that is never cancelled runs exactly as
 * before: the same items, the same bytes. */
#ifndef RL_MC_SWEEP_H
#define RL_MC_SWEEP_H

#include <stddef.h>

#include "../base/core/err.h"

typedef struct {
    /* This thread's workspace into *ws (NULL: none is needed, ws = NULL);
     * when it fails, it frees what it made. */
    rl_status (*alloc)(void *ctx, void **ws, rl_err *err);
    /* Frees what alloc made (NULL when alloc is NULL); ws may be NULL. */
    void (*free)(void *ctx, void *ws);
    /* Item i, 0 <= i < n, into slot i of the caller's arrays. */
    rl_status (*item)(void *ctx, void *ws, long i, rl_err *err);
    /* Items a thread takes at a time (0: 1); speed only, never the bytes. */
    long chunk;
} rl_mc_sweep_fn;

/* One result array to gather: n items of `bytes` each at buf (item i at
 * buf + i * bytes).  buf NULL or bytes 0: nothing to gather. */
typedef struct {
    void *buf;
    size_t bytes;
} rl_mc_gather;

/* Run items 0..n-1 as described above and gather the nout arrays out[].
 * Returns RL_OK, or the failure (its message in err, which may be NULL). */
rl_status rl_mc_sweep(long n, const rl_mc_sweep_fn *fn, void *ctx, const rl_mc_gather *out, int nout,
                      rl_err *err);

#endif
