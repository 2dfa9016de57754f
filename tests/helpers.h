/* helpers.h: statistics and process helpers shared by the tests. */
#ifndef RL_TEST_HELPERS_H
#define RL_TEST_HELPERS_H

#include <stddef.h>

#include "../base/core/stats.h"

/* Running mean and standard error: base/core/stats.h's Welford accumulator
 * (zero-initialise it: {0}). */
typedef rl_welford th_acc;
void th_add(th_acc *a, double x);
double th_se(const th_acc *a); /* standard error of the mean; INFINITY below 2 samples */

/* Kolmogorov-Smirnov statistic sqrt(n) D of x[0..n-1] (sorted in place)
 * against cdf.  Under the null, P(sqrt(n) D > 2.75) ~ 2 exp(-2 * 2.75^2)
 * = 5.4e-7, the two-sided 5-sigma rate: tests reject above TH_KS_5SIGMA. */
#define TH_KS_5SIGMA 2.75
double th_ks(double *x, long n, double (*cdf)(double, void *), void *ctx);

/* Run `routelab ARGS` through sh; captures stdout and stderr (each up to
 * len bytes, NUL-terminated; NULL to discard).  Returns the exit status. */
int th_run(const char *args, char *out, size_t outlen, char *err, size_t errlen);

/* max |A^T A - I| over entries, A d x d row-major. */
double th_orth_err(const double *A, int d);

/* det(A) sign and |det| via LU (A is copied). */
double th_det(const double *A, int d);

/* Move to the repository root: the tests start there (make test); else the
 * root is the folder above the binary's (ROUTELAB=.../build/routelab). */
void th_to_root(void);

/* A fresh temporary directory (mkdtemp), to be removed by th_rmdir. */
char *th_tmpdir(void);
void th_rmdir(const char *dir);

/* dir/name, malloc'ed. */
char *th_path(const char *dir, const char *name);

/* Number of newlines in s. */
int th_lines(const char *s);

/* A text of reps lines with some structure (a small training corpus). */
void th_write_text(const char *path, int reps);

/* Run `routelab CMD --preset quick --threads 2 --out DIR`; every file of
 * files (NULL-terminated) must be written; then, unless same is NULL, run
 * it again with --threads 1: the files of same must be the same bytes. */
void th_cli_quick(const char *cmd, const char *const *files, const char *const *same);

/* The reproduce tests' miniature grid: 1 layer of width 16, context 8, 8
 * steps, evaluated at 8, 16, 32, no theory report, one thread; each test
 * adds its evaluation, probe and seed flags. */
#define TH_MINI_GRID                                                                                           \
    "--layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --lr 1e-3:8 --val-every 4 --val-batches 1 "           \
    "--ckpt-every 2 --max-mult 4 --theory none --threads 1"

/* `routelab reproduce --data txt --out dir/g TH_MINI_GRID flags`, asserted to
 * exit 0; its stdout into out. */
void th_mini_grid(const char *dir, const char *txt, const char *flags, char *out, size_t outlen);

/* Run fn(arg) in a child process, its stderr into err (errlen bytes,
 * NUL-terminated).  Returns the child's exit status (0 when fn returns). */
int th_in_child(void (*fn)(void *), void *arg, char *err, size_t errlen);

#endif
