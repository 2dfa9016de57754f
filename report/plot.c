/* plot.c: figures by gnuplot, each written through a temporary file. */
#include "plot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/util.h"

/* plots/ next to the binary's folder (build/routelab -> plots/), or
 * $ROUTELAB_PLOTS. */
static char *plots_dir(void)
{
    const char *env = getenv("ROUTELAB_PLOTS");
    if (env) {
        char *p = strdup(env);
        if (!p)
            rl_die("out of memory");
        return p;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        rl_die("cannot locate the plots/ folder (set ROUTELAB_PLOTS)");
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    char *p;
    if (asprintf(&p, "%s/../plots", exe) < 0)
        rl_die("out of memory");
    return p;
}

static void run_gnuplot(const char *script, const char *plotdir, const char *dir, const char *outfile,
                        const char *term, const char *vars)
{
    char *tmp, *defs;
    if (asprintf(&tmp, "%s.tmp.%ld", outfile, (long)getpid()) < 0 ||
        asprintf(&defs, "plotdir='%s'; dir='%s'; out='%s'; term='%s'; %s", plotdir, dir, tmp, term,
                 vars ? vars : "") < 0)
        rl_die("out of memory");
    pid_t pid = fork();
    if (pid < 0)
        rl_die("cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", defs, script, (char *)NULL);
        fprintf(stderr, "routelab: cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || access(tmp, F_OK) != 0) {
        unlink(tmp);
        rl_die("gnuplot failed on %s (status %d)", script, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (rename(tmp, outfile) != 0)
        rl_die("cannot rename into %s: %s", outfile, strerror(errno));
    free(tmp);
    free(defs);
}

void rl_plot(const rl_outdir *out, const char *script, const char *outname, const char *vars)
{
    char *pd = plots_dir(), *sp, *png, *svg;
    if (asprintf(&sp, "%s/%s.gp", pd, script) < 0 || asprintf(&png, "%s/%s.png", out->dir, outname) < 0 ||
        asprintf(&svg, "%s/%s.svg", out->dir, outname) < 0)
        rl_die("out of memory");
    if (access(sp, R_OK) != 0)
        rl_die("missing plot script %s", sp);
    run_gnuplot(sp, pd, out->dir, png, "png", vars);
    if (out->svg)
        run_gnuplot(sp, pd, out->dir, svg, "svg", vars);
    free(pd);
    free(sp);
    free(png);
    free(svg);
}
