/* report.c: report sections and their verdicts, as markdown, a terminal
 * table and TSV rows. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/core/util.h"

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
    rl_verdict v;
    const rl_rule *rule; /* NULL for identity / info */
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
    const rl_rule *const *rules; /* the claim's rules (NULL-terminated) */
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

void rl_report_rules(rl_report *r, const rl_rule *const *rules)
{
    r->rules = rules;
}

static void add_check(rl_report *r, rl_verdict v, const rl_rule *rule, const char *what, const char *predicted,
                      const char *measured)
{
    add_item(r, ITEM_CHECKS, NULL, NULL);
    if (r->nchecks == r->capchecks) {
        r->capchecks = r->capchecks ? 2 * r->capchecks : 16;
        r->checks = realloc(r->checks, sizeof(check) * r->capchecks);
        if (!r->checks)
            rl_die("out of memory");
    }
    r->checks[r->nchecks++] = (check){ v, rule, xstrdup(what), xstrdup(predicted), xstrdup(measured) };
}

/* A rule not in the claim's row would be a rule chosen after seeing the
 * data: refused outright. */
static void rule_declared(const rl_report *r, const rl_rule *rule)
{
    if (r->rules)
        for (const rl_rule *const *p = r->rules; *p; p++)
            if (*p == rule)
                return;
    /* a programming error, not bad input: one line, exit 1 */
    fflush(stdout);
    fprintf(stderr, "routelab: internal: report \"%s\" decides by rule \"%s\", which its claim's row does not name\n",
            r->title, rule ? rule->id : "(null)");
    exit(1);
}

/* A check of kind v whose measured cell gains "(note: why)". */
static void add_noted(rl_report *r, rl_verdict v, const rl_rule *rule, const char *what, const char *predicted,
                      const char *measured, const char *note, const char *why)
{
    char *m;
    if (asprintf(&m, "%s (%s: %s)", measured, note, why) < 0)
        rl_die("out of memory");
    add_check(r, v, rule, what, predicted, m);
    free(m);
}

void rl_report_decide_pred(rl_report *r, const rl_rule *rule, double pred, double x, const char *unmet,
                           const char *what, const char *predicted, const char *measured)
{
    rule_declared(r, rule);
    if (unmet) {
        add_noted(r, RL_V_HYPOTHESIS, rule, what, predicted, measured, "hypothesis not met", unmet);
        return;
    }
    if (!isfinite(pred)) {
        add_noted(r, RL_V_NOPRED, rule, what, predicted, measured, "no prediction", "no closed form here");
        return;
    }
    const rl_verdict v = rl_rule_decide(rule, x);
    if (v == RL_V_NOPRED)
        add_noted(r, v, rule, what, predicted, measured, "no prediction", "the statistic is not finite");
    else
        add_check(r, v, rule, what, predicted, measured);
}

void rl_report_decide(rl_report *r, const rl_rule *rule, double x, const char *unmet, const char *what,
                      const char *predicted, const char *measured)
{
    rl_report_decide_pred(r, rule, 0, x, unmet, what, predicted, measured);
}

void rl_report_identity(rl_report *r, int ok, const char *what, const char *predicted, const char *measured)
{
    if (ok) {
        add_check(r, RL_V_IDENTITY, NULL, what, predicted, measured);
        return;
    }
    char *m;
    if (asprintf(&m, "%s (the identity fails: the construction is broken)", measured) < 0)
        rl_die("out of memory");
    add_check(r, RL_V_CONTRADICTED, NULL, what, predicted, m);
    free(m);
}

void rl_report_info(rl_report *r, const char *what, const char *predicted, const char *measured)
{
    add_check(r, RL_V_INFO, NULL, what, predicted, measured);
}

int rl_report_nchecks(const rl_report *r)
{
    return r->nchecks;
}

rl_verdict rl_report_verdict(const rl_report *r, int i)
{
    return r->checks[i].v;
}

void rl_report_kinds(const rl_report *r, int n[RL_NVERDICT])
{
    for (int k = 0; k < RL_NVERDICT; k++)
        n[k] = 0;
    for (int i = 0; i < r->nchecks; i++)
        n[r->checks[i].v]++;
}

const char *rl_report_kinds_phrase(const int n[RL_NVERDICT], char *buf, size_t len)
{
    static const char *const one[RL_NVERDICT] = { "holds",
                                                  "verified",
                                                  "contradicted",
                                                  "unresolved",
                                                  "no prediction",
                                                  "hypothesis not met",
                                                  "identity (not counted)",
                                                  "info",
                                                  "absent at this scale" };
    static const char *const many[RL_NVERDICT] = { "hold",
                                                   "verified",
                                                   "contradicted",
                                                   "unresolved",
                                                   "no prediction",
                                                   "hypothesis not met",
                                                   "identities (not counted)",
                                                   "info",
                                                   "absent at this scale" };
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < RL_NVERDICT; k++)
        if (n[k] && used < len)
            used += snprintf(buf + used, len - used, "%s%d %s", used ? ", " : "", n[k], n[k] == 1 ? one[k] : many[k]);
    if (!used)
        snprintf(buf, len, "no checks");
    return buf;
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
        fprintf(fp, "%s\t%s\t%s\t", name, rl_verdict_name(c->v), c->rule ? c->rule->id : "-");
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
    int n[RL_NVERDICT];
    char ph[256];
    rl_report_kinds(r, n);
    fprintf(fp, "== %s: %s\n", r->title, rl_report_kinds_phrase(n, ph, sizeof ph));
    for (int i = 0; i < r->nchecks; i++) {
        const check *c = &r->checks[i];
        fprintf(fp, "  [%-18s] %s\n                       predicted %s | measured %s\n", rl_verdict_name(c->v),
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
    int n[RL_NVERDICT];
    char ph[256];
    rl_report_kinds(r, n);
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
            fprintf(fp, "Verdicts: %s.\n\n", rl_report_kinds_phrase(n, ph, sizeof ph));
            fprintf(fp, "| check | predicted | measured | verdict | rule |\n|---|---|---|---|---|\n");
            for (int c = 0; c < r->nchecks; c++) {
                const check *k = &r->checks[c];
                const char *cells[3] = { k->what, k->predicted, k->measured };
                for (int j = 0; j < 3; j++) {
                    fputs("| ", fp);
                    md_cell(cells[j], strlen(cells[j]), fp);
                    fputc(' ', fp);
                }
                fprintf(fp, "| %s | %s |\n", rl_verdict_name(k->v), k->rule ? k->rule->id : "–");
            }
            fputc('\n', fp);
            if (r->rules && r->rules[0]) {
                fprintf(fp, "Decision rules (fixed in the claims table before the run):\n\n");
                for (const rl_rule *const *p = r->rules; *p; p++)
                    fprintf(fp, "- *%s*: %s\n", (*p)->id, (*p)->text);
                fputc('\n', fp);
            }
            break;
        }
    }
}

