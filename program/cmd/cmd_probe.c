/* cmd_probe.c: `routelab probe`, far mass and logits inside a trained model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "../../base/core/lock.h"
#include "../../base/core/opts.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../report/plot.h"
#include "../../model/ckpt.h"
#include "../../model/data.h"
#include "../../model/probe.h"

#define MAX_LENGTHS 16

/* A table that cannot be written (a full disk): the other's temporary goes,
 * and so does the folder when this run made it, with a table already
 * renamed into it.  In a folder that was there before, a table renamed
 * before the failure stays: it is complete. */
static void fail_outputs(char *made, rl_outfile *a, rl_outfile *b, rl_err *err)
{
    if (a)
        rl_outfile_abort(a);
    if (b)
        rl_outfile_abort(b);
    free(made); /* tracked: the failure removes it (base/core/lock.h) */
    rl_check_in("probe", err->status ? err->status : RL_EINTERNAL, err);
    abort(); /* not reached */
}

/* The bound's violations counted in the written probe.tsv: columns 12 (the
 * max |logit| form) and 18 (the realised range form).  Any would be a bug in
 * the kernel or the probe. */
static double bound_violations(const char *pp)
{
    double viol = 0;
    FILE *f = fopen(pp, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        double v[18];
        if (line[0] != 'l' &&
            sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15],
                   &v[16], &v[17]) == 18)
            viol += v[11] + v[17];
    }
    if (f)
        fclose(f);
    return viol;
}

int cmd_probe(int argc, char **argv)
{
    const char *ckpath = NULL, *data = NULL, *lengths = NULL, *out = "results/probe";
    long windows = 4, seed = 42;
    int threads = rl_ncores();
    rl_opt opts[] = {
        RL_OPT_STR_("ckpt", &ckpath, "checkpoint written by routelab train"),
        RL_OPT_STR_("data", &data, "data set: DIR (its val.bin) or FILE (its last 10%)"),
        RL_OPT_STR_("lengths", &lengths, "comma-separated window lengths (none: T and 16 T)"),
        RL_OPT_LONG_("windows", &windows, "windows per length (the eval protocol's first ones)", 1, 1e6),
        RL_OPT_STR_("out", &out, "output folder: probe.tsv, distance.tsv, figures"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("probe", "--ckpt FILE --data DIR|FILE [--lengths L1,L2] [--windows 4] [--out DIR]",
                  "Attention diagnostics of a trained model: for the last block of 64 queries of\n"
                  "each evaluation window (the same windows as routelab eval), every layer and\n"
                  "head: the attention mass on keys at distance >= W (far mass rho_D, for W =\n"
                  "T/4 .. L/2), the largest logit magnitude lambda, the bound\n"
                  "M_L / (M_L + K e^{2 lambda}) with K = W and M_L = i + 1 - W, its shift-invariant\n"
                  "form M_L / (M_L + K e^{Delta}) (Delta = max near - min far logit), the length\n"
                  "L*(1/2) = K + K e^{Delta} where that forces rho_D >= 1/2, and the mean logit\n"
                  "and attention weight against distance.  Writes probe.tsv, distance.tsv and\n"
                  "figures far mass vs W against the bound, and logit vs distance.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    long Ls[MAX_LENGTHS];
    int nl = 0;
    if (lengths) /* before the checkpoint is read: a malformed list fails at once */
        nl = rl_parse_longs("probe: --lengths", lengths, Ls, MAX_LENGTHS);
    rl_ckpt_meta meta;
    rl_dataset ds;
    rl_gpt *m;
    rl_err err;
    /* before any work: the folder is not an input, and the figures can be drawn */
    const rl_path_use in[] = { { "--ckpt", ckpath, 0 }, { "--data", data, 0 } }, outs[] = { { "--out", out, 1 } };
    static const char *const scripts[] = { "probe_farmass", "probe_distance", NULL };
    rl_check_in("probe", rl_paths_check(in, 2, outs, 1, &err), &err);
    rl_check_in("probe", rl_plot_check(scripts, &err), &err);
    if (rl_ckpt_open_eval("probe", ckpath, data, &m, &meta, &ds, &err)) {
        rl_err_prefix(&err, "probe");
        rl_err_exit(&err);
    }
    const long T = m->cfg.ctx;
    if (!lengths)
        nl = rl_probe_default_lengths(T, Ls);
    long maxL;
    if (rl_eval_check_lengths(m, Ls, nl, 2, &ds, data, &maxL, &err)) {
        rl_err_prefix(&err, "probe");
        rl_err_exit(&err);
    }
    /* the folder only now, after every check; a failed write undoes it */
    char *made = NULL;
    rl_check_in("probe", rl_mkdirs_new(out, &made, &err), &err);
    /* one writer per folder; a folder another holds is not undone: it is
     * theirs.  Ours is tracked: a figure that fails later, or a signal,
     * takes the folder too (base/core/lock.h) */
    rl_lock *lk;
    rl_check_in("probe", rl_lock_out(out, &lk, &err), &err);
    if (made)
        rl_cleanup_track(made, 1);
    char *pp = rl_path_join(out, "probe.tsv"), *dp = rl_path_join(out, "distance.tsv");
    rl_outfile *po = NULL, *dout = NULL;
    if (rl_outfile_create(pp, &po, &err) != RL_OK || rl_outfile_create(dp, &dout, &err) != RL_OK)
        fail_outputs(made, po, NULL, &err);
    rl_probe_write_headers(po->f, dout->f);
    rl_gpt_eval *ev = rl_gpt_eval_alloc(m, maxL);
    if (!ev)
        fail_outputs(made, po, dout, (rl_fail(&err, RL_ENOMEM, "no memory for the evaluation workspace"), &err));
    printf("probe: %s (%s, %d layers x %d heads, trained at %ld), %ld windows per length\n", ckpath,
           rl_pos_name(m->cfg.pos), m->cfg.layers, m->cfg.heads, T, windows);
    for (int i = 0; i < nl; i++) {
        if (rl_probe_length(m, ev, &ds.val, Ls[i], windows, (uint64_t)seed, po->f, dout->f) != RL_OK)
            fail_outputs(made, po, dout, (rl_fail(&err, RL_ENOMEM, "out of memory at length %ld", Ls[i]), &err));
        char what[64];
        if (rl_gpt_eval_bad_layer(ev) >= 0) /* gnuplot's failure on NaN tables, status 1, before */
            fail_outputs(made, po, dout,
                         (rl_fail(&err, RL_EINPUT, "%s: the activations of %s are not finite at length %ld (its "
                                  "weights overflow float)", ckpath, rl_gpt_eval_bad_what(m, ev, what, sizeof what),
                                  Ls[i]), &err));
        printf("probe: L = %ld done\n", Ls[i]);
        fflush(stdout);
    }
    if (rl_outfile_close(po, &err) != RL_OK)
        fail_outputs(made, NULL, dout, &err);
    if (rl_outfile_close(dout, &err) != RL_OK)
        fail_outputs(made, NULL, NULL, &err);
    free(made);
    const double viol = bound_violations(pp);
    const rl_outdir od = { out };
    const rl_plotvar vars[] = { RL_PV_I("L", maxL), RL_PV_I("T", T), RL_PV_S("name", rl_pos_name(m->cfg.pos)),
                                RL_PV_I("layers", m->cfg.layers) };
    rl_plot(&od, "probe_farmass", "probe", vars, RL_NVARS(vars));
    rl_plot(&od, "probe_distance", "distance", vars, RL_NVARS(vars));
    printf("probe: wrote %s, %s, probe.png, distance.png; bound violations: %.0f\n", pp, dp, viol);
    free(pp);
    free(dp);
    rl_gpt_eval_free(ev);
    rl_gpt_free(m);
    rl_data_free(&ds);
    return 0;
}
