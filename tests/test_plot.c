/* test_plot.c: figures through gnuplot (program/report/plot.c).  An output path is
 * only ever a file name to gnuplot (no injection, any byte but NUL works);
 * a figure gnuplot left incomplete is never renamed into place; every
 * failure is one line on stderr and gnuplot's own messages never reach it.
 * The command is `probe` on a tiny model (a second), the fastest that draws. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "../base/core/util.h"

/* s in single quotes for sh ('\'' for each apostrophe); malloc'ed. */
static char *shq(const char *s)
{
    char *q = malloc(4 * strlen(s) + 3), *o = q;
    *o++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *s;
        }
    }
    *o++ = '\'';
    *o = 0;
    return q;
}

/* A one-layer model in dir/m (half a second of training). */
static void tiny_model(const char *dir)
{
    char args[1024], err[2048];
    snprintf(args, sizeof args, "train --data README.md --out %s/m --layers 1 --width 16 --heads 2 --ctx 32 "
             "--batch 2 --steps 3 --threads 1", dir);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
}

/* routelab probe on dir/m with --out out (any bytes) and extra flags. */
static int probe(const char *dir, const char *out, const char *extra, char *err, size_t errlen)
{
    char *q = shq(out), args[4096];
    snprintf(args, sizeof args, "probe --ckpt %s/m/ckpt.bin --data README.md --windows 1 --threads 1 --out %s %s",
             dir, q, extra);
    free(q);
    return th_run(args, NULL, 0, err, errlen);
}

static int exists(const char *dir, const char *name)
{
    char *p = th_path(dir, name);
    int ok = access(p, F_OK) == 0;
    free(p);
    return ok;
}

/* Files in dir whose name contains part. */
static int count_named(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

static void expect_figures(const char *out)
{
    const char *figs[] = { "probe.png", "distance.png" };
    for (int i = 0; i < 2; i++) {
        char *p = th_path(out, figs[i]);
        struct stat st;
        cr_expect(stat(p, &st) == 0 && st.st_size > 10000, "%s missing or small", p);
        free(p);
    }
    cr_expect_eq(count_named(out, ".tmp."), 0, "a temporary file left in %s", out);
}

Test(plot, out_path_is_data_not_code, .timeout = 120)
{
    char *d = th_tmpdir(), err[4096], out[1024], sentinel[512];
    tiny_model(d);
    snprintf(sentinel, sizeof sentinel, "%s/SENTINEL", d);
    /* the first reproducer: a path that closes gnuplot's string */
    snprintf(out, sizeof out, "%s/x';system('touch %s');y='", d, sentinel);
    cr_expect_eq(probe(d, out, "--lengths 32", err, sizeof err), 0, "%s", err);
    cr_expect_str_empty(err);
    cr_expect(access(sentinel, F_OK) != 0, "gnuplot ran the path as code: %s exists", sentinel);
    expect_figures(out);
    /* an apostrophe (the second case found), quotes, a semicolon, a newline */
    const char *names[] = { "bob's", "a \"b\"; c\nd" };
    for (int i = 0; i < 2; i++) {
        snprintf(out, sizeof out, "%s/%s", d, names[i]);
        cr_expect_eq(probe(d, out, "--lengths 32", err, sizeof err), 0, "%s", err);
        cr_expect_str_empty(err);
        expect_figures(out);
    }
    th_rmdir(d);
    free(d);
}

/* gnuplot reads a file name starting with '<' (load, plot) or '|' (set
 * output) as a shell pipe: relative output folders so named, run from d. */
Test(plot, pipe_like_names_are_files, .timeout = 120)
{
    char *d = th_tmpdir(), err[4096], args[16384], bin[PATH_MAX], data[PATH_MAX];
    tiny_model(d);
    cr_assert(realpath(getenv("ROUTELAB") ? getenv("ROUTELAB") : "build/routelab", bin));
    cr_assert(realpath("README.md", data));
    setenv("ROUTELAB", bin, 1);
    cr_assert_eq(chdir(d), 0);
    const char *names[] = { "<touch PIPED1", "|touch PIPED2" };
    for (int i = 0; i < 2; i++) {
        char *q = shq(names[i]);
        snprintf(args, sizeof args, "probe --ckpt m/ckpt.bin --data %s --windows 1 --threads 1 --lengths 32 --out %s",
                 data, q);
        free(q);
        cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
        cr_expect_str_empty(err);
        expect_figures(names[i]);
    }
    cr_expect(access("PIPED1", F_OK) != 0 && access("PIPED2", F_OK) != 0, "a file name ran as a pipe");
    cr_assert_eq(chdir("/"), 0);
    th_rmdir(d);
    free(d);
}

/* gnuplot's warnings (one x value: "empty x range") stay off stderr and are
 * kept next to the figure; a clean run removes that log again. */
Test(plot, warnings_kept_in_a_log, .timeout = 120)
{
    char *d = th_tmpdir(), err[4096], out[512];
    tiny_model(d);
    snprintf(out, sizeof out, "%s/p", d);
    cr_expect_eq(probe(d, out, "--lengths 3", err, sizeof err), 0, "%s", err);
    cr_expect_str_empty(err, "gnuplot's warning reached stderr");
    cr_expect(exists(out, "probe.png") && exists(out, "probe.gnuplot.log"));
    cr_expect_eq(probe(d, out, "--lengths 32", err, sizeof err), 0, "%s", err);
    cr_expect_str_empty(err);
    cr_expect(!exists(out, "probe.gnuplot.log"), "a stale log after a clean run");
    th_rmdir(d);
    free(d);
}

/* A fake gnuplot first in PATH, run by the next probe of this test process. */
static char *fake_gnuplot(const char *dir, const char *body)
{
    char *bin = th_path(dir, "bin"), *exe = th_path(bin, "gnuplot");
    mkdir(bin, 0755);
    FILE *f = fopen(exe, "w");
    cr_assert(f);
    /* run.gp's arguments: -c RUN SCRIPT DIR OUT TERM ...; the -e form is the
     * older layout, read so that the test can be run against it */
    fprintf(f, "#!/bin/sh\n"
               "if [ \"$1\" = -c ]; then out=\"$5\"; term=\"$6\"; else\n"
               "out=$(printf %%s \"$2\" | sed -n \"s/.*out='\\([^']*\\)'.*/\\1/p\")\n"
               "term=$(printf %%s \"$2\" | sed -n \"s/.*term='\\([^']*\\)'.*/\\1/p\"); fi\n%s\n",
            body);
    fclose(f);
    chmod(exe, 0755);
    char path[4096];
    snprintf(path, sizeof path, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    free(exe);
    return bin;
}

/* status 1, one line naming the problem, and no figure or temporary left */
static void expect_one_line_failure(const char *d, const char *extra, const char *want)
{
    char err[8192], out[512];
    snprintf(out, sizeof out, "%s/p", d);
    int st = probe(d, out, extra, err, sizeof err);
    cr_expect_eq(st, 1, "status %d: %s", st, err);
    cr_expect_eq(th_lines(err), 1, "not one line: %s", err);
    cr_expect(!strncmp(err, "routelab: ", 10) && strstr(err, want), "%s", err);
    cr_expect_eq(count_named(out, ".tmp."), 0, "a temporary file left");
    cr_expect_eq(count_named(out, ".png") + count_named(out, ".svg"), 0, "a figure left");
    cr_expect_eq(count_named(out, ".log"), 0, "a log left");
}

/* gnuplot exits 0 after ENOSPC with a truncated PNG: never renamed into place. */
Test(plot, truncated_png_refused, .timeout = 120)
{
    char *d = th_tmpdir();
    tiny_model(d);
    free(fake_gnuplot(d, "printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR' > \"$out\"; exit 0"));
    expect_one_line_failure(d, "--lengths 32", "incomplete");
    th_rmdir(d);
    free(d);
}

/* A complete PNG (signature and IEND) but an SVG without </svg>. */
Test(plot, truncated_svg_refused, .timeout = 120)
{
    char *d = th_tmpdir(), err[4096], out[512];
    tiny_model(d);
    free(fake_gnuplot(d, "if [ \"$term\" = png ]; then "
                         "printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\0IEND\\256B`\\202' > \"$out\"; "
                         "else printf '<svg>\\n<g>' > \"$out\"; fi; exit 0"));
    snprintf(out, sizeof out, "%s/p", d);
    int st = probe(d, out, "--lengths 32", err, sizeof err);
    cr_expect_eq(st, 1, "status %d: %s", st, err);
    cr_expect_eq(th_lines(err), 1, "%s", err);
    cr_expect(strstr(err, "probe.svg"), "%s", err);
    cr_expect_eq(count_named(out, ".svg") + count_named(out, ".tmp."), 0);
    th_rmdir(d);
    free(d);
}

/* gnuplot that fails loudly: our one line quotes its error, nothing else. */
Test(plot, gnuplot_failure_is_one_line, .timeout = 120)
{
    char *d = th_tmpdir();
    tiny_model(d);
    free(fake_gnuplot(d, "i=0; while [ $i -lt 40 ]; do echo \"noise $i\" >&2; echo \"out $i\"; i=$((i+1)); done; "
                         "echo '\"run.gp\" line 7: undefined variable: nothing' >&2; exit 1"));
    expect_one_line_failure(d, "--lengths 32", "undefined variable: nothing");
    th_rmdir(d);
    free(d);
}

/* gnuplot exits 0 and writes nothing. */
Test(plot, missing_figure_refused, .timeout = 120)
{
    char *d = th_tmpdir();
    tiny_model(d);
    free(fake_gnuplot(d, "exit 0"));
    expect_one_line_failure(d, "--lengths 32", "did not write");
    th_rmdir(d);
    free(d);
}

/* No gnuplot at all: the child prints nothing, the parent one line. */
Test(plot, no_gnuplot_is_one_line, .timeout = 120)
{
    char *d = th_tmpdir(), *bin = th_path(d, "empty");
    tiny_model(d);
    mkdir(bin, 0755);
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", bin, 1);
    expect_one_line_failure(d, "--lengths 32", "cannot run gnuplot");
    setenv("PATH", path, 1); /* for th_rmdir's rm */
    free(path);
    free(bin);
    th_rmdir(d);
    free(d);
}

/* PNG width and height from its IHDR chunk (bytes 16..23, big-endian). */
static int png_size(const char *path, long *w, long *h)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    const size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n != sizeof b)
        return -1;
    *w = (long)b[16] << 24 | (long)b[17] << 16 | (long)b[18] << 8 | b[19];
    *h = (long)b[20] << 24 | (long)b[21] << 16 | (long)b[22] << 8 | b[23];
    return 0;
}

/* Every figure is written as PNG and SVG with a .plot file beside it, and
 * `routelab plot` draws it again from that file and its folder's TSVs:
 * another size (a PNG of twice the pixels at --scale 2), another kind (SVG,
 * PDF); what it cannot read is one line, status 2, nothing written
 * (figures were once PNG only, and could not be restyled). */
Test(plot, every_figure_has_svg_and_redraws_from_its_plot_file, .timeout = 120)
{
    th_to_root();
    char *d = th_tmpdir(), err[2048], args[4096];
    tiny_model(d);
    char *out = th_path(d, "p");
    cr_assert_eq(probe(d, out, "--lengths 32", err, sizeof err), 0, "%s", err);
    const char *names[] = { "probe", "distance" };
    for (int i = 0; i < 2; i++) {
        char f[64];
        snprintf(f, sizeof f, "%s.svg", names[i]);
        cr_expect(exists(out, f), "%s not written", f);
        snprintf(f, sizeof f, "%s.plot", names[i]);
        cr_expect(exists(out, f), "%s not written", f);
    }
    long w0, h0, w1, h1;
    char *png = th_path(out, "probe.png"), *big = th_path(d, "big.png"), *svg = th_path(d, "small.svg"),
         *pdf = th_path(d, "p.pdf");
    cr_assert_eq(png_size(png, &w0, &h0), 0);
    snprintf(args, sizeof args, "plot %s/probe.plot --out %s --scale 2 --font 20", out, big);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(png_size(big, &w1, &h1), 0);
    cr_expect(w1 == 2 * w0 && h1 == 2 * h0, "%ldx%ld from %ldx%ld", w1, h1, w0, h0);
    snprintf(args, sizeof args, "plot %s/distance.plot --out %s", out, svg);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    char *s = rl_read_file(svg, NULL);
    cr_expect(s && strstr(s, "</svg>"), "not an SVG");
    free(s);
    snprintf(args, sizeof args, "plot %s/probe.plot --out %s --scale 0.5", out, pdf);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s", err);
    s = rl_read_file(pdf, NULL);
    cr_expect(s && !strncmp(s, "%PDF", 4), "not a PDF");
    free(s);
    /* what it cannot read: one line, status 2, no file */
    const char *bad[][2] = {
        { "%s/probe.tsv", "is not a figure's .plot file" },
        { "%s/missing.plot", "cannot read" },
    };
    for (int i = 0; i < 2; i++) {
        char in[1024];
        snprintf(in, sizeof in, bad[i][0], out);
        snprintf(args, sizeof args, "plot %s --out %s/no.png", in, d);
        cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", args);
        cr_expect(th_lines(err) == 1 && strstr(err, bad[i][1]), "%s: %s", args, err);
    }
    snprintf(args, sizeof args, "plot %s/probe.plot --out %s/no.jpg", out, d);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2);
    cr_expect(strstr(err, "must end in .png, .svg or .pdf"), "%s", err);
    snprintf(args, sizeof args, "plot %s/probe.plot --out %s/no.png --scale 9", out, d);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2);
    snprintf(args, sizeof args, "plot %s/probe.plot --out %s/probe.plot", out, out);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "the .plot file as the output");
    cr_expect(!exists(d, "no.png") && !exists(d, "no.jpg"), "a refused plot wrote a file");
    char *pf = th_path(out, "probe.plot");
    s = rl_read_file(pf, NULL);
    cr_expect(s && !strncmp(s, "routelab-plot 1\n", 16), "the .plot file was touched");
    free(s);
    free(pf), free(png), free(big), free(svg), free(pdf), free(out);
    th_rmdir(d);
}
