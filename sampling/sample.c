/* sample.c: steps drawn as matrices (sample.h), and the library's
 * rl_sample (<routelab/family.h>). */
#include "sample.h"
#include "family_cli.h"
#include "rng.h"
#include "so2.h"
#include "steps.h"
#include "tokens.h"

#include <math.h>
#include <stdlib.h>

#include "../base/core/mem.h"
#include "../base/core/util.h"

rl_status rl_sample_range(const rl_family *f, const int *tok, long k0, long n, unsigned long seed, int threads,
                          double *out, rl_err *err)
{
    const long d2 = (long)f->d * f->d;
    long failed = n; /* the first step whose draw failed (n: none) */
    rl_err first = { RL_OK, "" };
    int nomem = 0; /* a thread's stepper could not be allocated */
#pragma omp parallel num_threads(threads)
    {
        rl_stepper *st = rl_stepper_alloc(f, 1);
        rl_rng_local l;
        gsl_rng *r = rl_rng_local_init(&l);
        long mine = n; /* this thread's first failure: its stepper keeps that one */
        if (!st) {
#pragma omp atomic write
            nomem = 1;
        }
        /* the region cannot be left early: a thread without a stepper
         * takes its share of the loop and skips it */
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i++) {
            if (!st)
                continue;
            rl_rng_stream(r, (uint64_t)seed, (uint64_t)(k0 + i));
            rl_stepper_draw(st, r, tok ? tok[i] : 0);
            rl_stepper_matrix(st, out + i * d2);
            if (mine == n && rl_stepper_status(st, NULL) != RL_OK)
                mine = i;
        }
        /* report the lowest failing step, whatever the thread count */
#pragma omp critical
        if (mine < failed) {
            failed = mine;
            rl_stepper_status(st, &first);
        }
        rl_stepper_free(st);
    }
    if (nomem) /* out is not all written: no step is returned */
        return rl_fail(err, RL_ENOMEM, "out of memory allocating a stepper (d = %d)", f->d);
    /* the last guard: a step with a non-finite entry is refused, never
     * returned (the family checks keep its inputs in range) */
    for (long i = 0; failed == n && i < n * d2; i++)
        if (!isfinite(out[i])) {
            failed = i / d2;
            rl_fail(&first, RL_EINPUT, "its matrix has a non-finite entry (%g): the family's "
                    "parameters are outside its numerical range", out[i]);
        }
    if (failed == n)
        return RL_OK;
    rl_err_prefix(&first, "step %ld", k0 + failed);
    if (err)
        *err = first;
    return first.status;
}

rl_status rl_sample(const rl_family *f, long count, unsigned long seed, int threads, double *out, rl_err *err)
{
    long c = count, s = 0;
    int t = threads;
    /* the command's own entries: the same ranges and messages */
    const rl_opt co = RL_OPT_SAMPLE_COUNT_(&c), so = RL_OPT_SEED_(&s), to = RL_OPT_THREADS_(&t);
    if (!f || !out)
        return rl_fail(err, RL_EINPUT, "rl_sample: no family or no output buffer");
    RL_TRY(rl_opt_check_value(&co, (double)count, err));
    RL_TRY(rl_opt_check_value(&so, (double)seed, err));
    RL_TRY(rl_opt_check_value(&to, threads, err));
    /* the steps the caller holds, the table and the tokens: planned before
     * anything is allocated (base/core/mem.h) */
    int over = 0;
    size_t need = rl_szmul(rl_szmul((size_t)count, rl_szmul((size_t)f->d, (size_t)f->d, &over), &over),
                           sizeof(double), &over);
    if (f->kind == RL_FAM_TOKEN_SO2)
        need = rl_szadd(need, rl_szmul((size_t)count, sizeof(int), &over), &over);
    RL_TRY(rl_mem_check("the sampled steps", need, over, err));
    rl_family g;
    double *table;
    RL_TRY(rl_family_with_table(f, seed, RL_SAMPLE_TABLE_STREAM, &g, &table, err));
    int *tok = NULL;
    if (g.kind == RL_FAM_TOKEN_SO2) {
        if (!(tok = rl_alloc_array((size_t)count, sizeof(int), err))) {
            free(table);
            return RL_ENOMEM;
        }
        rl_tokens_draw(g.vocab, count, seed, RL_SAMPLE_TOKEN_STREAM, tok);
    }
    rl_status st = rl_sample_range(&g, tok, 0, count, seed, threads, out, err);
    free(tok);
    free(table);
    return st;
}
