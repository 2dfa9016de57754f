/* family_cli.c: building a step family from command-line flags. */
#include "family_cli.h"
#include "family_ops.h"
#include "so2.h"
#include "tokens.h"
#include "../core/tokfile.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/util.h"

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

/* The family's defaults (rl_family_default, written once there) as flags,
 * for so2 at d = 64 with a random table's vocabulary of 256. */
rl_family_args rl_family_args_default(void)
{
    rl_family f = rl_family_default(RL_FAM_SO2, 64);
    rl_family_args a = { .vocab = 256 };
    rl_family_args_sync(&a, &f, 0);
    return a;
}

void rl_family_args_sync(rl_family_args *a, rl_family *f, int to_family)
{
#define SYNC_(fv, av)                                                                                  \
    do {                                                                                               \
        if (to_family)                                                                                 \
            (fv) = (av);                                                                               \
        else                                                                                           \
            (av) = (fv);                                                                               \
    } while (0)
    SYNC_(f->kind, a->kind);
    SYNC_(f->d, a->d);
    SYNC_(f->law, a->law);
    SYNC_(f->base, a->base);
    SYNC_(f->scale, a->scale);
    SYNC_(f->beta, a->beta);
    SYNC_(f->p, a->p);
    SYNC_(f->sigma, a->sigma);
#undef SYNC_
}

rl_family rl_family_of_args(const rl_family_args *a)
{
    rl_family f = rl_family_default((rl_family_kind)a->kind, a->d);
    rl_family_args c = *a;
    rl_family_args_sync(&c, &f, 1);
    return f;
}

rl_status rl_family_takes(const rl_family *f, const char *flag, rl_err *err)
{
    if (rl_family_reads(f, flag))
        return RL_OK;
    const char *fl = rl_family_ops_of(f)->flags;
    return rl_fail(err, RL_EINPUT, "--%s does not apply to --family %s (its flags: %s)", flag,
                   rl_family_name(f->kind), *fl ? fl : "none");
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
    static const char *const own[] = { "angles", "base", "scale", "beta", "p", "sigma" };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (rl_opt_seen(opts, own[i]))
            RL_TRY(rl_family_takes(&f, own[i], err));
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
            f.vocab = a->text && !rl_opt_seen(opts, "vocab") ? 256 : a->vocab;
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
    const rl_opt fam[] = { RL_FAMILY_OPTS_(&a), RL_OPT_END_ };
    for (const rl_opt *o = fam; o->type != RL_OPT_END; o++)
        if (rl_opt_seen(opts, o->name))
            return 1;
    return 0;
}
