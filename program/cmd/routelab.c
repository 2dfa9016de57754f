/* routelab.c: the command table and dispatch.  The per-claim subcommands
 * (mixing, concentration, ...) come from the claims table, in its order, at
 * the table's CLAIMS_ row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/core/blas_arch.h"
#include "../../base/core/job.h"
#include "../../base/core/lock.h"
#include "../../base/par/par.h"
#include "commands.h"
#include "startenv.h"
#include "../../base/core/util.h"
#include "../../api/include/routelab/version.h"

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
    { "farpred", cmd_farpred, "far mass beyond T predicted from what a trained model does within T (routelab's predictor)" },
    { "horizon", cmd_horizon, "per-block mixing windows of a trained model and its predicted horizon" },
    { "reproduce", cmd_reproduce, "the study's grid end to end: train, evaluate, probe, report" },
    { "plot", cmd_plot, "draw a figure again from its .plot file: another size, font, PNG, SVG or PDF" },
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
    fprintf(fp, "  %-14s %s\n", "--version", "print the version and the commit it was built from");
}

/* Before any shared library's initialiser, in this order: the room
 * OpenBLAS needs (blas_arch.h), whose line and exit go to the real stderr,
 * then stderr held while libgomp reads OMP_* (startenv.h).  Only the
 * executable may have a .preinit_array, and one entry fixes the order (two,
 * in two objects, ran in link order: the room's line went into the pipe,
 * lost, under any OMP_* variable). */
static void preinit(int argc, char **argv, char **envp)
{
    rl_blas_room_preinit(argc, argv, envp);
    rl_startenv_preinit(argc, argv, envp);
}
/* One pointer, not an array: AddressSanitizer pads an instrumented array
 * with a redzone of zeros, which the loader then calls (make sanitize). */
__attribute__((section(".preinit_array"), used)) static void (*const preinit_entry)(int, char **, char **) =
    preinit;

int main(int argc, char **argv)
{
    rl_job_install(&rl_par_job); /* core's questions about the job, answered by MPI (base/core/job.h) */
    rl_startenv_check();    /* what the libraries said of the environment, first */
    rl_startenv_fix(argv);  /* may run the program again: OpenBLAS's fast kernels, passive OpenMP waits */
    rl_stdout_guard();      /* output lost to a full disk is no exit 0 */
    rl_err err;
    rl_check(rl_par_init(&argc, &argv, &err), &err); /* a rank of mpirun / srun, or alone */
    rl_cleanup_signals(); /* Ctrl-C or a SIGTERM removes this run's temporaries (base/core/lock.h) */
    if (argc < 2)
        rl_die("no command (see routelab --help)"); /* one line; the table is --help's */
    const char *name = argv[1];
    if (!strcmp(name, "--version")) {
        if (argc > 2)
            rl_die("--version: unexpected argument '%s'", argv[2]);
        /* the program's commit and the library ABI it carries: what a grid's
         * config.txt and a bug report name; and the OpenBLAS kernels this
         * program runs (pinned at start-up on a CPU OpenBLAS does not
         * recognise: blas_arch.h), which a program that loads the library
         * itself (Python) can only get by setting OPENBLAS_CORETYPE to it
         * before OpenBLAS loads (docs/speed/kernels.md#training-attention-kernels) */
        printf("routelab %s (commit %s); kernels: %s\n", routelab_version(), rl_build_commit(), rl_blas_kernels());
        return 0;
    }
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
