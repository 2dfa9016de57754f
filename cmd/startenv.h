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

#endif
