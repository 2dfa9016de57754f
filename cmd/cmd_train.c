/* cmd_train.c: `routelab train`, AdamW training with exact resume. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "../core/opts.h"
#include "../core/util.h"
#include "../model/ckpt.h"
#include "../model/train.h"

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
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
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

int cmd_train(int argc, char **argv)
{
    rl_gpt_config cfg = { 4, 128, 4, 128, 256, 0.0f, { RL_ROT_ROPE, RL_MODE_QK, 0, 0 } };
    double dropout = 0;
    int batch = 8, accum = 1, threads = rl_ncores(), resume = 0, mode = -1;
    long steps = 0, seed = 42, val_every = 100, val_batches = 8, ckpt_every = 500, stop_at = 0,
         log_every = 10;
    const char *data = NULL, *out = "results/train", *lr = "5e-4", *pos = "rope";
    rl_opt opts[] = {
        RL_OPT_STR_("data", &data, "data set: DIR with train.bin/val.bin, or one FILE (90/10)"),
        RL_OPT_STR_("out", &out, "run folder: ckpt.bin and log.tsv"),
        RL_OPT_INT_("layers", &cfg.layers, "decoder blocks", 1, 1024),
        RL_OPT_INT_("width", &cfg.width, "model width", 2, 65536),
        RL_OPT_INT_("heads", &cfg.heads, "attention heads", 1, 4096),
        RL_OPT_INT_("ctx", &cfg.ctx, "training context T", 1, 1 << 20),
        RL_OPT_INT_("vocab", &cfg.vocab, "vocabulary", 2, 65536),
        RL_OPT_DBL_("dropout", &dropout, "dropout probability", 0, 1, RL_LO | RL_HI_OPEN),
        RL_OPT_STR_("pos", &pos, "position scheme: " RL_POS_NAMES),
        RL_OPT_CHOICE_("mode", &mode, "qk: rotate q, k; qkv: also v, inverse on each head's output",
                       "qk|qkv"),
        RL_OPT_INT_("batch", &batch, "windows per micro-batch", 1, 1 << 20),
        RL_OPT_INT_("accum", &accum, "micro-batches per step (gradient accumulation)", 1, 1 << 20),
        RL_OPT_LONG_("steps", &steps, "optimizer steps (0: the sum of the --lr stages, else 1000)", 0, 1e12),
        RL_OPT_STR_("lr", &lr, "LR | LR:STEPS,LR:STEPS,... | cosine:PEAK:WARMUP[:MIN]"),
        RL_OPT_LONG_("val-every", &val_every, "validation loss every N steps", 1, 1e12),
        RL_OPT_LONG_("val-batches", &val_batches, "validation batches (fixed windows)", 1, 1e6),
        RL_OPT_LONG_("ckpt-every", &ckpt_every, "checkpoint every N steps (and at the end)", 1, 1e12),
        RL_OPT_LONG_("log-every", &log_every, "plain log line every N steps (no terminal)", 1, 1e12),
        RL_OPT_LONG_("stop-at", &stop_at, "checkpoint and stop after this step (0: run to the end)", 0, 1e12),
        RL_OPT_FLAG_("resume", &resume, "continue exactly from OUT/ckpt.bin"),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_END_
    };
    rl_opts_parse("train", "--data PATH [--out DIR] [model flags] [--lr SCHEDULE] [--resume]",
                  "Train a pre-LN GPT decoder with AdamW (weight decay 0.1 on matrices and the\n"
                  "token embedding), gradient clipping at norm 1, random training windows.\n"
                  "Writes OUT/log.tsv (step, train_loss, val_loss, lr, tokens_per_s) and\n"
                  "OUT/ckpt.bin; --resume continues bit for bit where the checkpoint stopped.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);
    if (!data)
        rl_die("train: --data is required");
    cfg.dropout = (float)dropout;
    {
        char err[512];
        if (rl_pos_parse(pos, rl_opt_seen(opts, "mode") ? mode : -1, &cfg.pos, err, sizeof err))
            rl_die("train: %s", err);
    }
    rl_mkdir_p(out);
    char *ck = rl_path_join(out, "ckpt.bin"), *logp = rl_path_join(out, "log.tsv");
    rl_ckpt_meta meta = { 0 };
    rl_gpt *m;
    long start = 0;
    rl_dataset ds;
    if (resume) {
        char err[512];
        rl_ckpt_meta cm;
        m = rl_ckpt_load(ck, batch, &cm, err, sizeof err);
        if (!m)
            rl_die("train: %s", err);
        SAME("layers", cfg.layers, m->cfg.layers);
        SAME("width", cfg.width, m->cfg.width);
        SAME("heads", cfg.heads, m->cfg.heads);
        SAME("ctx", cfg.ctx, m->cfg.ctx);
        SAME("vocab", cfg.vocab, m->cfg.vocab);
        SAME("dropout", cfg.dropout, m->cfg.dropout);
        if ((rl_opt_seen(opts, "pos") || rl_opt_seen(opts, "mode")) &&
            !rl_pos_equal(cfg.pos, m->cfg.pos))
            rl_die("train: --pos %s does not match the checkpoint's %s (%s)",
                   rl_pos_name(cfg.pos), rl_pos_name(m->cfg.pos), ck);
        SAME("batch", batch, cm.batch);
        SAME("accum", accum, cm.accum);
        SAME("seed", seed, (long)cm.seed);
        SAME("val-batches", val_batches, cm.val_batches);
        if (rl_opt_seen(opts, "lr") && strcmp(lr, cm.lr))
            rl_die("train: --lr %s does not match the checkpoint's %s (%s)", lr, cm.lr, ck);
        if (batch != cm.batch) { /* activations sized for the checkpoint's batch */
            rl_gpt *m2 = rl_ckpt_load(ck, cm.batch, &cm, err, sizeof err);
            rl_gpt_free(m);
            m = m2;
        }
        meta = cm;
        if (rl_opt_seen(opts, "steps"))
            meta.steps = steps;
        cfg = m->cfg;
        start = meta.step;
        rl_data_load("train", data, cfg.vocab, &ds);
        if (ds.train.n != meta.data_n || rl_fnv64(RL_FNV64_INIT, ds.train.tok,
                                                  sizeof(uint16_t) * ds.train.n) != meta.data_hash)
            rl_die("train: %s is not the training data of checkpoint %s", data, ck);
        trim_log(logp, start);
    } else {
        rl_lr_schedule s;
        char err[256];
        if (rl_lr_parse(lr, &s, err, sizeof err))
            rl_die("train: %s", err);
        rl_data_load("train", data, cfg.vocab, &ds);
        rl_err merr;
        rl_check(rl_gpt_new(&m, &cfg, batch, &merr), &merr);
        rl_gpt_init(m, (uint64_t)seed);
        meta.steps = steps ? steps : rl_lr_stage_total(&s) ? rl_lr_stage_total(&s) : 1000;
        meta.batch = batch;
        meta.accum = accum;
        meta.seed = (uint64_t)seed;
        snprintf(meta.lr, sizeof meta.lr, "%s", lr);
        meta.val_every = val_every;
        meta.val_batches = val_batches;
        meta.data_n = ds.train.n;
        meta.data_hash = rl_fnv64(RL_FNV64_INIT, ds.train.tok, sizeof(uint16_t) * ds.train.n);
        rl_outfile *o = rl_outfile_open(logp);
        fprintf(o->f, "step\ttrain_loss\tval_loss\tlr\ttokens_per_s\n");
        rl_outfile_commit(o);
    }
    if (rl_opt_seen(opts, "val-every"))
        meta.val_every = val_every;
    rl_lr_schedule sched;
    char err[256];
    if (rl_lr_parse(meta.lr, &sched, err, sizeof err))
        rl_die("train: %s", err);
    if (sched.cosine && sched.warmup >= meta.steps)
        rl_die("train: warm-up of %ld steps does not fit in %ld steps", sched.warmup, meta.steps);
    if (ds.val.n < cfg.ctx + 1)
        rl_die("train: the validation stream has %ld tokens, fewer than --ctx + 1 = %d", ds.val.n,
               cfg.ctx + 1);
    rl_trainer *tr = rl_trainer_alloc(m, &ds.train, meta.batch, meta.accum, meta.seed);
    FILE *log = fopen(logp, "a");
    if (!log)
        rl_die("train: cannot append to %s", logp);
    const int tty = isatty(STDOUT_FILENO);
    printf("train: %s, %ld parameters, %d layers width %d heads %d ctx %d pos %s; "
           "batch %d x %d, %ld steps from %ld, lr %s\n", data, m->nparams, cfg.layers, cfg.width,
           cfg.heads, cfg.ctx, rl_pos_name(cfg.pos), meta.batch, meta.accum, meta.steps, start,
           meta.lr);
    fflush(stdout);
    const double tok_per_step = (double)meta.batch * meta.accum * cfg.ctx;
    const double t0 = now();
    long last_ck = start;
    for (long s = start; s < meta.steps; s++) {
        double ts = now(), gn;
        double lrv = rl_lr_at(&sched, s, meta.steps);
        double loss = rl_trainer_step(tr, s, lrv, &gn);
        double tps = tok_per_step / (now() - ts);
        if (!isfinite(loss) || !isfinite(gn)) {
            if (tty)
                printf("\n");
            fclose(log);
            rl_die("train: loss is %g (gradient norm %g) at step %ld; stopped, last good "
                   "checkpoint kept: %s (step %ld)", loss, gn, s + 1, ck, last_ck);
        }
        const long step = s + 1;
        double val = NAN;
        if (step % meta.val_every == 0 || step == meta.steps)
            val = rl_trainer_val_loss(tr, &ds.val, (int)meta.val_batches);
        if (isnan(val))
            fprintf(log, "%ld\t%.17g\tNA\t%.6g\t%.1f\n", step, loss, lrv, tps);
        else
            fprintf(log, "%ld\t%.17g\t%.17g\t%.6g\t%.1f\n", step, loss, val, lrv, tps);
        fflush(log);
        if (tty || step % log_every == 0 || !isnan(val) || step == meta.steps)
            progress(tty, step, meta.steps, loss, val, tps, now() - t0, step - start);
        if (step % ckpt_every == 0 || step == meta.steps || step == stop_at) {
            meta.step = step;
            rl_ckpt_save(ck, m, &meta);
            last_ck = step;
        }
        if (step == stop_at) {
            if (tty)
                printf("\n");
            printf("train: stopped after step %ld as asked; resume with --resume\n", step);
            break;
        }
    }
    if (tty)
        printf("\n");
    fclose(log);
    printf("train: done in %.1f s; checkpoint %s, log %s\n", now() - t0, ck, logp);
    rl_trainer_free(tr);
    rl_gpt_free(m);
    rl_data_free(&ds);
    free(ck);
    free(logp);
    return 0;
}
