/* job.h: what the ground floor asks of the job this process belongs to.
 *
 * base/core/ knows no MPI (docs/layout.md#mpi-floor): it compiles and links with plain gcc.
 * Yet a few of its answers depend on the job: which rank writes the outputs
 * (util.c, lock.c), how many ranks share the node (rl_ncores), whether every
 * rank parsed the same flags (opts.c), and how a failure stops the job
 * (rl_exit_line).  The MPI floor (base/par/) holds those answers; the command
 * layer installs them once at start-up, before anything else runs
 * (rl_job_install(&rl_par_job), program/cmd/routelab.c).  That one pointer is
 * start-up state, never changed afterwards.  Until it is set, and in every
 * program without the MPI floor (a closed form linked against core alone,
 * the fuzzers), the process is a job of one: rank 0 of 1, and a failure is
 * one line "routelab: <msg>" and exit. */
#ifndef RL_JOB_H
#define RL_JOB_H

#include "err.h"

typedef struct {
    int (*rank)(void);       /* this process's rank */
    int (*size)(void);       /* the job's rank count */
    int (*local_size)(void); /* the job's ranks on this node */
    /* RL_OK when every rank describes its work as rank 0 does (par.h, rl_par_same) */
    rl_status (*same)(const char *desc, const char *what, rl_err *err);
    /* one line "routelab: [rank R: ]<msg>" on stderr and the job stops with status */
    void (*exit)(int status, const char *msg) __attribute__((noreturn));
} rl_job;

/* Command layer only, once, first thing in main: the job's answers from now
 * on (job is not copied: it must outlive the process's work). */
void rl_job_install(const rl_job *job);

/* The installed job's answers, or a job of one's. */
int rl_job_rank(void);
int rl_job_size(void);
int rl_job_local_size(void);
rl_status rl_job_same(const char *desc, const char *what, rl_err *err);
/* Command layer only (through rl_exit_line): stop the job (see above). */
void rl_job_exit(int status, const char *msg) __attribute__((noreturn));

/* A job of one's stop: flush stdout, "routelab: <msg>" on stderr, exit with
 * status.  The MPI floor's own stop when MPI is not running. */
void rl_job_exit_alone(int status, const char *msg) __attribute__((noreturn));

#endif
