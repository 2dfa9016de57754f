/* test_model_last.c: rl_gpt_forward_last, the token-paired reference's
 * forward (model/gpt.h, docs/speed/kernels.md#training-attention-kernels), against rl_gpt_forward's
 * loss at each window's last position, for every scheme the registry holds: the
 * same to float rounding, and far from the neighbouring position's loss (a
 * row gathered one position off fails by orders of magnitude). */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "../model/gpt.h"
#include "test_model_util.h"

/* The bound: the two forwards differ only in the row count of the last
 * MLP's and the head's products (B rows against B T), which may change the
 * order of OpenBLAS's sums of length K <= 4C = 128; each such sum then moves
 * by at most 2 gamma_K sum|a b| (Higham §3.1), gamma_128 = 7.6e-6, and the
 * loss (logsumexp - z_y, Lipschitz 2 in the logits) by a few times that
 * relative to the logits' size (|z| <= 10 here): 1e-4 absolute holds it
 * with room, while a neighbouring position's loss differs by O(0.1). */
#define LAST_TOL 1e-4

Test(model_last, the_last_positions_loss_for_every_scheme, .timeout = 120)
{
    omp_set_num_threads(1);
    tm_scheme_case cases[TM_MAX_CASES];
    const size_t nc = tm_registry_cases(cases, TM_MAX_CASES);
    enum { B = 5, T = 16, V = 50 };
    uint16_t tok[B + T + 1];
    for (int i = 0; i < B + T + 1; i++)
        tok[i] = (uint16_t)((i * 17 + 5) % V);
    double worst = 0, nearest_other = INFINITY;
    for (size_t c = 0; c < nc; c++) {
        rl_gpt_config cfg = { 2, 32, 2, T, V, 0.0f, cases[c].pos, RL_ROT_BASE_DEFAULT };
        rl_gpt *m = tm_gpt_perturbed(&cfg, B);
        /* B windows one token apart (ld = 1), as the reference reads them */
        rl_gpt_forward(m, tok, 1, B, T, 0, 77);
        double full[B], prev[B];
        for (int b = 0; b < B; b++) {
            full[b] = m->losses[(long)b * T + T - 1];
            prev[b] = m->losses[(long)b * T + T - 2];
        }
        const double mean = rl_gpt_forward_last(m, tok, 1, B, T, 77);
        double s = 0;
        for (int b = 0; b < B; b++) {
            const double d = fabs(m->losses[b] - full[b]);
            cr_expect(d <= LAST_TOL, "%s window %d: last-only %.9g, full %.9g", rl_pos_name(cases[c].pos), b,
                      m->losses[b], full[b]);
            worst = fmax(worst, d);
            nearest_other = fmin(nearest_other, fabs(m->losses[b] - prev[b]));
            s += m->losses[b];
        }
        cr_expect(fabs(mean - s / B) <= 1e-12 * (1 + fabs(mean)), "%s: the mean", rl_pos_name(cases[c].pos));
        rl_gpt_free(m);
    }
    cr_log_info("%zu schemes: largest |last-only - full| %.3g; smallest gap to position T - 2: %.3g", nc, worst,
                nearest_other);
    cr_expect(nearest_other > 100 * LAST_TOL, "the test could not tell the last position from the one before");
}
