/* cmd_plot.c: `routelab plot`, a drawn figure restyled from its .plot file
 * and the TSVs beside it (program/report/plot.h, rl_plot_redraw). */
#include <stdio.h>

#include "commands.h"
#include "../../base/core/opts.h"
#include "../../base/core/util.h"
#include "../report/plot.h"

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL;
    double scale = 0;
    int font = 0;
    rl_opt opts[] = {
        RL_OPT_STR_("out", &out, "the figure to write: FILE.png, FILE.svg or FILE.pdf (the kind by its extension)"),
        RL_OPT_DBL_("scale", &scale, "its size, a multiple of the drawn one (0: as drawn)", 0, 8, RL_LO | RL_HI),
        RL_OPT_INT_("font", &font, "its font size in points (0: as drawn)", 0, 72),
        RL_OPT_END_
    };
    char *pos[2];
    const int np = rl_opts_parse("plot", "FIGURE.plot --out FILE.png|svg|pdf [--scale S] [--font N]",
                                 "Draw a figure again from the .plot file routelab wrote beside it (every\n"
                                 "figure has one: what drew it) and the TSV files of that folder, with\n"
                                 "another size, font or kind: a committed figure restyled for a paper.\n"
                                 "Example: routelab plot grids/ratio.plot --out ratio.pdf --scale 0.75",
                                 opts, argc, argv, pos, 2);
    if (np != 1)
        rl_die("plot: needs one FIGURE.plot argument (see routelab plot --help)");
    if (!out)
        rl_die("plot: --out FILE.png|svg|pdf is needed");
    rl_err err;
    rl_check_in("plot", rl_plot_redraw(pos[0], out, scale, font, &err), &err);
    printf("plot: wrote %s\n", out);
    return 0;
}
