/* test_mpi_agree.c: the ranks of one job agree on the work before they
 * exchange anything.
 *
 * Ranks started with different flags (an MPMD launch, `mpirun -np 1 A : -np 1
 * B`), or reading different bytes under the same data path, used to overrun
 * each other's buffers (--width), wait for each other forever (--steps,
 * --accum) or train silently on different settings (--seed, --batch, --lr,
 * --pos, the data).  Now every rank compares its run with rank 0's first
 * (base/par/par.h, rl_par_same): the job stops with one line naming the first
 * field that differs and the rank, exit 2, and nothing is written.  And a
 * rank killed mid-exchange is named in one line, OpenMPI's own "Read -1,
 * expected ..." no longer beside it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "helpers.h"

/* mpirun's flags for the tests (as test_mpi_grid.c's), with a time limit
 * that turns a hang into status 124 */
#define MPIRUN "env OMPI_MCA_mpi_yield_when_idle=1 timeout 60 mpirun --allow-run-as-root --oversubscribe -q --bind-to none"

/* A tiny training, two steps of 1 layer of width 16 */
#define TINY "--layers 1 --ctx 8 --batch 2 --val-every 1 --val-batches 1 --threads 1"

static const char *bin(void)
{
    const char *b = getenv("ROUTELAB");
    return b ? b : "build/routelab";
}

/* Run the shell command cmd, its stdout discarded, its stderr into err;
 * returns its exit status. */
static int sh(const char *cmd, char *err, size_t errlen)
{
    char e[] = "/tmp/rl-agreeerr-XXXXXX";
    close(mkstemp(e));
    char *full;
    cr_assert(asprintf(&full, "%s >/dev/null 2>%s </dev/null", cmd, e) > 0);
    int st = system(full);
    free(full);
    char *text = rl_read_file(e, NULL);
    snprintf(err, errlen, "%s", text ? text : "");
    free(text);
    unlink(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A job folder: a/t.txt and b/t.txt the same text (rank 0 runs in a, rank
 * 1 in b: the same relative --data path) */
static char *job_dir(void)
{
    char *d = th_tmpdir(), *a = th_path(d, "a"), *b = th_path(d, "b");
    cr_assert(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
    char *ta = th_path(a, "t.txt"), *tb = th_path(b, "t.txt");
    th_write_text(ta, 300);
    th_write_text(tb, 300);
    free(ta), free(tb), free(a), free(b);
    return d;
}

/* `routelab ARGS0` as rank 0 in D/a and `routelab ARGS1` as rank 1 in D/b,
 * one job; returns its status, its stderr in err. */
static int two_ranks(const char *d, const char *args0, const char *args1, char *err, size_t errlen)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, MPIRUN " -np 1 sh -c 'cd %s/a && exec %s %s' : -np 1 sh -c 'cd %s/b && exec %s %s'", d,
             bin(), args0, d, bin(), args1);
    return sh(cmd, err, errlen);
}

/* Whether D/o exists (the job's --out) */
static int made_out(const char *d)
{
    char *o = th_path(d, "o");
    const int made = access(o, F_OK) == 0;
    free(o);
    return made;
}

/* train with TINY and `common` on both ranks, `own0` / `own1` on rank 0 /
 * 1 only: the job must stop at once with exactly the line `want` (or a line
 * starting with it when prefix is set), exit 2, D/o never made. */
static void refused(const char *own0, const char *own1, const char *want, int prefix)
{
    char *d = job_dir(), a0[2048], a1[2048], err[8192];
    snprintf(a0, sizeof a0, "train --data t.txt --out %s/o " TINY " %s", d, own0);
    snprintf(a1, sizeof a1, "train --data t.txt --out %s/o " TINY " %s", d, own1);
    const int st = two_ranks(d, a0, a1, err, sizeof err);
    cr_expect_eq(st, 2, "status %d (124: the ranks hung): %s", st, err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    if (prefix)
        cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
    else
        cr_expect_str_eq(err, want);
    cr_expect(!made_out(d), "a refused job made its --out");
    th_rmdir(d);
    free(d);
}

/* rank 1's width 32 against rank 0's 16: its gradient is twice the size of
 * rank 0's buffers (ASan: base/par/par.c, the tree's MPI_Recv) */
Test(mpi_agree, a_rank_with_another_width_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2", "--width 32 --steps 2",
            "routelab: rank 0: train: ranks differ: rank 1 has --width 32, rank 0 has --width 16\n", 0);
}

/* one more step on rank 1: it would wait for rank 0's third step forever */
Test(mpi_agree, a_rank_with_other_steps_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2", "--width 16 --steps 3",
            "routelab: rank 0: train: ranks differ: rank 1 has --steps 3, rank 0 has --steps 2\n", 0);
}

/* another accumulation: another tree of shards, exchanges that never meet */
Test(mpi_agree, a_rank_with_other_accum_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2 --accum 2", "--width 16 --steps 2 --accum 3",
            "routelab: rank 0: train: ranks differ: rank 1 has --accum 3, rank 0 has --accum 2\n", 0);
}

/* the settings that change no size but every number: silently mixed before */
Test(mpi_agree, a_rank_with_another_seed_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2 --seed 42", "--width 16 --steps 2 --seed 7",
            "routelab: rank 0: train: ranks differ: rank 1 has --seed 7, rank 0 has --seed 42\n", 0);
}

Test(mpi_agree, a_rank_with_another_batch_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2", "--width 16 --steps 2 --batch 3",
            "routelab: rank 0: train: ranks differ: rank 1 has --batch 3, rank 0 has --batch 2\n", 0);
}

Test(mpi_agree, a_rank_with_another_lr_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2 --lr 5e-4", "--width 16 --steps 2 --lr 1e-3",
            "routelab: rank 0: train: ranks differ: rank 1 has --lr 1e-3, rank 0 has --lr 5e-4\n", 0);
}

Test(mpi_agree, a_rank_with_another_position_scheme_is_refused, .timeout = 120)
{
    refused("--width 16 --steps 2 --pos rope", "--width 16 --steps 2 --pos alibi",
            "routelab: rank 0: train: ranks differ: rank 1 has --pos alibi, rank 0 has --pos rope\n", 0);
}

/* the same flags, the same path, other bytes (rank 1 runs in b/, whose
 * t.txt has one word changed): the data's contents are compared, not its
 * name */
Test(mpi_agree, a_rank_reading_other_data_under_the_same_path_is_refused, .timeout = 120)
{
    char *d = job_dir(), *tb = th_path(d, "b/t.txt"), a[2048], err[8192];
    char *text = rl_read_file(tb, NULL);
    cr_assert(text && text[0] != 'X');
    text[0] = 'X';
    FILE *f = fopen(tb, "w");
    cr_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
    snprintf(a, sizeof a, "train --data t.txt --out %s/o " TINY " --width 16 --steps 2", d);
    const int st = two_ranks(d, a, a, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    const char *want = "routelab: rank 0: train: ranks differ: rank 1 has data of ";
    cr_expect(!strncmp(err, want, strlen(want)) && strstr(err, ", rank 0 has data of "), "%s", err);
    cr_expect(!made_out(d), "a refused job made its --out");
    free(text), free(tb);
    th_rmdir(d);
    free(d);
}

/* reproduce's ranks each train their own models from the data: the same
 * check there, before any model folder */
Test(mpi_agree, reproduce_ranks_reading_other_data_are_refused, .timeout = 180)
{
    char *d = job_dir(), *tb = th_path(d, "b/t.txt"), a[2048], err[8192];
    char *text = rl_read_file(tb, NULL);
    cr_assert(text && text[0] != 'X');
    text[0] = 'X';
    FILE *f = fopen(tb, "w");
    cr_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
    snprintf(a, sizeof a,
             "reproduce --data t.txt --out %s/o " TH_MINI_GRID " --eval-batches 2 --probe none --seeds 1 "
             "--variants rope,alibi", d);
    const int st = two_ranks(d, a, a, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    const char *want = "routelab: rank 0: reproduce: ranks differ: rank 1 has data of ";
    cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
    char *models = th_path(d, "o/models");
    cr_expect_neq(access(models, F_OK), 0, "a refused grid trained");
    free(models), free(text), free(tb);
    th_rmdir(d);
    free(d);
}

/* a rank running another command altogether: its first meeting is with a
 * stranger's exchanges */
Test(mpi_agree, a_rank_running_another_command_is_refused, .timeout = 120)
{
    char *d = job_dir(), a0[2048], a1[2048], err[8192];
    snprintf(a0, sizeof a0, "train --data t.txt --out %s/o " TINY " --width 16 --steps 2", d);
    snprintf(a1, sizeof a1, "farmass --preset quick --threads 1 --out %s/o", d);
    const int st = two_ranks(d, a0, a1, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect_str_eq(err, "routelab: rank 0: train: ranks differ: rank 1 has command farmass, rank 0 has command "
                          "train\n");
    cr_expect(!made_out(d), "a refused job made its --out");
    th_rmdir(d);
    free(d);
}

/* --help on rank 1 alone: it used to print its help and leave, rank 0
 * waiting for it in the first step's exchange */
Test(mpi_agree, a_rank_asked_for_help_alone_does_not_leave_the_others_waiting, .timeout = 120)
{
    refused("--width 16 --steps 2", "--width 16 --steps 2 --help",
            "routelab: rank 0: train: ranks differ: rank 1 has --help, rank 0 has nothing there\n", 0);
}

/* Rank 0 is stopped (SIGSTOP) while rank 1 offers it a large
 * gradient (width 256: 6.8 MB), rank 1 is killed, rank 0 continues: with
 * OpenMPI's single-copy transport rank 0 then read the dead rank's memory
 * and printed "Read -1, expected 6845440, errno = 3" beside the watcher's
 * line (6 of 10 trials; 4 of 24 killed at random moments without the
 * stop).  Every one of 14 trials must give exactly the watcher's line and
 * status 137, and leave no rank running. */
Test(mpi_agree, a_rank_killed_mid_exchange_is_named_in_one_line_every_time, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt");
    th_write_text(txt, 300);
    int bad = 0;
    char first_bad[4096] = "";
    for (int trial = 0; trial < 14; trial++) {
        char script[8192], err[8192];
        snprintf(script, sizeof script,
                 "D=%s; F=\"--data $D/t.txt --layers 2 --width 256 --ctx 8 --batch 1 --accum 2 --steps 1000000 "
                 "--val-every 1000000 --ckpt-every 1000000 --threads 1 --out $D/o%d\"; "
                 MPIRUN " -np 2 %s train $F >/dev/null 2>$D/err & m=$!; rm -f $D/p0 $D/p1; "
                 "for i in $(seq 400); do "
                 "  for p in $(pgrep -f \"train $F\"); do "
                 "    e=$(tr '\\0' '\\n' </proc/$p/environ 2>/dev/null); "
                 "    echo \"$e\" | grep -qx ROUTELAB_RANK_WATCHED=1 || continue; "
                 "    echo \"$e\" | grep -qx OMPI_COMM_WORLD_RANK=0 && echo $p >$D/p0; "
                 "    echo \"$e\" | grep -qx OMPI_COMM_WORLD_RANK=1 && echo $p >$D/p1; "
                 "  done; [ -s $D/p0 ] && [ -s $D/p1 ] && break; sleep 0.05; "
                 "done; sleep 0.5; kill -STOP $(cat $D/p0); sleep 0.2; kill -9 $(cat $D/p1); kill -CONT $(cat $D/p0); "
                 "wait $m; echo $? >$D/rc; sleep 0.5; "
                 "pgrep -f \"out $D/o%d\" >$D/left || true",
                 d, trial, bin(), trial);
        cr_assert_eq(sh(script, err, sizeof err), 0, "%s", err);
        char *ep = th_path(d, "err"), *rp = th_path(d, "rc"), *lp = th_path(d, "left");
        char *e = rl_read_file(ep, NULL), *rc = rl_read_file(rp, NULL), *left = rl_read_file(lp, NULL);
        cr_assert(e && rc && left);
        if (strcmp(e, "routelab: rank 1: killed by signal 9 (Killed)\n") || atoi(rc) != 137 || *left) {
            if (!bad++)
                snprintf(first_bad, sizeof first_bad, "trial %d: status %d, stderr: %s, left running: %s", trial,
                         atoi(rc), e, left);
        }
        free(e), free(rc), free(left), free(ep), free(rp), free(lp);
    }
    cr_expect_eq(bad, 0, "%d of 14 trials not one line (%s)", bad, first_bad);
    free(txt);
    th_rmdir(d);
    free(d);
}
