/* test_outputs.c: output targets, temporaries and what a failed run leaves
 * (an output that is not a regular file, or that is an input, is a row of
 * the bad-input table instead).  Each test runs the real binary
 * ($ROUTELAB) by fork/exec. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define VICTIM "a file outside the output folder\n"

/* How a child is run: its PATH (NULL: ours), a file-size limit in bytes (0:
 * none; SIGXFSZ ignored, so a write past it fails with EFBIG), and the
 * symbolic links to plant, before it execs, at plant[k] + ".tmp.<its pid>"
 * (the names of the old temporary scheme) pointing at victim. */
typedef struct {
    const char *path;
    long fsize;
    const char *const *plant;
    const char *victim;
} run_how;

/* Run routelab argv (argv[0] unused) as how says; stderr into err.  Returns
 * the exit status (-1 when killed). */
static int run(const char *const *argv, const run_how *how, char *err, size_t errlen)
{
    const char *bin = getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab";
    char *exe = realpath(bin, NULL);
    cr_assert(exe, "no routelab at %s", bin);
    char ep[] = "/tmp/rl-outputs-err-XXXXXX";
    int efd = mkstemp(ep), go[2];
    cr_assert(efd >= 0 && pipe(go) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1) /* the parent planted its links */
            _exit(126);
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(efd, 2);
        if (how && how->path)
            setenv("PATH", how->path, 1);
        if (how && how->fsize) {
            struct rlimit r = { (rlim_t)how->fsize, (rlim_t)how->fsize };
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &r);
        }
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(go[0]);
    for (int k = 0; how && how->plant && how->plant[k]; k++) {
        char name[4096];
        snprintf(name, sizeof name, "%s.tmp.%ld", how->plant[k], (long)pid);
        cr_assert_eq(symlink(how->victim, name), 0, "symlink %s: %s", name, strerror(errno));
    }
    cr_assert_eq(write(go[1], "g", 1), 1);
    close(go[1]);
    int st;
    waitpid(pid, &st, 0);
    size_t n = 0;
    if (err) {
        FILE *f = fopen(ep, "rb");
        n = f ? fread(err, 1, errlen - 1, f) : 0;
        if (f)
            fclose(f);
        err[n] = 0;
    }
    close(efd);
    unlink(ep);
    free(exe);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(s, f);
    fclose(f);
}

static int is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* A tiny model d/m/ckpt.bin trained on d/text.txt. */
static void tiny_model(const char *d, char **ck, char **text)
{
    char args[2048], err[4096];
    *text = th_path(d, "text.txt");
    th_write_text(*text, 80);
    char *m = th_path(d, "m");
    snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 8 --heads 2 --ctx 8 --batch 2 "
             "--steps 2 --lr 1e-3 --threads 1", *text, m);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "set-up: %s", err);
    *ck = th_path(m, "ckpt.bin");
    free(m);
}

/* The temporary was OUT.tmp.PID, opened following links.  A link
 * planted at that name for the very pid that writes (the child is stopped
 * between fork and exec) made routelab write through it, outside the output
 * folder, and then rename the link into place. */
Test(outputs, planted_symlink_temporary_is_never_followed, .timeout = 120)
{
    char *d = th_tmpdir(), *ck, *text, err[4096];
    tiny_model(d, &ck, &text);
    char *victim = th_path(d, "victim.txt"), *outd = th_path(d, "o");
    write_file(victim, VICTIM);
    mkdir(outd, 0755);
    /* sample through rl_outfile */
    char *out = th_path(outd, "steps.txt");
    const char *plant1[] = { out, NULL };
    run_how h1 = { NULL, 0, plant1, victim };
    const char *a1[] = { "routelab", "sample", "--d", "4", "--count", "3", "--out", out, NULL };
    cr_expect_eq(run(a1, &h1, err, sizeof err), 0, "sample: %s", err);
    cr_expect_str_eq(slurp(victim), VICTIM, "sample wrote through the planted link");
    cr_expect(is_regular(out), "sample: %s is not the regular file written", out);
    /* probe's tables and its figures (gnuplot's temporary, program/report/plot.c) */
    char *pd = th_path(outd, "p");
    mkdir(pd, 0755);
    char *names[4] = { th_path(pd, "probe.tsv"), th_path(pd, "distance.tsv"), th_path(pd, "probe.png"),
                       th_path(pd, "distance.png") };
    const char *plant2[] = { names[0], names[1], names[2], names[3], NULL };
    run_how h2 = { NULL, 0, plant2, victim };
    const char *a2[] = { "routelab", "probe", "--ckpt", ck, "--data", text, "--lengths", "16", "--windows", "1",
                         "--out", pd, "--threads", "1", NULL };
    cr_expect_eq(run(a2, &h2, err, sizeof err), 0, "probe: %s", err);
    cr_expect_str_eq(slurp(victim), VICTIM, "probe wrote through a planted link");
    for (int k = 0; k < 4; k++) {
        cr_expect(is_regular(names[k]), "probe: %s is not the regular file written", names[k]);
        free(names[k]);
    }
    free(pd);
    free(out);
    free(outd);
    free(victim);
    free(ck);
    free(text);
    th_rmdir(d);
    free(d);
}

/* The new temporaries (NAME.tmp.PID.RANDOM) of a killed run are stale
 * temporaries too.  Which are stale is the folder lock's rule (base/core/lock.h):
 * every writer holds the folder's lock, so in a folder whose lock train
 * takes no temporary has a live writer, whatever its pid: a dead pid's and
 * a live unrelated pid's (kill(pid, 0) is true for a zombie and for a
 * recycled pid) are both removed; the old name form is
 * covered by hardening_model/stale_temporary_files_removed. */
Test(outputs, stale_random_temporaries_removed, .timeout = 120)
{
    char *d = th_tmpdir(), *ck, *text, name[256], args[2048], err[4096];
    tiny_model(d, &ck, &text);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* a pid of no process now */
    char *m = th_path(d, "m");
    snprintf(name, sizeof name, "ckpt.bin.tmp.%ld.Ab3dE9xZ", (long)child);
    char *dead = th_path(m, name);
    snprintf(name, sizeof name, "log.tsv.tmp.%ld.Q1w2E3r4", (long)child);
    char *dead2 = th_path(m, name);
    snprintf(name, sizeof name, "ckpt.bin.tmp.%ld.Zz9Yy8Xx", (long)getpid());
    char *live = th_path(m, name);
    write_file(dead, "half a checkpoint");
    write_file(dead2, "half a log");
    write_file(live, "");
    snprintf(args, sizeof args, "train --resume --data %s --out %s --steps 3 --threads 1", text, m);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_expect(access(dead, F_OK) != 0 && access(dead2, F_OK) != 0, "a dead pid's temporary stays");
    cr_expect(access(live, F_OK) != 0, "a temporary of a live pid that holds no lock stays");
    free(dead);
    free(dead2);
    free(live);
    free(m);
    free(ck);
    free(text);
    th_rmdir(d);
    free(d);
}

/* Entries of dir (not . and ..), names joined by spaces into list. */
static int entries(const char *dir, char *list, size_t len)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -mindepth 1 | sort | tr '\\n' ' '", dir);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(list, 1, len - 1, p) : 0;
    if (p)
        pclose(p);
    list[n] = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += list[i] == ' ';
    return k;
}

/* Fill the tmpfs at dir until only `left` bytes are free (a few KB, not 0). */
static void fill_to(const char *dir, long left)
{
    char *p = th_path(dir, "filler");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char block[4096];
    while (fd >= 0 && write(fd, block, sizeof block) == (ssize_t)sizeof block)
        ;
    if (fd >= 0) {
        const off_t size = lseek(fd, 0, SEEK_CUR);
        cr_assert_eq(ftruncate(fd, size > left ? size - left : 0), 0);
        close(fd);
    }
    free(p);
}

/* On a disk with a few KB left a claim command, theory and probe
 * each left their --out folder (values also its *.tmp.PID files, probe its
 * TSVs).  Each now fails with one line and leaves nothing it made, and a
 * folder that was there before stays.  On a 64 KB tmpfs when it can be
 * mounted (root), else with a 4 KB file-size limit (RLIMIT_FSIZE). */
Test(outputs, full_disk_leaves_nothing, .timeout = 600)
{
    char *d = th_tmpdir(), *ck, *text, err[4096], list[4096];
    tiny_model(d, &ck, &text);
    char *mnt = th_path(d, "mnt");
    mkdir(mnt, 0755);
    const int tmpfs = mount("tmpfs", mnt, "tmpfs", 0, "size=64k") == 0;
    run_how how = { NULL, tmpfs ? 0 : 4096, NULL, NULL };
    if (tmpfs)
        fill_to(mnt, 4096);
    cr_log_info("outputs/full_disk_leaves_nothing: %s", tmpfs ? "a 64 KB tmpfs with 4 KB left"
                                                              : "no tmpfs here: a 4 KB RLIMIT_FSIZE");
    char *pre = th_path(mnt, "pre");
    mkdir(pre, 0755);
    char before[4096];
    entries(mnt, before, sizeof before);
    char *v = th_path(mnt, "v"), *t = th_path(mnt, "t"), *p = th_path(mnt, "p");
    const char *runs[][20] = {
        { "routelab", "values", "--preset", "quick", "--threads", "2", "--out", v, NULL },
        { "routelab", "theory", "--only", "farmass", "--preset", "quick", "--threads", "2", "--out", t, NULL },
        { "routelab", "farmass", "--preset", "quick", "--threads", "2", "--out", pre, NULL },
        { "routelab", "probe", "--ckpt", ck, "--data", text, "--lengths", "16,32", "--windows", "2", "--out", p,
          "--threads", "1", NULL },
    };
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        int st = run(runs[r], &how, err, sizeof err);
        cr_expect(st == 1 || st == 2, "%s: status %d: %s", runs[r][1], st, err);
        cr_expect(th_lines(err) == 1 && !strncmp(err, "routelab: ", 10), "%s: not one line: %s", runs[r][1], err);
        entries(mnt, list, sizeof list);
        /* the pre-existing folder keeps what was complete in it; nothing else */
        char all[4096], *q = list, only[4096] = "";
        snprintf(all, sizeof all, "%s", list);
        for (char *tok = strtok(q, " "); tok; tok = strtok(NULL, " "))
            if (strncmp(tok, "./pre/", 6) || strstr(tok, ".tmp."))
                snprintf(only + strlen(only), sizeof only - strlen(only), "%s ", tok);
        cr_expect_str_eq(only, before, "%s left: %s", runs[r][1], all);
        cr_expect(access(pre, F_OK) == 0, "%s removed a folder it did not make", runs[r][1]);
    }
    if (tmpfs)
        umount2(mnt, MNT_DETACH);
    free(v);
    free(t);
    free(p);
    free(pre);
    free(mnt);
    free(ck);
    free(text);
    th_rmdir(d);
    free(d);
}

/* Without gnuplot, probe and the claim commands ran and wrote
 * their TSVs, then failed at the first figure.  Now: one line naming
 * gnuplot, status 1, before anything is written. */
Test(outputs, no_gnuplot_checked_before_any_output, .timeout = 300)
{
    char *d = th_tmpdir(), *ck, *text, err[4096];
    tiny_model(d, &ck, &text);
    char *empty = th_path(d, "empty-bin"), *f = th_path(d, "f"), *p = th_path(d, "p");
    mkdir(empty, 0755);
    run_how how = { empty, 0, NULL, NULL };
    const char *runs[][20] = {
        { "routelab", "farmass", "--preset", "quick", "--threads", "2", "--out", f, NULL },
        { "routelab", "probe", "--ckpt", ck, "--data", text, "--lengths", "16", "--windows", "1", "--out", p,
          "--threads", "1", NULL },
    };
    for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
        int st = run(runs[r], &how, err, sizeof err);
        cr_expect_eq(st, 1, "%s: status %d: %s", runs[r][1], st, err);
        cr_expect(th_lines(err) == 1 && strstr(err, "gnuplot"), "%s: %s", runs[r][1], err);
    }
    cr_expect(access(f, F_OK) != 0, "farmass wrote its folder without gnuplot");
    cr_expect(access(p, F_OK) != 0, "probe wrote its folder without gnuplot");
    free(empty);
    free(f);
    free(p);
    free(ck);
    free(text);
    th_rmdir(d);
    free(d);
}
