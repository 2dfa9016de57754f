/* lock.h: one writer per output folder, and what a stopped process leaves.
 *
 * A command that writes into a folder it owns (train's run folder, eval and
 * probe in a run folder, reproduce's OUT, data's data folder, theory's OUT)
 * first takes rl_lock_dir on it: an advisory flock(LOCK_EX | LOCK_NB) on
 * DIR/.lock.  A second writer is refused in one line naming the folder
 * (RL_EINPUT, exit 2) instead of racing the first for the same files.
 *
 * The lock is also how stale files are told from live ones.  A folder whose
 * lock nobody holds has no live writer, so every "*.tmp.*" in it (what
 * rl_outfile leaves when killed mid-write) is stale: rl_lock_dir removes
 * them once it holds the lock.  A pid in a name says nothing: kill(pid, 0)
 * succeeds for an unreaped zombie and for a recycled pid.
 *
 * DIR/.lock is removed when the lock is released (rl_unlock, or at exit),
 * so a finished run leaves none; only a process killed by SIGKILL leaves
 * one, which nobody holds and the next writer takes over.  A lock file
 * unlinked between another process's open and its flock is detected (the
 * path no longer names the locked inode) and taken again.
 *
 * rl_cleanup_* is the other half: the files and folders this process has
 * created and not yet finished (rl_outfile's temporaries, a fresh run's
 * folder before its first checkpoint).  rl_cleanup_signals installs
 * SIGINT/SIGTERM/SIGHUP handlers that remove them, release the locks and
 * then die of the signal, so Ctrl-C leaves no temporary behind. */
#ifndef RL_LOCK_H
#define RL_LOCK_H

#include "err.h"

/* The lock file's name inside a locked folder (kept out of every listing). */
#define RL_LOCK_NAME ".lock"

typedef struct rl_lock rl_lock;

/* Lock dir (which must exist) for this process; *lk is NULL on failure.
 * RL_EINPUT "DIR is in use by another routelab process (DIR/.lock is
 * locked)" when another process holds it, or naming why the lock file
 * cannot be made.  Once held, removes the stale "*.tmp.*" regular files of
 * dir (not of its subfolders: each has its own writer). */
rl_status rl_lock_dir(const char *dir, rl_lock **lk, rl_err *err);

/* The lock of a command's output folder: rl_lock_dir under MPI on rank 0
 * alone (*lk NULL and RL_OK on the others), whose files the outputs are
 * (par.h); a refusal there stops the job (rl_exit_line). */
rl_status rl_lock_out(const char *dir, rl_lock **lk, rl_err *err);

/* Release (and remove DIR/.lock); NULL is a no-op.  Every lock still held
 * is released at exit too. */
void rl_unlock(rl_lock *lk);

/* Whether a directory entry's name is a temporary of rl_outfile
 * ("NAME.tmp.SUFFIX"). */
int rl_is_tmp_name(const char *name);

/* Remember path (a file, or an empty-when-done folder when dir is set) as
 * this process's unfinished output, to be removed if a signal stops it. */
void rl_cleanup_track(const char *path, int dir);
/* Forget path: it is finished (renamed into place) or removed already. */
void rl_cleanup_untrack(const char *path);
/* Install the handlers (idempotent).  Called by the dispatcher. */
void rl_cleanup_signals(void);

#endif
