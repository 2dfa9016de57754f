/* test_chain.c: the route walkers of experiments/ against explicit products. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../mc/chain.h"
#include "../mc/routes.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"

/* P_delta = M_1 M_2 ... M_delta with M_1 the first step drawn (the latest
 * position): the chain's rows must be P^T x and apply() must be P v. */
static void check_chain(rl_family f)
{
    const int d = f.d;
    rl_chain *c = rl_chain_alloc(&f, d);
    rl_stepper *s = rl_stepper_alloc(&f, 1);
    gsl_rng *r1 = rl_rng_alloc(), *r2 = rl_rng_alloc();
    rl_rng_stream(r1, 3, 1);
    rl_rng_stream(r2, 3, 1);
    double P[64], M[64], T[64], v[8], out[8];
    memset(P, 0, sizeof P);
    for (int i = 0; i < d; i++)
        P[i * d + i] = 1;
    cr_assert_eq(rl_chain_reset_identity(c, NULL), RL_OK);
    for (int step = 0; step < 9; step++) {
        rl_chain_step(c, r1, step % 3);
        rl_stepper_draw(s, r2, step % 3);
        rl_stepper_matrix(s, M);
        for (int i = 0; i < d; i++) /* P <- P M: the new step is older */
            for (int j = 0; j < d; j++) {
                T[i * d + j] = 0;
                for (int k = 0; k < d; k++)
                    T[i * d + j] += P[i * d + k] * M[k * d + j];
            }
        memcpy(P, T, sizeof T);
    }
    const double *rows = rl_chain_rows(c);
    for (int k = 0; k < d; k++)
        for (int j = 0; j < d; j++)
            cr_assert_float_eq(rows[k * d + j], P[k * d + j], 1e-12, "%s: row %d", rl_family_name(f.kind), k);
    for (int i = 0; i < d; i++)
        v[i] = cos(i + 0.3);
    rl_chain_apply(c, v, out);
    for (int i = 0; i < d; i++) {
        double e = 0;
        for (int j = 0; j < d; j++)
            e += P[i * d + j] * v[j];
        cr_assert_float_eq(out[i], e, 1e-12);
    }
    cr_assert_eq(rl_chain_delta(c), 9);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
    rl_stepper_free(s);
    rl_chain_free(c);
}

static double table[3 * 4];

Test(chain, rows_and_apply_are_the_route_product)
{
    check_chain(rl_family_default(RL_FAM_HOUSEHOLDER, 8));
    check_chain(rl_family_default(RL_FAM_HAAR, 5));
    rl_family f = rl_family_default(RL_FAM_SO2, 8);
    f.base = 3;
    check_chain(f);
    rl_family t = rl_family_default(RL_FAM_TOKEN_SO2, 8);
    for (int i = 0; i < 12; i++)
        table[i] = 0.1 * i - 0.4;
    t.table = table;
    t.vocab = 3;
    check_chain(t);
}

Test(chain, route_grid_is_increasing_and_ends_at_nmax)
{
    int ng;
    long *g = rl_route_grid(65536, 256, 8, &ng);
    cr_assert_eq(g[0], 1);
    cr_assert_eq(g[255], 256);
    cr_assert_eq(g[ng - 1], 65536);
    for (int i = 1; i < ng; i++)
        cr_assert_gt(g[i], g[i - 1]);
    free(g);
}

/* The route Monte Carlo's mean for Householder steps against (1 - 2/d)^n. */
Test(chain, route_means_match_the_closed_form)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 6);
    long grid[] = { 1, 2, 5, 10 };
    rl_route_stats *st = NULL;
    cr_assert_eq(rl_routes_run(&f, grid, 4, 4000, 5, 1, NULL, 0, &st, NULL), RL_OK);
    for (int g = 0; g < 4; g++) {
        double c = pow(1 - 2.0 / 6, grid[g]);
        cr_assert_leq(fabs(st->tr[g] - c), 5 * st->tr_se[g] + 1e-12, "n=%ld: %g +- %g vs %g", grid[g], st->tr[g],
                     st->tr_se[g], c);
        cr_assert_leq(fabs(st->coh[g] - c), 5 * st->coh_se[g] + 1e-12);
    }
    rl_route_stats_free(st);
}

/* The identity rows need a chain that tracks d vectors: anything else is a
 * bad input (RL_EINPUT with a message), not an exit. */
Test(chain, identity_reset_needs_d_vectors)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 6);
    rl_chain *c = rl_chain_alloc(&f, 2);
    rl_err err;
    cr_assert_eq(rl_chain_reset_identity(c, &err), RL_EINPUT);
    cr_assert(strstr(err.msg, "nvec") != NULL, "message: %s", err.msg);
    rl_chain_free(c);
}
