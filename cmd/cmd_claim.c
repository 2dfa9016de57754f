/* cmd_claim.c: the per-claim subcommands (`routelab mixing`, ...), one for
 * each row of the claims table, and `routelab claims`, the table itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../core/util.h"
#include "../experiments/claims.h"

void cmd_exp_parse(const char *cmd, const char *synopsis, const char *description, rl_opt *opts, int argc,
                   char **argv, rl_exp_ctx *ctx)
{
    rl_opts_parse(cmd, synopsis, description, opts, argc, argv, NULL, 0);
    rl_set_threads(ctx->threads);
    rl_mkdir_p(ctx->out.dir);
}

int cmd_claim(const rl_claim *c, int argc, char **argv)
{
    char out[256], title[256];
    snprintf(out, sizeof out, "results/%s", c->id);
    rl_exp_ctx ctx = rl_exp_default(out);
    rl_opt opts[] = {
        RL_OPT_STR_("text", &ctx.text, "text file for token-driven steps (default: data/brown/train.bin, else README.md)"),
        RL_EXP_OPTS_(&ctx),
        RL_OPT_END_
    };
    cmd_exp_parse(c->id, "[--out DIR] [--preset quick|full] [--seed S] [--threads N] [--svg]", c->help, opts,
                  argc, argv, &ctx);
    rl_report *rep = rl_report_alloc(rl_claim_heading(c, title, sizeof title));
    rl_claim_do(c, &ctx, rep);
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
