/* run.c: running an experiment as its own subcommand. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/util.h"
#include "experiments.h"

/* A file relative to the project folder (the binary lives in PROJECT/build),
 * for runs started from another directory. */
static char *project_file(const char *name)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char *p;
    if (asprintf(&p, "%s/../%s", exe, name) < 0)
        return NULL;
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

const char *rl_exp_text(const rl_exp_ctx *ctx)
{
    static const char *brown = "data/brown/train.bin";
    if (ctx->text)
        return ctx->text;
    if (access(brown, R_OK) == 0)
        return brown;
    /* not in the working directory: the project's own data, else its README
     * (the one string this keeps is the process's, freed at exit) */
    char *p = project_file(brown);
    if (!p)
        p = project_file("README.md");
    if (!p)
        rl_die("no text for token-driven steps: give --text FILE (or run `routelab data brown`)");
    return p;
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
