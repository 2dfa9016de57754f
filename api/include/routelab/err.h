/* routelab/err.h: the status every library call returns (docs/layout.md#errors).
 *
 * No call of libroutelab exits the process.  A call that can fail returns an
 * rl_status and, when it fails, writes one line describing why into the
 * rl_err its caller passed (err may be NULL: then only the status says it):
 *
 *   RL_OK        0  success
 *   RL_EINTERNAL 1  an internal or numerical failure (LAPACK info != 0, a
 *                   write the system refused)
 *   RL_EINPUT    2  a bad input: a name, a parameter out of its range, a
 *                   request larger than the machine's memory
 *   RL_ECANCEL   3  the caller asked the call to stop (rl_cancel_request,
 *                   from another thread: Python's Ctrl-C); nothing returned
 *   RL_ENOMEM    4  memory ran out (malloc refused); nothing returned and
 *                   nothing the call allocated is kept (ABI 1.3)
 *
 * The command line prints the same line as "routelab: <msg>" and exits with
 * 2 for RL_EINPUT, 1 for every other failure. */
#ifndef ROUTELAB_ERR_H
#define ROUTELAB_ERR_H

typedef enum { RL_OK = 0, RL_EINTERNAL = 1, RL_EINPUT = 2, RL_ECANCEL = 3, RL_ENOMEM = 4 } rl_status;

/* status: the last failure's status; msg: its one line (NUL-terminated,
 * control bytes escaped as \xNN). */
typedef struct {
    rl_status status;
    char msg[512];
} rl_err;

/* Ask the long calls running now to stop within about a second: they
 * return RL_ECANCEL with "NAME: cancelled".  The calls that read it: the
 * model's rl_model_eval, rl_model_probe, rl_model_forward and
 * rl_model_attention (model.h), and the Monte Carlo kernels rl_mc_routes,
 * rl_mc_farmass, rl_mc_family_mean and rl_mc_moment2 (mc.h: between
 * replicates, chunks or batches and every 1024 steps of a long walk).  The
 * short calls (a grid, a case, a family) run to the end.  The request stays
 * until rl_cancel_clear (the caller clears it once the call has returned,
 * before the next): a call started while it is set returns RL_ECANCEL at
 * once. */
void rl_cancel_request(void);
void rl_cancel_clear(void);

#endif
