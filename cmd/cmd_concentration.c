/* cmd_concentration.c: `routelab concentration`, claim 2 (Levy / Hoeffding). */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_concentration(int argc, char **argv)
{
    return rl_exp_command("concentration", rl_exp_concentration, "Claim 2: concentration of transported scores",
                          "Tails P(|q^T P k| >= t) for d = 8 ... 512: Haar transport and every step family far\n"
                          "beyond its window against the exact Beta law and Levy's bound; SO(2) block scores\n"
                          "against Hoeffding (q, k spread evenly or in the low-frequency blocks).  TSV files,\n"
                          "figures and concentration.md go to --out.",
                          argc, argv);
}
