/* family.c: the registry of step families, their names, defaults and
 * validation (the families themselves: sampling/fam_*.c). */
#include "family.h"
#include "family_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/core/opts.h"

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

double rl_family_param_get(const rl_family *f, const rl_family_param *p)
{
    const char *at = (const char *)f + p->offset;
    return p->type == RL_PAR_DOUBLE ? *(const double *)at : *(const int *)at;
}

void rl_family_param_put(rl_family *f, const rl_family_param *p, double v)
{
    char *at = (char *)f + p->offset;
    if (p->type == RL_PAR_DOUBLE)
        *(double *)at = v;
    else
        *(int *)at = (int)v;
}

const rl_family_param *rl_family_param_of(const rl_family *f, const char *name)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    for (int i = 0; o && i < o->nparams; i++)
        if (!strcmp(o->params[i].name, name))
            return &o->params[i];
    return NULL;
}

int rl_family_param_names(const rl_family_param **out)
{
    int n = 0;
    for (int k = 0; k < RL_FAM_COUNT; k++)
        for (int i = 0; i < registry[k]->nparams; i++) {
            const rl_family_param *p = &registry[k]->params[i];
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = !strcmp(out[j]->name, p->name);
            if (!seen && n < RL_FAMILY_NAMES_MAX)
                out[n++] = p;
        }
    return n;
}

rl_family rl_family_default(rl_family_kind kind, int d)
{
    /* the defaults are the families' tables' (one place each) */
    rl_family f = { .kind = kind, .d = d };
    const rl_family_ops *o = rl_family_registry(kind);
    for (int i = 0; o && i < o->nparams; i++)
        rl_family_param_put(&f, &o->params[i], o->params[i].def);
    return f;
}

rl_det_sign rl_family_det_plus(const rl_family *f)
{
    (void)f;
    return RL_DET_PLUS;
}

int rl_family_fixed(const rl_family *f)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    return o && o->fixed;
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
    if (rl_family_param_of(f, flag))
        return 1;
    const char *files = o->files ? o->files : "";
    for (const char *p = files; (p = strstr(p, flag)); p += n)
        if ((p == files || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

const char *rl_family_flags_text(const rl_family *f, char *buf, size_t n)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; o && i < o->nparams && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? " " : "", o->params[i].name);
    if (o && o->files && *o->files && off < n)
        snprintf(buf + off, n - off, "%s%s", off ? " " : "", o->files);
    return *buf ? buf : "none";
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
    /* every parameter inside its table's range: the flag's own range
     * (base/core/opts.h's test), so a family built in code meets the command
     * line's bounds */
    for (int i = 0; i < o->nparams; i++) {
        const rl_family_param *p = &o->params[i];
        const double v = rl_family_param_get(f, p);
        char range[64];
        if (p->type == RL_PAR_CHOICE) {
            char name[32];
            if (v < 0 || !strcmp(rl_choice_name(p->choices, (int)v, name, sizeof name), "?"))
                return rl_fail(err, RL_EINPUT, "unknown %s %g (one of %s)", p->name, v, p->choices);
            continue;
        }
        if (!isfinite(v))
            return rl_fail(err, RL_EINPUT, "%s %g is not a finite number", p->name, v);
        rl_opt r = { p->name, RL_OPT_DOUBLE, NULL, NULL, p->lo, p->hi, p->bounds, NULL, 0 };
        if (!rl_opt_in_range(&r, v))
            return rl_fail(err, RL_EINPUT, "%s %g is outside %s", p->name, v,
                           rl_opt_range_text(&r, range, sizeof range));
    }
    return o->check ? o->check(f, err) : RL_OK;
}
