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
 * rl_cleanup_* is the other half, and the project's one registry of what a
 * process made and has not finished: rl_tmp_create's temporaries (tracked
 * from before they exist), a fresh run's files and folder before its first
 * checkpoint, the output folder a command made (claims, theory, probe).
 * The same removal serves the three ways a process ends:
 *   - a failure: rl_exit_line (err.h, the one way a command fails) calls
 *     rl_cleanup_failed: the files, and each tracked folder with everything
 *     in it (a full disk leaves no half-written folder);
 *   - SIGINT/SIGTERM/SIGHUP (rl_cleanup_signals): the same, in the handler
 *     (async-signal-safe), then the process dies of the signal;
 *   - exit: the files (an output never closed is unfinished), a tracked
 *     folder only when empty.
 * The locks are released after the folders' contents are gone and before
 * the folders themselves, so that no other writer takes a folder while it
 * is being removed; a folder another writer locked meanwhile stays. */
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
 * (job.h); a refusal there stops the job (rl_exit_line). */
rl_status rl_lock_out(const char *dir, rl_lock **lk, rl_err *err);

/* Release (and remove DIR/.lock); NULL is a no-op.  Every lock still held
 * is released at exit too. */
void rl_unlock(rl_lock *lk);

/* Whether a directory entry's name is a temporary of rl_tmp_create
 * ("NAME.tmp.PID.RANDOM": decimal digits, then 8 letters or digits) or of
 * an older run ("NAME.tmp.PID"): what rl_lock_dir removes. */
int rl_is_tmp_name(const char *name);

/* Remember path as this process's unfinished output: a file (dir clear),
 * removed at a failure, a signal or the exit; or a folder this process made
 * (dir set), removed with what is in it at a failure or a signal, and at
 * exit when empty.  Only after the folder's lock is held: a folder another
 * process holds is theirs, never ours to remove. */
void rl_cleanup_track(const char *path, int dir);
/* Forget path: it is finished (renamed into place, or a run's folder that
 * now holds a checkpoint) or removed already. */
void rl_cleanup_untrack(const char *path);
/* A failure: remove everything tracked, release the locks.  Called by
 * rl_exit_line; once (what it removed is forgotten). */
void rl_cleanup_failed(void);
/* Install the handlers (idempotent).  Called by the dispatcher. */
void rl_cleanup_signals(void);

/* Remove the entries of dir whose names match: regular files (folders = 0)
 * or folders with their contents (folders = 1); symbolic links and other
 * kinds are left.  For a folder whose lock the caller holds: what matches
 * then belongs to no live writer. */
void rl_lock_remove_named(const char *dir, int (*match)(const char *name), int folders);

/* Remove path and everything under it (symbolic links are not followed);
 * for undoing what a failed command created. */
void rl_rmtree(const char *path);

#endif
