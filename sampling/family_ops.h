/* family_ops.h: a step family as one object in one registry.
 *
 * Each family is a `const rl_family_ops rl_family_<id>` in its own file
 * (sampling/fam_*.c) and one line of RL_FAMILY_LIST (family.h); an
 * rl_family value (kind + parameters) finds its object through
 * rl_family_ops_of.  The object says what the family is (flags it reads,
 * checks, properties), how to draw a step into a workspace (the shared
 * apply/matrix kernels of steps.c act on the step's form), what it knows in
 * closed form -- each of those a function, or NULL for *no closed form*
 * (never a NaN) -- and the cases it contributes to the experiments' sweeps,
 * each with its own random stream. */
#ifndef RL_FAMILY_OPS_H
#define RL_FAMILY_OPS_H

#include <complex.h>
#include <gsl/gsl_rng.h>

#include "family.h"
#include "../core/err.h"

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

/* The sweeps that ask the registry for cases (new sweeps go last: a fresh
 * stream depends on the sweep's index). */
typedef enum {
    RL_SWEEP_MIXING,
    RL_SWEEP_CONCENTRATION,
    RL_SWEEP_FARMASS,
    RL_SWEEP_VALUES,
    RL_SWEEP_SCOREGAP,
    RL_SWEEP_COUNT
} rl_sweep;

/* One named case of a sweep: a family with set parameters and its stream. */
typedef struct {
    const char *label;    /* "path-beta1", "so2-circle", ... */
    rl_family f;
    int slot;             /* its position in the sweep (today's cases: 0, 1, ...) */
    unsigned long stream; /* its random-stream domain, the same in any subset: derived from
                           * the sweep and the slot by rl_family_cases (rl_family_case_stream);
                           * a family's `cases` leaves it 0 */
    long n;               /* a set length: concentration's route length, scoregap's first far
                           * distance delta0 (0: from the family's mixing window) */
    int in_default;       /* whether the sweep runs it when no subset is named */
    int small;            /* values: O(d^3) per step, run at the experiment's small size */
} rl_family_case;

/* The most cases one family gives one sweep, and a whole sweep. */
#define RL_FAMILY_CASES_MAX 8
#define RL_SWEEP_CASES_MAX 16

/* The fresh stream domain of case j of a family that has no stream of its
 * own from before the registry: derived from its registry index, so no two
 * families (nor sweeps) share one.  Slots of such cases: RL_FAMILY_FRESH_SLOT. */
unsigned long rl_family_fresh_stream(rl_family_kind k, rl_sweep s, int j);
#define RL_FAMILY_FRESH_SLOT(kind, j) (64 + 4 * (int)(kind) + (j))

/* The stream domain of a case of family k at this slot of sweep s: a slot
 * below 64 (a case from before the registry) has its experiment's domain
 * plus the slot (streams.h: RL_STREAM_MIX_FAMILY + k, ...), the numbers the
 * experiments always used; a fresh slot RL_FAMILY_FRESH_SLOT(k, j) has
 * rl_family_fresh_stream(k, s, j). */
unsigned long rl_family_case_stream(rl_sweep s, rl_family_kind k, int slot);

struct rl_family_ops {
    const char *desc;  /* one line for help texts */
    const char *flags; /* space-separated family flags it reads ("sigma"), "" for none */
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
    /* its cases of sweep s at dimension d into out (at most
     * RL_FAMILY_CASES_MAX); NULL: none */
    int (*cases)(int d, rl_sweep s, rl_family_case *out);
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

/* Whether the family reads --flag (its ops' flags). */
int rl_family_reads(const rl_family *f, const char *flag);

/* Values of f's closed-form mean: d/2 blocks for SO2 forms, else 1. */
int rl_family_mean_blocks(const rl_family *f);
/* Whether the family has a closed-form mean / second-moment rate at f's
 * parameters. */
int rl_family_has_mean(const rl_family *f);

/* The cases of sweep s at dimension d, ordered by slot: those of the
 * families named in `families` (comma-separated registry names, every case
 * of each, in or out of the default), or the default cases when families
 * is NULL or "".  RL_EINPUT naming an unknown family or one without cases
 * in this sweep. */
rl_status rl_family_cases(rl_sweep s, int d, const char *families, rl_family_case *out, int max,
                          int *n, rl_err *err);

#endif
