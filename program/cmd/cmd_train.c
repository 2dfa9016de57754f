/* cmd_train.c: `routelab train`, AdamW training with exact resume. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "../../base/core/blas_arch.h"
#include "../../base/core/lock.h"
#include "../../base/core/mem.h"
#include "../../base/core/opts.h"
#include "../../base/par/par.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../model/ckpt.h"
#include "../../model/train.h"
#include "../../model/trainopts.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Keep the rows of an existing log up to step (a resumed run rewrites what
 * the interrupted one logged after its checkpoint). */
static void trim_log(const char *path, long step)
{
    if (access(path, F_OK) != 0) /* no log yet: nothing to keep */
        return;
    FILE *fp; /* a regular file only: a FIFO put there would block the read */
    rl_err err;
    if (rl_fopen_regular(path, RL_MAX_TEXT_FILE, &fp, NULL, &err)) {
        rl_err_prefix(&err, "train");
        rl_err_exit(&err);
    }
    rl_outfile *o = rl_outfile_open(path);
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        char *end;
        long s = strtol(line, &end, 10);
        if (end == line || s <= step)
            fputs(line, o->f);
    }
    fclose(fp);
    rl_outfile_commit(o);
}

/* A flag given on the command line must agree with the checkpoint. */
#define SAME(flag, mine, theirs)                                                             \
    do {                                                                                     \
        if (rl_opt_seen(opts, flag) && (mine) != (theirs))                                   \
            rl_die("train: --%s %g does not match the checkpoint's %g (%s)", flag,          \
                   (double)(mine), (double)(theirs), ck);                                    \
    } while (0)

/* A failed library call: one line naming the command, exit 2 or 1. */
static void check(rl_status s, rl_err *err)
{
    if (s != RL_OK) {
        rl_err_prefix(err, "train");
        rl_err_exit(err);
    }
}

/* What this invocation wrote into OUT, undone when it fails before its
 * first checkpoint: a failed fresh run leaves no half-made run behind.  A
 * run with a checkpoint on disk (and every resume) keeps its folder: the
 * checkpoint is the last good state.  Only what this run created is
 * removed: a fresh run never starts in a folder holding another run's
 * checkpoint (claim_out), and the log it removes is the one it wrote.  The
 * same files are tracked for a signal (base/core/lock.h) until the first
 * checkpoint. */
typedef struct {
    char *made;       /* the outermost folder this invocation created, or NULL */
    const char *out;  /* OUT, when made */
    const char *logp; /* the log.tsv a fresh run started, or NULL */
    int saved;        /* a checkpoint of this run is on disk */
} run_undo;

static void undo(const run_undo *u)
{
    if (u->saved)
        return;
    if (u->made)
        rl_rmtree(u->made);
    else if (u->logp)
        unlink(u->logp);
}

/* The run's own files are kept from now on: a checkpoint is on disk. */
static void keep(run_undo *u)
{
    if (u->saved)
        return;
    u->saved = 1;
    if (u->logp)
        rl_cleanup_untrack(u->logp);
    if (u->made) {
        rl_cleanup_untrack(u->out);
        rl_cleanup_untrack(u->made);
    }
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* OUT's lock (one writer per run folder), taken as soon as OUT exists: before
 * the checkpoint is read when it exists already.  A fresh run (no --resume)
 * refuses a folder holding another run's checkpoint: overwriting it would
 * lose that run, and a failure would remove its log.  A log.tsv without a
 * checkpoint is a run killed before its first checkpoint, which left nothing
 * to resume: the fresh run replaces it.  Never undone on failure: the folder
 * may be the other writer's. */
static void claim_out(const char *out, const char *ck, int resume, rl_lock **lk)
{
    if (*lk)
        return;
    rl_err err;
    if (rl_lock_dir(out, lk, &err) != RL_OK) {
        rl_err_prefix(&err, "train");
        rl_err_exit(&err);
    }
    if (!resume && access(ck, F_OK) == 0)
        rl_die("train: %s holds a run (ckpt.bin); --resume continues it, or choose another --out", out);
}

/* A diverged run: stop in one line (exit 2), keeping the last good
 * checkpoint (kept: its step, or -1 when this run wrote none; a stale
 * ckpt.bin of a run killed before is not this run's). */
static void __attribute__((noreturn)) stop_diverged(const run_undo *u, FILE *log, int tty, const char *why,
                                                   const char *ck, long kept)
{
    if (tty)
        printf("\n");
    fclose(log);
    undo(u);
    if (kept < 0)
        rl_die("train: %s; stopped, no checkpoint of this run was written", why);
    rl_die("train: %s; stopped, last good checkpoint kept: %s (step %ld)", why, ck, kept);
}

/* check() after undo(). */
static void check_run(const run_undo *u, rl_status s, rl_err *err)
{
    if (s != RL_OK) {
        undo(u);
        check(s, err);
    }
}

/* Every rank starts from the same state (base/par/par.h, rl_par_same): the
 * flags were compared when they were parsed; here what they led to, the
 * data's contents, the run's settings (a checkpoint's, on --resume) and the
 * model's weights and optimizer state.  Before the first step's exchange:
 * ranks with different widths or step counts would otherwise overrun each
 * other's buffers or wait for each other forever. */
static void ranks_agree(const rl_dataset *ds, const rl_gpt *m, const rl_ckpt_meta *meta, long stop_at)
{
    if (rl_par_size() == 1)
        return;
    char data[256], *desc;
    rl_data_describe(ds, data, sizeof data);
    uint64_t h = rl_fnv64(RL_FNV64_INIT, m->params, sizeof(float) * (size_t)m->nparams);
    h = rl_fnv64(h, m->adam, sizeof(float) * 2 * (size_t)m->nparams);
    if (asprintf(&desc, "%s\nrun of steps %ld to %ld (stop at %ld), batch %d x %d, seed %llu, lr %s, "
                        "validation every %ld steps on %ld batches\nmodel of %ld parameters, with its optimizer "
                        "state hash %016llx\n", data, meta->step, meta->steps, stop_at, meta->batch, meta->accum,
                 (unsigned long long)meta->seed, meta->lr, meta->val_every, meta->val_batches, m->nparams,
                 (unsigned long long)h) < 0)
        rl_fatal("out of memory");
    rl_err err;
    rl_status st = rl_par_same(desc, "train", &err);
    free(desc);
    if (st != RL_OK)
        rl_err_exit(&err); /* the line names train already */
}

static void progress(int tty, long step, long steps, double loss, double val, double tps,
                     double elapsed, long done_here)
{
    double eta = done_here ? elapsed / done_here * (steps - step) : 0;
    if (tty) {
        int w = 30, fill = (int)(w * step / (double)steps);
        char bar[32];
        for (int i = 0; i < w; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[w] = 0;
        fprintf(stdout, "\r\033[K[%s] step %ld/%ld loss %.4f tok/s %.0f ETA %02d:%02d", bar, step,
                steps, loss, tps, (int)(eta / 60), (int)fmod(eta, 60));
        if (!isnan(val)) /* keep validation points on screen: end the line */
            fprintf(stdout, " val %.4f\n", val);
        fflush(stdout);
    } else {
        printf("step %ld/%ld train_loss %.4f", step, steps, loss);
        if (!isnan(val))
            printf(" val_loss %.4f", val);
        printf(" tok/s %.0f eta %.0fs\n", tps, eta);
        fflush(stdout);
    }
}

/* One training run: the flags, then what they led to. */
typedef struct {
    /* the flags (opts points into this struct: it never moves) */
    rl_train_opts to;
    int resume;
    long stop_at;
    const char *data, *out;
    rl_opt opts[RL_TRAIN_OPTS_MAX + 8];
    /* the run */
    char *ck, *logp; /* OUT/ckpt.bin, OUT/log.tsv */
    rl_gpt_config cfg;
    rl_ckpt_meta meta;
    rl_lr_schedule sched;
    rl_dataset ds;
    rl_gpt *m;
    long kept[RL_TRAIN_MAX_KEPT]; /* --keep-ckpt's steps (rl_train_opts_kept) */
    int nkept;
    rl_lock *lk; /* OUT's, once taken */
    int writer;  /* this rank writes OUT (rank 0) */
    long start;  /* the first step this invocation trains */
} train_run;

static void parse_flags(train_run *r, int argc, char **argv)
{
    r->to = rl_train_opts_default();
    int threads = rl_ncores();
    r->resume = 0;
    r->stop_at = 0;
    r->data = NULL, r->out = "results/train";
    rl_opt *opts = r->opts;
    int n = 0;
    opts[n++] = (rl_opt)RL_OPT_STR_("data", &r->data, "data set: DIR with train.bin/val.bin, or one FILE (90/10)");
    opts[n++] = (rl_opt)RL_OPT_STR_("out", &r->out, "run folder: ckpt.bin and log.tsv");
    n += rl_train_opts_table(&r->to, RL_TRAIN_OPTS_ALL, opts + n);
    opts[n++] = (rl_opt)RL_OPT_LONG_("stop-at", &r->stop_at,
                                     "checkpoint and stop after this step (0: run to the end)", 0, 1e12);
    opts[n++] = (rl_opt)RL_OPT_FLAG_("resume", &r->resume, "continue exactly from OUT/ckpt.bin");
    opts[n++] = (rl_opt)RL_OPT_THREADS_(&threads);
    opts[n] = (rl_opt)RL_OPT_END_;
    rl_opts_parse("train", "--data PATH [--out DIR] [model flags] [--lr SCHEDULE] [--resume]",
                  "Train a pre-LN GPT decoder with AdamW (weight decay 0.1 on matrices and the\n"
                  "token embedding), gradient clipping at norm 1, random training windows.\n"
                  "Writes OUT/log.tsv (step, train_loss, val_loss, lr, tokens_per_s) and\n"
                  "OUT/ckpt.bin (and OUT/ckpt-STEP.bin at each --keep-ckpt step); --resume continues\n"
                  "bit for bit where the checkpoint stopped.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    if (!r->data)
        rl_die("train: --data is required");
}

/* The flags' own checks, and the model's memory on a fresh run, before any
 * file or allocation. */
static void check_flags(train_run *r)
{
    rl_err err;
    const rl_path_use din[] = { { "--data", r->data, 0 } }, dout[] = { { "--out", r->out, 1 } };
    check(rl_paths_check(din, 1, dout, 1, &err), &err); /* the run folder is never the data's */
    check(rl_train_opts_config(&r->to, &r->cfg, &err), &err);
    r->meta = (rl_ckpt_meta){ 0 };
    if (strlen(r->to.lr) >= sizeof r->meta.lr) /* the checkpoint keeps the schedule's text */
        rl_die("train: --lr is %zu characters long; a checkpoint keeps at most %zu",
               strlen(r->to.lr), sizeof r->meta.lr - 1);
    if (!r->resume) {
        size_t bytes;
        check(rl_gpt_bytes(&r->cfg, r->to.batch, &bytes, &err), &err);
    }
}

/* --resume: the checkpoint's model and settings, every flag given on the
 * command line checked against them. */
static void load_checkpoint(train_run *r)
{
    const rl_opt *opts = r->opts; /* SAME's */
    const char *ck = r->ck;
    const rl_train_opts *to = &r->to;
    const rl_gpt_config *cfg = &r->cfg;
    rl_err err;
    rl_ckpt_meta cm;
    /* without activations first: they are sized by the checkpoint's batch */
    check(rl_ckpt_load(ck, 0, &r->m, &cm, &err), &err);
    const rl_gpt *m = r->m;
    SAME("layers", cfg->layers, m->cfg.layers);
    SAME("width", cfg->width, m->cfg.width);
    SAME("heads", cfg->heads, m->cfg.heads);
    SAME("ctx", cfg->ctx, m->cfg.ctx);
    SAME("vocab", cfg->vocab, m->cfg.vocab);
    SAME("dropout", cfg->dropout, m->cfg.dropout);
    SAME("rot-base", cfg->rot_base, m->cfg.rot_base);
    if ((rl_opt_seen(opts, "pos") || rl_opt_seen(opts, "mode")) &&
        !rl_pos_equal(cfg->pos, m->cfg.pos))
        rl_die("train: --pos %s does not match the checkpoint's %s (%s)",
               rl_pos_name(cfg->pos), rl_pos_name(m->cfg.pos), ck);
    SAME("batch", to->batch, cm.batch);
    SAME("accum", to->accum, cm.accum);
    SAME("seed", to->seed, (long)cm.seed);
    SAME("val-batches", to->val_batches, cm.val_batches);
    if (rl_opt_seen(opts, "lr") && strcmp(to->lr, cm.lr))
        rl_die("train: --lr %s does not match the checkpoint's %s (%s)", to->lr, cm.lr, ck);
    rl_gpt_free(r->m);
    check(rl_ckpt_load(ck, cm.batch, &r->m, &cm, &err), &err);
    r->meta = cm;
    if (rl_opt_seen(opts, "steps"))
        r->meta.steps = to->steps;
    r->cfg = r->m->cfg;
}

/* The run's settings: the checkpoint's on --resume, else the flags'; then
 * its length, the one rule of rl_lr_plan, which reproduce asks too. */
static void settle_run(train_run *r)
{
    rl_ckpt_meta *meta = &r->meta;
    if (r->resume) {
        load_checkpoint(r);
    } else {
        meta->steps = r->to.steps;
        meta->batch = r->to.batch;
        meta->accum = r->to.accum;
        meta->seed = (uint64_t)r->to.seed;
        snprintf(meta->lr, sizeof meta->lr, "%s", r->to.lr);
        meta->val_every = r->to.val_every;
        meta->val_batches = r->to.val_batches;
    }
    if (rl_opt_seen(r->opts, "val-every"))
        meta->val_every = r->to.val_every;
    rl_err err;
    check(rl_lr_plan(meta->lr, meta->steps, &r->sched, &meta->steps, &err), &err);
    /* the kept steps against the run's length (on --resume the flag is
     * read again: the checkpoint does not keep it) */
    check(rl_train_opts_kept(&r->to, meta->steps, r->kept, &r->nkept, &err), &err);
}

/* Whether step's checkpoint is kept (--keep-ckpt). */
static int is_kept(const train_run *r, long step)
{
    for (int i = 0; i < r->nkept; i++)
        if (r->kept[i] == step)
            return 1;
    return 0;
}

/* The data, and the model: the checkpoint's, whose data it must be (a
 * resume trains from the checkpoint's step to --steps: nothing to do is said
 * as such, since reproduce resumes a finished model whose marker a kill
 * prevented; a shorter run is refused), or a new one.  Returns 0 when the
 * resumed run is already complete. */
static int data_and_model(train_run *r)
{
    rl_err err;
    rl_ckpt_meta *meta = &r->meta;
    check(rl_data_load(r->data, r->cfg.vocab, &r->ds, &err), &err);
    const uint64_t data_hash = rl_fnv64(RL_FNV64_INIT, r->ds.train.tok, sizeof(uint16_t) * r->ds.train.n);
    r->start = meta->step;
    if (!r->resume) {
        check(rl_gpt_new(&r->m, &r->cfg, r->to.batch, &err), &err);
        rl_gpt_init(r->m, (uint64_t)r->to.seed);
        meta->data_n = r->ds.train.n;
        meta->data_hash = data_hash;
        return 1;
    }
    if (r->ds.train.n != meta->data_n || data_hash != meta->data_hash)
        rl_die("train: %s is not the training data of checkpoint %s", r->data, r->ck);
    if (r->start > meta->steps)
        rl_die("train: --steps %ld is below the checkpoint's step %ld (%s): a run cannot be shortened",
               meta->steps, r->start, r->ck);
    /* a stop the run has passed already: it once trained to the end and
     * exited 0; a stop at the checkpoint's own step is that step */
    if (r->stop_at > 0 && r->stop_at < r->start)
        rl_die("train: --stop-at %ld is below the checkpoint's step %ld (%s): the run is past it", r->stop_at,
               r->start, r->ck);
    if (r->start == meta->steps) {
        printf("train: %s is already complete (step %ld of %ld); nothing to train\n", r->ck, r->start, meta->steps);
        return 0;
    }
    return 1;
}

/* The step's own buffers (the shards' gradient tree) beside the model's. */
static void check_memory(const train_run *r)
{
    rl_err err;
    size_t bytes;
    int over = 0;
    check(rl_gpt_bytes(&r->cfg, r->meta.batch, &bytes, &err), &err);
    size_t need = rl_szadd(bytes, rl_trainer_extra_bytes(r->m->nparams, (int)r->meta.accum), &over);
    check(rl_mem_check("training (the model, its activations and the shards' gradient tree)", need,
                       over, &err), &err);
}

/* Now OUT: created (remembering in u what this invocation made), its stale
 * temporary files removed, the log started or trimmed; under MPI by rank 0
 * alone, whose files these are (base/par/par.h).  Returns the log to append to
 * (/dev/null on another rank). */
static FILE *open_out(train_run *r, run_undo *u)
{
    rl_err err;
    if (!r->writer) {
        FILE *log = fopen("/dev/null", "w");
        if (!log)
            rl_die("train: rank %d: cannot open /dev/null", rl_par_rank());
        return log;
    }
    check(rl_mkdirs_new(r->out, &u->made, &err), &err);
    /* the lock also removes the temporaries a killed run left (lock.h) */
    claim_out(r->out, r->ck, r->resume, &r->lk);
    if (u->made) {
        rl_cleanup_track(u->made, 1);
        rl_cleanup_track(r->out, 1);
    }
    if (r->resume) {
        trim_log(r->logp, r->start);
    } else {
        u->logp = r->logp;
        rl_cleanup_track(r->logp, 0);
        rl_outfile *o;
        check_run(u, rl_outfile_create(r->logp, &o, &err), &err);
        fprintf(o->f, "step\ttrain_loss\tval_loss\tlr\ttokens_per_s\n");
        check_run(u, rl_outfile_close(o, &err), &err);
    }
    FILE *log = fopen(r->logp, "a");
    if (!log) {
        undo(u);
        rl_die("train: cannot append to %s", r->logp);
    }
    return log;
}

/* What a run in progress needs at each step. */
typedef struct {
    train_run *r;
    rl_trainer *tr;
    run_undo *u;
    FILE *log;
    int tty;
    long last_ck; /* the step of this run's last checkpoint */
} steps_ctx;

/* A diverged run stops, keeping the last good checkpoint of this run (a
 * stale ckpt.bin of a run killed before a fresh one is not its). */
static void __attribute__((noreturn)) diverged(const steps_ctx *c, const char *why)
{
    const long last = c->last_ck;
    stop_diverged(c->u, c->log, c->tty, why, c->r->ck, c->r->resume ? last : last > 0 ? last : -1);
}

/* The checkpoint after step.  The NaN guard: only a state a run can
 * continue from is written, its parameters and moments finite and their
 * loss finite (the step's validation loss val when have_val, else one
 * validation batch: the step's training loss was the previous state's). */
static void checkpoint(steps_ctx *c, long step, int have_val, double val)
{
    train_run *r = c->r;
    rl_err err;
    char why[256];
    long first, bad = rl_ckpt_nonfinite(r->m, &first);
    double at = val;
    if (!bad && !have_val)
        check_run(c->u, rl_trainer_val_loss(c->tr, 1, &at, &err), &err);
    if (bad || !isfinite(at)) {
        if (bad)
            snprintf(why, sizeof why, "%ld parameters or AdamW moments are not finite after step %ld",
                     bad, step);
        else
            snprintf(why, sizeof why, "the parameters after step %ld give a validation loss of %g", step,
                     at);
        diverged(c, why);
    }
    r->meta.step = step;
    if (is_kept(r, step)) {
        /* the kept copy first: a kill between the two saves leaves ckpt.bin
         * at an earlier step, from which a resume writes the copy again
         * (the same bytes), so a kept file present is always complete */
        char name[64];
        rl_train_kept_name(step, name, sizeof name);
        char *kp = rl_path_join(r->out, name);
        check_run(c->u, rl_ckpt_save(kp, r->m, &r->meta, &err), &err);
        free(kp);
    }
    check_run(c->u, rl_ckpt_save(r->ck, r->m, &r->meta, &err), &err);
    c->last_ck = step;
    keep(c->u);
}

/* The steps from r->start to the end or to --stop-at: the log's rows, the
 * progress lines, the checkpoints. */
static void run_steps(steps_ctx *c, double t0)
{
    train_run *r = c->r;
    const rl_ckpt_meta *meta = &r->meta;
    rl_err err;
    const double tok_per_step = (double)meta->batch * meta->accum * r->cfg.ctx;
    for (long s = r->start; s < meta->steps; s++) {
        double ts = now(), gn;
        double lrv = rl_lr_at(&r->sched, s, meta->steps);
        double loss;
        check_run(c->u, rl_trainer_step(c->tr, s, lrv, &loss, &gn, &err), &err);
        double tps = tok_per_step / (now() - ts);
        if (!isfinite(loss) || !isfinite(gn)) {
            char why[256];
            snprintf(why, sizeof why, "loss is %g (gradient norm %g) at step %ld", loss, gn, s + 1);
            diverged(c, why);
        }
        const long step = s + 1;
        double val = NAN;
        const int have_val = step % meta->val_every == 0 || step == meta->steps;
        if (have_val)
            check_run(c->u, rl_trainer_val_loss(c->tr, (int)meta->val_batches, &val, &err), &err);
        if (isnan(val))
            fprintf(c->log, "%ld\t%.17g\tNA\t%.6g\t%.1f\n", step, loss, lrv, tps);
        else
            fprintf(c->log, "%ld\t%.17g\t%.17g\t%.6g\t%.1f\n", step, loss, val, lrv, tps);
        fflush(c->log);
        if (c->tty || step % r->to.log_every == 0 || !isnan(val) || step == meta->steps)
            progress(c->tty, step, meta->steps, loss, val, tps, now() - t0, step - r->start);
        if (step % r->to.ckpt_every == 0 || step == meta->steps || step == r->stop_at || is_kept(r, step))
            checkpoint(c, step, have_val, val);
        if (step == r->stop_at) {
            if (c->tty)
                printf("\n");
            printf("train: stopped after step %ld as asked; resume with --resume\n", step);
            break;
        }
    }
}

/* What the run holds: its model, data and paths (its lock is released at
 * the exit, base/core/lock.h). */
static void release(train_run *r)
{
    rl_gpt_free(r->m);
    rl_data_free(&r->ds);
    free(r->ck);
    free(r->logp);
}

int cmd_train(int argc, char **argv)
{
    train_run r = { 0 };
    parse_flags(&r, argc, argv);
    check_flags(&r);
    /* every input (flags, checkpoint, data, memory) is checked before OUT is
     * created or touched: a refused run leaves nothing behind */
    r.ck = rl_path_join(r.out, "ckpt.bin"), r.logp = rl_path_join(r.out, "log.tsv");
    /* under MPI OUT is rank 0's, as its files are (base/par/par.h): rank 0 alone
     * locks it, and a refusal there stops the job */
    r.writer = rl_par_rank() == 0;
    if (r.writer && is_dir(r.out))
        claim_out(r.out, r.ck, r.resume, &r.lk);
    settle_run(&r);
    if (!data_and_model(&r)) {
        rl_unlock(r.lk);
        release(&r);
        return 0;
    }
    check_memory(&r);
    ranks_agree(&r.ds, r.m, &r.meta, r.stop_at);
    rl_err err;
    rl_trainer *tr;
    check(rl_trainer_alloc(r.m, &r.ds.train, &r.ds.val, r.meta.batch, r.meta.accum, r.meta.seed, &tr, &err), &err);
    run_undo u = { NULL, r.out, NULL, 0 };
    FILE *log = open_out(&r, &u);
    const int tty = isatty(STDOUT_FILENO);
    const rl_gpt_config *cfg = &r.cfg;
    /* the kernel set: another set sums the matmuls in another order, so the same seed gives other
     * bytes (docs/theory/farpred.md#farpred-committed-grid: the committed grid's models are
     * Haswell's) */
    printf("train: %s, %ld parameters, %d layers width %d heads %d ctx %d pos %s (rotation base %g); "
           "batch %d x %d, %ld steps from %ld, lr %s; OpenBLAS kernels %s\n", r.data, r.m->nparams,
           cfg->layers, cfg->width, cfg->heads, cfg->ctx, rl_pos_name(cfg->pos), cfg->rot_base, r.meta.batch,
           r.meta.accum, r.meta.steps, r.start, r.meta.lr, rl_blas_core());
    fflush(stdout);
    const double t0 = now();
    steps_ctx c = { &r, tr, &u, log, tty, r.start };
    run_steps(&c, t0);
    if (tty)
        printf("\n");
    fclose(log);
    printf("train: done in %.1f s; checkpoint %s, log %s\n", now() - t0, r.ck, r.logp);
    rl_trainer_free(tr);
    free(u.made);
    release(&r);
    return 0;
}
