/* routelab.c: the command table and dispatch. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "../core/util.h"

struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
};

static const struct command commands[] = {
    { "sample", cmd_sample, "draw steps of a family (Haar, SO(2), Householder, ...) as text matrices" },
    { "bound", cmd_bound, "print a closed form or bound of the theory as one number" },
    { "mixing", cmd_mixing, "claim 1: mean routes against E[M]^n, mixing windows (Monte Carlo)" },
    { "concentration", cmd_concentration, "claim 2: score tails against the Beta law, Levy and Hoeffding" },
    { "scoregap", cmd_scoregap, "claim 2: near target score vs the maximum of M_L far distractors" },
    { "farmass", cmd_farmass, "claim 3: far mass of rotation-only attention against the bound, ALiBi" },
    { "values", cmd_values, "claim 4: far value contribution with and without value transport" },
    { "stylized", cmd_stylized, "one attention layer end to end: fitted queries, L up to 65,536" },
    { "theory", cmd_theory, "run every experiment and write the theory report theory.md" },
    { "data", cmd_data, "token data sets: the Brown corpus, any text file, token-file checks" },
    { "train", cmd_train, "train a GPT-style decoder on CPU" },
    { "eval", cmd_eval, "perplexity of a checkpoint at context lengths far beyond training" },
    { "probe", cmd_probe, "far mass and logits against distance inside a trained model" },
    { "reproduce", cmd_reproduce, "the study's grid end to end: train, evaluate, probe, report" },
    { "bench", cmd_bench, "speed against this machine's own LAPACK/BLAS peak" },
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: routelab COMMAND [flags]   (routelab COMMAND --help for its flags)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(fp, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "  %-14s %s\n", "help", "print this list");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    rl_die("unknown command '%s' (see routelab help)", name);
}
