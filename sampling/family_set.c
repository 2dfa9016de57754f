/* family_set.c: the library's way to name a family and set its parameters
 * (<routelab/family.h>, docs/library.md#family-surface).  Every value goes through the
 * command line's own option entries (RL_FAMILY_OPTS_, family_cli.h) and the
 * parser's own step (rl_opt_set_value), so a parameter has one name, one
 * range and one parser for `routelab`, C and Python alike. */
#include "family_cli.h"
#include "family_ops.h"
#include "so2.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

/* What the messages name as the command (the parser's "CMD: --x ..."). */
#define WHO "family"

size_t rl_family_sizeof(void)
{
    return sizeof(rl_family);
}

/* f's parameters as the flags' values: the inverse of rl_family_of_args. */
static rl_family_args args_of(const rl_family *f)
{
    rl_family_args a = rl_family_args_default();
    rl_family g = *f;
    rl_family_args_sync(&a, &g, 0);
    if (f->kind == RL_FAM_TOKEN_SO2)
        a.vocab = f->vocab;
    return a;
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
    rl_opt fam[] = { RL_FAMILY_OPTS_(&a), RL_OPT_END_ };
    RL_TRY(rl_opt_set_value(WHO, entry(fam, "family"), name, err));
    RL_TRY(rl_opt_check_value(entry(fam, "d"), d, err));
    a.d = d;
    rl_family g = rl_family_of_args(&a);
    if (g.kind == RL_FAM_TOKEN_SO2)
        g.vocab = a.vocab; /* a random table's vocabulary, as without --table */
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
    rl_family_args a = args_of(f);
    rl_opt fam[] = { RL_FAMILY_OPTS_(&a), RL_OPT_END_ };
    rl_opt *o = entry(fam, key);
    if (!o)
        return rl_fail(err, RL_EINPUT, "unknown family parameter '%s' (keys: angles base scale beta p sigma "
                       "vocab)", key);
    RL_TRY(rl_family_takes(f, key, err));
    RL_TRY(rl_opt_set_value(WHO, o, value, err));
    rl_family g = rl_family_of_args(&a);
    g.ops = f->ops;
    if (g.kind == RL_FAM_TOKEN_SO2)
        g.vocab = a.vocab;
    RL_TRY(rl_family_check_untabled(&g, err));
    *f = g;
    return RL_OK;
}
