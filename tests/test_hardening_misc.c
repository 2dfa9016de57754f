/* test_hardening_misc.c: faults that need more than a bad-input row: S(c, M)
 * by its closed form at any M, the address-space limit OpenBLAS spun under,
 * OMP_STACKSIZE, and data brown's cache over another archive. */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../theory/theory.h"
#include "helpers.h"
#include "../base/core/util.h"

/* S by the direct sum, long double, for M past the direct range */
static long double pair_sum_loop(double complex chi, long m)
{
    long double complex p = 1, acc = 0;
    for (long delta = 1; delta < m; delta++) {
        p *= chi;
        acc += (long double)(m - delta) * p;
    }
    return (long double)m + 2.0L * creall(acc);
}

Test(hardening_misc, pair_sum_closed_form_matches_the_loop)
{
    const double complex chis[] = { 0.5, -0.3, 0.999999, -1, 1, 0.9 * cexp(0.4 * I), 0.9999 * cexp(1e-4 * I),
                                    1e-300, cexp(0.01 * I) };
    const long ms[] = { RL_PAIR_SUM_DIRECT_MAX + 1, 5000, 20001, 100000 };
    for (size_t c = 0; c < sizeof chis / sizeof *chis; c++)
        for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
            const long double want = pair_sum_loop(chis[c], ms[k]);
            const double got = rl_value_pair_sum(chis[c], ms[k]);
            /* relative to the sum of |terms| (M^2): the loop's own rounding scale */
            const double scale = (double)ms[k] * (double)ms[k];
            cr_expect_leq(fabs(got - (double)want), 1e-11 * scale, "chi %zu M %ld: %.17g vs %.17Lg", c, ms[k],
                          got, want);
        }
}

Test(hardening_misc, pair_sum_at_huge_m_is_the_geometric_limit)
{
    /* real c in (-1, 1): S = M (1 + c)/(1 - c) - 2 c (1 - c^M)/(1 - c)^2 */
    const double cs[] = { 0.5, -0.3, 0.9, 0.999 };
    const long ms[] = { 1000000000000L, 9007199254740992L };
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 2; k++) {
            const double c = cs[i], m = (double)ms[k];
            const double want = m * (1 + c) / (1 - c) - 2 * c / ((1 - c) * (1 - c));
            const double got = rl_value_pair_sum(c, ms[k]);
            cr_expect_leq(fabs(got - want), 1e-12 * want, "c %g M %ld: %.17g vs %.17g", c, ms[k], got, want);
        }
    cr_expect_eq(rl_value_pair_sum(1, 1000000000000L), 1e24);
    cr_expect_eq(rl_value_pair_sum(-1, 1000000000000L), 0);
    cr_expect_eq(rl_value_pair_sum(-1, 1000000000001L), 1);
    cr_expect_eq(rl_value_pair_sum(0, 1000000000000L), 1e12);
}

/* th_run runs "ROUTELAB ARGS >out 2>err" through sh: the tests below that
 * need an environment or a limit give ARGS as "--help >/dev/null; COMMAND",
 * so that the captured command is COMMAND (the first, --help, is harmless). */

/* The command's one stderr line, exit status and a bound on its time (the
 * old tree spun for ever: timeout's 124). */
static void one_line(const char *args, int status, const char *needle)
{
    char out[4096], err[4096];
    int rc = th_run(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, status, "%s: exit %d, expected %d; stderr: %s", args, rc, status, err);
    cr_expect_eq(th_lines(err), 1, "%s: not one line on stderr: %s", args, err);
    cr_expect(strncmp(err, "routelab: ", 10) == 0 && strstr(err, needle), "%s: stderr: %s", args, err);
}

Test(hardening_misc, small_address_space_is_one_line_not_a_spin, .timeout = 120)
{
    /* the shell applies the limit to routelab alone; timeout bounds the old spin */
    const char *b = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    const char *cmds[] = { "claims", "sample --count 1 --d 2" };
    for (int k = 0; k < 2; k++)
        for (int kb = 100000; kb <= 250000; kb += 150000) {
            char args[512];
            snprintf(args, sizeof args, "--help >/dev/null; (ulimit -v %d; exec timeout 20 %s %s)", kb, b, cmds[k]);
            one_line(args, 1, "address-space limit (ulimit -v)");
        }
}

/* Past the start-up check, in the band where OpenBLAS's
 * first per-thread buffer (128 MiB, from malloc) is refused, `train` spun in
 * blas_memory_alloc and `sample` ended with libgomp's own line.  The option
 * parser now checks the room the command's --threads need (one buffer a
 * thread, a stack per started thread) before anything runs: one line,
 * status 1, nothing made; with room, the same command runs. */
Test(hardening_misc, the_threads_room_under_ulimit_is_checked_first, .timeout = 180)
{
    const char *b = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char *dir = th_tmpdir(), text[512], args[1024];
    snprintf(text, sizeof text, "%s/t.txt", dir);
    FILE *f = fopen(text, "w");
    cr_assert(f);
    for (int i = 0; i < 800; i++)
        fprintf(f, "line %d: the quick fox jumps\n", i);
    fclose(f);
    const char *train = "train --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --steps 3";
    const int kbs[] = { 360000, 450000 };
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "--help >/dev/null; (ulimit -v %d; exec timeout 30 %s %s --threads 1 --data %s --out %s/o)",
                 kbs[k], b, train, text, dir);
        one_line(args, 1, "too small for 1 thread");
        char o[600];
        snprintf(o, sizeof o, "%s/o", dir);
        cr_expect(access(o, F_OK) != 0, "%s: made %s", args, o);
    }
    snprintf(args, sizeof args, "--help >/dev/null; (ulimit -v 500000; exec timeout 30 %s sample --family haar --d 8 --count 4 --threads 2)", b);
    one_line(args, 1, "too small for 2 threads");
    snprintf(args, sizeof args, "--help >/dev/null; (ulimit -v 600000; exec timeout 60 %s %s --threads 1 --data %s --out %s/o)", b,
             train, text, dir);
    char out[4096], err[4096];
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "with room: %s", err);
    th_rmdir(dir);
}

Test(hardening_misc, omp_stacksize_out_of_range_is_refused)
{
    const char *b = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char args[512];
    snprintf(args, sizeof args, "--help >/dev/null; OMP_STACKSIZE=99999999G %s sample --count 1 --d 2", b);
    one_line(args, 2, "OMP_STACKSIZE '99999999G' is out of range");
    snprintf(args, sizeof args, "--help >/dev/null; OMP_STACKSIZE=4G %s bound farmass", b);
    one_line(args, 2, "OMP_STACKSIZE '4G' is out of range");
    char out[256];
    snprintf(args, sizeof args, "--help >/dev/null; OMP_STACKSIZE=16M %s bound farmass", b);
    cr_expect_eq(th_run(args, out, sizeof out, NULL, 0), 0, "OMP_STACKSIZE=16M is refused");
}

/* libgomp reads OMP_* in its initialiser, before main, and reported a value
 * it cannot parse on its own line, then ran on (exit 0, two lines with the
 * empty one before it).  Now its complaint is routelab's one line, status 2;
 * what it prints on request (OMP_DISPLAY_ENV) still reaches stderr. */
Test(hardening_misc, libgomp_environment_complaints_are_one_line)
{
    const char *b = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    const char *bad[][2] = { { "OMP_NUM_THREADS=abc", "OMP_NUM_THREADS ('abc')" },
                             { "OMP_SCHEDULE=qq", "OMP_SCHEDULE ('qq')" },
                             { "OMP_STACKSIZE=abc", "OMP_STACKSIZE ('abc')" },
                             { "OMP_PROC_BIND=zz", "OMP_PROC_BIND ('zz')" },
                             { "GOMP_SPINCOUNT=x", "GOMP_SPINCOUNT ('x')" } };
    char args[512], out[4096], err[8192];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "--help >/dev/null; %s %s bound farmass", bad[i][0], b);
        one_line(args, 2, bad[i][1]);
    }
    snprintf(args, sizeof args, "--help >/dev/null; OMP_NUM_THREADS=2 OMP_DISPLAY_ENV=true %s bound farmass", b);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(err, "OPENMP DISPLAY ENVIRONMENT BEGIN") != NULL, "OMP_DISPLAY_ENV's text lost: %s", err);
    cr_expect(strtod(out, NULL) > 0, "no result: %s", out);
}

/* OpenMP's waiting threads sleep unless the user chose how they wait
 * (program/cmd/startenv.h, docs/speed/eval-and-training.md#omp-passive-wait): with neither OMP_WAIT_POLICY
 * nor GOMP_SPINCOUNT set, routelab runs itself again with OMP_WAIT_POLICY=passive
 * (libgomp then spins 0 times: its verbose display says GOMP_SPINCOUNT =
 * '0', where its own default is 300,000); a policy or spin count the user
 * set is kept; the display is printed once, by the run that computes. */
Test(hardening_misc, openmp_waits_passively_unless_the_user_chose)
{
    const char *b = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    const char *cases[][2] = { { "", "GOMP_SPINCOUNT = '0'" },
                               { "OMP_WAIT_POLICY=active", "GOMP_SPINCOUNT = '30000000000'" },
                               { "GOMP_SPINCOUNT=1000", "GOMP_SPINCOUNT = '1000'" } };
    char args[512], out[4096], err[16384];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args,
                 "--help >/dev/null; env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT %s OMP_DISPLAY_ENV=verbose %s bound farmass",
                 cases[i][0], b);
        cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
        cr_expect(strstr(err, cases[i][1]) != NULL, "[%s] wanted %s: %s", cases[i][0], cases[i][1], err);
        const char *first = strstr(err, "OPENMP DISPLAY ENVIRONMENT BEGIN");
        cr_expect(first && !strstr(first + 1, "OPENMP DISPLAY ENVIRONMENT BEGIN"), "[%s] not one display: %s",
                  cases[i][0], err);
        cr_expect(strtod(out, NULL) > 0, "no result: %s", out);
    }
}

/* A Brown-like archive of 11 documents whose words are `word`. */
static char *brown_archive(const char *dir, const char *name, const char *word)
{
    char *pkg = th_path(dir, "package");
    mkdir(pkg, 0755);
    for (int i = 1; i <= 11; i++) {
        char doc[16];
        snprintf(doc, sizeof doc, "ca%02d", i);
        char *p = th_path(pkg, doc);
        FILE *f = fopen(p, "w");
        cr_assert(f);
        fprintf(f, "The/at %s/nn %d/cd ./.\n", word, i);
        fclose(f);
        free(p);
    }
    char *tgz = th_path(dir, name), cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && tar -czf %s package && rm -r package", dir, name);
    cr_assert_eq(system(cmd), 0);
    free(pkg);
    return tgz;
}

Test(hardening_misc, brown_cache_of_another_archive_is_refused)
{
    char *dir = th_tmpdir(), *data = th_path(dir, "brown");
    char *a = brown_archive(dir, "a.tgz", "jury"), *b = brown_archive(dir, "b.tgz", "county");
    char args[2048], out[4096], err[4096];
    snprintf(args, sizeof args, "data brown --from %s --out %s", a, data);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    /* the same archive again: cached */
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "cached"), "%s", out);
    char *tr = th_path(data, "train.bin");
    struct stat before, after;
    cr_assert_eq(stat(tr, &before), 0);
    /* another archive: refused, the folder untouched */
    snprintf(args, sizeof args, "data brown --from %s --out %s", b, data);
    one_line(args, 2, "not built from");
    cr_assert_eq(stat(tr, &after), 0);
    cr_expect(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
              before.st_size == after.st_size);
    th_rmdir(dir);
    free(tr);
    free(a);
    free(b);
    free(data);
    free(dir);
}

Test(hardening_misc, reproduce_variant_list_is_bounded_before_any_folder)
{
    /* 300 variants failed only after training every model ("too many variants to plot") */
    char *dir = th_tmpdir(), *txt = th_path(dir, "t.txt"), *out = th_path(dir, "g");
    th_write_text(txt, 20);
    size_t n = 300 * 12 + 64;
    char *args = malloc(n + 512);
    int off = snprintf(args, n, "reproduce --data %s --out %s --variants ", txt, out);
    for (int v = 0; v < 300; v++)
        off += snprintf(args + off, n - off, v ? ",rope@%d" : "rope@%d", 500 + v);
    one_line(args, 2, "--variants: 300 variants");
    struct stat sb;
    cr_expect(stat(out, &sb) != 0, "reproduce made %s before refusing", out);
    free(args);
    th_rmdir(dir);
    free(out);
    free(txt);
    free(dir);
}

/* SIGTERM to tools/scripts/compare_builds.sh once left its temporary folder and a
 * subshell that kept training.  Run from a folder with the scripts and a small data/brown
 * (made by `routelab data text`), its temporary folder under a TMPDIR of the test's own: a
 * TERM two seconds in stops every process it started and removes the folder. */
Test(hardening_misc, compare_builds_stops_its_children_on_term, .timeout = 120)
{
    th_to_root();
    char *d = th_tmpdir(), cmd[16384], root[PATH_MAX];
    cr_assert(getcwd(root, sizeof root));
    const char *bin = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char abin[PATH_MAX];
    cr_assert(realpath(bin, abin));
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/w/tools %s/tmp && ln -s %s/tools/scripts %s/w/tools/scripts && cd %s/w && "
             "%s data text %s/NOTES.md --out data/brown > /dev/null",
             d, d, root, d, d, abin, root);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd,
             "cd %s/w && (TMPDIR=%s/tmp sh tools/scripts/compare_builds.sh bytes %s %s > ../out 2>&1 & echo $! > ../pid; "
             "wait) ; true",
             d, d, abin, abin);
    /* the script's shells inherit the signals' dispositions: a TERM ignored or blocked here
     * (as a test runner may leave it) could not be trapped there (POSIX sh) */
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* started in the background, so that the test can send the signal */
    char bg[16500];
    snprintf(bg, sizeof bg, "(%s) &", cmd);
    cr_assert_eq(system(bg), 0);
    sleep(3);
    char *pidf = th_path(d, "pid"), *pid = rl_read_file(pidf, NULL);
    cr_assert(pid && atoi(pid) > 0, "the script did not start");
    snprintf(cmd, sizeof cmd, "ls %s/tmp | grep -q .", d);
    cr_expect_eq(system(cmd), 0, "no temporary folder 3 s in: the test proves nothing");
    snprintf(cmd, sizeof cmd, "kill -TERM %d", atoi(pid));
    cr_assert_eq(system(cmd), 0);
    /* its processes gone, its folder removed, within a few seconds */
    int left = 1;
    for (int i = 0; i < 50 && left; i++) {
        usleep(200000);
        /* tm[p]: the pattern matches the script's processes, never this shell's own command
         * line (which holds "tm[p]"); the folder is listed apart */
        snprintf(cmd, sizeof cmd, "pgrep -f -- '%s/tm[p]' > /dev/null", d);
        left = system(cmd) == 0;
        snprintf(cmd, sizeof cmd, "test -n \"$(ls -A %s/tmp)\"", d);
        left |= system(cmd) == 0;
    }
    cr_expect(!left, "a process of the script or its temporary folder is left 10 s after TERM");
    free(pid);
    free(pidf);
    th_rmdir(d);
}

/* `kill -9` of a writer whose output lies outside a locked run folder
 * (`sample --out out/s.txt`, `eval --out elsewhere/e.tsv`) left its temporary for good.  The
 * next write of the same output removes the temporaries of that name whose writer is dead, and
 * only those: a live process's, and another output's, stay. */
Test(hardening_misc, a_dead_writers_temporaries_are_removed_by_the_next_write)
{
    char *d = th_tmpdir(), cmd[8192];
    /* a pid that is surely dead: a child that has exited and been reaped */
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    cr_assert(dead > 0);
    waitpid(dead, NULL, 0);
    char stale[4096], live[4096], other[4096];
    snprintf(stale, sizeof stale, "%s/s.txt.tmp.%ld.abcdEFGH", d, (long)dead);
    snprintf(live, sizeof live, "%s/s.txt.tmp.%ld.abcdEFGH", d, (long)getpid());
    snprintf(other, sizeof other, "%s/t.txt.tmp.%ld.abcdEFGH", d, (long)dead);
    const char *files[] = { stale, live, other };
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(files[i], "w");
        cr_assert(f);
        fputs("half\n", f);
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "sample --family haar --d 3 --count 1 --out %s/s.txt", d);
    char err[2048];
    cr_assert_eq(th_run(cmd, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_expect_neq(access(stale, F_OK), 0, "the dead writer's temporary of s.txt is left");
    cr_expect_eq(access(live, F_OK), 0, "a live process's temporary was removed");
    cr_expect_eq(access(other, F_OK), 0, "another output's temporary was removed");
    th_rmdir(d);
}
