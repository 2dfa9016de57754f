/* test_mpi_mc.c: the Monte Carlo sweeps and training across MPI ranks give
 * the same bytes as one process (base/par/par.h: items fixed by the problem,
 * contiguous blocks per rank, results combined in item order). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/par/par.h"
#include "helpers.h"

/* ---- blocks and the tree on one process ---- */

Test(mpi_mc, range_blocks_are_contiguous_and_balanced)
{
    for (long n = 0; n <= 40; n++)
        for (int size = 1; size <= 9; size++) {
            long next = 0, least = n, most = 0;
            for (int r = 0; r < size; r++) {
                long lo, hi;
                rl_par_range_of(n, r, size, &lo, &hi);
                cr_assert_eq(lo, next, "n %ld size %d rank %d starts at %ld, not %ld", n, size, r, lo, next);
                cr_assert_geq(hi, lo);
                least = hi - lo < least ? hi - lo : least;
                most = hi - lo > most ? hi - lo : most;
                next = hi;
            }
            cr_assert_eq(next, n, "n %ld size %d: blocks end at %ld", n, size, next);
            cr_assert_leq(most - least, 1, "n %ld size %d: block sizes %ld..%ld", n, size, least, most);
        }
    long lo, hi; /* without a launcher: one rank owning everything */
    rl_par_range(7, &lo, &hi);
    cr_assert(lo == 0 && hi == 7 && rl_par_rank() == 0 && rl_par_size() == 1);
}

/* items whose sum depends on the order of the additions in float */
static const float vals[9][2] = { { 1e8f, 1 },  { 1, 1e8f },  { -1e8f, 3 }, { 3, -1e8f }, { 0.5f, 7 },
                                  { 7, 0.25f }, { 1e-3f, 5 }, { 2, 1e7f },  { -1e7f, 9 } };

static rl_status item(void *ctx, long i, float *out, rl_err *err)
{
    (void)ctx;
    (void)err;
    out[0] = vals[i][0];
    out[1] = vals[i][1];
    return RL_OK;
}

/* The recursive definition of base/par/par.h, written out again here. */
static void tree(long a, long b, float *out)
{
    if (b - a == 1) {
        out[0] = vals[a][0];
        out[1] = vals[a][1];
        return;
    }
    const long m = (a + b) / 2;
    float r[2];
    tree(a, m, out);
    tree(m, b, r);
    out[0] = out[0] + r[0];
    out[1] = out[1] + r[1];
}

Test(mpi_mc, tree_sum_follows_the_recursive_definition)
{
    int differs = 0; /* the tree is not the left-to-right sum somewhere: the check has teeth */
    for (long n = 1; n <= 9; n++) {
        rl_par_tree *t = rl_par_tree_alloc(n, 2);
        float got[2], want[2], seq[2] = { 0, 0 };
        rl_err err;
        cr_assert_eq(rl_par_tree_sum(t, n, item, NULL, got, &err), RL_OK);
        tree(0, n, want);
        cr_assert(memcmp(got, want, sizeof got) == 0, "n %ld: %g %g, want %g %g", n, got[0], got[1], want[0],
                  want[1]);
        for (long i = 0; i < n; i++) {
            seq[0] += vals[i][0];
            seq[1] += vals[i][1];
        }
        differs |= memcmp(got, seq, sizeof got) != 0;
        rl_par_tree_free(t);
    }
    cr_assert(differs, "the values do not make the order of additions matter");
}

/* ---- under mpirun ---- */

static const char *bin(void)
{
    const char *b = getenv("ROUTELAB");
    return b ? b : "build/routelab";
}

/* `routelab ARGS` on np ranks (np 0: one process without a launcher), with
 * a time limit; its stderr in err. */
static int run_np(int np, const char *args, char *err, size_t errlen)
{
    char cmd[4096], *e = th_path("/tmp", "rl-mpi-err-XXXXXX");
    close(mkstemp(e));
    if (np > 0)
        snprintf(cmd, sizeof cmd,
                 "OMPI_MCA_mpi_yield_when_idle=1 timeout 600 mpirun --allow-run-as-root --oversubscribe -q -np %d "
                 "%s %s >/dev/null 2>%s </dev/null",
                 np, bin(), args, e);
    else
        snprintf(cmd, sizeof cmd, "timeout 600 %s %s >/dev/null 2>%s </dev/null", bin(), args, e);
    int st = system(cmd);
    FILE *f = fopen(e, "r");
    size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = 0;
    if (f)
        fclose(f);
    unlink(e);
    free(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void same_file(const char *d1, const char *d2, const char *name, int np)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cmp -s %s/%s %s/%s", d1, name, d2, name);
    cr_assert_eq(system(cmd), 0, "%s differs between 1 process and %d ranks", name, np);
}

/* A claim's quick preset on 1 process and on 2 .. max_np ranks: every file
 * the same bytes. */
static void claim_across_ranks(const char *claim, const char *const *files, int max_np)
{
    char *d = th_tmpdir(), args[1024], err[4096];
    char *one = th_path(d, "one");
    snprintf(args, sizeof args, "%s --preset quick --seed 1 --threads 1 --out %s", claim, one);
    cr_assert_eq(run_np(0, args, err, sizeof err), 0, "%s", err);
    for (int np = 2; np <= max_np; np++) {
        char name[16];
        snprintf(name, sizeof name, "np%d", np);
        char *o = th_path(d, name);
        snprintf(args, sizeof args, "%s --preset quick --seed 1 --threads 1 --out %s", claim, o);
        cr_assert_eq(run_np(np, args, err, sizeof err), 0, "%d ranks: %s", np, err);
        for (const char *const *f = files; *f; f++)
            same_file(one, o, *f, np);
        free(o);
    }
    th_rmdir(d);
    free(one);
    free(d);
}

Test(mpi_mc, farmass_tsvs_are_the_same_bytes_on_1_2_3_ranks, .timeout = 900)
{
    static const char *const files[] = { "farmass.tsv",        "farmass_admissible.tsv", "farmass_alibi.tsv",
                                         "farmass_extremal.tsv", "farmass_half.tsv",       "farmass_scores.tsv",
                                         NULL };
    claim_across_ranks("farmass", files, 3);
}

/* The other claims' splits (experiments/values.c, mc/gapchain.c,
 * mc/scoretails.c, experiments/stylized.c): 1 process against 2 ranks,
 * every TSV (about a minute of CPU; mixing's, about 90 s more, was compared
 * by hand: docs/mpi.md#mc-across-ranks). */
Test(mpi_mc, other_claims_tsvs_are_the_same_bytes_on_2_ranks, .timeout = 900)
{
    static const char *const values[] = { "values_blocks.tsv", "values_near.tsv", NULL };
    static const char *const scoregap[] = { "scoregap_far.tsv", "scoregap_gap.tsv", "scoregap_near.tsv", NULL };
    static const char *const concentration[] = { "concentration_curves.tsv", "concentration_families.tsv",
                                                 "concentration_haar.tsv",   "concentration_moments.tsv",
                                                 "concentration_so2.tsv",    "concentration_so2_scale.tsv",
                                                 NULL };
    static const char *const stylized[] = { "stylized.tsv",       "stylized_fit.tsv",   "stylized_logit.tsv",
                                            "stylized_query.tsv", "stylized_study.tsv", "stylized_table.tsv",
                                            NULL };
    claim_across_ranks("values", values, 2);
    claim_across_ranks("scoregap", scoregap, 2);
    claim_across_ranks("concentration", concentration, 2);
    claim_across_ranks("stylized", stylized, 2);
}

/* train --accum 4: four shards summed along the fixed tree, whatever the
 * ranks; the final checkpoint is the same bytes for 1, 2 and 3 ranks. */
Test(mpi_mc, train_checkpoint_is_the_same_bytes_on_1_2_3_ranks, .timeout = 900)
{
    char *d = th_tmpdir(), args[2048], err[4096];
    char *txt = th_path(d, "t.txt");
    th_write_text(txt, 200);
    const char *tiny = "--pos random_qkv --steps 30 --accum 4 --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 "
                       "--lr 3e-3:30 --val-every 10 --val-batches 2 --ckpt-every 10 --threads 1";
    char *out[3];
    for (int np = 1; np <= 3; np++) {
        char name[16];
        snprintf(name, sizeof name, "np%d", np);
        out[np - 1] = th_path(d, name);
        snprintf(args, sizeof args, "train --data %s --out %s %s", txt, out[np - 1], tiny);
        cr_assert_eq(run_np(np, args, err, sizeof err), 0, "%d ranks: %s", np, err);
    }
    for (int np = 2; np <= 3; np++)
        same_file(out[0], out[np - 1], "ckpt.bin", np);
    for (int i = 0; i < 3; i++)
        free(out[i]);
    th_rmdir(d);
    free(txt);
    free(d);
}

/* The default --threads under a launcher that leaves every core to every
 * rank (--bind-to none): the node's cores shared among its ranks
 * (base/core/util.c rl_ncores), not every rank on every core.  reproduce under
 * MPI prints its ranks and the threads each runs its trainings with; 2 ranks
 * here expect max(1, cores / 2) each (before: all the cores each). */
Test(mpi_mc, default_threads_share_the_node_among_its_ranks, .timeout = 300)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g"), cmd[4096];
    th_write_text(txt, 200);
    snprintf(cmd, sizeof cmd,
             "OMPI_MCA_mpi_yield_when_idle=1 timeout 240 mpirun --allow-run-as-root --oversubscribe -q "
             "--bind-to none -np 2 %s reproduce --data %s --out %s --variants rope,alibi --layers 1 --width 16 "
             "--heads 2 --ctx 8 --batch 2 --lr 1e-3:8 --val-every 4 --val-batches 1 --ckpt-every 2 --max-mult 2 "
             "--theory none --probe none --seeds 1 --eval-batches 1 --stop-at 2 2>&1",
             bin(), txt, g);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char line[1024], want[64];
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(want, sizeof want, "over 2 ranks (--threads %ld each)", cores / 2 > 1 ? cores / 2 : 1);
    int found = 0;
    while (fgets(line, sizeof line, p))
        found |= strstr(line, want) != NULL;
    cr_expect_eq(pclose(p), 0);
    cr_expect(found, "reproduce under 2 ranks did not say %s", want);
    th_rmdir(d);
    free(d);
    free(txt);
    free(g);
}
