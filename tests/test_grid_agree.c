/* test_grid_agree.c: tools/scripts/grid_agree.sh, the statistical reproduction of a grid
 * across builds (docs/speed/reproduction-and-pruning.md#grid-agree), driven to each of its outcomes
 * on two miniature grids written here: agree, a number beyond 5 sigma, a verdict changed, an
 * SE-free number changed, nan on one side, a number with no SE (not compared), and each
 * bad input (status 2). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

/* Run the script on d/a and d/b; stdout and stderr into out; the status. */
static int agree(const char *d, char *out, size_t n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sh tools/scripts/grid_agree.sh '%s/a' '%s/b' 2>&1", d, d);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run tools/scripts/grid_agree.sh");
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put(const char *d, const char *g, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", d, g);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", d, g, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

#define SUMMARY_HEAD "variant\tlength\tmult\tseeds\tppl\tppl_se\tratio\tratio_se\tse_over\n"
#define ORDER_HEAD "ordering\tmult\tseeds\tper_seed\tmean\tse\tdelta\tx\trule\tverdict\n"
#define CONFIG "preset\tquick\nlayers\t3\n"

/* Grid g with rope's ratio at 2T, rope's ppl at T, and the ordering's mean and
 * verdict as given; every SE is 0.1 at 2T (sigma of the difference 0.1414). */
static void grid(const char *d, const char *g, const char *cfg, const char *ppl_t, const char *ratio_2t,
                 const char *mean, const char *verdict)
{
    char s[1024], o[512];
    snprintf(s, sizeof s,
             SUMMARY_HEAD "rope\t64\t1\t4\t%s\t0.1\t1.0000\t0.0000\tseeds\n"
                          "rope\t128\t2\t4\t7.0\t0.1\t%s\t0.1\tseeds\n"
                          "alibi\t64\t1\t4\t6.0\t0.1\t1.0000\t0.0000\tseeds\n"
                          "alibi\t128\t2\t4\t6.0\t0.1\t1.0\t0.1\tseeds\n",
             ppl_t, ratio_2t);
    snprintf(o, sizeof o, ORDER_HEAD "rope degrades more than alibi\t2\t4\t1,1,1,1\t%s\t0.1\t0.05\t3.5\teffect\t%s\n",
             mean, verdict);
    put(d, g, "config.txt", cfg);
    put(d, g, "summary.tsv", s);
    put(d, g, "orderings.tsv", o);
}

static const char *A_CFG = "command\troutelab reproduce --preset quick\nbuild\taaaaaaa\nkernels\tHaswell\n" CONFIG;
static const char *B_CFG = "command\troutelab reproduce --preset quick --out x\nbuild\tbbbbbbb\nkernels\tCooperlake\n" CONFIG;

Test(grid_agree, each_outcome_of_the_rule)
{
    th_to_root();
    char *d = th_tmpdir(), out[4096];
    grid(d, "a", A_CFG, "6.0", "1.5", "0.5", "holds");
    /* the same numbers under another build, command and kernel set: agree */
    grid(d, "b", B_CFG, "6.0", "1.5", "0.5", "holds");
    cr_expect_eq(agree(d, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "B agrees with A"), "%s", out);
    /* 4.9 sigma (0.1414 x 4.9 = 0.693) on the ratio: still agree; 5.1 sigma: not */
    grid(d, "b", B_CFG, "6.0", "2.193", "0.5", "holds");
    cr_expect_eq(agree(d, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "4.9"), "%s", out);
    grid(d, "b", B_CFG, "6.0", "2.222", "0.5", "holds");
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "differs: the ratio rope at L = 128"), "%s", out);
    cr_expect(strstr(out, "NOT agree"), "%s", out);
    /* the ordering's mean beyond 5 sigma */
    grid(d, "b", B_CFG, "6.0", "1.5", "1.3", "holds");
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "differs: the mean of rope degrades more than alibi (2T)"), "%s", out);
    /* the same numbers, another verdict */
    grid(d, "b", B_CFG, "6.0", "1.5", "0.5", "unresolved");
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "differs: the verdict of rope degrades more than alibi (2T): holds against unresolved"), "%s",
              out);
    /* nan on one side only */
    grid(d, "b", B_CFG, "6.0", "nan", "0.5", "holds");
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "nan in one grid only"), "%s", out);
    th_rmdir(d);
}

Test(grid_agree, a_number_without_se_must_be_equal)
{
    th_to_root();
    char *d = th_tmpdir(), out[4096];
    char s[1024];
    grid(d, "a", A_CFG, "6.0", "1.5", "0.5", "holds");
    grid(d, "b", B_CFG, "6.0", "1.5", "0.5", "holds");
    /* the ratio at L = T has SE 0 in both: 1.0001 against 1.0000 breaks the rule */
    snprintf(s, sizeof s,
             SUMMARY_HEAD "rope\t64\t1\t4\t6.0\t0.1\t1.0001\t0.0000\tseeds\n"
                          "rope\t128\t2\t4\t7.0\t0.1\t1.5\t0.1\tseeds\n"
                          "alibi\t64\t1\t4\t6.0\t0.1\t1.0000\t0.0000\tseeds\n"
                          "alibi\t128\t2\t4\t6.0\t0.1\t1.0\t0.1\tseeds\n");
    put(d, "b", "summary.tsv", s);
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "both SEs 0"), "%s", out);
    th_rmdir(d);
}

Test(grid_agree, bad_inputs_are_status_2_in_one_line)
{
    th_to_root();
    char *d = th_tmpdir(), out[4096];
    struct {
        const char *file, *text, *says;
    } bad[] = {
        { "config.txt", "preset\tquick\nlayers\t4\n", "other settings" },
        { "summary.tsv", "", "an empty one" },
        { "summary.tsv", SUMMARY_HEAD "rope\t64\t1\t4\t6.0\t0.1\t1.0\t0\tseeds\n", "in one grid only" },
        { "summary.tsv", "variant\tlength\tppl\n", "has no column ppl_se" },
        { "orderings.tsv",
          ORDER_HEAD "rope degrades more than alibi\t2\t4\t1\t0.5\t0.1\t0.05\t3.5\teffect\tholds\n"
                     "rope degrades more than alibi\t2\t4\t1\t0.5\t0.1\t0.05\t3.5\teffect\tholds\n",
          "twice" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        grid(d, "a", A_CFG, "6.0", "1.5", "0.5", "holds");
        grid(d, "b", B_CFG, "6.0", "1.5", "0.5", "holds");
        put(d, "b", bad[i].file, bad[i].text);
        cr_expect_eq(agree(d, out, sizeof out), 2, "case %zu: %s", i, out);
        cr_expect(strstr(out, bad[i].says), "case %zu: %s", i, out);
        cr_expect_eq(th_lines(out), 1, "case %zu: %s", i, out);
    }
    /* a missing table */
    char path[1024];
    snprintf(path, sizeof path, "%s/b/orderings.tsv", d);
    remove(path);
    cr_expect_eq(agree(d, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "no readable orderings.tsv"), "%s", out);
    th_rmdir(d);
}

/* A number with no SE (nan: a grid of one seed) cannot be judged "within its
 * SE": it is not compared, and the summary says how many were not; a nan SE
 * on one side only is the same.  Its verdict is still compared. */
Test(grid_agree, a_number_with_no_se_is_not_compared)
{
    th_to_root();
    char *d = th_tmpdir(), out[4096], o[512];
    grid(d, "a", A_CFG, "6.0", "1.5", "0.5", "unresolved");
    grid(d, "b", B_CFG, "6.0", "1.5", "0.5", "unresolved");
    snprintf(o, sizeof o, ORDER_HEAD "rope degrades more than alibi\t2\t1\t0.5\t0.5\tnan\t0.05\tnan\teffect\tunresolved\n");
    put(d, "a", "orderings.tsv", o);
    snprintf(o, sizeof o, ORDER_HEAD "rope degrades more than alibi\t2\t1\t0.6\t0.6\tnan\t0.05\tnan\teffect\tunresolved\n");
    put(d, "b", "orderings.tsv", o);
    cr_expect_eq(agree(d, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "1 of the 9 numbers have no SE"), "%s", out);
    snprintf(o, sizeof o, ORDER_HEAD "rope degrades more than alibi\t2\t4\t0.6\t0.6\t0.1\t0.05\t3.5\teffect\tunresolved\n");
    put(d, "b", "orderings.tsv", o);
    cr_expect_eq(agree(d, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "1 of the 9 numbers have no SE"), "%s", out);
    snprintf(o, sizeof o, ORDER_HEAD "rope degrades more than alibi\t2\t4\t0.6\t0.6\t0.1\t0.05\t3.5\teffect\tholds\n");
    put(d, "b", "orderings.tsv", o);
    cr_expect_eq(agree(d, out, sizeof out), 1, "%s", out);
    cr_expect(strstr(out, "differs: the verdict of"), "%s", out);
    th_rmdir(d);
}
