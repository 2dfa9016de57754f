/* family_cli.h: the flags that name a step family, shared by every command
 * that samples steps (sample, mixing, concentration, ...). */
#ifndef RL_FAMILY_CLI_H
#define RL_FAMILY_CLI_H

#include "../base/core/err.h"
#include "../base/core/opts.h"
#include "family.h"
#include "family_ops.h"

/* The flags' values: the family, d, the file flags, and every parameter of
 * the registry by name (rl_family_param_names order), a double or an int
 * (int and choice parameters). */
typedef struct {
    int kind, d;
    double val[RL_FAMILY_NAMES_MAX];
    int ival[RL_FAMILY_NAMES_MAX];
    const char *table;  /* token-so2 angle table file */
    const char *text;   /* token-so2: token sequence = the bytes of this file */
    char help[RL_FAMILY_NAMES_MAX][200]; /* each parameter's help: "FAMILIES: its help" */
} rl_family_args;

/* Defaults: so2, d = 64, and each parameter's default from its table. */
rl_family_args rl_family_args_default(void);

/* Parameter p as an option entry storing into dest (a double, or an int
 * for int and choice parameters): its flag's one parser and range. */
rl_opt rl_family_param_opt(const rl_family_param *p, void *dest, const char *help);

/* The most option entries rl_family_opts writes. */
#define RL_FAMILY_OPTS_MAX (4 + RL_FAMILY_NAMES_MAX)

/* The family's flags as option entries, generated from the registry's
 * parameter tables, into out (at most RL_FAMILY_OPTS_MAX; pointing into a,
 * which must outlive them): --family, --d, one entry per parameter name
 * (range and help from its table, "FAMILIES: help"), --table, --text.
 * Returns how many. */
int rl_family_opts(rl_family_args *a, rl_opt *out);

/* out = the family's entries, then those of rest up to its RL_OPT_END_
 * (copied, END included); cap: out's length.  Returns out (a command's
 * table), or NULL when cap is too short (a command's own mistake: size out
 * RL_FAMILY_OPTS_MAX + the entries of rest). */
rl_opt *rl_family_opts_join(rl_family_args *a, const rl_opt *rest, rl_opt *out, int cap);

/* The family of the flags' parameters (family, d, and each parameter its
 * family's table lists; no table, no checks): the one mapping from flags to
 * an rl_family, shared by rl_family_from_args and the library's
 * rl_family_named / rl_family_set (family_set.c). */
rl_family rl_family_of_args(const rl_family_args *a);
/* Its inverse: f's kind, d and parameters as flags' values. */
rl_family_args rl_family_args_of(const rl_family *f);

/* RL_OK when f reads the family flag `flag`, else RL_EINPUT "--FLAG does
 * not apply to --family NAME (its flags: ...)". */
rl_status rl_family_takes(const rl_family *f, const char *flag, rl_err *err);

/* Whether any flag of rl_family_opts was given (opts: the parsed table),
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
