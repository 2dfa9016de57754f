/* ctx.h: what a claim's experiment is run with: its output folder, seed,
 * threads, Monte Carlo size (preset) and the text for token-driven steps. */
#ifndef RL_EXP_CTX_H
#define RL_EXP_CTX_H

#include <stddef.h>

#include "../base/core/err.h"
#include "../base/core/opts.h"
#include "../program/report/outdir.h"

typedef enum { RL_PRESET_QUICK, RL_PRESET_FULL } rl_preset;
#define RL_PRESET_NAMES "quick|full"

typedef struct {
    rl_outdir out;      /* output folder (created) and the SVG flag: the report half's */
    long seed;
    int threads;
    int preset;         /* rl_preset: sizes of the Monte Carlo */
    const char *text;   /* a text file for token-driven steps (NULL: default) */
    const char *families; /* comma-separated step families to sweep (NULL: the default cases) */
} rl_exp_ctx;

/* The flags every experiment takes (the command layer parses them). */
#define RL_EXP_OPTS_(c)                                                                     \
    RL_OPT_STR_("out", &(c)->out.dir, "output folder for the TSV files and figures"),              \
    RL_OPT_SEED_(&(c)->seed),                                                                           \
    RL_OPT_THREADS_(&(c)->threads),                                                                \
    RL_OPT_CHOICE_("preset", &(c)->preset, "Monte Carlo size", RL_PRESET_NAMES)

/* The defaults: out = OUT, seed 1, all cores, quick preset, the
 * default families. */
rl_exp_ctx rl_exp_default(const char *out);

/* The text that drives token-dependent steps: ctx->text, else the Brown
 * corpus training split when `routelab data brown` has been run
 * (data/brown/train.bin), else this project's README.md; NULL when none is
 * found.  A path found next to the binary is written into buf (n bytes), so
 * nothing is allocated. */
const char *rl_exp_text(const rl_exp_ctx *ctx, char *buf, size_t n);

/* The flags that only some claims read (the others are every claim's):
 * a claim's subcommand takes these only when its row of the claims table
 * (claims.h) names them. */
enum { RL_CLAIM_TEXT = 1 /* --text: token-driven steps */ };

/* The inputs of a run, checked before any work: when uses has
 * RL_CLAIM_TEXT, the driving text is there and is a readable
 * token or text file.  RL_EINPUT naming the problem. */
rl_status rl_exp_check(const rl_exp_ctx *ctx, unsigned uses, rl_err *err);

/* The sweep (mc/sweep_cases.h: rl_sweep) of the claim with
 * this id, -1 when it sweeps no step families: the claims that take
 * --families. */
int rl_exp_sweep_of(const char *claim_id);

/* --families' help for sweep s: the families with a case in it, in
 * registry order, and those in the default, into buf (n bytes). */
const char *rl_exp_families_help(int s, char *buf, size_t n);

/* ctx->families for sweep s, checked before any work: RL_EINPUT naming an
 * unknown family or one with no case in this sweep. */
rl_status rl_exp_families_check(const rl_exp_ctx *ctx, int s, rl_err *err);

#endif
