/* theory.h: closed forms and bounds of the study (derivations in NOTES.md). */
#ifndef RL_THEORY_H
#define RL_THEORY_H

#include <complex.h>
#include "../sampling/family.h"
#include "../sampling/fam_brownian.h"
#include "../sampling/so2.h"
#include "../base/core/opts.h"

/* The closed forms, bounds, windows and far-mass forms are the library's
 * public ones, each declared once in <routelab/bounds.h> (included here,
 * with the angle laws' characteristic functions rl_angle_charfn and the
 * Brownian mean rl_brownian_mean that sampling/ defines: the families'
 * objects need them, and sampling may not include theory).  This header
 * adds the family-level forms the commands use (docs/library.md#library-abi). */
#include "../api/include/routelab/bounds.h"

/* ||E[M]||_op in closed form, through the family's object (family_ops.h).
 * SO(2) families: the per-block norms |chi_b| go to blocks (d/2 values, may
 * be NULL) and the result is their maximum; token-so2 uses the token
 * probabilities probs (vocab values; NULL: uniform).  Returns 1 with the norm
 * in *norm and a bound on its error in *err (may be NULL), or 0 when the
 * family has no closed form (nothing written): never a NaN to be dropped. */
int rl_family_closed_mean_norm(const rl_family *f, const double *probs, double *blocks, double *norm,
                               double *err);
/* The same as a value, for callers that know the family has a closed form
 * (rl_family_has_mean); NAN when it has none. */
double rl_family_mean_norm(const rl_family *f, const double *probs, double *blocks);

/* log ||E[M]||_op: the family's cancellation-free form where it has one
 * (SO(2) laws per block from rl_angle_log_norm into logblocks, d/2 values,
 * may be NULL; householder, lazy-haar through log1p), else the log of the
 * norms (brownian log |c|, token-so2).  Returns 1, or 0 with no closed form. */
int rl_family_closed_log_mean_norm(const rl_family *f, const double *probs, double *logblocks,
                                   double *lognorm);
double rl_family_log_mean_norm(const rl_family *f, const double *probs, double *logblocks);

/* Whether ||E M|| (as_log 0) or its log (1) can be printed as a result:
 * RL_EINPUT when the family has no closed form, or when its error bound is
 * not below 1e-9 (norm) or 1e-7 (1 - |E M|) (log: the window divides by
 * 1 - |E M|), the reason in err. */
rl_status rl_family_norm_certain(const rl_family *f, int as_log, rl_err *err);

/* The family's ||E M|| (as_log 0) or log ||E M|| (as_log 1, exact for slow
 * blocks): the slowest block, or SO(2) block `block` (-1: the maximum),
 * token-so2 under the token law probs (NULL: uniform); certain to the
 * tolerance of rl_family_norm_certain.  `routelab bound norm` and `window`,
 * and rl_family_norm / rl_family_window (bounds.h) call it: one place
 * (family_window.c).  RL_EINPUT with the reason (no command name);
 * RL_ENOMEM when memory runs out. */
rl_status rl_family_norm_at(const rl_family *f, const double *probs, int block, int as_log, double *v,
                            rl_err *err);

/* routelab's closed form of the mean transport of random-hh
 * (model/scheme_random_hh.c, docs/model/path-transport.md#random-hh): log ||E P||_op of the product
 * P = M_n ... M_1 of n i.i.d. reflections M_t = I - 2 w_t w_t^T, w_t
 * uniform on S^(hd-1), hd >= 2 (NAN otherwise, or for n < 0).  Derivation
 * in hh_mean.c: E P = (1 - 2/hd)^n I, so log ||E P|| = n log(1 - 2/hd), a
 * spectral gap 2/hd per step (-inf at hd = 2, n > 0: E P = 0). */
double rl_random_hh_log_mean_norm(int hd, long n);

/* The random stream of a token-so2 family's table when a norm or window
 * draws it (`routelab bound`, rl_family_norm / rl_family_window). */
#define RL_BOUND_TABLE_SEED 1UL
#define RL_BOUND_TABLE_STREAM 0UL

/* The flags of the family windows, shared by `routelab bound` and the
 * library's rl_family_window / rl_family_norm: one range each. */
#define RL_OPT_BLOCK_(p) RL_OPT_INT_("block", p, "norm, window: one SO(2) block b (-1: the maximum)", -1, 2048)
#define RL_OPT_EPS_(p) RL_OPT_DBL_("eps", p, "tolerance of the mixing window", 0, 1, RL_LO_OPEN | RL_HI_OPEN)

#endif
