/* family_cli.c: building a step family from command-line flags. */
#include "family_cli.h"
#include "family_ops.h"
#include "so2.h"
#include "tokens.h"
#include "../base/core/tokfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"

/* The families that read --flag into buf, ", "-separated. */
static const char *readers(const char *flag, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int k = 0; k < RL_FAM_COUNT; k++) {
        rl_family g = rl_family_default((rl_family_kind)k, 2);
        if (rl_family_reads(&g, flag) && off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", rl_family_name(g.kind));
    }
    return buf;
}

/* The index of parameter `name` among the registry's (-1: none), and all of them. */
static int name_index(const char *name, const rl_family_param **all, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(all[i]->name, name))
            return i;
    return -1;
}

rl_family_args rl_family_args_default(void)
{
    const rl_family_param *all[RL_FAMILY_NAMES_MAX];
    const int n = rl_family_param_names(all);
    rl_family_args a = { .kind = RL_FAM_SO2, .d = 64 };
    for (int i = 0; i < n; i++) {
        a.val[i] = all[i]->def;
        a.ival[i] = (int)all[i]->def;
    }
    return a;
}

rl_family rl_family_of_args(const rl_family_args *a)
{
    const rl_family_param *all[RL_FAMILY_NAMES_MAX];
    const int n = rl_family_param_names(all);
    rl_family f = rl_family_default((rl_family_kind)a->kind, a->d);
    const rl_family_ops *o = rl_family_registry(f.kind);
    for (int j = 0; o && j < o->nparams; j++) {
        const rl_family_param *p = &o->params[j];
        const int i = name_index(p->name, all, n);
        rl_family_param_put(&f, p, p->type == RL_PAR_DOUBLE ? a->val[i] : a->ival[i]);
    }
    return f;
}

rl_family_args rl_family_args_of(const rl_family *f)
{
    const rl_family_param *all[RL_FAMILY_NAMES_MAX];
    const int n = rl_family_param_names(all);
    rl_family_args a = rl_family_args_default();
    const rl_family_ops *o = rl_family_ops_of(f);
    a.kind = f->kind, a.d = f->d;
    for (int j = 0; o && j < o->nparams; j++) {
        const rl_family_param *p = &o->params[j];
        const int i = name_index(p->name, all, n);
        if (i < 0)
            continue; /* a test's own object: a name the registry lacks */
        if (p->type == RL_PAR_DOUBLE)
            a.val[i] = rl_family_param_get(f, p);
        else
            a.ival[i] = (int)rl_family_param_get(f, p);
    }
    return a;
}

rl_opt rl_family_param_opt(const rl_family_param *p, void *dest, const char *help)
{
    if (p->type == RL_PAR_CHOICE)
        return (rl_opt)RL_OPT_CHOICE_(p->name, dest, help, p->choices);
    return (rl_opt){ p->name, p->type == RL_PAR_INT ? RL_OPT_INT : RL_OPT_DOUBLE, dest, help, p->lo, p->hi,
                     p->bounds, 0, 0 };
}

int rl_family_opts(rl_family_args *a, rl_opt *out)
{
    const rl_family_param *all[RL_FAMILY_NAMES_MAX];
    const int n = rl_family_param_names(all);
    int k = 0;
    out[k++] = (rl_opt)RL_OPT_CHOICE_("family", &a->kind, "step family", RL_FAMILY_NAMES);
    out[k++] = (rl_opt)RL_OPT_INT_("d", &a->d, "dimension", 2, 4096);
    for (int i = 0; i < n; i++) {
        const rl_family_param *p = all[i];
        char who[160];
        snprintf(a->help[i], sizeof a->help[i], "%s: %s", readers(p->name, who, sizeof who), p->help);
        out[k++] = rl_family_param_opt(p, p->type == RL_PAR_DOUBLE ? (void *)&a->val[i] : (void *)&a->ival[i],
                                       a->help[i]);
    }
    out[k++] = (rl_opt)RL_OPT_STR_("table", &a->table, "token-so2: angle table file, one row of d/2 angles per token");
    out[k++] = (rl_opt)RL_OPT_STR_("text", &a->text, "token-so2: read tokens as the bytes of this file");
    return k;
}

rl_opt *rl_family_opts_join(rl_family_args *a, const rl_opt *rest, rl_opt *out, int cap)
{
    if (cap < RL_FAMILY_OPTS_MAX + 1)
        return NULL;
    int k = rl_family_opts(a, out);
    for (;; rest++) {
        if (k == cap)
            return NULL;
        out[k++] = *rest;
        if (rest->type == RL_OPT_END)
            return out;
    }
}

rl_status rl_family_takes(const rl_family *f, const char *flag, rl_err *err)
{
    if (rl_family_reads(f, flag))
        return RL_OK;
    char fl[256];
    return rl_fail(err, RL_EINPUT, "--%s does not apply to --family %s (its flags: %s)", flag,
                   rl_family_name(f->kind), rl_family_flags_text(f, fl, sizeof fl));
}

rl_status rl_family_from_args(const rl_family_args *a, const rl_opt *opts, unsigned long seed,
                              unsigned long table_stream, rl_family *out, double **table_out,
                              rl_err *err)
{
    rl_family f = rl_family_of_args(a);
    *table_out = NULL;
    if ((unsigned)a->kind >= RL_FAM_COUNT)
        return rl_fail(err, RL_EINPUT, "unknown step family");
    /* a family flag the chosen family does not read (its object's flags,
     * family_ops.h) is refused, not ignored */
    static const char *const token_flags[] = { "table", "text", "vocab" };
    char who[256];
    for (size_t i = 0; i < 3; i++)
        if ((i == 0 ? a->table != NULL : i == 1 ? a->text != NULL : rl_opt_seen(opts, "vocab")) &&
            !rl_family_reads(&f, token_flags[i]))
            return rl_fail(err, RL_EINPUT, "--table, --text and --vocab apply to --family %s only",
                           readers("table", who, sizeof who));
    static const char *const angle_flags[] = { "angles", "base", "scale" };
    for (size_t i = 0; i < 3; i++)
        /* a table read from a file has no angle law */
        if (rl_opt_seen(opts, angle_flags[i]) && rl_family_reads(&f, angle_flags[i]) && a->table)
            return rl_fail(err, RL_EINPUT, "--%s applies to so2 and to token-so2 without --table only",
                           angle_flags[i]);
    const rl_family_param *all[RL_FAMILY_NAMES_MAX];
    const int n = rl_family_param_names(all);
    for (int i = 0; i < n; i++)
        if (strcmp(all[i]->name, "vocab") && rl_opt_seen(opts, all[i]->name))
            RL_TRY(rl_family_takes(&f, all[i]->name, err));
    if (a->table && rl_opt_seen(opts, "vocab"))
        return rl_fail(err, RL_EINPUT, "--vocab does not apply with --table (its rows are the vocabulary)");
    if (f.kind == RL_FAM_TOKEN_SO2) {
        if (f.d % 2)
            return rl_fail(err, RL_EINPUT, "token-so2 needs an even dimension, got d = %d", f.d);
        if (a->table) {
            double *t;
            RL_TRY(rl_so2_table_load(a->table, f.d, &t, &f.vocab, err));
            if (a->text && f.vocab < 256) {
                free(t);
                return rl_fail(err, RL_EINPUT, "--text reads byte tokens 0..255 but %s has only %d rows",
                               a->table, f.vocab);
            }
            f.table = *table_out = t;
        } else {
            f.vocab = a->text && !rl_opt_seen(opts, "vocab") ? 256 : f.vocab;
            if (a->text && f.vocab < 256)
                return rl_fail(err, RL_EINPUT,
                               "--text reads byte tokens 0..255, so --vocab must be at least 256");
            RL_TRY(rl_family_with_table(&f, seed, table_stream, &f, table_out, err));
        }
    }
    rl_status st = rl_family_check(&f, err);
    if (st != RL_OK) {
        free(*table_out);
        *table_out = NULL;
        return st;
    }
    *out = f;
    return RL_OK;
}

rl_status rl_family_tokens(const rl_family_args *a, const rl_family *f, long n, unsigned long seed,
                           unsigned long stream, int **tok_out, long *len, rl_err *err)
{
    int *tok;
    if (a->text) {
        rl_tokens t;
        RL_TRY(rl_tokens_read(a->text, f->vocab, &t, err));
        tok = rl_xmalloc(sizeof(int) * (size_t)t.n);
        for (long i = 0; i < t.n; i++)
            tok[i] = t.tok[i];
        free(t.tok);
        *len = t.n;
    } else {
        tok = rl_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        rl_tokens_draw(f->vocab, n, seed, stream, tok);
        *len = n;
    }
    *tok_out = tok;
    return RL_OK;
}

int rl_family_flag_seen(const rl_opt *opts)
{
    rl_family_args a = rl_family_args_default();
    rl_opt fam[RL_FAMILY_OPTS_MAX];
    const int n = rl_family_opts(&a, fam);
    for (int i = 0; i < n; i++)
        if (rl_opt_seen(opts, fam[i].name))
            return 1;
    return 0;
}
