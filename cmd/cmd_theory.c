/* cmd_theory.c: `routelab theory`, every experiment and the report theory.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "../core/util.h"
#include "../experiments/experiments.h"

static const struct {
    const char *name, *title;
    int (*fn)(const rl_exp_ctx *, rl_report *);
} claims[] = {
    { "mixing", "Claim 1: the mixing window", rl_exp_mixing },
    { "concentration", "Claim 2a: concentration of far scores (Lévy, Hoeffding)", rl_exp_concentration },
    { "scoregap", "Claim 2b: the score gap", rl_exp_scoregap },
    { "farmass", "Claim 3: the far-mass lower bound, and ALiBi", rl_exp_farmass },
    { "values", "Claim 4: value-side incoherence", rl_exp_values },
    { "stylized", "Claim 5 in miniature: one attention layer, fitted inside a window, evaluated far beyond", rl_exp_stylized },
};
#define NCLAIMS (sizeof claims / sizeof *claims)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int cmd_theory(int argc, char **argv)
{
    rl_exp_ctx ctx = rl_exp_default("results/theory");
    const char *only = NULL;
    rl_opt opts[] = {
        RL_OPT_STR_("text", &ctx.text, "text file for token-driven steps (default: data/brown/train.bin, else README.md)"),
        RL_OPT_STR_("only", &only, "comma-separated subset of mixing,concentration,scoregap,farmass,values,stylized"),
        RL_EXP_OPTS_(&ctx),
        RL_OPT_END_
    };
    ctx.out = "results/theory";
    rl_exp_parse("theory", "[--preset quick|full] [--out DIR] [--seed S] [--threads N] [--svg]",
                 "Run every Monte Carlo experiment (mixing, concentration, scoregap, farmass, values,\n"
                 "stylized) and write the theory report DIR/theory.md: one section per claim with its\n"
                 "figures, the table of predicted vs measured values and the verdicts.  quick (default)\n"
                 "takes about 3 minutes on 2 cores, full under an hour.",
                 opts, argc, argv, &ctx);
    if (only) {
        char buf[256];
        snprintf(buf, sizeof buf, ",%s,", only);
        for (char *p = strtok(strdup(only), ","); p; p = strtok(NULL, ",")) {
            size_t i;
            for (i = 0; i < NCLAIMS && strcmp(p, claims[i].name); i++)
                ;
            if (i == NCLAIMS)
                rl_die("theory: --only: unknown experiment '%s'", p);
        }
    }
    rl_report *rep[NCLAIMS] = { 0 };
    double secs[NCLAIMS] = { 0 }, t_all = now();
    for (size_t i = 0; i < NCLAIMS; i++) {
        if (only) {
            char key[64], list[320];
            snprintf(key, sizeof key, ",%s,", claims[i].name);
            snprintf(list, sizeof list, ",%s,", only);
            if (!strstr(list, key))
                continue;
        }
        printf("[%zu/%zu] %s ...\n", i + 1, NCLAIMS, claims[i].name);
        fflush(stdout);
        double t0 = now();
        rep[i] = rl_report_alloc(claims[i].title);
        claims[i].fn(&ctx, rep[i]);
        secs[i] = now() - t0;
        rl_report_print(rep[i], stdout);
        printf("    (%.1f s)\n", secs[i]);
    }
    t_all = now() - t_all;

    char *path = rl_path_join(ctx.out, "theory.md");
    rl_outfile *o = rl_outfile_open(path);
    FILE *fp = o->f;
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&tt));
    fprintf(fp, "# routelab theory report\n\nProduced by `routelab theory --preset %s --seed %ld --threads %d` "
                "on %s in %.0f s. Every number below is measured in this run; predicted values come from "
                "the closed forms of theory/ (derivations in NOTES.md). A check *holds* when the "
                "measurement agrees with the prediction within its stated uncertainty (5 standard "
                "errors unless said otherwise); *info* rows are measurements without a pass/fail.\n\n",
            ctx.preset == RL_PRESET_FULL ? "full" : "quick", ctx.seed, ctx.threads, date, t_all);
    fprintf(fp, "| claim | checks that hold | checks that do not | time (s) |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NCLAIMS; i++)
        if (rep[i]) {
            int y, n;
            rl_report_counts(rep[i], &y, &n);
            fprintf(fp, "| [%s](#%s) | %d | %d | %.1f |\n", claims[i].title, claims[i].name, y, n, secs[i]);
        }
    fputc('\n', fp);
    char *cpath = rl_path_join(ctx.out, "checks.tsv");
    rl_outfile *co = rl_outfile_open(cpath);
    fprintf(co->f, "experiment\tverdict\tcheck\tpredicted\tmeasured\n");
    for (size_t i = 0; i < NCLAIMS; i++)
        if (rep[i]) {
            fprintf(fp, "<a id=\"%s\"></a>\n\n", claims[i].name);
            rl_report_markdown(rep[i], fp);
            rl_report_tsv(rep[i], co->f, claims[i].name);
            rl_report_free(rep[i]);
        }
    rl_outfile_commit(co);
    free(cpath);
    rl_outfile_commit(o);
    printf("theory report: %s (%.0f s)\n", path, t_all);
    free(path);
    return 0;
}
