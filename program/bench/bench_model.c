/* bench_model.c: model throughput against this machine's own sgemm peak. */
#include "bench_model.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "peak.h"
#include "../../base/core/util.h"
#include "../../model/attention.h"
#include "../../model/gpt.h"
#include "../../model/train.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* The first llm.c shape (4 layers, width 256, 4 heads, T = 128, vocab 256). */
static rl_gpt_config shape1(rl_pos_config pos)
{
    rl_gpt_config c = { 4, 256, 4, 128, 256, 0.0f, pos, RL_ROT_BASE_DEFAULT };
    return c;
}

static const rl_pos_config ROPE = { RL_ROT_ROPE, RL_MODE_QK, 0, 0 };

/* Forward-only evaluation of one window of L tokens at the first shape:
 * seconds, workspace and the process's peak RSS right after it. */
typedef struct {
    int L;
    double sec, cpu, flops, work_mib, rss_mib;
} eval_figs;

static eval_figs bench_eval(int L, rl_pos_config pos)
{
    rl_gpt_config cfg = shape1(pos);
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    if (!m)
        rl_fatal("bench: out of memory (the model)");
    rl_gpt_init(m, 1);
    uint16_t *tok = rl_xmalloc(sizeof(uint16_t) * (L + 1));
    for (int i = 0; i <= L; i++)
        tok[i] = (uint16_t)((i * 2654435761u) >> 24);
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
    if (!e)
        rl_fatal("bench: out of memory (the evaluation workspace)");
    eval_figs f = { L, rl_bench_now(), rl_bench_cpu_now(), 0, rl_gpt_eval_bytes(e) / 1048576.0, 0 };
    rl_gpt_eval_window(m, e, tok, L, 1);
    f.sec = rl_bench_now() - f.sec;
    f.cpu = rl_bench_cpu_now() - f.cpu;
    f.rss_mib = peak_rss_mib();
    f.flops = rl_gpt_eval_flops(&cfg, L); /* forward, causal attention halved */
    rl_gpt_eval_free(e);
    free(tok);
    rl_gpt_free(m);
    return f;
}

/* The streaming attention kernel alone (rl_attention_forward_streaming) on
 * one window of L tokens, H heads of hd: the share of the long evaluation
 * that the kernel owns.  FLOPs of the causal window: per head, q.k and p.v
 * over the L(L+1)/2 pairs, 2 hd each:  2 * 2 hd * L(L+1)/2 = 2 hd L(L+1).
 * Wall seconds, or the process's CPU seconds when cpu is set (run it on
 * one thread). */
static double bench_attention(int L, int H, int hd, int cpu, double *gflops)
{
    const long ld = (long)H * hd, n = (long)L * ld;
    float *q = rl_xmalloc(sizeof(float) * n), *k = rl_xmalloc(sizeof(float) * n);
    float *v = rl_xmalloc(sizeof(float) * n), *o = rl_xmalloc(sizeof(float) * n);
    for (long i = 0; i < n; i++) { /* a fixed pseudo-random fill in [-1, 1) */
        q[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
        k[i] = (float)((i * 40503u + 7) % 2001) / 1000.0f - 1.0f;
        v[i] = (float)((i * 69069u + 3) % 2001) / 1000.0f - 1.0f;
    }
    rl_attn_shape sh = { .B = 1, .T = L, .H = H, .hd = hd };
    double t = cpu ? rl_bench_cpu_now() : rl_bench_now();
    rl_attention_forward_streaming(o, ld, q, k, v, ld, &sh);
    t = (cpu ? rl_bench_cpu_now() : rl_bench_now()) - t;
    *gflops = 2.0 * hd * (double)L * (L + 1) * H / t / 1e9;
    free(q);
    free(k);
    free(v);
    free(o);
    return t;
}

/* A model with its trainer on synthetic tokens, for timing full steps. */
typedef struct {
    rl_gpt *m;
    rl_trainer *tr;
    rl_tokens data;
    long step;
} train_run;

static rl_status run_open(train_run *r, const rl_gpt_config *cfg, int B, rl_err *err)
{
    r->m = rl_gpt_alloc(cfg, B);
    if (!r->m)
        rl_fatal("bench: out of memory (the model)");
    rl_gpt_init(r->m, 1);
    r->data.n = 1 << 20;
    r->data.tok = rl_xmalloc(sizeof(uint16_t) * r->data.n);
    for (long i = 0; i < r->data.n; i++)
        r->data.tok[i] = (uint16_t)(((uint32_t)i * 2654435761u) >> 24);
    r->step = 0;
    rl_status s = rl_trainer_alloc(r->m, &r->data, &r->data, B, 1, 1, &r->tr, err);
    if (s != RL_OK) {
        free(r->data.tok);
        rl_gpt_free(r->m);
        return s;
    }
    double loss;
    /* warm-up: first touch of the buffers */
    return rl_trainer_step(r->tr, r->step++, 1e-4, &loss, NULL, err);
}

/* Seconds of one full step (forward, backward, clipping, AdamW): wall
 * time, or the process's CPU time when cpu is set. */
static double run_step(train_run *r, int cpu)
{
    double t = cpu ? rl_bench_cpu_now() : rl_bench_now(), loss;
    /* one process: the step cannot fail (only MPI can make it) */
    (void)rl_trainer_step(r->tr, r->step++, 1e-4, &loss, NULL, NULL);
    return (cpu ? rl_bench_cpu_now() : rl_bench_now()) - t;
}

static void run_close(train_run *r)
{
    rl_trainer_free(r->tr);
    free(r->data.tok);
    rl_gpt_free(r->m);
}

static double median(double *x, long n)
{
    qsort(x, n, sizeof *x, cmp_double);
    return x[n / 2];
}

enum { MAXSTEPS = 512 };

/* The training kernel alone (rl_attention_forward then rl_attention_backward)
 * on B windows of T, H heads of hd, as a training step calls it: median
 * seconds of a forward and backward over budget seconds (wall, or the
 * process's CPU time when cpu is set: run it on one thread).  FLOPs of the
 * causal pairs, as the streaming figure counts them: forward q.k and p.v,
 * backward dP, dV, dQ, dK, each 2 hd over the T(T+1)/2 pairs j <= i per head
 * and window: 6 B H hd T(T+1) in all.  (Until the training kernels skipped
 * the masked half, docs/speed/kernels.md#training-attention-kernels, this figure counted the whole
 * T x T blocks they computed, 12 B H T^2 hd: the model count's 12 L C T.) */
static double bench_train_attention(int B, int T, int H, int hd, double budget, int cpu, double *gflops)
{
    const long ld = 3L * H * hd, n = (long)B * T * ld, nh = (long)B * H * T * T;
    float *qkv = rl_xmalloc(sizeof(float) * n), *d = rl_xmalloc(sizeof(float) * n);
    float *o = rl_xmalloc(sizeof(float) * B * T * H * hd), *att = rl_xmalloc(sizeof(float) * nh);
    float *datt = rl_xmalloc(sizeof(float) * nh);
    for (long i = 0; i < n; i++)
        qkv[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    for (long i = 0; i < (long)B * T * H * hd; i++)
        o[i] = (float)((i * 40503u + 7) % 2001) / 1000.0f - 1.0f; /* reused as dout */
    rl_attn_shape sh = { .B = B, .T = T, .H = H, .hd = hd };
    const long C = (long)H * hd;
    double st[MAXSTEPS];
    long k = 0;
    for (double t0 = rl_bench_now(); k < MAXSTEPS && (rl_bench_now() - t0 < budget || k < 5); k++) {
        double t = cpu ? rl_bench_cpu_now() : rl_bench_now();
        rl_attention_forward(d, C, att, qkv, qkv + C, qkv + 2 * C, ld, &sh);
        rl_attention_backward(d, d + C, d + 2 * C, ld, datt, o, C, att, qkv, qkv + C, qkv + 2 * C, ld, &sh);
        st[k] = (cpu ? rl_bench_cpu_now() : rl_bench_now()) - t;
    }
    const double sec = median(st, k);
    *gflops = 6.0 * B * H * (double)hd * T * (T + 1) / sec / 1e9;
    free(qkv);
    free(d);
    free(o);
    free(att);
    free(datt);
    return sec;
}

/* A training shape of the bench: layers, width, heads, T, B. */
typedef struct {
    int layers, width, heads, T, B;
    const char *why;
} train_shape;

/* llm.c's two CPU shapes, and the phenomena grid's (preset cpu): small
 * widths are where the fraction of peak falls. */
static const train_shape SHAPES[] = {
    { 4, 256, 4, 128, 8, "llm.c's first CPU shape" },
    { 6, 384, 6, 256, 4, "llm.c's second CPU shape" },
    { 4, 128, 4, 64, 16, "the phenomena grid's (preset cpu)" },
};
enum { NSHAPES = sizeof SHAPES / sizeof *SHAPES };

/* Tokens/s of full training steps (median step time of a budget-long run):
 * wall time, or the process's CPU time when cpu is set (one thread). */
static rl_status bench_train(const train_shape *sh, double budget, int cpu, double *tps, rl_err *err)
{
    const int layers = sh->layers, width = sh->width, heads = sh->heads, T = sh->T, B = sh->B;
    rl_gpt_config cfg = { layers, width, heads, T, 256, 0.0f, { 0 }, RL_ROT_BASE_DEFAULT };
    train_run r;
    RL_TRY(run_open(&r, &cfg, B, err));
    /* the median step time: robust to other work on the machine */
    double st[MAXSTEPS];
    long n = 0;
    for (double t0 = rl_bench_now(); n < MAXSTEPS && (rl_bench_now() - t0 < budget || n < 5);)
        st[n++] = run_step(&r, cpu);
    run_close(&r);
    *tps = (double)B * T / median(st, n);
    return RL_OK;
}

/* Training tokens/s of scheme pos and of RoPE at the first shape, steps of
 * the two models interleaved (one each per round) so that both see the
 * same load; median step times.  cpu: one thread, CPU time per step. */
static rl_status bench_scheme_train(rl_pos_config pos, double budget, int cpu, double *tps,
                                    double *tps_rope, rl_err *err)
{
    rl_gpt_config cs = shape1(pos), cr = shape1(ROPE);
    train_run a, b;
    rl_set_threads(cpu ? 1 : rl_ncores());
    RL_TRY(run_open(&a, &cs, 8, err));
    rl_status s = run_open(&b, &cr, 8, err);
    if (s != RL_OK) {
        run_close(&a);
        return s;
    }
    double sa[MAXSTEPS], sb[MAXSTEPS];
    long n = 0;
    for (double t0 = rl_bench_now(); n < MAXSTEPS && (rl_bench_now() - t0 < budget || n < 5); n++) {
        sa[n] = run_step(&a, cpu);
        sb[n] = run_step(&b, cpu);
    }
    run_close(&a);
    run_close(&b);
    rl_set_threads(rl_ncores());
    *tps = 8.0 * 128 / median(sa, n);
    *tps_rope = 8.0 * 128 / median(sb, n);
    return RL_OK;
}

/* One training line: tokens/s, model GFLOP/s and the fraction of peak. */
static void report_train(const train_shape *sh, int threads, double tps, const rl_bench_peak *peak)
{
    rl_gpt_config cfg = { sh->layers, sh->width, sh->heads, sh->T, 256, 0.0f, { 0 }, RL_ROT_BASE_DEFAULT };
    double gf = tps * rl_gpt_flops_per_token(&cfg, sh->T) / 1e9;
    printf("model train %dL w%d h%d T=%d B=%d, %d thr%s: %8.0f tok/s  %6.1f GFLOP/s  %4.0f%% of the %s peak  "
           "(%s)\n", sh->layers, sh->width, sh->heads, sh->T, sh->B, threads, threads == 1 ? " (CPU time)" : "",
           tps, gf, 100 * gf / rl_bench_peak_value(peak), threads == 1 ? "1-thread" : "all-core", sh->why);
}

/* A process that spins on one core until killed (it dies with its parent):
 * the neighbour of the contention figure. */
static pid_t busy_start(void)
{
    const pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    return pid;
}

static void busy_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Every position scheme that turns or transports (the registry's rotations
 * in both modes and PaTH), and ALiBi on random_qkv (the study's remedy), at
 * the first shape.  Training: steps interleaved
 * with a RoPE model's (one each per round, so both see the same load),
 * median step times, on all cores (wall time: tokens/s) and on one thread
 * (CPU time: less sensitive to other work).  Evaluation: one window of
 * 16,384 tokens (4,096 with --quick) on one thread, CPU seconds (on a
 * shared machine two threads' wall and CPU time both count the waits for a
 * descheduled partner), right after a RoPE window for the ratio (the rope
 * row's ratio is then the noise of the method). */
static rl_status bench_schemes(int quick, rl_err *err)
{
    const char *names[64];
    int n = 0;
    for (const rl_scheme *const *s = rl_schemes; *s; s++)
        for (int m = 0; m < 2 && n < 63; m++)
            if (((*s)->names[0][1] || (*s)->path) && (*s)->names[0][m])
                names[n++] = (*s)->names[0][m];
    names[n++] = "alibi+random_qkv";
    const int L = quick ? 4096 : 16384;
    const double budget = quick ? 1.5 : 5;
    printf("model schemes, 4L w256 h4 T=128 B=8 vocab 256 (overhead: time per step or window "
           "over RoPE's - 1; training steps interleaved with a RoPE model's)\n");
    for (int i = 0; i < n; i++) {
        rl_pos_config pos;
        char why[256];
        if (rl_pos_parse(names[i], -1, &pos, why, sizeof why)) /* a registered name */
            return rl_fail(err, RL_EINTERNAL, "bench: %s", why);
        double tps, tps_rope, cps, cps_rope;
        RL_TRY(bench_scheme_train(pos, budget, 0, &tps, &tps_rope, err));
        RL_TRY(bench_scheme_train(pos, budget, 1, &cps, &cps_rope, err));
        rl_set_threads(1);
        eval_figs rope_ev = bench_eval(L, ROPE), ev = bench_eval(L, pos);
        rl_set_threads(rl_ncores());
        /* the scheme's own arithmetic in the model count (lf's MLP, PaTH's projections
         * and Householder products): its overhead beyond its FLOPs is the time ratio over
         * the FLOP ratio, 1 + raw over 1 + FLOPs, minus 1 */
        const rl_gpt_config cs = shape1(pos), cr = shape1(ROPE);
        const double fx = rl_gpt_flops_per_token(&cs, 128) / rl_gpt_flops_per_token(&cr, 128);
        const double fe = rl_gpt_eval_flops(&cs, L) / rl_gpt_eval_flops(&cr, L);
        const double r2 = tps_rope / tps, r1 = cps_rope / cps, re = ev.cpu / rope_ev.cpu;
        printf("model scheme %-16s train %2d thr %6.0f tok/s (rope %6.0f) %+6.1f%%, beyond its FLOPs %+6.1f%% | "
               "1 thr CPU %6.0f tok/s (rope %6.0f) %+6.1f%%, beyond %+6.1f%% | model FLOPs %+5.1f%% | eval T=%d, "
               "1 thr: CPU %6.2f s %+6.1f%% (FLOPs %+5.1f%%), beyond %+6.1f%% (wall %.2f s)\n", names[i],
               rl_ncores(), tps, tps_rope, 100 * (r2 - 1), 100 * (r2 / fx - 1), cps, cps_rope, 100 * (r1 - 1),
               100 * (r1 / fx - 1), 100 * (fx - 1), L, ev.cpu, 100 * (re - 1), 100 * (fe - 1), 100 * (re / fe - 1),
               ev.sec);
        fflush(stdout);
    }
    return RL_OK;
}

rl_status rl_bench_model(int quick, rl_err *err)
{
    const int nc = rl_ncores();
    rl_set_threads(nc);
    const double pb = quick ? 0.4 : 1.0, tb = quick ? 3 : 10;
    /* the peak of the loaded kernels, sampled between the workloads: all
     * cores (wall time) and one thread (CPU time) */
    rl_bench_peak peak = { .threads = nc }, peak1 = { .threads = 1, .cpu = 1 };
    rl_bench_peak_sample(&peak, pb);
    eval_figs ev = bench_eval(16384, ROPE); /* first: its peak RSS is its own */
    double tps[NSHAPES], tps1[NSHAPES];
    for (int i = 0; i < NSHAPES; i++) {
        RL_TRY(bench_train(&SHAPES[i], tb, 0, &tps[i], err));
        rl_bench_peak_sample(&peak, pb);
    }
    rl_set_threads(1);
    rl_bench_peak_sample(&peak1, pb);
    for (int i = 0; i < NSHAPES; i++) {
        RL_TRY(bench_train(&SHAPES[i], tb, 1, &tps1[i], err));
        rl_bench_peak_sample(&peak1, pb);
    }
    rl_set_threads(nc);
    rl_bench_peak_print("model", &peak);
    rl_bench_peak_print("model", &peak1);
    for (int i = 0; i < NSHAPES; i++)
        report_train(&SHAPES[i], nc, tps[i], &peak);
    for (int i = 0; i < NSHAPES; i++)
        report_train(&SHAPES[i], 1, tps1[i], &peak1);
    printf("model (llm.c side by side on this machine: docs/speed/eval-and-training.md#speed, not measured by this command)\n");
    /* contention: the first shape on all cores beside a process that spins
     * on one core, against its quiet figure above */
    if (nc > 1) {
        double busy;
        pid_t b = busy_start();
        rl_status s = bench_train(&SHAPES[0], tb, 0, &busy, err);
        busy_stop(b);
        RL_TRY(s);
        printf("model contention: 4L w256 h4 T=128 B=8, %d thr beside a busy loop: %8.0f tok/s = %.2fx its quiet "
               "%.0f tok/s\n", nc, busy, busy / tps[0], tps[0]);
    }
    const double P = rl_bench_peak_value(&peak), P1 = rl_bench_peak_value(&peak1);
    printf("model eval  4L w256 h4 rope T=%d (one window, forward only): %.2f s  %.0f tok/s  "
           "%.1f GFLOP/s (%.0f%% of the all-core peak)  workspace %.0f MiB  peak RSS %.0f MiB\n", ev.L, ev.sec,
           ev.L / ev.sec, ev.flops / ev.sec / 1e9, 100 * ev.flops / ev.sec / 1e9 / P, ev.work_mib, ev.rss_mib);
    /* the kernel alone at the eval's shape (4 heads of 64) and at head dim
     * 32: on all cores (wall time against the all-core peak), then on one
     * thread (CPU time against the one-thread peak, also in CPU time) */
    for (int i = 0; i < 2; i++) {
        const int H = i ? 8 : 4, hd = i ? 32 : 64, L = 16384;
        double gf, gfc, t = bench_attention(L, H, hd, 0, &gf);
        rl_set_threads(1);
        double tc = bench_attention(L, H, hd, 1, &gfc);
        rl_set_threads(nc);
        printf("model attention alone (streaming forward, causal, T=%d, %d heads x hd %d): %.2f s  "
               "%.1f GFLOP/s (%.0f%% of the all-core peak) | 1 thr CPU %.2f s  %.1f GFLOP/s (%.0f%% of the "
               "1-thread peak)\n", L, H, hd, t, gf, 100 * gf / P, tc, gfc, 100 * gfc / P1);
    }
    /* the training kernel at the training shapes' heads (hd 64 at llm.c's
     * first shape, hd 32 at the phenomena grid's) */
    const int ats[2][4] = { { 8, 128, 4, 64 }, { 16, 64, 4, 32 } };
    for (int i = 0; i < 2; i++) {
        double gf, gfc, t = bench_train_attention(ats[i][0], ats[i][1], ats[i][2], ats[i][3], pb, 0, &gf);
        rl_set_threads(1);
        double tc = bench_train_attention(ats[i][0], ats[i][1], ats[i][2], ats[i][3], pb, 1, &gfc);
        rl_set_threads(nc);
        printf("model attention alone (training forward + backward, B=%d T=%d, %d heads x hd %d, causal FLOPs): %.2f ms  "
               "%.1f GFLOP/s (%.0f%% of the all-core peak) | 1 thr CPU %.2f ms  %.1f GFLOP/s (%.0f%% of the "
               "1-thread peak)\n", ats[i][0], ats[i][1], ats[i][2], ats[i][3], 1e3 * t, gf, 100 * gf / P,
               1e3 * tc, gfc, 100 * gfc / P1);
    }
    if (!quick) { /* the study's longest length, its time and resident memory */
        eval_figs e6 = bench_eval(65536, ROPE);
        printf("model eval  4L w256 h4 rope T=%d (one window, forward only): %.2f s  %.0f tok/s  "
               "%.1f GFLOP/s (%.0f%% of the all-core peak)  workspace %.0f MiB  peak RSS %.0f MiB\n", e6.L,
               e6.sec, e6.L / e6.sec, e6.flops / e6.sec / 1e9, 100 * e6.flops / e6.sec / 1e9 / P, e6.work_mib,
               e6.rss_mib);
    }
    fflush(stdout);
    rl_status s = bench_schemes(quick, err);
    rl_set_threads(1);
    return s;
}
