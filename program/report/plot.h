/* plot.h: figures drawn by gnuplot from the plots/ scripts.
 *
 * No string of ours or of a user is ever parsed by gnuplot as code: gnuplot
 * runs plots/run.gp with `-c`, and every path and value reaches it as an
 * argument (ARGV), read as data.  A figure variable is a fixed identifier of
 * our code and a typed value; plots/run.gp assigns it from ARGV. */
#ifndef RL_PLOT_H
#define RL_PLOT_H

#include "../../base/core/err.h"
#include "outdir.h"

typedef enum { RL_PV_INT, RL_PV_REAL, RL_PV_STR } rl_pv_kind;

/* One variable of a figure script: name = value.  name must be an identifier
 * ([A-Za-z_][A-Za-z0-9_]*, not plotdir/dir/out/term, not starting with rl_). */
typedef struct {
    const char *name;
    rl_pv_kind kind;
    long i;        /* RL_PV_INT */
    double r;      /* RL_PV_REAL (finite) */
    const char *s; /* RL_PV_STR: any bytes but NUL */
} rl_plotvar;

#define RL_PV_I(n, v) ((rl_plotvar){ .name = (n), .kind = RL_PV_INT, .i = (v) })
#define RL_PV_R(n, v) ((rl_plotvar){ .name = (n), .kind = RL_PV_REAL, .r = (v) })
#define RL_PV_S(n, v) ((rl_plotvar){ .name = (n), .kind = RL_PV_STR, .s = (v) })
#define RL_NVARS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* At most this many RL_PV_STR variables per figure (gnuplot 5.4 passes
 * nine arguments to a -c script; run.gp uses the first six). */
#define RL_PLOT_MAXSTR 3

/* Run plots/SCRIPT.gp with gnuplot: variables `plotdir`, `dir` (the output
 * folder), `out` (the image file), `term` ("png" or "svg") and vars[0..n-1]
 * (vars may be NULL when n is 0).  Writes OUTNAME.png and OUTNAME.svg
 * through a temporary file, renamed into place only once the image is
 * complete.  gnuplot's messages never reach stderr: on success they are kept
 * in OUTNAME.gnuplot.log (removed when gnuplot printed nothing); on failure
 * the process ends with one line (status 1) quoting gnuplot's error. */
/* What every figure needs, checked before a command writes anything:
 * gnuplot on PATH, plots/run.gp and plots/S.gp for each name S of scripts
 * (NULL-terminated; scripts may be NULL) readable.  RL_EINTERNAL naming what
 * is missing (a missing tool is no bad input); RL_OK on ranks other than 0,
 * which draw nothing. */
rl_status rl_plot_check(const char *const *scripts, rl_err *err);

void rl_plot(const rl_outdir *out, const char *script, const char *outname, const rl_plotvar *vars, int n);

/* Every figure rl_plot draws leaves OUTNAME.plot beside it: its first line
 * this magic, then "script\tS", "names\tN", "numbers\tV" and one
 * "string\tX" per string variable (backslash, newline and tab escaped):
 * what drew it, from the TSVs of its own folder. */
#define RL_PLOT_SIDECAR_MAGIC "routelab-plot 1"

/* `routelab plot FILE.plot --out OUT`: the figure FILE.plot describes drawn
 * again into OUT (.png, .svg or .pdf, by its extension) from the TSVs of
 * FILE.plot's folder, its size scaled by scale (0: as drawn) and its font
 * set to font points (0: as drawn).  RL_EINPUT for a file that is no .plot
 * file, an OUT of another kind or that is an input, a scale outside (0, 8]
 * or a font outside [1, 72]; RL_EINTERNAL when gnuplot fails. */
rl_status rl_plot_redraw(const char *plotfile, const char *outfile, double scale, int font, rl_err *err);

#endif
