/* cmd_stylized.c: `routelab stylized`, claim 6 (one attention layer end to end). */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_stylized(int argc, char **argv)
{
    return rl_exp_command("stylized", rl_exp_stylized, "Claim 6: one attention layer, end to end",
                          "Retrieval of a target value on a near route among L - 1 distractors with queries\n"
                          "fitted inside a training window: target weight, far mass, output SNR and a\n"
                          "perplexity-like ratio against L (up to 65,536) for nope, rope, random_qk,\n"
                          "random_qkv, haar (accumulated Householder), alibi and alibi+random_qkv, next to\n"
                          "the study's language-model ratios.  TSV files, figures and stylized.md go to --out.",
                          argc, argv);
}
