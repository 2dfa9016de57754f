/* cmd_sample.c: `routelab sample`, sampled steps as text matrices. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../sampling/family_cli.h"
#include "../../sampling/sample.h"

int cmd_sample(int argc, char **argv)
{
    rl_family_args fa = rl_family_args_default();
    long count = 1, seed = 1;
    int threads = rl_ncores();
    const char *out = NULL;
    const rl_opt rest[] = {
        RL_OPT_SAMPLE_COUNT_(&count),
        RL_OPT_SEED_(&seed),
        RL_OPT_THREADS_(&threads),
        RL_OPT_STR_("out", &out, "write to this file instead of standard output"),
        RL_OPT_END_
    };
    rl_opt optbuf[RL_FAMILY_OPTS_MAX + sizeof rest / sizeof *rest];
    rl_opt *opts = rl_family_opts_join(&fa, rest, optbuf, (int)(sizeof optbuf / sizeof *optbuf));
    if (!opts) { /* optbuf is sized for the family's entries and rest: never here */
        rl_err e;
        rl_check_in("sample", rl_fail(&e, RL_EINTERNAL, "the flag table does not fit its buffer"), &e);
    }
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
    rl_check_in("sample", rl_family_from_args(&fa, opts, (unsigned long)seed, RL_SAMPLE_TABLE_STREAM, &f, &table, &err),
                &err);
    long ntok = 0;
    int *tok = NULL;
    if (f.kind == RL_FAM_TOKEN_SO2) {
        rl_check_in("sample",
                    rl_family_tokens(&fa, &f, count, (unsigned long)seed, RL_SAMPLE_TOKEN_STREAM, &tok, &ntok, &err),
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
        /* the library's loop (sample.h, also rl_sample's): step k from stream k */
        rl_status st = rl_sample_range(&f, tok ? tok + k0 : NULL, k0, nk, (unsigned long)seed, threads, buf, &err);
        if (st != RL_OK) {
            if (of)
                rl_outfile_abort(of); /* no temporary left behind */
            rl_check_in("sample", st, &err);
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
