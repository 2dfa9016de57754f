/* plot.c: figures by gnuplot, each written through a temporary file.
 *
 * gnuplot runs plots/run.gp with -c; paths and values travel as its
 * arguments, never pasted into gnuplot code (a path like x';system('...')
 * is only a file name).  Its stdout and stderr go to a pipe we read, so no
 * gnuplot message reaches our stderr; a failure ends the process with one
 * line.  Failures here are internal (status 1): the output folder was already
 * written to, so what is left is a missing gnuplot, a broken script or a
 * full disk. */
#include "plot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../base/core/job.h"
#include "../../base/core/lock.h"
#include "../../base/core/util.h"

/* What we keep of gnuplot's messages (the rest is read and dropped). */
#define MSG_MAX 65536

/* A path gnuplot may take as a file name: gnuplot pipes a file name that
 * starts with '<' (load, plot) or '|' (set output) through the shell, so a
 * relative path gets "./" in front.  malloc'ed. */
static char *file_name(const char *p)
{
    char *s;
    if (asprintf(&s, "%s%s", p[0] == '/' ? "" : "./", p) < 0)
        rl_fatal("out of memory");
    return s;
}

/* $ROUTELAB_PLOTS; else plots/ next to the binary's folder (the build tree:
 * build/routelab -> plots/); else the installed scripts (make install:
 * PREFIX/bin/routelab -> PREFIX/share/routelab/plots).  The first that holds
 * run.gp; the build tree's path when none does (the caller names it). */
static char *plots_dir(void)
{
    const char *env = getenv("ROUTELAB_PLOTS");
    if (env && *env)
        return file_name(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        rl_fatal("cannot locate the plots/ folder (set ROUTELAB_PLOTS)");
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char *p, *q;
    if (asprintf(&p, "%s/../plots", exe) < 0 || asprintf(&q, "%s/../share/routelab/plots/run.gp", exe) < 0)
        rl_fatal("out of memory");
    char *runp;
    if (asprintf(&runp, "%s/run.gp", p) < 0)
        rl_fatal("out of memory");
    if (access(runp, R_OK) != 0 && access(q, R_OK) == 0) {
        free(p);
        *strrchr(q, '/') = 0; /* the folder */
        p = q;
    } else {
        free(q);
    }
    free(runp);
    return p;
}

/* The only text of ours that run.gp evaluates: it must be an identifier and
 * must not overwrite run.gp's own variables. */
static int is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return 0;
    return 1;
}

static void check_name(const char *script, const char *name)
{
    if (!is_ident(name) || !strncmp(name, "rl_", 3) || !strcmp(name, "plotdir") || !strcmp(name, "dir") ||
        !strcmp(name, "out") || !strcmp(name, "term"))
        rl_fatal("plot %s: bad variable name '%s'", script, name ? name : "(null)");
}

/* The NAMES and NUMBERS arguments of run.gp, and the string values in order. */
typedef struct {
    char names[1024], nums[1024];
    const char *str[RL_PLOT_MAXSTR];
    int nstr;
} plot_args;

static void build_args(const char *script, const rl_plotvar *v, int n, plot_args *a)
{
    size_t no = 0, vo = 0;
    a->names[0] = a->nums[0] = 0;
    a->nstr = 0;
    for (int k = 0; k < n; k++) {
        check_name(script, v[k].name);
        const char *kind = v[k].kind == RL_PV_STR ? "s" : v[k].kind == RL_PV_INT ? "i" : "r";
        no += snprintf(a->names + no, sizeof a->names - no, "%s%s:%s", no ? " " : "", kind, v[k].name);
        if (no >= sizeof a->names)
            rl_fatal("plot %s: too many variables", script);
        if (v[k].kind == RL_PV_STR) {
            if (a->nstr == RL_PLOT_MAXSTR || !v[k].s)
                rl_fatal("plot %s: more than %d string variables or a NULL one", script, RL_PLOT_MAXSTR);
            a->str[a->nstr++] = v[k].s;
            continue;
        }
        if (v[k].kind == RL_PV_REAL && !isfinite(v[k].r))
            rl_fatal("plot %s: %s is not finite", script, v[k].name);
        /* %.16e: always a mantissa point, since gnuplot's real("1e30") fails */
        if (v[k].kind == RL_PV_INT)
            vo += snprintf(a->nums + vo, sizeof a->nums - vo, "%s%ld", vo ? " " : "", v[k].i);
        else
            vo += snprintf(a->nums + vo, sizeof a->nums - vo, "%s%.16e", vo ? " " : "", v[k].r);
        if (vo >= sizeof a->nums)
            rl_fatal("plot %s: too many variables", script);
    }
}

/* A figure gnuplot finished: a PNG opens with its signature and ends with
 * the IEND chunk; an SVG ends with </svg>, a PDF with %%EOF.  gnuplot exits
 * 0 after a write fails (ENOSPC), leaving a truncated file: this is how we
 * notice.  svg: 0 PNG, 1 SVG, 2 PDF. */
static int figure_complete(const char *path, int svg)
{
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char head[8], tail[64];
    int ok = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f), nt = size < 64 ? size : 64;
        if (size > 0 && fseek(f, size - nt, SEEK_SET) == 0 && fread(tail, 1, nt, f) == (size_t)nt) {
            if (svg) {
                while (nt > 0 && isspace(tail[nt - 1]))
                    nt--;
                ok = svg == 2 ? nt >= 5 && !memcmp(tail + nt - 5, "%%EOF", 5)
                              : nt >= 6 && !memcmp(tail + nt - 6, "</svg>", 6);
            } else {
                ok = nt >= 12 && !memcmp(tail + nt - 12, iend, 12) && fseek(f, 0, SEEK_SET) == 0 &&
                     fread(head, 1, 8, f) == 8 && !memcmp(head, sig, 8);
            }
        }
    }
    fclose(f);
    return ok;
}

/* The line of gnuplot's messages worth quoting: its first error (a line
 * naming a script line that is not a warning), else the last non-blank
 * line; control characters become spaces and it is cut at 240 bytes. */
static void gnuplot_error(const char *msg, char *line, size_t len)
{
    const char *pick = NULL, *last = NULL;
    for (const char *p = msg; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), p);
        if (strspn(buf, " \t\r^") < strlen(buf)) {
            last = p;
            if (!pick && strstr(buf, " line ") && !strcasestr(buf, "warning"))
                pick = p;
        }
        p = e ? e + 1 : p + n;
    }
    if (!pick)
        pick = last;
    size_t o = 0;
    for (const char *p = pick; p && *p && *p != '\n' && o + 1 < len && o < 240; p++)
        line[o++] = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
    line[o] = 0;
}

/* Read fd to its end, keeping the first MSG_MAX - 1 bytes (NUL-terminated). */
static char *drain(int fd)
{
    char *buf = rl_xmalloc(MSG_MAX), chunk[4096];
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t keep = (size_t)r < MSG_MAX - 1 - n ? (size_t)r : MSG_MAX - 1 - n;
        memcpy(buf + n, chunk, keep);
        n += keep;
    }
    buf[n] = 0;
    return buf;
}

/* gnuplot -c run.gp ...; *text receives what gnuplot printed (malloc'ed).
 * A failure is described in err (status 1: nothing here is a bad input) and
 * everything allocated here is freed, so that the caller frees its own
 * buffers before it ends the process: the sanitizer build counts a buffer
 * still held at exit as a leak. */
static rl_status run_gnuplot(const char *run, const char *script, const char *dir,
                             const char *outfile, const char *term, const plot_args *a,
                             char **text_out, rl_err *err)
{
    /* the temporary made new here (O_EXCL | O_NOFOLLOW), gnuplot only
     * rewrites it: a planted link at a guessable name is never followed */
    char *tmp;
    int tfd;
    RL_TRY(rl_output_check(outfile, err));
    RL_TRY(rl_tmp_create(outfile, &tmp, &tfd, err));
    close(tfd);
    /* no argument is empty: gnuplot drops an empty one and the rest shift,
     * so a string arrives behind "=" (run.gp strips it) and empty lists as
     * "-" (run.gp skips words that name no variable) */
    const char *argv[16] = { "gnuplot", "-c", run, script, dir, tmp, term, *a->names ? a->names : "-",
                             *a->nums ? a->nums : "-" };
    char *sv[RL_PLOT_MAXSTR];
    for (int k = 0; k < a->nstr; k++) {
        if (asprintf(&sv[k], "=%s", a->str[k]) < 0)
            rl_fatal("out of memory");
        argv[9 + k] = sv[k];
    }
    int msg[2], ex[2];
    if (pipe(msg) != 0 || pipe2(ex, O_CLOEXEC) != 0)
        rl_fatal("cannot start gnuplot: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        rl_fatal("cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        /* the child prints nothing: an exec failure goes back through ex */
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(msg[1], 1);
        dup2(msg[1], 2);
        close(msg[0]);
        close(msg[1]);
        close(ex[0]);
        execvp("gnuplot", (char *const *)argv);
        int e = errno;
        ssize_t w = write(ex[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(msg[1]);
    close(ex[1]);
    char *text = drain(msg[0]);
    close(msg[0]);
    int eno = 0;
    ssize_t got;
    while ((got = read(ex[0], &eno, sizeof eno)) < 0 && errno == EINTR)
        ;
    close(ex[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    for (int k = 0; k < a->nstr; k++)
        free(sv[k]);
    rl_status s = RL_OK;
    if (got == (ssize_t)sizeof eno) {
        s = rl_fail(err, RL_EINTERNAL, "cannot run gnuplot: %s", strerror(eno));
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char line[256];
        gnuplot_error(text, line, sizeof line);
        if (WIFSIGNALED(st))
            s = rl_fail(err, RL_EINTERNAL, "gnuplot killed by signal %d on %s.gp", WTERMSIG(st),
                        script);
        else
            s = rl_fail(err, RL_EINTERNAL, "gnuplot failed on %s.gp (status %d)%s%s", script,
                        WEXITSTATUS(st), *line ? ": " : "", line);
    } else if (!figure_complete(tmp, !strcmp(term, "svg") ? 1 : !strcmp(term, "pdf") ? 2 : 0)) {
        struct statvfs fs;
        int full = statvfs(dir, &fs) == 0 && fs.f_bavail == 0;
        struct stat ts; /* the temporary is ours, empty, until gnuplot writes to it */
        int made = stat(tmp, &ts) == 0 && ts.st_size > 0;
        s = rl_fail(err, RL_EINTERNAL, "gnuplot %s %s%s",
                    made ? "wrote an incomplete" : "did not write", outfile,
                    full ? ": no space left on device" : made ? " (is the disk full?)" : "");
    } else if (rl_output_check(outfile, err) != RL_OK) {
        s = err ? err->status : RL_EINPUT;
    } else if (rename(tmp, outfile) != 0) {
        s = rl_fail(err, RL_EINTERNAL, "cannot rename into %s: %s", outfile, strerror(errno));
    }
    if (s != RL_OK) {
        unlink(tmp);
        free(text);
        text = NULL;
    }
    rl_cleanup_untrack(tmp);
    free(tmp);
    *text_out = text;
    return s;
}

/* gnuplot's warnings of a figure that was drawn (an empty range, a file
 * without points): kept next to it for whoever reads the figure, never on
 * stderr.  A clean run removes the log of an earlier one. */
static void keep_messages(const char *dir, const char *outname, const char *png, const char *svg)
{
    char *path;
    if (asprintf(&path, "%s/%s.gnuplot.log", dir, outname) < 0)
        rl_fatal("out of memory");
    if (!*png && !*svg) {
        unlink(path);
        free(path);
        return;
    }
    rl_outfile *o;
    rl_err err;
    if (rl_outfile_create(path, &o, &err) != RL_OK)
        rl_fatal("%s", err.msg);
    fputs(png, o->f);
    if (*svg && strcmp(png, svg))
        fprintf(o->f, "%s(svg)\n%s", *png ? "\n" : "", svg);
    if (rl_outfile_close(o, &err) != RL_OK)
        rl_fatal("%s", err.msg);
    free(path);
}

/* Whether gnuplot is an executable file in a folder of $PATH (what execvp
 * would run). */
static int gnuplot_on_path(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return 0;
    char *copy = strdup(path), *save = NULL;
    if (!copy)
        rl_fatal("out of memory");
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p;
        if (asprintf(&p, "%s/gnuplot", *d ? d : ".") < 0)
            rl_fatal("out of memory");
        found = access(p, X_OK) == 0;
        free(p);
    }
    free(copy);
    return found;
}

rl_status rl_plot_check(const char *const *scripts, rl_err *err)
{
    if (rl_job_rank() != 0)
        return RL_OK; /* only rank 0 draws */
    if (!gnuplot_on_path())
        return rl_fail(err, RL_EINTERNAL, "cannot run gnuplot: it is not on PATH (the figures need it; nothing was written)");
    char *pd = plots_dir(), *p;
    rl_status st = RL_OK;
    for (int k = -1; st == RL_OK && (k < 0 || (scripts && scripts[k])); k++) {
        if (k >= 0 && !is_ident(scripts[k]))
            rl_fatal("bad plot script name '%s'", scripts[k]);
        if (asprintf(&p, "%s/%s.gp", pd, k < 0 ? "run" : scripts[k]) < 0)
            rl_fatal("out of memory");
        if (access(p, R_OK) != 0)
            st = rl_fail(err, RL_EINTERNAL, "missing plot script %s (nothing was written; a copied binary finds "
                                            "them through ROUTELAB_PLOTS=DIR, an installed one by itself)", p);
        free(p);
    }
    free(pd);
    return st;
}

/* A value of OUTNAME.plot on one line: backslash, newline and tab escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\t')
            fputs("\\t", f);
        else
            fputc(*s, f);
}

/* OUTNAME.plot beside the figure: what drew it (the script and its
 * variables, the data folder being its own), so that `routelab plot` draws
 * it again restyled from the same TSVs (rl_plot_redraw). */
static void write_sidecar(const char *dir, const char *script, const char *outname, const plot_args *a)
{
    char *p;
    if (asprintf(&p, "%s/%s.plot", dir, outname) < 0)
        rl_fatal("out of memory");
    rl_outfile *o = rl_outfile_open(p);
    fprintf(o->f, "%s\nscript\t%s\nnames\t", RL_PLOT_SIDECAR_MAGIC, script);
    put_escaped(o->f, a->names);
    fputs("\nnumbers\t", o->f);
    put_escaped(o->f, a->nums);
    fputc('\n', o->f);
    for (int k = 0; k < a->nstr; k++) {
        fputs("string\t", o->f);
        put_escaped(o->f, a->str[k]);
        fputc('\n', o->f);
    }
    rl_outfile_commit(o);
    free(p);
}

void rl_plot(const rl_outdir *out, const char *script, const char *outname, const rl_plotvar *vars, int n)
{
    if (!is_ident(script))
        rl_fatal("bad plot script name '%s'", script ? script : "(null)");
    if (rl_job_rank() != 0)
        return; /* figures are rank 0's outputs, as every file is (base/core/job.h) */
    plot_args a;
    build_args(script, vars, n, &a);
    char *pd = plots_dir(), *dir = file_name(out->dir), *sp, *run, *png, *svg;
    if (asprintf(&sp, "%s/%s.gp", pd, script) < 0 || asprintf(&run, "%s/run.gp", pd) < 0 ||
        asprintf(&png, "%s/%s.png", dir, outname) < 0 || asprintf(&svg, "%s/%s.svg", dir, outname) < 0)
        rl_fatal("out of memory");
    if (access(sp, R_OK) != 0 || access(run, R_OK) != 0)
        rl_fatal("missing plot script %s (a copied binary finds them through ROUTELAB_PLOTS=DIR, an installed one "
                 "by itself)", access(sp, R_OK) != 0 ? sp : run);
    char *mp = NULL, *ms = NULL;
    rl_err err;
    rl_status st = run_gnuplot(run, script, dir, png, "png", &a, &mp, &err);
    if (st == RL_OK) /* every figure also as SVG, for a paper */
        st = run_gnuplot(run, script, dir, svg, "svg", &a, &ms, &err);
    if (st == RL_OK) {
        keep_messages(out->dir, outname, mp, ms ? ms : "");
        write_sidecar(out->dir, script, outname, &a);
    }
    free(mp);
    free(ms);
    free(pd);
    free(dir);
    free(sp);
    free(run);
    free(png);
    free(svg);
    if (st != RL_OK)
        rl_err_exit(&err);
}

/* One line of a sidecar, "key<TAB>value", the value unescaped in place;
 * NULL when the line has another key. */
static char *sidecar_value(char *line, const char *key)
{
    const size_t k = strlen(key);
    if (strncmp(line, key, k) || line[k] != '\t')
        return NULL;
    char *v = line + k + 1, *w = v;
    for (const char *r = v; *r; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 'n' ? '\n' : *r == 't' ? '\t' : *r;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    return v;
}

rl_status rl_plot_redraw(const char *plotfile, const char *outfile, double scale, int font, rl_err *err)
{
    const char *dot = outfile ? strrchr(outfile, '.') : NULL;
    const char *term = !dot ? NULL : !strcmp(dot, ".png") ? "png" : !strcmp(dot, ".svg") ? "svg"
                                   : !strcmp(dot, ".pdf") ? "pdf" : NULL;
    if (!term)
        return rl_fail(err, RL_EINPUT, "plot: --out %s must end in .png, .svg or .pdf", outfile ? outfile : "(none)");
    if (!(scale > 0 && scale <= 8) && scale != 0)
        return rl_fail(err, RL_EINPUT, "plot: --scale %g is outside (0, 8]", scale);
    if (font < 0 || font > 72)
        return rl_fail(err, RL_EINPUT, "plot: --font %d is outside [1, 72]", font);
    char *text = rl_read_file(plotfile, NULL);
    if (!text)
        return rl_fail(err, RL_EINPUT, "plot: cannot read %s: %s", plotfile, strerror(errno));
    /* the lines: magic, script, names, numbers, then up to RL_PLOT_MAXSTR strings */
    char *line[4 + RL_PLOT_MAXSTR + 1] = { 0 };
    int nl = 0;
    for (char *q = text, *s; nl < (int)(sizeof line / sizeof *line) && (s = strsep(&q, "\n"));)
        if (*s)
            line[nl++] = s;
    plot_args a = { .nstr = 0 };
    char *script = nl >= 4 ? sidecar_value(line[1], "script") : NULL;
    char *names = nl >= 4 ? sidecar_value(line[2], "names") : NULL;
    char *nums = nl >= 4 ? sidecar_value(line[3], "numbers") : NULL;
    rl_status st = RL_OK;
    if (nl < 4 || strcmp(line[0], RL_PLOT_SIDECAR_MAGIC) || !script || !names || !nums || !is_ident(script))
        st = rl_fail(err, RL_EINPUT, "plot: %s is not a figure's .plot file (its first lines: %s, script, names, "
                                     "numbers)", plotfile, RL_PLOT_SIDECAR_MAGIC);
    for (int k = 4; st == RL_OK && k < nl; k++) {
        char *v = sidecar_value(line[k], "string");
        if (!v || a.nstr == RL_PLOT_MAXSTR)
            st = rl_fail(err, RL_EINPUT, "plot: %s: line %d is no string of a figure", plotfile, k + 1);
        else
            a.str[a.nstr++] = v;
    }
    /* the names a figure's variables may have (check_name's rule, a status
     * here: the file is an input), the counts they imply */
    int ns = 0, nn = 0, nw = 0;
    for (char *q = names, *w; st == RL_OK && (w = strsep(&q, " "));) {
        if (!*w || !strcmp(w, "-"))
            continue;
        const int ok = strlen(w) > 2 && w[1] == ':' && strchr("sir", w[0]) && is_ident(w + 2) &&
                       strncmp(w + 2, "rl_", 3) && strcmp(w + 2, "plotdir") && strcmp(w + 2, "dir") &&
                       strcmp(w + 2, "out") && strcmp(w + 2, "term");
        if (!ok)
            st = rl_fail(err, RL_EINPUT, "plot: %s: '%s' is no figure variable", plotfile, w);
        else if (w[0] == 's')
            ns++;
        else
            nn++;
        if (ok)
            snprintf(a.names + strlen(a.names), sizeof a.names - strlen(a.names), "%s%s", nw++ ? " " : "", w);
    }
    int nv = 0;
    for (char *q = nums, *w; st == RL_OK && (w = strsep(&q, " "));) {
        if (!*w || !strcmp(w, "-"))
            continue;
        char *end;
        const double x = strtod(w, &end);
        if (*end || !isfinite(x))
            st = rl_fail(err, RL_EINPUT, "plot: %s: '%s' is no number", plotfile, w);
        else
            snprintf(a.nums + strlen(a.nums), sizeof a.nums - strlen(a.nums), "%s%s", nv++ ? " " : "", w);
    }
    if (st == RL_OK && (ns != a.nstr || nn != nv))
        st = rl_fail(err, RL_EINPUT, "plot: %s names %d strings and %d numbers, holds %d and %d", plotfile, ns, nn,
                     a.nstr, nv);
    /* the restyling: variables every figure's rl_term reads (plots/common.gp) */
    if (st == RL_OK && scale > 0) {
        snprintf(a.names + strlen(a.names), sizeof a.names - strlen(a.names), "%sr:restyle_scale", nw++ ? " " : "");
        snprintf(a.nums + strlen(a.nums), sizeof a.nums - strlen(a.nums), "%s%.16e", nv++ ? " " : "", scale);
    }
    if (st == RL_OK && font > 0) {
        snprintf(a.names + strlen(a.names), sizeof a.names - strlen(a.names), "%si:restyle_font", nw++ ? " " : "");
        snprintf(a.nums + strlen(a.nums), sizeof a.nums - strlen(a.nums), "%s%d", nv++ ? " " : "", font);
    }
    char *pd = plots_dir(), *run = NULL, *sp = NULL, *tmp = strdup(plotfile), *dir = file_name(dirname(tmp));
    if (st == RL_OK && (asprintf(&run, "%s/run.gp", pd) < 0 || asprintf(&sp, "%s/%s.gp", pd, script) < 0))
        rl_fatal("out of memory");
    if (st == RL_OK && (access(run, R_OK) != 0 || access(sp, R_OK) != 0))
        st = rl_fail(err, RL_EINTERNAL, "plot: missing plot script %s", access(run, R_OK) != 0 ? run : sp);
    /* the output is no input: neither the .plot file nor a file of its folder's data */
    struct stat so, si;
    if (st == RL_OK && stat(outfile, &so) == 0 && stat(plotfile, &si) == 0 && so.st_dev == si.st_dev &&
        so.st_ino == si.st_ino)
        st = rl_fail(err, RL_EINPUT, "plot: --out %s is the .plot file itself", outfile);
    char *msg = NULL;
    if (st == RL_OK)
        st = run_gnuplot(run, script, dir, outfile, term, &a, &msg, err);
    free(msg);
    free(run), free(sp), free(pd), free(tmp), free(dir), free(text);
    return st;
}
