/* cmd_sample.c: `routelab sample`, sampled steps as text matrices. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "../core/paths.h"
#include "../core/util.h"
#include "../sampling/family_cli.h"
#include "../sampling/rng.h"
#include "../sampling/steps.h"

/* Stream ids: matrix k uses stream k; the table and the tokens use two
 * reserved ids above any count. */
#define TABLE_STREAM (UINT64_MAX - 1)
#define TOKEN_STREAM (UINT64_MAX - 2)

int cmd_sample(int argc, char **argv)
{
    rl_family_args fa = rl_family_args_default();
    long count = 1, seed = 1;
    int threads = rl_ncores();
    const char *out = NULL;
    rl_opt opts[] = {
        RL_FAMILY_OPTS_(&fa),
        RL_OPT_LONG_("count", &count, "number of steps to sample", 1, 1e9),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_STR_("out", &out, "write to this file instead of standard output"),
        RL_OPT_END_
    };
    rl_opts_parse("sample", "--family NAME --d D --count N --seed S [family flags]",
                  "Draw steps M_t of a family and print each as one line of d*d numbers\n"
                  "(row-major, %.17g).  Step k comes from random stream k of the seed, so\n"
                  "the output is the same for any --threads.  token-so2 steps read the\n"
                  "tokens of --text (or uniform random ids), one token per step.",
                  opts, argc, argv, NULL, 0);
    rl_set_threads(threads);

    double *table;
    rl_family f;
    rl_err err;
    const rl_path_use in[] = { { "--text", fa.text, 0 }, { "--table", fa.table, 0 } },
                      outs[] = { { "--out", out, 0 } };
    rl_check_in("sample", rl_paths_check(in, 2, outs, 1, &err), &err);
    if (out)
        rl_check_in("sample", rl_output_check(out, &err), &err);
    rl_check_in("sample", rl_family_from_args(&fa, opts, (unsigned long)seed, TABLE_STREAM, &f, &table, &err),
                &err);
    long ntok = 0;
    int *tok = NULL;
    if (f.kind == RL_FAM_TOKEN_SO2) {
        rl_check_in("sample",
                    rl_family_tokens(&fa, &f, count, (unsigned long)seed, TOKEN_STREAM, &tok, &ntok, &err),
                    &err);
        if (ntok < count)
            rl_die("sample: --text has %ld tokens, fewer than --count %ld", ntok, count);
    }

    const long d2 = (long)f.d * f.d;
    const long chunk = d2 >= 65536 ? 8 : 256;
    double *buf = rl_xmalloc(sizeof(double) * (size_t)(chunk * d2));
    rl_outfile *of = out ? rl_outfile_open(out) : NULL;
    FILE *fp = of ? of->f : stdout;

    for (long k0 = 0; k0 < count; k0 += chunk) {
        long nk = count - k0 < chunk ? count - k0 : chunk;
        long failed = nk; /* the first step whose draw failed (nk: none) */
#pragma omp parallel
        {
            rl_stepper *st = rl_stepper_alloc(&f, 1);
            gsl_rng *r = rl_rng_alloc();
            long mine = nk; /* this thread's first failure: its stepper keeps that one */
#pragma omp for schedule(dynamic)
            for (long i = 0; i < nk; i++) {
                rl_rng_stream(r, (uint64_t)seed, (uint64_t)(k0 + i));
                rl_stepper_draw(st, r, tok ? tok[k0 + i] : 0);
                rl_stepper_matrix(st, buf + i * d2);
                if (mine == nk && rl_stepper_status(st, NULL) != RL_OK)
                    mine = i;
            }
            /* report the lowest failing step, whatever the thread count */
#pragma omp critical
            if (mine < failed) {
                failed = mine;
                rl_stepper_status(st, &err);
            }
            gsl_rng_free(r);
            rl_stepper_free(st);
        }
        /* the last guard: a step with a non-finite entry is refused, never
         * printed (the family checks keep its inputs in range) */
        for (long i = 0; failed == nk && i < nk * d2; i++)
            if (!isfinite(buf[i])) {
                failed = i / d2;
                rl_fail(&err, RL_EINPUT, "its matrix has a non-finite entry (%g): the family's "
                        "parameters are outside its numerical range", buf[i]);
            }
        if (failed < nk) {
            if (of)
                rl_outfile_abort(of); /* no temporary left behind */
            rl_err_prefix(&err, "step %ld", k0 + failed);
            rl_check_in("sample", err.status, &err);
        }
        for (long i = 0; i < nk; i++) {
            const double *M = buf + i * d2;
            for (long j = 0; j < d2; j++)
                fprintf(fp, j ? " %.17g" : "%.17g", M[j]);
            fputc('\n', fp);
        }
    }
    if (of)
        rl_outfile_commit(of);
    else if (fflush(stdout) != 0 || ferror(stdout))
        rl_fatal("sample: write error on standard output"); /* the system's refusal: status 1 */
    free(buf);
    free(tok);
    free(table);
    return 0;
}
