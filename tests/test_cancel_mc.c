/* test_cancel_mc.c: the public Monte Carlo calls (api/include/routelab/mc.h)
 * stop within about a second when the caller asks (rl_cancel_request, as
 * Python's Ctrl-C does from another thread), return RL_ECANCEL with
 * "NAME: cancelled", and once the request is cleared give the same bytes as
 * a call that was never cancelled. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../api/include/routelab/mc.h"
#include "../sampling/family.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* 1e5 routes of 1e6 steps: hours of work, unless cancelled. */
static rl_status big_routes(const rl_family *f, double *tr, rl_err *err)
{
    const long grid[] = { 1000, 1000000 };
    return rl_mc_routes(f, grid, 2, 100000, 5, 0, 2, tr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, err);
}

/* A small run, whose bytes the cancelled calls must leave alone. */
static void small_routes(const rl_family *f, double *out)
{
    const long grid[] = { 1, 4, 16 };
    rl_err err;
    cr_assert_eq(rl_mc_routes(f, grid, 3, 64, 5, 0, 2, out, out + 3, out + 6, out + 9, out + 12, out + 15, out + 18,
                              NULL, NULL, &err),
                 RL_OK, "%s", err.msg);
}

Test(cancel_mc, routes_cancelled_before_the_call_then_cleared)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 8);
    double before[21], after[21], tr[2];
    rl_err err;
    small_routes(&f, before);
    rl_cancel_request();
    double t0 = now();
    cr_assert_eq(big_routes(&f, tr, &err), RL_ECANCEL);
    cr_expect_lt(now() - t0, 1.0, "took %.2f s", now() - t0);
    cr_assert_str_eq(err.msg, "routes: cancelled");
    rl_cancel_clear();
    small_routes(&f, after);
    cr_assert_eq(memcmp(before, after, sizeof before), 0, "a cleared request changed the bytes");
}

static void *cancel_later(void *arg)
{
    (void)arg;
    usleep(300000);
    rl_cancel_request();
    return NULL;
}

/* The request arrives while the routes run (mid-route: every 1024 steps). */
Test(cancel_mc, routes_cancelled_from_another_thread)
{
    rl_family f = rl_family_default(RL_FAM_HAAR, 8);
    double tr[2];
    rl_err err;
    pthread_t th;
    double t0 = now();
    cr_assert_eq(pthread_create(&th, NULL, cancel_later, NULL), 0);
    rl_status st = big_routes(&f, tr, &err);
    double dt = now() - t0;
    pthread_join(th, NULL);
    cr_assert_eq(st, RL_ECANCEL, "%s", err.msg);
    cr_assert_str_eq(err.msg, "routes: cancelled");
    cr_expect_lt(dt, 1.5, "took %.2f s after a request at 0.3 s", dt);
    rl_cancel_clear();
    const long grid[] = { 2, 8 };
    cr_assert_eq(rl_mc_routes(&f, grid, 2, 32, 5, 0, 2, tr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &err),
                 RL_OK, "%s", err.msg);
}

/* The other long calls, asked to stop before they start. */
Test(cancel_mc, every_long_call_returns_ecancel)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 8);
    rl_err err;
    double a, b, c, d;
    rl_cancel_request();
    cr_assert_eq(rl_mc_family_mean(&f, 10000000000L, 1, 0, &a, &b, &err), RL_ECANCEL);
    cr_assert_str_eq(err.msg, "family mean: cancelled");
    cr_assert_eq(rl_mc_moment2(&f, 100000000, 1, &a, &b, &c, &d, &err), RL_ECANCEL);
    cr_assert_str_eq(err.msg, "moment2: cancelled");
    const double lam[] = { 1 };
    const long grid[] = { 100000 };
    double rho[64], mom[2 * 64], sr[3 * 64];
    cr_assert_eq(rl_mc_farmass(&f, 0, 16, lam, 1, NULL, 0, grid, 1, 1024, 64, 1, 2, rho, NULL, NULL, mom, sr,
                               &err),
                 RL_ECANCEL);
    cr_assert_str_eq(err.msg, "farmass: cancelled");
    rl_cancel_clear();
    cr_assert_eq(rl_mc_family_mean(&f, 1000, 1, 0, &a, &b, &err), RL_OK, "%s", err.msg);
    cr_assert_eq(rl_mc_moment2(&f, 100, 1, &a, &b, &c, &d, &err), RL_OK, "%s", err.msg);
}
