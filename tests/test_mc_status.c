/* A failed draw inside a Monte Carlo kernel (sampling/steps.h: a token
 * outside the angle table, LAPACK info != 0) comes back from the kernel as
 * an rl_status with its message, not as NaN numbers in a report. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../mc/chain.h"
#include "../mc/gapchain.h"
#include "../mc/routes.h"
#include "../mc/scoretails.h"
#include "../sampling/rng.h"
#include "../sampling/so2.h"
#include "../sampling/steps.h"

static double table[8 * 4];

/* token-so2 in d = 8 with an angle table of `vocab` tokens (vocab = 0: even
 * token 0, which kernels without a text draw, lies outside it) */
static rl_family token_family(int vocab)
{
    rl_family f = rl_family_default(RL_FAM_TOKEN_SO2, 8);
    f.vocab = 8;
    f.table = table;
    rl_so2_table_draw(&f, 3, 3, table);
    f.vocab = vocab;
    return f;
}

Test(mc_status, routes_with_a_token_beyond_the_table_fail_with_einput)
{
    rl_family f = token_family(4);
    long grid[] = { 1, 2, 4 };
    int tok[16];
    for (int i = 0; i < 16; i++)
        tok[i] = i % 4; /* all inside the table */
    rl_route_stats *s = NULL;
    rl_err err = { RL_OK, "" };
    cr_assert_eq(rl_routes_run(&f, grid, 3, 64, 1, 1, tok, 16, &s, &err), RL_OK);
    cr_assert_not_null(s);
    cr_assert(!isnan(s->coh[2]));
    rl_route_stats_free(s);
    tok[9] = 7; /* beyond the table of 4: every route over position 9 fails */
    for (int i = 10; i < 16; i++)
        tok[i] = 7;
    s = (rl_route_stats *)&err; /* must be reset */
    cr_assert_eq(rl_routes_run(&f, grid, 3, 64, 1, 1, tok, 16, &s, &err), RL_EINPUT);
    cr_assert_null(s, "no statistics of a failed route");
    cr_assert_eq(err.status, RL_EINPUT);
    cr_assert_str_eq(err.msg, "token id 7 is outside the angle table's vocabulary of 4");
}

Test(mc_status, chain_reports_its_failed_draw)
{
    rl_family f = token_family(4);
    rl_chain *c = rl_chain_alloc(&f, 1);
    gsl_rng *r = rl_rng_alloc();
    double q[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
    rl_err err = { RL_OK, "" };
    rl_chain_reset(c, q);
    rl_chain_step(c, r, 3);
    cr_assert_eq(rl_chain_status(c, &err), RL_OK);
    cr_assert_str_empty(err.msg);
    rl_chain_step(c, r, 5);
    rl_chain_step(c, r, 1);
    cr_assert(isnan(rl_chain_rows(c)[0]));
    cr_assert_eq(rl_chain_status(c, NULL), RL_EINPUT);
    cr_assert_eq(rl_chain_status(c, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "token id 5 is outside the angle table's vocabulary of 4");
    gsl_rng_free(r);
    rl_chain_free(c);
}

Test(mc_status, gapchain_fails_with_einput)
{
    rl_gc_spec sp = { .f = token_family(0), .delta0 = 4, .lambda = 1, .nnear = 1, .near = { 1 } };
    double q[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
    long g[] = { 2, 4 };
    rl_gc_cell c;
    rl_err err = { RL_OK, "" };
    cr_assert_eq(rl_gc_run(&sp, q, NULL, 32, g, 2, 1, 1, &c, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "token id 0 is outside the angle table's vocabulary of 0");
    cr_assert_null(c.maxs, "the cell is left empty");
    rl_gc_free(&c);
    sp.f = token_family(8);
    cr_assert_eq(rl_gc_run(&sp, q, NULL, 32, g, 2, 1, 1, &c, &err), RL_OK);
    cr_assert(!isnan(c.maxs[0]));
    rl_gc_free(&c);
}

Test(mc_status, scoretails_chain_fails_with_einput)
{
    rl_st_spec sp = { RL_ST_CHAIN, token_family(0), 5 };
    double t[] = { 0.5, 0.9 };
    double *Q = rl_st_queries(1, 8, 2);
    rl_st_cell c;
    rl_err err = { RL_OK, "" };
    cr_assert_eq(rl_st_run(&sp, t, 2, 40, 2, Q, 1, 1, &c, &err), RL_EINPUT);
    cr_assert_str_eq(err.msg, "token id 0 is outside the angle table's vocabulary of 0");
    cr_assert_null(c.mean, "the cell is left empty");
    rl_st_free(&c);
    sp.f = token_family(8);
    cr_assert_eq(rl_st_run(&sp, t, 2, 40, 2, Q, 1, 1, &c, &err), RL_OK);
    cr_assert(!isnan(c.mean[0]));
    rl_st_free(&c);
    free(Q);
}
