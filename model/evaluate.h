/* evaluate.h: the length-extrapolation protocol on the full validation
 * stream, token-paired (docs/protocol.md#evaluation-protocol).
 *
 * Spans (--windows spans).  The stream is cut, from its first token, into
 * slots of Lmax + 1 tokens (Lmax: the longest evaluated length); the plan
 * uses every slot (full stream) or n of them spread evenly over the stream
 * (slot floor(i slots / n), i = 0 .. n - 1).  The plan depends on the
 * stream and Lmax alone: never on the model or the seed, so every seed and
 * every variant reads the same tokens.
 *
 * Sampled spans (--windows sampled; docs/protocol.md#sampled-windows).  The same number of
 * spans of Lmax + 1 tokens, placed at random over the whole stream by a
 * stream keyed by the windows' seed (RL_STREAM_EVAL_SAMPLE) and Lmax, with
 * disjoint targets (spans never overlap by more than the one token a span's
 * last target shares with the next one's first input, as the slots do),
 * uniformly over all such placements; never more spans than the slots the
 * stream holds.  Every variant evaluated with one seed reads the same
 * tokens, so comparisons within a seed stay paired, and the spread across
 * seeds covers the choice of text as well as the training.
 *
 * Windows.  At length L each span is tiled by floor(Lmax / L) windows of L
 * (window j reads span tokens jL .. jL + L, its targets jL + 1 .. jL + L),
 * so every length scores the same targets when L divides Lmax (the lengths
 * T, 2T, ..., Lmax do).
 *
 * Token pairing.  A target at window position p (its context p + 1 tokens)
 * is scored twice: in the window of L, l_L(p), and with at most its last T
 * tokens of context, r(p): for p < T the context is the same p + 1 tokens,
 * r(p) = l_L(p); for p >= T, r(p) is the loss of the window of T tokens that
 * ends just before the target (one per target, computed once per span for
 * all lengths).  The token-paired log ratio at L is
 *     D(L) = mean over targets of (l_L(p) - r(p)),
 * ppl(L)/ppl(T) on the same tokens is exp(D(L)); for a model that cannot
 * see past T it is 1 (to float rounding: the two forwards run different
 * kernels).  The newest positions, p >= T, alone give D_new(L), which no
 * short-context target dilutes (Press et al. 2022).  Standard errors are
 * over windows.
 *
 * Dynamic range.  The no-context loss of the same targets, -log of the
 * training split's add-one unigram frequency, is what a model that lost
 * every use of context could still reach; exp(unigram - loss(T)) says how
 * far a ratio can go at this scale before attention becomes harmful. */
#ifndef RL_MODEL_EVALUATE_H
#define RL_MODEL_EVALUATE_H

#include <stdint.h>

#include "../base/core/err.h"
#include "../base/core/tokfile.h"
#include "gpt.h"

typedef struct {
    long Lmax;    /* span length: the longest evaluated length */
    long slots;   /* spans the stream holds: (n - 1) / Lmax */
    long wanted;  /* spans asked for (targets / Lmax rounded up; every slot for the full stream) */
    long n;       /* spans used: min(wanted, slots) */
    long *start;  /* n ascending span starts */
} rl_eval_spans;

/* The spans that give at least `targets` targets at Lmax (ceil(targets /
 * Lmax) spans; 0: every span, the full stream), at most the slots the
 * stream holds.  RL_EINPUT when Lmax < 1 or the stream has fewer than Lmax
 * + 1 tokens; RL_ENOMEM when memory runs out. */
rl_status rl_eval_spans_plan(const rl_tokens *t, long Lmax, long targets, rl_eval_spans *s, rl_err *err);
void rl_eval_spans_free(rl_eval_spans *s);

/* How the spans are placed: eval --windows, reproduce --eval-windows (the
 * choices string and its indices, one definition). */
#define RL_EVAL_WINDOWS_CHOICES "spans|sampled"
enum { RL_EVAL_SPANS = 0, RL_EVAL_SAMPLED = 1 };

/* The sampled plan: as many spans as rl_eval_spans_plan would use (the same
 * slots, wanted and n), placed at random (see above) from seed; the same
 * RL_EINPUT cases, and RL_ENOMEM.  O(stream length) time, O(n) memory, one
 * thread. */
rl_status rl_eval_spans_sample(const rl_tokens *t, long Lmax, long targets, uint64_t seed, rl_eval_spans *s,
                               rl_err *err);

/* Window j of span i at length L: its first token, and its rotation-noise
 * key (random, lf), a function of (seed, L, the window's first token). */
long rl_eval_window_start(const rl_eval_spans *s, long i, long L, long j);
uint64_t rl_eval_window_key(uint64_t seed, long L, long start);

/* One evaluated length. */
typedef struct {
    long L, windows, targets;
    double loss, se;       /* mean cross-entropy of the targets (all positions), SE over windows */
    double ref;            /* mean of r(p) over the same targets */
    double dlog, dlog_se;  /* D(L) and its SE over windows */
    long new_targets;      /* targets at window positions p >= T */
    double new_loss, new_ref, new_dlog, new_se; /* the same over those alone (NaN when none) */
    double unigram;        /* the no-context loss of the same targets */
} rl_eval_row;

/* Windows of T per reference forward (rl_gpt_forward's batch: open the
 * model with at least this many training windows): about 2,048 tokens a
 * forward, 1 to 32 windows, so that a long context does not size a large
 * batch of activations. */
int rl_eval_ref_batch(long T);

/* The reference r for every target of every span: ref[i * Lmax + q] is the
 * loss of span i's target q (token start[i] + q + 1) with the T = m->cfg.ctx
 * tokens before it as context, for q >= T (NaN below); forwards of
 * rl_eval_ref_batch(T) windows of T whose rotation noise is keyed by (seed,
 * the first window's first token), on a copy of m's parameters with
 * activations for them (m itself needs none).  malloc'ed; NULL when the
 * copy cannot be allocated (rl_gpt_bytes of m's configuration with that
 * batch refuses, or memory runs out) or when memory runs out for ref or in
 * a forward (the caller returns RL_ENOMEM). */
float *rl_eval_reference(const rl_gpt *m, const rl_tokens *val, const rl_eval_spans *s, uint64_t seed);

/* Length L on the spans: every window through the streaming evaluation
 * workspace e (per-position losses), paired with ref (NULL: no pairing,
 * the paired fields NaN), the no-context losses from uni (V floats:
 * -log p(v); NULL: NaN).  T: the trained context.  keep (NULL: none)
 * receives every target's loss, keep[w L + p] for window w (in the order
 * of rl_eval_window_start: span i's window j is w = i (Lmax / L) + j) at
 * position p: windows x L floats, for the per-position curves
 * (model/evalpos.h).  When memory runs out (its buffers, or a window's) the
 * row is not valid and e is marked (rl_gpt_eval_nomem): the caller returns
 * RL_ENOMEM. */
rl_eval_row rl_eval_length(const rl_gpt *m, rl_gpt_eval *e, const rl_tokens *val, const rl_eval_spans *s,
                           const float *ref, const float *uni, long L, long T, uint64_t seed, float *keep);

/* -log of the add-one unigram frequency of each of the V token ids in the
 * training stream (malloc'ed V floats); NULL when memory runs out. */
float *rl_eval_unigram(const rl_tokens *train, int V);

#endif
