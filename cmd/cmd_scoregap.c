/* cmd_scoregap.c: `routelab scoregap`, the stylized score gap. */
#include "commands.h"
#include "../experiments/experiments.h"

int cmd_scoregap(int argc, char **argv)
{
    return rl_exp_command("scoregap", rl_exp_scoregap, "The score gap: a near target among far distractors",
                          "One chain back from a query: the target key on a near route (n = 1, 4, 16), M_L aligned\n"
                          "distractors on far routes.  Near score, maximum far score against sqrt(2 log M_L / d)\n"
                          "and the union bound, the gap and the softmax weight ratio, for d = 16, 64, 256.  TSV\n"
                          "files, figures and scoregap.md go to --out.",
                          argc, argv);
}
