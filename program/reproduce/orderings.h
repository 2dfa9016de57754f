/* orderings.h: the study's orderings as one table, written before any run.
 *
 * Each entry names what is compared (variants by their grid names), the
 * multiple of T it is read at, the rule that decides it (effect with a
 * minimal effect size delta, or below with a threshold) and the outcome
 * expected, with why.  program/reproduce/grid_report.c iterates the table; an entry whose
 * variants are not in the grid is skipped.  The verdict is computed by the
 * rule on the run's numbers, never adjusted to the expectation. */
#ifndef RL_ORDERINGS_H
#define RL_ORDERINGS_H

#include "../report/verdict.h"

typedef enum {
    RL_ORDK_ABOVE,    /* a above b: per seed, a's log ratio minus b's (rule effect) */
    RL_ORDK_POSITIVE, /* a degrades: its per-seed log ratio above 0 (rule effect) */
    RL_ORDK_BELOW,    /* a stays flat: its per-seed log ratio below log(threshold) (rule below) */
    RL_ORDK_RANK      /* routelab's mix-or-stay score (each model's horizon.tsv, from its step law
                       * alone) orders the log ratios of the variants that have one: per seed
                       * Kendall's tau_b, rule rank with tau0 = threshold */
} rl_ordering_kind;

/* The minimal effect size of every effect row: log 1.05, a 5% change of
 * the perplexity ratio ppl(L)/ppl(T).  Below it a difference between two
 * schemes (or a degradation) is not one the study's claims are about: its
 * smallest reported gap (random_qk 1.03× against random_qkv 0.96× at 16T,
 * 100K steps) is 7%, its headline ones are 1.5× and more. */
#define RL_ORDER_DELTA 0.04879016416943205 /* log(1.05) */

/* The equivalence margin of the algebra rows (PaTH against lf_qk,
 * random-hh against random_qk; docs/grids/seed-question.md#mechanism-orderings), fixed before the
 * mechanism grid: log 1.10.  The question is whether the Householder algebra explains
 * a part of extrapolation comparable to the study's effects (1.6x against
 * 16x at 8K); a 10% difference of ratios is well below those, and log 1.05
 * cannot be reached by an equivalence test at this grid's seeds (with the
 * committed per-seed sd 0.032 of a paired difference at 16T, six seeds
 * give x_lo, x_hi at +-3 only for a margin above about 0.085). */
#define RL_ORDER_DELTA_ALGEBRA 0.09531017980432493 /* log(1.10) */

typedef struct {
    const char *id;         /* short id, unique ("rope>random_qk@16") */
    const char *what;       /* the row's name; with a == NULL a format with one %s (the variant) */
    rl_ordering_kind kind;
    const char *a, *b;      /* variant names (b: ABOVE only); a NULL: the entry is read for
                             * every rotation-only variant of the grid (rl_ordering_rotation_only) */
    long mult;              /* the multiple of T read: 16 (the grid's top when it stops below 16),
                             * or 0: the grid's top, at most 128 */
    long needs;             /* > 0: the multiple the ordering is about; a grid stopping short of
                             * it leaves the row unresolved whatever its numbers */
    double delta;           /* ABOVE, POSITIVE: the minimal effect size on the log ratio */
    double threshold;       /* BELOW: the ratio whose log the log ratio is held below;
                             * RANK: tau0, the tau_b the score must exceed */
    rl_verdict expected;    /* the outcome expected, written before any run */
    const char *expect;     /* why (NULL: the study's ratios say it; they are read from
                             * theory/study.h at the entry's multiple, never typed here) */
    const char *grid;       /* NULL: read in every grid; else only in the preset of this name,
                             * whose grid then reads its own entries alone (rl_ordering_applies) */
    int stages;             /* 1: also read at every stage of the grid's training trajectory
                             * (program/reproduce/grid.h, rl_repro_stages), the report's trajectory
                             * section; the verdict of record is the final stage's */
} rl_ordering;

extern const rl_ordering rl_orderings[];
extern const int rl_norderings;

/* 1 for an orthogonal transport without a distance bias: a rotation, or
 * random-hh's reflections (not alibi*, none, path; 0 for a name the
 * registry does not parse): the schemes the "degrades by 128×" entry is
 * read for. */
int rl_ordering_rotation_only(const char *pos);

/* Whether entry e is read in the grid of preset name grid: a grid with
 * entries of its own (e->grid equal to its name) reads those alone (its
 * question and its expectations are its own); any other grid reads the
 * entries without a grid. */
int rl_ordering_applies(const rl_ordering *e, const char *grid);

/* The multiple entry e is read at in a grid whose top multiple is top. */
long rl_ordering_mult(const rl_ordering *e, long top);

/* The multiple the study's numbers are read at for e (16 or 128). */
long rl_ordering_study_mult(const rl_ordering *e);

/* The rule that decides e (rl_rule_effect, rl_rule_below or rl_rule_rank). */
const rl_rule *rl_ordering_rule(const rl_ordering *e);

#endif
