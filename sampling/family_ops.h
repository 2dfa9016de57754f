/* family_ops.h: a step family as one object in one registry.
 *
 * Each family is a `const rl_family_ops rl_family_<id>` in its own file
 * (sampling/fam_*.c) and one line of RL_FAMILY_LIST (family.h); an
 * rl_family value (kind + parameters) finds its object through
 * rl_family_ops_of.  The object says what the family is (flags it reads,
 * checks, properties), how to draw a step into a workspace (the shared
 * apply/matrix kernels of steps.c act on the step's form), what it knows in
 * closed form -- each of those a function, or NULL for *no closed form*
 * (never a NaN) -- and its parameters as a table (rl_family_param).  Which
 * cases the experiments sweep is theirs to say (mc/sweep_cases.c). */
#ifndef RL_FAMILY_OPS_H
#define RL_FAMILY_OPS_H

#include <complex.h>
#include <gsl/gsl_rng.h>

#include "family.h"
#include "../base/core/err.h"
#include "../base/core/opts.h"

/* How a drawn step is held; it picks the shared kernels of steps.c. */
typedef enum {
    RL_STEP_SO2,     /* d/2 angles phi: the block-diagonal rotation of so2.h */
    RL_STEP_REFLECT, /* I - beta w w^T, w a unit vector */
    RL_STEP_DENSE    /* a d x d row-major matrix, or the identity */
} rl_step_form;

/* One drawn step, the fields of its form (owned by the stepper). */
typedef struct {
    double *phi;  /* SO2: d/2 angles */
    double *w;    /* REFLECT: d */
    double beta;  /* REFLECT */
    double *M;    /* DENSE: d x d */
    int identity; /* DENSE: the step is I (M is not read) */
} rl_step;

/* The sign of det M over the family's law. */
typedef enum {
    RL_DET_ZERO = 0,   /* det M = 0 (path, beta = 1) */
    RL_DET_PLUS = 1,   /* det M > 0 for every step */
    RL_DET_MINUS = -1, /* det M < 0 for every step */
    RL_DET_MIXED = 2   /* both signs occur */
} rl_det_sign;

/* One parameter of a family, as data: from its family's table come the
 * command line's flag (--NAME, its range and help), the library's setter
 * (rl_family_set's key), the default (rl_family_default) and the generated
 * docs (`routelab sample --list`, docs/families.md).  Two families may share
 * a name (brownian and cayley read sigma): then they share type, range and
 * default (tests/test_families.c checks it), so the flag has one meaning. */
typedef enum {
    RL_PAR_DOUBLE, /* a double field */
    RL_PAR_INT,    /* an int field */
    RL_PAR_CHOICE  /* an int field: the index among choices ("a|b|c") */
} rl_par_type;

typedef struct {
    const char *name;    /* --NAME and rl_family_set's key */
    rl_par_type type;
    size_t offset;       /* offsetof(rl_family, the field it sets) */
    double def;          /* its default (a choice: the index) */
    double lo, hi;       /* its range, with bounds as in base/core/opts.h (RL_LO, RL_HI_OPEN, ...) */
    unsigned bounds;
    const char *choices; /* RL_PAR_CHOICE only */
    const char *help;    /* one line, without the family's name */
} rl_family_param;

/* The most parameters one family has, and the registry has in all (by name). */
#define RL_FAMILY_PARAMS_MAX 8
#define RL_FAMILY_NAMES_MAX 16

struct rl_family_ops {
    const char *desc;  /* one line for help texts */
    /* its parameters (at most RL_FAMILY_PARAMS_MAX), as data */
    const rl_family_param *params;
    int nparams;
    const char *files; /* space-separated file flags of the command line it reads ("table text"), NULL: none */
    int fixed;         /* every step is the identity (no randomness: one replicate says all) */
    rl_step_form form;
    /* validation beyond d >= 2 (NULL: none); RL_EINPUT with the reason */
    rl_status (*check)(const rl_family *f, rl_err *err);
    /* properties: orthogonal steps (NULL: always), the determinant's sign */
    int (*orthogonal)(const rl_family *f);
    rl_det_sign (*det_sign)(const rl_family *f);
    /* workspace (NULL: none) and one draw into step; a failure returns its
     * status with the reason in err (the stepper records it).  ws_alloc
     * returns NULL only when memory runs out (rl_stepper_alloc then returns
     * NULL); ws_free takes NULL too. */
    void *(*ws_alloc)(const rl_family *f);
    void (*ws_free)(void *ws);
    rl_status (*draw)(const rl_family *f, void *ws, gsl_rng *r, int token, rl_step *step, rl_err *err);
    /* Closed forms, NULL where there is none.
     * mean: E[M] = c I (one value) or, SO2 form, E[R(theta_b)] = chi_b on
     *   block b (d/2 values) into chi; *err (may be NULL) bounds its error;
     *   probs: token-so2's token law (NULL: uniform).  Returns 0 when there
     *   is no closed form at these parameters.
     * log_mean: log ||E M|| without cancellation (logblocks: d/2 values for
     *   SO2, may be NULL); NULL: the log of |mean|.
     * moment2: the rate ||T on F^perp|| (theory/moment2.h) and for SO2 forms
     *   the per-block diag / rate (may be NULL); 0 when none here. */
    int (*mean)(const rl_family *f, const double *probs, double complex *chi, double *err);
    double (*log_mean)(const rl_family *f, const double *probs, double *logblocks);
    int (*moment2)(const rl_family *f, const double *probs, double *rate, double *block_diag,
                   double *block_rate);
    /* the cost of one route of n steps applied to m vectors (arbitrary
     * units: the concentration sweep's budget) */
    double (*route_cost)(const rl_family *f, double n, int m);
};

/* The registry's objects. */
#define RL_FAM_OPS_DECL_(E, id, name) extern const rl_family_ops rl_family_##id;
RL_FAMILY_LIST(RL_FAM_OPS_DECL_)
#undef RL_FAM_OPS_DECL_

/* The object of f: f->ops when set, else the registry's for f->kind (NULL
 * for a kind outside the registry). */
const rl_family_ops *rl_family_ops_of(const rl_family *f);
/* The registry's object of kind k (NULL outside it). */
const rl_family_ops *rl_family_registry(rl_family_kind k);
/* The kind named `name` (-1: none). */
int rl_family_lookup(const char *name);

/* The table of an ops object as a designated initializer's fields. */
#define RL_FAMILY_PARAMS(table) .params = (table), .nparams = (int)(sizeof(table) / sizeof *(table))

/* Whether the family reads --flag (a parameter of its table or one of its
 * file flags). */
int rl_family_reads(const rl_family *f, const char *flag);

/* The flags f's family reads, space-separated (its parameters, then its
 * file flags), in buf; "none" when it reads none. */
const char *rl_family_flags_text(const rl_family *f, char *buf, size_t n);

/* The parameter `name` of f's family (NULL: it has none of that name). */
const rl_family_param *rl_family_param_of(const rl_family *f, const char *name);
/* A parameter's value in f as a double (a choice: its index), and setting it. */
double rl_family_param_get(const rl_family *f, const rl_family_param *p);
void rl_family_param_put(rl_family *f, const rl_family_param *p, double v);
/* The registry's parameters by name, each once, in registry order (the
 * first family declaring a name gives its entry) into out; returns how
 * many (at most RL_FAMILY_NAMES_MAX: tests/test_families.c checks the
 * registry fits). */
int rl_family_param_names(const rl_family_param **out);
/* RL_DET_PLUS whatever f: the det_sign of the families whose steps are
 * rotations (so2, haar-so, brownian, cayley, identity). */
rl_det_sign rl_family_det_plus(const rl_family *f);
/* Whether every step of f is the identity (the identity family: NoPE). */
int rl_family_fixed(const rl_family *f);

/* Values of f's closed-form mean: d/2 blocks for SO2 forms, else 1. */
int rl_family_mean_blocks(const rl_family *f);
/* Whether the family has a closed-form mean / second-moment rate at f's
 * parameters. */
int rl_family_has_mean(const rl_family *f);

#endif
