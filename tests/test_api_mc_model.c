/* test_api_mc_model.c: the public model and Monte Carlo calls
 * (api/include/routelab/model.h, mc.h) return statuses, never exit, and give
 * the closed forms where the model has one (docs/library.md#model-mc-api).  The numbers
 * against the commands are api/python/tests' (byte for byte). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../api/include/routelab/mc.h"
#include "../api/include/routelab/model.h"
#include "../sampling/family.h"
#include "../theory/theory.h"

static void one_line(const rl_err *err)
{
    cr_assert_gt(strlen(err->msg), 0);
    cr_assert_null(strchr(err->msg, '\n'), "%s", err->msg);
}

Test(api_mc_model, model_bad_inputs_are_statuses)
{
    rl_err err;
    rl_model *m = (rl_model *)&err;
    cr_assert_eq(rl_model_load("/nonexistent/ckpt.bin", &m, &err), RL_EINPUT);
    cr_assert_null(m);
    one_line(&err);
    cr_assert_eq(rl_model_load("README.md", &m, &err), RL_EINPUT, "a file of another format");
    cr_assert_eq(rl_model_load(NULL, &m, &err), RL_EINPUT);
    uint16_t *tr, *va;
    long ntr, nva;
    cr_assert_eq(rl_model_data("/nonexistent/data", 256, &tr, &ntr, &va, &nva, &err), RL_EINPUT);
    cr_assert_eq(rl_model_data("README.md", 1, &tr, &ntr, &va, &nva, &err), RL_EINPUT, "vocab 1");
    rl_model_eval_row row;
    long L = 16;
    cr_assert_eq(rl_model_eval(NULL, NULL, 0, NULL, 0, &L, 1, 0, 1, 1, &row, &err), RL_EINPUT);
}

/* Householder: E[M] = (1 - 2/d) I, so E[tr(P_n)/d] = (1 - 2/d)^n
 * (docs/theory/claim1-mixing.md#mixing-window). */
Test(api_mc_model, routes_follow_the_closed_form_and_refuse_bad_grids)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 8);
    long grid[64];
    int ng;
    rl_err err;
    cr_assert_eq(rl_mc_route_grid(6, 256, 8, grid, 64, &ng, &err), RL_OK);
    cr_assert_eq(ng, 6);
    double tr[6], se[6];
    cr_assert_eq(rl_mc_routes(&f, grid, ng, 4096, 3, 0, 2, tr, se, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &err),
                 RL_OK, "%s", err.msg);
    for (int g = 0; g < ng; g++)
        cr_expect_lt(fabs(tr[g] - pow(0.75, (double)grid[g])), 6 * se[g] + 1e-12, "n = %ld", grid[g]);
    const long down[] = { 3, 2 }, zero[] = { 0, 1 };
    cr_assert_eq(rl_mc_routes(&f, down, 2, 16, 1, 0, 1, tr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &err),
                 RL_EINPUT);
    one_line(&err);
    cr_assert_eq(rl_mc_routes(&f, zero, 2, 16, 1, 0, 1, tr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &err),
                 RL_EINPUT);
    cr_assert_eq(rl_mc_routes(&f, grid, ng, 0, 1, 0, 1, tr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &err),
                 RL_EINPUT);
    cr_assert_eq(rl_mc_route_grid(1000000, 256, 8, grid, 64, &ng, &err), RL_EINPUT, "more lengths than room");
    unsigned long stream;
    cr_assert_eq(rl_mc_mixing_case("nosuch", 16, &f, &stream, &err), RL_EINPUT);
    one_line(&err);
    cr_assert_eq(rl_mc_moment2(&f, 100, 1, NULL, NULL, NULL, NULL, &err), RL_OK);
    f = rl_family_default(RL_FAM_HOUSEHOLDER, 32);
    cr_assert_eq(rl_mc_moment2(&f, 100, 1, NULL, NULL, NULL, NULL, &err), RL_EINPUT, "d beyond 16");
}

/* NoPE: every score is 1, all logits equal, so rho_D = M / (M + K) exactly
 * and, with ALiBi, the geometric series of rl_farmass_alibi at lambda = 0
 * (docs/theory/claim3-farmass.md#far-mass-closed-forms). */
Test(api_mc_model, farmass_of_nope_is_its_closed_form)
{
    rl_family f;
    unsigned long stream;
    rl_err err;
    cr_assert_eq(rl_mc_farmass_case("none", 16, &f, &stream, &err), RL_OK);
    cr_assert_str_eq(rl_family_name(f.kind), "identity");
    const double lam[] = { 1, 3 }, slope[] = { 0.25 };
    const long grid[] = { 20, 40, 80 };
    double rho[3 * 2 * 2], mean[12], se[12], mom[2], sr[9];
    cr_assert_eq(rl_mc_farmass(&f, stream, 4, lam, 2, slope, 1, grid, 3, 10, 1, 1, 1, rho, mean, se, mom, sr,
                               &err), RL_OK, "%s", err.msg);
    for (int g = 0; g < 3; g++)
        for (int l = 0; l < 2; l++) {
            const double M = (double)(grid[g] - 4);
            cr_expect_lt(fabs(rho[(g * 2 + l) * 2] - M / (M + 4)), 1e-12);
            cr_expect_lt(fabs(rho[(g * 2 + l) * 2 + 1] - rl_farmass_alibi(M, 4, 0, 0.25, 0)), 1e-12, "L = %ld",
                         grid[g]);
        }
    const long low[] = { 4, 8 };
    cr_assert_eq(rl_mc_farmass(&f, stream, 4, lam, 2, slope, 1, low, 2, 10, 1, 1, 1, rho, mean, se, mom, sr,
                               &err), RL_EINPUT, "L must exceed K");
    one_line(&err);
    cr_assert_eq(rl_mc_farmass_case("nosuch", 16, &f, &stream, &err), RL_EINPUT);
}
