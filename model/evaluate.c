/* evaluate.c: the full-stream, token-paired evaluation (evaluate.h). */
#include "evaluate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/streams.h"
#include "../base/core/util.h"
#include "../sampling/rng.h"

/* The counts of a plan of either kind (rl_eval_spans_plan's rule), its
 * start array allocated (RL_ENOMEM when it cannot be). */
static rl_status spans_count(const rl_tokens *t, long Lmax, long targets, rl_eval_spans *s, rl_err *err)
{
    memset(s, 0, sizeof *s);
    if (Lmax < 1 || targets < 0)
        return rl_fail(err, RL_EINPUT, "length %ld, targets %ld: must be positive", Lmax, targets);
    /* Lmax + 1 tokens, compared as Lmax >= n: Lmax + 1 overflows at LONG_MAX */
    if (Lmax >= t->n)
        return rl_fail(err, RL_EINPUT, "length %ld needs %ld + 1 tokens; the stream has %ld", Lmax, Lmax, t->n);
    s->Lmax = Lmax;
    s->slots = (t->n - 1) / Lmax;
    s->wanted = targets ? targets / Lmax + (targets % Lmax != 0) : s->slots;
    s->n = s->wanted < s->slots ? s->wanted : s->slots;
    s->start = rl_alloc_array((size_t)s->n, sizeof(long), err);
    return s->start ? RL_OK : RL_ENOMEM;
}

rl_status rl_eval_spans_plan(const rl_tokens *t, long Lmax, long targets, rl_eval_spans *s, rl_err *err)
{
    RL_TRY(spans_count(t, Lmax, targets, s, err));
    /* slot floor(i slots / n): evenly spread, ascending, distinct (slots >= n);
     * the product in long double: slots and n are at most 2^63 / Lmax */
    for (long i = 0; i < s->n; i++)
        s->start[i] = (long)((long double)i * s->slots / s->n) * Lmax;
    return RL_OK;
}

rl_status rl_eval_spans_sample(const rl_tokens *t, long Lmax, long targets, uint64_t seed, rl_eval_spans *s,
                               rl_err *err)
{
    RL_TRY(spans_count(t, Lmax, targets, s, err));
    /* n spans whose targets (start + 1 .. start + Lmax) lie in 1 .. N - 1
     * and are disjoint: start_i = u_i + i Lmax with 0 <= u_0 <= ... <=
     * u_{n-1} <= F, F = (N - 1) - n Lmax the slack.  Such sequences are the
     * n-subsets v_0 < ... < v_{n-1} of 0 .. F + n - 1 (u_i = v_i - i), so a
     * uniform subset (selection sampling) is a uniform placement. */
    const long F = (t->n - 1) - s->n * Lmax;
    gsl_rng *r = rl_rng_alloc();
    if (!r) {
        rl_eval_spans_free(s);
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a random number generator");
    }
    rl_rng_stream(r, seed ^ RL_STREAM_EVAL_SAMPLE, (uint64_t)Lmax);
    rl_rng_select(r, F + s->n, s->n, s->start);
    gsl_rng_free(r);
    for (long i = 0; i < s->n; i++)
        s->start[i] = s->start[i] - i + i * Lmax;
    return RL_OK;
}

void rl_eval_spans_free(rl_eval_spans *s)
{
    free(s->start);
    memset(s, 0, sizeof *s);
}

long rl_eval_window_start(const rl_eval_spans *s, long i, long L, long j)
{
    return s->start[i] + j * L;
}

uint64_t rl_eval_window_key(uint64_t seed, long L, long start)
{
    return rl_stream_key(seed + (uint64_t)L, (uint64_t)start);
}

int rl_eval_ref_batch(long T)
{
    const long b = 2048 / (T > 0 ? T : 1);
    return b < 1 ? 1 : b > 32 ? 32 : (int)b;
}

float *rl_eval_reference(const rl_gpt *m0, const rl_tokens *val, const rl_eval_spans *s, uint64_t seed)
{
    const long T = m0->cfg.ctx, Lmax = s->Lmax;
    const int B = rl_eval_ref_batch(T);
    /* a copy of the parameters with activations for B windows of T: the
     * evaluation's own model holds none (it streams one window) */
    rl_gpt *m = rl_gpt_alloc(&m0->cfg, B);
    if (!m)
        return NULL;
    memcpy(m->params, m0->params, sizeof(float) * (size_t)m0->nparams);
    memcpy(m->slopes, m0->slopes, sizeof(float) * (size_t)m0->cfg.heads); /* all the forward reads */
    float *ref = rl_alloc_array((size_t)s->n * (size_t)Lmax, sizeof(float), NULL);
    for (long i = 0; ref && i < s->n && !rl_cancelled(); i++) { /* a caller's stop (err.h): ref is dropped */
        float *r = ref + i * Lmax;
        for (long q = 0; q < T && q < Lmax; q++)
            r[q] = NAN;
        /* target q (token start + q + 1) closes the window of T tokens from
         * start + q + 1 - T; nb such windows one token apart (ld = 1) make
         * one batch, and the last position of window b is target q0 + b */
        for (long q0 = T; q0 < Lmax; q0 += B) {
            const int nb = (int)(Lmax - q0 < B ? Lmax - q0 : B);
            const long first = s->start[i] + q0 + 1 - T;
            rl_gpt_forward_last(m, val->tok + first, 1, nb, (int)T,
                                rl_stream_key(seed ^ RL_STREAM_EVAL_REF, (uint64_t)first));
            if (m->nomem) { /* the scheme's noise generators */
                free(ref);
                rl_gpt_free(m);
                return NULL;
            }
            for (int b = 0; b < nb; b++)
                r[q0 + b] = m->losses[b];
        }
    }
    rl_gpt_free(m);
    return ref;
}

/* mean and SE over n values (SE NaN for n < 2) */
static void mean_se(const double *x, long n, double *mean, double *se)
{
    double s = 0, v = 0;
    for (long i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / n : NAN;
    for (long i = 0; i < n; i++)
        v += (x[i] - *mean) * (x[i] - *mean);
    *se = n > 1 ? sqrt(v / (n - 1) / n) : NAN;
}

rl_eval_row rl_eval_length(const rl_gpt *m, rl_gpt_eval *e, const rl_tokens *val, const rl_eval_spans *s,
                           const float *ref, const float *uni, long L, long T, uint64_t seed, float *keep)
{
    rl_eval_row row = { .L = L };
    const long per = s->Lmax / L, nw = s->n * per, nnew = L > T ? L - T : 0;
    row.windows = nw;
    row.targets = nw * L;
    row.new_targets = nw * nnew;
    double *wl = rl_alloc_array(4 * (size_t)nw, sizeof(double), NULL);
    float *lw = rl_alloc_array((size_t)L, sizeof(float), NULL);
    if (!wl || !lw) { /* said through e, as a window that ran out (evaluate.h) */
        free(lw);
        free(wl);
        rl_gpt_eval_set_nomem(e);
        row.loss = row.se = row.ref = row.dlog = row.dlog_se = row.unigram = NAN;
        row.new_loss = row.new_ref = row.new_dlog = row.new_se = NAN;
        return row;
    }
    double *wd = wl + nw, *wn = wd + nw, *wr = wn + nw;
    double uni_sum = 0, new_loss = 0, new_ref = 0;
    rl_gpt_eval_keep_losses(e, lw);
    /* a caller's stop (err.h) or a window out of memory: the row is dropped */
    for (long i = 0, w = 0; i < s->n && !rl_cancelled() && !rl_gpt_eval_nomem(e); i++)
        for (long j = 0; j < per && !rl_cancelled() && !rl_gpt_eval_nomem(e); j++, w++) {
            const long st = rl_eval_window_start(s, i, L, j);
            const double sum = rl_gpt_eval_window(m, e, val->tok + st, L, rl_eval_window_key(seed, L, st));
            if (keep)
                memcpy(keep + w * L, lw, sizeof(float) * (size_t)L);
            /* D of the window: positions p < T have r(p) = l_L(p) */
            double d = 0, ln = 0, rn = 0, u = 0;
            const float *r = ref ? ref + i * s->Lmax + j * L : NULL;
            for (long p = T < L ? T : L; p < L; p++) {
                ln += lw[p];
                if (r) {
                    d += (double)lw[p] - r[p];
                    rn += r[p];
                }
            }
            for (long p = 0; uni && p < L; p++)
                u += uni[val->tok[st + p + 1]];
            wl[w] = sum / L;
            wd[w] = r ? d / L : NAN;
            wn[w] = r && nnew ? d / nnew : NAN;
            wr[w] = r ? (sum - ln + rn) / L : NAN;
            uni_sum += u;
            new_loss += ln;
            new_ref += rn;
        }
    rl_gpt_eval_keep_losses(e, NULL);
    mean_se(wl, nw, &row.loss, &row.se);
    double unused;
    mean_se(wr, nw, &row.ref, &unused);
    mean_se(wd, nw, &row.dlog, &row.dlog_se);
    mean_se(wn, nw, &row.new_dlog, &row.new_se);
    row.new_loss = nnew ? new_loss / row.new_targets : NAN;
    row.new_ref = ref && nnew ? new_ref / row.new_targets : NAN;
    row.unigram = uni && nw ? uni_sum / row.targets : NAN;
    free(lw);
    free(wl);
    return row;
}

float *rl_eval_unigram(const rl_tokens *train, int V)
{
    double *c = rl_alloc_array((size_t)V, sizeof *c, NULL);
    float *u = rl_alloc_array((size_t)V, sizeof(float), NULL);
    if (!c || !u) {
        free(u);
        free(c);
        return NULL;
    }
    for (long i = 0; i < train->n; i++)
        c[train->tok[i]] += 1;
    /* add-one: every id has a finite loss, p(v) = (c_v + 1) / (n + V) */
    for (int v = 0; v < V; v++)
        u[v] = (float)-log((c[v] + 1) / ((double)train->n + V));
    free(c);
    return u;
}
