/* badinput_run.h: the harness of the bad-input table (tests/test_badinput.c):
 * fixtures, placeholder substitution, running one case, judging it. */
#ifndef RL_TEST_BADINPUT_RUN_H
#define RL_TEST_BADINPUT_RUN_H

#define BI_MAXARGS 40

/* One row: the subcommand and its arguments (NULL-terminated; "@NAME"
 * placeholders), the expected exit status and a POSIX extended regex the
 * one stderr line must match. */
typedef struct {
    const char *argv[BI_MAXARGS];
    int status;
    const char *pat;
} bi_case;

typedef struct bi_env bi_env;

/* Build every fixture under a fresh temporary folder (the suite's only
 * set-up: a tiny checkpoint trained for one step, token files, angle tables,
 * archives, a FIFO).  Fails the test (cr_assert) when a valid fixture cannot
 * be made. */
bi_env *bi_setup(void);
void bi_teardown(bi_env *e);

/* Run case i (number for messages: i + 1); 1 if it held, 0 if it failed
 * (with a cr_expect message naming the case), -1 if skipped (no tmpfs). */
int bi_run_case(bi_env *e, const bi_case *c, int i);

#endif
