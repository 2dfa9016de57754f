/* startenv.h: the environment the libraries read before main.
 *
 * libgomp reads OMP_* and GOMP_* in its own initialiser, which the dynamic
 * loader runs before main; a value it cannot parse it reports there and
 * then ignores, so the command would run on, exit 0, under a stray line.
 * The executable's .preinit_array runs before every shared library's
 * initialiser, so the program holds stderr in a pipe while they start
 * (rl_startenv_preinit, registered by routelab.c) and main turns what
 * libgomp said into routelab's one line (rl_startenv_check). */
#ifndef RL_STARTENV_H
#define RL_STARTENV_H

/* From .preinit_array only (libc's getenv is not ready there: it reads
 * envp).  When a variable libgomp reads is set, stderr goes to a pipe until
 * rl_startenv_check. */
void rl_startenv_preinit(int argc, char **argv, char **envp);

/* main, first: stderr back; a libgomp complaint is one line and status 2,
 * anything else the libraries printed (OMP_DISPLAY_ENV) is passed on; an
 * OMP_STACKSIZE libgomp takes but would die on is refused the same way. */
void rl_startenv_check(void);

/* main, after rl_startenv_check: the variables the libraries should have
 * read, set, and the program run again (/proc/self/exe, once: they are then
 * set), when
 * - OPENBLAS_CORETYPE is unset and rl_blas_arch_wanted asks for a kernel set
 *   (OpenBLAS chose Prescott on a CPU with AVX2 or AVX-512; base/core/blas_arch.h);
 * - neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set: OMP_WAIT_POLICY=passive
 *   (docs/speed/eval-and-training.md#omp-passive-wait: libgomp's default, 300,000 spins before a
 *   waiting thread sleeps, held a core that a descheduled partner needed: 2-thread training
 *   beside a busy core ran at 0.35x of its quiet speed, 0.51x passive, the
 *   quiet speed the same within noise).
 * Returns when there is nothing to set or the exec failed (the program then
 * runs on as it is, the variables unset again: a child routelab would
 * otherwise inherit a choice this process did not run with). */
void rl_startenv_fix(char **argv);

#endif
