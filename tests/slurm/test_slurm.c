/* test_slurm.c: docs/slurm/paper.sbatch under a real Slurm (docs/mpi.md#slurm),
 * `make test-slurm` (run by .ci/run).  Each test starts its own
 * one-node cluster (tools/scripts/slurm_cluster.sh: Debian's slurmctld, slurmd and
 * munged, every file in the test's folder) and submits the sbatch script
 * README shows, with a miniature grid as its arguments, over 2 tasks.
 *
 * What could come out the other way: the job might finish before scancel
 * reaches it (then the test fails, it does not pass vacuously), a cancelled
 * rank might leave a half-written file or a finished-looking model, the
 * resubmission might retrain what was finished or write other bytes than one
 * process does, and a bad flag might end the job in more than one line or with
 * another status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../base/core/util.h"
#include "../helpers.h"

/* Six models (3 variants x 2 seeds) of ~1 s each: long enough that the job is
 * still running when the first model is done, short enough for CI. */
#define GRID_FLAGS                                                                                            \
    "--layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --lr 1e-3:1500 --val-every 500 --val-batches 1 "      \
    "--ckpt-every 100 --max-mult 4 --theory none --threads 1 --eval-batches 2 --probe none --seed 42 "        \
    "--seeds 2 --variants rope,alibi,none"
#define NMODELS 6
static const char *const variants[] = { "rope", "alibi", "none" };

/* sbatch's options: one node, 2 tasks of one CPU (the #SBATCH lines ask for
 * 12 nodes of 64), a 10-minute limit, the job's output into the test's folder */
#define SBATCH "sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --time=10"

static char *cluster; /* the running cluster's folder (the fixture's) */

static const char *bin(void)
{
    const char *b = getenv("ROUTELAB");
    return b ? b : "build/routelab";
}

/* Run cmd through sh; its stdout (up to len bytes) into out unless NULL.
 * Returns the exit status. */
static int sh(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    size_t n = 0;
    char tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, p)) > 0)
        if (out && n + 1 < len) {
            size_t c = k < len - 1 - n ? k : len - 1 - n;
            memcpy(out + n, tmp, c);
            n += c;
        }
    if (out)
        out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cluster_start(void)
{
    th_to_root();
    cluster = th_tmpdir();
    char cmd[1024], out[1024];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/slurm_cluster.sh start '%s/c' 2>&1", cluster);
    int st = sh(cmd, out, sizeof out);
    cr_assert_eq(st, 0, "the cluster did not start: %s", out);
    char conf[1024];
    snprintf(conf, sizeof conf, "%s/c/slurm.conf", cluster);
    setenv("SLURM_CONF", conf, 1);
}

static void cluster_stop(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/slurm_cluster.sh stop '%s/c'", cluster);
    (void)sh(cmd, NULL, 0);
    th_rmdir(cluster);
    free(cluster);
}

/* Submit docs/slurm/paper.sbatch with reproduce's flags args; the job id. */
static long submit(const char *args)
{
    char cmd[4096], out[256];
    snprintf(cmd, sizeof cmd, SBATCH " --output='%s/slurm-%%j.out' docs/slurm/paper.sbatch %s", cluster, args);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "sbatch refused: %s", cmd);
    long j = atol(out);
    cr_assert_gt(j, 0, "sbatch printed no job id: %s", out);
    return j;
}

/* The job's JobState (scontrol show job) into st; its ExitCode into ec. */
static void job_state(long j, char *st, size_t stlen, char *ec, size_t eclen)
{
    char cmd[256], out[8192];
    snprintf(cmd, sizeof cmd, "scontrol show job %ld", j);
    cr_assert_eq(sh(cmd, out, sizeof out), 0, "scontrol does not know job %ld", j);
    const char *s = strstr(out, "JobState="), *e = strstr(out, " ExitCode=");
    cr_assert(s && e, "scontrol: %s", out);
    snprintf(st, stlen, "%.*s", (int)strcspn(s + 9, " \n"), s + 9);
    snprintf(ec, eclen, "%.*s", (int)strcspn(e + 10, " \n"), e + 10);
}

static int finished(const char *st)
{
    return strcmp(st, "PENDING") && strcmp(st, "RUNNING") && strcmp(st, "CONFIGURING") &&
           strcmp(st, "COMPLETING") && strcmp(st, "SUSPENDED");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Wait (at most limit seconds) for job j to end; its state and exit code. */
static void wait_job(long j, double limit, char *st, size_t stlen, char *ec, size_t eclen)
{
    double t0 = now();
    for (;;) {
        job_state(j, st, stlen, ec, eclen);
        if (finished(st))
            return;
        cr_assert_lt(now() - t0, limit, "job %ld still %s after %.0f s", j, st, limit);
        usleep(100000);
    }
}

/* How many models of grid g carry the "trained" marker. */
static int trained(const char *g)
{
    int n = 0;
    for (int v = 0; v < 3; v++)
        for (int s = 42; s < 44; s++) {
            char p[2048];
            snprintf(p, sizeof p, "%s/models/%s/seed%d/trained", g, variants[v], s);
            n += access(p, F_OK) == 0;
        }
    return n;
}

static int same_file(const char *a, const char *b)
{
    char *cmd;
    cr_assert(asprintf(&cmd, "cmp -s '%s' '%s'", a, b) > 0);
    int same = system(cmd) == 0;
    free(cmd);
    return same;
}

static char *job_output(long j)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/slurm-%ld.out", cluster, j);
    char *t = rl_read_file(p, NULL);
    cr_assert(t, "no output file %s", p);
    return t;
}

Test(slurm, cancelled_mid_run_then_resubmitted_equals_one_process, .init = cluster_start, .fini = cluster_stop,
     .timeout = 600)
{
    char *txt = th_path(cluster, "t.txt"), *one = th_path(cluster, "one"), *two = th_path(cluster, "two");
    th_write_text(txt, 300);
    char cmd[4096], args[4096], st[64], ec[64];
    snprintf(cmd, sizeof cmd, "'%s' reproduce --data '%s' --out '%s' " GRID_FLAGS " >/dev/null 2>&1", bin(), txt, one);
    cr_assert_eq(system(cmd), 0, "the one-process grid failed: %s", cmd);
    snprintf(args, sizeof args, "--data '%s' --out '%s' " GRID_FLAGS, txt, two);

    /* the first submission: cancelled as soon as one model is finished */
    long j1 = submit(args);
    double t0 = now();
    int n = 0;
    for (;;) {
        job_state(j1, st, sizeof st, ec, sizeof ec);
        cr_assert(!finished(st), "job %ld ended (%s, %d models) before it could be cancelled", j1, st, trained(two));
        if (!strcmp(st, "RUNNING") && (n = trained(two)) >= 1)
            break;
        cr_assert_lt(now() - t0, 300, "no model finished in 300 s (job %s)", st);
        usleep(20000);
    }
    snprintf(cmd, sizeof cmd, "scancel %ld", j1);
    cr_assert_eq(system(cmd), 0);
    wait_job(j1, 120, st, sizeof st, ec, sizeof ec);
    cr_expect_str_eq(st, "CANCELLED", "job %ld ended %s", j1, st);
    cr_expect(trained(two) < NMODELS, "every model finished: the job was not cancelled mid-run");
    char *p = th_path(two, "table.tsv");
    cr_expect_neq(access(p, F_OK), 0, "a cancelled job wrote its report");
    free(p);
    /* "[-]-out": the pattern does not match the shell that runs pgrep */
    snprintf(cmd, sizeof cmd, "pgrep -f -- '[-]-out %s' >/dev/null", two);
    cr_expect_neq(system(cmd), 0, "a rank outlived scancel");
    /* which models the cancelled job finished, and their checkpoints' inode
     * and mtime: a resubmission that retrained one would replace its file */
    int done[3][2];
    struct stat before[3][2];
    for (int v = 0; v < 3; v++)
        for (int s = 0; s < 2; s++) {
            char m[2048];
            snprintf(m, sizeof m, "%s/models/%s/seed%d/trained", two, variants[v], 42 + s);
            done[v][s] = access(m, F_OK) == 0;
            snprintf(m, sizeof m, "%s/models/%s/seed%d/ckpt.bin", two, variants[v], 42 + s);
            if (done[v][s])
                cr_assert_eq(stat(m, &before[v][s]), 0, "%s", m);
        }

    /* the resubmission: the same script and flags finish the grid over 2
     * ranks, training only what was not finished */
    long j2 = submit(args);
    wait_job(j2, 400, st, sizeof st, ec, sizeof ec);
    char *o = job_output(j2);
    cr_assert_str_eq(st, "COMPLETED", "job %ld ended %s (exit %s): %s", j2, st, ec, o);
    cr_expect_str_eq(ec, "0:0");
    cr_expect(strstr(o, "models left, dealt round robin over 2 ranks"), "not 2 ranks: %s", o);
    int retrained = 0;
    for (int v = 0; v < 3; v++)
        for (int s = 0; s < 2; s++) {
            char m[2048], line[256];
            /* only rank 0's progress lines reach the output: the line is
             * evidence for its models, the checkpoint's inode for all */
            snprintf(line, sizeof line, " %s seed %d: training ", variants[v], 42 + s);
            if (!done[v][s])
                continue;
            snprintf(m, sizeof m, "%s/models/%s/seed%d/ckpt.bin", two, variants[v], 42 + s);
            struct stat after;
            cr_assert_eq(stat(m, &after), 0, "%s", m);
            retrained += strstr(o, line) != NULL || after.st_ino != before[v][s].st_ino ||
                         after.st_mtim.tv_sec != before[v][s].st_mtim.tv_sec ||
                         after.st_mtim.tv_nsec != before[v][s].st_mtim.tv_nsec;
        }
    cr_expect_eq(retrained, 0, "%d finished models were trained again: %s", retrained, o);
    free(o);

    /* byte for byte the one process's grid */
    const char *top[] = { "table.tsv", "summary.tsv", "orderings.tsv", "valcheck.tsv", "farpred.tsv" };
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        char *a = th_path(one, top[i]), *b = th_path(two, top[i]);
        cr_expect(same_file(a, b), "%s differs from one process's", top[i]);
        free(a);
        free(b);
    }
    for (int v = 0; v < 3; v++)
        for (int s = 42; s < 44; s++)
            for (int f = 0; f < 2; f++) {
                char a[2048], b[2048];
                const char *name = f ? "eval.tsv" : "ckpt.bin";
                snprintf(a, sizeof a, "%s/models/%s/seed%d/%s", one, variants[v], s, name);
                snprintf(b, sizeof b, "%s/models/%s/seed%d/%s", two, variants[v], s, name);
                cr_expect(same_file(a, b), "%s seed %d %s differs from one process's", variants[v], s, name);
            }
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.tmp.*' | grep -q .", two);
    cr_expect_neq(system(cmd), 0, "a half-written file is left in %s", two);
    free(txt);
    free(one);
    free(two);
}

/* A bad flag through sbatch: the job fails with reproduce's status 2, and its
 * output holds one routelab line naming the flag (srun adds its own lines). */
Test(slurm, a_bad_flag_fails_the_job_in_one_line, .init = cluster_start, .fini = cluster_stop, .timeout = 300)
{
    char args[2048], st[64], ec[64];
    snprintf(args, sizeof args, "--out '%s/bad' --widht 16", cluster);
    long j = submit(args);
    wait_job(j, 120, st, sizeof st, ec, sizeof ec);
    char *o = job_output(j);
    cr_expect_str_eq(st, "FAILED", "job %ld ended %s: %s", j, st, o);
    cr_expect_str_eq(ec, "2:0", "%s", o);
    int lines = 0;
    const char *first = NULL;
    for (const char *l = o; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (!strncmp(l, "routelab: ", 10)) {
            lines++;
            first = first ? first : l;
        }
    cr_expect_eq(lines, 1, "not one routelab line (%d): %s", lines, o);
    cr_expect(first && strstr(first, "--widht"), "the line does not name the flag: %s", o);
    char *b = th_path(cluster, "bad");
    cr_expect_neq(access(b, F_OK), 0, "a failed job created its output folder");
    free(b);
    free(o);
}
