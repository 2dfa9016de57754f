/* routelab.c: the command table and dispatch.  The per-claim subcommands
 * (mixing, concentration, ...) come from the claims table, in its order, at
 * the table's CLAIMS_ row. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas_arch.h"
#include "../core/lock.h"
#include "../core/par.h"
#include "commands.h"
#include "../core/util.h"

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
};

#define CLAIMS_ { NULL, NULL, NULL }

static const struct command commands[] = {
    { "sample", cmd_sample, "draw steps of a family (Haar, SO(2), Householder, ...) as text matrices" },
    { "bound", cmd_bound, "print a closed form or bound of the theory as one number" },
    CLAIMS_,
    { "claims", cmd_claims, "print the claims table (number, id, title, command) as markdown" },
    { "theory", cmd_theory, "run every claim's experiment and write the theory report theory.md" },
    { "data", cmd_data, "token data sets: the Brown corpus, any text file, token-file checks" },
    { "train", cmd_train, "train a GPT-style decoder on CPU" },
    { "eval", cmd_eval, "perplexity of a checkpoint at context lengths far beyond training" },
    { "probe", cmd_probe, "far mass and logits against distance inside a trained model" },
    { "horizon", cmd_horizon, "per-block mixing windows of a trained model and its predicted horizon" },
    { "reproduce", cmd_reproduce, "the study's grid end to end: train, evaluate, probe, report" },
    { "bench", cmd_bench, "speed against this machine's own LAPACK/BLAS peak" },
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: routelab COMMAND [flags]   (routelab COMMAND --help for its flags)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (commands[i].name) {
            fprintf(fp, "  %-14s %s\n", commands[i].name, commands[i].summary);
            continue;
        }
        for (int c = 0; c < rl_nclaims; c++)
            fprintf(fp, "  %-14s claim %d: %s\n", rl_claims[c].id, rl_claims[c].number, rl_claims[c].title);
    }
    fprintf(fp, "  %-14s %s\n", "help", "print this list");
}

/* The largest OMP_STACKSIZE taken: each OpenMP thread reserves its stack
 * when the first parallel region starts, and libgomp accepts any size at
 * load (OMP_STACKSIZE=99999999G), then ends the program at that region with
 * its own "Thread creation failed" line.  1 GiB is far beyond any stack
 * this program needs. */
#define OMP_STACK_MAX ((unsigned long long)1 << 30)

/* Refuse an OMP_STACKSIZE libgomp would fail on, before any parallel region
 * (libgomp's format: a number of K, or with a suffix B, K, M or G).  A value
 * libgomp cannot parse it reports itself while loading, before main, and
 * then ignores; that line cannot be prevented from here. */
static void omp_stack_check(void)
{
    const char *v = getenv("OMP_STACKSIZE");
    if (!v)
        return;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    unsigned shift = 10;
    if (*end) {
        const char *u = strchr("bBkKmMgG", *end);
        shift = u ? (unsigned)((u - "bBkKmMgG") / 2) * 10 : 99;
        end++;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == v || *end || !isdigit((unsigned char)v[0]) || errno || shift == 99)
        rl_die("OMP_STACKSIZE '%s' is not a size (a number with an optional B, K, M or G)", v);
    if (n == 0 || n > OMP_STACK_MAX >> shift)
        rl_die("OMP_STACKSIZE '%s' is out of range (1 byte to 1G per OpenMP thread)", v);
}

int main(int argc, char **argv)
{
    rl_blas_fix_arch(argv); /* may run the program again with OpenBLAS's fast kernels */
    rl_stdout_guard();      /* output lost to a full disk is no exit 0 */
    omp_stack_check();
    rl_err err;
    rl_check(rl_par_init(&argc, &argv, &err), &err); /* a rank of mpirun / srun, or alone */
    rl_cleanup_signals(); /* Ctrl-C or a SIGTERM removes this run's temporaries (core/lock.h) */
    if (argc < 2)
        rl_die("no command (see routelab --help)"); /* one line; the table is --help's */
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        if (argc > 2)
            rl_die("%s: unexpected argument '%s' (for a command's flags: routelab COMMAND --help)", name, argv[2]);
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (commands[i].name && !strcmp(name, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    const rl_claim *c = rl_claim_find(name);
    if (c)
        return cmd_claim(c, argc - 1, argv + 1);
    rl_die("unknown command '%s' (see routelab help)", name);
}
