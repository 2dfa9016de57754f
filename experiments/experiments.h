/* experiments.h: the Monte Carlo experiments, one per claim.  Each writes
 * its TSV files and figures into ctx->out and adds its section (text,
 * figures, verdicts) to rep. */
#ifndef RL_EXPERIMENTS_H
#define RL_EXPERIMENTS_H

#include "../report/exp.h"

int rl_exp_mixing(const rl_exp_ctx *ctx, rl_report *rep);
int rl_exp_concentration(const rl_exp_ctx *ctx, rl_report *rep);
int rl_exp_scoregap(const rl_exp_ctx *ctx, rl_report *rep);
int rl_exp_farmass(const rl_exp_ctx *ctx, rl_report *rep);
int rl_exp_values(const rl_exp_ctx *ctx, rl_report *rep);
int rl_exp_stylized(const rl_exp_ctx *ctx, rl_report *rep);

/* The text that drives token-dependent steps: ctx->text, else the Brown
 * corpus training split when `routelab data brown` has been run
 * (data/brown/train.bin), else this project's README.md. */
const char *rl_exp_text(const rl_exp_ctx *ctx);

/* Run one experiment as a subcommand: parse the common flags, run, print the
 * verdicts, write NAME.md (the section) into the output folder. */
int rl_exp_command(const char *name, int (*fn)(const rl_exp_ctx *, rl_report *), const char *title,
                   const char *description, int argc, char **argv);

#endif
