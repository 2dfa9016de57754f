/* badinput_run.c: the harness of the bad-input table (see badinput_run.h).
 *
 * Each case runs the real binary ($ROUTELAB) by fork/exec with an argv (never
 * through a shell), in its own empty folder (so outputs a command writes by
 * default land there too), in its own process group, stdin /dev/null, stdout
 * discarded, stderr to a file, killed with its children after BI_TIMEOUT_S.
 * It holds when: the exit status is the expected one; stderr is exactly one
 * line, ending in a newline, starting "routelab:", matching the pattern; and
 * neither the case folder nor the fixture folder holds anything new after
 * it (no output, no folder, no *.tmp.* file). */
#include "badinput_run.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/core/lock.h"
#include "../base/core/tokfile.h"
#include "helpers.h"

#define BI_TIMEOUT_S 20
/* Unfixed readers of /dev/zero grow until memory runs out: the child's
 * address space is capped (not under ASan, whose shadow needs terabytes). */
#define BI_MEM_CAP ((rlim_t)4 << 30)
#define BI_FULL_SIZE "size=256k"

struct bi_env {
    char *bin, *root, *fx, *errpath;
    char **base;     /* the fixture folder's entries after set-up */
    int nbase;
    int asan;        /* the binary is built with ASan: no memory cap */
    int tmpfs;       /* mount -t tmpfs works here */
    char tmpfs_why[256];
};

/* ---- listings ------------------------------------------------------------ */

typedef struct {
    char **v;
    int n, cap;
    size_t skip; /* prefix length removed from each path */
} bi_list;

static bi_list *walk_target;

static int walk_add(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    if (f->level == 0)
        return 0;
    bi_list *l = walk_target;
    if (l->n == l->cap)
        l->v = realloc(l->v, sizeof(char *) * (l->cap = l->cap ? 2 * l->cap : 64));
    l->v[l->n++] = strdup(p + l->skip);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path under dir (relative, sorted); FTW_PHYS: never follows links and
 * never opens a FIFO. */
static bi_list list_tree(const char *dir)
{
    bi_list l = { NULL, 0, 0, strlen(dir) + 1 };
    walk_target = &l;
    nftw(dir, walk_add, 16, FTW_PHYS);
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    return l;
}

static void list_free(bi_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Append to msg each entry of now missing from before (sorted both). */
static int list_new(char **before, int nb, const bi_list *now, char *msg, size_t len)
{
    int found = 0;
    for (int i = 0; i < now->n; i++) {
        if (nb && bsearch(&now->v[i], before, nb, sizeof *before, cmp_str))
            continue;
        size_t k = strlen(msg);
        snprintf(msg + k, len - k, "%s%s", found ? ", " : "", now->v[i]);
        found++;
    }
    return found;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p);
}

static void rm_tree(const char *p)
{
    nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- running the binary ---------------------------------------------------- */

/* Run bin argv in cwd; stdout into outpath (NULL: /dev/null), stderr into
 * errpath.  Returns the wait status, or -1 when killed at the timeout
 * (*secs: the time it took). */
static int run_argv_to(const bi_env *e, char *const argv[], const char *cwd, const char *outpath,
                       double *secs)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed");
    if (pid == 0) {
        setpgid(0, 0);
        int in = open("/dev/null", O_RDONLY), out = open(outpath ? outpath : "/dev/null", O_WRONLY);
        int err = open(e->errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || chdir(cwd) != 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        if (!e->asan) {
            struct rlimit r = { BI_MEM_CAP, BI_MEM_CAP };
            setrlimit(RLIMIT_AS, &r);
        }
        execv(e->bin, argv);
        _exit(127);
    }
    setpgid(pid, pid);
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        *secs = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (w == pid)
            break;
        if (*secs > BI_TIMEOUT_S) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        struct timespec d = { 0, 2000000 };
        nanosleep(&d, NULL);
    }
    kill(-pid, SIGKILL); /* children it left behind (gnuplot, grid runs) */
    return st;
}

static int run_argv(const bi_env *e, char *const argv[], const char *cwd, double *secs)
{
    return run_argv_to(e, argv, cwd, NULL, secs);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, (1 << 16) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

/* ---- fixtures ---------------------------------------------------------------- */

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write fixture %s", path);
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
}

static void write_str(const bi_env *e, const char *name, const char *s)
{
    char *p = th_path(e->fx, name);
    write_bytes(p, s, strlen(s));
    free(p);
}

/* An llm.c token file: header (magic, version, count), then n ids. */
static void write_llmc(const bi_env *e, const char *name, int32_t magic, int32_t version,
                       int32_t count, const uint16_t *ids, int n, size_t hbytes)
{
    size_t len = hbytes + 2 * (size_t)n;
    unsigned char *b = calloc(1, len + 16);
    int32_t h[3] = { magic, version, count };
    memcpy(b, h, hbytes < sizeof h ? hbytes : sizeof h);
    memcpy(b + hbytes, ids, 2 * (size_t)n);
    char *p = th_path(e->fx, name);
    write_bytes(p, b, len);
    free(p);
    free(b);
}

static void token_files(const bi_env *e)
{
    uint16_t ids[400];
    for (int i = 0; i < 400; i++)
        ids[i] = (uint16_t)(32 + i % 90);
    const size_t H = RL_LLMC_HEADER_INTS * 4;
    write_llmc(e, "tok_version.bin", RL_LLMC_MAGIC, 2, 400, ids, 400, H);
    write_llmc(e, "tok_negcount.bin", RL_LLMC_MAGIC, 1, -1, ids, 400, H);
    write_llmc(e, "tok_overcount.bin", RL_LLMC_MAGIC, 1, 1000, ids, 400, H);
    write_llmc(e, "tok_undercount.bin", RL_LLMC_MAGIC, 1, 5, ids, 400, H);
    write_llmc(e, "tok_hugecount.bin", RL_LLMC_MAGIC, 1, INT32_MAX, ids, 400, H);
    write_llmc(e, "tok_shorthdr.bin", RL_LLMC_MAGIC, 1, 0, ids, 0, 12);
    write_llmc(e, "tok_zero.bin", RL_LLMC_MAGIC, 1, 0, ids, 0, H);
    write_llmc(e, "tok_few.bin", RL_LLMC_MAGIC, 1, 10, ids, 10, H);
    write_llmc(e, "tok_ok.bin", RL_LLMC_MAGIC, 1, 400, ids, 400, H);
    ids[123] = 300;
    write_llmc(e, "tok_bigid.bin", RL_LLMC_MAGIC, 1, 400, ids, 400, H);
    ids[123] = 65535;
    write_llmc(e, "tok_maxid.bin", RL_LLMC_MAGIC, 1, 400, ids, 400, H);
    ids[123] = 1000;
    write_llmc(e, "raw_bigid.bin", 0, 0, 0, ids, 400, 0); /* headerless uint16 (nanoGPT) */
    write_str(e, "raw_odd.bin", "abcdefg");
    write_str(e, "raw_empty.bin", "");
    write_str(e, "raw_text.bin", "this text has an odd number of bytes!");
    /* data folders: no val.bin; a val.bin of odd length */
    ids[123] = 40;
    char *p = th_path(e->fx, "noval");
    mkdir(p, 0755);
    free(p);
    write_llmc(e, "noval/train.bin", RL_LLMC_MAGIC, 1, 400, ids, 400, H);
    p = th_path(e->fx, "badval");
    mkdir(p, 0755);
    free(p);
    write_llmc(e, "badval/train.bin", RL_LLMC_MAGIC, 1, 400, ids, 400, H);
    write_str(e, "badval/val.bin", "odd");
}

/* data bpe / decode: texts that are not text, and a tokenizer trained on
 * text.txt (fx/bpe) with an id it has no text for and a truncated copy. */
static void bpe_fixtures(const bi_env *e, const char *text)
{
    write_str(e, "notutf8.txt", "caf\xe9 au lait is not UTF-8 here\n");
    write_str(e, "lowline.txt", "a \xe2\x96\x81 b: SentencePiece's space sign\n");
    write_str(e, "ctl.txt", "a\x01\x02\x03\x04 control characters, more than 1 in 100\n");
    /* a word of 40,000 bytes (SentencePiece's trainer crashed on it) */
    char *lw = malloc(40000 + 64);
    snprintf(lw, 64, "some words before it\n");
    memset(lw + strlen(lw), 'a', 40000);
    strcpy(lw + strlen("some words before it\n") + 40000, "\nand after it\n");
    write_str(e, "longword.txt", lw);
    free(lw);
    char *dir = th_path(e->fx, "bpe");
    char *argv[] = { "routelab", "data", "bpe", "--vocab", "300", "--from", (char *)text, "--out", dir, NULL };
    double secs;
    int st = run_argv(e, argv, e->root, &secs);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "set-up: data bpe failed");
    size_t n;
    char *mp = th_path(dir, "tokenizer.model"), *m = slurp(mp, &n);
    char *tp = th_path(e->fx, "bpe_trunc.model");
    write_bytes(tp, m, n / 2);
    /* a byte data set (data brown's form) whose second training document is
     * not UTF-8 */
    char *bs = th_path(e->fx, "bset_notutf8");
    mkdir(bs, 0755);
    free(bs);
    static const char doc[] = "a first document\n\0caf\xe9 au lait\n\0";
    uint16_t bytes[sizeof doc - 1];
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++)
        bytes[i] = (unsigned char)doc[i];
    const int nb = (int)(sizeof bytes / sizeof *bytes);
    write_llmc(e, "bset_notutf8/train.bin", RL_LLMC_MAGIC, 1, nb, bytes, nb, RL_LLMC_HEADER_INTS * 4);
    write_llmc(e, "bset_notutf8/val.bin", RL_LLMC_MAGIC, 1, 17, bytes, 17, RL_LLMC_HEADER_INTS * 4);
    uint16_t unk[4] = { 60, 61, 0, 62 }; /* id 0: <unk>, a piece with no text */
    write_llmc(e, "tok_unk.bin", RL_LLMC_MAGIC, 1, 4, unk, 4, RL_LLMC_HEADER_INTS * 4);
    free(tp);
    free(m);
    free(mp);
    free(dir);
}

static void angle_tables(const bi_env *e)
{
    write_str(e, "tab_ok.txt", "0.1 0.2 0.3 0.4\n0.5 0.6 0.7 0.8\n");
    write_str(e, "tab_alpha.txt", "a b c d\n");
    write_str(e, "tab_short.txt", "0.1 0.2 0.3\n");
    write_str(e, "tab_long.txt", "0.1 0.2 0.3 0.4 0.5\n");
    write_str(e, "tab_row2.txt", "0.1 0.2 0.3 0.4\n0.1 0.2\n");
    write_str(e, "tab_nan.txt", "nan 0.2 0.3 0.4\n");
    write_str(e, "tab_inf.txt", "0.1 inf 0.3 0.4\n");
    write_str(e, "tab_1e999.txt", "0.1 0.2 1e999 0.4\n");
    write_str(e, "tab_empty.txt", "");
    write_str(e, "tab_comments.txt", "# nothing but comments\n\n   \n");
    write_str(e, "tab_comma.txt", "0.1,0.2,0.3,0.4\n");
    write_str(e, "tab_binary.txt", "\x01\x02\xff\xfe\n\x7f");
}

/* Run a tool (tar) in dir; 0 on success. */
static int tool(const char *dir, char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        dup2(nul, 2);
        if (chdir(dir) == 0)
            execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void archives(const bi_env *e)
{
    unsigned char junk[4096];
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < sizeof junk; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        junk[i] = (unsigned char)x;
    }
    char *p = th_path(e->fx, "tgz_garbage.tgz");
    write_bytes(p, junk, sizeof junk);
    free(p);
    /* gzip magic, then garbage */
    junk[0] = 0x1f, junk[1] = 0x8b, junk[2] = 8;
    p = th_path(e->fx, "tgz_badgz.tgz");
    write_bytes(p, junk, sizeof junk);
    free(p);
    write_str(e, "tgz_empty.tgz", "");
    write_str(e, "tgz_text.tgz", "not a tarball\n");
    /* real tarballs: one with no documents, one with too few for a split */
    const char *mk[] = { "pk1", "pk1/package", "pk2", "pk2/package" };
    for (int i = 0; i < 4; i++) {
        char *q = th_path(e->fx, mk[i]);
        mkdir(q, 0755);
        free(q);
    }
    write_str(e, "pk1/package/README", "no documents here\n");
    char *d1 = th_path(e->fx, "pk1");
    char *a1[] = { "tar", "-czf", "../tgz_nodocs.tgz", "package", NULL };
    cr_assert_eq(tool(d1, a1), 0, "tar failed");
    write_str(e, "pk2/package/ca01", "The/at Fulton/np-tl County/nn-tl ./.\n");
    write_str(e, "pk2/package/ca02", "Its/pp$ grand/jj jury/nn ./.\n");
    char *d2 = th_path(e->fx, "pk2");
    char *a2[] = { "tar", "-czf", "../tgz_fewdocs.tgz", "package", NULL };
    cr_assert_eq(tool(d2, a2), 0, "tar failed");
    /* a document that is a symbolic link to a file outside the archive */
    char *pk3 = th_path(e->fx, "pk3"), *pk3p = th_path(e->fx, "pk3/package");
    mkdir(pk3, 0755);
    mkdir(pk3p, 0755);
    for (int i = 1; i <= 11; i++) {
        char name[32];
        snprintf(name, sizeof name, "pk3/package/ca%02d", i);
        write_str(e, name, "The/at Fulton/np-tl County/nn-tl ./.\n");
    }
    char *lnk = th_path(e->fx, "pk3/package/ca12");
    cr_assert_eq(symlink("/etc/hostname", lnk), 0, "symlink: %s", strerror(errno));
    char *a3[] = { "tar", "-czf", "../tgz_symlink.tgz", "package", NULL };
    cr_assert_eq(tool(pk3, a3), 0, "tar failed");
    /* an archive bomb, one member of 70 MiB of zeros
     * (a sparse file; 70 KB compressed) beyond the member limit of 64 MiB */
    char *pk4 = th_path(e->fx, "pk4"), *pk4p = th_path(e->fx, "pk4/package"), *big = th_path(e->fx, "pk4/package/ca01");
    mkdir(pk4, 0755);
    mkdir(pk4p, 0755);
    FILE *bf = fopen(big, "w");
    cr_assert(bf && ftruncate(fileno(bf), (off_t)70 << 20) == 0 && fclose(bf) == 0, "bomb member");
    char *a4[] = { "tar", "-czf", "../tgz_bomb.tgz", "package", NULL };
    cr_assert_eq(tool(pk4, a4), 0, "tar failed");
    rm_tree(pk4);
    free(pk4);
    free(pk4p);
    free(big);
    rm_tree(d1);
    rm_tree(d2);
    rm_tree(pk3);
    free(d1);
    free(d2);
    free(pk3);
    free(pk3p);
    free(lnk);
}

/* ---- checkpoints ------------------------------------------------------------ */

/* model/ckpt.c's layout: magic[8], 22 int64 fields, lr[128], (version 3
 * only: the rotation base, a double) then nparams float32 parameters,
 * 2 nparams float32 AdamW moments, then FNV-1a-64 (of base/core/tokfile.h,
 * word-wise) chained over header, parameters, moments. */
enum { F_VERSION, F_LAYERS, F_WIDTH, F_HEADS, F_CTX, F_VOCAB, F_ROT, F_MODE, F_ALIBI, F_PATH,
       F_DROPOUT, F_STEP, F_STEPS, F_BATCH, F_ACCUM, F_SEED, F_VAL_EVERY, F_VAL_BATCHES,
       F_DATA_N, F_DATA_HASH, F_ADAM_T, F_NPARAMS, F_FIELDS };
#define CK_HEADER (8 + 8 * F_FIELDS + 128)
#define CK_FIELD(i) (8 + 8 * (i))

static unsigned char *ck_buf;
static size_t ck_len;

static void ck_write(const bi_env *e, const char *name, const unsigned char *b, size_t n)
{
    char *p = th_path(e->fx, name);
    write_bytes(p, b, n);
    free(p);
}

static void ck_fix_sum(unsigned char *b, size_t n)
{
    int64_t np;
    memcpy(&np, b + CK_FIELD(F_NPARAMS), 8);
    size_t bytes = 4 * (size_t)(np < 0 ? 0 : np);
    if (CK_HEADER + 3 * bytes + 8 != n) /* a crafted count: the stored one's sizes */
        memcpy(&np, ck_buf + CK_FIELD(F_NPARAMS), 8), bytes = 4 * (size_t)np;
    uint64_t s = rl_fnv64(RL_FNV64_INIT, b, CK_HEADER);
    s = rl_fnv64(s, b + CK_HEADER, bytes);
    s = rl_fnv64(s, b + CK_HEADER + bytes, 2 * bytes);
    memcpy(b + n - 8, &s, 8);
}

/* The valid (version-2) checkpoint as version 3 with rotation base `base`,
 * checksum recomputed (unless keep_sum), cut to cut bytes (0: whole). */
static void ck_base(const bi_env *e, const char *name, double base, int keep_sum, size_t cut)
{
    int64_t np, v = 3;
    memcpy(&np, ck_buf + CK_FIELD(F_NPARAMS), 8);
    const size_t n = ck_len + 8, bytes = 4 * (size_t)np;
    unsigned char *b = malloc(n);
    memcpy(b, ck_buf, CK_HEADER);
    memcpy(b + CK_FIELD(F_VERSION), &v, 8);
    memcpy(b + CK_HEADER, &base, 8);
    memcpy(b + CK_HEADER + 8, ck_buf + CK_HEADER, ck_len - CK_HEADER);
    uint64_t s = rl_fnv64(RL_FNV64_INIT, b, CK_HEADER + 8);
    s = rl_fnv64(s, b + CK_HEADER + 8, bytes);
    s = rl_fnv64(s, b + CK_HEADER + 8 + bytes, 2 * bytes);
    if (!keep_sum)
        memcpy(b + n - 8, &s, 8);
    ck_write(e, name, b, cut ? cut : n);
    free(b);
}

/* The valid checkpoint with field i set to v, checksum recomputed. */
static void ck_field(const bi_env *e, const char *name, int i, int64_t v)
{
    unsigned char *b = malloc(ck_len);
    memcpy(b, ck_buf, ck_len);
    memcpy(b + CK_FIELD(i), &v, 8);
    ck_fix_sum(b, ck_len);
    ck_write(e, name, b, ck_len);
    free(b);
}

/* The valid checkpoint with float i of parameters-then-moments set to x,
 * checksum recomputed. */
static void ck_float(const bi_env *e, const char *name, int64_t i, float x)
{
    unsigned char *b = malloc(ck_len);
    memcpy(b, ck_buf, ck_len);
    memcpy(b + CK_HEADER + 4 * (size_t)i, &x, 4);
    ck_fix_sum(b, ck_len);
    ck_write(e, name, b, ck_len);
    free(b);
}

static void checkpoints(bi_env *e, const char *ckpath)
{
    size_t n;
    FILE *f = fopen(ckpath, "rb");
    cr_assert(f, "set-up: train wrote no %s", ckpath);
    fseek(f, 0, SEEK_END);
    n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_buf = malloc(n);
    cr_assert_eq(fread(ck_buf, 1, n, f), n);
    fclose(f);
    ck_len = n;
    int64_t ver, np;
    memcpy(&ver, ck_buf + CK_FIELD(F_VERSION), 8);
    memcpy(&np, ck_buf + CK_FIELD(F_NPARAMS), 8);
    cr_assert(memcmp(ck_buf, "RLGPTCKP", 8) == 0 && ver == 2 && n == CK_HEADER + 12 * (size_t)np + 8,
              "set-up: the checkpoint format changed (model/ckpt.c); update the crafted fields "
              "in tests/badinput_run.c");
    unsigned char *b = malloc(n + 16);
    /* truncated at several offsets, padded */
    const size_t cuts[] = { 0, 4, 8, 100, CK_HEADER - 1, CK_HEADER, CK_HEADER + 1, n / 2, n - 8, n - 1 };
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        char name[32];
        snprintf(name, sizeof name, "ck_cut%zu.bin", k);
        ck_write(e, name, ck_buf, cuts[k]);
    }
    memcpy(b, ck_buf, n);
    b[n] = 0;
    ck_write(e, "ck_pad.bin", b, n + 1);
    /* wrong magic (checksum recomputed), flipped byte, flipped checksum */
    memcpy(b, ck_buf, n);
    memcpy(b, "NOTACKPT", 8);
    ck_fix_sum(b, n);
    ck_write(e, "ck_magic.bin", b, n);
    memcpy(b, ck_buf, n);
    b[CK_HEADER + 17] ^= 0x40;
    ck_write(e, "ck_flip.bin", b, n);
    memcpy(b, ck_buf, n);
    b[n - 3] ^= 1;
    ck_write(e, "ck_sum.bin", b, n);
    memcpy(b, ck_buf, n);
    b[CK_FIELD(F_STEP)] ^= 1; /* a header byte changed, checksum not fixed */
    ck_write(e, "ck_hdrflip.bin", b, n);
    memcpy(b, ck_buf, n);
    memset(b + CK_FIELD(F_FIELDS), 'x', 128); /* lr without its NUL, checksum fixed */
    ck_fix_sum(b, n);
    ck_write(e, "ck_lrnul.bin", b, n);
    free(b);
    /* crafted fields, checksum recomputed */
    ck_field(e, "ck_v1.bin", F_VERSION, 1);
    ck_field(e, "ck_v3.bin", F_VERSION, 3);
    ck_field(e, "ck_v4.bin", F_VERSION, 4);
    /* version 3's rotation base (train --rot-base's range: finite, > 1) */
    ck_base(e, "ck_base1.bin", 1.0, 0, 0);
    ck_base(e, "ck_basenan.bin", NAN, 0, 0);
    ck_base(e, "ck_baseinf.bin", INFINITY, 0, 0);
    ck_base(e, "ck_basecut.bin", 500.0, 0, CK_HEADER + 4);
    ck_base(e, "ck_basesum.bin", 500.0, 1, 0);
    ck_field(e, "ck_layers0.bin", F_LAYERS, 0);
    ck_field(e, "ck_layersneg.bin", F_LAYERS, -1);
    ck_field(e, "ck_layers32.bin", F_LAYERS, ((int64_t)1 << 32) + 1); /* reads as 1 if cut */
    ck_field(e, "ck_width0.bin", F_WIDTH, 0);
    ck_field(e, "ck_width7.bin", F_WIDTH, 7);
    ck_field(e, "ck_heads0.bin", F_HEADS, 0);
    ck_field(e, "ck_heads3.bin", F_HEADS, 3);
    ck_field(e, "ck_ctx0.bin", F_CTX, 0);
    ck_field(e, "ck_ctxneg.bin", F_CTX, -8);
    ck_field(e, "ck_ctx32.bin", F_CTX, -((int64_t)1 << 32) + 8); /* reads as 8 if cut */
    ck_field(e, "ck_ctxhuge.bin", F_CTX, (int64_t)1 << 24);     /* GBs of activations */
    ck_field(e, "ck_vocab1.bin", F_VOCAB, 1);
    ck_field(e, "ck_vocabbig.bin", F_VOCAB, 70000);
    ck_field(e, "ck_rot.bin", F_ROT, 99);
    ck_field(e, "ck_mode.bin", F_MODE, 7);
    ck_field(e, "ck_alibi.bin", F_ALIBI, -3);
    ck_field(e, "ck_path.bin", F_PATH, 5);
    double d = NAN;
    int64_t di;
    memcpy(&di, &d, 8);
    ck_field(e, "ck_dropnan.bin", F_DROPOUT, di);
    d = 1.0;
    memcpy(&di, &d, 8);
    ck_field(e, "ck_drop1.bin", F_DROPOUT, di);
    ck_field(e, "ck_nparams.bin", F_NPARAMS, np + 1);
    ck_field(e, "ck_nparamsneg.bin", F_NPARAMS, -np);
    /* the run's settings, used by train --resume */
    ck_field(e, "ck_valevery0.bin", F_VAL_EVERY, 0);
    ck_field(e, "ck_valeveryneg.bin", F_VAL_EVERY, -1);
    ck_field(e, "ck_stepneg.bin", F_STEP, -5);
    ck_field(e, "ck_stepsneg.bin", F_STEPS, -1);
    ck_field(e, "ck_accumneg.bin", F_ACCUM, -1);
    ck_field(e, "ck_batch0.bin", F_BATCH, 0);
    ck_field(e, "ck_batch32.bin", F_BATCH, ((int64_t)1 << 32) + 2);
    ck_field(e, "ck_valbatches0.bin", F_VAL_BATCHES, 0);
    ck_field(e, "ck_adamneg.bin", F_ADAM_T, -1);
    ck_field(e, "ck_datan.bin", F_DATA_N, -1);
    /* a diverged state: one parameter NaN, one second moment infinite,
     * checksum recomputed so that only the values are wrong */
    ck_float(e, "ck_nanparam.bin", 3, NAN);
    ck_float(e, "ck_infmoment.bin", 3 * np - 1, INFINITY);
    /* finite weights that overflow float in the forward:
     * every gain of the first LayerNorm 3e38, after the embedding's V x C */
    {
        int64_t V, C;
        memcpy(&V, ck_buf + CK_FIELD(F_VOCAB), 8);
        memcpy(&C, ck_buf + CK_FIELD(F_WIDTH), 8);
        unsigned char *h = malloc(ck_len);
        memcpy(h, ck_buf, ck_len);
        const float big = 3e38f;
        for (int64_t c = 0; c < C; c++)
            memcpy(h + CK_HEADER + 4 * (size_t)(V * C + c), &big, 4);
        ck_fix_sum(h, ck_len);
        ck_write(e, "ck_huge.bin", h, ck_len);
        free(h);
    }
    /* the run at step 2 of its 2 (step and AdamW's count together), for a
     * resume asked to stop before it */
    memcpy(b = malloc(n), ck_buf, n);
    int64_t two = 2;
    memcpy(b + CK_FIELD(F_STEP), &two, 8);
    memcpy(b + CK_FIELD(F_ADAM_T), &two, 8);
    ck_fix_sum(b, n);
    ck_write(e, "ck_step2.bin", b, n);
    free(b);
}

/* ---- set-up ------------------------------------------------------------------- */

static int binary_has(const char *path, const char *needle)
{
    size_t len;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(len + 1);
    len = fread(b, 1, len, f);
    fclose(f);
    int hit = memmem(b, len, needle, strlen(needle)) != NULL;
    free(b);
    return hit;
}

/* Whether a 256 KB tmpfs can be mounted here (root with CAP_SYS_ADMIN). */
static void probe_tmpfs(bi_env *e)
{
    char *m = th_path(e->root, "mnt");
    mkdir(m, 0755);
    if (mount("tmpfs", m, "tmpfs", 0, BI_FULL_SIZE) == 0) {
        umount2(m, MNT_DETACH);
        e->tmpfs = 1;
    } else {
        snprintf(e->tmpfs_why, sizeof e->tmpfs_why, "mount -t tmpfs: %s", strerror(errno));
    }
    rmdir(m);
    free(m);
}

bi_env *bi_setup(void)
{
    bi_env *e = calloc(1, sizeof *e);
    const char *bin = getenv("ROUTELAB");
    e->bin = realpath(bin ? bin : "build/routelab", NULL);
    cr_assert(e->bin, "ROUTELAB (%s) not found", bin ? bin : "build/routelab");
    /* ROUTELAB may be a wrapper script (make sanitize's tools/fuzz/san_routelab.sh):
     * a sanitized test binary means a sanitized routelab beside it */
#if defined(__SANITIZE_ADDRESS__)
    e->asan = 1;
#else
    e->asan = binary_has(e->bin, "__asan_init");
#endif
    e->root = th_tmpdir();
    e->fx = th_path(e->root, "fx");
    e->errpath = th_path(e->root, "stderr.txt");
    mkdir(e->fx, 0755);
    /* texts */
    char *text = th_path(e->fx, "text.txt");
    th_write_text(text, 60);
    char *text2 = th_path(e->fx, "text2.txt");
    th_write_text(text2, 61);
    write_str(e, "empty.txt", "");
    write_str(e, "tiny.txt", "abcde");
    char *dir = th_path(e->fx, "dir");
    mkdir(dir, 0755);
    char *fifo = th_path(e->fx, "fifo");
    cr_assert_eq(mkfifo(fifo, 0644), 0, "mkfifo: %s", strerror(errno));
    token_files(e);
    bpe_fixtures(e, text);
    angle_tables(e);
    archives(e);
    /* a tiny model stopped after step 1 of 2: --resume has a step to run */
    char *run = th_path(e->fx, "run");
    char *argv[] = { "routelab", "train", "--data", text, "--out", run, "--layers", "1",
                     "--width", "8", "--heads", "2", "--ctx", "8", "--batch", "2", "--steps", "2",
                     "--stop-at", "1", "--val-every", "1", "--val-batches", "1", "--ckpt-every", "1",
                     "--log-every", "1", "--lr", "1e-3", "--threads", "1", NULL };
    double secs;
    int st = run_argv(e, argv, e->root, &secs);
    size_t n;
    char *err = slurp(e->errpath, &n);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "set-up: train failed: %s", err);
    free(err);
    char *ck = th_path(run, "ckpt.bin");
    checkpoints(e, ck);
    probe_tmpfs(e);
    bi_list l = list_tree(e->fx);
    e->base = l.v;
    e->nbase = l.n;
    free(ck);
    free(run);
    free(fifo);
    free(dir);
    free(text);
    free(text2);
    return e;
}

void bi_teardown(bi_env *e)
{
    rm_tree(e->root);
    for (int i = 0; i < e->nbase; i++)
        free(e->base[i]);
    free(e->base);
    free(e->bin);
    free(e->root);
    free(e->fx);
    free(e->errpath);
    free(e);
    free(ck_buf);
    ck_buf = NULL;
}

/* ---- one case ------------------------------------------------------------------ */

/* Fill the tmpfs at dir to the last byte. */
static void fill(const char *dir)
{
    char *p = th_path(dir, "filler");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char block[4096];
    while (fd >= 0 && write(fd, block, sizeof block) > 0)
        ;
    while (fd >= 0 && write(fd, block, 1) > 0)
        ;
    if (fd >= 0)
        close(fd);
    free(p);
}

/* Copy fixture file src to dst. */
static void copy_file(const char *src, const char *dst)
{
    FILE *f = fopen(src, "rb"), *g = fopen(dst, "wb");
    cr_assert(f && g, "cannot copy fixture %s", src);
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, f)) > 0)
        cr_assert_eq(fwrite(b, 1, n, g), n);
    fclose(f);
    fclose(g);
}

/* What the output-target placeholders made in a case folder, checked after
 * the run: the node is still a device (or FIFO), the link still a link, its
 * target unchanged. */
typedef struct {
    int dev, link;
    mode_t dev_type;
} bi_targets;

#define BI_VICTIM "victim: must stay as it is\n"

/* Fixture name as DIR/ckpt.bin (a FIFO made anew: never opened here). */
static void copy_ckpt(const bi_env *e, const char *name, const char *dir)
{
    char *src = th_path(e->fx, name), *dst = th_path(dir, "ckpt.bin");
    struct stat sb;
    if (lstat(src, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
        cr_assert_eq(mkfifo(dst, 0644), 0);
    } else {
        FILE *f = fopen(src, "rb");
        cr_assert(f, "no fixture %s", name);
        fseek(f, 0, SEEK_END);
        size_t n = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        char *b = malloc(n + 1);
        cr_assert_eq(fread(b, 1, n, f), n);
        fclose(f);
        write_bytes(dst, b, n);
        free(b);
    }
    free(src);
    free(dst);
}

/* The process holding @LOCKED's lock during a case (0: none). */
static pid_t holder;

/* Another process holds dir's lock (base/core/lock.h's file, flock) until the
 * case ends: a concurrent writer. */
static void hold_lock(const char *dir)
{
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    char *lp = th_path(dir, RL_LOCK_NAME);
    pid_t p = fork();
    cr_assert(p >= 0, "fork failed");
    if (p == 0) {
        int fd = open(lp, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(pfd[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    cr_assert_eq(read(pfd[0], &c, 1), 1, "the lock holder did not start");
    close(pfd[0]);
    close(pfd[1]);
    free(lp);
    holder = p;
}

static void release_holder(void)
{
    if (holder) {
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
        holder = 0;
    }
}

/* "@NAME" and "@NAME/rest" in one argument: fixtures by file name (@fx/NAME),
 * @OUT (a fresh path in the case folder), @CASE (the case folder), @FULL (a
 * full tmpfs there), @RUN:FIXTURE (a run folder holding the fixture as
 * ckpt.bin, for train --resume), @MISSING (a path that does not exist).
 * Output targets: @DEV a character device node (1, 3: what
 * /dev/null is) made in the case folder, a FIFO where mknod is refused;
 * @LINK a symbolic link there to a regular file beside it; @COPY:FIXTURE a
 * copy of the fixture file in the case folder (an input a row may try to
 * overwrite, so the fixture itself is never at risk); @TEXTDIR a folder
 * there holding a copy of text.txt.  @LOCKED (a folder whose lock,
 * base/core/lock.h, another process holds for the whole case) and @LOCKEDRUN
 * (the same folder holding the valid checkpoint as ckpt.bin: a run folder
 * in use).  ("@>PATH" is no argument: bi_run_case sends the command's stdout there.) */
static char *subst(const bi_env *e, const char *a, const char *cdir, int *full, bi_targets *tg)
{
    if (a[0] != '@')
        return strdup(a);
    const char *slash = strncmp(a, "@RUN:", 5) && strncmp(a, "@COPY:", 6) ? strchr(a, '/') : NULL;
    size_t k = slash ? (size_t)(slash - a) : strlen(a);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)k - 1, a + 1);
    const char *rest = a + k;
    char *base;
    if (!strcmp(name, "OUT"))
        base = th_path(cdir, "out");
    else if (!strcmp(name, "CASE"))
        base = strdup(cdir);
    else if (!strcmp(name, "MISSING"))
        base = th_path(cdir, "missing");
    else if (!strcmp(name, "DEV")) {
        base = th_path(cdir, "dev");
        if (!tg->dev) {
            tg->dev_type = S_IFCHR;
            if (mknod(base, S_IFCHR | 0666, makedev(1, 3)) != 0) {
                tg->dev_type = S_IFIFO;
                cr_assert_eq(mkfifo(base, 0666), 0, "mkfifo: %s", strerror(errno));
            }
            tg->dev = 1;
        }
    } else if (!strcmp(name, "LINK")) {
        base = th_path(cdir, "link");
        if (!tg->link) {
            char *v = th_path(cdir, "victim");
            write_bytes(v, BI_VICTIM, strlen(BI_VICTIM));
            cr_assert_eq(symlink("victim", base), 0, "symlink: %s", strerror(errno));
            free(v);
            tg->link = 1;
        }
    } else if (!strcmp(name, "TEXTDIR")) {
        base = th_path(cdir, "texts");
        if (mkdir(base, 0755) == 0) {
            char *src = th_path(e->fx, "text.txt"), *dst = th_path(base, "text.txt");
            copy_file(src, dst);
            free(src);
            free(dst);
        }
    } else if (!strncmp(name, "COPY:", 5)) {
        const char *b = strrchr(name + 5, '/');
        base = th_path(cdir, b ? b + 1 : name + 5);
        char *src = th_path(e->fx, name + 5);
        if (access(base, F_OK) != 0)
            copy_file(src, base);
        free(src);
    }
    else if (!strcmp(name, "FULL")) {
        base = th_path(cdir, "full");
        if (!*full) {
            mkdir(base, 0755);
            cr_assert_eq(mount("tmpfs", base, "tmpfs", 0, BI_FULL_SIZE), 0, "mount: %s",
                         strerror(errno));
            fill(base);
            *full = 1;
        }
    } else if (!strncmp(name, "RUN:", 4)) {
        base = th_path(cdir, "run");
        mkdir(base, 0755);
        copy_ckpt(e, name + 4, base);
    } else if (!strcmp(name, "LOCKED") || !strcmp(name, "LOCKEDRUN")) {
        base = th_path(cdir, "locked");
        mkdir(base, 0755);
        if (!holder) { /* once per case, however many arguments name it */
            if (name[6]) /* LOCKEDRUN: the valid checkpoint in it */
                copy_ckpt(e, "run/ckpt.bin", base);
            hold_lock(base);
        }
    } else {
        base = th_path(e->fx, name);
    }
    char *r = malloc(strlen(base) + strlen(rest) + 1);
    sprintf(r, "%s%s", base, rest);
    free(base);
    return r;
}

/* One stderr line, ending in a newline, "routelab:", matching pat. */
static const char *judge_stderr(const char *s, size_t n, const char *pat)
{
    if (n == 0)
        return "nothing on stderr";
    if (th_lines(s) != 1 || s[n - 1] != '\n')
        return "not exactly one line on stderr";
    if (strncmp(s, "routelab:", 9))
        return "the line does not start with \"routelab:\"";
    regex_t re;
    cr_assert_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0, "bad pattern %s", pat);
    int hit = regexec(&re, s, 0, NULL, 0) == 0;
    regfree(&re);
    return hit ? NULL : "the line does not match the pattern";
}

/* The output targets a case made are as they were (appended to what). */
static void check_targets(const bi_targets *tg, const char *cdir, char *what, size_t len)
{
    struct stat st;
    char *p = th_path(cdir, "dev"), *l = th_path(cdir, "link"), *v = th_path(cdir, "victim");
    size_t k = strlen(what), n;
    if (tg->dev && (lstat(p, &st) != 0 || (st.st_mode & S_IFMT) != tg->dev_type))
        snprintf(what + k, len - k, "%sthe %s at @DEV was replaced", k ? "; " : "",
                 tg->dev_type == S_IFCHR ? "device node" : "FIFO");
    k = strlen(what);
    if (tg->link) {
        char *b = slurp(v, &n);
        if (lstat(l, &st) != 0 || !S_ISLNK(st.st_mode))
            snprintf(what + k, len - k, "%sthe symbolic link at @LINK was replaced", k ? "; " : "");
        else if (strcmp(b, BI_VICTIM))
            snprintf(what + k, len - k, "%sthe file behind @LINK was written through the link", k ? "; " : "");
        free(b);
    }
    free(p);
    free(l);
    free(v);
}

int bi_run_case(bi_env *e, const bi_case *c, int i)
{
    bi_targets tg = { 0 };
    int uses_full = 0;
    for (int a = 0; c->argv[a]; a++)
        uses_full |= !strncmp(c->argv[a], "@FULL", 5);
    char shown[2048] = "routelab";
    for (int a = 0; c->argv[a]; a++) {
        size_t k = strlen(shown);
        snprintf(shown + k, sizeof shown - k, " %s", c->argv[a]);
    }
    if (uses_full && !e->tmpfs) {
        cr_log_warn("badinput case %d skipped (%s): no full tmpfs here: %s", i + 1, shown,
                    e->tmpfs_why);
        return -1;
    }
    char *cdir = th_path(e->root, "case-XXXXXX");
    cr_assert(mkdtemp(cdir), "mkdtemp");
    char *argv[BI_MAXARGS + 1];
    int na = 0, full = 0;
    const char *outpath = NULL; /* "@>PATH": the command's stdout (e.g. /dev/full), not an argument */
    argv[na++] = "routelab";
    for (int a = 0; c->argv[a]; a++) {
        if (!strncmp(c->argv[a], "@>", 2))
            outpath = c->argv[a] + 2;
        else
            argv[na++] = subst(e, c->argv[a], cdir, &full, &tg);
    }
    argv[na] = NULL;
    bi_list before = list_tree(cdir);
    double secs;
    int st = run_argv_to(e, argv, cdir, outpath, &secs);
    size_t n = 0;
    char *err = slurp(e->errpath, &n);
    char what[4096] = "";
    if (st < 0)
        snprintf(what, sizeof what, "killed after %d s (hangs)", BI_TIMEOUT_S);
    else if (WIFSIGNALED(st))
        snprintf(what, sizeof what, "killed by signal %d", WTERMSIG(st));
    else if (WEXITSTATUS(st) != c->status)
        snprintf(what, sizeof what, "exit status %d, expected %d", WEXITSTATUS(st), c->status);
    const char *bad = judge_stderr(err, n, c->pat);
    if (bad) {
        size_t k = strlen(what);
        snprintf(what + k, sizeof what - k, "%s%s (pattern /%s/)", k ? "; " : "", bad, c->pat);
    }
    check_targets(&tg, cdir, what, sizeof what);
    release_holder();
    bi_list now = list_tree(cdir), fxnow = list_tree(e->fx);
    char left[2048] = "";
    int nl = list_new(before.v, before.n, &now, left, sizeof left);
    char fxleft[2048] = "";
    int nfx = list_new(e->base, e->nbase, &fxnow, fxleft, sizeof fxleft);
    if (nl || nfx) {
        size_t k = strlen(what);
        snprintf(what + k, sizeof what - k, "%sleft behind: %s%s%s%s", k ? "; " : "",
                 nl ? left : "", nl && nfx ? ", " : "", nfx ? "in the fixtures: " : "",
                 nfx ? fxleft : "");
    }
    /* restore the fixture folder for the next case */
    for (int j = 0; j < fxnow.n; j++)
        if (!e->nbase || !bsearch(&fxnow.v[j], e->base, e->nbase, sizeof *e->base, cmp_str)) {
            char *p = th_path(e->fx, fxnow.v[j]);
            rm_tree(p);
            remove(p);
            free(p);
        }
    if (full) {
        char *m = th_path(cdir, "full");
        umount2(m, MNT_DETACH);
        free(m);
    }
    rm_tree(cdir);
    int ok = what[0] == 0;
    cr_expect(ok, "badinput case %d: %s\n    %s\n    stderr (%zu bytes, %.1f s): %s", i + 1, what,
              shown, n, secs, n ? err : "(empty)\n");
    list_free(&before);
    list_free(&now);
    list_free(&fxnow);
    for (int a = 1; a < na; a++)
        free(argv[a]);
    free(err);
    free(cdir);
    return ok;
}
