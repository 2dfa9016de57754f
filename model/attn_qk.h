/* attn_qk.h: the streaming attention's logits S = (Q K^T) / sqrt(hd) from
 * keys packed once per head (docs/speed/kernels.md#packed-keys).
 *
 * Why: cblas_sgemm packs its operands on every call, and the streaming
 * forward calls it once per (query block, key block): each key block of K
 * was packed again for every block of 128 queries, 15% of the streaming
 * attention at hd 32 (docs/speed/reproduction-and-pruning.md#cheaper-exp's profile), for a product
 * whose inner dimension (hd) is only 32 or 64.  Here each head's keys are packed once, into
 * panels of RL_ATTN_QK_W keys stored dimension-major (panel p holds
 * kp[(p hd + d) W + w] = k_(pW + w)[d], zero past the last key), and a tile
 * of R query rows by one panel is formed in registers: at each d, the
 * panel's W values and, per row, q_r[d] broadcast.
 *
 * The order, the same at every width (rl_attn_qk_ref defines it): every
 * entry is one chain of fused multiply-adds over d in order, then scaled,
 *     a_0 = 0,  a_(d+1) = fma(q_i[d], k_j[d], a_d),  S_ij = fl(a_hd * scale);
 * the lanes of a vector run over keys, never over d, so the AVX2 and
 * AVX-512 versions give the reference's bits.
 * Its error (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
 * ed., §3.1; one rounding per step, one for the scaling):
 *     |S^_ij - S_ij| <= scale (gamma_hd (1 + u) + u) sum_d |q_i[d]| |k_j[d]|,
 *     gamma_n = n u / (1 - n u),  u = 2^-24
 * (test model_attn/qk_kernel_against_float64). */
#ifndef RL_MODEL_ATTN_QK_H
#define RL_MODEL_ATTN_QK_H

#include <stddef.h>

/* keys per packed panel: two AVX-512 vectors, four AVX2 ones */
#define RL_ATTN_QK_W 32

/* Floats the packing of n keys of head dim hd takes: ceil(n / W) W hd. */
size_t rl_attn_qk_packed_floats(long n, int hd);

/* Pack keys 0 .. n-1 (key j at k + j ld, hd floats) into kp, laid out as
 * above; the last panel's missing keys are zeros. */
void rl_attn_qk_pack(float *kp, const float *k, long ld, long n, int hd);

/* S[r lds + j] = scale sum_d Q[r ldq + d] K_j[d]  (r < nq, j < nk), K_j the
 * j-th key of the panels at kp (the panel of the block's first key); only
 * the nk columns of each row are written. */
typedef void (*rl_attn_qk_fn)(float *S, long lds, const float *Q, long ldq, const float *kp, int nq,
                              int nk, int hd, float scale);

/* The widest version this CPU runs for head dim hd, or NULL where none does
 * (no AVX2 with FMA, or hd < 1): the caller then multiplies with
 * cblas_sgemm.  A pure function of the CPU and hd. */
rl_attn_qk_fn rl_attn_qk_pick(int hd);

/* Every version this CPU runs, widest first, into fns (room for 2) with their
 * names; returns how many (0 without AVX2 and FMA). */
int rl_attn_qk_versions(rl_attn_qk_fn *fns, const char **names);

/* The order's definition, one fmaf at a time (libm: slow; for the tests). */
void rl_attn_qk_ref(float *S, long lds, const float *Q, long ldq, const float *kp, int nq, int nk,
                    int hd, float scale);

#endif
