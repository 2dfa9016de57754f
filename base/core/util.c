/* util.c: errors, safe output files, list parsing. */
#include "util.h"

#include "job.h"
#include "err.h"
#include "lock.h"

#include <errno.h>
#include <signal.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <omp.h>
#include <sched.h>
#include <sys/random.h>
#include <time.h>

void rl_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rl_exit_linev(2, fmt, ap);
}

void *rl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        rl_fatal("out of memory allocating %zu bytes", n);
    return p;
}

void *rl_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        rl_fatal("out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *rl_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        rl_fatal("out of memory allocating %zu bytes", n);
    return q;
}

void *rl_alloc(size_t n, rl_err *err)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        rl_fail(err, RL_ENOMEM, "out of memory allocating %zu bytes", n);
    return p;
}

void *rl_alloc_array(size_t n, size_t size, rl_err *err)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        rl_fail(err, RL_ENOMEM, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

char *rl_path_join(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        rl_fatal("out of memory");
    return p;
}

/* What a non-regular file is, for the message. */
static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "is a directory";
    if (S_ISFIFO(m))
        return "is a FIFO, not a regular file";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "is a device, not a regular file";
    if (S_ISSOCK(m))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

rl_status rl_open_regular(const char *path, size_t max, int *fd, size_t *size, rl_err *err)
{
    *fd = -1;
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return rl_fail(err, RL_EINPUT, "cannot read %s: it %s", path, kind_of(st.st_mode));
    }
    if ((uintmax_t)st.st_size > (uintmax_t)max) {
        close(f);
        return rl_fail(err, RL_EINPUT, "cannot read %s: %jd bytes, more than the format's limit of %zu",
                       path, (intmax_t)st.st_size, max);
    }
    int fl = fcntl(f, F_GETFL);
    if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(f);
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(e));
    }
    *fd = f;
    if (size)
        *size = (size_t)st.st_size;
    return RL_OK;
}

rl_status rl_fopen_regular(const char *path, size_t max, FILE **fp, size_t *size, rl_err *err)
{
    int fd;
    *fp = NULL;
    RL_TRY(rl_open_regular(path, max, &fd, size, err));
    *fp = fdopen(fd, "rb");
    if (!*fp) {
        int e = errno;
        close(fd);
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path, strerror(e));
    }
    return RL_OK;
}

rl_status rl_read_regular(const char *path, size_t max, char **buf, size_t *len, rl_err *err)
{
    int fd;
    size_t n;
    *buf = NULL;
    RL_TRY(rl_open_regular(path, max, &fd, &n, err));
    /* read what fstat reported and no more: a file that grows meanwhile is
     * read as it was, one that shrinks is an error */
    char *s = rl_alloc(n + 1, err);
    if (!s) {
        close(fd);
        return RL_ENOMEM;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, s + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : 0;
            close(fd);
            free(s);
            return rl_fail(err, RL_EINPUT, "cannot read %s: %s", path,
                           e ? strerror(e) : "the file shrank while it was read");
        }
        got += (size_t)r;
    }
    close(fd);
    s[n] = 0;
    *buf = s;
    if (len)
        *len = n;
    return RL_OK;
}

char *rl_read_file(const char *path, size_t *len)
{
    char *s;
    return rl_read_regular(path, RL_MAX_SMALL_FILE, &s, len, NULL) == RL_OK ? s : NULL;
}

/* ---- output files ------------------------------------------------------------ */

/* The names written to directly, never through a temporary: the streams
 * (dup'ed, so that closing the output leaves the process's own open) and
 * /dev/null.  -1 for any other path. */
static int direct_fd(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    if (!strcmp(path, "/dev/null"))
        return 0x7fff; /* opened, not dup'ed */
    return -1;
}

int rl_output_direct(const char *path)
{
    return direct_fd(path) >= 0;
}

rl_status rl_output_check(const char *path, rl_err *err)
{
    struct stat st;
    if (direct_fd(path) >= 0)
        return RL_OK;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return RL_OK; /* a missing folder is the open's to report */
        return rl_fail(err, RL_EINPUT, "cannot write %s: %s", path, strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return rl_fail(err, RL_EINPUT, "cannot write %s: it is a symbolic link, not a regular file "
                       "(a rename would replace the link; name its target)", path);
    if (!S_ISREG(st.st_mode))
        return rl_fail(err, RL_EINPUT, "cannot write %s: it %s", path, kind_of(st.st_mode));
    return RL_OK;
}

/* The temporaries of `path` that a killed writer left beside it
 * (PATH.tmp.PID.XXXXXXXX with PID no live process), removed: an output
 * outside a locked run folder (`eval --out elsewhere`, `sample --out`) had
 * no later run to clear them.  Only this name's, only
 * a dead writer's: a live process's temporary (or one whose pid was reused)
 * is never touched. */
static void remove_stale_tmps(const char *path)
{
    char *dup = strdup(path);
    if (!dup)
        return;
    char *slash = strrchr(dup, '/');
    const char *dir = slash ? (slash == dup ? "/" : dup) : ".", *base = slash ? slash + 1 : dup;
    if (slash && slash != dup)
        *slash = 0;
    const size_t nb = strlen(base);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        const char *n = e->d_name;
        if (strncmp(n, base, nb) || strncmp(n + nb, ".tmp.", 5) || !rl_is_tmp_name(n))
            continue;
        const long pid = strtol(n + nb + 5, NULL, 10);
        if (pid <= 0 || pid == (long)getpid() || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue;
        char *full;
        if (asprintf(&full, "%s/%s", dir, n) >= 0) {
            unlink(full);
            free(full);
        }
    }
    if (d)
        closedir(d);
    free(dup);
}

rl_status rl_tmp_create(const char *path, char **tmp, int *fd, rl_err *err)
{
    remove_stale_tmps(path);
    /* the pid (for a person looking at the folder: whose it was), then a
     * random part, so that nothing can plant a file at the name ahead; a
     * killed run's are recognised by the name's form under the folder's
     * lock (rl_is_tmp_name, base/core/lock.h) */
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    *tmp = NULL;
    *fd = -1;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[8];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)attempt << 40;
            memcpy(r, &x, sizeof r);
        }
        char suffix[9];
        for (int k = 0; k < 8; k++)
            suffix[k] = abc[r[k] % (sizeof abc - 1)];
        suffix[8] = 0;
        char *t;
        if (asprintf(&t, "%s.tmp.%ld.%s", path, (long)getpid(), suffix) < 0)
            rl_fatal("out of memory");
        /* tracked before it exists (base/core/lock.h), so that a signal or a
         * failure between the open and the tracking cannot leave it; a name
         * that turns out to be taken (EEXIST: 8 random characters beside
         * our own pid) is forgotten again at once */
        rl_cleanup_track(t, 0);
        int f = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (f >= 0) {
            *tmp = t;
            *fd = f;
            return RL_OK;
        }
        int e = errno;
        rl_cleanup_untrack(t);
        free(t);
        if (e != EEXIST)
            return rl_fail(err, RL_EINPUT, "cannot write %s: %s", path, strerror(e));
    }
    return rl_fail(err, RL_EINPUT, "cannot write %s: no free temporary name beside it", path);
}

static rl_status outfile_create(const char *path, int any_rank, rl_outfile **out, rl_err *err)
{
    *out = NULL;
    const int direct = direct_fd(path);
    RL_TRY(rl_output_check(path, err));
    rl_outfile *o = rl_xcalloc(1, sizeof *o);
    o->path = strdup(path);
    if (!o->path)
        rl_fatal("out of memory");
    if ((!any_rank && rl_job_rank() != 0) || direct >= 0) {
        /* under MPI the outputs are rank 0's (job.h): the same bytes,
         * discarded; a stream or /dev/null is written as it is */
        const int fd = direct < 0 || direct == 0x7fff ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                                                      : fcntl(direct, F_DUPFD_CLOEXEC, 3);
        o->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!o->f) {
            rl_status st = rl_fail(err, RL_EINPUT, "cannot write %s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            free(o->path);
            free(o);
            return st;
        }
        *out = o;
        return RL_OK;
    }
    int fd;
    rl_status st = rl_tmp_create(path, &o->tmp, &fd, err);
    if (st == RL_OK && !(o->f = fdopen(fd, "wb"))) {
        st = rl_fail(err, RL_EINTERNAL, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        rl_cleanup_untrack(o->tmp);
    }
    if (st != RL_OK) {
        free(o->path);
        free(o->tmp);
        free(o);
        return st;
    }
    *out = o;
    return RL_OK;
}

rl_status rl_outfile_create(const char *path, rl_outfile **out, rl_err *err)
{
    return outfile_create(path, 0, out, err);
}

rl_outfile *rl_outfile_open(const char *path)
{
    rl_outfile *o;
    rl_err err;
    rl_check(outfile_create(path, 0, &o, &err), &err);
    return o;
}

rl_outfile *rl_outfile_open_own(const char *path)
{
    rl_outfile *o;
    rl_err err;
    rl_check(outfile_create(path, 1, &o, &err), &err);
    return o;
}

static void outfile_release(rl_outfile *o)
{
    if (o->tmp) /* renamed or removed by now */
        rl_cleanup_untrack(o->tmp);
    free(o->path);
    free(o->tmp);
    free(o);
}

rl_status rl_outfile_close(rl_outfile *o, rl_err *err)
{
    rl_status st = RL_OK;
    int bad = ferror(o->f);
    bad |= fflush(o->f) != 0;
    if (!o->tmp) { /* written in place: a stream, /dev/null, another rank's copy */
        bad |= fclose(o->f) != 0;
        if (bad)
            st = rl_fail(err, RL_EINTERNAL, "write error on %s", o->path);
        outfile_release(o);
        return st;
    }
    bad |= fsync(fileno(o->f)) != 0 && errno != EINVAL;
    bad |= fclose(o->f) != 0;
    if (bad) {
        unlink(o->tmp);
        st = rl_fail(err, RL_EINPUT, "write error on %s", o->path);
    } else if ((st = rl_output_check(o->path, err)) != RL_OK) {
        unlink(o->tmp); /* made a device or a link meanwhile: still not ours to replace */
    } else if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        unlink(o->tmp);
        st = rl_fail(err, RL_EINPUT, "cannot rename into %s: %s", o->path, strerror(e));
    }
    outfile_release(o);
    return st;
}

void rl_outfile_commit(rl_outfile *o)
{
    rl_err err;
    rl_check(rl_outfile_close(o, &err), &err);
}

void rl_outfile_abort(rl_outfile *o)
{
    fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    outfile_release(o);
}

/* Call visit on each prefix of dir that ends a path component ("a", "a/b",
 * "a/b/c" for "a/b/c"), outermost first, until it returns nonzero (which is
 * returned).  The one walk behind rl_mkdirs and rl_mkdirs_new. */
static int walk_prefixes(const char *dir, int (*visit)(const char *prefix, void *ctx), void *ctx)
{
    char *p = strdup(dir);
    if (!p)
        rl_fatal("out of memory");
    int r = 0;
    for (char *s = p + 1; !r; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            r = visit(p, ctx);
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return r;
}

static int make_one(const char *prefix, void *ctx)
{
    if (mkdir(prefix, 0777) == 0 || errno == EEXIST)
        return 0;
    rl_fail(ctx, RL_EINPUT, "cannot create directory %s: %s", prefix, strerror(errno));
    return 1;
}

rl_status rl_mkdirs(const char *dir, rl_err *err)
{
    rl_err local;
    if (walk_prefixes(dir, make_one, err ? err : &local))
        return RL_EINPUT;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return rl_fail(err, RL_EINPUT, "%s is not a directory", dir);
    return RL_OK;
}

/* The outermost prefix that is missing.  Only a folder that is missing
 * (ENOENT) is ours to make and to undo: ENOTDIR or EACCES leave nothing to
 * remove. */
static int first_missing(const char *prefix, void *ctx)
{
    if (access(prefix, F_OK) == 0)
        return 0;
    if (errno == ENOENT)
        *(char **)ctx = strdup(prefix);
    return 1;
}

rl_status rl_mkdirs_new(const char *dir, char **made, rl_err *err)
{
    *made = NULL;
    walk_prefixes(dir, first_missing, made);
    rl_status st = rl_mkdirs(dir, err);
    if (st != RL_OK) {
        if (*made)
            rl_rmtree(*made);
        free(*made);
        *made = NULL;
    }
    return st;
}

void rl_mkdir_p(const char *dir)
{
    rl_err err;
    rl_check(rl_mkdirs(dir, &err), &err);
}

/* "a,b,c" into at most max values: doubles, or integers when ints is set
 * (out then holds whole numbers; each checked against the long range). */
static int parse_list(const char *flag, const char *s, int ints, double *out, long *lout, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = ints ? (double)strtol(p, &end, 10) : strtod(p, &end);
        if (end == p || errno || (*end && *end != ','))
            rl_die("%s: '%s' is not a comma-separated list of %s", flag, s, ints ? "integers" : "numbers");
        if (n == max)
            rl_die("%s: more than %d values", flag, max);
        if (ints)
            lout[n++] = strtol(p, NULL, 10);
        else
            out[n++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            rl_die("%s: '%s' ends with a comma", flag, s);
    }
    if (n == 0)
        rl_die("%s: empty list", flag);
    return n;
}

int rl_parse_doubles(const char *flag, const char *s, double *out, int max)
{
    return parse_list(flag, s, 0, out, NULL, max);
}

int rl_parse_longs(const char *flag, const char *s, long *out, int max)
{
    return parse_list(flag, s, 1, NULL, out, max);
}

/* The cores this process may use: its CPU affinity (a launcher that binds
 * each rank to its cores, taskset, a Slurm allocation), and when it may use
 * every core of the node, an equal share among the job's ranks there, so that
 * ranks x threads = cores by default (`mpirun -np 2 --bind-to none` on 2
 * cores: 1 thread each).  Results never depend on it. */
int rl_ncores(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN), n = online;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);
    if (n >= online && online > 0)
        n = online / rl_job_local_size();
    return n > 0 ? (int)n : 1;
}

void rl_set_threads(int n)
{
    omp_set_num_threads(n);
}
