/* family_cli.h: the flags that name a step family, shared by every command
 * that samples steps (sample, mixing, concentration, ...). */
#ifndef RL_FAMILY_CLI_H
#define RL_FAMILY_CLI_H

#include "../core/err.h"
#include "../core/opts.h"
#include "family.h"

typedef struct {
    int kind, d, law;
    double base, scale, beta, p, sigma;
    int vocab;
    const char *table;  /* token-so2 angle table file */
    const char *text;   /* token-so2: token sequence = the bytes of this file */
} rl_family_args;

/* Defaults: so2, d = 64, uniform angles, base 10000, scale 1, beta 1, p 0.5,
 * sigma 0.1, vocab 256. */
rl_family_args rl_family_args_default(void);

#define RL_FAMILY_OPTS_(a)                                                                        \
    RL_OPT_CHOICE_("family", &(a)->kind, "step family", RL_FAMILY_NAMES),                         \
    RL_OPT_INT_("d", &(a)->d, "dimension", 2, 4096),                                              \
    RL_OPT_CHOICE_("angles", &(a)->law, "so2 angle law (and law of a random token-so2 table)",   \
                   RL_ANGLE_NAMES),                                                               \
    RL_OPT_DBL_("base", &(a)->base, "so2 base: omega_b = scale*base^(-2b/d)", 1, 0, RL_LO_OPEN),  \
    RL_OPT_DBL_("scale", &(a)->scale, "so2 frequency scale (s of the gauss law)", 0, 0, RL_LO_OPEN), \
    RL_OPT_DBL_("beta", &(a)->beta, "path: step I - beta w w^T", 0, 2, RL_LO_OPEN | RL_HI),      \
    RL_OPT_DBL_("p", &(a)->p, "lazy-haar: probability of a Haar step", 0, 1, RL_LO | RL_HI),      \
    RL_OPT_DBL_("sigma", &(a)->sigma, "brownian, cayley: step size", 0, 0, RL_LO),                \
    RL_OPT_INT_("vocab", &(a)->vocab, "token-so2: vocabulary of a random table", 1, 1 << 24),     \
    RL_OPT_STR_("table", &(a)->table, "token-so2: angle table file, one row of d/2 angles per token"), \
    RL_OPT_STR_("text", &(a)->text, "token-so2: read tokens as the bytes of this file")

/* The family of the flags' parameters (family, d, angles, base, scale,
 * beta, p, sigma; no table, no checks): the one mapping from flags to an
 * rl_family, shared by rl_family_from_args and the library's
 * rl_family_named / rl_family_set (family_set.c). */
rl_family rl_family_of_args(const rl_family_args *a);
/* The one correspondence of those flags and the family's fields, copied
 * from a to f (to_family 1) or from f to a (0). */
void rl_family_args_sync(rl_family_args *a, rl_family *f, int to_family);

/* RL_OK when f reads the family flag `flag`, else RL_EINPUT "--FLAG does
 * not apply to --family NAME (its flags: ...)". */
rl_status rl_family_takes(const rl_family *f, const char *flag, rl_err *err);

/* Whether any flag of RL_FAMILY_OPTS_ was given (opts: the parsed table),
 * read off the family's own option table. */
int rl_family_flag_seen(const rl_opt *opts);

/* Build the family *f from parsed flags: checks it, loads or draws the token
 * table (stream `table_stream` of seed; vocab 256 when --text is given and no
 * table).  The table is malloc'ed into *table_out (NULL when not token-so2);
 * free it after use.  RL_EINPUT with the reason (no command name: the
 * caller puts its own in front) on a bad flag or table file. */
rl_status rl_family_from_args(const rl_family_args *a, const rl_opt *opts, unsigned long seed,
                              unsigned long table_stream, rl_family *f, double **table_out,
                              rl_err *err);

/* The token sequence for token-so2 into *tok (malloc'ed, *len ids): the bytes
 * of --text, or n ids drawn uniformly from the vocabulary (stream `stream` of
 * seed).  RL_EINPUT when --text is empty, unreadable or outside the
 * vocabulary. */
rl_status rl_family_tokens(const rl_family_args *a, const rl_family *f, long n, unsigned long seed,
                           unsigned long stream, int **tok, long *len, rl_err *err);

#endif
