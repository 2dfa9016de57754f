/* job.c: the job's answers (job.h): the installed ones, else a job of one's. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>

/* Start-up state: set once by the command layer (job.h), read afterwards. */
static const rl_job *installed;

void rl_job_install(const rl_job *job)
{
    installed = job;
}

int rl_job_rank(void)
{
    return installed ? installed->rank() : 0;
}

int rl_job_size(void)
{
    return installed ? installed->size() : 1;
}

int rl_job_local_size(void)
{
    return installed ? installed->local_size() : 1;
}

rl_status rl_job_same(const char *desc, const char *what, rl_err *err)
{
    return installed ? installed->same(desc, what, err) : RL_OK;
}

void rl_job_exit_alone(int status, const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "routelab: %s\n", msg);
    exit(status);
}

void rl_job_exit(int status, const char *msg)
{
    if (installed)
        installed->exit(status, msg);
    rl_job_exit_alone(status, msg);
}
