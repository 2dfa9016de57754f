/* ctx.c: an experiment's context: defaults and the driving text. */
#include "ctx.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/core/tokfile.h"
#include "../base/core/util.h"
#include "../sampling/family_ops.h"
#include "../mc/sweep_cases.h"

rl_exp_ctx rl_exp_default(const char *out)
{
    rl_exp_ctx c = { { out }, 1, rl_ncores(), RL_PRESET_QUICK, NULL, NULL };
    return c;
}

/* A file relative to the project folder (the binary lives in PROJECT/build),
 * for runs started from another directory: written into buf, NULL when it
 * is not there (or the path does not fit). */
static const char *project_file(const char *name, char *buf, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    int k = snprintf(buf, n, "%s/../%s", exe, name);
    if (k < 0 || (size_t)k >= n || access(buf, R_OK) != 0)
        return NULL;
    return buf;
}

const char *rl_exp_text(const rl_exp_ctx *ctx, char *buf, size_t n)
{
    static const char *brown = "data/brown/train.bin";
    if (ctx->text)
        return ctx->text;
    if (access(brown, R_OK) == 0)
        return brown;
    /* not in the working directory: the project's own data, else its README */
    const char *p = project_file(brown, buf, n);
    return p ? p : project_file("README.md", buf, n);
}

rl_status rl_exp_check(const rl_exp_ctx *ctx, unsigned uses, rl_err *err)
{
    if (!(uses & RL_CLAIM_TEXT))
        return RL_OK;
    char buf[PATH_MAX];
    const char *path = rl_exp_text(ctx, buf, sizeof buf);
    if (!path)
        return rl_fail(err, RL_EINPUT,
                       "no text for token-driven steps: give --text FILE (or run `routelab data brown`)");
    /* read it as the experiment will (byte tokens), so that a bad file fails
     * now rather than after minutes of Monte Carlo */
    rl_tokens t;
    RL_TRY(rl_tokens_read(path, 256, &t, err));
    free(t.tok);
    return RL_OK;
}

int rl_exp_sweep_of(const char *claim_id)
{
    static const struct { const char *id; rl_sweep s; } sweeps[] = {
        { "mixing", RL_SWEEP_MIXING },   { "concentration", RL_SWEEP_CONCENTRATION },
        { "farmass", RL_SWEEP_FARMASS }, { "values", RL_SWEEP_VALUES },
        { "scoregap", RL_SWEEP_SCOREGAP },
    };
    for (size_t i = 0; i < sizeof sweeps / sizeof *sweeps; i++)
        if (!strcmp(claim_id, sweeps[i].id))
            return (int)sweeps[i].s;
    return -1;
}

const char *rl_exp_families_help(int s, char *buf, size_t n)
{
    size_t off = (size_t)snprintf(buf, n, "comma-separated step families to sweep, of");
    for (int pass = 0; pass < 2; pass++) { /* every family with a case, then the default's */
        if (pass && off < n)
            off += (size_t)snprintf(buf + off, n - off, "; without it:");
        for (int k = 0; k < RL_FAM_COUNT && off < n; k++)
            if (rl_sweep_has_family((rl_sweep)s, k, pass) && off < n)
                off += (size_t)snprintf(buf + off, n - off, " %s", rl_family_name((rl_family_kind)k));
    }
    return buf;
}

rl_status rl_exp_families_check(const rl_exp_ctx *ctx, int s, rl_err *err)
{
    rl_sweep_case c[RL_SWEEP_CASES_MAX];
    int n;
    if (!ctx->families)
        return RL_OK;
    if (!*ctx->families)
        return rl_fail(err, RL_EINPUT, "--families is empty");
    return rl_sweep_cases((rl_sweep)s, 16, ctx->families, c, RL_SWEEP_CASES_MAX, &n, err);
}
