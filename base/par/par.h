/* par.h: the ranks of one job (MPI), and sums in an order fixed by the work.
 *
 * The MPI floor (docs/layout.md#mpi-floor, docs/mpi.md#mpi-layer): the only folder that calls MPI,
 * above base/core/ and below the kernels that split work across ranks (mc/, model/'s
 * training, experiments/, program/bench/, program/reproduce/) and the command layer.  The
 * floors below it never call MPI: what base/core/ asks of the job (which rank, how
 * a failure stops the job) it asks through base/core/job.h, whose answers are
 * rl_par_job, installed by the command layer at start-up.
 *
 * Without a launcher routelab is one process and MPI is never initialised.
 * Under `mpirun` or Slurm's `srun` (their environment: OMPI_COMM_WORLD_SIZE,
 * PMIX_RANK, PMI_SIZE) every process is a rank of MPI_COMM_WORLD, unless
 * ROUTELAB_NO_MPI is set (a child that a rank runs, such as reproduce's
 * trainings, is one process of its own).
 *
 * Results never depend on the rank count.  Work is cut into items fixed by
 * the problem (a batch's shards, a Monte Carlo sweep's cells, a grid's
 * trainings), never by the ranks; a rank computes a contiguous block of items
 * (rl_par_range) and the items' results are combined in the items' own order
 * (rl_par_gather) or along one fixed binary tree over the items
 * (rl_par_tree_sum), the same for 1 rank and for 64.
 *
 * Rank 0 alone touches the file system's outputs: on another rank stdout is
 * /dev/null and base/core/util.c's output files are discarded instead of renamed
 * into place (base/core/util.c asks rl_job_rank, which is rl_par_rank once
 * installed).  MPI's communicator is the only state, and it is MPI's. */
#ifndef RL_PAR_H
#define RL_PAR_H

#include <stddef.h>

#include "../core/err.h"
#include "../core/job.h"

/* Join the job when a launcher started this process (see above): MPI with
 * funnelled threads (OpenMP threads never call MPI).  Returns RL_EINTERNAL
 * when MPI cannot start.  Ends with MPI_Finalize at exit. */
rl_status rl_par_init(int *argc, char ***argv, rl_err *err);

/* This process's rank and the job's rank count (0 and 1 without MPI). */
int rl_par_rank(void);
int rl_par_size(void);

/* The job's ranks on this node, as the launcher tells them (1 without MPI
 * or when the launcher does not say). */
int rl_par_local_size(void);

/* Items [*lo, *hi) of n owned by `rank` among `size` ranks: contiguous
 * blocks in rank order, the first n % size ranks one item more. */
void rl_par_range_of(long n, int rank, int size, long *lo, long *hi);
/* The same for this process. */
void rl_par_range(long n, long *lo, long *hi);

/* buf holds n items of item_bytes, this rank's block (rl_par_range) filled
 * in; afterwards every rank holds all n items (MPI_Allgatherv, in pieces
 * below INT_MAX bytes).  A no-op with one rank. */
rl_status rl_par_gather(void *buf, long n, size_t item_bytes, rl_err *err);

/* Rank 0's bytes to every rank. */
rl_status rl_par_bcast(void *buf, size_t bytes, rl_err *err);

/* The job's worst status: every rank passes its own; each gets the largest
 * (RL_EINPUT > RL_EINTERNAL > RL_OK), and the message of the lowest rank that
 * has it, prefixed "rank R" when the job has more than one rank.  Lets every
 * rank stop together where one of them failed alone. */
rl_status rl_par_agree(rl_status st, rl_err *err);

/* The job's ranks agree on the work before they exchange anything: desc is
 * this rank's description of it, one "FIELD VALUE" line per thing that
 * shapes the work (the flags, the data's size and checksum, ...).  Rank 0's
 * text goes to every rank; each compares its own with it.  RL_OK on every
 * rank when all are the same; otherwise RL_EINPUT on every rank with one
 * line from the lowest rank that differs, naming its first differing line,
 * after the rank's own what: "WHAT: ranks differ: rank 1 has --width 32,
 * rank 0 has --width 16" (no "WHAT: " when what is NULL).  Collective: every rank must call it, each time in the same
 * order, before any other exchange that depends on the work (a rank that
 * fails before it stops the job through rl_par_exit, so no rank is left
 * waiting).  RL_OK at once with one rank. */
rl_status rl_par_same(const char *desc, const char *what, rl_err *err);

/* The fixed-tree sum over n items of float vectors of length len:
 *   S[a, b) = item a                       if b - a = 1,
 *   S[a, b) = S[a, m) + S[m, b),  m = (a + b) / 2   (left + right, element-wise),
 * so the bytes of S[0, n) depend on n alone.  A rank evaluates the maximal
 * subtrees inside its block (rl_par_range of n) by calling item(ctx, i, out)
 * for i = lo, lo + 1, ..., hi - 1; a node across blocks is completed by the
 * owner of its left child from the right child's sum (a binomial tree when
 * the blocks align); rank 0 broadcasts the root: every rank gets it in out. */
typedef rl_status (*rl_par_item_fn)(void *ctx, long i, float *out, rl_err *err);

typedef struct rl_par_tree rl_par_tree;
/* A workspace for trees of at most n items of len floats (depth + 1 vectors). */
rl_par_tree *rl_par_tree_alloc(long n, size_t len);
void rl_par_tree_free(rl_par_tree *t);
rl_status rl_par_tree_sum(rl_par_tree *t, long n, rl_par_item_fn item, void *ctx, float *out, rl_err *err);
/* Seconds this workspace's sums spent in MPI so far (waiting for a slower
 * rank included): the communication share of a data-parallel step. */
double rl_par_tree_comm_seconds(const rl_par_tree *t);

/* Command layer only: stop the whole job after a failure on this rank.
 * Prints "routelab: [rank R: ]<msg>" on one line (under MPI a rank other than
 * 0 waits a moment first, so that a failure every rank shares is printed
 * once, by rank 0) and exits with status (MPI_Abort under MPI; without MPI
 * core's rl_job_exit_alone). */
void rl_par_exit(int status, const char *msg) __attribute__((noreturn));

/* base/core/job.h's questions answered by MPI: rl_par_rank, rl_par_size,
 * rl_par_local_size, rl_par_same, rl_par_exit.  The command layer installs
 * it once, first thing (rl_job_install); each answer is a job of one's when
 * no launcher started the process. */
extern const rl_job rl_par_job;

#endif
