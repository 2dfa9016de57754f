/* theory.c: the family-level closed forms (theory.h): ||E M|| and its log
 * through the family's object.  The closed forms of single formulas are in
 * their own files (windows.c, tails_forms.c, beta_tail.c, farmass_forms.c,
 * values_forms.c, sphere_mgf.c, so2_mgf.c; docs/library.md#library-splits).  Each formula is
 * derived in NOTES.md. */
#include "theory.h"

#include <math.h>

#include "../sampling/family_ops.h"

/* ||E M|| and log ||E M|| through the family's object (family_ops.h): the
 * norm of c I is |c|, of a block-diagonal mean the largest |chi_b|. */
int rl_family_closed_mean_norm(const rl_family *f, const double *probs, double *blocks, double *norm,
                               double *err_bound)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    const int nb = rl_family_mean_blocks(f);
    double complex chi[nb];
    double e = 0, best = 0;
    if (!o || !o->mean || !o->mean(f, probs, chi, &e))
        return 0;
    for (int b = 0; b < nb; b++) {
        double m = cabs(chi[b]);
        if (blocks && rl_family_is_so2(f))
            blocks[b] = m;
        if (m > best)
            best = m;
    }
    *norm = best;
    if (err_bound)
        *err_bound = e;
    return 1;
}

double rl_family_mean_norm(const rl_family *f, const double *probs, double *blocks)
{
    double v;
    return rl_family_closed_mean_norm(f, probs, blocks, &v, NULL) ? v : NAN;
}

int rl_family_closed_log_mean_norm(const rl_family *f, const double *probs, double *logblocks, double *lognorm)
{
    const rl_family_ops *o = rl_family_ops_of(f);
    if (!o || !o->mean || !rl_family_has_mean(f))
        return 0;
    if (o->log_mean) {
        *lognorm = o->log_mean(f, probs, logblocks);
        return 1;
    }
    /* no cancellation-free form: the log of the norms as they are */
    const int h = f->d / 2, so2 = rl_family_is_so2(f);
    double nb[so2 ? h : 1], top;
    if (!rl_family_closed_mean_norm(f, probs, nb, &top, NULL))
        return 0;
    if (logblocks && so2)
        for (int b = 0; b < h; b++)
            logblocks[b] = log(nb[b]);
    *lognorm = log(top);
    return 1;
}

double rl_family_log_mean_norm(const rl_family *f, const double *probs, double *logblocks)
{
    double v;
    return rl_family_closed_log_mean_norm(f, probs, logblocks, &v) ? v : NAN;
}

rl_status rl_family_norm_certain(const rl_family *f, int as_log, rl_err *err)
{
    double c, e;
    if (!rl_family_closed_mean_norm(f, NULL, NULL, &c, &e))
        return rl_fail(err, RL_EINPUT, "--family %s has no closed form for ||E M|| (at d = %d)",
                       rl_family_name(f->kind), f->d);
    /* W divides by 1 - |c|: the log needs e small against it */
    if (e > (as_log ? 1e-7 * (1 - c) : 1e-9))
        return rl_fail(err, RL_EINPUT, "the %s mean at d = %d, sigma = %g is not certain to %s (rounding "
                       "estimate %g)", rl_family_name(f->kind), f->d, f->sigma, as_log ? "1e-7 (1 - |E M|)" : "1e-9", e);
    return RL_OK;
}
