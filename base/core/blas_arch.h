/* blas_arch.h: OpenBLAS's kernels on virtual machines.
 *
 * OpenBLAS (built with DYNAMIC_ARCH, as Debian's is) picks its kernels from
 * the CPU's family and model numbers.  A virtual machine that reports a
 * generic model ("Intel(R) Xeon(R) Processor") gets the oldest x86-64 set,
 * Prescott (SSE3), even on a CPU with AVX-512: on the machine of
 * docs/speed/eval-and-training.md#long-eval-speed a 2048^3 sgemm ran at 34 GFLOP/s per core instead
 * of 177.  OpenBLAS reads OPENBLAS_CORETYPE once, when it is loaded, before main: the only
 * fix from inside the program is to set it and run the program again. */
#ifndef RL_BLAS_ARCH_H
#define RL_BLAS_ARCH_H

/* The kernel set to ask for: "SkylakeX" when OpenBLAS chose "Prescott" on a
 * CPU with AVX-512 F, CD, BW, DQ and VL; "Haswell" when it chose "Prescott"
 * on one with AVX2 and FMA; NULL otherwise (OpenBLAS's own choice stands). */
const char *rl_blas_arch_choice(const char *core, int avx512, int avx2_fma);

/* rl_blas_arch_choice for this CPU's flags and the kernels OpenBLAS loaded
 * in this process (NULL where the flags cannot be read). */
const char *rl_blas_arch_wanted(void);

/* (The command sets OPENBLAS_CORETYPE to rl_blas_arch_wanted's answer and
 * runs itself again: rl_startenv_fix, program/cmd/startenv.h.) */

/* The kernel set OpenBLAS uses ("SkylakeX", "Haswell", "Prescott", ...). */
const char *rl_blas_core(void);

/* The kernel set as a grid's config.txt records it and reproduce's lines
 * name it, its one definition: "NAME, OpenBLAS VERSION" (e.g. "Haswell,
 * OpenBLAS 0.3.21"), NAME rl_blas_core's, the word OPENBLAS_CORETYPE takes,
 * VERSION the second word of OpenBLAS's own configuration string; NAME alone
 * where that string does not start with "OpenBLAS ".  The version is part of
 * it: one kernel set of one OpenBLAS sums in one order, the same seed trains
 * the same bytes; another version's kernels of the same name may not
 * (docs/theory/farpred.md#farpred-committed-grid).  A static buffer, rewritten by each call. */
const char *rl_blas_kernels(void);

/* What OpenBLAS (the openmp build, Debian's) maps at start-up, before main:
 * gotoblas_init -> blas_thread_init -> blas_memory_alloc, buffers of 128 MiB
 * (its BUFFER_SIZE).  Under an address-space limit that refuses one,
 * blas_memory_alloc retries for ever: a `ulimit -v` of 100-320 MB made every
 * command, even `claims`, spin.  Measured on a 2-core machine, with any
 * OPENBLAS_NUM_THREADS: it spins below what is mapped before the libraries'
 * initialisers (~63 MiB) plus 256 MiB, and starts from 1 MiB above that.  So
 * the program checks the limit first (a .preinit_array function, run before
 * any library's initialiser): when what is mapped plus this does not fit,
 * one line and exit status 1 (the environment's fault, not the input's). */
#define RL_BLAS_START_BYTES ((unsigned long long)256 << 20)

/* That check, from the executable's .preinit_array only (program/cmd/routelab.c
 * registers it first, before rl_startenv_preinit holds stderr in a pipe:
 * its line must reach the real stderr). */
void rl_blas_room_preinit(int argc, char **argv, char **envp);

/* One BLAS buffer (BUFFER_SIZE, and the page OpenBLAS adds to it): each
 * thread that calls BLAS takes one at its first call, from malloc, and
 * under an address-space limit that refuses it blas_memory_alloc retries for
 * ever (`ulimit -v 360000; routelab train` of a tiny
 * model spun; measured: 450000 KiB spins, 480000 runs, with --threads 1). */
#define RL_BLAS_BUFFER_BYTES (((unsigned long long)128 << 20) + 4096)

/* Whether the address-space limit leaves room for a run of n OpenMP
 * threads, after start-up: n BLAS buffers (RL_BLAS_BUFFER_BYTES) and the
 * stacks of the n - 1 threads libgomp starts (stack bytes each: OMP_STACKSIZE's
 * size as the caller read it, or 0 for the default, RLIMIT_STACK's soft
 * value, 8 MiB where that is unlimited, glibc's rule).  RL_OK when there is
 * no limit or room; otherwise RL_EINTERNAL (the environment's fault, as the
 * start-up check's) with one line naming `ulimit -v` and the least limit
 * that fits.  No state: the command layer calls it once, as it sets its
 * thread count (a later call would count the buffers already mapped twice). */
#include "err.h"

/* The OpenMP thread stack the environment asks for (OMP_STACKSIZE in
 * libgomp's format: a number of K, or with a suffix B, K, M or G) in bytes,
 * 0 when unset.  libgomp accepts any size at load (99999999G), then ends the
 * program at the first parallel region with its own line: RL_EINPUT for a
 * value that is no size or lies outside 1 byte to 1 GiB, far beyond any
 * stack this program needs. */
rl_status rl_omp_stacksize(unsigned long long *bytes, rl_err *err);

rl_status rl_blas_room_check(int n, unsigned long long stack, rl_err *err);

#endif
