/* concentration.h: the decision pieces of claim 2's report (concentration.c),
 * small enough for a test to feed constructed counterexamples. */
#ifndef RL_CONCENTRATION_H
#define RL_CONCENTRATION_H

#include <stddef.h>

#include "../program/report/report.h"
#include "../sampling/family.h"

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

#endif
