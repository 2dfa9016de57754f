/* doctext.h: what the documentation tests share (test_docs.c,
 * test_extending.c): a growing list of strings, a file read or the test
 * fails, and the catalogue of every Criterion test of tests/. */
#ifndef RL_TESTS_DOCTEXT_H
#define RL_TESTS_DOCTEXT_H
#include <stddef.h>

typedef struct {
    char **v;
    int n, cap;
} strlist;

void sl_add(strlist *l, const char *s, size_t n); /* a copy of s[0 .. n) */
int sl_has(const strlist *l, const char *s);
void sl_free(strlist *l);

/* The file's text (NUL-terminated, free it); the test fails when it cannot be read. */
char *slurp(const char *path);

/* Every Test(suite, name) and ParameterizedTest(type *p, suite, name) of
 * the files tests/NAME.c (run from the repository root): "suite/name" into names, each
 * suite once into suites. */
void tests_of(strlist *names, strlist *suites);

/* The numbers of NOTES.md's headings (its text): "## 9. ..." gives 9, "### 9.2 ..." 9.2. */
strlist headings(const char *notes);

/* The named anchors a markdown text defines, <a id="NAME"></a>, in order
 * (a name twice is listed twice): what the code's citations
 * "docs/protocol.md#sampled-windows" point at (tools/scripts/cite_anchors.py). */
strlist anchors(const char *text);

#endif
