/* grid.c: the resumable grid behind `routelab reproduce`.
 *
 * Every stage is a routelab subcommand run as a child process (train, eval,
 * probe, theory), each writing its files through temporaries, so an
 * interruption at any point leaves either a finished stage or a checkpoint
 * to resume from.  A model folder holds config.txt (the training command, to
 * refuse a rerun with other settings), ckpt.bin and log.tsv (train),
 * `trained` (written once training has reached its last step), eval.tsv,
 * and probe files; with stages (train --keep-ckpt) also the kept
 * ckpt-STEP.bin and their eval-STEP.tsv.  A model's `train` flags are written from the grid's
 * rl_train_opts by rl_train_opts_argv (the table train parses them with),
 * and its length is rl_train_opts_steps', the rule train follows. */
#include "grid.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../base/core/lock.h"
#include "../../base/par/par.h"
#include "../../base/core/util.h"
#include "../../model/ckpt.h"
#include "../../model/config.h"
#include "../../model/data.h"
#include "../../model/gpt.h"
#include "../../model/trainopts.h"

/* The largest seed train takes: RL_OPT_SEED_'s upper bound (base/core/opts.h). */
#define RL_SEED_MAX 9200000000000000000L

/* ---- argument lists ---- */

typedef struct {
    char **v;
    int n, cap;
} args;

static void arg(args *a, const char *fmt, ...)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 32;
        a->v = realloc(a->v, sizeof(char *) * a->cap);
        if (!a->v)
            rl_die("out of memory");
    }
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&a->v[a->n], fmt, ap) < 0)
        rl_die("out of memory");
    va_end(ap);
    a->v[++a->n] = NULL;
}

/* A flag and its value. */
static void flag(args *a, const char *name, const char *fmt, ...)
{
    arg(a, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    char *v;
    if (vasprintf(&v, fmt, ap) < 0)
        rl_die("out of memory");
    va_end(ap);
    arg(a, "%s", v);
    free(v);
}

/* `routelab CMD` ... and, last, a seed and the grid's threads. */
static void args_cmd(args *a, const char *cmd)
{
    arg(a, "routelab");
    arg(a, "%s", cmd);
}

static void args_seed_threads(args *a, const rl_repro *r, long seed)
{
    flag(a, "--seed", "%ld", seed);
    flag(a, "--threads", "%d", r->threads);
}

static void args_free(args *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* This process's environment with ROUTELAB_NO_MPI=1 (malloc'ed array): a
 * child is one process of its own, never a rank of the job its parent is in
 * (base/par/par.h), with or without MPI. */
static char **child_env(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = rl_xcalloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "ROUTELAB_NO_MPI=", 16))
            env[k++] = environ[i];
    env[k] = "ROUTELAB_NO_MPI=1";
    return env;
}

/* Run `routelab ARGS` (this very binary) with its stderr kept aside;
 * returns its exit status.  A child that fails is reported by the caller in
 * one line quoting the child's own (run_fail), so the user sees one line,
 * not two; a child that succeeds has its stderr passed on.  The child dies
 * with its parent (SIGTERM): a rank stopped by the job's abort, or a
 * reproduce killed alone, leaves no training running on that would race
 * the next run for the model's checkpoint. */
static int run_self(const args *a, char *line, size_t n)
{
    FILE *cap = tmpfile();
    if (!cap)
        rl_fatal("reproduce: cannot create a temporary file: %s", strerror(errno));
    char **env = child_env(); /* before fork: the child only calls async-signal-safe functions */
    const pid_t parent = getpid();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        rl_fatal("reproduce: cannot fork: %s", strerror(errno));
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(128 + SIGTERM); /* the parent is gone already */
        dup2(fileno(cap), 2);
        execve("/proc/self/exe", a->v, env);
        static const char msg[] = "routelab: reproduce: cannot run routelab\n";
        ssize_t w = write(2, msg, sizeof msg - 1); /* the caller quotes it */
        (void)w; /* nothing more to say if even that fails */
        _exit(127);
    }
    free(env);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            rl_fatal("reproduce: lost a child process: %s", strerror(errno));
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    /* the last non-empty line, without its "routelab: " */
    char buf[1024];
    line[0] = 0;
    rewind(cap);
    while (fgets(buf, sizeof buf, cap)) {
        if (code == 0)
            fputs(buf, stderr);
        buf[strcspn(buf, "\n")] = 0;
        if (*buf)
            snprintf(line, n, "%.500s", strncmp(buf, "routelab: ", 10) ? buf : buf + 10);
    }
    fclose(cap);
    return code;
}

/* One line for a failed child: what failed, its status and its own line.
 * Status 2 when the child refused an input, else 1.  Under MPI the line
 * names this rank and the whole job stops at once (rl_exit_line, par.h):
 * the other ranks' children die with them, their finished models and last
 * checkpoints stay for the next run. */
static void run_fail(const char *what, int code, const char *line)
{
    char msg[1024];
    if (*line)
        snprintf(msg, sizeof msg, "reproduce: %s failed (exit status %d): %s", what, code, line);
    else
        snprintf(msg, sizeof msg, "reproduce: %s failed (exit status %d)", what, code);
    rl_exit_line(code == 2 ? 2 : 1, msg);
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static char *mdir_file(const rl_repro *r, int v, int k, const char *name)
{
    char *d = rl_repro_model_dir(r, v, k), *p = rl_path_join(d, name);
    free(d);
    return p;
}

rl_status rl_repro_variant_split(const char *variant, size_t *name_len, double *base, rl_err *err)
{
    const char *at = strchr(variant, '@');
    *name_len = at ? (size_t)(at - variant) : strlen(variant);
    *base = NAN;
    if (!at)
        return RL_OK;
    char *end;
    errno = 0;
    const double b = strtod(at + 1, &end);
    if (!isdigit((unsigned char)at[1]) || *end || errno || !isfinite(b) || b < RL_MATCH_BASE_MIN || b > RL_MATCH_BASE_MAX)
        return rl_fail(err, RL_EINPUT, "--variants: '%s': the base after '@' must be a number in [%g, %g]", variant,
                       RL_MATCH_BASE_MIN, RL_MATCH_BASE_MAX);
    *base = b;
    return RL_OK;
}

rl_status rl_repro_set_variants(rl_repro *r, rl_err *err)
{
    const char *list = r->g.variants;
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    r->nvar = 0;
    r->var = rl_xcalloc(n, sizeof *r->var);
    r->pos = rl_xcalloc(n, sizeof *r->pos);
    r->base = rl_xcalloc(n, sizeof *r->base);
    r->control = rl_xcalloc(n, sizeof *r->control);
    if (n > RL_GRID_MAX_VARIANTS || strlen(list) > RL_GRID_MAX_VARIANTS_CHARS)
        return rl_fail(err, RL_EINPUT, "--variants: %d variants in %zu characters; at most %d in %d",
                       n, strlen(list), RL_GRID_MAX_VARIANTS, RL_GRID_MAX_VARIANTS_CHARS);
    for (const char *p = list;; p++) {
        const size_t len = strcspn(p, ",");
        const int v = r->nvar++;
        r->var[v] = strndup(p, len);
        if (!r->var[v])
            rl_die("out of memory");
        size_t nlen;
        double b;
        RL_TRY(rl_repro_variant_split(r->var[v], &nlen, &b, err));
        r->pos[v] = strndup(r->var[v], nlen);
        r->base[v] = isnan(b) ? r->g.train.rot_base : b;
        r->control[v] = !isnan(b);
        p += len;
        if (!*p)
            break;
    }
    return RL_OK;
}

void rl_repro_free_variants(rl_repro *r)
{
    for (int v = 0; v < r->nvar; v++) {
        free(r->var[v]);
        free(r->pos[v]);
    }
    free(r->var);
    free(r->pos);
    free(r->base);
    free(r->control);
    r->var = r->pos = NULL;
    r->base = NULL;
    r->control = NULL;
    r->nvar = 0;
}

long rl_repro_seed(const rl_repro *r, int k)
{
    return r->g.train.seed + k;
}

char *rl_repro_model_dir(const rl_repro *r, int v, int k)
{
    char *p;
    if (asprintf(&p, "%s/models/%s/seed%ld", r->out, r->var[v], rl_repro_seed(r, k)) < 0)
        rl_die("out of memory");
    return p;
}

int rl_repro_lengths(const rl_repro *r, long *len, int max)
{
    int n = 0;
    for (long m = 1; m <= r->g.max_mult && n < max; m *= 2)
        len[n++] = m * r->g.train.ctx;
    return n;
}

long rl_repro_steps(const rl_repro *r)
{
    long steps;
    rl_err err;
    if (rl_train_opts_steps(&r->g.train, &steps, &err) != RL_OK) {
        rl_err_prefix(&err, "reproduce");
        rl_err_exit(&err);
    }
    return steps;
}

int rl_repro_stages(const rl_repro *r, long *steps)
{
    const long total = rl_repro_steps(r);
    int n;
    rl_err err;
    if (rl_train_opts_kept(&r->g.train, total, steps, &n, &err) != RL_OK) {
        rl_err_prefix(&err, "reproduce");
        rl_err_exit(&err);
    }
    if (n && steps[n - 1] == total)
        n--; /* the last step's stage is the final model */
    steps[n++] = total;
    return n;
}

char *rl_repro_stage_eval(const rl_repro *r, int v, int k, long step)
{
    char name[64];
    if (step == rl_repro_steps(r))
        snprintf(name, sizeof name, "eval.tsv");
    else
        snprintf(name, sizeof name, "eval-%ld.tsv", step);
    return mdir_file(r, v, k, name);
}

char *rl_repro_stage_ckpt(const rl_repro *r, int v, int k, long step)
{
    char name[64];
    if (step == rl_repro_steps(r))
        snprintf(name, sizeof name, "ckpt.bin");
    else
        rl_train_kept_name(step, name, sizeof name);
    return mdir_file(r, v, k, name);
}

/* The training options of variant v, replicate k: the grid's, with v's
 * scheme and k's seed (which draws the initial weights and every batch:
 * model/train.c fill_windows keys each window by the seed). */
static rl_train_opts train_opts_of(const rl_repro *r, int v, int k)
{
    rl_train_opts t = r->g.train;
    t.pos = r->pos[v];
    t.mode = -1;
    t.seed = rl_repro_seed(r, k);
    t.rot_base = r->base[v]; /* NAME@BASE, else the grid's */
    return t;
}

/* ---- progress and ETA ---- */

/* Work of each stage in model FLOPs: training 6N-style FLOPs per token
 * (rl_gpt_flops_per_token), evaluation a third of that (forward only) at
 * each length.  The grid's rate is measured on the stages done in this
 * run. */
typedef struct {
    double done, total, t0, spent;
} eta;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The model of variant v (its scheme's parameters count towards the work). */
static rl_gpt_config cfg_of(const rl_repro *r, int v)
{
    rl_train_opts t = train_opts_of(r, v, 0);
    rl_gpt_config c;
    rl_err err;
    if (rl_train_opts_config(&t, &c, &err) != RL_OK) {
        rl_err_prefix(&err, "reproduce: --variants");
        rl_err_exit(&err);
    }
    return c;
}

static double train_work(const rl_repro *r, int v)
{
    const rl_train_opts *t = &r->g.train;
    rl_gpt_config c = cfg_of(r, v);
    return (double)rl_repro_steps(r) * t->batch * t->accum * t->ctx * rl_gpt_flops_per_token(&c, t->ctx);
}

/* Windows per evaluation length: eval's rule, ceil(targets / Lmax) spans
 * of Lmax / L windows each (the full stream: every span; fewer when the
 * stream is short, which the estimate ignores), else the fixed count. */
static double eval_windows(const rl_repro *r, long L, long Lmax)
{
    /* the full stream's size is the data's: for the ETA alone, the order of
     * the validation streams routelab builds (Brown: 599,555 bytes) */
    const long targets = r->g.eval_full ? 1L << 19 : r->g.eval_targets;
    if (targets > 0)
        return (double)((targets + Lmax - 1) / Lmax) * (double)(Lmax / L);
    return r->g.eval_batches;
}

static double eval_work(const rl_repro *r, int v)
{
    rl_gpt_config c = cfg_of(r, v);
    long len[32];
    int n = rl_repro_lengths(r, len, 32);
    const long Lmax = len[n - 1], T = r->g.train.ctx;
    /* the reference: a window of T for each target of a span beyond T */
    double w = eval_windows(r, Lmax, Lmax) * (double)(Lmax - T) * T * rl_gpt_flops_per_token(&c, (int)T) / 3.0;
    for (int i = 0; i < n; i++)
        w += eval_windows(r, len[i], Lmax) * len[i] * rl_gpt_flops_per_token(&c, (int)len[i]) / 3.0;
    return w;
}

static void say(const rl_repro *r, const eta *e, int v, int k, const char *stage)
{
    double el = now() - e->t0;
    char etas[64] = "unknown";
    if (e->done > 0 && e->spent > 1) {
        double left = (e->total - e->done) / (e->done / e->spent);
        snprintf(etas, sizeof etas, "%.0f min", left / 60.0);
    }
    printf("\n[reproduce %s] model %d/%d %s seed %ld: %s  (elapsed %.0f min; ETA for the grid %s)\n", r->g.name,
           k * r->nvar + v + 1, r->nvar * r->g.seeds, r->var[v], rl_repro_seed(r, k), stage, el / 60.0, etas);
    fflush(stdout);
}

/* ---- the stages ---- */

/* The parts of the grid's training options as `train` flags. */
static void train_opts_args(args *a, const rl_train_opts *t, unsigned parts)
{
    char *v[2 * RL_TRAIN_OPTS_MAX];
    int n = rl_train_opts_argv(t, parts, v);
    for (int i = 0; i < n; i++) {
        arg(a, "%s", v[i]);
        free(v[i]);
    }
}

/* `routelab train` of variant v: what determines the model (the model
 * folder's config.txt).  The steps are written out, so that the text names
 * the run's length. */
static void train_args(const rl_repro *r, int v, int k, args *a)
{
    char *d = rl_repro_model_dir(r, v, k);
    rl_train_opts t = train_opts_of(r, v, k);
    t.steps = rl_repro_steps(r);
    args_cmd(a, "train");
    flag(a, "--data", "%s", r->g.data);
    flag(a, "--out", "%s", d);
    flag(a, "--pos", "%s", t.pos);
    /* the variant's rotation base travels in t: written only when it is not
     * train's default (rl_train_opts_argv) */
    train_opts_args(a, &t, RL_TRAIN_OPTS_RUN);
    free(d);
}

/* The training command as text, one argument a line (config.txt). */
static char *args_text(const args *a)
{
    size_t n = 1;
    for (int i = 0; i < a->n; i++)
        n += strlen(a->v[i]) + 1;
    char *s = rl_xmalloc(n), *p = s;
    for (int i = 0; i < a->n; i++)
        p += sprintf(p, "%s\n", a->v[i]);
    *p = 0;
    return s;
}

char *rl_repro_train_command(const rl_repro *r, int v, int k)
{
    args a = { 0 };
    train_args(r, v, k, &a);
    char *text = args_text(&a);
    args_free(&a);
    return text;
}

/* A model's own file, written by the rank that runs the model (any rank). */
static void write_text(const char *path, const char *text)
{
    rl_outfile *o = rl_outfile_open_own(path);
    fputs(text, o->f);
    rl_outfile_commit(o);
}

/* The model folder's config.txt (NULL when there is none yet); dies when it
 * is not text, the model's training command: that model was trained with
 * other settings. */
static char *config_of(const rl_repro *r, int v, int k, const char *text)
{
    char *cfgp = mdir_file(r, v, k, "config.txt"), *old = rl_read_file(cfgp, NULL);
    free(cfgp);
    if (old && strcmp(old, text)) {
        char *d = rl_repro_model_dir(r, v, k);
        rl_die("reproduce: %s was trained with other settings (see its config.txt): use another --out, "
               "or remove that folder to retrain", d);
    }
    return old;
}

/* Train variant v unless finished; returns 1 if --stop-at interrupted it. */
static int stage_train(const rl_repro *r, int v, int k, eta *e)
{
    char *done = mdir_file(r, v, k, "trained"), *cfgp = mdir_file(r, v, k, "config.txt");
    char *ck = mdir_file(r, v, k, "ckpt.bin"), *d = rl_repro_model_dir(r, v, k);
    args a = { 0 };
    train_args(r, v, k, &a);
    char *text = args_text(&a), *old = config_of(r, v, k, text);
    int stopped = 0;
    if (!exists(done)) {
        rl_mkdir_p(d);
        if (!old)
            write_text(cfgp, text);
        int resume = exists(ck);
        say(r, e, v, k, resume ? "resuming training from its checkpoint" : "training");
        if (resume)
            arg(&a, "--resume");
        /* how to run it, which does not change the model */
        train_opts_args(&a, &r->g.train, RL_TRAIN_OPTS_LOG);
        flag(&a, "--threads", "%d", r->threads);
        if (r->stop_at > 0 && r->stop_at < rl_repro_steps(r))
            flag(&a, "--stop-at", "%ld", r->stop_at);
        double t = now();
        char line[512], what[300];
        int st = run_self(&a, line, sizeof line);
        if (st != 0)
            run_fail((snprintf(what, sizeof what, "training %s seed %ld", r->var[v], rl_repro_seed(r, k)), what), st,
                     line);
        if (r->stop_at > 0 && r->stop_at < rl_repro_steps(r)) {
            stopped = 1;
        } else {
            write_text(done, "trained\n");
            e->spent += now() - t;
            e->done += train_work(r, v);
        }
    } else {
        e->total -= train_work(r, v);
    }
    args_free(&a);
    free(text);
    free(old);
    free(done);
    free(cfgp);
    free(ck);
    free(d);
    return stopped;
}

/* The evaluation of replicate k runs with k's seed, which draws the
 * rotation noise of random and lf and, with --eval-windows sampled, the
 * spans: every variant of a seed is evaluated on the same windows
 * (model/evaluate.h), so comparisons within a seed are paired, and the
 * spread across seeds covers the text as well as the training (spans: the
 * same windows for every seed, the spread the trainings' alone; the old
 * protocol, --eval-batches, draws its windows from the seed).  Beside the
 * final eval.tsv, positions.tsv: the per-position curves (model/evalpos.h).
 * A stage of the trajectory (rl_repro_stages) is evaluated exactly as the
 * final model, from its kept checkpoint into its own file: present means
 * done (eval writes it by rename), so a resumed grid evaluates only the
 * stages it has not. */
static void stage_eval(const rl_repro *r, int v, int k, long step, eta *e)
{
    char *out = rl_repro_stage_eval(r, v, k, step), *ck = rl_repro_stage_ckpt(r, v, k, step);
    char *pos = step == rl_repro_steps(r) ? mdir_file(r, v, k, "positions.tsv") : NULL;
    if (exists(out)) {
        e->total -= eval_work(r, v);
    } else {
        long len[32];
        int n = rl_repro_lengths(r, len, 32);
        char lens[512];
        int off = 0;
        for (int i = 0; i < n; i++)
            off += snprintf(lens + off, sizeof lens - off, i ? ",%ld" : "%ld", len[i]);
        char stage[64];
        if (step == rl_repro_steps(r))
            snprintf(stage, sizeof stage, "evaluating");
        else
            snprintf(stage, sizeof stage, "evaluating stage %ld", step);
        say(r, e, v, k, stage);
        args a = { 0 };
        args_cmd(&a, "eval");
        flag(&a, "--ckpt", "%s", ck);
        flag(&a, "--data", "%s", r->g.data);
        flag(&a, "--lengths", "%s", lens);
        if (r->g.eval_full)
            arg(&a, "--full"); /* every span of the stream */
        else if (r->g.eval_targets > 0)
            flag(&a, "--targets", "%ld", r->g.eval_targets); /* spans spread over the stream */
        else
            flag(&a, "--batches", "%d", r->g.eval_batches); /* the old fixed count */
        if (!r->g.eval_batches) {
            /* spans: eval's default, so that an older grid's children keep their command lines */
            if (r->g.eval_windows == RL_EVAL_SAMPLED)
                flag(&a, "--windows", "%s", "sampled");
            if (pos)
                flag(&a, "--positions", "%s", pos);
        }
        flag(&a, "--out", "%s", out);
        /* the grid owns the model's folder: a stage whose eval.tsv is absent
         * is redone whole, over a positions.tsv that an interrupted run left */
        arg(&a, "--force");
        args_seed_threads(&a, r, rl_repro_seed(r, k));
        double t = now();
        char line[512], what[300];
        int st = run_self(&a, line, sizeof line);
        if (st != 0)
            run_fail((snprintf(what, sizeof what, "%s %s seed %ld", stage, r->var[v], rl_repro_seed(r, k)), what),
                     st, line);
        e->spent += now() - t;
        e->done += eval_work(r, v);
        args_free(&a);
    }
    free(out);
    free(ck);
    free(pos);
}

static int probed(const rl_repro *r, int v)
{
    const char *p = r->g.probe;
    if (!strcmp(p, "all"))
        return 1;
    if (!strcmp(p, "none")) /* the word, not the variant none (NoPE) */
        return 0;
    size_t n = strlen(r->var[v]);
    for (const char *s = p; (s = strstr(s, r->var[v])); s += n)
        if ((s == p || s[-1] == ',') && (s[n] == ',' || s[n] == 0))
            return 1;
    return 0;
}

/* The probe of the first seed's model only: it reads one model's attention,
 * and the report shows one figure per probed variant. */
static void stage_probe(const rl_repro *r, int v, int k, eta *e)
{
    if (!probed(r, v) || k != 0)
        return;
    char *d = rl_repro_model_dir(r, v, k), *pd = rl_path_join(d, "probe"), *ck = mdir_file(r, v, k, "ckpt.bin");
    char *mark = rl_path_join(pd, "probe.tsv");
    if (!exists(mark)) {
        say(r, e, v, k, "probing attention");
        args a = { 0 };
        args_cmd(&a, "probe");
        flag(&a, "--ckpt", "%s", ck);
        flag(&a, "--data", "%s", r->g.data);
        flag(&a, "--lengths", "%ld,%ld", (long)r->g.train.ctx, (long)r->g.train.ctx * r->g.probe_mult);
        flag(&a, "--out", "%s", pd);
        args_seed_threads(&a, r, rl_repro_seed(r, k));
        char line[512], what[300];
        int st = run_self(&a, line, sizeof line);
        if (st != 0)
            run_fail((snprintf(what, sizeof what, "probing %s", r->var[v]), what), st, line);
        args_free(&a);
    }
    free(mark);
    free(ck);
    free(pd);
    free(d);
}

/* Every model (farpred set): the far mass at 2T .. max_mult T predicted
 * from windows of T (routelab farpred, into farpred/) and measured by the
 * probe at the same lengths (farpred/probe/), the report's far-mass
 * prediction section (docs/theory/farpred.md#far-mass-prediction). */
/* Whether the grid predicts variant v's far mass: farpred set, lengths
 * beyond T, and a scheme of SO(2) blocks (path, random-hh: a Householder
 * transport of scores, no prediction, said in the report). */
static int farpred_applies(const rl_repro *r, int v)
{
    return r->g.farpred && r->g.max_mult >= 2 && !cfg_of(r, v).pos.path;
}

static void stage_farpred(const rl_repro *r, int v, int k, eta *e)
{
    if (!farpred_applies(r, v))
        return;
    char *fd = mdir_file(r, v, k, "farpred"), *pd = mdir_file(r, v, k, "farpred/probe"),
         *ck = mdir_file(r, v, k, "ckpt.bin");
    char *fm = rl_path_join(fd, "farpred.tsv"), *pm = rl_path_join(pd, "probe.tsv");
    long len[34];
    const int n = rl_repro_lengths(r, len, 32);
    char list[34 * 24] = "";
    for (int i = 1; i < n; i++) /* len[0] = T: nothing lies beyond T there */
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%ld", i > 1 ? "," : "", len[i]);
    for (int pass = 0; pass < 2 && n > 1; pass++) {
        if (exists(pass ? pm : fm))
            continue;
        say(r, e, v, k, pass ? "probing far mass at every length" : "predicting far mass from within T");
        args a = { 0 };
        args_cmd(&a, pass ? "probe" : "farpred");
        flag(&a, "--ckpt", "%s", ck);
        flag(&a, "--data", "%s", r->g.data);
        flag(&a, "--lengths", "%s", list);
        flag(&a, "--out", "%s", pass ? pd : fd);
        args_seed_threads(&a, r, rl_repro_seed(r, k));
        char line[512], what[300];
        int st = run_self(&a, line, sizeof line);
        if (st != 0)
            run_fail((snprintf(what, sizeof what, "%s %s", pass ? "probing" : "predicting", r->var[v]), what), st,
                     line);
        args_free(&a);
    }
    free(fm);
    free(pm);
    free(fd);
    free(pd);
    free(ck);
}

/* The theory report is due: the grid asks for one and OUT has no
 * theory/theory.md (the report's last file). */
static int theory_due(const rl_repro *r)
{
    if (!strcmp(r->g.theory, "none"))
        return 0;
    char *md = rl_path_join(r->out, "theory/theory.md");
    const int due = !exists(md);
    free(md);
    return due;
}

static void stage_theory(const rl_repro *r)
{
    if (!theory_due(r))
        return;
    char *td = rl_path_join(r->out, "theory");
    printf("\n[reproduce %s] the theory report (routelab theory --preset %s)\n", r->g.name, r->g.theory);
    args a = { 0 };
    args_cmd(&a, "theory");
    flag(&a, "--preset", "%s", r->g.theory);
    flag(&a, "--out", "%s", td);
    args_seed_threads(&a, r, r->g.train.seed);
    char line[512];
    int st = run_self(&a, line, sizeof line);
    if (st != 0)
        run_fail("the theory report", st, line);
    args_free(&a);
    free(td);
}

rl_status rl_repro_check(const rl_repro *r, rl_err *err)
{
    if (r->g.seeds < 1 || r->g.seeds > RL_GRID_MAX_SEEDS)
        return rl_fail(err, RL_EINPUT, "--seeds %d is out of range [1, %d]", r->g.seeds, RL_GRID_MAX_SEEDS);
    /* the last seed as train takes it (RL_OPT_SEED_'s range) */
    if (r->g.train.seed > RL_SEED_MAX - (r->g.seeds - 1))
        return rl_fail(err, RL_EINPUT, "--seed %ld with --seeds %d runs past the largest seed %ld", r->g.train.seed,
                       r->g.seeds, (long)RL_SEED_MAX);
    /* the stages (train --keep-ckpt) against the run's length, as train
     * will check them */
    long total, kept[RL_TRAIN_MAX_KEPT];
    int nkept;
    RL_TRY(rl_train_opts_steps(&r->g.train, &total, err));
    RL_TRY(rl_train_opts_kept(&r->g.train, total, kept, &nkept, err));
    for (int v = 0; v < r->nvar; v++) {
        if (!*r->pos[v])
            return rl_fail(err, RL_EINPUT, "--variants '%s' has an empty name", r->g.variants);
        for (int u = 0; u < v; u++)
            if (!strcmp(r->var[u], r->var[v]) || (!strcmp(r->pos[u], r->pos[v]) && r->base[u] == r->base[v]))
                return rl_fail(err, RL_EINPUT, "--variants names %s twice (%s: the same scheme and base)",
                               r->var[v], r->var[u]);
        rl_train_opts t = train_opts_of(r, v, 0);
        rl_gpt_config c;
        if (rl_train_opts_config(&t, &c, err) != RL_OK) {
            rl_err_prefix(err, "--variants");
            return RL_EINPUT;
        }
        /* the model and its training activations fit the machine, as train
         * will check: refused here, before any folder, not by a child */
        size_t bytes;
        if (rl_gpt_bytes(&c, t.batch, &bytes, err) != RL_OK) {
            rl_err_prefix(err, r->var[v]);
            return RL_EINPUT;
        }
    }
    /* the data as train, eval and probe will read it */
    rl_dataset ds;
    RL_TRY(rl_data_load(r->g.data, r->g.train.vocab, &ds, err));
    /* under MPI every rank's children read the data themselves: the ranks
     * compare its contents (the flags were compared when parsed) */
    char desc[256];
    rl_data_describe(&ds, desc, sizeof desc);
    rl_status st = rl_par_same(desc, NULL, err);
    if (st != RL_OK) {
        rl_data_free(&ds);
        return st;
    }
    const long T = r->g.train.ctx;
    if (ds.train.n < T + 1 || ds.val.n < T + 1)
        st = rl_fail(err, RL_EINPUT, "the data set %s has %ld training and %ld validation tokens; training at "
                     "context %ld needs %ld in each", r->g.data, ds.train.n, ds.val.n, T, T + 1);
    long len[34], maxL;
    int n = rl_repro_lengths(r, len, 32);
    int probing = 0;
    for (int v = 0; v < r->nvar; v++)
        probing |= probed(r, v);
    if (probing)
        len[n++] = T * r->g.probe_mult; /* the probe's lengths: T (above) and this */
    if (st == RL_OK)
        st = rl_eval_check_lengths(NULL, len, n, 2, &ds, r->g.data, &maxL, err);
    rl_data_free(&ds);
    return st;
}

/* ---- the grid's work items ---- */

/* Item i of the grid is variant i % nvar of replicate (seed) i / nvar: the
 * order one process runs them in, seed by seed. */
/* Whether item (v, k) is finished on disk: trained, evaluated, and probed
 * where the grid probes it.  Dies when its folder was trained with other
 * settings (every rank checks every item, finished or not, before work). */
static int item_done(const rl_repro *r, int v, int k)
{
    char *text = rl_repro_train_command(r, v, k);
    free(config_of(r, v, k, text));
    free(text);
    char *tr = mdir_file(r, v, k, "trained");
    char *pr = mdir_file(r, v, k, "probe/probe.tsv"), *fp = mdir_file(r, v, k, "farpred/farpred.tsv"),
         *fq = mdir_file(r, v, k, "farpred/probe/probe.tsv");
    /* every stage's evaluation, the final model's (eval.tsv) last */
    long st[RL_GRID_MAX_STAGES];
    const int ns = rl_repro_stages(r, st);
    int evaluated = 1;
    for (int i = 0; i < ns && evaluated; i++) {
        char *ev = rl_repro_stage_eval(r, v, k, st[i]);
        evaluated = exists(ev);
        free(ev);
    }
    const int done = exists(tr) && evaluated && (!probed(r, v) || k != 0 || exists(pr)) &&
                     (!farpred_applies(r, v) || (exists(fp) && exists(fq)));
    free(fp);
    free(fq);
    free(tr);
    free(pr);
    return done;
}

/* The unfinished items in item order, rank 0's view of the disk for every
 * rank (a rank that has started work cannot change what another rank
 * sees).  Returns their count; *todo is malloc'ed. */
/* What an interrupted run left in the grid's folders (a temporary, a lock
 * file of a writer killed while it held it) goes at the next run, finished
 * models included, which no child enters again: rank 0 takes and releases
 * each model folder's and probe folder's lock (rl_lock_dir removes the
 * folder's stale temporaries, rl_unlock the lock file).  Before the plan's
 * broadcast, so that no rank's child is in any of them yet. */
static void sweep(const rl_repro *r)
{
    if (rl_par_rank() != 0)
        return;
    for (int v = 0; v < r->nvar; v++)
        for (int k = 0; k < r->g.seeds; k++) {
            char *d = rl_repro_model_dir(r, v, k), *pd = rl_path_join(d, "probe"),
                 *fd = rl_path_join(d, "farpred"), *fq = rl_path_join(d, "farpred/probe");
            const char *dirs[] = { d, pd, fd, fq };
            for (int i = 0; i < 4; i++) {
                struct stat st;
                rl_lock *lk;
                rl_err err;
                if (lstat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
                    continue;
                if (rl_lock_dir(dirs[i], &lk, &err) != RL_OK)
                    rl_err_exit(&err); /* another process writes in the grid */
                rl_unlock(lk);
            }
            free(pd);
            free(fd);
            free(fq);
            free(d);
        }
}

static long plan(const rl_repro *r, long **todo)
{
    const long n = (long)r->nvar * r->g.seeds;
    sweep(r);
    char *done = rl_xcalloc(n, 1);
    for (long i = 0; i < n; i++)
        done[i] = (char)item_done(r, (int)(i % r->nvar), (int)(i / r->nvar));
    rl_err err;
    if (rl_par_bcast(done, (size_t)n, &err) != RL_OK)
        rl_err_exit(&err);
    long m = 0;
    *todo = rl_xcalloc(n ? n : 1, sizeof **todo);
    for (long i = 0; i < n; i++)
        if (!done[i])
            (*todo)[m++] = i;
    free(done);
    return m;
}

/* Every rank's "stopped by --stop-at" into all[0..size-1] (rank r's in
 * slot r, its own block of size items); also the meeting of all ranks
 * before rank 0 writes the report. */
static void meet(int stopped, int *all)
{
    const int size = rl_par_size();
    all[rl_par_rank()] = stopped;
    rl_err err;
    if (rl_par_gather(all, size, sizeof *all, &err) != RL_OK)
        rl_err_exit(&err);
}

long rl_repro_pending(const rl_repro *r)
{
    long n = theory_due(r);
    for (int k = 0; k < r->g.seeds; k++)
        for (int v = 0; v < r->nvar; v++)
            n += !item_done(r, v, k);
    return n;
}

/* Under MPI the unfinished items are dealt round robin over the ranks (the
 * j-th unfinished item to rank j % size): seed by seed as with one process,
 * the first seed's probes spread, and a resume with any rank count deals
 * only what is left.  Each rank runs its items' children with --threads
 * threads (ranks x threads should match the cores); the last rank, which
 * has the fewest items, runs the theory report after its own.  A child
 * that fails stops the job at once (run_fail).  Which rank trains a model
 * changes no byte of it: a model is its own child process. */
int rl_repro_run(const rl_repro *r)
{
    rl_mkdir_p(r->out);
    const int rank = rl_par_rank(), size = rl_par_size();
    for (int v = 0; v < r->nvar; v++) /* checks every name before any work */
        (void)cfg_of(r, v);
    long *todo, m = plan(r, &todo), stages[RL_GRID_MAX_STAGES];
    const int nstages = rl_repro_stages(r, stages);
    eta e = { 0, 0, now(), 0 };
    for (long j = rank; j < m; j += size)
        e.total += train_work(r, (int)(todo[j] % r->nvar)) + nstages * eval_work(r, (int)(todo[j] % r->nvar));
    if (size > 1)
        printf("\n[reproduce %s] %ld of %d models left, dealt round robin over %d ranks (--threads %d each)\n",
               r->g.name, m, r->nvar * r->g.seeds, size, r->threads);
    int stopped = 0;
    for (long j = rank; j < m && !stopped; j += size) {
        const int v = (int)(todo[j] % r->nvar), k = (int)(todo[j] / r->nvar);
        if (stage_train(r, v, k, &e)) {
            printf("\n[reproduce %s] stopped at step %ld of %s seed %ld (--stop-at); the same command "
                   "continues from its checkpoint\n", r->g.name, r->stop_at, r->var[v], rl_repro_seed(r, k));
            stopped = 1;
            break;
        }
        for (int i = 0; i < nstages; i++) /* the earlier stages first, the final model last */
            stage_eval(r, v, k, stages[i], &e);
        stage_probe(r, v, k, &e);
        stage_farpred(r, v, k, &e);
    }
    free(todo);
    if (!stopped && rank == size - 1)
        stage_theory(r);
    int *all = rl_xcalloc(size, sizeof *all), any = 0;
    meet(stopped, all);
    for (int q = 0; q < size; q++)
        any |= all[q];
    if (any && !stopped)
        printf("\n[reproduce %s] other ranks stopped at step %ld (--stop-at); the same command continues\n",
               r->g.name, r->stop_at);
    free(all);
    return any;
}
