/* orderings.c: the study's orderings, one table (orderings.h).  Written
 * before any run: the expected outcome and its reason are recorded here (a
 * long reason as a block of prose/orderings.txt, named by its macro), and
 * the verdict of a run is the rule's on its numbers, whatever was expected. */
#include "orderings.h"

#include <string.h>

#include "../../experiments/claims.h"
#include "../../model/scheme.h"
#include "../../theory/mixstay_forms.h" /* RL_MIXSTAY_MULT: the multiple the score is read at */
#include "prose_reproduce.h"             /* the long reasons: prose/orderings.txt */

#define D_ RL_ORDER_DELTA

const rl_ordering rl_orderings[] = {
    /* between variants at 16T: the first of each pair predicted to degrade more */
    { "rope>random_qk@16", "rope degrades more than random_qk", RL_ORDK_ABOVE, "rope", "random_qk", 16, 0, D_, 0,
      RL_V_HOLDS, NULL, NULL, 0 },
    { "rope>random_qkv@16", "rope degrades more than random_qkv", RL_ORDK_ABOVE, "rope", "random_qkv", 16, 0, D_,
      0, RL_V_HOLDS, NULL, NULL, 0 },
    { "random_qk>random_qkv@16", "random_qk degrades more than random_qkv (value transport)", RL_ORDK_ABOVE,
      "random_qk", "random_qkv", 16, 0, D_, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_VALUE_TRANSPORT_16,
      NULL, 0 },
    { "rope>pemb_qk@16", "rope degrades more than pemb_qk", RL_ORDK_ABOVE, "rope", "pemb_qk", 16, 0, D_, 0,
      RL_V_HOLDS, NULL, NULL, 0 },
    /* the study's pemb claims, also for pemb-shared (routelab's first reading
     * of pemb, docs/model/schemes.md#pemb-author; the committed grids ran it as pemb_qk): its
     * entries were written before those runs, under that name */
    { "rope>pemb-shared_qk@16", "rope degrades more than pemb-shared_qk", RL_ORDK_ABOVE, "rope", "pemb-shared_qk",
      16, 0, D_, 0, RL_V_HOLDS, NULL, NULL, 0 },
    /* the convention question, written before the cpu grid's
     * second run, the first to train both pembs on paired seeds */
    { "pemb-shared_qk>pemb_qk@16", "pemb-shared_qk degrades more than pemb_qk (the author's convention)",
      RL_ORDK_ABOVE, "pemb-shared_qk", "pemb_qk", 16, 0, D_, 0, RL_V_HOLDS,
      RL_PROSE_ORDERINGS_PEMB_CONVENTION,
      NULL, 0 },
    { "rope>lf_qk@16", "rope degrades more than lf_qk", RL_ORDK_ABOVE, "rope", "lf_qk", 16, 0, D_, 0, RL_V_HOLDS,
      NULL, NULL, 0 },
    { "rope>alibi@16", "rope degrades more than alibi", RL_ORDK_ABOVE, "rope", "alibi", 16, 0, D_, 0, RL_V_HOLDS,
      NULL, NULL, 0 },
    /* the mechanism factorial (preset mechanism, docs/grids/seed-question.md#seed-question): {SO(2)
     * blocks, Householder reflections} x {random i.i.d. steps, steps computed from the
     * hidden state}, written before its first run.  PaTH is the study's
     * subject: its premise is that it extrapolates where RoPE does not */
    { "rope>path@16", "rope degrades more than path (PaTH)", RL_ORDK_ABOVE, "rope", "path", 16, 0, D_, 0, RL_V_HOLDS,
      RL_PROSE_ORDERINGS_PATH,
      NULL, 0 },
    /* the algebra question as equivalence rows: does the Householder algebra
     * matter, or only accumulation along the route?  lf_qk is PaTH's SO(2)
     * counterpart (its angles, like PaTH's directions, a linear function of
     * the layer's hidden state), random-hh random_qk's (fresh i.i.d. steps).
     * delta is RL_ORDER_DELTA_ALGEBRA (orderings.h): absent at this scale
     * says the algebra does not matter here, within 10% of the ratio */
    { "path~lf_qk@16", "path against lf_qk (the algebra, learned steps)", RL_ORDK_ABOVE, "path", "lf_qk", 16, 0,
      RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_ALGEBRA_LEARNED_16,
      NULL, 0 },
    { "path~lf_qk@128", "path against lf_qk (the algebra, learned steps)", RL_ORDK_ABOVE, "path", "lf_qk", 128, 128,
      RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_ALGEBRA_LEARNED_128, NULL, 0 },
    { "random-hh~random_qk@16", "random-hh against random_qk (the algebra, random steps)", RL_ORDK_ABOVE, "random-hh",
      "random_qk", 16, 0, RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_ALGEBRA_RANDOM_16,
      NULL, 0 },
    { "random-hh~random_qk@128", "random-hh against random_qk (the algebra, random steps)", RL_ORDK_ABOVE,
      "random-hh", "random_qk", 128, 128, RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT, "as at 16×", NULL, 0 },
    /* written after the mechanism grid contradicted the two rows above
     * (random-hh flatter than random_qk, docs/grids/seed-question.md#mechanism-grid) and before
     * this pair's run (docs/grids/seed-question.md#matched-mixing-algebra): the same question at
     * matched mixing.  At base 2 every block of a 32-dim head mixes within T = 64 (the slowest,
     * omega = 2^(-15/16), has |chi| = sin omega/omega = 0.955, window 51),
     * as every direction of uniform random reflections does (window 36) */
    { "random-hh~random_qk-base2@16", "random-hh against random_qk@2 (the algebra at matched mixing)",
      RL_ORDK_ABOVE, "random-hh", "random_qk@2", 16, 0, RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_ALGEBRA_MATCHED_16,
      NULL, 0 },
    { "random-hh~random_qk-base2@128", "random-hh against random_qk@2 (the algebra at matched mixing)",
      RL_ORDK_ABOVE, "random-hh", "random_qk@2", 128, 128, RL_ORDER_DELTA_ALGEBRA, 0, RL_V_ABSENT, "as at 16×",
      NULL, 0 },
    /* the drift test (the author's notebook, ../shared/reference/study.md):
     * steps U(0, 2 omega_b) have the same |chi_b| as U(-omega_b, omega_b), so
     * the same spectral gap and mixing windows, but their slow blocks drift
     * by omega_b a token, like RoPE, to angles never met within T */
    { "random_pos_qk>random_qk@16", "random_pos_qk degrades more than random_qk (drift at an equal gap)",
      RL_ORDK_ABOVE, "random_pos_qk", "random_qk", 16, 0, D_, 0, RL_V_HOLDS,
      RL_PROSE_ORDERINGS_DRIFT,
      NULL, 0 },
    /* learned angles near flat to 16T: ratio below 1.25 (the rule fixed
     * before the first cpu run, docs/grids/design.md#grid-design) */
    { "pemb_qk<1.25@16", "pemb_qk near flat (ratio < 1.25)", RL_ORDK_BELOW, "pemb_qk", NULL, 16, 0, 0, 1.25,
      RL_V_HOLDS, NULL, NULL, 0 },
    { "pemb_qkv<1.25@16", "pemb_qkv near flat (ratio < 1.25)", RL_ORDK_BELOW, "pemb_qkv", NULL, 16, 0, 0, 1.25,
      RL_V_HOLDS, NULL, NULL, 0 },
    { "pemb-shared_qk<1.25@16", "pemb-shared_qk near flat (ratio < 1.25)", RL_ORDK_BELOW, "pemb-shared_qk", NULL,
      16, 0, 0, 1.25, RL_V_HOLDS, NULL, NULL, 0 },
    { "pemb-shared_qkv<1.25@16", "pemb-shared_qkv near flat (ratio < 1.25)", RL_ORDK_BELOW, "pemb-shared_qkv",
      NULL, 16, 0, 0, 1.25, RL_V_HOLDS, NULL, NULL, 0 },
    { "lf_qk<1.25@16", "lf_qk near flat (ratio < 1.25)", RL_ORDK_BELOW, "lf_qk", NULL, 16, 0, 0, 1.25, RL_V_HOLDS,
      NULL, NULL, 0 },
    { "lf_qkv<1.25@16", "lf_qkv near flat (ratio < 1.25)", RL_ORDK_BELOW, "lf_qkv", NULL, 16, 0, 0, 1.25,
      RL_V_HOLDS, NULL, NULL, 0 },
    /* every rotation-only model (a rotation without a distance bias) degrades
     * by 128T; a grid that stops short of 128T cannot show it */
    { "rotation>0@128", "%s degrades by 128×", RL_ORDK_POSITIVE, NULL, NULL, 0, 128, D_, 0, RL_V_HOLDS, NULL, NULL,
      0 },
    /* routelab's mix-or-stay condition (docs/theory/claim1-mixing.md#mix-or-stay): a block is safe
     * beyond T when its far angle laws stay near laws met within T (mixed, or spread
     * around 0), not when they drift to new angles; the score (the mean over
     * a model's blocks of the far laws' distance to the nearest law met within
     * T, at 16T) is read from the step law alone, before any evaluation, and
     * must order the SO(2) variants' log ratios at 16T with tau_b above 0.5
     * (three concordant pairs for each discordant one); PaTH's transport
     * reading (first harmonic only, another scale) is not ranked */
    { "mixstay~ratio@16", "the mix-or-stay score orders the rotation variants' log ratios", RL_ORDK_RANK, NULL,
      NULL, RL_MIXSTAY_MULT, 0, 0, 0.5, RL_V_HOLDS,
      RL_PROSE_ORDERINGS_MIXSTAY,
      NULL, 0 },
    /* alibi flat: its ratio at the grid's top below 1.1 (within 10% of 1,
     * the rule fixed before the first cpu run) */
    { "alibi<1.1@top", "alibi flat (ratio < 1.1)", RL_ORDK_BELOW, "alibi", NULL, 0, 0, 0, 1.1, RL_V_HOLDS, NULL,
      NULL, 0 },
    /* the vtraj grid's own question (docs/grids/vtraj-and-reruns.md#vtraj), written
     * before its run: does value transport open a gap late in training?
     * Read at the final stage (after the low-rate tail: the verdict of
     * record) and at every stage (the trajectory).  16T: expected absent:
     * the cpu grid (2,400 steps, 6 seeds) measured -0.004 +- 0.013 there,
     * and both schemes are within 7% of flat at 16T, so the difference has
     * little room; ten seeds decide absent with power 0.8 only if the
     * spread stays near the cpu grid's (13 seeds at its sd).  128T:
     * expected holds, the study's claim (random_qk 7.49x, random_qkv 1.59x
     * at 128T after its low-rate stages), which this preset exists to
     * test; the cpu grid had +0.031 +- 0.044 there at 2,400 steps, and ten
     * seeds detect a difference of 0.18 (80% power), so holds needs the
     * tail to open the gap about sixfold: unresolved is the likely outcome
     * otherwise, and the report then says how many seeds it would take. */
    { "vtraj:random_qk>random_qkv@16", "random_qk degrades more than random_qkv at 16T (value transport)",
      RL_ORDK_ABOVE, "random_qk", "random_qkv", 16, 16, D_, 0, RL_V_ABSENT,
      RL_PROSE_ORDERINGS_VTRAJ_16,
      "vtraj", 1 },
    { "vtraj:random_qk>random_qkv@128", "random_qk degrades more than random_qkv at 128T (value transport)",
      RL_ORDK_ABOVE, "random_qk", "random_qkv", 0, 128, D_, 0, RL_V_HOLDS,
      RL_PROSE_ORDERINGS_VTRAJ_128,
      "vtraj", 1 },
};
const int rl_norderings = sizeof rl_orderings / sizeof *rl_orderings;

/* the registry's reading of the name: a scheme with a rotation code (not
 * none, path, random-hh: rot 0) and no ALiBi */
int rl_ordering_rotation_only(const char *pos)
{
    rl_pos_config pc;
    char err[256];
    /* claim 3's premise is an orthogonal transport without a distance bias:
     * every rotation, and random-hh's reflections (beta = 2); PaTH's learned
     * beta in (0, 2) contracts, so the claim says nothing of it */
    return rl_pos_parse(pos, -1, &pc, err, sizeof err) == 0 && !pc.alibi &&
           (pc.rot != RL_ROT_NONE || pc.path == RL_PATH_RANDOM_HH);
}

int rl_ordering_applies(const rl_ordering *e, const char *grid)
{
    int own = 0; /* the grid has entries of its own */
    for (int i = 0; i < rl_norderings && grid; i++)
        own |= rl_orderings[i].grid && !strcmp(rl_orderings[i].grid, grid);
    if (own)
        return e->grid && !strcmp(e->grid, grid);
    return !e->grid;
}

long rl_ordering_mult(const rl_ordering *e, long top)
{
    if (e->mult > 0)
        return top < e->mult ? top : e->mult;
    return top < 128 ? top : 128;
}

long rl_ordering_study_mult(const rl_ordering *e)
{
    return e->mult > 0 ? e->mult : 128;
}

const rl_rule *rl_ordering_rule(const rl_ordering *e)
{
    return e->kind == RL_ORDK_BELOW ? &rl_rule_below : e->kind == RL_ORDK_RANK ? &rl_rule_rank : &rl_rule_effect;
}
