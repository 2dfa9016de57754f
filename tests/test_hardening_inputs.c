/* test_hardening_inputs.c: inputs that are not regular files (devices,
 * FIFOs, folders) and files over their format's limit are refused at once;
 * every flag is read or refused, and checked before any work; a refused
 * command leaves no output behind and says so in one line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

static char err[1 << 16], out[1 << 16];

/* Run `routelab ARGS` killed after `secs` seconds (a FIFO that blocks the
 * command fails the test instead of hanging it); stdout and stderr
 * captured.  Returns the exit status, 137 when it was killed. */
static int run_for(int secs, const char *args)
{
    const char *bin = getenv("ROUTELAB");
    if (!bin)
        bin = "build/routelab";
    char o[] = "/tmp/rl-hi-out-XXXXXX", e[] = "/tmp/rl-hi-err-XXXXXX";
    close(mkstemp(o));
    close(mkstemp(e));
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout -s KILL %d %s %s >%s 2>%s </dev/null", secs, bin, args, o, e);
    int st = system(cmd);
    FILE *f = fopen(o, "r");
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    fclose(f);
    f = fopen(e, "r");
    n = fread(err, 1, sizeof err - 1, f);
    err[n] = 0;
    fclose(f);
    unlink(o);
    unlink(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `routelab ARGS` must exit 2 within 10 s with one line "routelab: ..."
 * on stderr containing want (when not NULL). */
static void refused(const char *args, const char *want)
{
    int st = run_for(10, args);
    cr_assert_neq(st, 137, "'%s' was still running after 10 s (blocked or reading forever)", args);
    cr_assert_eq(st, 2, "'%s' exited %d: %s", args, st, err);
    size_t n = strlen(err);
    cr_assert(n > 10 && !strncmp(err, "routelab: ", 10), "'%s': stderr '%s'", args, err);
    cr_assert(strchr(err, '\n') == err + n - 1, "'%s': error is not one line: '%s'", args, err);
    if (want)
        cr_assert(strstr(err, want), "'%s': '%s' does not say '%s'", args, err, want);
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* A folder with a FIFO, a directory, an empty file, a short text and a
 * sparse file over every format's limit. */
typedef struct {
    char *dir, *fifo, *sub, *empty, *text, *big, *bigbin;
} fixture;

static fixture make_fixture(void)
{
    fixture x;
    x.dir = th_tmpdir();
    x.fifo = th_path(x.dir, "fifo");
    x.sub = th_path(x.dir, "sub");
    x.empty = th_path(x.dir, "empty.bin");
    x.text = th_path(x.dir, "text.txt");
    x.big = th_path(x.dir, "big.txt");
    x.bigbin = th_path(x.dir, "big.bin");
    cr_assert_eq(mkfifo(x.fifo, 0600), 0);
    cr_assert_eq(mkdir(x.sub, 0700), 0);
    fclose(fopen(x.empty, "w"));
    th_write_text(x.text, 400);
    /* sparse: no disk used, but larger than any text, table or token file may be */
    fclose(fopen(x.big, "w"));
    fclose(fopen(x.bigbin, "w"));
    cr_assert_eq(truncate(x.big, (off_t)1 << 33), 0);
    cr_assert_eq(truncate(x.bigbin, ((off_t)1 << 36) + 2), 0);
    return x;
}

static void free_fixture(fixture *x)
{
    th_rmdir(x->dir);
    free(x->dir);
    free(x->fifo);
    free(x->sub);
    free(x->empty);
    free(x->text);
    free(x->big);
    free(x->bigbin);
}

Test(hardening_inputs, devices_fifos_folders_refused_for_text_and_table)
{
    fixture x = make_fixture();
    const char *bad[] = { "/dev/zero", x.fifo, x.sub };
    const char *why[] = { "device", "FIFO", "directory" };
    char a[1024];
    for (int i = 0; i < 3; i++) {
        snprintf(a, sizeof a, "sample --family token-so2 --d 8 --text %s", bad[i]);
        refused(a, why[i]);
        snprintf(a, sizeof a, "sample --family token-so2 --d 8 --table %s", bad[i]);
        refused(a, why[i]);
        snprintf(a, sizeof a, "bound norm --family token-so2 --d 8 --text %s", bad[i]);
        refused(a, why[i]);
    }
    /* over the format's limit: refused from its size, nothing read */
    snprintf(a, sizeof a, "sample --family token-so2 --d 8 --table %s", x.big);
    refused(a, "limit");
    snprintf(a, sizeof a, "sample --family token-so2 --d 8 --text %s", x.big);
    refused(a, "limit");
    snprintf(a, sizeof a, "data check %s", x.bigbin);
    refused(a, "limit");
    free_fixture(&x);
}

Test(hardening_inputs, devices_fifos_folders_refused_for_data_and_data_text)
{
    fixture x = make_fixture();
    const char *bad[] = { "/dev/zero", x.fifo };
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/out", x.dir);
    for (int i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "data text %s --out %s", bad[i], o);
        refused(a, "not a regular file");
        cr_assert(!exists(o), "data text left %s behind", o);
        snprintf(a, sizeof a, "data check %s", bad[i]);
        refused(a, "not a regular file");
        snprintf(a, sizeof a, "train --data %s --layers 1 --width 16 --heads 2 --ctx 8 --steps 2 --out %s",
                 bad[i], o);
        refused(a, "not a regular file");
        cr_assert(!exists(o), "train left %s behind", o);
        snprintf(a, sizeof a, "mixing --text %s --out %s", bad[i], o);
        refused(a, "not a regular file");
        cr_assert(!exists(o), "mixing left %s behind", o);
        snprintf(a, sizeof a, "reproduce --data %s --out %s", bad[i], o);
        refused(a, "not a regular file");
        cr_assert(!exists(o), "reproduce left %s behind", o);
        snprintf(a, sizeof a, "data brown --from %s --out %s", bad[i], o);
        refused(a, "not a regular file");
        cr_assert(!exists(o), "data brown left %s behind", o);
    }
    /* data text takes a FILE: a folder is not one */
    snprintf(a, sizeof a, "data text %s --out %s", x.sub, o);
    refused(a, "directory");
    cr_assert(!exists(o));
    /* a data folder whose train.bin is a FIFO */
    char *tr = th_path(x.sub, "train.bin"), *va = th_path(x.sub, "val.bin");
    cr_assert_eq(mkfifo(tr, 0600), 0);
    cr_assert_eq(mkfifo(va, 0600), 0);
    snprintf(a, sizeof a, "data check %s", x.sub);
    refused(a, "FIFO");
    free(tr);
    free(va);
    free_fixture(&x);
}

/* The checkpoint loader (model/ckpt.c) reads through rl_fopen_regular (a
 * FIFO blocked it before; this test then failed by its 10 s limit), and
 * train makes --out only after its data is read (a refused --data left the
 * folder behind). */
Test(hardening_inputs, devices_fifos_folders_refused_for_ckpt)
{
    fixture x = make_fixture();
    const char *bad[] = { "/dev/zero", x.fifo, x.sub };
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/out", x.dir);
    snprintf(a, sizeof a, "train --data %s --layers 1 --width 16 --heads 2 --ctx 8 --steps 2 --out %s", x.fifo, o);
    refused(a, "not a regular file");
    cr_assert(!exists(o), "train left %s behind", o);
    for (int i = 0; i < 3; i++) {
        snprintf(a, sizeof a, "eval --ckpt %s --data %s --out %s/e.tsv", bad[i], x.text, x.dir);
        refused(a, NULL);
        snprintf(a, sizeof a, "probe --ckpt %s --data %s --out %s/p", bad[i], x.text, x.dir);
        refused(a, NULL);
    }
    free_fixture(&x);
}

Test(hardening_inputs, claims_take_only_the_flags_they_read)
{
    fixture x = make_fixture();
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/out", x.dir);
    const char *no_text[] = { "farmass", "concentration", "scoregap", "values", "stylized" };
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "%s --text %s --out %s", no_text[i], x.text, o);
        refused(a, "--text");
        cr_assert(!exists(o));
    }
    /* mixing reads it: its help says so */
    cr_assert_eq(run_for(10, "mixing --help"), 0);
    cr_assert(strstr(out, "--text"));
    cr_assert_eq(run_for(10, "farmass --help"), 0);
    cr_assert(!strstr(out, "--text"), "farmass --help offers --text");
    /* theory keeps the union, but not for an --only that reads no text */
    snprintf(a, sizeof a, "theory --only farmass,values --text %s --out %s", x.text, o);
    refused(a, "--text");
    const char *only[] = { "farmass,farmass", ",farmass", "farmass,", "bogus", "farmass,,values" };
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "theory --only '%s' --out %s", only[i], o);
        refused(a, "--only");
        cr_assert(!exists(o));
    }
    free_fixture(&x);
}

Test(hardening_inputs, mixing_checks_its_text_before_the_monte_carlo)
{
    fixture x = make_fixture();
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/out/deeper", x.dir);
    char *empty_txt = th_path(x.dir, "empty.txt");
    fclose(fopen(empty_txt, "w"));
    /* used to fail only after the sweep (164 s), leaving TSV files: now at once */
    snprintf(a, sizeof a, "mixing --text %s --out %s", empty_txt, o);
    refused(a, "no tokens");
    char *parent = th_path(x.dir, "out");
    cr_assert(!exists(parent), "mixing left %s behind", parent);
    snprintf(a, sizeof a, "theory --text %s --out %s", empty_txt, o);
    refused(a, "no tokens");
    cr_assert(!exists(parent), "theory left %s behind", parent);
    free(parent);
    free(empty_txt);
    free_fixture(&x);
}

Test(hardening_inputs, reproduce_checks_every_input_first)
{
    fixture x = make_fixture();
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/grid", x.dir);
    const char *flags[] = { "--probe bogus", "--probe rope,rope", "--variants rope,rope", "--variants rope,,alibi",
                            "--variants frob", "--variants rope --probe alibi" };
    const char *want[] = { "bogus", "twice", "twice", "empty", "frob", "alibi" };
    for (int i = 0; i < 6; i++) {
        snprintf(a, sizeof a, "reproduce --data %s --out %s %s", x.text, o, flags[i]);
        refused(a, want[i]);
        cr_assert(!exists(o), "'%s' left %s behind", a, o);
    }
    /* the data: empty (the child's line and its own, before), and too short for
     * the evaluation lengths */
    snprintf(a, sizeof a, "reproduce --data %s --out %s", x.empty, o);
    refused(a, "no tokens");
    cr_assert(!exists(o));
    snprintf(a, sizeof a, "reproduce --data %s --out %s --ctx 64 --max-mult 1024", x.text, o);
    refused(a, "validation tokens");
    cr_assert(!exists(o));
    snprintf(a, sizeof a, "reproduce --report-only --stop-at 3 --out %s", o);
    refused(a, "--report-only");
    free_fixture(&x);
}

Test(hardening_inputs, reproduce_quotes_a_failed_child_in_one_line)
{
    fixture x = make_fixture();
    char a[2048], d[512];
    /* a model folder with a corrupt checkpoint: the training child refuses it */
    snprintf(d, sizeof d, "%s/grid/models/rope/seed42", x.dir); /* the quick preset's first seed */
    snprintf(a, sizeof a, "mkdir -p %s && echo garbage > %s/ckpt.bin", d, d);
    cr_assert_eq(system(a), 0);
    snprintf(a, sizeof a, "reproduce --data %s --out %s/grid --variants rope --theory none --probe none "
             "--layers 1 --width 16 --heads 2 --ctx 16 --lr 1e-3:2 --max-mult 1 --eval-batches 1", x.text, x.dir);
    int st = run_for(60, a);
    cr_assert_eq(st, 2, "exited %d: %s", st, err);
    cr_assert(th_lines(err) == 1 && !strncmp(err, "routelab: reproduce: training rope seed 42 failed", 49),
              "not one line naming the stage: '%s'", err);
    cr_assert(strstr(err, "train: ") && strstr(err, "ckpt.bin"), "the child's line is not quoted: '%s'", err);
    free_fixture(&x);
}

Test(hardening_inputs, flags_a_command_does_not_read_are_refused)
{
    fixture x = make_fixture();
    char a[1024], o[512];
    snprintf(o, sizeof o, "%s/d", x.dir);
    const char *bad[] = {
        "sample --family haar --beta 1",
        "sample --family so2 --p 0.3",
        "sample --family householder --sigma 0.2",
        "sample --family haar --angles gauss",
        "sample --family haar --base 100",
        "sample --family lazy-haar --scale 2",
        "bound norm --family haar --beta 1",
        "data check README.md --out x",
        "data check README.md --from x",
        "data brown --vocab 300",
        "data text README.md --vocab 300",
        "probe --lengths 1,x --ckpt /nonexistent",
        "bound hoeffding --a 0.1,0.2 --d 8",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        refused(bad[i], NULL);
    /* with a table, the angle law and the vocabulary come from it */
    char *tab = th_path(x.dir, "t.txt");
    FILE *f = fopen(tab, "w");
    fprintf(f, "0.1 0.2\n0.3 0.4\n");
    fclose(f);
    snprintf(a, sizeof a, "sample --family token-so2 --d 4 --table %s --angles gauss", tab);
    refused(a, "--angles");
    snprintf(a, sizeof a, "sample --family token-so2 --d 4 --table %s --vocab 2", tab);
    refused(a, "--vocab");
    snprintf(a, sizeof a, "sample --family token-so2 --d 4 --table %s --count 2", tab);
    cr_assert_eq(run_for(10, a), 0, "%s", err);
    /* the flags a family does read still work */
    cr_assert_eq(run_for(10, "sample --family path --d 4 --beta 1.5"), 0, "%s", err);
    cr_assert_eq(run_for(10, "sample --family so2 --d 4 --angles gauss --base 100 --scale 2"), 0, "%s", err);
    free(tab);
    free_fixture(&x);
}

Test(hardening_inputs, no_command_is_one_line)
{
    cr_assert_eq(run_for(10, ""), 2);
    cr_assert_eq(th_lines(err), 1, "stderr: '%s'", err);
    cr_assert(strstr(err, "routelab: no command") && strstr(err, "--help"), "%s", err);
    cr_assert_eq(out[0], 0, "stdout: '%s'", out);
    cr_assert_eq(run_for(10, "--help"), 0);
    cr_assert(strstr(out, "sample") && strstr(out, "reproduce") && strstr(out, "mixing"));
    cr_assert_eq(err[0], 0);
    refused("help sample", "unexpected argument");
}

Test(hardening_inputs, table_lines_and_nul_bytes)
{
    char *dir = th_tmpdir(), *tab = th_path(dir, "t.txt"), a[1024];
    FILE *f = fopen(tab, "w");
    fprintf(f, "# angles\n0.1 0.2\r\n\n0.3 0.4"); /* CRLF, a blank line, no final newline */
    fclose(f);
    snprintf(a, sizeof a, "sample --family token-so2 --d 4 --table %s --count 2", tab);
    cr_assert_eq(run_for(10, a), 0, "%s", err);
    f = fopen(tab, "w");
    fwrite("0.1 0.2\n0.3\0 0.4\n", 1, 17, f);
    fclose(f);
    refused(a, "NUL");
    free(tab);
    th_rmdir(dir);
    free(dir);
}
