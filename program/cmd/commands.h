/* commands.h: every subcommand of routelab, one cmd_x(argc, argv) each;
 * the per-claim subcommands are one cmd_claim over the claims table. */
#ifndef RL_COMMANDS_H
#define RL_COMMANDS_H

#include "../../experiments/claims.h"

int cmd_sample(int argc, char **argv);
int cmd_plot(int argc, char **argv);
/* The commit the program was built from (build/gen/commit.c, written by the
 * Makefile): `routelab --version`. */
const char *rl_build_commit(void);
int cmd_bound(int argc, char **argv);
int cmd_claim(const rl_claim *c, int argc, char **argv);
/* Parse an experiment's flags (opts ends with RL_EXP_OPTS_) and set the
 * threads (cmd_claim.c; also `theory`).  Creates nothing. */
void cmd_exp_parse(const char *cmd, const char *synopsis, const char *description, rl_opt *opts, int argc,
                   char **argv, rl_exp_ctx *ctx);
/* Check every input of claims that read the flags in uses (RL_CLAIM_*)
 * before any work (one line and status 2 on the first bad one), then create
 * the output folder; returns what it created (for cmd_exp_fail), or NULL. */
char *cmd_exp_check(const char *cmd, const rl_exp_ctx *ctx, unsigned uses);
/* A claim's run failed: remove what cmd_exp_check created, then one line
 * and the status. */
void cmd_exp_fail(const char *cmd, char *made, rl_status st, rl_err *err) __attribute__((noreturn));
int cmd_claims(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_data(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_horizon(int argc, char **argv);
int cmd_farpred(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
