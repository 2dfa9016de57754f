/* routelab/defaults.h: the defaults the command line and the Python module
 * share, one table (base/core/defaults.c, docs/library-robustness.md#python-api-docs): a flag whose
 * value a caller leaves out takes the same number in `routelab bound window` and in
 * routelab.mixing_window. */
#ifndef ROUTELAB_DEFAULTS_H
#define ROUTELAB_DEFAULTS_H

/* The default of parameter `name` ("eps", "block"); NaN for a name the
 * table does not hold. */
double rl_default(const char *name);
/* Entry i's name and what it sets (NULL past the last entry). */
const char *rl_default_name(int i);
const char *rl_default_what(int i);

#endif
