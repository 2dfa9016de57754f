/* test_lock.c: one writer per folder, what a failed or stopped run leaves,
 * resume.  The rows of the bad-input table
 * cover a lock held by another process for every locking command and the
 * NaN guard; here what needs more than one process or a signal. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/core/lock.h"
#include "helpers.h"

#define TINY "--layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --val-batches 1 --threads 1"

static int exists(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0;
}

/* The whole file (malloc'ed, *n bytes), NULL when missing. */
static char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n + 1);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    b[*n] = 0;
    fclose(f);
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

/* `routelab ARGS` started in the background (exec'ed by sh: the pid is
 * routelab's), stdout and stderr into files named by prefix. */
static pid_t spawn(const char *args, const char *prefix)
{
    const char *bin = getenv("ROUTELAB");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec %s %s >%s.out 2>%s.err </dev/null", bin ? bin : "build/routelab", args,
             prefix, prefix);
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        /* the signals these tests send, at their default action: a test
         * runner started as a background job of a non-interactive shell
         * inherits SIGINT ignored, and exec keeps it so (the command then
         * finished with status 0 and the SIGINT test failed for the harness,
         * not for the command) */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return p;
}

static int wait_status(pid_t p)
{
    int st;
    cr_assert_eq(waitpid(p, &st, 0), p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void nap(void)
{
    struct timespec t = { 0, 5000000 };
    nanosleep(&t, NULL);
}

/* How many names in dir hold ".tmp." (rl_outfile's temporaries). */
static int holds_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* Lines in a file (0 when missing). */
static int file_lines(const char *p)
{
    size_t n;
    char *s = slurp(p, &n);
    int k = s ? th_lines(s) : 0;
    free(s);
    return k;
}

/* Two different trainings into one --out.  Both exited 0 and one
 * was silently lost; now exactly one succeeds, the other says why in one
 * line (the folder is in use, or holds a run once the first is done), and
 * the checkpoint is the winner's, byte for byte an undisturbed run's. */
Test(lock, two_trains_one_folder_exactly_one_succeeds, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *out = th_path(d, "run"), args[2048], pre[2][512];
    th_write_text(txt, 100);
    pid_t p[2];
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 300 --lr 1e-3 --seed %d", txt, out,
                 i + 1);
        snprintf(pre[i], sizeof pre[i], "%s/p%d", d, i);
        p[i] = spawn(args, pre[i]);
    }
    int st[2] = { wait_status(p[0]), wait_status(p[1]) };
    cr_assert((st[0] == 0) + (st[1] == 0) == 1, "exit statuses %d and %d: not exactly one success", st[0], st[1]);
    const int loser = st[0] == 0;
    cr_expect_eq(st[loser], 2);
    char ep[600];
    snprintf(ep, sizeof ep, "%s.err", pre[loser]);
    size_t n;
    char *err = slurp(ep, &n);
    cr_expect(err && th_lines(err) == 1 && !strncmp(err, "routelab: train: ", 17) &&
                  (strstr(err, "is in use by another routelab process") || strstr(err, "holds a run")),
              "the refused run said: %s", err ? err : "(nothing)");
    free(err);
    /* the winner's run alone, elsewhere: the same checkpoint bytes */
    char *solo = th_path(d, "solo");
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 300 --lr 1e-3 --seed %d", txt, solo,
             2 - loser);
    cr_assert_eq(th_run(args, NULL, 0, NULL, 0), 0);
    char *a = th_path(out, "ckpt.bin"), *b = th_path(solo, "ckpt.bin");
    cr_expect(same_file(a, b), "the surviving checkpoint is not the winner's undisturbed run");
    char *lockf = th_path(out, RL_LOCK_NAME);
    cr_expect(!exists(lockf), "the lock file stays after the run");
    free(lockf);
    free(a);
    free(b);
    free(solo);
    free(out);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* A second reproduce into the OUT of one still running.  Both
 * exited 0 and every eval.tsv differed from an undisturbed grid's; now the
 * second is refused in one line naming OUT, and the first's evaluation is
 * the undisturbed one's. */
Test(lock, second_reproduce_into_a_running_grid_refused, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], pre[512], err[4096];
    th_write_text(txt, 100);
    char *g = th_path(d, "g"), *cfg = th_path(g, "config.txt");
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --seeds 1 --variants rope "
             "--probe none --eval-batches 2", txt, g);
    snprintf(pre, sizeof pre, "%s/first", d);
    pid_t first = spawn(args, pre);
    while (!exists(cfg)) /* written once the first holds OUT's lock */
        nap();
    int st = th_run(args, NULL, 0, err, sizeof err);
    cr_assert_eq(waitpid(first, NULL, WNOHANG), 0, "the first grid finished before the second started");
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect(th_lines(err) == 1 && strstr(err, g) && strstr(err, "is in use by another routelab process"), "%s",
              err);
    /* the first finishes the grid (its report may fail for want of a
     * plotting tool: the models and their evaluations are made before) */
    wait_status(first);
    char *solo = th_path(d, "solo");
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --seeds 1 --variants rope "
             "--probe none --eval-batches 2", txt, solo);
    th_run(args, NULL, 0, NULL, 0);
    char *a = th_path(g, "models/rope/seed42/ckpt.bin"), *b = th_path(solo, "models/rope/seed42/ckpt.bin");
    cr_expect(exists(a) && same_file(a, b), "the grid's model is not the undisturbed one's");
    free(a);
    free(b);
    free(solo);
    free(cfg);
    free(g);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* A temporary is stale when nobody holds its folder's lock,
 * whatever its pid: an unreaped zombie's (kill(pid, 0) succeeds for it)
 * was taken for a live writer's and stayed for ever.  reproduce removes
 * those of OUT, train those of its run folder. */
Test(lock, zombie_temporaries_removed_under_the_lock, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], name[128], err[4096];
    th_write_text(txt, 100);
    pid_t zombie = fork();
    if (zombie == 0)
        _exit(0);
    nap(); /* it has exited; not reaped until the end */
    char *g = th_path(d, "g"), *run = th_path(d, "run");
    mkdir(g, 0755);
    mkdir(run, 0755);
    snprintf(name, sizeof name, "config.txt.tmp.%ld", (long)zombie);
    char *t1 = th_path(g, name);
    snprintf(name, sizeof name, "ckpt.bin.tmp.%ld", (long)zombie);
    char *t2 = th_path(run, name);
    FILE *f = fopen(t1, "w");
    fclose(f);
    f = fopen(t2, "w");
    fclose(f);
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --seeds 1 --variants rope "
             "--probe none --eval-batches 1 --stop-at 2", txt, g);
    th_run(args, NULL, 0, err, sizeof err);
    cr_expect(!exists(t1), "reproduce left a zombie's %s", t1);
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 2 --lr 1e-3", txt, run);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_expect(!exists(t2), "train left a zombie's %s", t2);
    waitpid(zombie, NULL, 0);
    free(t1);
    free(t2);
    free(g);
    free(run);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* SIGTERM (or Ctrl-C) of a fresh training before its first
 * checkpoint removes what it made: the folder and its log.  Before, a
 * folder with only log.tsv stayed. */
Test(lock, sigterm_before_the_first_checkpoint_leaves_nothing, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], pre[512];
    th_write_text(txt, 100);
    char *top = th_path(d, "a"), *out = th_path(d, "a/run"), *log = th_path(out, "log.tsv");
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 1000000 --ckpt-every 1000000 "
             "--log-every 1000000 --lr 1e-3", txt, out);
    snprintf(pre, sizeof pre, "%s/p", d);
    pid_t p = spawn(args, pre);
    while (file_lines(log) < 3) /* header and two steps: it is training */
        nap();
    kill(p, SIGTERM);
    cr_expect_eq(wait_status(p), 128 + SIGTERM);
    cr_expect(!exists(top), "the stopped run left %s", top);
    free(log);
    free(out);
    free(top);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* Eval stopped by Ctrl-C (SIGINT) leaves no temporary of its
 * output beside it. */
Test(lock, sigint_of_eval_removes_its_temporary, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], pre[512], err[4096];
    th_write_text(txt, 400);
    char *run = th_path(d, "run"), *res = th_path(d, "res");
    mkdir(res, 0755);
    /* a model and an evaluation (every span of the stream at 5 lengths)
     * that take a second or so: long enough to be stopped while it writes */
    snprintf(args, sizeof args, "train --data %s --out %s --layers 2 --width 64 --heads 2 --ctx 64 --batch 2 "
             "--val-batches 1 --threads 1 --steps 1 --lr 1e-3", txt, run);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 64,128,256,512,1024 --full "
             "--threads 1 --out %s/eval.tsv", run, txt, res);
    snprintf(pre, sizeof pre, "%s/p", d);
    pid_t p = spawn(args, pre);
    int running = 1;
    while (!holds_tmp(res) && (running = waitpid(p, NULL, WNOHANG) == 0))
        nap();
    cr_assert(running, "eval finished before its temporary was seen");
    kill(p, SIGINT);
    cr_expect_eq(wait_status(p), 128 + SIGINT);
    cr_expect_eq(holds_tmp(res), 0, "eval left its temporary in %s", res);
    free(run);
    free(res);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* A fresh run into a folder holding an earlier run, diverging at
 * step 2, deleted that run's log.tsv (and overwrote its checkpoint).  Now
 * it is refused before anything is touched: both files keep their bytes. */
Test(lock, fresh_run_into_a_run_folder_touches_nothing, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], err[4096];
    th_write_text(txt, 100);
    char *ow = th_path(d, "ow"), *ck = th_path(ow, "ckpt.bin"), *log = th_path(ow, "log.tsv");
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 2 --lr 1e-3", txt, ow);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    size_t nc, nl;
    char *c0 = slurp(ck, &nc), *l0 = slurp(log, &nl);
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 5 --lr 1e30", txt, ow);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(th_lines(err) == 1 && strstr(err, "holds a run") && strstr(err, "--resume"), "%s", err);
    size_t n1, n2;
    char *c1 = slurp(ck, &n1), *l1 = slurp(log, &n2);
    cr_expect(c1 && n1 == nc && !memcmp(c0, c1, nc), "the earlier run's checkpoint changed");
    cr_expect(l1 && n2 == nl && !memcmp(l0, l1, nl), "the earlier run's log changed or went");
    free(c0);
    free(l0);
    free(c1);
    free(l1);
    free(ck);
    free(log);
    free(ow);
    free(txt);
    th_rmdir(d);
    free(d);
}

/* A resume to the checkpoint's own step printed "done" as if it
 * had trained.  It says the run is complete, trains nothing and changes no
 * byte; a --steps below the checkpoint's step is refused in one line. */
Test(lock, resume_at_or_below_the_checkpoint, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[2048], out[4096], err[4096];
    th_write_text(txt, 100);
    char *run = th_path(d, "run"), *ck = th_path(run, "ckpt.bin"), *log = th_path(run, "log.tsv");
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 2 --lr 1e-3", txt, run);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    size_t nc, nl, n1, n2;
    char *c0 = slurp(ck, &nc), *l0 = slurp(log, &nl);
    snprintf(args, sizeof args, "train --resume --data %s --out %s --steps 2 --threads 1", txt, run);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "already complete") && !strstr(out, "done"), "stdout: %s", out);
    snprintf(args, sizeof args, "train --resume --data %s --out %s --steps 1 --threads 1", txt, run);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 2, "%s", err);
    cr_expect(th_lines(err) == 1 && strstr(err, "below the checkpoint's step 2"), "%s", err);
    char *c1 = slurp(ck, &n1), *l1 = slurp(log, &n2);
    cr_expect(n1 == nc && !memcmp(c0, c1, nc) && n2 == nl && !memcmp(l0, l1, nl), "the run's files changed");
    free(c0);
    free(l0);
    free(c1);
    free(l1);
    free(ck);
    free(log);
    free(run);
    free(txt);
    th_rmdir(d);
    free(d);
}
