/* routelab/model.h: trained models from C: load a checkpoint written by
 * `routelab train`, read its configuration and parameters, evaluate it
 * with the study's length-extrapolation protocol (`routelab eval`,
 * docs/protocol.md#evaluation-protocol) and probe its attention (`routelab probe`,
 * docs/theory/claim3-farmass.md#far-mass-three-forms, docs/model/schemes.md#probe).
 *
 * Every function returns RL_OK, RL_EINPUT (a bad argument, a missing,
 * truncated or corrupt checkpoint, a token id outside the vocabulary: the
 * one-line reason in err) or RL_EINTERNAL; none exits the process.  A
 * model's or workspace's size is checked against the machine's memory
 * (base/core/mem.h) before it is allocated. */
#ifndef ROUTELAB_MODEL_H
#define ROUTELAB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct rl_model rl_model;

/* The configuration and the run a checkpoint holds. */
typedef struct {
    int layers, width, heads; /* decoder blocks, model width C, heads H (head dim C/H) */
    int ctx;                  /* the trained context T (tokens) */
    int vocab;                /* token vocabulary V */
    double dropout;
    double rot_base;          /* base B of the SO(2) frequencies B^(-2p/hd) */
    char pos[64];             /* the position scheme's name (rope, random_qkv, nope, ...) */
    long step, steps;         /* optimizer steps done; the run's total */
    unsigned long seed;       /* the run's seed */
    long nparams;             /* parameters in all */
    int ntensors;             /* named parameter tensors */
} rl_model_info;

/* Load the checkpoint at path (no training state: parameters only, for
 * evaluation) into a new *m.  RL_EINPUT naming the file when it is
 * missing, unreadable, truncated, corrupt, of another format or holds
 * non-finite parameters (model/ckpt.h). */
rl_status rl_model_load(const char *path, rl_model **m, rl_err *err);
void rl_model_free(rl_model *m);

void rl_model_get_info(const rl_model *m, rl_model_info *info);
/* sizeof(rl_model_info) and sizeof(rl_model_eval_row), for callers that
 * mirror them (Python's ctypes checks its layouts against these at import). */
size_t rl_model_info_sizeof(void);
size_t rl_model_eval_row_sizeof(void);

/* Parameter tensor i (0 <= i < ntensors) in the checkpoint's order: its
 * name ("wte", "h0.qkvw", ...), its float32 values (a view into the model,
 * valid until rl_model_free) and its number of values *n.  RL_EINPUT for i
 * out of range. */
rl_status rl_model_tensor(const rl_model *m, int i, const char **name, const float **data, long *n,
                          rl_err *err);

/* Tensor i's shape: shape[0] x shape[1] (*ndim 2, row-major; a linear
 * layer's weight is (out, in)) or a vector of shape[0] floats (*ndim 1). */
rl_status rl_model_tensor_shape(const rl_model *m, int i, long shape[2], int *ndim, rl_err *err);

/* The logits of every position of one window tok[0 .. n-1] (n x vocab
 * floats, row-major: row i scores the token after tok[i]), through the
 * streaming evaluation's kernels (full causal attention, any n the machine's
 * memory allows; beyond the trained context as eval runs it).  key draws the
 * rotation noise of the schemes that have it (random, random_pos, lf,
 * random-hh) as rl_model_eval with seed key draws it for a window of n
 * tokens at the start of its stream (the logits eval scores there).  RL_EINPUT for
 * n < 1, a token id >= vocab, threads outside [1, 1024], or a workspace
 * beyond the machine's memory. */
rl_status rl_model_forward(const rl_model *m, const uint16_t *tok, long n, unsigned long key, int threads,
                           float *logits, rl_err *err);

/* The attention map of layer `layer` on the window tok[0 .. n-1]: att[h][i][j]
 * = softmax over j <= i of the head's scaled logits with its distance bias
 * (ALiBi), 0 for j > i (heads x n x n floats).  n at most
 * RL_MODEL_ATTENTION_MAX; key and the statuses as rl_model_forward, and
 * RL_EINPUT for a layer outside [0, layers). */
#define RL_MODEL_ATTENTION_MAX 8192
rl_status rl_model_attention(const rl_model *m, const uint16_t *tok, long n, int layer, unsigned long key,
                             int threads, float *att, rl_err *err);

/* A data set as the commands read it (model/data.h): DIR/train.bin and
 * DIR/val.bin, or one token FILE split 90% / 10%, every id < vocab.  The
 * streams are malloc'ed into *train and *val (free with rl_model_buffer_free).
 * RL_EINPUT naming the file when it cannot be read or is malformed. */
rl_status rl_model_data(const char *path, int vocab, uint16_t **train, long *ntrain, uint16_t **val,
                        long *nval, rl_err *err);
void rl_model_buffer_free(void *p);

/* One length of the token-paired evaluation: the numbers of a row of
 * `routelab eval`'s eval.tsv (model/evaluate.h has the definitions). */
typedef struct {
    long L, windows, targets, windows_wanted;
    double loss, se;            /* mean cross-entropy (nats) over all targets, SE over windows */
    double ppl, ratio;          /* exp(loss); ppl / ppl of the first length */
    double ref_loss;            /* mean of r(p): the same targets with at most T tokens of context */
    double dlog, dlog_se;       /* D(L) = mean(l_L(p) - r(p)), its SE */
    double paired_ratio;        /* exp(D(L)) = ppl(L)/ppl(T) on the same tokens */
    long new_targets;           /* targets at window positions p >= T */
    double new_loss, new_ref, new_dlog, new_se, new_ratio; /* the same over those alone (NaN when none) */
    double unigram;             /* no-context loss of the same targets (NaN without a training stream) */
    long spans, slots;          /* spans used; spans the stream holds */
} rl_model_eval_row;

/* `routelab eval --lengths L1,... --targets N --seed S` (N = 0: --full) on
 * the validation stream val[0 .. nval - 1], the unigram loss from the
 * training stream train (NULL: NaN), one row per length into rows[0 ..
 * nl - 1].  threads >= 1 (the numbers do not depend on it).  RL_EINPUT for
 * a token id >= vocab, a length < 1 or beyond the stream, a negative
 * target count, or a workspace beyond the machine's memory. */
rl_status rl_model_eval(const rl_model *m, const uint16_t *val, long nval, const uint16_t *train,
                        long ntrain, const long *lengths, int nl, long targets, unsigned long seed,
                        int threads, rl_model_eval_row *rows, rl_err *err);

/* `routelab probe --lengths L1,... --windows W --seed S` on the validation
 * stream val: the text of its probe.tsv and distance.tsv (header lines
 * included, byte for byte the command's), malloc'ed into *probe_tsv and
 * *distance_tsv (free with rl_model_buffer_free).  nl = 0: the lengths T
 * and 16 T, as the command.  RL_EINPUT as rl_model_eval (lengths >= 2). */
rl_status rl_model_probe(const rl_model *m, const uint16_t *val, long nval, const long *lengths, int nl,
                         long windows, unsigned long seed, int threads, char **probe_tsv,
                         char **distance_tsv, rl_err *err);

#endif
