/* cmd_theory.c: `routelab theory`, every experiment and the report theory.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "../../base/core/util.h"
#include "../../experiments/claims.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The claims to run into run[]: all, or --only's (only: its text), each
 * named once. */
static void select_claims(const char *only, int *run)
{
    for (int i = 0; i < rl_nclaims; i++)
        run[i] = !only;
    if (!only)
        return;
    const char *p = only;
    for (;;) {
        size_t n = strcspn(p, ",");
        char id[64];
        if (n == 0 || n >= sizeof id)
            rl_die("theory: --only: '%s' is not a comma-separated list of claim ids (routelab claims)", only);
        snprintf(id, sizeof id, "%.*s", (int)n, p);
        const rl_claim *c = rl_claim_find(id);
        if (!c)
            rl_die("theory: --only: unknown experiment '%s'", id);
        if (run[c - rl_claims])
            rl_die("theory: --only: '%s' is named twice", id);
        run[c - rl_claims] = 1;
        if (!p[n])
            break;
        p += n + 1;
    }
}

/* theory.md's table of verdicts: a row per claim that ran (rep[i] not
 * NULL), its count of each kind and its seconds, then the totals.  A column
 * per kind, holds (empirical) and verified (closed forms) apart; absent at
 * this scale (the effect rule, which no claim's row names) only when some
 * check has it. */
static void write_totals(FILE *fp, rl_report *const *rep, const double *secs, double t_all)
{
    int tot[RL_NVERDICT] = { 0 }, show[RL_NVERDICT];
    for (int i = 0; i < rl_nclaims; i++)
        if (rep[i]) {
            int n[RL_NVERDICT];
            rl_report_kinds(rep[i], n);
            for (int k = 0; k < RL_NVERDICT; k++)
                tot[k] += n[k];
        }
    for (int k = 0; k < RL_NVERDICT; k++)
        show[k] = k != RL_V_ABSENT || tot[k] > 0;
    fprintf(fp, "| claim |");
    for (int k = 0; k < RL_NVERDICT; k++)
        if (show[k])
            fprintf(fp, " %s |", rl_verdict_name(k));
    fprintf(fp, " time (s) |\n|---|");
    for (int k = 0; k < RL_NVERDICT; k++)
        if (show[k])
            fprintf(fp, "---|");
    fprintf(fp, "---|\n");
    for (int i = 0; i < rl_nclaims; i++)
        if (rep[i]) {
            int n[RL_NVERDICT];
            rl_report_kinds(rep[i], n);
            fprintf(fp, "| [%s](#%s) |", rl_report_title(rep[i]), rl_claims[i].id);
            for (int k = 0; k < RL_NVERDICT; k++)
                if (show[k])
                    fprintf(fp, " %d |", n[k]);
            fprintf(fp, " %.1f |\n", secs[i]);
        }
    fprintf(fp, "| all |");
    for (int k = 0; k < RL_NVERDICT; k++)
        if (show[k])
            fprintf(fp, " %d |", tot[k]);
    fprintf(fp, " %.1f |\n\n", t_all);
}

int cmd_theory(int argc, char **argv)
{
    rl_exp_ctx ctx = rl_exp_default("results/theory");
    const char *only = NULL;
    /* --only's choices, read from the claims' registry (the help once
     * did not list them) */
    char only_help[512];
    int at = snprintf(only_help, sizeof only_help, "comma-separated subset of the claims:");
    for (int i = 0; i < rl_nclaims && at > 0 && at < (int)sizeof only_help; i++)
        at += snprintf(only_help + at, sizeof only_help - (size_t)at, "%s%s", i ? "," : " ", rl_claims[i].id);
    rl_opt opts[] = {
        RL_OPT_STR_("text", &ctx.text, "text file for token-driven steps (default: data/brown/train.bin, else README.md)"),
        RL_OPT_STR_("only", &only, only_help),
        RL_EXP_OPTS_(&ctx),
        RL_OPT_END_
    };
    cmd_exp_parse("theory", "[--preset quick|full] [--out DIR] [--seed S] [--threads N]",
                  "Run every claim's Monte Carlo experiment (the rows of `routelab claims`, in order)\n"
                  "and write the theory report DIR/theory.md: one section per claim with its\n"
                  "figures, the table of predicted vs measured values and the verdicts.  Time on 2\n"
                  "cores (the one place it is stated; docs/verdicts.md#window-rule-changes,\n"
                  "NOTES.md#theory-report): quick (default) about 2 minutes (111 s with\n"
                  "--threads 1), full about 25 minutes.",
                  opts, argc, argv, &ctx);
    int run[rl_nclaims];
    unsigned uses = 0;
    select_claims(only, run);
    for (int i = 0; i < rl_nclaims; i++)
        if (run[i])
            uses |= rl_claims[i].uses;
    if (ctx.text && !(uses & RL_CLAIM_TEXT))
        rl_die("theory: --text does not apply: no claim of --only reads a text (mixing does)");
    char *made = cmd_exp_check("theory", &ctx, uses);
    rl_report *rep[rl_nclaims];
    double secs[rl_nclaims], t_all = now();
    char title[256];
    for (int i = 0; i < rl_nclaims; i++) {
        rep[i] = NULL;
        secs[i] = 0;
        if (!run[i])
            continue;
        printf("[%d/%d] %s ...\n", i + 1, rl_nclaims, rl_claims[i].id);
        fflush(stdout);
        double t0 = now();
        rep[i] = rl_report_alloc(rl_claim_heading(&rl_claims[i], title, sizeof title));
        rl_err err;
        rl_status st = rl_claim_do(&rl_claims[i], &ctx, rep[i], &err);
        if (st != RL_OK)
            cmd_exp_fail("theory", made, st, &err);
        secs[i] = now() - t0;
        rl_report_print(rep[i], stdout);
        printf("    (%.1f s)\n", secs[i]);
    }
    t_all = now() - t_all;

    char *path = rl_path_join(ctx.out.dir, "theory.md");
    rl_outfile *o = rl_outfile_open(path);
    FILE *fp = o->f;
    time_t tt = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&tt));
    fprintf(fp, "# routelab theory report\n\nProduced by `routelab theory --preset %s --seed %ld --threads %d` "
                "on %s in %.0f s. Every number below is measured in this run; predicted values come from "
                "the closed forms of theory/ (derivations in NOTES.md). Each check is decided by a rule fixed "
                "in the claims table before the run (the rules are listed under each claim's checks), and the "
                "rule fixes too what its pass is evidence of. *holds*: empirical support for a claim of the "
                "study that could have failed (the sign rule of the stylized layer); *verified*: a numerical "
                "confirmation of a closed form, an exact law or a proved bound (rules agree, bound, exact, "
                "agree-n, window; a check of a sampler's law is labelled so): worth having, but not evidence "
                "about the study's claims, so counted apart; *contradicted*: the measurement is against the "
                "claim, or, for a verification, the formula or the code is wrong; *unresolved*: this run is "
                "too small to decide (the row says what would decide it); *no prediction*: the prediction or "
                "the statistic is not finite (no closed form for that family), never a verdict; *hypothesis "
                "not met*: the theorem does not apply there (the row says which hypothesis fails); "
                "*identity*: follows from the construction, shown but never counted; *info*: a reading of "
                "ours, not a claim of the study.\n\n",
            ctx.preset == RL_PRESET_FULL ? "full" : "quick", ctx.seed, ctx.threads, date, t_all);
    write_totals(fp, rep, secs, t_all);
    char *cpath = rl_path_join(ctx.out.dir, "checks.tsv");
    rl_outfile *co = rl_outfile_open(cpath);
    fputs(RL_REPORT_TSV_HEADER, co->f);
    for (int i = 0; i < rl_nclaims; i++)
        if (rep[i]) {
            fprintf(fp, "<a id=\"%s\"></a>\n\n", rl_claims[i].id);
            rl_report_markdown(rep[i], fp);
            rl_report_tsv(rep[i], co->f, rl_claims[i].id);
            rl_report_free(rep[i]);
        }
    rl_outfile_commit(co);
    free(cpath);
    rl_outfile_commit(o);
    printf("theory report: %s (%.0f s)\n", path, t_all);
    free(made);
    free(path);
    return 0;
}
