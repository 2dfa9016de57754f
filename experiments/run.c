/* run.c: running an experiment as its own subcommand. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/util.h"
#include "experiments.h"

const char *rl_exp_text(const rl_exp_ctx *ctx)
{
    static const char *brown = "data/brown/train.bin";
    if (ctx->text)
        return ctx->text;
    if (access(brown, R_OK) == 0)
        return brown;
    return "README.md";
}

int rl_exp_command(const char *name, int (*fn)(const rl_exp_ctx *, rl_report *), const char *title,
                   const char *description, int argc, char **argv)
{
    char out[256];
    snprintf(out, sizeof out, "results/%s", name);
    rl_exp_ctx ctx = rl_exp_default(out);
    ctx.out = strdup(out);
    rl_opt opts[] = {
        RL_OPT_STR_("text", &ctx.text, "text file for token-driven steps (default: data/brown/train.bin, else README.md)"),
        RL_EXP_OPTS_(&ctx),
        RL_OPT_END_
    };
    rl_exp_parse(name, "[--out DIR] [--preset quick|full] [--seed S] [--threads N] [--svg]", description, opts,
                 argc, argv, &ctx);
    rl_report *rep = rl_report_alloc(title);
    fn(&ctx, rep);
    rl_report_print(rep, stdout);
    char md[64];
    snprintf(md, sizeof md, "%s.md", name);
    char *path = rl_path_join(ctx.out, md);
    rl_outfile *o = rl_outfile_open(path);
    rl_report_markdown(rep, o->f);
    rl_outfile_commit(o);
    printf("wrote %s and the TSV files and figures beside it\n", path);
    free(path);
    rl_report_free(rep);
    return 0;
}
