/* family.h: the step families M_t of a route P(j->i) = M_i ... M_{j+1}. */
#ifndef RL_FAMILY_H
#define RL_FAMILY_H

#include <stddef.h>

#include "../base/core/err.h"
#include "../api/include/routelab/family.h"

/* The registry: one line per step family, in registry order (the order of
 * rl_family_kind, of --family's choices and of every sweep's fresh streams).
 * X(ENUM, id, "name"): the family's object is `const rl_family_ops
 * rl_family_<id>` (sampling/family_ops.h), defined in its own file.  Adding a
 * family is that file plus one line here. */
#define RL_FAMILY_LIST(X)                                                                         \
    X(HAAR, haar, "haar")                      /* Haar on O(d) */                                 \
    X(HAAR_SO, haar_so, "haar-so")             /* Haar on SO(d) */                                \
    X(SO2, so2, "so2")                         /* block-diagonal SO(2), angle law per block */    \
    X(TOKEN_SO2, token_so2, "token-so2")       /* block-diagonal SO(2), angle = table[token][b] */ \
    X(HOUSEHOLDER, householder, "householder") /* I - 2 w w^T, w uniform on the sphere */         \
    X(PATH, path, "path")                      /* I - beta w w^T; orthogonal only at beta = 2 */  \
    X(LAZY_HAAR, lazy_haar, "lazy-haar")       /* identity w.p. 1-p, else Haar on O(d) */         \
    X(BROWNIAN, brownian, "brownian")          /* exp(sigma A), A Gaussian skew-symmetric */      \
    X(CAYLEY, cayley, "cayley")                /* (I - sigma A)^-1 (I + sigma A) */               \
    X(IDENTITY, identity, "identity")          /* M = I: no transport (NoPE) */

typedef enum {
#define RL_FAM_ENUM_(E, id, name) RL_FAM_##E,
    RL_FAMILY_LIST(RL_FAM_ENUM_)
#undef RL_FAM_ENUM_
    RL_FAM_COUNT
} rl_family_kind;

/* The names used everywhere in the program, in registry order,
 * '|'-separated (--family's choices), built from the list above. */
#define RL_FAM_NAME_BAR_(E, id, name) "|" name
#define RL_FAMILY_NAMES (RL_FAMILY_LIST(RL_FAM_NAME_BAR_) + 1)

/* rl_angle_law, RL_ANGLE_NAMES and the rl_family typedef are the public
 * header's (installed as <routelab/family.h>), declared there once. */
typedef struct rl_family_ops rl_family_ops;

struct rl_family {
    rl_family_kind kind; /* the family's index in the registry */
    int d;               /* dimension of the transported vectors */
    rl_angle_law law;    /* so2; token-so2 when its table is drawn at random */
    double base, scale;  /* omega_b = scale * base^(-2b/d), b = 0..d/2-1 */
    double beta;         /* path: beta in (0, 2] */
    double p;            /* lazy-haar: probability of a Haar step */
    double sigma;        /* brownian, cayley: step size, at most RL_BROWNIAN_SIGMA_MAX */
    int vocab;           /* token-so2: number of token ids */
    double own[4];       /* a family's own further parameters (its table's offsets) */
    const double *table; /* token-so2: vocab x (d/2) angles, not owned */
    const rl_family_ops *ops; /* NULL: the registry's object of kind (a test may pass its own) */
};

/* A family of kind with its table's defaults (sampling/fam_*.c) for
 * dimension d. */
rl_family rl_family_default(rl_family_kind kind, int d);

/* The largest Brownian step size: the step's angles sigma x (x an eigenvalue
 * of the Gaussian generator, |x| of order sqrt d) are taken mod 2 pi with an
 * error of about 1e-16 sigma |x|; at 1e6 that stays below 1e-7 rad for any
 * d this program forms, and far below it the step is Haar-like already.
 * Beyond it the angles have no correct digits, and from ~1e154 sigma^2
 * overflows (the mean and the draws came out NaN). */
#define RL_BROWNIAN_SIGMA_MAX 1e6

/* RL_OK if f is well formed; otherwise RL_EINPUT with the reason in err. */
rl_status rl_family_check(const rl_family *f, rl_err *err);

/* Name of a kind / angle law. */
const char *rl_family_name(rl_family_kind k);
const char *rl_angle_name(rl_angle_law a);

/* Whether the family's steps are orthogonal matrices (path with beta < 2 is not). */
int rl_family_orthogonal(const rl_family *f);
/* Whether it is block-diagonal SO(2) (so2, token-so2). */
int rl_family_is_so2(const rl_family *f);

#endif
