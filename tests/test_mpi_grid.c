/* test_mpi_grid.c: `routelab reproduce` under mpirun: the grid
 * across ranks and faults.  The ranks deal the unfinished models among
 * themselves; which rank trains a model changes no byte of it, so a grid
 * interrupted with 2 ranks and resumed with 1 ends with the table of an
 * uninterrupted single process.  A rank whose child fails stops the job
 * with one line naming the rank, leaving no report and no half-written
 * file, and the next run finishes the grid. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "helpers.h"

/* The miniature grid of the reproduce suites (8 steps, checkpoints every 2)
 * with two variants and two seeds: four models, well under a second each. */
#define GRID_FLAGS "--eval-batches 2 --probe none --seed 42 --seeds 2 --variants rope,alibi"

/* mpirun's flags for the tests: waiting ranks yield their core, no banners
 * (a failure is the program's one line), a time limit. */
#define MPIRUN "env OMPI_MCA_mpi_yield_when_idle=1 timeout 120 mpirun --allow-run-as-root --oversubscribe -q"

static const char *bin(void)
{
    const char *b = getenv("ROUTELAB");
    return b ? b : "build/routelab";
}

/* Run the shell command cmd, its stderr into err; returns its exit status. */
static int sh(const char *cmd, char *err, size_t errlen)
{
    char e[] = "/tmp/rl-mpierr-XXXXXX";
    close(mkstemp(e));
    char *full;
    cr_assert(asprintf(&full, "%s >/dev/null 2>%s </dev/null", cmd, e) > 0);
    int st = system(full);
    free(full);
    size_t n = 0;
    char *text = rl_read_file(e, &n);
    snprintf(err, errlen, "%s", text ? text : "");
    free(text);
    unlink(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The grid's arguments after `routelab`, into out g. */
static void grid_args(char *buf, size_t n, const char *txt, const char *g, const char *extra)
{
    snprintf(buf, n, "reproduce --data %s --out %s " TH_MINI_GRID " " GRID_FLAGS " %s", txt, g, extra);
}

static int one_process(const char *txt, const char *g, const char *extra, char *err, size_t errlen)
{
    char a[2048], cmd[4096];
    grid_args(a, sizeof a, txt, g, extra);
    snprintf(cmd, sizeof cmd, "%s %s", bin(), a);
    return sh(cmd, err, errlen);
}

static int ranks(int np, const char *txt, const char *g, const char *extra, char *err, size_t errlen)
{
    char a[2048], cmd[4096];
    grid_args(a, sizeof a, txt, g, extra);
    snprintf(cmd, sizeof cmd, MPIRUN " -np %d %s %s", np, bin(), a);
    return sh(cmd, err, errlen);
}

static int same_file(const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    return system(cmd) == 0;
}

/* Whether any file below dir is a temporary (NAME.tmp.PID). */
static int temporaries_below(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.tmp.*' | grep -q .", dir);
    return system(cmd) == 0;
}

static char *model_file(const char *g, const char *var, const char *name)
{
    char *p;
    cr_assert(asprintf(&p, "%s/models/%s/seed42/%s", g, var, name) > 0);
    return p;
}

Test(mpi_grid, two_ranks_interrupted_then_one_process_equals_one_process, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *ga = th_path(d, "a"), *gb = th_path(d, "b");
    char err[8192];
    th_write_text(txt, 300);
    cr_assert_eq(one_process(txt, ga, "", err, sizeof err), 0, "%s", err);

    /* 2 ranks, every training stopped at step 4: rank 0 holds the first
     * model (rope seed 42), rank 1 the second (alibi seed 42), each with
     * its checkpoint and its own config.txt; no report yet */
    cr_assert_eq(ranks(2, txt, gb, "--stop-at 4", err, sizeof err), 0, "%s", err);
    const char *var[] = { "rope", "alibi" };
    for (int v = 0; v < 2; v++) {
        char *ck = model_file(gb, var[v], "ckpt.bin"), *cf = model_file(gb, var[v], "config.txt");
        char *tr = model_file(gb, var[v], "trained");
        cr_expect_eq(access(ck, F_OK), 0, "rank %d did not train %s: %s", v, var[v], err);
        cr_expect_eq(access(cf, F_OK), 0, "rank %d did not write %s", v, cf);
        cr_expect_neq(access(tr, F_OK), 0, "%s: trained past --stop-at", var[v]);
        free(ck);
        free(cf);
        free(tr);
    }
    char *tb = th_path(gb, "table.tsv"), *ta = th_path(ga, "table.tsv");
    cr_expect_neq(access(tb, F_OK), 0, "a report from an interrupted grid");

    /* resumed by one process: the same table, bytes for bytes */
    cr_assert_eq(one_process(txt, gb, "", err, sizeof err), 0, "%s", err);
    cr_expect(same_file(ta, tb), "table.tsv differs from the uninterrupted single process's");
    const char *same[] = { "summary.tsv", "orderings.tsv", "valcheck.tsv", "models/alibi/seed43/ckpt.bin" };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char *a = th_path(ga, same[i]), *b = th_path(gb, same[i]);
        cr_expect(same_file(a, b), "%s differs", same[i]);
        free(a);
        free(b);
    }
    cr_expect(!temporaries_below(gb));
    free(ta);
    free(tb);
    th_rmdir(d);
    free(d);
    free(txt);
    free(ga);
    free(gb);
}

Test(mpi_grid, three_ranks_write_the_single_process_table, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *ga = th_path(d, "a"), *gc = th_path(d, "c");
    char err[8192];
    th_write_text(txt, 300);
    cr_assert_eq(one_process(txt, ga, "", err, sizeof err), 0, "%s", err);
    cr_assert_eq(ranks(3, txt, gc, "", err, sizeof err), 0, "%s", err);
    char *a = th_path(ga, "table.tsv"), *c = th_path(gc, "table.tsv");
    cr_expect(same_file(a, c), "table.tsv of 3 ranks differs from one process's");
    free(a);
    free(c);
    th_rmdir(d);
    free(d);
    free(txt);
    free(ga);
    free(gc);
}

Test(mpi_grid, a_failing_rank_stops_the_job_in_one_line_and_the_next_run_finishes, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    char a[2048], cmd[8192], err[8192];
    th_write_text(txt, 300);
    /* rank 1's first training (alibi seed 42) refuses to start: a folder
     * stands where its log.tsv goes (an output that is not a regular file).
     * Not a memory limit on rank 1: reproduce checks every model against the
     * machine before any folder, so that would stop rank 1 before its child */
    char *obstacle = model_file(g, "alibi", "log.tsv");
    rl_mkdir_p(obstacle);
    grid_args(a, sizeof a, txt, g, "");
    snprintf(cmd, sizeof cmd, MPIRUN " -np 2 %s %s", bin(), a);
    int st = sh(cmd, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    cr_expect(!strncmp(err, "routelab: rank 1: reproduce: training alibi seed 42 failed (exit status 2): train: ",
                       strlen("routelab: rank 1: reproduce: training alibi seed 42 failed (exit status 2): train: ")),
              "%s", err);
    const char *none[] = { "table.tsv", "REPORT.md", "summary.tsv" };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        char *p = th_path(g, none[i]);
        cr_expect_neq(access(p, F_OK), 0, "%s written by a failed job", none[i]);
        free(p);
    }
    cr_expect(!temporaries_below(g), "a half-written file is left");
    /* the next run (one process, the obstacle gone) finishes the grid */
    cr_assert_eq(rmdir(obstacle), 0, "%s", obstacle);
    free(obstacle);
    cr_assert_eq(one_process(txt, g, "", err, sizeof err), 0, "%s", err);
    char *t = th_path(g, "table.tsv");
    cr_expect_eq(access(t, F_OK), 0);
    free(t);
    th_rmdir(d);
    free(d);
    free(txt);
    free(g);
}

/* A rank killed by a signal (kill -9, as the OOM killer does) prints
 * nothing itself, and `mpirun -q` nothing either: its watcher (base/par/par.c)
 * names it.  Rank 1's MPI process (ROUTELAB_RANK_WATCHED=1 in its
 * environment) is killed while farmass runs: the job's stderr is exactly one
 * line naming rank 1 and the signal, the status 128 + 9, no rank is left
 * running and no output was written. */
Test(mpi_grid, a_killed_rank_is_named_in_one_line, .timeout = 300)
{
    char *d = th_tmpdir(), script[4096], err[8192];
    snprintf(script, sizeof script,
             "D=%s; " MPIRUN " -np 2 %s farmass --preset quick --seed 3 --threads 1 --out $D/o >/dev/null 2>$D/err & m=$!; "
             "for i in $(seq 300); do "
             "  for p in $(pgrep -f \"farmass --preset quick --seed 3 --threads 1 --out $D/o\"); do "
             "    e=$(tr '\\0' '\\n' </proc/$p/environ 2>/dev/null); "
             "    echo \"$e\" | grep -qx OMPI_COMM_WORLD_RANK=1 && echo \"$e\" | grep -qx ROUTELAB_RANK_WATCHED=1 && echo $p >$D/pid; "
             "  done; [ -s $D/pid ] && break; sleep 0.05; "
             "done; kill -9 $(cat $D/pid); wait $m; echo $? >$D/rc; sleep 1; "
             "pgrep -f \"out $D/o\" >$D/left || true",
             d, bin());
    cr_assert_eq(sh(script, err, sizeof err), 0, "%s", err);
    char *ep = th_path(d, "err"), *rp = th_path(d, "rc"), *lp = th_path(d, "left"), *o = th_path(d, "o");
    char *e = rl_read_file(ep, NULL), *rc = rl_read_file(rp, NULL), *left = rl_read_file(lp, NULL);
    cr_assert(e && rc && left);
    cr_expect_str_eq(e, "routelab: rank 1: killed by signal 9 (Killed)\n");
    cr_expect_eq(atoi(rc), 137, "status %s", rc);
    cr_expect_str_eq(left, "", "ranks left running: %s", left);
    cr_expect(!temporaries_below(d));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' 2>/dev/null)\"", o);
    cr_expect_eq(system(cmd), 0, "farmass wrote into its OUT");
    free(e), free(rc), free(left), free(ep), free(rp), free(lp), free(o);
    th_rmdir(d);
    free(d);
}
