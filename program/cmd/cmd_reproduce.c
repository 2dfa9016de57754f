/* cmd_reproduce.c: `routelab reproduce`, the study's grid end to end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "../../base/core/blas_arch.h"
#include "../../base/core/lock.h"
#include "../../base/core/opts.h"
#include "../../base/par/par.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../model/config.h"
#include "../../model/trainopts.h"
#include "../reproduce/buildrec.h"
#include "../reproduce/grid.h"
#include "../reproduce/grid_report.h"

/* The preset named on the command line (its values are the defaults of
 * every other flag), quick when none is given. */
static const char *preset_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--preset") && i + 1 < argc)
            return argv[i + 1];
        if (!strncmp(argv[i], "--preset=", 9))
            return argv[i] + 9;
    }
    return "quick";
}

/* "a,b,c" into its names, empty ones kept (rl_repro_check refuses them). */
static char **split(const char *list, int *n)
{
    char **v = NULL;
    *n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        v = rl_xrealloc(v, sizeof(char *) * (*n + 1));
        v[(*n)++] = strndup(p, len);
        p += len;
        if (!*p)
            break;
    }
    return v;
}

/* --probe: "all", "none", or names of the grid's variants, each once. */
static void check_probe(const rl_repro *r)
{
    const char *p = r->g.probe;
    if (!strcmp(p, "all") || !strcmp(p, "none"))
        return;
    int n;
    char **names = split(p, &n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int v = 0; v < r->nvar; v++)
            found |= !strcmp(names[i], r->var[v]);
        if (!found)
            rl_die("reproduce: --probe: '%s' is not one of the variants (%s), all or none", names[i],
                   r->g.variants);
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                rl_die("reproduce: --probe names %s twice", names[i]);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Fail with one line naming the command. */
static void check(rl_status s, rl_err *err)
{
    if (s != RL_OK) {
        rl_err_prefix(err, "reproduce");
        rl_err_exit(err);
    }
}

/* OUT/config.txt: a "flag<TAB>value" line per setting, the training options
 * written from the struct itself (with the run's length resolved), and the
 * build record rec (settle_build) after the command. */
static void write_config(const rl_repro *r, const char *command, const rl_buildrec *rec)
{
    char *p = rl_path_join(r->out, "config.txt");
    rl_outfile *o = rl_outfile_open(p);
    const rl_grid *g = &r->g;
    fprintf(o->f, "# routelab reproduce: the configuration of this grid\ncommand\t%s\n", command);
    if (rec->has)
        fprintf(o->f, "build\t%s\nkernels\t%s\n", rec->build, rec->kernels);
    fprintf(o->f, "preset\t%s\nvariants\t%s\n", g->name, g->variants);
    rl_train_opts t = g->train;
    t.steps = rl_repro_steps(r);
    char *v[2 * RL_TRAIN_OPTS_MAX];
    int n = rl_train_opts_argv(&t, RL_TRAIN_OPTS_RUN | RL_TRAIN_OPTS_LOG, v), base_listed = 0;
    for (int i = 0; i + 1 < n; i += 2) {
        fprintf(o->f, "%s\t%s\n", v[i] + 2, v[i + 1]);
        base_listed |= !strcmp(v[i], "--rot-base");
        free(v[i]);
        free(v[i + 1]);
    }
    fprintf(o->f, "seeds\t%d\nmax-mult\t%d\n", g->seeds, g->max_mult);
    if (g->eval_full)
        fprintf(o->f, "eval-full\tyes\n");
    else if (g->eval_targets > 0)
        fprintf(o->f, "eval-targets\t%ld\n", g->eval_targets);
    else
        fprintf(o->f, "eval-batches\t%d\n", g->eval_batches);
    if (!g->eval_batches) {
        char wn[16];
        fprintf(o->f, "eval-windows\t%s\n", rl_choice_name(RL_EVAL_WINDOWS_CHOICES, g->eval_windows, wn, sizeof wn));
    }
    /* every rotation scheme's base (a NAME@BASE variant has its own): listed
     * once, by the training options when it is not train's default */
    if (!base_listed)
        fprintf(o->f, "rot-base\t%.17g\n", g->train.rot_base);
    fprintf(o->f, "rot-base-from\t%s\n",
            g->matched ? "matched (rl_match_choose: the study's fractions of blocks mixing within T and 128T)"
                       : "the study's");
    fprintf(o->f, "theory\t%s\nprobe\t%s\nprobe-mult\t%d\ndata\t%s\n", g->theory, g->probe, g->probe_mult,
            g->data);
    rl_outfile_commit(o);
    free(p);
}

#define THEORY_PRESETS "quick|full|none"

/* The command line of one reproduce: its table (opts points into the
 * rl_repro and into this struct, which outlive the run) and the choices
 * that are not the grid's own fields. */
typedef struct {
    rl_opt opts[RL_TRAIN_OPTS_MAX + 19]; /* the table's own flags and its end */
    int preset, theory, report_only;
    int strict, check_build; /* the build record's flags (settle_build) */
    int probe_opt;     /* --probe's entry */
    char outdef[256];  /* the default --out */
    char tname[16];    /* the theory preset's name, g->theory */
    char presets[RL_GRID_PRESETS_CHARS];           /* --preset's choices, from the presets' table */
    char preset_help[RL_GRID_PRESETS_HELP_CHARS];  /* --preset's help, from the same */
    char synopsis[RL_GRID_PRESETS_CHARS + 64];
} repro_flags;

/* The flags into r (the preset, already applied, gives their defaults). */
static void parse_flags(rl_repro *r, repro_flags *f, int argc, char **argv)
{
    rl_grid *g = &r->g;
    rl_opt *opts = f->opts;
    rl_grid_preset_names(f->presets, sizeof f->presets);
    rl_grid_preset_help(f->preset_help, sizeof f->preset_help);
    snprintf(f->synopsis, sizeof f->synopsis, "[--preset %s] [--out DIR] [--data PATH] [flags]", f->presets);
    f->preset = rl_choice_index(f->presets, g->name), f->theory = rl_choice_index(THEORY_PRESETS, g->theory);
    f->report_only = f->strict = f->check_build = 0;
    snprintf(f->outdef, sizeof f->outdef, "results/reproduce-%s", g->name);
    r->out = f->outdef;
    int n = 0;
    opts[n++] = (rl_opt)RL_OPT_CHOICE_("preset", &f->preset, f->preset_help, f->presets);
    opts[n++] = (rl_opt)RL_OPT_STR_("out", &r->out, "output folder");
    opts[n++] = (rl_opt)RL_OPT_STR_("data", &g->data, "data set: DIR with train.bin/val.bin, or a token/text FILE");
    opts[n++] = (rl_opt)RL_OPT_STR_("variants", &g->variants, "comma-separated position schemes");
    /* the training flags: the same table as `routelab train`, the preset's
     * values as their defaults */
    const int first = n;
    n += rl_train_opts_table(&g->train, RL_TRAIN_OPTS_RUN | RL_TRAIN_OPTS_LOG, opts + n);
    for (int k = first; k < n; k++)
        if (!strcmp(opts[k].name, "ctx"))
            opts[k].lo = 2; /* a grid probes windows of ctx tokens, and the probe needs 2 */
    opts[n++] = (rl_opt)RL_OPT_INT_("seeds", &g->seeds,
                                    "models per variant, seeds --seed, --seed + 1, ... (the replication unit)", 1,
                                    RL_GRID_MAX_SEEDS);
    opts[n++] = (rl_opt)RL_OPT_INT_("max-mult", &g->max_mult, "evaluate at 1x, 2x, ... up to this multiple of T",
                                    1, 1 << 20);
    opts[n++] = (rl_opt)RL_OPT_LONG_("eval-targets", &g->eval_targets,
                                     "evaluation: at least this many targets per length, spans spread over the "
                                     "validation stream (eval --targets)", 1, 1e12);
    opts[n++] = (rl_opt)RL_OPT_FLAG_("eval-full", &g->eval_full,
                                     "evaluate on every span of the validation stream (eval --full)");
    opts[n++] = (rl_opt)RL_OPT_INT_("eval-batches", &g->eval_batches,
                                    "old protocol: evaluation windows per length (eval --batches; excludes "
                                    "--eval-targets)", 1, 1 << 20);
    opts[n++] = (rl_opt)RL_OPT_CHOICE_("eval-windows", &g->eval_windows,
                                       "where the evaluation's spans lie (eval --windows): sampled (each seed its "
                                       "own, at random over the stream) or spans (spread evenly, the same for "
                                       "every seed; a grid whose config.txt has no eval-windows line)",
                                       RL_EVAL_WINDOWS_CHOICES);
    opts[n++] = (rl_opt)RL_OPT_CHOICE_("theory", &f->theory, "theory report preset", THEORY_PRESETS);
    f->probe_opt = n;
    opts[n++] = (rl_opt)RL_OPT_STR_("probe", &g->probe, "variants to probe (comma-separated, all, none)");
    opts[n++] = (rl_opt)RL_OPT_INT_("probe-mult", &g->probe_mult, "probe at this multiple of T", 1, 1 << 20);
    opts[n++] = (rl_opt)RL_OPT_THREADS_(&r->threads);
    opts[n++] = (rl_opt)RL_OPT_LONG_("stop-at", &r->stop_at,
                                     "stop each training at this step, as an interruption would (0: never); "
                                     "the same command continues", 0, 1e12);
    opts[n++] = (rl_opt)RL_OPT_FLAG_("report-only", &f->report_only,
                                     "only rewrite table.tsv, the figures and REPORT.md");
    opts[n++] = (rl_opt)RL_OPT_FLAG_("strict", &f->strict,
                                     "refuse (status 2) to run over a grid whose files this build and OpenBLAS "
                                     "kernel set may not reproduce bitwise (OUT/config.txt's build and kernels; "
                                     "without it one line says so and the run goes on, docs/speed/reproduction-and-pruning.md#reproduction-across-builds)");
    opts[n++] = (rl_opt)RL_OPT_FLAG_("check-build", &f->check_build,
                                     "only compare this build and kernel set with OUT/config.txt's (the line, or "
                                     "--strict's refusal) and stop: nothing is run or written");
    opts[n] = (rl_opt)RL_OPT_END_;
    rl_opts_parse("reproduce", f->synopsis,
                  "Train every variant of the grid --seeds times (seeds --seed, --seed + 1, ...; every\n"
                  "variant of a seed on the same initial weights, batches and evaluation windows), evaluate\n"
                  "each with the study's protocol at 1x, 2x, ..., max-mult x the training context, probe the far mass\n"
                  "inside chosen models, run the theory report, and write OUT/table.tsv, figures and\n"
                  "OUT/REPORT.md next to the study's numbers, the orderings decided on paired seed-level\n"
                  "statistics.  Resumable: the same command reuses finished models and evaluations and\n"
                  "resumes a half-trained model from its checkpoint; a larger --seeds trains only the new\n"
                  "seeds.  A variant NAME@BASE (e.g. rope@10000) trains scheme NAME with rotation\n"
                  "base BASE in its own folder (a control arm); the others use the preset's base (cpu:\n"
                  "the mixing-matched one, chosen from the theory for its head dim and T).\n"
                  "Every flag's default comes from the preset; the configuration used is written to\n"
                  "OUT/config.txt.  Under mpirun or srun the ranks deal the unfinished models round robin,\n"
                  "each running its own with --threads threads (ranks x threads = the cores), and rank 0\n"
                  "writes the report; a failing rank stops the job, and a rerun with any rank count resumes.\n"
                  "OUT/config.txt records the build and OpenBLAS kernel set: a run of another over the grid\n"
                  "reproduces its files statistically, not bitwise, and says so in one line (--strict: refused).",
                  opts, argc, argv, NULL, 0);
}

/* The spans of a grid run earlier into OUT: its config.txt's eval-windows
 * (none: the grid predates the option and read RL_EVAL_SPANS), so that a
 * resumed or --report-only grid keeps its protocol; a --eval-windows that
 * says otherwise is refused.  No config.txt: the flag or the preset's. */
static void settle_windows(rl_repro *r, int seen)
{
    char *cp = rl_path_join(r->out, "config.txt"), *cfg = rl_read_file(cp, NULL);
    if (cfg && strstr(cfg, "\npreset\t")) {
        static const char key[] = "\neval-windows\t";
        const char *w = strstr(cfg, key);
        char name[16] = "spans";
        if (w) {
            w += sizeof key - 1;
            snprintf(name, sizeof name, "%.*s", (int)strcspn(w, "\n"), w);
        }
        const int old = rl_choice_index(RL_EVAL_WINDOWS_CHOICES, name);
        if (old < 0)
            rl_die("reproduce: %s: eval-windows '%s' is not one of %s", cp, name, RL_EVAL_WINDOWS_CHOICES);
        if (seen && old != r->g.eval_windows)
            rl_die("reproduce: %s was evaluated with --eval-windows %s (its config.txt): use another --out", r->out,
                   name);
        r->g.eval_windows = old;
    }
    free(cfg);
    free(cp);
}

/* What the flags say together, checked before anything is made: the
 * evaluation protocol they choose, the data, the shape, the matched base,
 * the schedule, the variants and probes. */
static void settle_flags(rl_repro *r, repro_flags *f)
{
    rl_grid *g = &r->g;
    const rl_opt *opts = f->opts;
    rl_err err;
    g->theory = rl_choice_name(THEORY_PRESETS, f->theory, f->tname, sizeof f->tname);
    if (!g->data)
        rl_die("reproduce: preset %s needs --data (a token file, e.g. OpenWebText in nanoGPT or llm.c format)",
               g->name);
    if (rl_opt_seen(opts, "eval-targets") + rl_opt_seen(opts, "eval-batches") + rl_opt_seen(opts, "eval-full") > 1)
        rl_die("reproduce: --eval-targets, --eval-full and --eval-batches exclude each other");
    if (rl_opt_seen(opts, "eval-batches"))
        g->eval_targets = g->eval_full = 0; /* the old fixed count instead of the preset's targets */
    else if (rl_opt_seen(opts, "eval-targets"))
        g->eval_batches = g->eval_full = 0;
    else if (g->eval_full)
        g->eval_batches = 0;
    if (g->eval_batches && rl_opt_seen(opts, "eval-windows"))
        rl_die("reproduce: --eval-windows does not apply to --eval-batches (the old protocol)");
    settle_windows(r, rl_opt_seen(opts, "eval-windows"));
    const rl_path_use din[] = { { "--data", g->data, 0 } }, dout[] = { { "--out", r->out, 1 } };
    check(rl_paths_check(din, 1, dout, 1, &err), &err); /* the grid's folder is never the data's */
    const rl_train_opts *t = &g->train;
    if (t->width % t->heads || (t->width / t->heads) % 2)
        rl_die("reproduce: width %d must split into %d heads of even dimension", t->width, t->heads);
    if (g->matched && !rl_opt_seen(opts, "rot-base")) { /* the matched base of the sizes after the command line's */
        rl_match m;
        check(rl_grid_match(g, &m, &err), &err);
        g->train.rot_base = m.base;
    }
    long steps;
    check(rl_train_opts_steps(t, &steps, &err), &err);
    check(rl_repro_set_variants(r, &err), &err);
    /* only an explicit --probe must name variants: the preset's list may
     * name ones that --variants left out */
    if (opts[f->probe_opt].seen)
        check_probe(r);
    if (f->report_only && rl_opt_seen(opts, "stop-at"))
        rl_die("reproduce: --stop-at does not apply with --report-only (nothing is trained)");
    /* --report-only recomputes the report from the grid's files, whatever
     * build made them: it compares no build and writes no record */
    if (f->report_only && (f->strict || f->check_build))
        rl_die("reproduce: --%s does not apply with --report-only (no model is trained or evaluated)",
               f->strict ? "strict" : "check-build");
    if (f->check_build && rl_opt_seen(opts, "stop-at"))
        rl_die("reproduce: --stop-at does not apply with --check-build (nothing is trained)");
}

/* The build record (program/reproduce/buildrec.h,
 * docs/speed/reproduction-and-pruning.md#reproduction-across-builds): OUT/config.txt's build and
 * kernel set against this run's, before anything is written.  The same: nothing is said.  Otherwise
 * one line on stderr names the build and kernels that give the files bitwise and what this run
 * gives, and the run goes on; under --strict that line refuses it (status 2).  A malformed
 * record is refused too: the grid's provenance is no guess.  Returns the
 * outcome; *rec is the record this run would write: config.txt's, or this
 * run's own for a new grid. */
static rl_build_match settle_build(const rl_repro *r, const repro_flags *f, rl_buildrec *rec)
{
    char *cp = rl_path_join(r->out, "config.txt"), *cfg = rl_read_file(cp, NULL);
    const char *build = rl_build_commit(), *kernels = rl_blas_kernels();
    rl_build_match m = RL_BUILD_SAME;
    rl_err err;
    memset(rec, 0, sizeof *rec);
    if (!cfg) {
        if (f->check_build)
            rl_die("reproduce: --check-build: %s has no config.txt (no grid to compare with)", r->out);
        rl_buildrec_add(rec, build, kernels);
    } else {
        check(rl_buildrec_read(cfg, cp, rec, &err), &err);
        m = rl_buildrec_compare(rec, build, kernels, f->strict);
    }
    if (m != RL_BUILD_SAME) {
        char line[3 * RL_BUILDREC_MAX];
        rl_buildrec_line(rec, m, build, kernels, f->strict, line, sizeof line);
        if (f->strict)
            rl_die("reproduce: %s", line);
        if (rl_par_rank() == 0) /* the ranks read one file: one line for the job */
            fprintf(stderr, "reproduce: %s\n", line);
    }
    free(cfg);
    free(cp);
    return m;
}

/* --report-only: the report names the command that ran the grid
 * (OUT/config.txt), not the one that rewrites it; command is left as it is
 * when the file names none. */
static void grid_command(const char *out, char *command, size_t n)
{
    char *cp = rl_path_join(out, "config.txt"), *cfg = rl_read_file(cp, NULL);
    char *c = cfg ? strstr(cfg, "\ncommand\t") : NULL;
    if (c) {
        c += 9;
        c[strcspn(c, "\n")] = 0;
        snprintf(command, n, "%.1900s", c);
    }
    free(cfg);
    free(cp);
}

int cmd_reproduce(int argc, char **argv)
{
    rl_repro r = { .threads = rl_ncores() };
    rl_err err;
    check(rl_grid_preset(preset_arg(argc, argv), &r.g, &err), &err);
    repro_flags f;
    parse_flags(&r, &f, argc, argv);
    settle_flags(&r, &f);
    rl_buildrec rec = { 0 };
    const rl_build_match bm = f.report_only ? RL_BUILD_SAME : settle_build(&r, &f, &rec);
    if (f.check_build) {
        rl_repro_free_variants(&r);
        return 0;
    }
    rl_set_threads(r.threads);

    char command[2048];
    int off = snprintf(command, sizeof command, "routelab");
    for (int i = 0; i < argc && off < (int)sizeof command - 2; i++)
        off += snprintf(command + off, sizeof command - off, " %s", argv[i]);
    int st = 0;
    r.report_only = f.report_only;
    /* one writer per OUT (base/core/lock.h): a second reproduce into it would
     * race this one for every model, evaluation and table.  Rank 0 holds it
     * for the job; each model's train, eval and probe lock their own folder
     * inside OUT, so none waits for this one.  Taken after every input check
     * (nothing is made for a refused run) and before any file is written. */
    rl_lock *lk = NULL;
    struct stat sb;
    if (!f.report_only) {
        check(rl_repro_check(&r, &err), &err);
        /* a run of another build that writes models (or the theory report)
         * into a recorded grid leaves files of two builds: the record lists
         * both, and no later run is promised their bytes; one that only
         * rewrites the report leaves the record as it is */
        const long pending = rl_repro_pending(&r);
        if (bm != RL_BUILD_SAME && rec.has && pending > 0)
            rl_buildrec_add(&rec, rl_build_commit(), rl_blas_kernels());
        rl_mkdir_p(r.out);
    }
    if (stat(r.out, &sb) == 0)
        check(rl_lock_out(r.out, &lk, &err), &err);
    if (f.report_only) {
        grid_command(r.out, command, sizeof command);
    } else {
        write_config(&r, command, &rec);
        st = rl_repro_run(&r);
    }
    if (st == 0 && rl_par_rank() == 0) /* the ranks have met in rl_repro_run: every model is on disk */
        rl_repro_report(&r, command);
    rl_repro_free_variants(&r);
    return 0;
}
