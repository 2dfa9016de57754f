/* fixture_main.c: what the test family of fam_fixture.c gets without one
 * more line of code: its flag (--kappa, range and help), the library's
 * setter, its default, the check of its range, and sampling.  Prints one
 * line per property and "ok" at the end; exits 1 at the first that fails. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/core/opts.h"
#include "sampling/family_cli.h"
#include "sampling/family_ops.h"
#include "sampling/sample.h"

#define NEED(c, ...)                                                                                       \
    do {                                                                                                   \
        if (!(c)) {                                                                                        \
            printf("FAILED: " __VA_ARGS__);                                                                \
            printf("\n");                                                                                  \
            return 1;                                                                                      \
        }                                                                                                  \
    } while (0)

/* parse argv as `routelab sample` would, into *f */
static rl_status parse(int argc, char **argv, rl_family *f, rl_err *err)
{
    rl_family_args a = rl_family_args_default();
    rl_opt opts[RL_FAMILY_OPTS_MAX + 1];
    opts[rl_family_opts(&a, opts)] = (rl_opt)RL_OPT_END_;
    int npos, help;
    double *table;
    RL_TRY(rl_opts_parse_status("sample", opts, argc, argv, NULL, 0, &npos, &help, err));
    return rl_family_from_args(&a, opts, 1, 0, f, &table, err);
}

int main(void)
{
    rl_family f;
    rl_err err;
    NEED(rl_family_named(&f, "fixture", 4, &err) == RL_OK, "named: %s", err.msg);
    NEED(f.own[0] == 0.25, "default kappa %g", f.own[0]);
    printf("default from the table: kappa = %g\n", f.own[0]);
    NEED(rl_family_set(&f, "kappa", "0.5", &err) == RL_OK && f.own[0] == 0.5, "setter: %s", err.msg);
    NEED(rl_family_set(&f, "kappa", "9", &err) == RL_EINPUT && strstr(err.msg, "out of range"), "range: %s",
         err.msg);
    printf("setter and range: %s\n", err.msg);
    rl_family so2;
    NEED(rl_family_named(&so2, "so2", 4, &err) == RL_OK, "so2");
    NEED(rl_family_set(&so2, "kappa", "0.5", &err) == RL_EINPUT && strstr(err.msg, "does not apply"), "%s",
         err.msg);
    char *ok[] = { "sample", "--family", "fixture", "--d", "4", "--kappa", "0.75" };
    NEED(parse(7, ok, &f, &err) == RL_OK && f.own[0] == 0.75, "flag: %s", err.msg);
    printf("flag: --kappa 0.75 -> kappa = %g\n", f.own[0]);
    char *bad[] = { "sample", "--family", "haar", "--kappa", "1" };
    NEED(parse(5, bad, &f, &err) == RL_EINPUT && strstr(err.msg, "--kappa does not apply"), "%s", err.msg);
    printf("another family: %s\n", err.msg);
    f.own[0] = 4;
    NEED(rl_family_check(&f, &err) == RL_EINPUT, "check");
    printf("check: %s\n", err.msg);
    /* a step is R(kappa) on each block: entry (0, 0) = cos kappa */
    NEED(rl_family_named(&f, "fixture", 4, &err) == RL_OK, "named");
    double m[2 * 16];
    NEED(rl_sample(&f, 2, 7, 1, m, &err) == RL_OK, "sample: %s", err.msg);
    NEED(fabs(m[0] - cos(0.25)) < 1e-15 && fabs(m[16] - cos(0.25)) < 1e-15, "step %g", m[0]);
    printf("sample: M[0][0] = cos(kappa) = %.6f\n", m[0]);
    printf("ok\n");
    return 0;
}
