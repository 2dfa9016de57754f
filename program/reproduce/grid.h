/* grid.h: running a grid of models (train, evaluate, probe) resumably. */
#ifndef RL_GRID_H
#define RL_GRID_H

#include "preset.h"

typedef struct {
    rl_grid g;          /* the preset after the command line's overrides */
    const char *out;    /* output folder */
    int threads;
    long stop_at;       /* stop every training at this step (0: never) */
    int report_only;    /* rewriting the report of a grid run earlier */
    int nvar;
    char **var;         /* the variants, split from g.variants: NAME or NAME@BASE (the model folder's name) */
    char **pos;         /* each variant's scheme (train --pos): NAME */
    double *base;       /* each variant's rotation base: BASE, else g.train.rot_base */
    int *control;       /* the variant named its own base (NAME@BASE): a control arm */
} rl_repro;

/* The most variants a grid takes, and the longest --variants list: the
 * report joins their names into fixed word lists for gnuplot (2048 bytes,
 * the study's among them in 1024: program/reproduce/grid_report.c), so a longer list used
 * to fail only after every model had trained. */
#define RL_GRID_MAX_VARIANTS 64
#define RL_GRID_MAX_VARIANTS_CHARS 1000

/* Split g.variants into var, pos, base and control (nvar of each).  A
 * variant NAME@BASE is scheme NAME trained with rotation base BASE (a
 * number in [RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX]), in its own folder
 * models/NAME@BASE; RL_EINPUT for a BASE that is not (digits first: no
 * space, sign or "inf"), for more than RL_GRID_MAX_VARIANTS variants or a
 * list longer than RL_GRID_MAX_VARIANTS_CHARS.  Empty names are kept
 * (rl_repro_check refuses them).  rl_repro_free_variants frees them. */
/* One variant NAME or NAME@BASE: the length of NAME and the base after
 * '@' (a number in [RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX]), NAN without
 * one; a bad base is RL_EINPUT. */
rl_status rl_repro_variant_split(const char *variant, size_t *name_len, double *base, rl_err *err);
rl_status rl_repro_set_variants(rl_repro *r, rl_err *err);
void rl_repro_free_variants(rl_repro *r);

/* The `routelab train` command of variant v, replicate k, one argument a
 * line: what the model folder's config.txt holds (malloc'ed).  It has
 * --rot-base only when the variant's base differs from train's default
 * (RL_ROT_BASE_DEFAULT), so that a grid at the study's base trains with the
 * command lines it always had. */
char *rl_repro_train_command(const rl_repro *r, int v, int k);

/* The seed of replicate k (0 <= k < g.seeds): the grid's --seed + k.  Every
 * variant's replicate k has this seed: the same initial weights where the
 * parameter shapes coincide, the same batches in the same order, and the
 * same evaluation windows, so differences between variants are paired
 * within a seed. */
long rl_repro_seed(const rl_repro *r, int k);

/* Every model's optimizer steps: rl_train_opts_steps of g.train, the rule
 * `routelab train` itself follows (dies on a bad schedule, which the command
 * checks before any work). */
long rl_repro_steps(const rl_repro *r);

/* The model folder of variant v, replicate k: OUT/models/NAME/seedS with S
 * = rl_repro_seed(r, k) (malloc'ed). */
char *rl_repro_model_dir(const rl_repro *r, int v, int k);

/* The stages of the grid's training trajectory, in increasing order: each
 * step of train's --keep-ckpt (g.train.keep_ckpt) below the run's last,
 * then the last step (the final model); returns the count (1 without
 * --keep-ckpt).  Every stage of a model is evaluated with the same lengths,
 * windows and seed as the final model (docs/grids/vtraj-and-reruns.md#vtraj).  Dies on a list
 * rl_train_opts_kept refuses (rl_repro_check refuses it first). */
#define RL_GRID_MAX_STAGES (RL_TRAIN_MAX_KEPT + 1)
int rl_repro_stages(const rl_repro *r, long *steps);

/* The evaluation file of variant v, replicate k at stage step: eval.tsv
 * for the run's last step, else eval-STEP.tsv beside it (malloc'ed); and
 * the checkpoint it reads: ckpt.bin, else train's kept ckpt-STEP.bin. */
char *rl_repro_stage_eval(const rl_repro *r, int v, int k, long step);
char *rl_repro_stage_ckpt(const rl_repro *r, int v, int k, long step);

/* Evaluation lengths: ctx * 1, 2, 4, ..., max_mult; returns the count. */
int rl_repro_lengths(const rl_repro *r, long *len, int max);

/* Every input of the grid, checked before any folder is made or child run,
 * so that no child fails on them: each variant is a distinct scheme whose
 * model can be built, the data set loads with the grid's vocabulary and
 * holds the tokens that training (T + 1 in each split), every evaluation
 * length and the probe need, and the last seed (--seed + --seeds - 1) is
 * one train accepts.  RL_EINPUT naming the problem.  Under MPI a meeting
 * of every rank: the data's contents are compared (base/par/par.h,
 * rl_par_same), and a rank that loaded other tokens stops the job. */
rl_status rl_repro_check(const rl_repro *r, rl_err *err);

/* What a run of the grid would still write beside its report: the items
 * not finished on disk, plus one for a theory report due and absent (0: a
 * finished grid).  Dies, one line, status 2, on a model folder trained with
 * other settings, as the run would: called before the run writes anything,
 * so that a refused rerun leaves OUT/config.txt as it was. */
long rl_repro_pending(const rl_repro *r);

/* Train, evaluate and probe every variant and seed (seed by seed, so that a
 * grid stopped part-way holds whole seeds; the probe on the first seed only), reusing what is finished and
 * resuming a half-trained model from its checkpoint; then the theory report.
 * Returns 0 when the grid is complete, 1 when --stop-at interrupted it. */
int rl_repro_run(const rl_repro *r);

#endif
