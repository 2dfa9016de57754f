/* opts.h: a declarative flag parser.  Each command lists its flags in a table;
 * the table gives parsing, range checks and the text of `CMD --help`. */
#ifndef RL_OPTS_H
#define RL_OPTS_H

#include <stddef.h>

#include "err.h"

typedef enum {
    RL_OPT_END = 0,
    RL_OPT_INT,    /* int *           */
    RL_OPT_LONG,   /* long *          */
    RL_OPT_DOUBLE, /* double *        */
    RL_OPT_STRING, /* const char **   */
    RL_OPT_CHOICE, /* int *: index into the '|'-separated choices */
    RL_OPT_FLAG    /* int *: set to 1, takes no value */
} rl_opt_type;

/* Bound kinds for numbers: closed or open at each end, or none. */
enum { RL_LO = 1, RL_LO_OPEN = 2, RL_HI = 4, RL_HI_OPEN = 8 };

typedef struct {
    const char *name; /* without the leading "--" */
    rl_opt_type type;
    void *dest;       /* holds the default on entry */
    const char *help;
    double lo, hi;
    unsigned bounds;
    const char *choices;
    int seen;         /* set by the parser when the flag was given */
} rl_opt;

#define RL_OPT_INT_(n, p, h, l, u) { n, RL_OPT_INT, p, h, l, u, RL_LO | RL_HI, 0, 0 }
#define RL_OPT_LONG_(n, p, h, l, u) { n, RL_OPT_LONG, p, h, l, u, RL_LO | RL_HI, 0, 0 }
#define RL_OPT_DBL_(n, p, h, l, u, b) { n, RL_OPT_DOUBLE, p, h, l, u, b, 0, 0 }
#define RL_OPT_STR_(n, p, h) { n, RL_OPT_STRING, p, h, 0, 0, 0, 0, 0 }
#define RL_OPT_CHOICE_(n, p, h, c) { n, RL_OPT_CHOICE, p, h, 0, 0, 0, c, 0 }
#define RL_OPT_FLAG_(n, p, h) { n, RL_OPT_FLAG, p, h, 0, 0, 0, 0, 0 }
#define RL_OPT_END_ { 0, RL_OPT_END, 0, 0, 0, 0, 0, 0, 0 }
/* The flags every random command takes. */
#define RL_OPT_SEED_(p) RL_OPT_LONG_("seed", p, "random seed (same seed, same output)", 0, 9.2e18)
#define RL_OPT_THREADS_(p) RL_OPT_INT_(RL_OPT_THREADS_NAME, p, "worker threads (results do not depend on it)", 1, 1024)
/* --threads is a node's own (its default is the node's cores, and no result
 * depends on it): the one flag that ranks of a job may give differently. */
#define RL_OPT_THREADS_NAME "threads"

/* Parse argv[1..argc-1] (argv[0] is the command name).  Positional arguments
 * go to pos (at most maxpos of them; more is an error).  `--help` prints the
 * help built from synopsis, description and the table, then exits 0.  Any bad
 * flag or value dies with status 2.  Returns the number of positionals.
 *
 * Under MPI (base/core/job.h, base/par/par.h) this is also the job's first meeting: every rank
 * compares its parse (rl_opts_describe) with rank 0's before any other
 * exchange, and a rank started with other flags stops the job with one line
 * naming the first flag that differs and the rank (exit 2).  A rank whose
 * own flags are bad dies before the meeting, which stops the others. */
int rl_opts_parse(const char *cmd, const char *synopsis, const char *description,
                  rl_opt *opts, int argc, char **argv, char **pos, int maxpos);

/* The same parse as a library function that never exits (for the fuzzer and
 * any caller that handles its own errors): RL_OK with the positionals'
 * count in *npos, or RL_EINPUT with rl_opts_parse's one line in err
 * ("CMD: --x expects an integer, got 'y'").  `--help` / `-h` stops the
 * parse with *help = 1 (the caller prints the help); flags before it have
 * been applied, those after it are not looked at. */
rl_status rl_opts_parse_status(const char *cmd, rl_opt *opts, int argc, char **argv, char **pos,
                               int maxpos, int *npos, int *help, rl_err *err);

/* One value v for entry o, parsed and range-checked as on the command line
 * (the parser's own step): RL_OK with it stored in o->dest, or RL_EINPUT
 * "CMD: --NAME expects ..., got 'v'" / "... is out of range R".  A string
 * is stored as the pointer v itself.  The library's setters (rl_family_set)
 * take their values through it, so a parameter has one parser and one range. */
rl_status rl_opt_set_value(const char *cmd, rl_opt *o, const char *v, rl_err *err);

/* The value of o as the text its flag takes ("16", "0.1", "rope", the
 * choice's name), malloc'ed; NULL when it has none to give (an unset
 * string, a choice left at -1, a flag). */
char *rl_opt_value_text(const rl_opt *o);

/* The parse of command cmd as canonical text, malloc'ed: "command CMD",
 * then "--NAME VALUE" for every entry of opts ("--NAME on" / "off" for a
 * flag, "(none)" for no value; --threads left out, see above), then
 * "argument I VALUE" for each of the npos positionals and "--help" when it
 * was asked for.  Two parses that do the same work give the same text. */
char *rl_opts_describe(const char *cmd, const rl_opt *opts, char **pos, int npos, int help);

/* Whether the flag `name` was given on the command line. */
int rl_opt_seen(const rl_opt *opts, const char *name);

/* Whether v lies in o's range (the parser's own test: stored values, e.g. a
 * checkpoint's, are checked against the flag's range with it). */
int rl_opt_in_range(const rl_opt *o, double v);
/* o's range as "[lo, hi)" etc. in buf, or "" when it has none. */
const char *rl_opt_range_text(const rl_opt *o, char *buf, size_t len);
/* A stored value (not typed on a command line: a checkpoint's field, a
 * shape handed to the model) against o's range: RL_EINPUT "NAME V is outside
 * the range R of --NAME" when it lies outside. */
rl_status rl_opt_check_value(const rl_opt *o, double v, rl_err *err);

/* Index of s among the '|'-separated choices, or -1. */
int rl_choice_index(const char *choices, const char *s);
/* The i-th of the '|'-separated choices, copied into buf. */
const char *rl_choice_name(const char *choices, int i, char *buf, int len);

#endif
