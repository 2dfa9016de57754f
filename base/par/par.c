/* par.c: the ranks of one job (par.h). */
#include "par.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/util.h"

/* The exchanges' tags are 0 .. TAG_EXIT - 1 (MPI promises tags up to 32767);
 * TAG_EXIT is rank 0's failure notice alone (rl_par_exit). */
#define TAG_EXIT 32767

/* ---- the MPI calls ------------------------------------------------------
 * Every MPI call of this file goes through the few functions below.  The
 * command layer's build compiles them with MPI; the library's build (`make
 * lib`, -DRL_NO_MPI: MPI is the command layer's alone, docs/library.md#library-splits)
 * compiles them without mpi.h, as the one-process job this floor already is
 * at run time when no launcher started it: MPI is never up (par_on is 0,
 * rank 0 of 1, no communication time), every exchange returns before it
 * would call one, and the exchanges' one-process definitions below answer
 * RL_EINTERNAL with a line naming the call should a caller reach one anyway
 * (a caller's bug, not a path the library takes). */
#ifndef RL_NO_MPI
#include <mpi.h>

/* MPI's own state says whether this process joined a job: no flag of ours. */
static int par_on(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Finalized(&fin);
    return init && !fin;
}

static int mpi_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int mpi_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

static int mpi_start(int *argc, char ***argv)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return 0;
    /* errors come back as codes (the job then stops through rl_par_exit) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return 1;
}

static void mpi_stop(void)
{
    MPI_Finalize();
}

static double mpi_time(void)
{
    return MPI_Wtime();
}

static void mpi_abort(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
}

/* Rank 0's notice to every other rank that it is printing the job's failure
 * and aborting (rl_par_exit): a message of no bytes, tag TAG_EXIT, sent
 * without waiting (eager: it leaves before the abort). */
static void mpi_notify_exit(void)
{
    for (int r = 1; r < mpi_size(); r++) {
        MPI_Request q;
        if (MPI_Isend(NULL, 0, MPI_BYTE, r, TAG_EXIT, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
            MPI_Request_free(&q);
    }
}

/* Whether rank 0's notice arrives within s seconds (MPI_Iprobe, which also
 * drives the transport's progress). */
static int mpi_exit_noticed(double s)
{
    const double t0 = MPI_Wtime();
    for (;;) {
        int got = 0;
        if (MPI_Iprobe(0, TAG_EXIT, MPI_COMM_WORLD, &got, MPI_STATUS_IGNORE) == MPI_SUCCESS && got)
            return 1;
        if (MPI_Wtime() - t0 >= s)
            return 0;
        usleep(20000);
    }
}

static rl_status mpi_fail(rl_err *err, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "code %d", rc);
    return rl_fail(err, RL_EINTERNAL, "rank %d: %s failed: %s", mpi_rank(), what, s);
}

/* k bytes from root to every rank */
static rl_status mpi_bcast(void *buf, size_t k, int root, const char *what, rl_err *err)
{
    int rc = MPI_Bcast(buf, (int)k, MPI_BYTE, root, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RL_OK : mpi_fail(err, what, rc);
}

/* *out = the largest (max != 0) or smallest of every rank's *in */
static rl_status mpi_allreduce_int(const int *in, int *out, int max, rl_err *err)
{
    int rc = MPI_Allreduce(in, out, 1, MPI_INT, max ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? RL_OK : mpi_fail(err, "MPI_Allreduce", rc);
}

static rl_status mpi_send_recv(float *buf, size_t k, int peer, int tag, int sending, rl_err *err)
{
    int rc = sending ? MPI_Send(buf, (int)k, MPI_FLOAT, peer, tag, MPI_COMM_WORLD)
                     : MPI_Recv(buf, (int)k, MPI_FLOAT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? RL_OK : mpi_fail(err, sending ? "MPI_Send" : "MPI_Recv", rc);
}
#else
static int par_on(void) { return 0; }
static int mpi_rank(void) { return 0; }
static int mpi_size(void) { return 1; }
static int mpi_start(int *argc, char ***argv) { (void)argc, (void)argv; return 0; }
static void mpi_stop(void) {}
static double mpi_time(void) { return 0; }
static void mpi_abort(int status) { (void)status; }
static void mpi_notify_exit(void) {}
static int mpi_exit_noticed(double s) { (void)s; return 0; }

static rl_status no_mpi(rl_err *err, const char *what)
{
    return rl_fail(err, RL_EINTERNAL, "%s: this build has no MPI (the library's)", what);
}

static rl_status mpi_bcast(void *buf, size_t k, int root, const char *what, rl_err *err)
{
    (void)buf, (void)k, (void)root;
    return no_mpi(err, what);
}

static rl_status mpi_allreduce_int(const int *in, int *out, int max, rl_err *err)
{
    (void)in, (void)out, (void)max;
    return no_mpi(err, "MPI_Allreduce");
}

static rl_status mpi_send_recv(float *buf, size_t k, int peer, int tag, int sending, rl_err *err)
{
    (void)buf, (void)k, (void)peer, (void)tag;
    return no_mpi(err, sending ? "MPI_Send" : "MPI_Recv");
}
#endif

int rl_par_rank(void)
{
    return par_on() ? mpi_rank() : 0;
}

int rl_par_size(void)
{
    return par_on() ? mpi_size() : 1;
}

/* The launcher says how many ranks share this node: OpenMPI's mpirun
 * (OMPI_COMM_WORLD_LOCAL_SIZE), MPICH's Hydra (MPI_LOCALNRANKS), Slurm's srun
 * (SLURM_NTASKS_PER_NODE, "2" or "2(x3)").  Read, not asked of MPI: a
 * communicator split would be a collective, and rl_ncores is called by one
 * rank's option defaults at whatever moment. */
int rl_par_local_size(void)
{
    if (rl_par_size() == 1)
        return 1;
    const char *keys[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = getenv(keys[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n >= 1 && n <= INT_MAX)
            return (int)n;
    }
    return 1;
}

static int launched(void)
{
#ifdef RL_NO_MPI
    return 0; /* the library: a job of one, whoever started the process */
#endif
    const char *no = getenv("ROUTELAB_NO_MPI");
    if (no && *no)
        return 0;
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

static void par_finalize(void)
{
    if (par_on())
        mpi_stop();
}

/* The launcher's name for this rank, before MPI is up (for the watcher). */
static const char *launcher_rank(void)
{
    const char *keys[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (getenv(keys[i]))
            return getenv(keys[i]);
    return "?";
}

/* The watcher's child and whether a signal was passed on: the only statics
 * of this file, as a signal handler can reach nothing else. */
static volatile sig_atomic_t watched_pid, forwarded;

static void forward(int sig)
{
    forwarded |= sig != SIGCONT; /* a job control resume stops nothing */
    if (watched_pid > 0)
        kill((pid_t)watched_pid, sig);
}

/* A rank runs as the child of a small watcher, the process the launcher
 * started.  Why: a rank killed by a signal (kill -9, the OOM killer) prints
 * nothing, and `mpirun -q` prints nothing either, so without a watcher no line
 * would name the rank.  The watcher runs the program again (/proc/self/exe,
 * ROUTELAB_RANK_WATCHED=1: the child is the MPI rank), passes on the signals
 * the launcher sends, and exits with the child's status; when the child died
 * of a signal the watcher did not pass on, it first prints
 * "routelab: rank R: killed by signal S (NAME)".  A stop the launcher asked
 * for (it signals every rank after another one failed) prints nothing, so the
 * job's one line is the failing rank's; so does a SIGKILL that reaches the
 * watcher within half a second of the rank's (srun's end of a step).  Returns only in the child, or when
 * the watcher cannot start (the rank then runs unwatched). */
static void watch_rank(char **argv)
{
    if (getenv("ROUTELAB_RANK_WATCHED"))
        return;
    const pid_t parent = getpid();
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the launcher killed the watcher: the rank goes too */
        if (getppid() != parent)
            _exit(1);
        setenv("ROUTELAB_RANK_WATCHED", "1", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "routelab: rank %s: cannot run the rank under its watcher\n", launcher_rank());
        _exit(1);
    }
    watched_pid = pid;
    const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], forward);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            _exit(1);
    if (WIFSIGNALED(st)) {
        const int sig = WTERMSIG(st);
        /* srun ends a step (after an MPI_Abort, scancel's SIGKILL) by sending
         * SIGKILL to each process of it in turn, the rank perhaps before its
         * watcher: a watcher still alive half a second after its rank's
         * SIGKILL was not part of such a stop (the OOM killer, kill -9) */
        if (sig == SIGKILL && !forwarded)
            usleep(500000);
        if (!forwarded)
            fprintf(stderr, "routelab: rank %s: killed by signal %d (%s)\n", launcher_rank(), sig, strsignal(sig));
        _exit(128 + sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* OpenMPI's shared-memory transport (btl vader) moves a large message by
 * reading it straight out of the sender's memory (CMA, process_vm_readv).
 * When the sender dies mid-transfer (kill -9, the OOM killer) the reader
 * prints "Read -1, expected N, errno = 3" itself before the launcher stops
 * it: a second line beside the watcher's (2 of 8 killed trainings).  Copied
 * through the shared segment instead, a message from a dead rank is merely
 * never complete, and the job's one line is the watcher's.  The copy costs
 * little beside a step's arithmetic.  Set before MPI starts, in the
 * environment the watched rank inherits; a value the user gave (mpirun
 * --mca, or the variable itself) is kept. */
#define SINGLE_COPY_VAR "OMPI_MCA_btl_vader_single_copy_mechanism"

rl_status rl_par_init(int *argc, char ***argv, rl_err *err)
{
    if (!launched())
        return RL_OK;
    setenv(SINGLE_COPY_VAR, "none", 0);
    watch_rank(*argv);
    if (!mpi_start(argc, argv))
        return rl_fail(err, RL_EINTERNAL, "MPI_Init_thread failed");
    atexit(par_finalize);
    if (rl_par_rank() != 0 && !freopen("/dev/null", "w", stdout))
        return rl_fail(err, RL_EINTERNAL, "rank %d: cannot silence stdout", rl_par_rank());
    return RL_OK;
}

void rl_par_range_of(long n, int rank, int size, long *lo, long *hi)
{
    const long q = n / size, r = n % size;
    *lo = rank * q + (rank < r ? rank : r);
    *hi = *lo + q + (rank < r ? 1 : 0);
}

void rl_par_range(long n, long *lo, long *hi)
{
    rl_par_range_of(n, rl_par_rank(), rl_par_size(), lo, hi);
}

/* MPI counts are ints: move large buffers as pieces of at most this many bytes */
#define PIECE ((size_t)1 << 30)

rl_status rl_par_bcast(void *buf, size_t bytes, rl_err *err)
{
    if (rl_par_size() == 1)
        return RL_OK;
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t k = bytes - off < PIECE ? bytes - off : PIECE;
        RL_TRY(mpi_bcast((char *)buf + off, k, 0, "MPI_Bcast", err));
    }
    return RL_OK;
}

/* Every rank's block in turn, broadcast by its owner: the blocks are
 * contiguous, so item order is kept whatever the rank count. */
rl_status rl_par_gather(void *buf, long n, size_t item_bytes, rl_err *err)
{
    const int size = rl_par_size();
    if (size == 1)
        return RL_OK;
    for (int r = 0; r < size; r++) {
        long lo, hi;
        rl_par_range_of(n, r, size, &lo, &hi);
        char *p = (char *)buf + (size_t)lo * item_bytes;
        const size_t bytes = (size_t)(hi - lo) * item_bytes;
        for (size_t off = 0; off < bytes; off += PIECE) {
            size_t k = bytes - off < PIECE ? bytes - off : PIECE;
            RL_TRY(mpi_bcast(p + off, k, r, "MPI_Bcast (gather)", err));
        }
    }
    return RL_OK;
}

rl_status rl_par_agree(rl_status st, rl_err *err)
{
    const int size = rl_par_size(), rank = rl_par_rank();
    if (size == 1)
        return st;
    /* the largest status, then the lowest rank with it */
    int mine = (int)st * size + (size - 1 - rank), worst = 0;
    RL_TRY(mpi_allreduce_int(&mine, &worst, 1, err));
    const rl_status all = (rl_status)(worst / size);
    if (all == RL_OK)
        return RL_OK;
    const int from = size - 1 - worst % size;
    char msg[sizeof err->msg];
    memset(msg, 0, sizeof msg);
    if (rank == from)
        snprintf(msg, sizeof msg, "rank %d: %.490s", rank, err && err->msg[0] ? err->msg : "failed");
    RL_TRY(mpi_bcast(msg, sizeof msg, from, "MPI_Bcast", err));
    msg[sizeof msg - 1] = 0;
    return rl_fail(err, all, "%s", msg);
}

/* The first line where text a and text b differ, as lengths and starts
 * (a line absent from the shorter text is empty).  Returns 0 when they are
 * the same text. */
static int first_difference(const char *a, const char *b, const char **la, int *na, const char **lb, int *nb)
{
    while (*a || *b) {
        const size_t ka = strcspn(a, "\n"), kb = strcspn(b, "\n");
        if (ka != kb || memcmp(a, b, ka)) {
            *la = a, *na = (int)ka, *lb = b, *nb = (int)kb;
            return 1;
        }
        a += ka + (a[ka] == '\n');
        b += kb + (b[kb] == '\n');
    }
    return 0;
}

rl_status rl_par_same(const char *desc, const char *what, rl_err *err)
{
    const int size = rl_par_size(), rank = rl_par_rank();
    if (size == 1)
        return RL_OK;
    /* rank 0's text, its length first */
    unsigned long long len = strlen(desc);
    RL_TRY(rl_par_bcast(&len, sizeof len, err));
    char *ref = rl_xmalloc((size_t)len + 1);
    if (rank == 0)
        memcpy(ref, desc, (size_t)len);
    ref[len] = 0;
    rl_status st = rl_par_bcast(ref, (size_t)len, err);
    if (st != RL_OK) {
        free(ref);
        return st;
    }
    char msg[sizeof err->msg] = "";
    const char *mine, *theirs;
    int nm, nt;
    const int differs = first_difference(desc, ref, &mine, &nm, &theirs, &nt);
    if (differs) {
        /* a line absent from one side is named so (at most 200 bytes of each: both fit the line) */
        const char *none = "nothing there";
        if (!nm)
            mine = none, nm = (int)strlen(none);
        if (!nt)
            theirs = none, nt = (int)strlen(none);
        snprintf(msg, sizeof msg, "ranks differ: rank %d has %.*s, rank 0 has %.*s", rank, nm < 200 ? nm : 200,
                 mine, nt < 200 ? nt : 200, theirs);
    }
    free(ref);
    /* the lowest rank that differs speaks for the job (size: none does) */
    int me = differs ? rank : size, low = size;
    RL_TRY(mpi_allreduce_int(&me, &low, 0, err));
    if (low == size)
        return RL_OK;
    RL_TRY(mpi_bcast(msg, sizeof msg, low, "MPI_Bcast", err));
    msg[sizeof msg - 1] = 0;
    /* each rank's own what: the line rank 0 prints names rank 0's command */
    return rl_fail(err, RL_EINPUT, "%s%s%s", what ? what : "", what ? ": " : "", msg);
}

/* ---- the fixed tree ---------------------------------------------------- */

struct rl_par_tree {
    size_t len;
    int depth;
    float **level; /* level[d]: the right child's sum at recursion depth d */
    double comm_s; /* seconds spent in MPI (sends, receives and their waits, the broadcast) */
};

double rl_par_tree_comm_seconds(const rl_par_tree *t)
{
    return t->comm_s;
}

static int tree_depth(long n)
{
    int d = 0;
    while (((long)1 << d) < n)
        d++;
    return d;
}

rl_par_tree *rl_par_tree_alloc(long n, size_t len)
{
    rl_par_tree *t = rl_xcalloc(1, sizeof *t);
    t->len = len;
    t->depth = tree_depth(n < 1 ? 1 : n);
    t->level = rl_xcalloc((size_t)t->depth + 1, sizeof *t->level);
    for (int d = 0; d <= t->depth; d++)
        t->level[d] = rl_xmalloc(sizeof(float) * (len ? len : 1));
    return t;
}

void rl_par_tree_free(rl_par_tree *t)
{
    if (!t)
        return;
    for (int d = 0; d <= t->depth; d++)
        free(t->level[d]);
    free(t->level);
    free(t);
}

/* out += r, element by element: the only addition of the tree */
static void add_into(float *restrict out, const float *restrict r, size_t len)
{
#pragma omp parallel for schedule(static) if (len > 65536)
    for (size_t i = 0; i < len; i++)
        out[i] = out[i] + r[i];
}

typedef struct {
    rl_par_tree *t;
    long n;
    int size;
    rl_par_item_fn item;
    void *ctx;
} tree_run;

static int owner(const tree_run *w, long i)
{
    /* the rank whose block holds item i */
    for (int r = 0; r < w->size; r++) {
        long lo, hi;
        rl_par_range_of(w->n, r, w->size, &lo, &hi);
        if (i >= lo && i < hi)
            return r;
    }
    return -1;
}

/* S[a, b) of items a single rank owns, computed here */
static rl_status local_sum(tree_run *w, long a, long b, int d, float *out, rl_err *err)
{
    if (b - a == 1)
        return w->item(w->ctx, a, out, err);
    const long m = (a + b) / 2;
    RL_TRY(local_sum(w, a, m, d + 1, out, err));
    RL_TRY(local_sum(w, m, b, d + 1, w->t->level[d], err));
    add_into(out, w->t->level[d], w->t->len);
    return RL_OK;
}

static rl_status send_recv(float *buf, size_t len, int peer, long tag, int sending, rl_par_tree *t,
                           rl_err *err)
{
    const double t0 = mpi_time();
    for (size_t off = 0; off < len; off += PIECE / sizeof(float)) {
        size_t k = len - off < PIECE / sizeof(float) ? len - off : PIECE / sizeof(float);
        RL_TRY(mpi_send_recv(buf + off, k, peer, (int)(tag % TAG_EXIT), sending, err));
    }
    t->comm_s += mpi_time() - t0;
    return RL_OK;
}

/* Walk the tree from [a, b); afterwards S[a, b) is in out on owner(a), the
 * rank whose block holds a.  A node inside one rank's block is computed
 * there; a node across blocks is completed by the owner of its left child,
 * which receives the right child's sum from the owner of m.  With blocks
 * aligned to the tree (a power-of-two count of ranks and items) each rank
 * sends at most once and rank 0 receives log2(size) vectors (a binomial
 * tree), instead of one from every rank. */
static rl_status walk(tree_run *w, long a, long b, int d, float *out, int rank, rl_err *err)
{
    const int oa = owner(w, a), ob = owner(w, b - 1);
    if (oa == ob)
        return oa == rank ? local_sum(w, a, b, d, out, err) : RL_OK;
    const long m = (a + b) / 2;
    const int om = owner(w, m);
    float *right = w->t->level[d];
    RL_TRY(walk(w, a, m, d + 1, out, rank, err));
    RL_TRY(walk(w, m, b, d + 1, right, rank, err));
    if (om != oa && rank == om)
        RL_TRY(send_recv(right, w->t->len, oa, m, 1, w->t, err));
    if (rank == oa) {
        if (om != oa)
            RL_TRY(send_recv(right, w->t->len, om, m, 0, w->t, err));
        add_into(out, right, w->t->len);
    }
    return RL_OK;
}

rl_status rl_par_tree_sum(rl_par_tree *t, long n, rl_par_item_fn item, void *ctx, float *out, rl_err *err)
{
    if (n < 1 || tree_depth(n) > t->depth)
        return rl_fail(err, RL_EINTERNAL, "tree of %ld items in a workspace for depth %d", n, t->depth);
    tree_run w = { t, n, rl_par_size(), item, ctx };
    const int rank = rl_par_rank();
    if (w.size == 1)
        return local_sum(&w, 0, n, 0, out, err);
    RL_TRY(walk(&w, 0, n, 0, out, rank, err));
    const double t0 = mpi_time();
    rl_status st = rl_par_bcast(out, sizeof(float) * t->len, err);
    t->comm_s += mpi_time() - t0;
    return st;
}

void rl_par_exit(int status, const char *msg)
{
    if (!par_on())
        rl_job_exit_alone(status, msg);
    fflush(stdout);
    const int rank = rl_par_rank();
    /* A failure rank 0 shares (a bad flag: every rank parses the same argv)
     * is rank 0's to print: rank 0 tells the others it is aborting, and a
     * rank that hears so within 2 s stays silent until the launcher ends it
     * (however long the launcher takes to kill: under srun on a loaded node,
     * more than 2 s); a rank that hears nothing prints its own line. */
    if (rank == 0)
        mpi_notify_exit();
    else if (mpi_exit_noticed(2.0)) {
        sleep(30);
        exit(status);
    }
    fprintf(stderr, "routelab: rank %d: %s\n", rank, msg);
    fflush(stderr);
    usleep(300000); /* the launcher forwards the line before it kills the job */
    mpi_abort(status);
    exit(status);
}

const rl_job rl_par_job = { rl_par_rank, rl_par_size, rl_par_local_size, rl_par_same, rl_par_exit };
