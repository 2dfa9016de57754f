/* test_reproduce_stages.c: the stages of a grid's training trajectory
 * (train --keep-ckpt, reproduce's per-stage evaluations, docs/grids/vtraj-and-reruns.md#vtraj):
 * each kept checkpoint is the model at its step and is evaluated beside
 * the final one; a resumed grid evaluates only the stages it lacks; bad
 * lists are refused in one line with nothing written; the vtraj preset is
 * what NOTES.md says; the trajectory section's arithmetic. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/core/util.h"
#include "../model/train.h"
#include "../program/reproduce/grid.h"
#include "../program/reproduce/order.h"
#include "../program/reproduce/orderings.h"
#include "../program/reproduce/preset.h"
#include "../program/reproduce/trajectory.h"
#include "helpers.h"

/* The miniature grid (helpers.h) as the vtraj preset's two variants, two
 * seeds, with stages at steps 2 and 4 of its 8. */
#define STAGED "--preset vtraj --eval-batches 2 --seeds 2 --keep-ckpt 2,4"

static int present(const char *dir, const char *name)
{
    char *p = th_path(dir, name);
    struct stat st;
    const int ok = stat(p, &st) == 0 && st.st_size > 0;
    free(p);
    return ok;
}

static struct timespec mtime(const char *dir, const char *name)
{
    char *p = th_path(dir, name);
    struct stat st;
    cr_assert(stat(p, &st) == 0, "missing: %s", p);
    free(p);
    return st.st_mtim;
}

static int same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static int same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *x = rl_read_file(a, &na), *y = rl_read_file(b, &nb);
    const int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

static const char *const MODELS[] = { "models/random_qk/seed42", "models/random_qk/seed43",
                                      "models/random_qkv/seed42", "models/random_qkv/seed43" };

/* Every model holds its kept checkpoints and their evaluations beside the
 * final ones; a kept checkpoint is the model at its step (the same bytes
 * as a run stopped there); the report has the trajectory, one row per
 * ordering and stage. */
Test(reproduce_stages, kept_and_evaluated, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    th_mini_grid(d, txt, STAGED, out, sizeof out);
    cr_expect(strstr(out, "evaluating stage 2") && strstr(out, "evaluating stage 4"), "%s", out);
    for (int i = 0; i < 4; i++) {
        char *m = th_path(g, MODELS[i]);
        const char *files[] = { "ckpt-2.bin", "ckpt-4.bin", "ckpt.bin", "eval-2.tsv", "eval-4.tsv", "eval.tsv" };
        for (int f = 0; f < 6; f++)
            cr_expect(present(m, files[f]), "%s/%s missing", m, files[f]);
        cr_expect(!present(m, "eval-8.tsv") && !present(m, "ckpt-8.bin"), "the last step is the final model's");
        free(m);
    }
    /* the kept step-4 checkpoint is the run stopped at step 4 */
    char args[2048], err[2048];
    char *m = th_path(g, MODELS[0]), *cfg = th_path(m, "config.txt"), *text = rl_read_file(cfg, NULL);
    cr_assert(text);
    char *stop = th_path(d, "stop");
    /* config.txt: the grid's training command, one argument a line */
    char cmd[2048] = "";
    int off = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strcmp(line, "routelab"))
            continue;
        if (off && !strncmp(cmd + off - 6, "--out ", 6))
            line = stop;
        off += snprintf(cmd + off, sizeof cmd - off, "%s ", line);
    }
    snprintf(args, sizeof args, "%s--stop-at 4 --threads 1", cmd);
    cr_assert_eq(th_run(args, NULL, 0, err, sizeof err), 0, "%s: %s", args, err);
    char *a = th_path(m, "ckpt-4.bin"), *b = th_path(stop, "ckpt.bin");
    cr_expect(same_bytes(a, b), "ckpt-4.bin is not the model at step 4");
    /* the report: a table per stage, trajectory.tsv (2 orderings x 3 stages), the figure */
    char *rep = rl_read_file(th_path(g, "REPORT.md"), NULL), *tr = rl_read_file(th_path(g, "trajectory.tsv"), NULL);
    cr_assert(rep && tr);
    cr_expect(strstr(rep, "## Through training") && strstr(rep, "### Step 2 ") && strstr(rep, "### Step 4 ") &&
                  strstr(rep, "### Step 8 "),
              "%s", rep);
    cr_expect_eq(th_lines(tr), 1 + 2 * 3, "%s", tr);
    cr_expect(present(g, "trajectory.png"));
    /* the vtraj grid reads its own orderings alone */
    cr_expect(strstr(rep, "at 16T (value transport)") && strstr(rep, "at 128T (value transport)"));
    cr_expect(!strstr(rep, "random_qk degrades by 128×"), "another grid's ordering in vtraj's report");
    free(rep);
    free(tr);
    free(a);
    free(b);
    free(stop);
    free(text);
    free(cfg);
    free(m);
    th_rmdir(d);
}

/* Interrupted between the stages: the kept checkpoints survive the
 * resume, every stage is then evaluated once; a lost stage evaluation is
 * redone alone; a finished grid does nothing. */
Test(reproduce_stages, resume_skips_finished_stages, .timeout = 240)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *g = th_path(d, "g");
    static char out[1 << 16];
    th_write_text(txt, 300);
    th_mini_grid(d, txt, STAGED " --stop-at 5", out, sizeof out);
    char *m = th_path(g, MODELS[0]);
    cr_expect(present(m, "ckpt-2.bin") && present(m, "ckpt-4.bin"), "kept before the interruption");
    cr_expect(!present(m, "eval-2.tsv") && !present(m, "trained"), "evaluated before the training finished");
    struct timespec k2 = mtime(m, "ckpt-2.bin");
    th_mini_grid(d, txt, STAGED, out, sizeof out);
    cr_expect(strstr(out, "resuming training from its checkpoint") != NULL, "%s", out);
    cr_expect(same_time(k2, mtime(m, "ckpt-2.bin")), "a stage before the resume was rewritten");
    for (int i = 0; i < 4; i++) {
        char *mi = th_path(g, MODELS[i]);
        cr_expect(present(mi, "eval-2.tsv") && present(mi, "eval-4.tsv") && present(mi, "eval.tsv"), "%s", mi);
        free(mi);
    }
    /* one stage's evaluation lost: that one alone is redone */
    struct timespec e2 = mtime(m, "eval-2.tsv"), ef = mtime(m, "eval.tsv"), ck = mtime(m, "ckpt.bin");
    char *lost = th_path(m, "eval-4.tsv");
    cr_assert_eq(unlink(lost), 0);
    th_mini_grid(d, txt, STAGED, out, sizeof out);
    cr_expect(strstr(out, "random_qk seed 42: evaluating stage 4") != NULL, "%s", out);
    cr_expect(strstr(out, ": training") == NULL && strstr(out, ": resuming") == NULL &&
                  strstr(out, "evaluating stage 2") == NULL && strstr(out, ": evaluating  ") == NULL,
              "more than the lost stage redone:\n%s", out);
    cr_expect(same_time(e2, mtime(m, "eval-2.tsv")) && same_time(ef, mtime(m, "eval.tsv")) &&
              same_time(ck, mtime(m, "ckpt.bin")));
    cr_expect(present(m, "eval-4.tsv"));
    /* finished: nothing to do */
    th_mini_grid(d, txt, STAGED, out, sizeof out);
    cr_expect(strstr(out, ": training") == NULL && strstr(out, ": evaluating") == NULL, "%s", out);
    /* other stages into the same folders: other settings, refused in one line */
    char args[2048], err[2048];
    snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --preset vtraj --eval-batches 2 "
             "--seeds 2 --keep-ckpt 2,6", txt, g);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "other settings") != NULL && th_lines(err) == 1, "%s", err);
    free(lost);
    free(m);
    th_rmdir(d);
}

/* A bad list: one line, status 2, from train and from reproduce, and
 * nothing written. */
Test(reproduce_stages, bad_lists_refused, .timeout = 60)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), *o = th_path(d, "o");
    th_write_text(txt, 300);
    const char *bad[] = { "0", "9", "4,2", "2,2", "a", "2,", ",2", "2,,4", "-2", "+2", " 2", "" };
    const char *why[] = { "outside", "outside", "increase", "increase", "not a comma", "not a comma",
                          "not a comma", "not a comma", "not a comma", "not a comma", "not a comma", "non-empty" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[2048], err[2048];
        snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 "
                 "--lr 1e-3:8 --threads 1 --keep-ckpt '%s'", txt, o, bad[i]);
        cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "'%s': %s", bad[i], err);
        cr_expect(strstr(err, why[i]) && th_lines(err) == 1, "'%s': %s", bad[i], err);
        cr_expect(access(o, F_OK) != 0, "'%s': train wrote %s", bad[i], o);
        snprintf(args, sizeof args, "reproduce --data %s --out %s " TH_MINI_GRID " --keep-ckpt '%s'", txt, o, bad[i]);
        cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "'%s': %s", bad[i], err);
        cr_expect(strstr(err, why[i]) && th_lines(err) == 1, "'%s': %s", bad[i], err);
        cr_expect(access(o, F_OK) != 0, "'%s': reproduce wrote %s", bad[i], o);
    }
    /* more than RL_TRAIN_MAX_KEPT steps */
    char list[512] = "", args[2048], err[2048];
    for (int s = 1; s <= RL_TRAIN_MAX_KEPT + 1; s++)
        snprintf(list + strlen(list), sizeof list - strlen(list), s > 1 ? ",%d" : "%d", s);
    snprintf(args, sizeof args, "train --data %s --out %s --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 "
             "--lr 1e-3:100 --threads 1 --keep-ckpt %s", txt, o, list);
    cr_expect_eq(th_run(args, NULL, 0, err, sizeof err), 2, "%s", err);
    cr_expect(strstr(err, "more than") && th_lines(err) == 1, "%s", err);
    th_rmdir(d);
}

/* The vtraj preset: the cpu preset's model, data, evaluation and base; its
 * two variants; the cpu schedule's first 2,400 steps exactly, then the
 * low-rate tail; five stages at the ends of the rates and at 2,400. */
/* The presets' table is the one list of presets: each row gives the preset
 * of its name, no name twice; --preset's choices, its help and the message
 * for a name outside them are generated from the rows, each row once, in
 * the table's order, and `routelab reproduce --help` shows them. */
Test(reproduce_stages, every_preset_row_is_listed)
{
    char names[RL_GRID_PRESETS_CHARS], help[RL_GRID_PRESETS_HELP_CHARS], list[RL_GRID_PRESETS_CHARS];
    rl_grid_preset_names(names, sizeof names);
    rl_grid_preset_help(help, sizeof help);
    cr_assert_lt(strlen(names) + 1, sizeof names, "the choices fill their room: %s", names);
    cr_assert_lt(strlen(help) + 1, sizeof help, "the help fills its room: %s", help);
    cr_assert_gt(rl_grid_npresets, 0);
    strcpy(list, names);
    char *save = NULL, item[512];
    int n = 0;
    rl_grid g;
    rl_err err;
    for (char *name = strtok_r(list, "|", &save); name; name = strtok_r(NULL, "|", &save), n++) {
        cr_assert_lt(n, rl_grid_npresets, "%s: listed beyond the table", name);
        const rl_grid_row *p = &rl_grid_presets[n];
        cr_expect_str_eq(name, p->name);
        for (int j = 0; j < n; j++)
            cr_expect_str_neq(rl_grid_presets[j].name, p->name, "%s twice", p->name);
        cr_assert_eq(rl_grid_preset(name, &g, &err), RL_OK, "%s: %s", name, err.msg);
        cr_expect_str_eq(g.name, name);
        snprintf(item, sizeof item, "%s %s (%s)", n ? "," : "grid:", p->name, p->about);
        cr_expect(strstr(help, item), "'%s' not in the help: %s", item, help);
    }
    cr_expect_eq(n, rl_grid_npresets, "the choices %s against %d rows", names, rl_grid_npresets);
    cr_assert_eq(rl_grid_preset("cpu2", &g, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, names), "%s", err.msg);
    static char out[1 << 16];
    char e[1024];
    cr_assert_eq(th_run("reproduce --help", out, sizeof out, e, sizeof e), 0, "%s", e);
    snprintf(item, sizeof item, "[--preset %s]", names);
    cr_expect(strstr(out, item), "no '%s' in the synopsis", item);
    cr_expect(strstr(out, help), "no --preset help '%s'", help);
    /* the guide's commands table lists the same choices ('|' escaped in a
     * markdown cell) */
    th_to_root();
    char *guide = rl_read_file("docs/guide.md", NULL), cell[2 * RL_GRID_PRESETS_CHARS + 16];
    cr_assert(guide, "docs/guide.md");
    size_t at = (size_t)snprintf(cell, sizeof cell, "`--preset ");
    for (const char *c = names; *c; c++) {
        if (*c == '|')
            cell[at++] = '\\';
        cell[at++] = *c;
    }
    snprintf(cell + at, sizeof cell - at, "`");
    cr_expect(strstr(guide, cell), "docs/guide.md lists no %s", cell);
    free(guide);
}

/* Room for the rows' indices (the table's length is not a constant
 * expression); the test below fails when the table outgrows it. */
#define PRESET_ROWS_MAX 64

ParameterizedTestParameters(reproduce_stages, every_preset_is_a_valid_grid)
{
    static int row[PRESET_ROWS_MAX];
    const int n = rl_grid_npresets < PRESET_ROWS_MAX ? rl_grid_npresets : PRESET_ROWS_MAX;
    for (int i = 0; i < n; i++)
        row[i] = i;
    return cr_make_param_array(int, row, (size_t)n);
}

/* Each row of the presets' table, one test each: a grid every stage takes
 * without a data set in hand (rl_repro_check adds the data): its training
 * options are values train's flags accept (the flags rl_train_opts_argv
 * writes parse back into the same text), its schedule plans and its kept
 * checkpoints lie within it, every variant is a distinct model train can
 * build, the probe names its variants, the seeds fit, and the base is the
 * matched scale's exactly when the row says so. */
ParameterizedTest(int *row, reproduce_stages, every_preset_is_a_valid_grid)
{
    cr_assert_leq(rl_grid_npresets, PRESET_ROWS_MAX, "more presets than the test's parameters");
    const rl_grid_row *p = &rl_grid_presets[*row];
    rl_repro r = { .out = "/nonexistent" };
    rl_err err;
    cr_assert_eq(rl_grid_preset(p->name, &r.g, &err), RL_OK, "%s: %s", p->name, err.msg);
    const rl_train_opts *t = &r.g.train;
    char *a[2 * RL_TRAIN_OPTS_MAX + 1], *b[2 * RL_TRAIN_OPTS_MAX];
    a[0] = "train";
    const int na = rl_train_opts_argv(t, RL_TRAIN_OPTS_RUN, a + 1);
    rl_train_opts back = rl_train_opts_default();
    rl_opt tab[RL_TRAIN_OPTS_MAX + 1];
    const int k = rl_train_opts_table(&back, RL_TRAIN_OPTS_RUN, tab);
    tab[k] = (rl_opt)RL_OPT_END_;
    int npos, help;
    cr_assert_eq(rl_opts_parse_status("train", tab, na + 1, a, NULL, 0, &npos, &help, &err), RL_OK, "%s: %s",
                 p->name, err.msg);
    const int nb = rl_train_opts_argv(&back, RL_TRAIN_OPTS_RUN, b);
    cr_expect_eq(na, nb, "%s", p->name);
    for (int i = 0; i < na && i < nb; i++)
        cr_expect_str_eq(a[i + 1], b[i], "%s", p->name);
    for (int i = 0; i < na; i++)
        free(a[i + 1]);
    for (int i = 0; i < nb; i++)
        free(b[i]);
    long total, kept[RL_TRAIN_MAX_KEPT];
    int nkept;
    cr_assert_eq(rl_train_opts_steps(t, &total, &err), RL_OK, "%s: %s", p->name, err.msg);
    cr_expect_eq(rl_train_opts_kept(t, total, kept, &nkept, &err), RL_OK, "%s: %s", p->name, err.msg);
    cr_expect(r.g.seeds >= 1 && r.g.seeds <= RL_GRID_MAX_SEEDS, "%s: %d seeds", p->name, r.g.seeds);
    cr_expect(r.g.eval_targets > 0 && r.g.max_mult >= 1 && r.g.probe_mult >= 1, "%s", p->name);
    cr_assert_eq(rl_repro_set_variants(&r, &err), RL_OK, "%s: %s", p->name, err.msg);
    for (int v = 0; v < r.nvar; v++) {
        rl_train_opts tv = *t;
        tv.pos = r.pos[v];
        rl_gpt_config c;
        cr_expect_eq(rl_train_opts_config(&tv, &c, &err), RL_OK, "%s: %s: %s", p->name, r.var[v], err.msg);
        for (int u = 0; u < v; u++)
            cr_expect_str_neq(r.var[u], r.var[v], "%s: %s twice", p->name, r.var[v]);
    }
    if (strcmp(r.g.probe, "all") && strcmp(r.g.probe, "none")) {
        char probe[1024], *save = NULL;
        snprintf(probe, sizeof probe, "%s", r.g.probe);
        for (char *name = strtok_r(probe, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            int found = 0;
            for (int v = 0; v < r.nvar; v++)
                found |= !strcmp(name, r.var[v]);
            cr_expect(found, "%s: probes %s, not a variant", p->name, name);
        }
    }
    rl_match m;
    if (r.g.matched) {
        cr_assert_eq(rl_grid_match(&r.g, &m, &err), RL_OK, "%s: %s", p->name, err.msg);
        cr_expect_eq(t->rot_base, m.base, "%s: the matched base", p->name);
    } else
        cr_expect_eq(t->rot_base, RL_ROT_BASE_DEFAULT, "%s: train's base", p->name);
    rl_repro_free_variants(&r);
}

Test(reproduce_stages, vtraj_preset_parses)
{
    rl_grid v, c;
    rl_err err;
    cr_assert_eq(rl_grid_preset("vtraj", &v, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_grid_preset("cpu", &c, &err), RL_OK, "%s", err.msg);
    cr_expect_str_eq(v.name, "vtraj");
    cr_expect_str_eq(v.variants, "random_qk,random_qkv");
    cr_expect(v.train.layers == c.train.layers && v.train.width == c.train.width && v.train.heads == c.train.heads &&
              v.train.ctx == c.train.ctx && v.train.vocab == c.train.vocab && v.train.batch == c.train.batch);
    cr_expect_eq(v.train.rot_base, c.train.rot_base, "the matched base");
    cr_expect_str_eq(v.data, c.data);
    cr_expect(v.max_mult == 128 && v.eval_targets == c.eval_targets);
    cr_expect_eq(v.seeds, 10);
    rl_lr_schedule sv, sc;
    long tv, tc;
    cr_assert_eq(rl_lr_plan(v.train.lr, v.train.steps, &sv, &tv, &err), RL_OK);
    cr_assert_eq(rl_lr_plan(c.train.lr, c.train.steps, &sc, &tc, &err), RL_OK);
    cr_expect_eq(tv, 4800);
    for (long s = 0; s < tc; s++)
        cr_expect_eq(rl_lr_at(&sv, s, tv), rl_lr_at(&sc, s, tc), "step %ld", s);
    cr_expect_float_eq(rl_lr_at(&sv, tv - 1, tv), rl_lr_at(&sv, 0, tv) / 40, 1e-15, "the final rate");
    rl_repro r = { .g = v, .out = "/nonexistent" };
    cr_assert_eq(rl_repro_set_variants(&r, &err), RL_OK);
    long st[RL_GRID_MAX_STAGES];
    const int ns = rl_repro_stages(&r, st);
    const long want[] = { 1200, 1800, 2400, 3600, 4800 };
    cr_assert_eq(ns, 5);
    for (int i = 0; i < ns; i++) {
        cr_expect_eq(st[i], want[i]);
        /* each stage but 2,400 ends a rate */
        if (st[i] != 2400 && st[i] != tv)
            cr_expect_neq(rl_lr_at(&sv, st[i] - 1, tv), rl_lr_at(&sv, st[i], tv), "stage %ld", st[i]);
    }
    char *e = rl_repro_stage_eval(&r, 0, 0, 1200), *f = rl_repro_stage_eval(&r, 1, 9, 4800);
    char *k = rl_repro_stage_ckpt(&r, 0, 0, 1200), *kf = rl_repro_stage_ckpt(&r, 1, 9, 4800);
    cr_expect_str_eq(e, "/nonexistent/models/random_qk/seed42/eval-1200.tsv");
    cr_expect_str_eq(f, "/nonexistent/models/random_qkv/seed51/eval.tsv");
    cr_expect_str_eq(k, "/nonexistent/models/random_qk/seed42/ckpt-1200.bin");
    cr_expect_str_eq(kf, "/nonexistent/models/random_qkv/seed51/ckpt.bin");
    free(e);
    free(f);
    free(k);
    free(kf);
    rl_repro_free_variants(&r);
    /* a preset without stages has one, the final model */
    r = (rl_repro){ .g = c, .out = "/nonexistent" };
    cr_expect_eq(rl_repro_stages(&r, st), 1);
    cr_expect_eq(st[0], tc);
}

/* The vtraj rows' rule reaches each outcome on constructed per-seed
 * log ratios (10 seeds, the preset's): the gap open (holds), reversed
 * (contradicted), within +-delta and tight (absent at this scale), and the
 * committed grid's 128T spread (unresolved). */
Test(reproduce_stages, vtraj_rows_give_each_outcome)
{
    int seen = 0;
    for (int i = 0; i < rl_norderings; i++) {
        const rl_ordering *e = &rl_orderings[i];
        if (!e->grid || strcmp(e->grid, "vtraj"))
            continue;
        seen++;
        double b[10], open[10], rev[10], flat[10], noisy[10];
        /* the committed grid's 128T per-seed differences, repeated: sd 0.108 */
        const double c128[6] = { -0.0105, -0.1081, 0.1785, 0.1367, 0.0166, -0.0289 };
        for (int k = 0; k < 10; k++) {
            b[k] = 0.3 + 0.01 * k;
            const double w = (k % 2 ? 1 : -1) * 0.01;
            open[k] = b[k] + 0.3 + w;
            rev[k] = b[k] - 0.3 + w;
            flat[k] = b[k] + 0.1 * w;
            noisy[k] = b[k] + c128[k % 6];
        }
        const rl_verdict want[4] = { RL_V_HOLDS, RL_V_CONTRADICTED, RL_V_ABSENT, RL_V_UNRESOLVED };
        const double *a[4] = { open, rev, flat, noisy };
        for (int j = 0; j < 4; j++) {
            const rl_order o = rl_order_above_delta(a[j], b, 10, e->delta);
            cr_expect_eq(o.v, want[j], "%s case %d: %s (x %g [%g, %g])", e->id, j, rl_verdict_name(o.v), o.x,
                         o.x_lo, o.x_hi);
        }
    }
    cr_expect_eq(seen, 2);
}

/* The verdict line's arithmetic: the detectable effect is where the power
 * reaches 0.8; the linear extrapolation of a growing mean. */
Test(reproduce_stages, detectable_and_extrapolation)
{
    const double sd[] = { 0.031, 0.108, 1.0 };
    const int ks[] = { 4, 10, 30 };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double e = rl_order_detectable(sd[i], ks[j], 0.8);
            cr_expect(e > 0, "sd %g k %d", sd[i], ks[j]);
            cr_expect_float_eq(rl_order_power(e, sd[i], ks[j]), 0.8, 1e-6, "sd %g k %d", sd[i], ks[j]);
            cr_expect_lt(rl_order_power(0.999 * e, sd[i], ks[j]), 0.8);
        }
    /* more seeds detect less */
    cr_expect_lt(rl_order_detectable(0.1, 20, 0.8), rl_order_detectable(0.1, 10, 0.8));
    cr_expect(isnan(rl_order_detectable(0.1, 1, 0.8)) && isnan(rl_order_detectable(NAN, 5, 0.8)) &&
              isnan(rl_order_detectable(0.1, 5, 1.0)));
    cr_expect_eq(rl_order_detectable(0, 5, 0.8), 0);
    /* 0.01 per 1,000 steps, 0.02 at 4,600: 0.05 at 7,600 */
    cr_expect_eq(rl_traj_steps_to(3600, 0.01, 4600, 0.02, 0.05), 7600);
    cr_expect_eq(rl_traj_steps_to(3600, 0.02, 4800, 0.05, 0.05), 4800, "reached");
    cr_expect_eq(rl_traj_steps_to(3600, 0.02, 4800, 0.01, 0.05), -1, "falling");
    cr_expect_eq(rl_traj_steps_to(3600, 0.02, 4800, 0.02, 0.05), -1, "flat");
    cr_expect_eq(rl_traj_steps_to(3600, NAN, 4800, 0.02, 0.05), -1);
}

/* The per-seed values of ordering `what` in a committed orderings.tsv
 * (its per_seed column) into x; returns how many. */
static int committed_row(const char *path, const char *what, double *x, int max)
{
    char *t = rl_read_file(path, NULL);
    cr_assert(t, "%s", path);
    int n = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, what, strlen(what)) || line[strlen(what)] != '\t')
            continue;
        char *f = line;
        for (int c = 0; c < 3 && f; c++) /* ordering, mult, seeds, then per_seed */
            f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
        cr_assert(f);
        for (char *p = f; n < max && *p && *p != '\t';) {
            char *end;
            x[n++] = strtod(p, &end);
            p = *end == ',' ? end + 1 : end;
        }
    }
    free(t);
    return n;
}

/* The vtraj preset's power computation (docs/grids/vtraj-and-reruns.md#vtraj), from the
 * cpu grid's first run (grids/cpu-first-run/orderings.tsv, 6 seeds, 2,400 steps):
 * random_qk - random_qkv at 16T (its row) and at 128T (the difference of
 * the two "degrades by 128×" rows, per seed).  The figures NOTES.md
 * quotes, to their printed digits; --verbose prints them. */
Test(reproduce_stages, vtraj_power_from_the_committed_grid)
{
    th_to_root();
    const char *f = "grids/cpu-first-run/orderings.tsv"; /* the grid the preset was planned from */
    double d16[8], qk[8], qkv[8], d128[8];
    cr_assert_eq(committed_row(f, "random_qk degrades more than random_qkv (value transport)", d16, 8), 6);
    cr_assert_eq(committed_row(f, "random_qk degrades by 128×", qk, 8), 6);
    cr_assert_eq(committed_row(f, "random_qkv degrades by 128×", qkv, 8), 6);
    for (int k = 0; k < 6; k++)
        d128[k] = qk[k] - qkv[k];
    double m16, se16, m128, se128;
    rl_seed_mean_se(d16, 6, &m16, &se16);
    rl_seed_mean_se(d128, 6, &m128, &se128);
    const double sd16 = se16 * sqrt(6.0), sd128 = se128 * sqrt(6.0);
    rl_verdict t16, t128, tv;
    const int k16 = rl_order_seeds_needed(m16, sd16, RL_ORDER_DELTA, 0.8, 1000, &t16);
    const int k128 = rl_order_seeds_needed(m128, sd128, 0, 0.8, 1000, &t128);
    const int kd = rl_order_seeds_needed(RL_ORDER_DELTA, sd128, 0, 0.8, 1000, &tv);
    const double e16 = rl_order_detectable(sd16, 10, 0.8), e128 = rl_order_detectable(sd128, 10, 0.8);
    cr_log_info("16T: mean %+.4f se %.4f sd %.4f; 128T: mean %+.4f se %.4f sd %.4f", m16, se16, sd16, m128, se128,
                sd128);
    cr_log_info("10 seeds detect (power 0.8): %.4f at 16T, %.4f at 128T; power at delta, 10 seeds: 16T %.3f, "
                "128T %.3f", e16, e128, rl_order_power(RL_ORDER_DELTA, sd16, 10),
                rl_order_power(RL_ORDER_DELTA, sd128, 10));
    cr_log_info("seeds needed: 16T %d (%s), 128T mean %d (%s), 128T an effect of delta %d", k16,
                rl_verdict_name(t16), k128, rl_verdict_name(t128), kd);
    cr_expect(fabs(m16 - -0.0042) < 5e-5 && fabs(sd16 - 0.0307) < 5e-5, "16T %g sd %g", m16, sd16);
    cr_expect(fabs(m128 - 0.0307) < 5e-5 && fabs(sd128 - 0.1075) < 5e-5, "128T %g sd %g", m128, sd128);
    cr_expect(fabs(e16 - 0.0511) < 5e-5 && fabs(e128 - 0.1790) < 5e-5, "detectable %g %g", e16, e128);
    cr_expect(k16 == 13 && t16 == RL_V_ABSENT, "%d", k16);
    cr_expect(k128 == 186 && t128 == RL_V_HOLDS, "%d", k128);
    cr_expect_eq(kd, 77);
}
