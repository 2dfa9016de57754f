/* attn_pv.h: the attention's acc += P V, reading P where the row step left
 * it (docs/speed/reproduction-and-pruning.md#cheaper-exp), and the training attention's four
 * products with the key or query index inside (O = P V, dV = P^T dO,
 * dQ = dS K, dK = dS^T Q: docs/speed/kernels.md#training-attention-kernels), P read in place or
 * transposed by its strides.
 *
 * Why: cblas_sgemm copies the probability block (up to 128 x 512 floats,
 * already in cache) into its own panel layout before it multiplies, and at
 * hd 32 each entry of P then meets only 32 values of V: that copy took 13%
 * of the streaming attention on one thread (docs/speed/reproduction-and-pruning.md#cheaper-exp), as
 * much as the row step.  This kernel reads R rows of P in place and, for each key in order,
 * adds P[r][k] V[k][c] into an R x 32 (AVX-512) or R x 16 (AVX2) block of
 * acc held in registers.
 *
 * The order, the same at every width (rl_attn_pv_ref defines it): every
 * entry of acc is one chain of fused multiply-adds over the keys in order,
 * from acc's own value,
 *     a_0 = acc[r][c],  a_(k+1) = fma(P[r][k], V[k][c], a_k),  acc[r][c] = a_nk;
 * the lanes of a vector run over c, never over k, so the AVX2 and AVX-512
 * versions give the reference's bits.
 * Its error (one rounding per step; Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., §3.1, the inner product in any order):
 *     |acc^ - acc| <= gamma_nk (|acc_0| + sum_k |P[r][k]| |V[k][c]|),
 *     gamma_n = n u / (1 - n u),  u = 2^-24,
 * and cblas_sgemm's sum obeys the same bound with n = nk + 1 (acc added
 * last), so the two differ by at most gamma_nk + gamma_(nk+1) times that
 * sum (test model_attn/pv_kernel_against_sgemm). */
#ifndef RL_MODEL_ATTN_PV_H
#define RL_MODEL_ATTN_PV_H

/* acc[r lda + c] = scale (a0 + sum_k P[r spr + k spk] V[k ldv + c])  (r < nq,
 * k < nk, c < hd), a0 = acc[r lda + c], or 0 with from0 set (acc is then
 * only written): P in place is (spr, spk) = (ldp, 1), P^T is (1, ldp).  The
 * scaling, when scale != 1, is one rounding after the chain below. */
typedef void (*rl_attn_pv_fn)(float *acc, long lda, const float *P, long spr, long spk, const float *V,
                              long ldv, int nq, int nk, int hd, int from0, float scale);

/* The widest version this CPU runs for head dim hd, or NULL where none does
 * (no AVX2 with FMA, or hd not a multiple of 16): the caller then multiplies
 * with cblas_sgemm.  A pure function of the CPU and hd. */
rl_attn_pv_fn rl_attn_pv_pick(int hd);

/* Every version this CPU runs, widest first, into fns (room for 2) with their
 * names; returns how many (0 without AVX2 and FMA). */
int rl_attn_pv_versions(rl_attn_pv_fn *fns, const char **names);

/* The order's definition, one fmaf at a time (libm: slow; for the tests). */
void rl_attn_pv_ref(float *acc, long lda, const float *P, long spr, long spk, const float *V, long ldv,
                    int nq, int nk, int hd, int from0, float scale);

#endif
