/* fuzz_opts.c: the flag parser every command uses, in its status form
 * (rl_opts_parse_status), on a table with every kind of flag and bound.
 * The input is argv[1..]: its NUL-separated pieces. */
#include "fuzz.h"
#include "../../base/core/opts.h"

#define MAXARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    char *argv[MAXARGS + 1] = { "fuzz" };
    int argc = 1;
    for (size_t i = 0; i < size && argc < MAXARGS; argc++) {
        argv[argc] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    int n = 3, flag = 0, choice = 1;
    long l = 7;
    double x = 0.5, y = 1;
    const char *s = NULL;
    rl_opt opts[] = {
        RL_OPT_INT_("n", &n, "an int", 1, 1 << 20),
        RL_OPT_LONG_("seed", &l, "a long", 0, 9.2e18),
        RL_OPT_DBL_("x", &x, "open-closed", 0, 1, RL_LO_OPEN | RL_HI),
        RL_OPT_DBL_("y", &y, "lower bound only", 0, 0, RL_LO),
        RL_OPT_STR_("out", &s, "a string"),
        RL_OPT_CHOICE_("family", &choice, "a choice", "so2|haar|path|token-so2"),
        RL_OPT_FLAG_("quiet", &flag, "a flag"),
        RL_OPT_END_,
    };
    char *pos[2];
    int npos = -1, help = -1;
    rl_err err = { RL_OK, "" };
    rl_status st = rl_opts_parse_status("fuzz", opts, argc, argv, pos, 2, &npos, &help, &err);
    if (st == RL_OK ? (npos < 0 || npos > 2 || (help != 0 && help != 1))
                    : (st != RL_EINPUT || !err.msg[0] || strchr(err.msg, '\n')))
        abort(); /* a result outside the contract */
    if (st == RL_OK && (n < 1 || n > 1 << 20 || !(x > 0 && x <= 1) || !(y >= 0) || choice < 0 ||
                        choice > 3 || l < 0))
        abort(); /* a value outside its declared range was accepted */
    char name[64];
    rl_choice_name(opts[5].choices, choice, name, sizeof name);
    free(buf);
    return 0;
}
