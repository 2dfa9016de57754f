/* test_prose.c: the reports' prose (the .txt files of FLOOR/prose/, compiled in by
 * tools/scripts/prose.sh as the macros of build/gen/prose_FLOOR.h).  A macro the
 * code names that no block defines does not compile; these tests catch the
 * other half: every block is used by its floor's C, every folder with
 * prose is one the Makefile generates a header for, and the generator
 * joins the text as documented and refuses a malformed file with one line
 * and status 2. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../base/core/util.h"
#include "helpers.h"

/* The floors the Makefile's PROSEFLOORS line names, space-separated. */
static void prose_floors(char *buf, size_t n)
{
    char *mk = rl_read_file("Makefile", NULL);
    cr_assert(mk, "cannot read the Makefile");
    const char *p = strstr(mk, "\nPROSEFLOORS := ");
    cr_assert(p, "the Makefile has no PROSEFLOORS line");
    p += strlen("\nPROSEFLOORS := ");
    snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
    free(mk);
}

/* Is word a whole identifier somewhere in text? */
static int has_token(const char *text, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_'))
            return 1;
    return 0;
}

/* The floor's C files, read and concatenated. */
static char *floor_sources(const char *floor)
{
    char pat[64];
    snprintf(pat, sizeof pat, "%s/*.[ch]", floor);
    glob_t g;
    cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no C files in %s", floor);
    size_t len = 0;
    char *all = NULL;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t n = 0;
        char *t = rl_read_file(g.gl_pathv[i], &n);
        cr_assert(t, "cannot read %s", g.gl_pathv[i]);
        all = realloc(all, len + n + 2);
        memcpy(all + len, t, n);
        len += n;
        all[len++] = '\n';
        all[len] = 0;
        free(t);
    }
    globfree(&g);
    return all;
}

Test(prose, every_block_is_used)
{
    th_to_root();
    char floors[256];
    prose_floors(floors, sizeof floors);
    int blocks = 0;
    for (char *save = NULL, *f = strtok_r(floors, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
        char *src = floor_sources(f);
        char pat[64];
        snprintf(pat, sizeof pat, "%s/prose/*.txt", f);
        glob_t g;
        cr_assert_eq(glob(pat, 0, NULL, &g), 0, "%s has no prose files", pat);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char *t = rl_read_file(g.gl_pathv[i], NULL);
            cr_assert(t);
            for (char *l = t; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, "@@ ", 3))
                    continue;
                char macro[128] = "RL_PROSE_";
                size_t m = strlen(macro);
                for (const char *k = l + 3; *k && *k != ' ' && *k != '\n' && m + 1 < sizeof macro; k++)
                    macro[m++] = *k == '.' ? '_' : (char)toupper((unsigned char)*k);
                macro[m] = 0;
                blocks++;
                cr_expect(has_token(src, macro), "%s: the block of %s is used by no C file of %s/",
                          g.gl_pathv[i], macro, f);
            }
            free(t);
        }
        globfree(&g);
        free(src);
    }
    cr_expect_geq(blocks, 100, "the walk found the blocks (%d)", blocks);
}

/* A folder with a prose/ folder is one whose prose the Makefile compiles
 * (else its blocks would be text nothing reads). */
Test(prose, every_prose_folder_is_generated)
{
    th_to_root();
    char floors[256];
    prose_floors(floors, sizeof floors);
    glob_t g;
    /* a floor at the top or one level inside a grouping folder */
    cr_assert_eq(glob("*/prose", GLOB_ONLYDIR, NULL, &g), 0);
    cr_assert_eq(glob("*/*/prose", GLOB_ONLYDIR | GLOB_APPEND, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char name[128];
        snprintf(name, sizeof name, " %.*s ", (int)(strlen(g.gl_pathv[i]) - strlen("/prose")), g.gl_pathv[i]);
        char padded[300];
        snprintf(padded, sizeof padded, " %s ", floors);
        cr_expect(strstr(padded, name), "%s is not in the Makefile's PROSEFLOORS (%s)", g.gl_pathv[i], floors);
    }
    globfree(&g);
}

/* tools/scripts/prose.sh on a floor "demo" whose one file is text: its status,
 * its stdout into out and its stderr into err. */
static int generate(const char *text, char *out, size_t outlen, char *err, size_t errlen)
{
    th_to_root();
    char *d = th_tmpdir();
    char *dir = th_path(d, "demo");
    mkdir(dir, 0777);
    char *pdir = th_path(dir, "prose");
    mkdir(pdir, 0777);
    char *file = th_path(pdir, "demo.txt");
    FILE *f = fopen(file, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    char *root = realpath(".", NULL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && sh '%s/tools/scripts/prose.sh' demo 2>'%s/err'", d, root, d);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    const int st = pclose(p);
    char *ef = th_path(d, "err");
    char *e = rl_read_file(ef, NULL);
    snprintf(err, errlen, "%s", e ? e : "");
    free(e);
    free(ef);
    free(root);
    free(file);
    free(pdir);
    free(dir);
    th_rmdir(d);
    free(d);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(prose, blocks_are_joined_as_documented)
{
    static char out[8192], err[1024];
    const char *text = "# demo.txt: a comment before the first block\n"
                       "@@ demo.para\n"
                       "A \"quoted\" line, 5%% and a\\b;\n"
                       "its next line??\n"
                       "\n"
                       "a second paragraph\n"
                       "\n"
                       "@@ demo.help verbatim\n"
                       "one\n"
                       "  two\n";
    cr_assert_eq(generate(text, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(out, "#define RL_PROSE_DEMO_PARA \\\n"
                          "    \"A \\\"quoted\\\" line, 5%% and a\\\\b; \" \\\n"
                          "    \"its next line?\\?\\n\\n\" \\\n"
                          "    \"a second paragraph\"\n"),
              "%s", out);
    cr_expect(strstr(out, "#define RL_PROSE_DEMO_HELP \\\n    \"one\\n\" \\\n    \"  two\"\n"), "%s", out);
    cr_expect(strstr(out, "#ifndef RL_PROSE_DEMO_H"), "%s", out);
}

Test(prose, a_malformed_file_is_one_line_and_status_2)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        { "@@ demo.a\n leading space\n", "demo.txt:2: a space at the line start" },
        { "@@ demo.a\ntrailing space \n", "demo.txt:2: a space at the line end" },
        { "@@ demo.a\na\ttab\n", "demo.txt:2: a tab" },
        { "@@ demo.a\none\n\n\ntwo\n", "demo.txt:4: two blank lines" },
        { "@@ demo.a\n@@ demo.b\ntext\n", "demo.txt:1: block demo.a has no text" },
        { "@@ demo.a\n\ntext\n", "demo.txt:2: a blank line at the start" },
        { "@@ other.a\ntext\n", "demo.txt:1: key other.a does not start with its file's name" },
        { "@@ demo.A\ntext\n", "demo.txt:1: a block starts with" },
        { "@@ demo.a\none\n@@ demo.a\ntwo\n", "demo.txt:3: RL_PROSE_DEMO_A is defined twice" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        static char out[8192], err[1024];
        cr_expect_eq(generate(bad[i].text, out, sizeof out, err, sizeof err), 2, "%s", bad[i].text);
        cr_expect(strstr(err, bad[i].why), "%s: '%s' not in: %s", bad[i].text, bad[i].why, err);
        cr_expect_eq(th_lines(err), 1, "one line: %s", err);
    }
}
