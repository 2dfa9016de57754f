/* doctext.c: the documentation tests' shared helpers (doctext.h). */
#include "doctext.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

void sl_add(strlist *l, const char *s, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
        cr_assert(l->v);
    }
    l->v[l->n++] = strndup(s, n);
}

int sl_has(const strlist *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

void sl_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (strlist){ 0 };
}

char *slurp(const char *path)
{
    char *s = rl_read_file(path, NULL);
    cr_assert(s, "cannot read %s", path);
    return s;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

void tests_of(strlist *names, strlist *suites)
{
    glob_t g;
    cr_assert_eq(glob("tests/*.c", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *t = slurp(g.gl_pathv[i]);
        for (char *p = strstr(t, "Test("); p; p = strstr(p + 1, "Test(")) {
            /* ParameterizedTest(type *param, suite, name, ...): the names
             * follow the parameter */
            const char *args = p + 5;
            if (p - t >= 13 && strncmp(p - 13, "Parameterized", 13) == 0 && (p - t == 13 || !ident_char(p[-14]))) {
                args = strchr(args, ',');
                if (!args)
                    continue;
                args++;
            } else if (p > t && ident_char(p[-1]))
                continue;
            char s[128], n[128];
            if (sscanf(args, " %127[A-Za-z0-9_] , %127[A-Za-z0-9_]", s, n) != 2)
                continue;
            char full[260];
            snprintf(full, sizeof full, "%s/%s", s, n);
            sl_add(names, full, strlen(full));
            if (!sl_has(suites, s))
                sl_add(suites, s, strlen(s));
        }
        free(t);
    }
    globfree(&g);
}

/* The numbers of NOTES.md's headings: "## 9. ..." gives 9, "### 9.2 ..." 9.2. */
strlist headings(const char *notes)
{
    strlist h = { 0 };
    for (const char *p = notes; p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (*p != '#')
            continue;
        const char *q = p + strspn(p, "#");
        q += strspn(q, " ");
        size_t n = strspn(q, "0123456789.");
        while (n && q[n - 1] == '.')
            n--;
        if (n)
            sl_add(&h, q, n);
    }
    return h;
}

strlist anchors(const char *text)
{
    static const char open[] = "<a id=\"";
    strlist a = { 0 };
    for (const char *p = strstr(text, open); p; p = strstr(p + 1, open)) {
        const char *name = p + sizeof open - 1;
        const size_t n = strcspn(name, "\"\n");
        if (name[n] == '"' && strncmp(name + n, "\"></a>", 6) == 0)
            sl_add(&a, name, n);
    }
    return a;
}
