/* softmax_row.h: one row of the streaming attention's online softmax, at
 * the widest vector width the CPU offers.
 *
 * The project builds without target flags (SSE2: four floats), but the
 * streaming kernel at small head dims spends a third of its time in this
 * step (hd 32: exp 24%, bias/max/zeroing 10% of a 1-thread profile), next
 * to OpenBLAS's sgemm, which picks its own kernel at run time.  So the
 * step is compiled three times (AVX-512, AVX2 with FMA, SSE2) and picked at
 * run time by the CPU's features; every width computes each e^x with the
 * same operations as rl_expf (its FMAs exact roundings at every width:
 * fastmath.h), and every width adds the row in one order, eight partial
 * sums (rl_softmax_row_sum), so the numbers are the same bytes on machines
 * with and without AVX-512 (before, the lanes were the width's: a probe on
 * an AVX-512 machine differed from an AVX2 one in the last printed digit,
 * docs/theory/farpred.md#farpred-committed-grid). */
#ifndef RL_MODEL_SOFTMAX_ROW_H
#define RL_MODEL_SOFTMAX_ROW_H

/* Entries with x - m below -100 ln 2 (e^(x - m) < 2^-100) are stored as
 * exact 0.  Why: ALiBi's bias puts far keys hundreds of nats below the max;
 * their e^(x - m), clamped near FLT_MIN, made the P V sgemm run on
 * subnormal operands (each a microcode assist), and the 128x evaluation of
 * an ALiBi model took 6.5x as long as RoPE's (docs/speed/eval-and-training.md#long-eval-speed).
 * What it costs: at most 2^-100 per dropped weight against a row sum >= 1 (the
 * max's own entry), so even 2^20 dropped keys move the sum by < 2^-80,
 * far below float's half ulp 2^-24: the normalised weights move by
 * less than 2^-80 relative. */
#define RL_SOFTMAX_FLUSH (-69.314718f) /* -100 ln 2 */

/* Row i of a block of scaled logits, keys j0 .. j0+n-1 visible, the rest of
 * the width w masked: subtract the ALiBi bias sl (i - j) (sl = 0: none),
 * take m = max(mx0, the row's max), replace the visible entries by
 * e^(x - m) (0 below RL_SOFTMAX_FLUSH) and the masked ones by 0; returns m,
 * the sum in *sum (0 and mx0 when n <= 0), and in *corr the factor
 * e^(mx0 - m) that rescales what was summed under the running max mx0 (0
 * when mx0 = -inf: nothing was; exactly 1 when m = mx0).  The rescale is
 * here, not in the caller, so that its exp is the width's own (a call of
 * rl_expf from code built for SSE2 calls libm's fmaf eight times). */
typedef float (*rl_softmax_row_fn)(float *row, int n, int w, float sl, int i, int j0,
                                   float mx0, float *sum, float *corr);

/* The partial sums of every width's row sum (rl_softmax_row_sum). */
#define RL_SOFTMAX_LANES 8

/* The sum of row[0 .. n-1] in that order: eight partial sums a_l over
 * row[8k + l] for the whole 8-blocks, added a_0 first, then the rest one
 * by one.  Every version returns this sum of its entries. */
float rl_softmax_row_sum(const float *row, int n);

/* The widest version this CPU runs (a pure function of the CPU). */
rl_softmax_row_fn rl_softmax_row_pick(void);

/* Every version this CPU runs, widest first, into fns (room for 3) with
 * their names; returns how many (>= 1: the SSE2 one is always last). */
int rl_softmax_row_versions(rl_softmax_row_fn *fns, const char **names);

/* The SSE2 version (every x86-64; the reference for tests). */
float rl_softmax_row_sse2(float *row, int n, int w, float sl, int i, int j0, float mx0,
                          float *sum, float *corr);

#endif
