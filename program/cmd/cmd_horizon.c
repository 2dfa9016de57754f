/* cmd_horizon.c: `routelab horizon`, the per-block mixing windows of a
 * trained model's step law and the horizon they predict (model/steplaw.h). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../../base/core/opts.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../reproduce/horizon.h"
#include "../../theory/mixstay_forms.h"

/* PaTH: per (layer, head) the first-harmonic D, its noise, the 3-SE upper
 * end and the arg pair; the score, their mean */
static void print_transport(const char *ckpath, const char *out, const rl_steplaw *s)
{
    if (s->routes == 0) { /* closed (random-hh): every head alike */
        printf("horizon: %s: steps transport with a closed mean E M = a I, a = %.6f, T = %ld, d = %d, eps = %g "
               "(routelab's closed form, docs/model/path-transport.md#random-hh)\n", ckpath, exp(s->logchi[0]), s->ctx, s->hd, s->eps);
        printf("horizon: every one of the %d heads: W(eps) = %ld; D(T, %dT) = %.6g (far %ld, near %ld)\n",
               s->layers * s->lanes, s->window[0], RL_MIXSTAY_MULT, s->tr[0].d1, s->tr[0].far, s->tr[0].near);
        if (s->horizon < 0)
            printf("horizon: predicted H = none (%s)\n", s->window[0] < 0 ? "the transport never mixes" : "the transport mixes within T");
        else
            printf("horizon: predicted H = %ld (%.3g T)\n", s->horizon, (double)s->horizon / s->ctx);
        printf("horizon: routelab's first-harmonic mix-or-stay score at %dT: %.4g\n", RL_MIXSTAY_MULT, s->score);
        printf("horizon: wrote %s\n", out);
        return;
    }
    printf("horizon: %s: steps transport (PaTH), T = %ld, d = %d, %ld routes (windows over the validation "
           "stream) in two halves\n", ckpath, s->ctx, s->hd, s->routes);
    printf("%6s %6s %12s %12s %12s %8s %8s\n", "layer", "head", "D", "SE", "D_hi(3SE)", "far", "near");
    for (int b = 0; b < s->layers * s->lanes; b++)
        printf("%6d %6d %12.6f %12.6f %12.6f %8ld %8ld\n", b / s->lanes, b % s->lanes, s->tr[b].d1, s->tr[b].se,
               s->tr[b].hi, s->tr[b].far, s->tr[b].near);
    printf("horizon: no angles, no windows: no predicted horizon\n");
    printf("horizon: routelab's first-harmonic mix-or-stay score at %dT (mean over the heads of the far mean "
           "transports' distance d_1 to the nearest one met within T): %.4f\n", RL_MIXSTAY_MULT, s->score);
    printf("horizon: wrote %s\n", out);
}

int cmd_horizon(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *out = NULL;
    long tokens = RL_HORIZON_TOKENS, seed = 42;
    double eps = RL_HORIZON_EPS;
    int threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_LONG_("tokens", &tokens, "validation tokens the learned steps (pemb, lf) are read on "
                                        "(0: all; path: 256 windows over the whole stream)", 0, 1e12),
        RL_OPT_DBL_("eps", &eps, "window tolerance: W_b = least n with |chi_b|^n <= eps", 0, 1, RL_LO_OPEN | RL_HI_OPEN),
        RL_OPT_STR_("out", &out, "TSV output, one row per block (default: horizon.tsv beside the checkpoint)"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("horizon", "--ckpt FILE --data DIR|FILE [--tokens 16384] [--eps 0.1] [--out FILE]",
                  "The model's rotation read as SO(2) blocks: per block the one-step characteristic\n"
                  "function |chi_b| of its step law (random, random_pos: the closed form of\n"
                  "U(-omega_b, omega_b), U(0, 2 omega_b), the same |chi_b|;\n"
                  "pemb, lf: the model's own steps on the first --tokens validation tokens; rope:\n"
                  "constant angles), the mixing window W_b(eps), and the predicted extrapolation\n"
                  "horizon H = min { W_b : W_b > T } (docs/theory/claim1-mixing.md#mixing-window):\n"
                  "blocks with W_b <= T are noise in training, the first coherent block to mix\n"
                  "beyond T changes regime at H.\n"
                  "\"none\": no block mixes beyond T (constant angles) or no block rotation.\n"
                  "Beside them routelab's mix-or-stay reading (docs/theory/claim1-mixing.md#mix-or-stay,\n"
                  "docs/theory/farpred.md#mix-or-stay-rank-rule): each block's D_b(T, 16T), the\n"
                  "far angle laws' Watson distance to the nearest law met within T\n"
                  "(closed laws from their harmonics; pemb, lf from the steps' harmonics on the\n"
                  "text), and the model's score, their mean (horizon.tsv: mixstay, mixstay_hi).\n"
                  "path (no angles): per layer and head routelab's first-harmonic mix-or-stay\n"
                  "distance D(T, 16T) of the mean transport E[H_i ... H_(i-delta+1)] measured on\n"
                  "the text's windows (model/path_transport.h), with its standard error.\n"
                  "random-hh: the same distance in closed form (E M = (1 - 2/hd) I per step),\n"
                  "with the window of |E M| and the horizon it predicts\n"
                  "(docs/model/path-transport.md#random-hh).",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    rl_err err;
    if (!ckpath || !data)
        rl_check_in("horizon", rl_fail(&err, RL_EINPUT, "--ckpt and --data are required"), &err);
    char *def = NULL;
    if (!out) {
        char *tmp = strdup(ckpath);
        def = rl_path_join(dirname(tmp), "horizon.tsv");
        free(tmp);
        out = def;
    }
    rl_path_use in[4], outs[1] = { { "--out", out, 0 } };
    char *keep[2];
    in[0] = (rl_path_use){ "--ckpt", ckpath, 0 };
    rl_paths_data("--data", data, in + 1, keep);
    rl_status pst = rl_paths_check(in, 4, outs, 1, &err);
    if (pst == RL_OK)
        pst = rl_output_check(out, &err);
    free(keep[0]);
    free(keep[1]);
    rl_check_in("horizon", pst, &err);
    rl_steplaw s;
    rl_status st = rl_horizon_run(ckpath, data, tokens, seed, eps, out, &s, &err);
    if (st) {
        rl_err_prefix(&err, "horizon");
        rl_err_exit(&err);
    }
    if (s.kind == RL_STEPS_TRANSPORT) {
        print_transport(ckpath, out, &s);
        rl_steplaw_free(&s);
        free(def);
        return 0;
    }
    printf("horizon: %s: step law %s, T = %ld, eps = %g", ckpath, rl_steps_kind_name(s.kind), s.ctx, s.eps);
    if (s.kind == RL_STEPS_MEASURED)
        printf(", %ld steps per block", s.positions);
    printf("\n%6s %6s %6s %14s %16s\n", "block", "layer", "lane", "|chi|", "W(eps)");
    for (int b = 0; b < s.layers * s.lanes; b++)
        printf("%6d %6d %6d %14.10f %16ld\n", b, b / s.lanes, b % s.lanes, exp(s.logchi[b]), s.window[b]);
    printf("horizon: %d of %d blocks mix within T; %d mix beyond it; predicted H = ", s.at_ctx,
           s.layers * s.lanes, s.beyond);
    if (s.horizon < 0)
        printf("none (%s)\n", s.kind == RL_STEPS_NONE ? "no block rotation" : "no block mixes beyond T");
    else
        printf("%ld (%.3g T)\n", s.horizon, (double)s.horizon / s.ctx);
    if (s.layers * s.lanes > 0)
        printf("horizon: routelab's mix-or-stay score at %dT (mean over the blocks of the far laws' Watson "
               "distance to the nearest law met within T, docs/theory/claim1-mixing.md#mix-or-stay): %.4f\n", RL_MIXSTAY_MULT, s.score);
    printf("horizon: wrote %s\n", out);
    rl_steplaw_free(&s);
    free(def);
    return 0;
}
