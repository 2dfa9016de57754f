/* test_core.c: the ground floor's error convention (base/core/err.h) and its
 * statistics (base/core/stats.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/err.h"
#include "../base/core/stats.h"
#include "../sampling/rng.h"
#include "helpers.h"
#include "../base/core/blas_arch.h"

/* ---------- err: statuses and one-line messages ---------- */

Test(err, fail_records_status_and_message)
{
    rl_err e = { RL_OK, "" };
    cr_assert_eq(rl_fail(&e, RL_EINPUT, "--d %d is odd", 7), RL_EINPUT);
    cr_assert_eq(e.status, RL_EINPUT);
    cr_assert_str_eq(e.msg, "--d 7 is odd");
    cr_assert_eq(rl_fail(&e, RL_EINTERNAL, "dgeqrf failed (info %d)", -8), RL_EINTERNAL);
    cr_assert_eq(e.status, RL_EINTERNAL);
    cr_assert_str_eq(e.msg, "dgeqrf failed (info -8)");
    /* a NULL err: the status alone comes back */
    cr_assert_eq(rl_fail(NULL, RL_EINPUT, "ignored"), RL_EINPUT);
    cr_assert_eq(RL_OK, 0);
    cr_assert_eq(RL_EINTERNAL, 1, "internal failures exit 1");
    cr_assert_eq(RL_EINPUT, 2, "bad inputs exit 2");
}

Test(err, messages_stay_on_one_line)
{
    rl_err e;
    /* control bytes are escaped: a quoted file name can
     * neither break the line nor drive the reader's terminal */
    rl_fail(&e, RL_EINPUT, "cannot read %s: %s", "a\nb\r.txt", "gone\n");
    cr_assert_str_eq(e.msg, "cannot read a\\x0ab\\x0d.txt: gone\\x0a");
    rl_fail(&e, RL_EINPUT, "got '%s'", "\x1b[2J\x7f\t");
    cr_assert_str_eq(e.msg, "got '\\x1b[2J\\x7f\\x09'");
    /* a message longer than the buffer is cut, still terminated */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rl_fail(&e, RL_EINPUT, "%s", big);
    cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
}

Test(err, prefix_adds_context_on_the_way_up)
{
    rl_err e;
    rl_fail(&e, RL_EINPUT, "%s has no rows", "t.txt");
    rl_err_prefix(&e, "sample");
    cr_assert_str_eq(e.msg, "sample: t.txt has no rows");
    rl_err_prefix(&e, "step %d", 3);
    cr_assert_str_eq(e.msg, "step 3: sample: t.txt has no rows");
    cr_assert_eq(e.status, RL_EINPUT, "a prefix keeps the status");
    rl_err_prefix(NULL, "nothing"); /* no err: nothing to do, no crash */
    /* a full message: the prefix goes in front, the tail is cut */
    char big[600];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rl_fail(&e, RL_EINPUT, "%s", big);
    rl_err_prefix(&e, "data");
    cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
    cr_assert_eq(strncmp(e.msg, "data: yyyy", 10), 0);
}

static rl_status inner(int fail, rl_err *err)
{
    return fail ? rl_fail(err, RL_EINTERNAL, "inner failed") : RL_OK;
}

static rl_status outer(int fail, int *reached, rl_err *err)
{
    RL_TRY(inner(fail, err));
    *reached = 1;
    return RL_OK;
}

Test(err, try_propagates_the_first_failure)
{
    rl_err e = { RL_OK, "" };
    int reached = 0;
    cr_assert_eq(outer(0, &reached, &e), RL_OK);
    cr_assert(reached);
    reached = 0;
    cr_assert_eq(outer(1, &reached, &e), RL_EINTERNAL);
    cr_assert_not(reached, "RL_TRY returns before the rest of the function");
    cr_assert_str_eq(e.msg, "inner failed");
}

/* ---------- err: the command layer's exit ---------- */

enum { EXIT_CHECK, EXIT_CHECK_IN, EXIT_NULL, EXIT_FATAL };

typedef struct {
    int how;
    rl_status s;
    const char *msg;
} exit_case;

static void do_exit(void *arg)
{
    const exit_case *c = arg;
    rl_err e;
    rl_fail(&e, c->s, "%s", c->msg);
    switch (c->how) {
    case EXIT_CHECK: rl_check(c->s, &e); break;
    case EXIT_CHECK_IN: rl_check_in("sample", c->s, &e); break;
    case EXIT_NULL: rl_check(c->s, NULL); break;
    default: rl_fatal("%s", c->msg);
    }
    /* rl_check returned: status RL_OK, exit 0 */
}

/* Run the command-layer exit `how` with status s and message msg in a child
 * process; its stderr into err.  Returns the exit status. */
static int child_exit(int how, rl_status s, const char *msg, char *err, size_t errlen)
{
    exit_case c = { how, s, msg };
    return th_in_child(do_exit, &c, err, errlen);
}

Test(err, check_exits_1_for_internal_and_2_for_input)
{
    char err[1024];
    cr_assert_eq(child_exit(EXIT_CHECK, RL_EINTERNAL, "zheevd failed (info 3, d = 8)", err, sizeof err), 1);
    cr_assert_str_eq(err, "routelab: zheevd failed (info 3, d = 8)\n");
    cr_assert_eq(child_exit(EXIT_CHECK, RL_EINPUT, "--d 7 is odd", err, sizeof err), 2);
    cr_assert_str_eq(err, "routelab: --d 7 is odd\n");
    cr_assert_eq(child_exit(EXIT_CHECK, RL_OK, "", err, sizeof err), 0, "RL_OK returns");
    cr_assert_str_empty(err);
}

Test(err, check_in_names_the_command)
{
    char err[1024];
    cr_assert_eq(child_exit(EXIT_CHECK_IN, RL_EINPUT, "angle table t has no rows", err, sizeof err), 2);
    cr_assert_str_eq(err, "routelab: sample: angle table t has no rows\n");
    cr_assert_eq(child_exit(EXIT_CHECK_IN, RL_EINTERNAL, "dgeqrf\nfailed", err, sizeof err), 1);
    cr_assert_str_eq(err, "routelab: sample: dgeqrf\\x0afailed\n");
}

Test(err, exits_without_a_message_are_still_one_line)
{
    char err[1024];
    cr_assert_eq(child_exit(EXIT_NULL, RL_EINPUT, "", err, sizeof err), 2, "status from s, not err");
    cr_assert_str_eq(err, "routelab: internal error\n");
    cr_assert_eq(child_exit(EXIT_NULL, RL_EINTERNAL, "", err, sizeof err), 1);
    cr_assert_eq(child_exit(EXIT_FATAL, RL_EINTERNAL, "out of\nmemory", err, sizeof err), 1);
    cr_assert_str_eq(err, "routelab: out of\\x0amemory\n");
}

/* ---------- stats: mean and standard error ---------- */

Test(stats, mean_se_hand_computed)
{
    /* 1, 2, 3, 4: mean 5/2, sample variance 5/3, se = sqrt(5/3 / 4) */
    const double x[] = { 1, 2, 3, 4 };
    double m, se;
    rl_mean_se(x, 4, 1, &m, &se);
    cr_assert_float_eq(m, 2.5, 1e-15);
    cr_assert_float_eq(se, sqrt(5.0 / 12.0), 1e-15);
    /* every other entry of a strided array: 1, 3, 8 -> mean 4, var 13, se sqrt(13/3) */
    const double y[] = { 1, -9, 3, -9, 8, -9 };
    rl_mean_se(y, 3, 2, &m, &se);
    cr_assert_float_eq(m, 4.0, 1e-15);
    cr_assert_float_eq(se, sqrt(13.0 / 3.0), 1e-14);
    rl_mean_se(y, 1, 2, &m, &se);
    cr_assert(m == 1.0 && se == 0.0, "one sample: mean itself, se 0");
}

/* Mean 1e9 against a spread of 0.4: the offsets 1/4 ... 1 are exact at this
 * magnitude (its ulp is 2^-23), so the true values are known exactly:
 * mean 1e9 + 5/8, deviations +-3/8 and +-1/8, sum of squares 5/16,
 * se = sqrt(5/16 / 3 / 4).  The one-pass formula (sum x^2 - n mean^2) works
 * with numbers near 4e18, whose ulp is 512: it loses every digit. */
Test(stats, mean_se_keeps_digits_at_a_large_mean)
{
    const double x[] = { 1e9 + 0.25, 1e9 + 0.5, 1e9 + 0.75, 1e9 + 1.0 };
    double m, se;
    rl_mean_se(x, 4, 1, &m, &se);
    const double want = sqrt(5.0 / 16.0 / 12.0);
    cr_assert_eq(m, 1e9 + 0.625);
    cr_assert_float_eq(se, want, 1e-15 * want + 1e-18);
    /* the test has power: the one-pass formula is far off here */
    double s = 0, s2 = 0;
    for (int k = 0; k < 4; k++) {
        s += x[k];
        s2 += x[k] * x[k];
    }
    double var1 = (s2 - s * s / 4) / 3;
    double se1 = sqrt(fabs(var1) / 4);
    cr_assert_gt(fabs(se1 - want), 0.1 * want, "one-pass se %g vs %g: no cancellation shown", se1, want);
}

Test(stats, welford_equals_two_pass)
{
    gsl_rng *r = rl_rng_alloc();
    rl_rng_stream(r, 2024, 1);
    const long n = 10000;
    double *x = malloc(sizeof(double) * n);
    rl_welford w;
    rl_welford_init(&w);
    cr_assert(rl_welford_var(&w) == 0 && rl_welford_se(&w) == 0, "no samples: 0");
    for (long k = 0; k < n; k++) {
        x[k] = 1e6 + 3.0 * rl_normal(r);
        rl_welford_add(&w, x[k]);
        if (k == 0)
            cr_assert(rl_welford_var(&w) == 0 && rl_welford_se(&w) == 0 && w.mean == x[0], "one sample");
    }
    double m, se;
    rl_mean_se(x, n, 1, &m, &se);
    cr_assert_eq(w.n, n);
    /* both round at the ulp of 1e6 (1.2e-10): agreement to 1e-12 relative */
    cr_assert_float_eq(w.mean, m, 1e-12 * fabs(m));
    cr_assert_float_eq(rl_welford_se(&w), se, 1e-10 * se, "welford %.17g vs two-pass %.17g",
                       rl_welford_se(&w), se);
    cr_assert_float_eq(rl_welford_var(&w), se * se * n, 1e-10 * se * se * n);
    /* and both are near the law's: sd 3, se 3 / sqrt(n) */
    cr_assert_float_eq(se, 3.0 / sqrt((double)n), 0.05 * 3.0 / sqrt((double)n));
    free(x);
    gsl_rng_free(r);
}

/* ---------- blas_arch: OpenBLAS's kernels on virtual machines ---------- */

/* The choice: only a Prescott fallback is overridden, by what the CPU has. */
Test(blas_arch, choice_overrides_only_the_fallback)
{
    cr_assert_str_eq(rl_blas_arch_choice("Prescott", 1, 1), "SkylakeX");
    cr_assert_str_eq(rl_blas_arch_choice("Prescott", 0, 1), "Haswell");
    cr_assert_null(rl_blas_arch_choice("Prescott", 0, 0));
    cr_assert_null(rl_blas_arch_choice("Haswell", 1, 1), "OpenBLAS's own choice stands");
    cr_assert_null(rl_blas_arch_choice("SkylakeX", 1, 1));
    cr_assert_null(rl_blas_arch_choice(NULL, 1, 1));
}

/* routelab runs on the kernels the choice asks for: its bench names them.
 * This test process did not re-run itself, so its own OpenBLAS shows what
 * the library picked alone. */
Test(blas_arch, routelab_runs_on_the_chosen_kernels)
{
    const char *own = rl_blas_core(), *c = getenv("OPENBLAS_CORETYPE") ? NULL : rl_blas_arch_wanted();
    const char *want = c ? c : own;
    char out[4096], err[1024], line[256];
    cr_assert_eq(th_run("bench --what haar --quick", out, sizeof out, err, sizeof err), 0, "%s", err);
    snprintf(line, sizeof line, "# OpenBLAS kernels: %s ", want);
    cr_assert(!strncmp(out, line, strlen(line)), "expected '%s', got: %.200s (this process: %s)", line, out, own);
}
