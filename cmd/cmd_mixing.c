/* cmd_mixing.c: `routelab mixing`, claim 1 (the mixing window). */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_mixing(int argc, char **argv)
{
    return rl_exp_command("mixing", rl_exp_mixing, "Claim 1: the mixing window",
                          "Mean route E[P_n] against E[M]^n for every step family, the mixing window W(eps),\n"
                          "the study's U(-w_b, w_b) variant block by block (d = 64, 96), text-driven steps,\n"
                          "and positive-drift angles.  TSV files, figures and mixing.md go to --out.",
                          argc, argv);
}
