/* opts.c: the flag parser behind every subcommand. */
#include "opts.h"

#include "blas_arch.h"
#include "job.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_choice_index(const char *choices, const char *s)
{
    size_t n = strlen(s);
    int i = 0;
    for (const char *p = choices; p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0)
            return i;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

const char *rl_choice_name(const char *choices, int i, char *buf, int len)
{
    const char *p = choices;
    for (; i > 0 && p; i--) {
        p = strchr(p, '|');
        if (p)
            p++;
    }
    if (!p) {
        snprintf(buf, len, "?");
        return buf;
    }
    const char *bar = strchr(p, '|');
    int n = bar ? (int)(bar - p) : (int)strlen(p);
    snprintf(buf, len, "%.*s", n, p);
    return buf;
}

/* A bound as text: integers in full (1048576, not 1.04858e+06), others %g,
 * infinities as -inf / inf. */
static const char *num_text(double x, char *buf, size_t len)
{
    if (isinf(x))
        snprintf(buf, len, x < 0 ? "-inf" : "inf");
    else if (fabs(x) < 1e15 && x == floor(x))
        snprintf(buf, len, "%.0f", x);
    else
        snprintf(buf, len, "%g", x);
    return buf;
}

const char *rl_opt_range_text(const rl_opt *o, char *buf, size_t len)
{
    char lo[32], hi[32];
    if (!(o->bounds & (RL_LO | RL_LO_OPEN | RL_HI | RL_HI_OPEN)))
        return "";
    snprintf(buf, len, "%c%s, %s%c", (o->bounds & RL_LO) ? '[' : '(',
             num_text((o->bounds & (RL_LO | RL_LO_OPEN)) ? o->lo : -INFINITY, lo, sizeof lo),
             num_text((o->bounds & (RL_HI | RL_HI_OPEN)) ? o->hi : INFINITY, hi, sizeof hi),
             (o->bounds & RL_HI) ? ']' : ')');
    return buf;
}

static void print_range(const rl_opt *o)
{
    char buf[80];
    if (*rl_opt_range_text(o, buf, sizeof buf))
        printf(", range %s", buf);
}

static void print_help(const char *cmd, const char *synopsis, const char *description,
                       const rl_opt *opts)
{
    printf("usage: routelab %s %s\n\n%s\n\nflags:\n", cmd, synopsis, description);
    for (const rl_opt *o = opts; o->type != RL_OPT_END; o++) {
        char name[64];
        const char *arg = o->type == RL_OPT_FLAG ? "" : o->type == RL_OPT_STRING ? " S"
                          : o->type == RL_OPT_DOUBLE ? " X" : o->type == RL_OPT_CHOICE ? " C" : " N";
        snprintf(name, sizeof name, "--%s%s", o->name, arg);
        printf("  %-22s %s (", name, o->help);
        switch (o->type) {
        case RL_OPT_INT: printf("default %d", *(int *)o->dest); break;
        case RL_OPT_LONG: printf("default %ld", *(long *)o->dest); break;
        case RL_OPT_DOUBLE: printf("default %g", *(double *)o->dest); break;
        case RL_OPT_STRING: {
            const char *s = *(const char **)o->dest;
            printf("default %s", s ? s : "none");
            break;
        }
        case RL_OPT_CHOICE: {
            char buf[64];
            printf("one of %s; default %s", o->choices,
                   rl_choice_name(o->choices, *(int *)o->dest, buf, sizeof buf));
            break;
        }
        case RL_OPT_FLAG: printf("default off"); break;
        case RL_OPT_END: break;
        }
        print_range(o);
        printf(")\n");
    }
    printf("  %-22s %s\n", "--help", "print this help and exit");
}

int rl_opt_in_range(const rl_opt *o, double v)
{
    int bad = 0;
    if ((o->bounds & RL_LO) && !(v >= o->lo))
        bad = 1;
    if ((o->bounds & RL_LO_OPEN) && !(v > o->lo))
        bad = 1;
    if ((o->bounds & RL_HI) && !(v <= o->hi))
        bad = 1;
    if ((o->bounds & RL_HI_OPEN) && !(v < o->hi))
        bad = 1;
    return !bad;
}

rl_status rl_opt_check_value(const rl_opt *o, double v, rl_err *err)
{
    char buf[80];
    if (!rl_opt_in_range(o, v))
        return rl_fail(err, RL_EINPUT, "%s %.17g is outside the range %s of --%s", o->name, v,
                       rl_opt_range_text(o, buf, sizeof buf), o->name);
    return RL_OK;
}

static rl_status check_range(const char *cmd, const rl_opt *o, double v, const char *text,
                             rl_err *err)
{
    char buf[80];
    if (!rl_opt_in_range(o, v))
        return rl_fail(err, RL_EINPUT, "%s: --%s %s is out of range %s", cmd, o->name, text,
                       rl_opt_range_text(o, buf, sizeof buf));
    return RL_OK;
}

rl_status rl_opt_set_value(const char *cmd, rl_opt *o, const char *v, rl_err *err)
{
    char *end;
    errno = 0;
    switch (o->type) {
    case RL_OPT_INT:
    case RL_OPT_LONG: {
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || errno)
            return rl_fail(err, RL_EINPUT, "%s: --%s expects an integer, got '%s'", cmd, o->name, v);
        RL_TRY(check_range(cmd, o, (double)x, v, err));
        if (o->type == RL_OPT_INT)
            *(int *)o->dest = (int)x;
        else
            *(long *)o->dest = (long)x;
        break;
    }
    case RL_OPT_DOUBLE: {
        double x = strtod(v, &end);
        /* ERANGE on underflow (1e-308, a subnormal, or 1e-400, rounded to 0)
         * is still a finite number, whatever the range then says; on overflow
         * x is inf and refused as not finite */
        if (end == v || *end || (errno && errno != ERANGE) || !isfinite(x))
            return rl_fail(err, RL_EINPUT, "%s: --%s expects a finite number, got '%s'", cmd,
                           o->name, v);
        RL_TRY(check_range(cmd, o, x, v, err));
        *(double *)o->dest = x;
        break;
    }
    case RL_OPT_STRING:
        if (!*v)
            return rl_fail(err, RL_EINPUT, "%s: --%s expects a non-empty value", cmd, o->name);
        *(const char **)o->dest = v;
        break;
    case RL_OPT_CHOICE: {
        int i = rl_choice_index(o->choices, v);
        if (i < 0)
            return rl_fail(err, RL_EINPUT, "%s: --%s must be one of %s, got '%s'", cmd, o->name,
                           o->choices, v);
        *(int *)o->dest = i;
        break;
    }
    case RL_OPT_FLAG:
    case RL_OPT_END:
        break;
    }
    return RL_OK;
}

rl_status rl_opts_parse_status(const char *cmd, rl_opt *opts, int argc, char **argv, char **pos,
                               int maxpos, int *npos_out, int *help, rl_err *err)
{
    int npos = 0;
    *help = 0;
    *npos_out = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1; /* the rest is not parsed: --help wins over what follows it */
            break;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (npos >= maxpos)
                return rl_fail(err, RL_EINPUT, "%s: unexpected argument '%s' (see routelab %s --help)",
                               cmd, a, cmd);
            pos[npos++] = argv[i];
            continue;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        rl_opt *o = opts;
        for (; o->type != RL_OPT_END; o++)
            if (strlen(o->name) == nlen && strncmp(o->name, name, nlen) == 0)
                break;
        if (o->type == RL_OPT_END)
            return rl_fail(err, RL_EINPUT, "%s: unknown flag --%.*s (see routelab %s --help)", cmd,
                           (int)nlen, name, cmd);
        o->seen = 1;
        if (o->type == RL_OPT_FLAG) {
            if (eq)
                return rl_fail(err, RL_EINPUT, "%s: --%s takes no value", cmd, o->name);
            *(int *)o->dest = 1;
            continue;
        }
        const char *v;
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else
            return rl_fail(err, RL_EINPUT, "%s: --%s needs a value", cmd, o->name);
        RL_TRY(rl_opt_set_value(cmd, o, v, err));
    }
    *npos_out = npos;
    return RL_OK;
}

char *rl_opt_value_text(const rl_opt *o)
{
    char buf[256];
    switch (o->type) {
    case RL_OPT_INT: snprintf(buf, sizeof buf, "%d", *(const int *)o->dest); break;
    case RL_OPT_LONG: snprintf(buf, sizeof buf, "%ld", *(const long *)o->dest); break;
    case RL_OPT_DOUBLE: {
        /* the shortest %g that reads back as the same double: "0.1", not
         * "0.10000000000000001" */
        const double x = *(const double *)o->dest;
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, x);
            if (strtod(buf, NULL) == x)
                break;
        }
        break;
    }
    case RL_OPT_STRING: {
        const char *s = *(const char *const *)o->dest;
        if (!s)
            return NULL;
        char *v = strdup(s); /* whole: a long --lr schedule must compare in full */
        if (!v)
            rl_fatal("out of memory");
        return v;
    }
    case RL_OPT_CHOICE:
        if (*(const int *)o->dest < 0)
            return NULL;
        rl_choice_name(o->choices, *(const int *)o->dest, buf, sizeof buf);
        break;
    case RL_OPT_FLAG:
    case RL_OPT_END:
        return NULL;
    }
    char *v = strdup(buf);
    if (!v)
        rl_fatal("out of memory");
    return v;
}

char *rl_opts_describe(const char *cmd, const rl_opt *opts, char **pos, int npos, int help)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        rl_fatal("out of memory");
    fprintf(f, "command %s\n", cmd);
    for (const rl_opt *o = opts; o->type != RL_OPT_END; o++) {
        if (!strcmp(o->name, RL_OPT_THREADS_NAME))
            continue;
        if (o->type == RL_OPT_FLAG) {
            fprintf(f, "--%s %s\n", o->name, *(const int *)o->dest ? "on" : "off");
            continue;
        }
        char *v = rl_opt_value_text(o);
        fprintf(f, "--%s %s\n", o->name, v ? v : "(none)");
        free(v);
    }
    for (int i = 0; i < npos; i++)
        fprintf(f, "argument %d %s\n", i + 1, pos[i]);
    if (help)
        fprintf(f, "--help\n");
    if (fclose(f) != 0)
        rl_fatal("out of memory");
    return text;
}

int rl_opts_parse(const char *cmd, const char *synopsis, const char *description,
                  rl_opt *opts, int argc, char **argv, char **pos, int maxpos)
{
    int npos, help;
    rl_err err = { RL_OK, "" };
    if (rl_opts_parse_status(cmd, opts, argc, argv, pos, maxpos, &npos, &help, &err) != RL_OK)
        rl_die("%s", err.msg);
    if (rl_job_size() > 1) {
        /* before --help's exit too: a rank that left alone would hang the
         * others in their first exchange */
        char *desc = rl_opts_describe(cmd, opts, pos, npos, help);
        rl_status st = rl_job_same(desc, cmd, &err);
        free(desc);
        rl_check(st, &err);
    }
    if (help) {
        print_help(cmd, synopsis, description, opts);
        exit(0);
    }
    /* the room the command's threads need under `ulimit -v`, before it
     * starts them (OpenBLAS once spun, libgomp ended the
     * program with its own line) */
    for (const rl_opt *o = opts; o->type != RL_OPT_END; o++)
        if (!strcmp(o->name, RL_OPT_THREADS_NAME)) {
            unsigned long long stack;
            rl_check(rl_omp_stacksize(&stack, &err), &err);
            rl_check(rl_blas_room_check(*(const int *)o->dest, stack, &err), &err);
        }
    return npos;
}

int rl_opt_seen(const rl_opt *opts, const char *name)
{
    for (const rl_opt *o = opts; o->type != RL_OPT_END; o++)
        if (strcmp(o->name, name) == 0)
            return o->seen;
    return 0;
}
