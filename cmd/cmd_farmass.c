/* cmd_farmass.c: `routelab farmass`, claim 3 (the far mass). */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_farmass(int argc, char **argv)
{
    return rl_exp_command("farmass", rl_exp_farmass, "Claim 3: the far mass of rotation-only attention",
                          "Far mass rho_D against context length (64 .. 65,536) for rotation-only attention\n"
                          "(Householder, SO(2) circle, the study's U(-w_b, w_b), NoPE) with logits bounded by\n"
                          "lambda, against the lower bound M/(M + K e^{2 lambda}); the same with ALiBi biases.\n"
                          "TSV files, figures and farmass.md go to --out.",
                          argc, argv);
}
