/* trajectory.c: the training-trajectory section of the grid report (see
 * trajectory.h). */
#include "trajectory.h"

#include <math.h>
#include <string.h>

#include "../report/plot.h"
#include "../report/tsv.h"
#include "prose_reproduce.h"

/* The power every seeds-needed figure of the report asks for. */
#define POWER 0.8
/* The most seeds a seeds-needed search tries. */
#define KMAX 1000

long rl_traj_steps_to(long s0, double m0, long s1, double m1, double target)
{
    if (isnan(m0) || isnan(m1) || isnan(target) || s1 <= s0 || !(m1 > m0))
        return -1;
    if (m1 >= target)
        return s1;
    const double s = s1 + (target - m1) * (double)(s1 - s0) / (m1 - m0);
    return s < 9e18 ? (long)ceil(s) : -1;
}

/* Whether the grid stops short of the multiple entry e is about: its rows
 * are unresolved whatever their numbers, and no seed count would change
 * that. */
static int short_of(const rl_repro *r, const rl_ordering *e)
{
    return e->needs > 0 && r->g.max_mult < e->needs;
}

/* "K (outcome)" for an unresolved point at its mean and sd, else "—". */
static void needed(const rl_repro *r, const rl_ordering *e, const rl_traj_point *p, char *cell, size_t n)
{
    const rl_order *o = &p->o;
    if (o->v == RL_V_UNRESOLVED && short_of(r, e)) {
        snprintf(cell, n, "– (the grid stops at %d×)", r->g.max_mult);
        return;
    }
    if (o->v != RL_V_UNRESOLVED || o->k < 2 || isnan(o->mean) || isnan(o->se)) {
        snprintf(cell, n, "—");
        return;
    }
    rl_verdict t;
    const int k = rl_order_seeds_needed(o->mean, o->se * sqrt((double)o->k), o->delta, POWER, KMAX, &t);
    if (k < 0)
        snprintf(cell, n, "> %d", KMAX);
    else
        snprintf(cell, n, "%d (%s)", k, rl_verdict_name(t));
}

/* The verdict line of ordering i: the final stage's outcome; where it is
 * not the effect shown (holds), the seeds the rule would need at the final
 * stage's mean and sd, the effect it detects at this grid's seeds, and the
 * step at which the last two stages' trend would reach that effect. */
static void verdict_line(FILE *fp, const rl_repro *r, const rl_ordering *en, const char *what,
                         const rl_traj_point *p, int ns)
{
    const rl_traj_point *f = &p[ns - 1];
    const rl_order *o = &f->o;
    fprintf(fp, "- **%s** at %ld×, final stage (step %ld): **%s** (%+.3f ± %.3f over %d seeds).", what, f->mult,
            f->step, rl_verdict_name(o->v), o->mean, o->se, o->k);
    if (short_of(r, en)) {
        fprintf(fp, " " RL_PROSE_TRAJECTORY_SHORT_OF "\n", r->g.max_mult, en->needs);
        return;
    }
    if (o->v == RL_V_HOLDS || o->k < 2 || isnan(o->se) || isnan(o->mean)) {
        fprintf(fp, "\n");
        return;
    }
    const double sd = o->se * sqrt((double)o->k), e = rl_order_detectable(sd, o->k, POWER);
    rl_verdict t;
    const int kn = rl_order_seeds_needed(o->mean, sd, 0, POWER, KMAX, &t);
    fprintf(fp, " " RL_PROSE_TRAJECTORY_NOT_SHOWN "; ", o->k, f->step, sd, o->k, e, exp(e), POWER);
    if (kn < 0)
        fprintf(fp, RL_PROSE_TRAJECTORY_SEEDS_NEVER, KMAX);
    else
        fprintf(fp, RL_PROSE_TRAJECTORY_SEEDS_NEEDED, kn, rl_verdict_name(t));
    if (ns >= RL_TRAJ_MIN_STAGES) {
        const rl_traj_point *a = &p[ns - 2];
        const long s = rl_traj_steps_to(a->step, a->o.mean, f->step, o->mean, e);
        if (s < 0)
            fprintf(fp, "; " RL_PROSE_TRAJECTORY_NO_GROWTH "\n", a->o.mean, a->step);
        else
            fprintf(fp, "; " RL_PROSE_TRAJECTORY_GROWTH "\n",
                    a->o.mean, a->step, o->mean, e, s);
    } else {
        fprintf(fp, ".\n");
    }
}

void rl_repro_trajectory_section(const rl_repro *r, FILE *fp, const rl_outdir *od, const rl_ordering *const *e,
                                 const char *const *what, int ne, const rl_traj_point *pts, int ns)
{
    if (ne == 0 || ns < 2)
        return;
    rl_tsv *t = rl_tsv_open(od, "trajectory.tsv", "ordering\tid\tstep\tlr\tmult\tseeds\tper_seed\tmean\tse\tdelta\t"
                                                  "x\tx_lo\tx_hi\tverdict\texpected");
    fprintf(fp, "## Through training: the orderings at each stage\n\n" RL_PROSE_TRAJECTORY_INTRO "\n\n",
            ns, ns);
    for (int j = 0; j < ns; j++) {
        fprintf(fp, "### Step %ld (learning rate %g)%s\n\n| ordering | at | per seed | mean ± SE | x [x_lo, x_hi] | "
                    "verdict | expected (final) | seeds needed |\n|---|---|---|---|---|---|---|---|\n",
                pts[j].step, pts[j].lr, j == ns - 1 ? ", the final model" : "");
        for (int i = 0; i < ne; i++) {
            const rl_traj_point *p = &pts[i * ns + j];
            char per[1024] = "", need[64];
            int off = 0;
            for (int k = 0; k < p->o.k && off < (int)sizeof per - 40; k++)
                off += snprintf(per + off, sizeof per - off, "%s%+.3f", k ? ", " : "", p->d[k]);
            needed(r, e[i], p, need, sizeof need);
            fprintf(fp, "| %s | %ld× | %s | %+.3f ± %.3f | %.2f [%.2f, %.2f] | **%s** | %s | %s |\n", what[i],
                    p->mult, per, p->o.mean, p->o.se, p->o.x, p->o.x_lo, p->o.x_hi, rl_verdict_name(p->o.v),
                    rl_verdict_name(e[i]->expected), need);
        }
        fprintf(fp, "\n");
    }
    /* trajectory.tsv ordering by ordering, its stages in order: a curve of
     * the figure is its ordering's consecutive rows */
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ns; j++) {
            const rl_traj_point *p = &pts[i * ns + j];
            char tper[1024] = "";
            int toff = 0;
            for (int k = 0; k < p->o.k && toff < (int)sizeof tper - 40; k++)
                toff += snprintf(tper + toff, sizeof tper - toff, "%s%.6g", k ? "," : "", p->d[k]);
            rl_tsv_row(t, "%s\t%s\t%ld\t%.6g\t%ld\t%d\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%s", what[i],
                       e[i]->id, p->step, p->lr, p->mult, p->o.k, tper, p->o.mean, p->o.se, p->o.delta, p->o.x,
                       p->o.x_lo, p->o.x_hi, rl_verdict_name(p->o.v), rl_verdict_name(e[i]->expected));
        }
    rl_tsv_close(t);
    /* the figure: one curve per ordering, mean +- SE against the step; the
     * ids reach gnuplot as a word list (arguments, never code) */
    char ids[1024] = "";
    int off = 0;
    for (int i = 0; i < ne && off < (int)sizeof ids; i++)
        off += snprintf(ids + off, sizeof ids - off, i ? " %s" : "%s", e[i]->id);
    if (off >= (int)sizeof ids)
        rl_fatal("reproduce: too many trajectory orderings to plot");
    const rl_plotvar vars[] = { RL_PV_S("ids", ids), RL_PV_R("delta", RL_ORDER_DELTA),
                                RL_PV_I("ctx", r->g.train.ctx) };
    rl_plot(od, "reproduce_trajectory", "trajectory", vars, RL_NVARS(vars));
    fprintf(fp, "![the orderings through training](trajectory.png)\n\n*" RL_PROSE_TRAJECTORY_FIG_TRAJECTORY "*\n\n");
    for (int i = 0; i < ne; i++)
        verdict_line(fp, r, e[i], what[i], &pts[i * ns], ns);
    fprintf(fp, "\nPer-seed numbers at every stage: `trajectory.tsv`.\n\n");
}
