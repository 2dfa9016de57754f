/* family_set.c: the library's way to name a family and set its parameters
 * (<routelab/family.h>, docs/library.md#family-surface).  Every value goes through its
 * family's parameter table, as an option entry (rl_family_param_opt,
 * family_cli.h) and the parser's own step (rl_opt_set_value), so a
 * parameter has one name, one range and one parser for `routelab`, C and
 * Python alike. */
#include "family_cli.h"
#include "family_ops.h"
#include "so2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

/* What the messages name as the command (the parser's "CMD: --x ..."). */
#define WHO "family"

size_t rl_family_sizeof(void)
{
    return sizeof(rl_family);
}

static rl_opt *entry(rl_opt *opts, const char *name)
{
    for (rl_opt *o = opts; o->type != RL_OPT_END; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}

rl_status rl_family_named(rl_family *f, const char *name, int d, rl_err *err)
{
    if (!f || !name)
        return rl_fail(err, RL_EINPUT, "rl_family_named: no family or no name");
    rl_family_args a = rl_family_args_default();
    rl_opt fam[RL_FAMILY_OPTS_MAX + 1];
    fam[rl_family_opts(&a, fam)] = (rl_opt)RL_OPT_END_;
    RL_TRY(rl_opt_set_value(WHO, entry(fam, "family"), name, err));
    RL_TRY(rl_opt_check_value(entry(fam, "d"), d, err));
    /* the family's own defaults (a random token-so2 table's vocabulary
     * among them, as without --table) */
    rl_family g = rl_family_default((rl_family_kind)a.kind, d);
    RL_TRY(rl_family_check_untabled(&g, err));
    *f = g;
    return RL_OK;
}

rl_status rl_family_set(rl_family *f, const char *key, const char *value, rl_err *err)
{
    if (!f || !key || !value)
        return rl_fail(err, RL_EINPUT, "rl_family_set: no family, key or value");
    if (!strcmp(key, "family") || !strcmp(key, "d"))
        return rl_fail(err, RL_EINPUT, "--%s is rl_family_named's argument, not a parameter to set", key);
    if (!strcmp(key, "table") || !strcmp(key, "text"))
        return rl_fail(err, RL_EINPUT, "--%s names a file: the command line's only (the library draws "
                       "token-so2's random table)", key);
    /* the parameter's entry in f's own table, parsed and range-checked by
     * the flag's own parser (rl_family_param_opt) */
    const rl_family_param *p = rl_family_param_of(f, key);
    if (!p) {
        const rl_family_param *all[RL_FAMILY_NAMES_MAX];
        const int n = rl_family_param_names(all);
        for (int i = 0; i < n; i++)
            if (!strcmp(all[i]->name, key))
                return rl_family_takes(f, key, err);
        char keys[256] = "";
        for (int i = 0, off = 0; i < n && off < (int)sizeof keys; i++)
            off += snprintf(keys + off, sizeof keys - off, "%s%s", i ? " " : "", all[i]->name);
        return rl_fail(err, RL_EINPUT, "unknown family parameter '%s' (keys: %s)", key, keys);
    }
    double v = 0;
    int iv = 0;
    rl_opt o = rl_family_param_opt(p, p->type == RL_PAR_DOUBLE ? (void *)&v : (void *)&iv, p->help);
    RL_TRY(rl_opt_set_value(WHO, &o, value, err));
    rl_family g = *f;
    rl_family_param_put(&g, p, p->type == RL_PAR_DOUBLE ? v : iv);
    RL_TRY(rl_family_check_untabled(&g, err));
    *f = g;
    return RL_OK;
}
