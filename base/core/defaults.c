/* defaults.c: the one table of defaults the command line and the Python
 * module share (<routelab/defaults.h>, docs/library-robustness.md#python-api-docs).  Before it,
 * Python's mixing_window took eps = 0.1 and `routelab bound window` 0.01 (776903252
 * against 1553806503 steps for the slowest block of so2 at d = 64). */
#include "../../api/include/routelab/defaults.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const struct {
    const char *name;
    double value;
    const char *what;
} table[] = {
    /* 0.01: a route's mean within 1% of its start (docs/theory/claim1-mixing.md#mixing-window); the
     * study's regime is quoted at 0.1, which `bound match` and the grids name themselves */
    { "eps", 0.01, "tolerance of the mixing window W(eps)" },
    { "block", -1, "the SO(2) block of norm and window (-1: the maximum over blocks)" },
};
#define NTABLE ((int)(sizeof table / sizeof table[0]))

double rl_default(const char *name)
{
    for (int i = 0; name && i < NTABLE; i++)
        if (!strcmp(table[i].name, name))
            return table[i].value;
    return NAN;
}

const char *rl_default_name(int i)
{
    return i >= 0 && i < NTABLE ? table[i].name : NULL;
}

const char *rl_default_what(int i)
{
    return i >= 0 && i < NTABLE ? table[i].what : NULL;
}
