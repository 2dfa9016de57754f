/* family.c: the registry of step families, their names, defaults and
 * validation (the families themselves: sampling/fam_*.c). */
#include "family.h"
#include "family_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/streams.h"

#define RL_FAM_OPS_PTR_(E, id, name) &rl_family_##id,
static const rl_family_ops *const registry[RL_FAM_COUNT] = { RL_FAMILY_LIST(RL_FAM_OPS_PTR_) };
#undef RL_FAM_OPS_PTR_

#define RL_FAM_NAME_(E, id, name) name,
static const char *const family_names[RL_FAM_COUNT] = { RL_FAMILY_LIST(RL_FAM_NAME_) };
#undef RL_FAM_NAME_

static const char *const angle_names[RL_ANG_COUNT] = {
    "constant", "uniform", "pm", "gauss", "circle", "drift"
};

const rl_family_ops *rl_family_registry(rl_family_kind k)
{
    return (unsigned)k < RL_FAM_COUNT ? registry[k] : NULL;
}

const rl_family_ops *rl_family_ops_of(const rl_family *f)
{
    return f->ops ? f->ops : rl_family_registry(f->kind);
}

int rl_family_lookup(const char *name)
{
    for (int k = 0; k < RL_FAM_COUNT; k++)
        if (!strcmp(name, family_names[k]))
            return k;
    return -1;
}

const char *rl_family_name(rl_family_kind k)
{
    return (unsigned)k < RL_FAM_COUNT ? family_names[k] : "?";
}

const char *rl_angle_name(rl_angle_law a)
{
    return (unsigned)a < RL_ANG_COUNT ? angle_names[a] : "?";
}

rl_family rl_family_default(rl_family_kind kind, int d)
{
    /* the one place the parameters' defaults are written (rl_family_args_default reads them here) */
    rl_family f = { .kind = kind, .d = d, .law = RL_ANG_UNIFORM, .base = 10000.0, .scale = 1.0, .beta = 1.0,
                    .p = 0.5, .sigma = 0.1 };
    return f;
}

int rl_family_is_so2(const rl_family *f)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    return o && o->form == RL_STEP_SO2;
}

int rl_family_orthogonal(const rl_family *f)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    return o && (!o->orthogonal || o->orthogonal(f));
}

int rl_family_reads(const rl_family *f, const char *flag)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    const size_t n = strlen(flag);
    if (!o || !n)
        return 0;
    for (const char *p = o->flags; (p = strstr(p, flag)); p += n)
        if ((p == o->flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

int rl_family_mean_blocks(const rl_family *f)
{
    return rl_family_is_so2(f) ? f->d / 2 : 1;
}

int rl_family_has_mean(const rl_family *f)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    if (!o || !o->mean)
        return 0;
    const int nb = rl_family_mean_blocks(f);
    double complex chi[nb];
    return o->mean(f, NULL, chi, NULL);
}

rl_status rl_family_check(const rl_family *f, rl_err *err)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    if (!o)
        return rl_fail(err, RL_EINPUT, "unknown step family");
    if (f->d < 2)
        return rl_fail(err, RL_EINPUT, "dimension d = %d is below 2", f->d);
    return o->check ? o->check(f, err) : RL_OK;
}

/* Fresh domains: RL_STREAM_FAMILY_FRESH + 256 kind + 16 sweep + j, j < 16,
 * above every domain that existed before the registry (streams.h). */
unsigned long rl_family_fresh_stream(rl_family_kind k, rl_sweep s, int j)
{
    return RL_STREAM_FAMILY_FRESH + 256UL * (unsigned)k + 16UL * (unsigned)s + (unsigned)j;
}

unsigned long rl_family_case_stream(rl_sweep s, rl_family_kind k, int slot)
{
    /* each sweep's domain, in rl_sweep order (streams.h) */
    static const unsigned long domain[RL_SWEEP_COUNT] = { RL_STREAM_MIX_FAMILY, RL_STREAM_CONC_FAMILY,
                                                          RL_STREAM_FARMASS, RL_STREAM_VALUES,
                                                          RL_STREAM_GAP_FAMILY };
    if (slot >= RL_FAMILY_FRESH_SLOT(0, 0))
        return rl_family_fresh_stream(k, s, slot - RL_FAMILY_FRESH_SLOT(k, 0));
    return domain[s] + (unsigned long)slot;
}

/* whether `name` is one of the comma-separated names of list */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

rl_status rl_family_cases(rl_sweep s, int d, const char *families, rl_family_case *out, int max,
                          int *n, rl_err *err)
{
    const int subset = families && *families;
    int k = 0;
    /* every name must be a family, named once, and give this sweep a case;
     * an empty name (",", "a,,b", a trailing comma) is a malformed list */
    int named[RL_FAM_COUNT] = { 0 };
    if (subset)
        for (const char *p = families;;) {
            const char *e = strchr(p, ',');
            char name[64];
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len == 0)
                return rl_fail(err, RL_EINPUT, "an empty name in the family list '%s'", families);
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
            int kind = rl_family_lookup(name);
            rl_family_case tmp[RL_FAMILY_CASES_MAX];
            if (kind < 0)
                return rl_fail(err, RL_EINPUT, "unknown family '%s' (one of %s)", name, RL_FAMILY_NAMES);
            if (named[kind]++)
                return rl_fail(err, RL_EINPUT, "family '%s' is named twice", name);
            if (!registry[kind]->cases || registry[kind]->cases(d, s, tmp) == 0)
                return rl_fail(err, RL_EINPUT, "family '%s' has no case in this sweep", name);
            if (!e)
                break;
            p = e + 1;
        }
    for (int kind = 0; kind < RL_FAM_COUNT; kind++) {
        rl_family_case c[RL_FAMILY_CASES_MAX];
        if (!registry[kind]->cases || (subset && !listed(families, family_names[kind])))
            continue;
        const int nc = registry[kind]->cases(d, s, c);
        for (int j = 0; j < nc; j++) {
            if (!subset && !c[j].in_default)
                continue;
            if (k == max)
                return rl_fail(err, RL_EINTERNAL, "more than %d cases in one sweep", max);
            /* insertion by slot: the sweep's order is the slots' */
            int at = k++;
            while (at > 0 && out[at - 1].slot > c[j].slot) {
                out[at] = out[at - 1];
                at--;
            }
            out[at] = c[j];
            out[at].stream = rl_family_case_stream(s, (rl_family_kind)kind, c[j].slot);
        }
    }
    *n = k;
    return RL_OK;
}
