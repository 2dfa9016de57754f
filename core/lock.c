/* lock.c: folder locks and the removal of a stopped process's files (lock.h). */
#include "lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "par.h"
#include "util.h"

/* Fixed tables, so that the signal handler reads only memory that exists
 * for the whole run and calls only async-signal-safe functions.  A command
 * holds a handful of locks and temporaries at once; more than the tables
 * hold is a bug, not an input. */
#define MAX_LOCKS 16
#define MAX_TRACKED 64

/* Each entry names the process that made it: a forked child that exits
 * (or is signalled) before its exec must not remove its parent's files. */
struct rl_lock {
    char *path; /* DIR/.lock */
    int fd;
    pid_t pid;
};

static rl_lock *held[MAX_LOCKS];
static struct {
    char *path;
    int dir;
    pid_t pid;
} tracked[MAX_TRACKED];

/* Updates to the tables are made with the handled signals blocked: the
 * handler never sees half an entry. */
static void block(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    sigprocmask(SIG_BLOCK, &s, old);
}

static void unblock(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

int rl_is_tmp_name(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    return t && t != name && t[5] != 0;
}

/* Remove the regular files of dir named like a temporary. */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (rl_is_tmp_name(e->d_name) && fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(sb.st_mode))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

static void release_all(void)
{
    for (int i = 0; i < MAX_LOCKS; i++)
        if (held[i] && held[i]->pid == getpid())
            rl_unlock(held[i]);
}

/* At exit, whatever is still tracked was never finished: a command that
 * dies in one line leaves no temporary either. */
static void remove_tracked(int dirs)
{
    const pid_t me = getpid();
    if (!dirs) {
        for (int i = 0; i < MAX_TRACKED; i++)
            if (tracked[i].path && !tracked[i].dir && tracked[i].pid == me)
                unlink(tracked[i].path);
        return;
    }
    for (int i = MAX_TRACKED - 1; i >= 0; i--) /* innermost (tracked last) first */
        if (tracked[i].path && tracked[i].dir && tracked[i].pid == me)
            rmdir(tracked[i].path);
}

/* Files, then the locks (their files too), then the folders they emptied. */
static void at_exit(void)
{
    remove_tracked(0);
    release_all();
    remove_tracked(1);
}

static void once(void)
{
    static int done;
    if (!done) {
        done = 1;
        atexit(at_exit);
    }
}

rl_status rl_lock_dir(const char *dir, rl_lock **lk, rl_err *err)
{
    *lk = NULL;
    once();
    char *p = rl_path_join(dir, RL_LOCK_NAME);
    /* a lock file unlinked by its releaser between our open and our flock
     * is a lock on nothing: take the path's file again (a few times; each
     * retry means another writer finished meanwhile) */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
        if (fd < 0) {
            rl_status st = rl_fail(err, RL_EINPUT, "cannot lock %s: cannot create %s: %s", dir, p, strerror(errno));
            free(p);
            return st;
        }
        struct stat a, b;
        if (fstat(fd, &a) != 0 || !S_ISREG(a.st_mode)) {
            close(fd);
            rl_status st = rl_fail(err, RL_EINPUT, "cannot lock %s: %s is not a regular file", dir, p);
            free(p);
            return st;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int e = errno;
            close(fd);
            rl_status st = e == EWOULDBLOCK
                               ? rl_fail(err, RL_EINPUT, "%s is in use by another routelab process (%s is "
                                         "locked); wait for it to finish or choose another folder", dir, p)
                               : rl_fail(err, RL_EINPUT, "cannot lock %s: %s", dir, strerror(e));
            free(p);
            return st;
        }
        if (lstat(p, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
            close(fd);
            continue;
        }
        rl_lock *l = rl_xcalloc(1, sizeof *l);
        l->path = p;
        l->fd = fd;
        l->pid = getpid();
        /* the holder's pid, for a person looking at the folder */
        if (ftruncate(fd, 0) == 0)
            dprintf(fd, "%ld\n", (long)getpid());
        sigset_t old;
        block(&old);
        int slot = 0;
        while (slot < MAX_LOCKS && held[slot])
            slot++;
        if (slot == MAX_LOCKS)
            rl_fatal("more than %d folder locks held at once", MAX_LOCKS);
        held[slot] = l;
        unblock(&old);
        remove_stale(dir);
        *lk = l;
        return RL_OK;
    }
    rl_status st = rl_fail(err, RL_EINPUT, "cannot lock %s: %s keeps being replaced", dir, p);
    free(p);
    return st;
}

rl_status rl_lock_out(const char *dir, rl_lock **lk, rl_err *err)
{
    *lk = NULL;
    return rl_par_rank() == 0 ? rl_lock_dir(dir, lk, err) : RL_OK;
}

void rl_unlock(rl_lock *lk)
{
    if (!lk)
        return;
    sigset_t old;
    block(&old);
    for (int i = 0; i < MAX_LOCKS; i++)
        if (held[i] == lk)
            held[i] = NULL;
    /* unlinked while still locked: a process that opened it meanwhile sees
     * that the path names another file, and takes the lock again */
    unlink(lk->path);
    close(lk->fd);
    unblock(&old);
    free(lk->path);
    free(lk);
}

void rl_cleanup_track(const char *path, int dir)
{
    char *copy = strdup(path);
    if (!copy)
        rl_fatal("out of memory");
    once();
    sigset_t old;
    block(&old);
    int slot = 0;
    while (slot < MAX_TRACKED && tracked[slot].path)
        slot++;
    if (slot == MAX_TRACKED)
        rl_fatal("more than %d unfinished outputs at once", MAX_TRACKED);
    tracked[slot].path = copy;
    tracked[slot].dir = dir;
    tracked[slot].pid = getpid();
    unblock(&old);
}

void rl_cleanup_untrack(const char *path)
{
    char *gone = NULL;
    sigset_t old;
    block(&old);
    for (int i = MAX_TRACKED - 1; i >= 0 && !gone; i--)
        if (tracked[i].path && !strcmp(tracked[i].path, path)) {
            gone = tracked[i].path;
            tracked[i].path = NULL;
        }
    unblock(&old);
    free(gone);
}

/* Remove the unfinished outputs, release the locks (removing their files),
 * then die of the signal as if unhandled.  Only unlink, rmdir, close,
 * signal and raise: async-signal-safe. */
static void on_signal(int sig)
{
    const pid_t me = getpid();
    remove_tracked(0);
    for (int i = 0; i < MAX_LOCKS; i++)
        if (held[i] && held[i]->pid == me) {
            unlink(held[i]->path);
            close(held[i]->fd);
        }
    remove_tracked(1);
    signal(sig, SIG_DFL);
    raise(sig);
}

void rl_cleanup_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);
        /* an ignored signal stays ignored (nohup, a shell's background job) */
        struct sigaction prev;
        if (sigaction(sigs[i], NULL, &prev) == 0 && prev.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}
