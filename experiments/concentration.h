/* concentration.h: the decision pieces of claim 2's report (concentration.c),
 * small enough for a test to feed constructed counterexamples, and the
 * summary of its SO(2) configurations (part (c)) that they decide on. */
#ifndef RL_CONCENTRATION_H
#define RL_CONCENTRATION_H

#include <stddef.h>

#include "../mc/scoretails.h"
#include "../program/report/report.h"
#include "../sampling/family.h"

#define RL_CONC_MAXD 8 /* dimensions in a preset */

/* The hypothesis of the concentration claim for the family f at route
 * length n: rl_moment2_unmet with the closed-form second-moment rate of f
 * (theory/moment2.h).  NULL when met, otherwise the phrase (in buf).  *rate
 * (may be NULL) gets the rate (NAN: no closed form). */
const char *rl_conc_unmet(const rl_family *f, long n, double *rate, char *buf, size_t len);

/* One dimension's reading of a check: x is the rule's statistic there
 * (larger is worse: max |z| against an exact law, or the largest excess over
 * a bound in SE), t where it was reached (NAN: not a tail), tested the
 * points tested; unmet[0] != 0: the hypothesis fails at d (its phrase). */
typedef struct {
    int d;
    double x, t;
    int tested;
    char unmet[256];
} rl_conc_dstat;

/* A check whose truth needs the far routes near Haar: decided by rule over
 * the dimensions where the hypothesis is met (the worst x there), and, when
 * it fails at some d, a second row over those d labelled hypothesis not met
 * (the first d's phrase, the others named).  No row for an empty side. */
void rl_conc_decide(rl_report *rep, const rl_rule *rule, const rl_conc_dstat *s, int nd, const char *what,
                    const char *predicted);

/* The scale check of an SO(2) block score s = q^T P q: under the hypothesis
 * E[s^2] <= level + rate^n (moment2.h; level = q^T Pi_F(q q^T) q =
 * sum_b |q_b|^4 / 2), so the excess of the measured mean square ms (SE se)
 * over it, in SE: the statistic of rl_rule_bound. */
double rl_conc_scale_excess(double ms, double se, double level, double rate, long n);

/* max over 200 t in (0, min(1, 7.5/sqrt d)] of the exact Beta tail minus the
 * cap bound 2 exp(-a d t^2) (Ball's bound is a = 1/2); *tw the t reached. */
double rl_conc_beta_over_cap(int d, double a, double *tw);

/* One SO(2) configuration (law, q = k configuration) at one d, part (c):
 * its moments against the exact ones, its tails against Hoeffding. */
typedef struct {
    int law; /* 0 circle, 1 study */
    int cfg;
    int d;
    long n, reps;
    double sum_a2, mean, mean_se, mean_pred, var, var_se, var_pred, ms, ms_se, ms_pred;
    double t05, tail05, tail05_se, hcen_over;
    double q95, hoeff_q95; /* measured 95% quantile of |s - Es|, Hoeffding's bound there */
    double rate;           /* the family's second-moment rate (moment2.h) */
    char unmet[256];       /* its hypothesis at (d, n); "" when met */
    /* derived for the files and the table (rl_conc_so2_derive): sqrt(d E s^2)
     * with its SE and prediction, d E s^2 with its SE and bound
     * d (sum_a2/2 + rate^n), sum_a2 / Var s, q95 / t05, Hoeffding at q95 / 0.05 */
    double rms_sqrtd, rms_sqrtd_se, rms_sqrtd_pred, d_ms, d_ms_se, d_ms_bound;
    double a2_over_var, q95_over_t05, hoeff_q95_over_delta;
} rl_conc_so2_row;

/* One (law, configuration) over its d's: the worst |z| of the mean and the
 * variance, the worst excess over Hoeffding, and the scale check's reading
 * per d (rl_conc_scale_excess; the first RL_CONC_MAXD d's). */
typedef struct {
    int cnt;
    double zm, zv, over;
    rl_conc_dstat ds[RL_CONC_MAXD];
} rl_conc_so2_group;

/* The derived fields of row o from its moments and tails. */
void rl_conc_so2_derive(rl_conc_so2_row *o);

/* The groups of part (c) from its rows, g[law][cfg] (no files, no report). */
void rl_conc_so2_summarise(const rl_conc_so2_row *rows, int nrows, rl_conc_so2_group g[2][RL_NCFG]);

#endif
