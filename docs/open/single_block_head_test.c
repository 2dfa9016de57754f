/* docs/open/single_block_head_test.c: the check issue 22 asks for that fails today (NOTES.md
 * §17.3): append to tests/test_farpred.c to run it.  Not built: a known failure, kept to be
 * made to pass by the conditional level of NOTES §17.3, not weakened. */
/* ---- a constructed random-rotation head with one block ---- */

/* The last query block's scores of head h, layer 0, of one window. */
typedef struct {
    long L, i0;
    int h;
    double *S; /* (L - i0) x L */
} rows_obs;

static void rows_observe(void *ctx, int layer, int b, int h, long i0, long i1, long j0, long j1, const float *S,
                         long lds)
{
    rows_obs *o = ctx;
    (void)b;
    if (layer != 0 || h != o->h || i0 != o->i0)
        return;
    for (long r = 0; r < i1 - i0; r++)
        for (long j = j0; j < j1; j++)
            o->S[r * o->L + j] = S[r * lds + (j - j0)];
}

/* random_qk with head dimension 2: one block, omega = 1 (base^0), chi(n) =
 * sinc(n), mixed within T = 32 to chi^32 = 0.004; q and k constant (the
 * weights 0, biases set), so every pair has the same alignment A and the
 * far mass varies only with the rotation noise.  The prediction from
 * windows of T against a Monte Carlo over 300 windows of L = 512 with
 * their own noise (the window's far mass: the mean over its last 64 rows),
 * inside the Jensen bracket of (F3) with Var(F) and the near sums measured
 * in the same windows, at 5 SE. */
Test(farpred, single_block_random_head_matches_monte_carlo, .timeout = 120)
{
    const int T = 32;
    const long L = 512;
    rl_gpt_config cfg = { 1, 4, 2, T, 64, 0.0f, tm_pos("random_qk"), RL_ROT_BASE_DEFAULT };
    rl_gpt *m = rl_gpt_alloc(&cfg, 8);
    cr_assert(m);
    rl_gpt_init(m, 5);
    float *w = m->p.blk[0][RL_QKVW], *bq = m->p.blk[0][RL_QKVB];
    memset(w, 0, sizeof(float) * 2 * 4 * 4); /* the q and k rows */
    const float qb[4] = { 0.5f, 0.2f, 0.9f, -0.4f }, kb[4] = { 0.6f, -0.3f, 0.7f, 0.5f };
    for (int j = 0; j < 4; j++) {
        bq[j] = qb[j];
        bq[4 + j] = kb[j];
    }
    rl_tokens val = { malloc(sizeof(uint16_t) * 8192), 8192 };
    for (long i = 0; i < val.n; i++)
        val.tok[i] = (uint16_t)((i * 37 + i / 3) % 64);
    rl_farpred_within fw;
    cr_assert_eq(rl_farpred_measure(m, &val, 512, 256, 3, &fw, NULL), RL_OK);
    rl_farpred_row rows[2];
    cr_assert_eq(rl_farpred_predict(&fw, &L, 1, rows, NULL, NULL), RL_OK);
    const long i0 = (L - 1) / RL_ATTN_SQ * RL_ATTN_SQ, nr = L - i0;
    rl_gpt_eval *e = rl_gpt_eval_alloc(m, L);
    for (int h = 0; h < 2; h++) {
        rows_obs o = { L, i0, h, malloc(sizeof(double) * nr * L) };
        rl_gpt_eval_observe(e, rows_observe, &o);
        th_acc rho = { 0 }, F = { 0 };
        double Nmin = INFINITY, Fmin = INFINITY;
        for (int win = 0; win < 300; win++) {
            rl_gpt_eval_window(m, e, val.tok + 7 * win, L, 1000 + (uint64_t)win);
            double wr = 0;
            for (long r = 0; r < nr; r++) {
                const long i = i0 + r;
                double far = 0, near = 0;
                for (long j = 0; j <= i; j++) {
                    if (i - j >= T)
                        far += exp(o.S[r * L + j]);
                    else
                        near += exp(o.S[r * L + j]);
                }
                wr += far / (near + far);
                th_add(&F, far);
                Nmin = fmin(Nmin, near);
                Fmin = fmin(Fmin, far);
            }
            th_add(&rho, wr / nr);
        }
        /* g(F) = F/(N + F): |g''| <= 2 N/(N + F)^3 <= 2/(Nmin + Fmin)^2 over the range seen */
        const double var = F.m2 / (F.n - 1), gap = var / ((Nmin + Fmin) * (Nmin + Fmin)), se = th_se(&rho);
        const double pred = rows[h].theory;
        cr_expect_lt(gap, 0.05 * pred, "head %d: the bracket must be narrow enough to test: %g", h, gap);
        cr_expect_geq(rho.mean, pred - gap - 5 * se, "head %d: MC %.5f +- %.5f below the bracket [%.5f, %.5f]", h,
                      rho.mean, se, pred - gap, pred);
        cr_expect_leq(rho.mean, pred + 5 * se, "head %d: MC %.5f +- %.5f above the bracket [%.5f, %.5f]", h, rho.mean,
                      se, pred - gap, pred);
        rl_gpt_eval_observe(e, NULL, NULL);
        free(o.S);
    }
    rl_gpt_eval_free(e);
    rl_farpred_within_free(&fw);
    free(val.tok);
    rl_gpt_free(m);
}
