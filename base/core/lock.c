/* lock.c: folder locks, and the one registry of what this process made and
 * has not finished, removed on a failure, a signal or at exit (lock.h). */
#include "lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "job.h"

/* Fixed tables, so that the signal handler reads only memory that exists
 * for the whole run and calls only async-signal-safe functions.  A command
 * holds a handful of locks and temporaries at once; more than the tables
 * hold is a bug, not an input. */
#define MAX_LOCKS 16
#define MAX_TRACKED 256
#define RL_STR2_(x) #x
#define RL_STR_(x) RL_STR2_(x)

/* Each entry names the process that made it: a forked child that exits
 * (or is signalled) before its exec must not remove its parent's files. */
struct rl_lock {
    char *path; /* DIR/.lock */
    int fd;
    pid_t pid;
};

static rl_lock *held[MAX_LOCKS];
/* The registry (lock.h, rl_cleanup_track): an entry is free while its path
 * is NULL; path is stored last (and cleared first), so that the handler,
 * which reads it atomically, never sees half an entry. */
static struct {
    char *path;
    int dir;
    pid_t pid;
} tracked[MAX_TRACKED];
/* between the threads of this process (the handler takes no lock) */
static pthread_mutex_t tracked_mu = PTHREAD_MUTEX_INITIALIZER;

/* An internal failure of this floor (no memory, a full table): what the
 * process made is removed and it stops with status 1 (err.h's RL_EINTERNAL;
 * under MPI the whole job, job.h), the end rl_fatal gives a command.
 * Written here because rl_fatal's own way out runs through this registry
 * (rl_exit_line calls rl_cleanup_failed): the floor calls nothing above it. */
static void fatal(const char *msg) __attribute__((noreturn));
static void fatal(const char *msg)
{
    rl_cleanup_failed();
    rl_job_exit(1, msg);
    abort(); /* rl_job_exit does not return */
}

/* dir/name, malloc'ed (util.h's rl_path_join, on this floor). */
static char *join(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        fatal("out of memory");
    return p;
}

/* Updates to the tables are made with the handled signals blocked: the
 * handler never interrupts its own thread halfway through one. */
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

/* "NAME.tmp.PID.RANDOM" (rl_tmp_create, base/core/util.h: decimal digits, then
 * 8 letters or digits) or an older run's "NAME.tmp.PID". */
int rl_is_tmp_name(const char *name)
{
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
        t = p; /* the last one: NAME may hold ".tmp." itself */
    if (!t || t == name)
        return 0;
    const char *d = t + 5, *q = d;
    while (*q >= '0' && *q <= '9')
        q++;
    if (q == d || *d == '0')
        return 0;
    if (!*q)
        return 1;
    if (*q++ != '.')
        return 0;
    int k = 0;
    for (; q[k]; k++)
        if (!((q[k] >= 'a' && q[k] <= 'z') || (q[k] >= 'A' && q[k] <= 'Z') || (q[k] >= '0' && q[k] <= '9')))
            return 0;
    return k == 8;
}

void rl_lock_remove_named(const char *dir, int (*match)(const char *name), int folders)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (!match(e->d_name) || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!folders && S_ISREG(sb.st_mode)) {
            unlinkat(dirfd(d), e->d_name, 0);
        } else if (folders && S_ISDIR(sb.st_mode)) {
            char *p = join(dir, e->d_name);
            rl_rmtree(p);
            free(p);
        }
    }
    closedir(d);
}

/* ---- removal, async-signal-safe ------------------------------------------
 *
 * The handler, the failure path and the exit all remove through these: only
 * open(at), getdents64, fstatat, unlink(at), rmdir, close, on stack memory. */

static int is_lock_name(const char *n)
{
    const char *l = RL_LOCK_NAME;
    while (*n && *n == *l)
        n++, l++;
    return !*n && !*l;
}

struct dent64 {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Empty the folder open as fd, at most depth levels down: every file but
 * the lock files (files set; the locks are released after this, so that no
 * other writer can take a folder while it is being removed), or only the
 * folders left empty (files clear: after the release; a folder that another
 * process has locked meanwhile keeps its lock file, so it stays). */
static void clear_at(int fd, int files, int depth)
{
    char buf[1024] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const struct dent64 *e = (const struct dent64 *)(buf + off);
            off += e->reclen;
            const char *nm = e->name;
            if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
                continue;
            struct stat sb;
            if (fstatat(fd, nm, &sb, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            if (S_ISDIR(sb.st_mode)) {
                if (depth > 0) {
                    int sub = openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        clear_at(sub, files, depth - 1);
                        close(sub);
                    }
                }
                unlinkat(fd, nm, AT_REMOVEDIR);
            } else if (files && !is_lock_name(nm)) {
                unlinkat(fd, nm, 0);
            }
        }
}

/* A tracked folder: its contents (files set), or what is left (files
 * clear), then the folder itself when that emptied it. */
static void remove_folder(const char *path, int files)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    clear_at(fd, files, 32);
    close(fd);
    rmdir(path);
}

/* The lock file of a held lock, unless the path names another file by now
 * (our folder removed and made anew by another writer, who locks it). */
static void unlink_lock(const rl_lock *l)
{
    struct stat a, b;
    if (fstat(l->fd, &a) == 0 && fstatat(AT_FDCWD, l->path, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        unlink(l->path);
}

/* The one removal (lock.h), for the three ways a process ends: every
 * tracked file of this process; on a failure or a signal (failed set) the
 * contents of its tracked folders, but their lock files; then its locks,
 * released (their files removed); then its tracked folders, innermost
 * first: on a failure or a signal with what is left in them, at a normal
 * exit only when empty.  Entries of another process (a forked child's
 * parent) are never touched.  In the handler (in_handler set) nothing is
 * freed: only async-signal-safe calls. */
static void remove_all(int failed, int in_handler)
{
    const pid_t me = getpid();
    for (int i = 0; i < MAX_TRACKED; i++) {
        const char *p = __atomic_load_n(&tracked[i].path, __ATOMIC_ACQUIRE);
        if (p && !tracked[i].dir && tracked[i].pid == me)
            unlink(p);
    }
    if (failed)
        for (int i = MAX_TRACKED - 1; i >= 0; i--) {
            const char *p = __atomic_load_n(&tracked[i].path, __ATOMIC_ACQUIRE);
            if (p && tracked[i].dir && tracked[i].pid == me)
                remove_folder(p, 1);
        }
    for (int i = 0; i < MAX_LOCKS; i++) {
        rl_lock *l = held[i];
        if (!l || l->pid != me)
            continue;
        unlink_lock(l);
        close(l->fd);
        held[i] = NULL;
        if (!in_handler) {
            free(l->path);
            free(l);
        }
    }
    /* twice: a slot's index says nothing of which folder holds which, and
     * an outer folder empties only once its inner ones are gone */
    for (int pass = 0; pass < 2; pass++)
        for (int i = MAX_TRACKED - 1; i >= 0; i--) {
            const char *p = __atomic_load_n(&tracked[i].path, __ATOMIC_ACQUIRE);
            if (!p || !tracked[i].dir || tracked[i].pid != me)
                continue;
            if (failed)
                remove_folder(p, 0);
            else
                rmdir(p);
        }
    if (in_handler)
        return;
    for (int i = 0; i < MAX_TRACKED; i++) { /* forgotten: done once */
        char *p = __atomic_load_n(&tracked[i].path, __ATOMIC_ACQUIRE);
        if (p && tracked[i].pid == me) {
            __atomic_store_n(&tracked[i].path, NULL, __ATOMIC_RELEASE);
            free(p);
        }
    }
}

void rl_cleanup_failed(void)
{
    sigset_t old;
    block(&old); /* no signal handler halfway through */
    remove_all(1, 0);
    unblock(&old);
}

/* At exit, whatever is still tracked was never finished: a command that
 * returns leaves no temporary either (after a failure, rl_cleanup_failed
 * has removed everything already). */
static void at_exit(void)
{
    sigset_t old;
    block(&old);
    remove_all(0, 0);
    unblock(&old);
}

static void once(void)
{
    static int done;
    if (!__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        atexit(at_exit);
}

rl_status rl_lock_dir(const char *dir, rl_lock **lk, rl_err *err)
{
    *lk = NULL;
    once();
    char *p = join(dir, RL_LOCK_NAME);
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
        rl_lock *l = calloc(1, sizeof *l);
        if (!l)
            fatal("out of memory");
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
            fatal("more than " RL_STR_(MAX_LOCKS) " folder locks held at once");
        held[slot] = l;
        unblock(&old);
        rl_lock_remove_named(dir, rl_is_tmp_name, 0); /* the temporaries of no live writer */
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
    return rl_job_rank() == 0 ? rl_lock_dir(dir, lk, err) : RL_OK;
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
    unlink_lock(lk);
    close(lk->fd);
    unblock(&old);
    free(lk->path);
    free(lk);
}

void rl_cleanup_track(const char *path, int dir)
{
    char *copy = strdup(path);
    if (!copy)
        fatal("out of memory");
    once();
    sigset_t old;
    block(&old);
    pthread_mutex_lock(&tracked_mu);
    int slot = 0;
    while (slot < MAX_TRACKED && tracked[slot].path)
        slot++;
    if (slot == MAX_TRACKED) {
        pthread_mutex_unlock(&tracked_mu);
        fatal("more than " RL_STR_(MAX_TRACKED) " unfinished outputs at once");
    }
    tracked[slot].dir = dir;
    tracked[slot].pid = getpid();
    __atomic_store_n(&tracked[slot].path, copy, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&tracked_mu);
    unblock(&old);
}

void rl_cleanup_untrack(const char *path)
{
    char *gone = NULL;
    sigset_t old;
    block(&old);
    pthread_mutex_lock(&tracked_mu);
    for (int i = MAX_TRACKED - 1; i >= 0 && !gone; i--)
        if (tracked[i].path && !strcmp(tracked[i].path, path)) {
            gone = tracked[i].path;
            __atomic_store_n(&tracked[i].path, NULL, __ATOMIC_RELEASE);
        }
    pthread_mutex_unlock(&tracked_mu);
    unblock(&old);
    free(gone);
}

/* Remove what this process made and has not finished (remove_all), then
 * die of the signal as if unhandled. */
static void on_signal(int sig)
{
    remove_all(1, 1);
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

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    remove(p);
    return 0;
}

void rl_rmtree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
