/* exp.c: experiment context, TSV outputs, gnuplot figures, verdict reports. */
#include "exp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/util.h"

rl_exp_ctx rl_exp_default(const char *out)
{
    rl_exp_ctx c = { out, 1, rl_ncores(), 0, RL_PRESET_QUICK, NULL };
    return c;
}

void rl_exp_parse(const char *cmd, const char *synopsis, const char *description, rl_opt *opts,
                  int argc, char **argv, rl_exp_ctx *ctx)
{
    rl_opts_parse(cmd, synopsis, description, opts, argc, argv, NULL, 0);
    rl_set_threads(ctx->threads);
    rl_mkdir_p(ctx->out);
}

const char *rl_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---------------- report ---------------- */

typedef struct {
    rl_holds holds;
    char *what, *predicted, *measured;
} check;

typedef enum { ITEM_TEXT, ITEM_FIGURE, ITEM_TABLE, ITEM_CHECKS } item_kind;

typedef struct {
    item_kind kind;
    char *a, *b;
} item;

struct rl_report {
    char *title;
    item *items;
    int nitems, capitems;
    check *checks;
    int nchecks, capchecks;
};

static char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        rl_die("out of memory");
    return p;
}

rl_report *rl_report_alloc(const char *title)
{
    rl_report *r = rl_xcalloc(1, sizeof *r);
    r->title = xstrdup(title);
    return r;
}

void rl_report_free(rl_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nitems; i++) {
        free(r->items[i].a);
        free(r->items[i].b);
    }
    for (int i = 0; i < r->nchecks; i++) {
        free(r->checks[i].what);
        free(r->checks[i].predicted);
        free(r->checks[i].measured);
    }
    free(r->items);
    free(r->checks);
    free(r->title);
    free(r);
}

const char *rl_report_title(const rl_report *r)
{
    return r->title;
}

static void add_item(rl_report *r, item_kind k, const char *a, const char *b)
{
    /* checks are shown where the first one was added */
    if (k == ITEM_CHECKS)
        for (int i = 0; i < r->nitems; i++)
            if (r->items[i].kind == ITEM_CHECKS)
                return;
    if (r->nitems == r->capitems) {
        r->capitems = r->capitems ? 2 * r->capitems : 16;
        r->items = realloc(r->items, sizeof(item) * r->capitems);
        if (!r->items)
            rl_die("out of memory");
    }
    r->items[r->nitems++] = (item){ k, a ? xstrdup(a) : NULL, b ? xstrdup(b) : NULL };
}

void rl_report_text(rl_report *r, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        rl_die("out of memory");
    va_end(ap);
    add_item(r, ITEM_TEXT, s, NULL);
    free(s);
}

void rl_report_figure(rl_report *r, const char *file, const char *caption)
{
    add_item(r, ITEM_FIGURE, file, caption);
}

void rl_report_table(rl_report *r, const char *caption, const char *tsv)
{
    add_item(r, ITEM_TABLE, caption, tsv);
}

void rl_report_check(rl_report *r, rl_holds holds, const char *what, const char *predicted,
                     const char *measured)
{
    add_item(r, ITEM_CHECKS, NULL, NULL);
    if (r->nchecks == r->capchecks) {
        r->capchecks = r->capchecks ? 2 * r->capchecks : 16;
        r->checks = realloc(r->checks, sizeof(check) * r->capchecks);
        if (!r->checks)
            rl_die("out of memory");
    }
    r->checks[r->nchecks++] = (check){ holds, xstrdup(what), xstrdup(predicted), xstrdup(measured) };
}

static const char *holds_word(rl_holds h)
{
    return h == RL_HOLDS_YES ? "holds" : h == RL_HOLDS_NO ? "DOES NOT HOLD" : "info";
}

void rl_report_counts(const rl_report *r, int *yes, int *no)
{
    *yes = *no = 0;
    for (int i = 0; i < r->nchecks; i++) {
        *yes += r->checks[i].holds == RL_HOLDS_YES;
        *no += r->checks[i].holds == RL_HOLDS_NO;
    }
}

static void tsv_field(const char *s, FILE *fp)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' ? ' ' : *s, fp);
}

void rl_report_tsv(const rl_report *r, FILE *fp, const char *name)
{
    for (int i = 0; i < r->nchecks; i++) {
        const check *c = &r->checks[i];
        fprintf(fp, "%s\t%s\t", name, c->holds == RL_HOLDS_YES ? "holds" : c->holds == RL_HOLDS_NO ? "does not hold" : "info");
        tsv_field(c->what, fp);
        fputc('\t', fp);
        tsv_field(c->predicted, fp);
        fputc('\t', fp);
        tsv_field(c->measured, fp);
        fputc('\n', fp);
    }
}

void rl_report_print(const rl_report *r, FILE *fp)
{
    int yes, no;
    rl_report_counts(r, &yes, &no);
    fprintf(fp, "== %s: %d checks hold, %d do not\n", r->title, yes, no);
    for (int i = 0; i < r->nchecks; i++) {
        const check *c = &r->checks[i];
        fprintf(fp, "  [%-13s] %s\n                  predicted %s | measured %s\n", holds_word(c->holds),
                c->what, c->predicted, c->measured);
    }
}

/* Write s as one markdown table cell: '|' would end the cell. */
static void md_cell(const char *s, size_t len, FILE *fp)
{
    for (size_t i = 0; i < len && s[i]; i++) {
        if (s[i] == '|')
            fputc('\\', fp);
        fputc(s[i], fp);
    }
}

/* A TSV block as a markdown table. */
static void tsv_markdown(const char *tsv, FILE *fp)
{
    int row = 0;
    for (const char *p = tsv; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int cols = 1;
        fputs("| ", fp);
        for (size_t i = 0; i < len; i++) {
            if (p[i] == '\t') {
                fputs(" | ", fp);
                cols++;
            } else {
                md_cell(p + i, 1, fp);
            }
        }
        fputs(" |\n", fp);
        if (row++ == 0) {
            for (int c = 0; c < cols; c++)
                fputs("|---", fp);
            fputs("|\n", fp);
        }
        p = nl ? nl + 1 : p + len;
    }
}

void rl_report_markdown(const rl_report *r, FILE *fp)
{
    int yes, no;
    rl_report_counts(r, &yes, &no);
    fprintf(fp, "## %s\n\n", r->title);
    for (int i = 0; i < r->nitems; i++) {
        const item *it = &r->items[i];
        switch (it->kind) {
        case ITEM_TEXT:
            fprintf(fp, "%s\n\n", it->a);
            break;
        case ITEM_FIGURE:
            fprintf(fp, "![%s](%s)\n\n*%s*\n\n", it->b, it->a, it->b);
            break;
        case ITEM_TABLE:
            fprintf(fp, "%s\n\n", it->a);
            tsv_markdown(it->b, fp);
            fputc('\n', fp);
            break;
        case ITEM_CHECKS:
            fprintf(fp, "Verdicts: %d checks hold, %d do not.\n\n", yes, no);
            fprintf(fp, "| check | predicted | measured | verdict |\n|---|---|---|---|\n");
            for (int c = 0; c < r->nchecks; c++) {
                const check *k = &r->checks[c];
                const char *cells[3] = { k->what, k->predicted, k->measured };
                for (int j = 0; j < 3; j++) {
                    fputs("| ", fp);
                    md_cell(cells[j], strlen(cells[j]), fp);
                    fputc(' ', fp);
                }
                fprintf(fp, "| %s |\n", holds_word(k->holds));
            }
            fputc('\n', fp);
            break;
        }
    }
}

/* ---------------- TSV ---------------- */

struct rl_tsv {
    rl_outfile *o;
};

rl_tsv *rl_tsv_open(const rl_exp_ctx *ctx, const char *name, const char *header)
{
    rl_tsv *t = rl_xcalloc(1, sizeof *t);
    char *path = rl_path_join(ctx->out, name);
    t->o = rl_outfile_open(path);
    free(path);
    fprintf(t->o->f, "%s\n", header);
    return t;
}

void rl_tsv_row(rl_tsv *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->o->f, fmt, ap);
    va_end(ap);
    fputc('\n', t->o->f);
}

void rl_tsv_close(rl_tsv *t)
{
    rl_outfile_commit(t->o);
    free(t);
}

/* ---------------- figures ---------------- */

/* plots/ next to the binary's folder (build/routelab -> plots/), or
 * $ROUTELAB_PLOTS. */
static char *plots_dir(void)
{
    const char *env = getenv("ROUTELAB_PLOTS");
    if (env)
        return xstrdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        rl_die("cannot locate the plots/ folder (set ROUTELAB_PLOTS)");
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char *p;
    if (asprintf(&p, "%s/../plots", exe) < 0)
        rl_die("out of memory");
    return p;
}

static void run_gnuplot(const char *script, const char *plotdir, const char *dir, const char *outfile,
                        const char *term, const char *vars)
{
    char *tmp, *defs;
    if (asprintf(&tmp, "%s.tmp.%ld", outfile, (long)getpid()) < 0 ||
        asprintf(&defs, "plotdir='%s'; dir='%s'; out='%s'; term='%s'; %s", plotdir, dir, tmp, term,
                 vars ? vars : "") < 0)
        rl_die("out of memory");
    pid_t pid = fork();
    if (pid < 0)
        rl_die("cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", defs, script, (char *)NULL);
        fprintf(stderr, "routelab: cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || access(tmp, F_OK) != 0) {
        unlink(tmp);
        rl_die("gnuplot failed on %s (status %d)", script, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (rename(tmp, outfile) != 0)
        rl_die("cannot rename into %s: %s", outfile, strerror(errno));
    free(tmp);
    free(defs);
}

void rl_plot(const rl_exp_ctx *ctx, const char *script, const char *outname, const char *vars)
{
    char *pd = plots_dir(), *sp, *png, *svg;
    if (asprintf(&sp, "%s/%s.gp", pd, script) < 0 || asprintf(&png, "%s/%s.png", ctx->out, outname) < 0 ||
        asprintf(&svg, "%s/%s.svg", ctx->out, outname) < 0)
        rl_die("out of memory");
    if (access(sp, R_OK) != 0)
        rl_die("missing plot script %s", sp);
    run_gnuplot(sp, pd, ctx->out, png, "png", vars);
    if (ctx->svg)
        run_gnuplot(sp, pd, ctx->out, svg, "svg", vars);
    free(pd);
    free(sp);
    free(png);
    free(svg);
}
