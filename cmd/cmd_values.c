/* cmd_values.c: `routelab values`, claim 4 (value transport). */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_values(int argc, char **argv)
{
    return rl_exp_command("values", rl_exp_values, "Claim 4: the far value contribution and value transport",
                          "The far contribution r = sum_far alpha_j P(j->i) v_j of values sharing a background\n"
                          "component, without value transport, with SO(2) transport (circle-uniform angles and the\n"
                          "study's U(-w_b, w_b), block by block), Householder and Haar, against the exact\n"
                          "E||r||^2 = (rho/M)^2 sum_b ||v_b||^2 S(chi_b, M); covariance and the near target.\n"
                          "TSV files, figures and values.md go to --out.",
                          argc, argv);
}
