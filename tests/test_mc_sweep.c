/* test_mc_sweep.c: the one Monte Carlo sweep (mc/sweep.h): the same bytes
 * for any thread count, the worst failure of the lowest item whatever the
 * thread count, a fresh workspace after a failed item, and every workspace
 * freed, on success and on failure. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../mc/gapchain.h"
#include "../mc/routes.h"
#include "../mc/sweep.h"
#include "../sampling/rng.h"

#define N 203

/* items that fail: at[k] with status st[k] (nfail of them) */
typedef struct {
    long allocs, frees, failed_items, items;
    int nfail;
    long at[4];
    rl_status st[4];
    long alloc_fails_from; /* the allocation number from which alloc fails (0: never) */
    double out[N];
} tctx;

typedef struct {
    gsl_rng *r;
    int sticky; /* set by a failed item, like a stepper's error */
} tws;

static rl_status t_alloc(void *ctx, void **ws, rl_err *err)
{
    tctx *c = ctx;
    long k;
#pragma omp atomic capture
    k = ++c->allocs;
    if (c->alloc_fails_from && k >= c->alloc_fails_from) {
#pragma omp atomic
        c->frees++; /* nothing kept: counts as freed */
        return rl_fail(err, RL_EINTERNAL, "no workspace");
    }
    tws *w = rl_xmalloc(sizeof *w);
    w->r = rl_rng_alloc();
    w->sticky = 0;
    *ws = w;
    return RL_OK;
}

static void t_free(void *ctx, void *ws)
{
    tctx *c = ctx;
    tws *w = ws;
    gsl_rng_free(w->r);
    free(w);
#pragma omp atomic
    c->frees++;
}

/* a sum of draws from item i's own stream: its bytes depend on i alone */
static rl_status t_item(void *ctx, void *ws, long i, rl_err *err)
{
    tctx *c = ctx;
    tws *w = ws;
#pragma omp atomic
    c->items++;
    rl_rng_stream(w->r, 42, rl_stream_key(7, (uint64_t)i));
    double s = 0;
    for (int k = 0; k < 50; k++)
        s += rl_normal(w->r) / (k + 1);
    c->out[i] = s;
    for (int k = 0; k < c->nfail; k++)
        if (c->at[k] == i)
            w->sticky = 1 + k;
    if (!w->sticky)
        return RL_OK;
#pragma omp atomic
    c->failed_items++;
    return rl_fail(err, c->st[w->sticky - 1], "item %ld failed", c->at[w->sticky - 1]);
}

static const rl_mc_sweep_fn tfn = { t_alloc, t_free, t_item, 0 };
static const rl_mc_sweep_fn tfn_chunked = { t_alloc, t_free, t_item, 16 };

static rl_status run(tctx *c, int threads, const rl_mc_sweep_fn *fn, rl_err *err)
{
    omp_set_num_threads(threads);
    rl_mc_gather g = { c->out, sizeof(double) };
    rl_status st = rl_mc_sweep(N, fn, c, &g, 1, err);
    omp_set_num_threads(1);
    return st;
}

Test(mc_sweep, same_bytes_for_any_thread_count_and_chunk)
{
    static tctx one, c;
    rl_err err = { RL_OK, "" };
    cr_assert_eq(run(&one, 1, &tfn, &err), RL_OK);
    cr_assert_eq(one.items, N);
    for (int t = 2; t <= 5; t++)
        for (int chunked = 0; chunked < 2; chunked++) {
            memset(&c, 0, sizeof c);
            cr_assert_eq(run(&c, t, chunked ? &tfn_chunked : &tfn, &err), RL_OK);
            cr_assert_eq(c.items, N, "every item once");
            cr_assert(memcmp(c.out, one.out, sizeof one.out) == 0, "%d threads: other bytes", t);
            cr_assert_eq(c.allocs, c.frees, "%d threads: %ld workspaces, %ld freed", t, c.allocs, c.frees);
            cr_assert_leq(c.allocs, t);
        }
    cr_assert_eq(one.allocs, 1);
    cr_assert_eq(one.frees, 1);
}

/* The worst status, then the lowest item, whatever the thread count; each
 * failed item's workspace is replaced, so a sticky failure does not spill
 * onto the items after it. */
Test(mc_sweep, the_failure_kept_is_the_worst_of_the_lowest_item)
{
    static tctx c;
    for (int t = 1; t <= 4; t++)
        for (int rep = 0; rep < 3; rep++) {
            memset(&c, 0, sizeof c);
            c.nfail = 3;
            c.at[0] = 150, c.at[1] = 17, c.at[2] = 90;
            c.st[0] = c.st[1] = c.st[2] = RL_EINTERNAL;
            rl_err err = { RL_OK, "" };
            cr_assert_eq(run(&c, t, &tfn, &err), RL_EINTERNAL);
            cr_assert_str_eq(err.msg, "item 17 failed", "%d threads: %s", t, err.msg);
            cr_assert_eq(c.items, N, "the other items still run");
            cr_assert_eq(c.failed_items, 3, "%d threads: %ld items failed, not 3", t, c.failed_items);
            cr_assert_eq(c.allocs, c.frees, "%d threads: %ld workspaces, %ld freed", t, c.allocs, c.frees);
            cr_assert_geq(c.allocs, 4, "a fresh workspace after each failure");
            /* a bad input outranks an internal failure at a lower item */
            memset(&c, 0, sizeof c);
            c.nfail = 3;
            c.at[0] = 150, c.at[1] = 17, c.at[2] = 120;
            c.st[0] = RL_EINPUT, c.st[1] = RL_EINTERNAL, c.st[2] = RL_EINPUT;
            err = (rl_err){ RL_OK, "" };
            cr_assert_eq(run(&c, t, &tfn, &err), RL_EINPUT);
            cr_assert_str_eq(err.msg, "item 120 failed", "%d threads: %s", t, err.msg);
            cr_assert_eq(c.allocs, c.frees);
        }
}

Test(mc_sweep, a_failed_allocation_is_returned_and_nothing_leaks)
{
    static tctx c;
    for (int t = 1; t <= 3; t++) {
        memset(&c, 0, sizeof c);
        c.alloc_fails_from = 1;
        rl_err err = { RL_OK, "" };
        cr_assert_eq(run(&c, t, &tfn, &err), RL_EINTERNAL);
        cr_assert_str_eq(err.msg, "no workspace");
        cr_assert_eq(c.items, 0, "no item runs without its workspace");
        cr_assert_eq(c.allocs, c.frees);
        /* the replacement after a failed item fails: reported, and the item's message kept
         * only where it is the worse (an input error outranks it) */
        memset(&c, 0, sizeof c);
        c.alloc_fails_from = t + 1; /* every thread's first workspace, then none */
        c.nfail = 1;
        c.at[0] = 5;
        c.st[0] = RL_EINPUT;
        err = (rl_err){ RL_OK, "" };
        cr_assert_eq(run(&c, t, &tfn, &err), RL_EINPUT);
        cr_assert_str_eq(err.msg, "item 5 failed");
        cr_assert_eq(c.allocs, c.frees);
    }
}

Test(mc_sweep, no_items_no_work)
{
    static tctx c;
    rl_err err = { RL_OK, "" };
    omp_set_num_threads(2);
    cr_assert_eq(rl_mc_sweep(0, &tfn, &c, NULL, 0, &err), RL_OK);
    omp_set_num_threads(1);
    cr_assert_eq(c.items, 0);
    cr_assert_eq(c.allocs, c.frees);
}

/* Two of the kernels on the sweep: the same bytes at 1 and 3 threads. */
Test(mc_sweep, kernels_give_the_same_bytes_at_any_thread_count)
{
    rl_family f = rl_family_default(RL_FAM_HOUSEHOLDER, 8);
    long grid[] = { 1, 2, 4, 8 };
    rl_route_stats *s[2];
    rl_gc_cell c[2];
    rl_gc_spec sp = { .f = rl_family_default(RL_FAM_SO2, 8), .delta0 = 4, .lambda = 1, .nnear = 1, .near = { 2 } };
    double q[8] = { 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0 };
    long g[] = { 3, 6 };
    for (int k = 0; k < 2; k++) {
        rl_err err = { RL_OK, "" };
        omp_set_num_threads(k ? 3 : 1);
        cr_assert_eq(rl_routes_run(&f, grid, 4, 100, 9, 3, NULL, 0, &s[k], &err), RL_OK, "%s", err.msg);
        cr_assert_eq(rl_gc_run(&sp, q, NULL, 77, g, 2, 9, 4, &c[k], &err), RL_OK, "%s", err.msg);
        omp_set_num_threads(1);
    }
    cr_assert(memcmp(s[0]->tr, s[1]->tr, sizeof(double) * 7 * 4) == 0, "route statistics differ");
    cr_assert(!isnan(s[0]->op[3]));
    cr_assert(memcmp(c[0].maxs, c[1].maxs, sizeof(double) * 77 * 2 * 5) == 0, "gap chain maxima differ");
    cr_assert(memcmp(c[0].near, c[1].near, sizeof(double) * 77) == 0, "near scores differ");
    for (int k = 0; k < 2; k++) {
        rl_route_stats_free(s[k]);
        rl_gc_free(&c[k]);
    }
}
