/* valcheck.h: eval's check of ppl(T) against the training run's own final
 * validation loss.
 *
 * train's log.tsv has, per step, step / train_loss / val_loss (NA between
 * validation points) / lr / tokens_per_s; the last step of a run always has
 * a validation loss, measured on val_batches x batch fixed windows of T
 * tokens of the validation stream.  eval at L = T measures the same quantity
 * on other windows of the same stream, so the two differ by sampling noise
 * alone: the difference has standard error sqrt(se_eval^2 + sd^2 / nval),
 * with sd the spread of one T-window's mean loss (estimated from eval's
 * windows at L = T: same length, same stream) and nval the run's validation
 * windows.  Agreement means |difference| <= 2 of those standard errors. */
#ifndef RL_MODEL_VALCHECK_H
#define RL_MODEL_VALCHECK_H

#include <stddef.h>

#include "../base/core/err.h"

typedef enum { RL_VAL_UNAVAILABLE = 0, RL_VAL_AGREE, RL_VAL_DISAGREE } rl_val_verdict;

typedef struct {
    rl_val_verdict verdict;
    char why[512];   /* when unavailable: the reason */
    double val;      /* the log's validation loss at the checkpoint's step */
    long nval;       /* validation windows behind it */
    double diff, se; /* eval loss(T) - val and its standard error */
} rl_val_check;

/* The val_loss of the row of log `path` whose step is `step` in *val.
 * RL_EINPUT when the file cannot be read (missing, not a regular file);
 * RL_OK with *val = NAN and the reason in why[0..n) when it has no such row
 * or the row's value is NA or not a finite number. */
rl_status rl_val_from_log(const char *path, long step, double *val, char *why, size_t n,
                          rl_err *err);

/* The check from the log's value (NAN: unavailable, with why), the number of
 * validation windows, and eval's mean loss, its standard error and its
 * window count at L = T; sd = se sqrt(windows). */
void rl_val_check_make(rl_val_check *c, double val, const char *why, long nval, double loss,
                       double se, long windows);

/* "agree", "disagree" or "unavailable". */
const char *rl_val_verdict_name(rl_val_verdict v);

#endif
