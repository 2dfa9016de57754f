/* cmd_claim.c: the per-claim subcommands (`routelab mixing`, ...), one for
 * each row of the claims table, and `routelab claims`, the table itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../../base/core/lock.h"
#include "../../base/par/par.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../experiments/claims.h"
#include "../report/plot.h"

void cmd_exp_parse(const char *cmd, const char *synopsis, const char *description, rl_opt *opts, int argc,
                   char **argv, rl_exp_ctx *ctx)
{
    rl_opts_parse(cmd, synopsis, description, opts, argc, argv, NULL, 0);
    rl_set_threads(ctx->threads);
}

char *cmd_exp_check(const char *cmd, const rl_exp_ctx *ctx, unsigned uses)
{
    rl_err err;
    char *made;
    rl_check_in(cmd, rl_exp_check(ctx, uses, &err), &err);
    const rl_path_use in[] = { { "--text", ctx->text, 0 } }, outs[] = { { "--out", ctx->out.dir, 1 } };
    rl_check_in(cmd, rl_paths_check(in, 1, outs, 1, &err), &err);
    rl_check_in(cmd, rl_plot_check(NULL, &err), &err); /* the figures come last: gnuplot first */
    /* OUT is rank 0's, as its files are (base/par/par.h): the others neither
     * create it nor remove it after a failure */
    made = NULL;
    if (rl_par_rank() == 0)
        rl_check_in(cmd, rl_mkdirs_new(ctx->out.dir, &made, &err), &err);
    /* one writer per folder (released at exit); a folder another process
     * holds is not undone: it is theirs.  Ours is tracked from then on: a
     * failed write (a full disk) or a signal takes it back (base/core/lock.h) */
    rl_lock *lk;
    rl_check_in(cmd, rl_lock_out(ctx->out.dir, &lk, &err), &err);
    if (made)
        rl_cleanup_track(made, 1);
    return made;
}

void cmd_exp_fail(const char *cmd, char *made, rl_status st, rl_err *err)
{
    (void)made; /* tracked by cmd_exp_check: the failure removes it (base/core/lock.h) */
    rl_check(st, err); /* the claim's message names it already */
    rl_fatal("%s: failed", cmd); /* not reached: st is not RL_OK */
}

int cmd_claim(const rl_claim *c, int argc, char **argv)
{
    char out[256], title[256];
    snprintf(out, sizeof out, "results/%s", c->id);
    rl_exp_ctx ctx = rl_exp_default(out);
    /* only the flags this claim reads: --text for token-driven claims */
    rl_opt text = RL_OPT_STR_("text", &ctx.text, "text file for token-driven steps "
                                                 "(default: data/brown/train.bin, else README.md)");
    /* and --families for the claims that sweep step families (the registry's) */
    const int sweep = rl_exp_sweep_of(c->id);
    char fhelp[512];
    rl_opt fams = RL_OPT_STR_("families", &ctx.families,
                              sweep >= 0 ? rl_exp_families_help(sweep, fhelp, sizeof fhelp) : "");
    rl_opt opts[] = { RL_EXP_OPTS_(&ctx), RL_OPT_END_, RL_OPT_END_, RL_OPT_END_ };
    if (sweep >= 0) {
        memmove(opts + 1, opts, sizeof opts - 2 * sizeof *opts);
        opts[0] = fams;
    }
    if (c->uses & RL_CLAIM_TEXT) {
        memmove(opts + 1, opts, sizeof opts - sizeof *opts);
        opts[0] = text;
    }
    char synopsis[160];
    snprintf(synopsis, sizeof synopsis, "%s%s[--out DIR] [--preset quick|full] [--seed S] [--threads N]",
             c->uses & RL_CLAIM_TEXT ? "[--text FILE] " : "", sweep >= 0 ? "[--families A,B] " : "");
    cmd_exp_parse(c->id, synopsis, c->help, opts, argc, argv, &ctx);
    rl_err ferr;
    if (sweep >= 0)
        rl_check_in(c->id, rl_exp_families_check(&ctx, sweep, &ferr), &ferr);
    char *made = cmd_exp_check(c->id, &ctx, c->uses);
    rl_report *rep = rl_report_alloc(rl_claim_heading(c, title, sizeof title));
    rl_err err;
    rl_status st = rl_claim_do(c, &ctx, rep, &err);
    if (st != RL_OK)
        cmd_exp_fail(c->id, made, st, &err);
    free(made);
    rl_report_print(rep, stdout);
    char md[64];
    snprintf(md, sizeof md, "%s.md", c->id);
    char *path = rl_path_join(ctx.out.dir, md);
    rl_outfile *o = rl_outfile_open(path);
    rl_report_markdown(rep, o->f);
    rl_outfile_commit(o);
    printf("wrote %s and the TSV files and figures beside it\n", path);
    free(path);
    rl_report_free(rep);
    return 0;
}

int cmd_claims(int argc, char **argv)
{
    rl_opt opts[] = { RL_OPT_END_ };
    rl_opts_parse("claims", "", "Print the claims table (claim number, id, title, the subcommand that tests it)\n"
                  "as markdown: the numbering used by theory.md, the subcommands, NOTES.md and README.",
                  opts, argc, argv, NULL, 0);
    rl_claims_markdown(stdout);
    return 0;
}
