/* test_hardening_model.c: the model's bad inputs: crafted checkpoints,
 * stale temporary files, the NaN guard's message, eval's length
 * arithmetic, sizes that overflow or exceed the machine, and the fast exp
 * against libm; checkpoints that are not regular files, train's inputs
 * checked before its folder is made, and --lr stage lengths that
 * overflow. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "../base/core/tokfile.h"
#include "../model/fastmath.h"
#include "../model/train.h"
#include "helpers.h"

/* Exit status 2, one line on stderr, containing what (and not bad). */
static void expect_rejected(const char *args, const char *what, const char *bad)
{
    char err[4096];
    int st = th_run(args, NULL, 0, err, sizeof err);
    cr_expect_eq(st, 2, "routelab %s: status %d, stderr %s", args, st, err);
    cr_expect_eq(th_lines(err), 1, "routelab %s: stderr not one line: %s", args, err);
    cr_expect(strstr(err, what) != NULL, "routelab %s: stderr lacks '%s': %s", args, what, err);
    if (bad)
        cr_expect(strstr(err, bad) == NULL, "routelab %s: stderr has '%s': %s", args, bad, err);
}

static int exists(const char *p)
{
    struct stat sb;
    return lstat(p, &sb) == 0;
}

/* expect_rejected for commands that might block (a FIFO) or run for long:
 * killed after 10 s, which fails the test instead of hanging it. */
static void expect_rejected_soon(const char *args, const char *what)
{
    const char *bin = getenv("ROUTELAB");
    char e[] = "/tmp/rl-hm-err-XXXXXX", cmd[4096], err[4096];
    close(mkstemp(e));
    snprintf(cmd, sizeof cmd, "timeout -s KILL 10 %s %s >/dev/null 2>%s </dev/null",
             bin ? bin : "build/routelab", args, e);
    int st = system(cmd);
    FILE *f = fopen(e, "r");
    size_t n = fread(err, 1, sizeof err - 1, f);
    err[n] = 0;
    fclose(f);
    unlink(e);
    st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    cr_expect_neq(st, 137, "routelab %s: still running after 10 s", args);
    cr_expect_eq(st, 2, "routelab %s: status %d, stderr %s", args, st, err);
    cr_expect_eq(th_lines(err), 1, "routelab %s: stderr not one line: %s", args, err);
    cr_expect(strstr(err, what) != NULL, "routelab %s: stderr lacks '%s': %s", args, what, err);
}

/* A corpus and a 2-step checkpoint of a tiny model in d: returns its path
 * (malloc'ed); *data receives the corpus's. */
#define TINY "--layers 1 --width 16 --heads 2 --ctx 16 --batch 2 --val-batches 2 --threads 1"
static char *tiny_ckpt(const char *d, char **data)
{
    char args[1024];
    *data = th_path(d, "corpus.txt");
    th_write_text(*data, 400);
    char *out = th_path(d, "run");
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 2 --lr 1e-3", *data, out);
    cr_assert_eq(th_run(args, NULL, 0, NULL, 0), 0, "the tiny run trains");
    char *ck = th_path(out, "ckpt.bin");
    free(out);
    return ck;
}

static unsigned char *slurp_file(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    cr_assert(f, "cannot read %s", p);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* The header's fields (model/ckpt.c): int64 after the 8-byte magic. */
enum { F_LAYERS = 1, F_WIDTH, F_HEADS, F_CTX, F_VOCAB, F_ROT, F_MODE, F_ALIBI, F_PATH, F_DROPOUT,
       F_STEP, F_STEPS, F_BATCH, F_ACCUM, F_SEED, F_VAL_EVERY, F_VAL_BATCHES, F_DATA_N,
       F_DATA_HASH, F_ADAM_T, F_NPARAMS, F_FIELDS };
#define LR_OFF (8 + 8 * F_FIELDS)

/* Write b (n bytes) to path with its trailing FNV-1a-64 recomputed: a
 * checkpoint that only its fields can refuse. */
static void write_fixed(const char *path, unsigned char *b, size_t n)
{
    uint64_t sum = rl_fnv64(RL_FNV64_INIT, b, n - 8);
    memcpy(b + n - 8, &sum, 8);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

static void set_field(unsigned char *b, int i, int64_t v)
{
    memcpy(b + 8 + 8 * i, &v, 8);
}

static void set_dropout(unsigned char *b, double v)
{
    memcpy(b + 8 + 8 * F_DROPOUT, &v, 8);
}

typedef struct {
    int field;
    int64_t value;
    const char *names; /* what the one line must name */
} bad_field;

/* Every stored field out of its range (the flags' ranges, or what a run
 * writes), 64-bit values that a 32-bit cut would have made valid included:
 * `train --resume` and `eval` exit 2 with one line naming the field.  Before
 * the fix val_every 0 died of SIGFPE and step -5, accum -1, batch 0, a
 * context of -2^32 + 16 were accepted. */
Test(hardening_model, every_checkpoint_field_checked, .timeout = 120)
{
    const bad_field cases[] = {
        { F_VAL_EVERY, 0, "val-every" },
        { F_VAL_EVERY, -1, "val-every" },
        { F_STEP, -5, "step" },
        { F_STEP, 3, "step" }, /* beyond the run's 2 steps */
        { F_ACCUM, -1, "accum" },
        { F_ACCUM, 0, "accum" },
        { F_ACCUM, (int64_t)1 << 32 | 1, "accum" },
        { F_BATCH, 0, "batch" },
        { F_BATCH, (int64_t)1 << 32 | 2, "batch" },
        { F_VAL_BATCHES, 0, "val-batches" },
        { F_VAL_BATCHES, 10000001, "val-batches" },
        { F_CTX, -((int64_t)1 << 32) + 16, "ctx" },
        { F_CTX, ((int64_t)1 << 32) + 16, "ctx" },
        { F_CTX, 0, "ctx" },
        { F_LAYERS, ((int64_t)1 << 32) + 1, "layers" },
        { F_LAYERS, 0, "layers" },
        { F_WIDTH, ((int64_t)1 << 32) + 16, "width" },
        { F_HEADS, ((int64_t)1 << 32) + 2, "heads" },
        { F_HEADS, -2, "heads" },
        { F_VOCAB, 65537, "vocab" },
        { F_VOCAB, ((int64_t)1 << 32) + 256, "vocab" },
        { F_ROT, ((int64_t)1 << 32) + 1, "rotation" },
        { F_ROT, -1, "rotation" },
        { F_MODE, 2, "mode" },
        { F_ALIBI, -1, "alibi" },
        { F_PATH, 2, "path" },
        { F_STEPS, 0, "steps" },
        { F_STEPS, INT64_MAX, "steps" },
        { F_SEED, -1, "seed" },
        { F_DATA_N, 5, "data_n" },
        { F_ADAM_T, -3, "adam_t" },
        { F_ADAM_T, 7, "adam_t" },
        { F_NPARAMS, -1, "nparams" },
    };
    char *d = th_tmpdir(), *data, args[2048];
    char *ck = tiny_ckpt(d, &data);
    size_t n;
    unsigned char *good = slurp_file(ck, &n), *b = malloc(n);
    char *out = th_path(d, "crafted"), *cp = th_path(out, "ckpt.bin");
    mkdir(out, 0755);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(b, good, n);
        set_field(b, cases[c].field, cases[c].value);
        write_fixed(cp, b, n);
        snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", data, out);
        expect_rejected(args, cases[c].names, NULL);
        snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16 --threads 1", cp, data);
        expect_rejected(args, cases[c].names, NULL);
    }
    const double drops[] = { NAN, 1.0, -0.5, INFINITY };
    for (int i = 0; i < 4; i++) {
        memcpy(b, good, n);
        set_dropout(b, drops[i]);
        write_fixed(cp, b, n);
        snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", data, out);
        expect_rejected(args, "dropout", NULL);
    }
    /* the schedule: unterminated, and a text that is no schedule */
    memcpy(b, good, n);
    memset(b + LR_OFF, 'x', 128);
    write_fixed(cp, b, n);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", cp, data);
    expect_rejected(args, "lr", NULL);
    memcpy(b, good, n);
    snprintf((char *)b + LR_OFF, 128, "bogus");
    write_fixed(cp, b, n);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", data, out);
    expect_rejected(args, "bogus", NULL);
    /* the untouched file still resumes (the patching itself is sound) */
    memcpy(b, good, n);
    write_fixed(cp, b, n);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 3 --threads 1", data, out);
    cr_expect_eq(th_run(args, NULL, 0, NULL, 0), 0, "the re-summed original resumes");
    free(good);
    free(b);
    free(cp);
    free(out);
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}

/* A checkpoint whose context is in the flag's range but whose activations
 * for its batch would take terabytes (141 KB asking for 4.3 GB before the
 * fix): refused with the bytes named, from the header alone (rl_gpt_bytes
 * counts without allocating; an attempt to allocate would end in status 1,
 * out of memory, not 2). */
Test(hardening_model, huge_stored_context_refused_up_front, .timeout = 60)
{
    char *d = th_tmpdir(), *data, args[2048];
    char *ck = tiny_ckpt(d, &data);
    size_t n;
    unsigned char *b = slurp_file(ck, &n);
    set_field(b, F_CTX, 1 << 20);
    set_field(b, F_DATA_N, (1 << 20) + 1);
    char *out = th_path(d, "huge"), *cp = th_path(out, "ckpt.bin");
    mkdir(out, 0755);
    write_fixed(cp, b, n);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", data, out);
    /* 2 windows x 2 heads x (2^20)^2 floats per layer, twice: 2^45 bytes */
    expect_rejected(args, "bytes", NULL);
    expect_rejected(args, "context 1048576", NULL);
    /* eval needs no training activations; under a small limit its model
     * alone is refused, naming the bytes */
    setenv("ROUTELAB_MEM_LIMIT", "1000000", 1);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", cp, data);
    expect_rejected(args, "bytes", NULL);
    unsetenv("ROUTELAB_MEM_LIMIT");
    free(b);
    free(cp);
    free(out);
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}

/* Flags whose activation count B H T T overflows 64 bits (it wrapped to 0
 * before), and flags that need more than the machine (ROUTELAB_MEM_LIMIT
 * makes "the machine" small here): one line, exit 2, no run folder made. */
Test(hardening_model, oversized_flags_refused_up_front, .timeout = 60)
{
    char *d = th_tmpdir(), args[2048];
    char *data = th_path(d, "corpus.txt"), *out = th_path(d, "run");
    th_write_text(data, 100);
    /* 2^20 windows x 4096 heads x (2^16)^2 = 2^64 floats */
    snprintf(args, sizeof args, "train --data %s --out %s --batch 1048576 --heads 4096 --width 4096 "
             "--ctx 65536 --pos none", data, out);
    expect_rejected(args, "more than 2^64 bytes", NULL);
    cr_expect(!exists(out), "%s was created", out);
    snprintf(args, sizeof args, "train --data %s --out %s --batch 1048576 --heads 64 --width 128 "
             "--ctx 1048576", data, out);
    expect_rejected(args, "bytes", NULL);
    cr_expect(!exists(out), "%s was created", out);
    setenv("ROUTELAB_MEM_LIMIT", "100000000", 1);
    snprintf(args, sizeof args, "train --data %s --out %s --batch 64 --ctx 512 --steps 1", data, out);
    expect_rejected(args, "needs", NULL);
    cr_expect(!exists(out), "%s was created", out);
    setenv("ROUTELAB_MEM_LIMIT", "12x", 1);
    expect_rejected(args, "ROUTELAB_MEM_LIMIT", NULL);
    unsetenv("ROUTELAB_MEM_LIMIT");
    free(data);
    free(out);
    th_rmdir(d);
    free(d);
}

/* eval's length check: LONG_MAX + 1 overflowed into "needs
 * -9223372036854775808 validation tokens"; the evaluation workspace of a
 * length that fits the stream but not the machine is refused too. */
Test(hardening_model, eval_lengths_overflow_checked, .timeout = 60)
{
    char *d = th_tmpdir(), *data, args[2048];
    char *ck = tiny_ckpt(d, &data);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 9223372036854775807", ck, data);
    expect_rejected(args, "9223372036854775807", "-9223372036854775808");
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16,9223372036854775806", ck,
             data);
    expect_rejected(args, "9223372036854775806", "-922337203685477");
    /* the tiny model is ~100 KB with its moments; windows of 2000 tokens
     * need ~1 MB of workspace */
    setenv("ROUTELAB_MEM_LIMIT", "600000", 1);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16,2000", ck, data);
    expect_rejected(args, "evaluation workspace", NULL);
    unsetenv("ROUTELAB_MEM_LIMIT");
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}

/* Temporary files of a killed run (kill -9 mid-write) are removed when
 * train starts or resumes in the folder.  They are told from a live
 * writer's by the folder's lock, no longer by the pid in the name
 * (kill(pid, 0) is true for a zombie and a recycled pid, so a
 * zombie's file stayed for ever).  A folder whose lock nobody holds has no
 * live writer: a dead pid's, a zombie's and a live but unrelated pid's
 * temporaries all go; a live writer holds the lock, and then train is
 * refused and touches nothing (tests/test_lock.c). */
Test(hardening_model, stale_temporary_files_removed, .timeout = 60)
{
    char *d = th_tmpdir(), *data, args[2048], name[256];
    char *ck = tiny_ckpt(d, &data);
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0); /* a pid of no process */
    pid_t zombie = fork();
    if (zombie == 0)
        _exit(0);
    /* not reaped until the end: a zombie, for which kill(pid, 0) succeeds */
    char *out = th_path(d, "run");
    char *stale[4];
    const long pids[4] = { dead, dead, zombie, getpid() };
    const char *names[4] = { "ckpt.bin", "log.tsv", "ckpt.bin", "ckpt.bin" };
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "%s.tmp.%ld", names[i], pids[i]);
        stale[i] = th_path(out, name);
    }
    char *log = th_path(out, "log.tsv");
    /* a resume of the run; then a fresh run in a folder that a run killed
     * before its first checkpoint left with only its log */
    const char *modes[2] = { "--resume --steps 3", "--steps 2" };
    for (int r = 0; r < 2; r++) {
        if (r == 1) {
            unlink(ck);
            cr_assert(exists(log));
        }
        for (int i = 0; i < 4; i++) {
            FILE *f = fopen(stale[i], "w");
            cr_assert(f);
            fputs("half a checkpoint", f);
            fclose(f);
        }
        snprintf(args, sizeof args, "train --data %s --out %s " TINY " %s --lr 1e-3", data, out,
                 modes[r]);
        cr_expect_eq(th_run(args, NULL, 0, NULL, 0), 0, "%s", args);
        for (int i = 0; i < 4; i++)
            cr_expect(!exists(stale[i]), "%s: %s stays", modes[r], stale[i]);
    }
    waitpid(zombie, NULL, 0);
    for (int i = 0; i < 4; i++)
        free(stale[i]);
    free(log);
    free(out);
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}

/* A rate that makes the loss NaN at once: one line, exit 2, and no claim
 * of a checkpoint that does not exist (it said "last good checkpoint kept:
 * .../ckpt.bin (step 0)"). */
Test(hardening_model, nan_guard_message_true, .timeout = 60)
{
    char *d = th_tmpdir(), args[2048];
    char *data = th_path(d, "corpus.txt"), *out = th_path(d, "trn");
    th_write_text(data, 100);
    snprintf(args, sizeof args, "train --data %s --lr 1e30 --layers 1 --width 16 --heads 2 --ctx 16 "
             "--steps 5 --out %s --threads 1", data, out);
    expect_rejected(args, "no checkpoint of this run was written", "kept");
    char *ck = th_path(out, "ckpt.bin");
    cr_expect(!exists(ck));
    cr_expect(!exists(out), "the failed run left its folder %s", out);
    free(ck);
    free(data);
    free(out);
    th_rmdir(d);
    free(d);
}

/* rl_expf, and the vector exp through rl_exp_shift_sum, against libm on
 * large negative, large positive, infinite and NaN inputs (the NaN path
 * shifted a negative int before; the sanitizer build runs this too). */
Test(hardening_model, fast_exp_against_libm)
{
    const float xs[] = { -1e30f, -1e4f, -104.0f, -88.0f, -87.0f, -50.0f, -10.5f, -1.0f, -1e-3f,
                         0.0f, 1e-3f, 1.0f, 10.5f, 50.0f, 80.0f, 88.0f, 88.3f, 88.5f, 1e4f, 1e30f,
                         -INFINITY, INFINITY, NAN, -NAN };
    const int n = sizeof xs / sizeof *xs;
    float v[32];
    for (int i = 0; i < n; i++)
        v[i] = xs[i];
    rl_exp_shift_sum(v, n, 0.0f, -INFINITY); /* lanes of four, then the scalar tail */
    for (int i = 0; i < n; i++) {
        const float x = xs[i], ref = expf(x);
        const float got[2] = { rl_expf(x), v[i] };
        for (int k = 0; k < 2; k++) {
            const float y = got[k];
            if (isnan(x))
                cr_expect(isnan(y), "exp(NaN) = %g", y);
            else if (x > 88.37f) /* 2^128 overflows: +inf where expf may still be finite */
                cr_expect((isinf(y) && y > 0) || fabsf(y - ref) <= 1e-6f * ref, "exp(%g) = %g", x, y);
            else if (ref < 2e-38f) /* clamped at e^-87.3 ~ 1.2e-38 */
                cr_expect(y >= 0 && y < 2e-38f, "exp(%g) = %g, libm %g", x, y, ref);
            else
                cr_expect(fabsf(y - ref) <= 4e-7f * ref, "exp(%g) = %.9g, libm %.9g", x, y, ref);
        }
    }
    /* GELU keeps NaN and saturates */
    const float gx[5] = { NAN, -1e30f, 1e30f, -30.0f, 30.0f };
    float gy[5];
    rl_gelu_array(gy, gx, 5);
    cr_expect(isnan(gy[0]));
    cr_expect_eq(gy[1], 0.0f);
    cr_expect_eq(gy[2], 1e30f);
    cr_expect(fabsf(gy[3]) < 1e-6f);
    cr_expect_float_eq(gy[4], 30.0f, 1e-5);
}

/* A text of 10 bytes: too short for windows of 16 tokens. */
static void f_write_short(const char *path)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("too short\n", f);
    fclose(f);
}

/* A checkpoint that is not a regular file: a FIFO blocked the loader's
 * fopen forever, /dev/zero was read as a header; now each is refused at
 * once by name, for eval and for train --resume (whose OUT/log.tsv, read to
 * trim it, is checked the same way). */
Test(hardening_model, checkpoint_must_be_a_regular_file, .timeout = 120)
{
    char *d = th_tmpdir(), *data, args[2048];
    char *ck = tiny_ckpt(d, &data);
    char *fifo = th_path(d, "fifo"), *run = th_path(d, "fiforun"), *rck = th_path(run, "ckpt.bin");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    const char *bad[] = { fifo, "/dev/zero", d };
    const char *why[] = { "FIFO", "device", "directory" };
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", bad[i], data);
        expect_rejected_soon(args, why[i]);
    }
    mkdir(run, 0755);
    cr_assert_eq(mkfifo(rck, 0600), 0);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", data, run);
    expect_rejected_soon(args, "FIFO");
    /* a real checkpoint beside a FIFO log.tsv */
    char *log = th_path(run, "log.tsv"), cp[2048];
    unlink(rck);
    snprintf(cp, sizeof cp, "cp %s %s", ck, rck);
    cr_assert_eq(system(cp), 0);
    cr_assert_eq(mkfifo(log, 0600), 0);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 3 --threads 1", data, run);
    expect_rejected_soon(args, "FIFO");
    /* the size fstat gave still decides truncation */
    size_t n;
    unsigned char *b = slurp_file(ck, &n);
    char *cut = th_path(d, "cut.bin");
    FILE *f = fopen(cut, "wb");
    cr_assert_eq(fwrite(b, 1, n - 9, f), n - 9);
    fclose(f);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", cut, data);
    expect_rejected(args, "truncated or padded", NULL);
    free(b);
    free(cut);
    free(log);
    free(rck);
    free(run);
    free(fifo);
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}

/* Every refused input of a fresh run (flags, data, schedule, memory, a data
 * set too short for the context) is found before --out is made: nothing is
 * left behind, nested folders included.  train made --out first, then
 * read --data (a FIFO there left the folder), then checked the rest. */
Test(hardening_model, refused_train_makes_no_folder, .timeout = 120)
{
    char *d = th_tmpdir(), args[2048];
    char *data = th_path(d, "corpus.txt"), *fifo = th_path(d, "fifo"), *top = th_path(d, "a");
    char *out = th_path(top, "b/c"), *shortf = th_path(d, "short.txt");
    th_write_text(data, 100);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    f_write_short(shortf);
    struct {
        const char *data, *flags, *what;
    } cases[] = {
        { fifo, "", "FIFO" },
        { "/dev/zero", "", "device" },
        { "/nonexistent/x.bin", "", "nonexistent" },
        { NULL, "--lr 1:10,1:9223372036854775807", "--lr" },
        { NULL, "--lr cosine:1e-3:50 --steps 20", "warm-up" },
        { NULL, "--lr bogus", "--lr" },
        { NULL, "--pos bogus", "bogus" },
        { NULL, "--ctx 4096", "" }, /* more context than the data */
        { shortf, "", "" },
        { NULL, "--resume", "ckpt.bin" }, /* nothing to resume */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 2 %s",
                 cases[i].data ? cases[i].data : data, out, cases[i].flags);
        expect_rejected_soon(args, cases[i].what);
        cr_expect(!exists(top), "%s left %s behind", args, top);
        th_rmdir(top);
    }
    free(shortf);
    free(out);
    free(top);
    free(fifo);
    free(data);
    th_rmdir(d);
    free(d);
}

/* A fresh run that fails before its first checkpoint (NaN) removes the
 * folder it made, or only its log.tsv when the folder was there already;
 * one that fails after a checkpoint keeps the folder and the checkpoint.
 * Before, every failed run left its folder and a log.tsv. */
Test(hardening_model, failed_fresh_run_leaves_nothing_half_made, .timeout = 120)
{
    char *d = th_tmpdir(), args[2048];
    char *data = th_path(d, "corpus.txt"), *out = th_path(d, "x/run");
    char *top = th_path(d, "x"), *log = th_path(out, "log.tsv"), *ck = th_path(out, "ckpt.bin");
    th_write_text(data, 100);
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --steps 5 --lr 1e30", data, out);
    expect_rejected(args, "no checkpoint of this run was written", NULL);
    cr_expect(!exists(top), "the failed run left %s", top);
    /* the folder exists already (with a file of the user's): only the log goes */
    mkdir(top, 0755);
    mkdir(out, 0755);
    char *mine = th_path(out, "notes.txt");
    FILE *f = fopen(mine, "w");
    fclose(f);
    expect_rejected(args, "no checkpoint of this run was written", NULL);
    cr_expect(exists(mine) && !exists(log), "log.tsv of a failed run kept, or notes.txt removed");
    th_rmdir(top);
    /* a checkpoint at step 2, then the rate jumps: the run and its checkpoint stay */
    snprintf(args, sizeof args, "train --data %s --out %s " TINY " --lr 1e-3:2,1e30:4 "
             "--ckpt-every 1", data, out);
    expect_rejected(args, "last good checkpoint kept", NULL);
    cr_expect(exists(ck) && exists(log), "a run with a checkpoint lost it");
    free(mine);
    free(ck);
    free(log);
    free(top);
    free(out);
    free(data);
    th_rmdir(d);
    free(d);
}

/* --lr stage lengths near LONG_MAX: their sum overflowed (signed overflow,
 * found by tools/fuzz/fuzz_lr.c) and `1:10,1:9223372036854775807` was accepted.
 * Each stage and warm-up is now at most --steps's limit, 10^12, and so is
 * the sum.  A cosine peak or floor must be finite too (tools/fuzz/fuzz_lr.c found
 * cosine:3e420:0, an infinite peak). */
Test(hardening_model, lr_stage_lengths_checked, .timeout = 60)
{
    char *d = th_tmpdir(), args[2048];
    char *data = th_path(d, "corpus.txt"), *out = th_path(d, "run");
    th_write_text(data, 100);
    const char *lrs[] = {
        "1:10,1:9223372036854775807",
        "1e3:10,5e-2:20,53:3333333333333333333310,5e-2:20,5e-4:20", /* the fuzzer's */
        "1:99999999999999999999",
        "1:600000000000,1:600000000000",
        "cosine:1e-3:99999999999999999999",
    };
    for (int i = 0; i < 5; i++) {
        snprintf(args, sizeof args, "train --data %s --out %s " TINY " --lr %s", data, out, lrs[i]);
        expect_rejected_soon(args, "steps");
        cr_expect(!exists(out), "%s left %s", args, out);
        th_rmdir(out);
    }
    /* an infinite peak or floor (strtod's overflow) gave infinite rates */
    const char *inf[] = { "cosine:3e420:0", "cosine:1e-3:0:1e999", "cosine:inf:5" };
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "train --data %s --out %s " TINY " --lr %s", data, out, inf[i]);
        expect_rejected_soon(args, "--lr");
        cr_expect(!exists(out), "%s left %s", args, out);
    }
    /* the largest finite peak: warm-up rates stay finite */
    rl_lr_schedule s;
    long total;
    rl_err err;
    cr_assert_eq(rl_lr_plan("cosine:1.7e308:1000", 2000, &s, &total, &err), RL_OK);
    for (long t = 0; t < total; t += 37)
        cr_expect(isfinite(rl_lr_at(&s, t, total)), "rate at step %ld is not finite", t);
    free(out);
    free(data);
    th_rmdir(d);
    free(d);
}

/* eval keeps one loss per window: --batches 1e9 --batch-size 2^20 asked
 * malloc for 8e15 bytes and died "out of memory" (status 1).  Since the
 * token-matched protocol a length evaluates at most the disjoint
 * windows its validation stream holds: the request is served with all of
 * them (about 2,500 / 17 here), the output says so, and nothing near the
 * asked-for size is allocated. */
Test(hardening_model, eval_window_count_checked, .timeout = 60)
{
    char *d = th_tmpdir(), *data, args[2048];
    char *ck = tiny_ckpt(d, &data);
    char out[4096], err[4096];
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16 --batches 1000000000 "
             "--batch-size 1048576 --threads 1", ck, data);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "length 16: the validation stream") && strstr(out, "1048576000000000 wanted"),
              "the shortfall is said: %s", out);
    free(ck);
    free(data);
    th_rmdir(d);
    free(d);
}
