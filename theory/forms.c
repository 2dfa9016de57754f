/* forms.c: the closed forms of <routelab/bounds.h> over arrays, one call per
 * array (rl_form_eval), for callers that hold grids (Python's numpy).  One
 * table names each form once with its argument kinds; the values are the
 * scalar functions', point by point, so a grid gives exactly the numbers of
 * `routelab bound NAME` (docs/library-robustness.md#python-api-docs). */
#include "../api/include/routelab/bounds.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "../base/core/err.h"

typedef double (*f_id)(int, double);
typedef double (*f_dd)(double, double);
typedef double (*f_ddd)(double, double, double);
typedef double (*f_ddddi)(double, double, double, double, int);
typedef long (*f_win)(double, double);

/* kind: the arguments in order, 'i' a C int (given as an integral double),
 * 'd' a double; 'w' marks a window (two doubles, a long result: its codes
 * -1 never and RL_WINDOW_UNDEFINED come back as doubles) */
static const struct {
    const char *name, *kind;
    void (*fn)(void);
} forms[] = {
    { "levy_tail", "id", (void (*)(void))rl_levy_tail },
    { "levy_so_tail", "id", (void (*)(void))rl_levy_so_tail },
    { "beta_tail", "id", (void (*)(void))rl_beta_tail },
    { "beta_coord_cdf", "id", (void (*)(void))rl_beta_coord_cdf },
    { "sphere_log_mgf", "id", (void (*)(void))rl_sphere_log_mgf },
    { "farmass_lower", "ddd", (void (*)(void))rl_farmass_lower },
    { "farmass_lower_log", "ddd", (void (*)(void))rl_farmass_lower_log },
    { "farmass_upper", "ddd", (void (*)(void))rl_farmass_upper },
    { "farmass_range", "ddd", (void (*)(void))rl_farmass_range },
    { "farmass_range_log", "ddd", (void (*)(void))rl_farmass_range_log },
    { "farmass_admissible", "ddd", (void (*)(void))rl_farmass_admissible },
    { "farmass_admissible_log", "ddd", (void (*)(void))rl_farmass_admissible_log },
    { "farmass_half", "dd", (void (*)(void))rl_farmass_half },
    { "farmass_half_log", "dd", (void (*)(void))rl_farmass_half_log },
    { "value_coherent", "dd", (void (*)(void))rl_value_coherent },
    { "farmass_alibi", "ddddi", (void (*)(void))rl_farmass_alibi },
    { "farmass_alibi_log", "ddddi", (void (*)(void))rl_farmass_alibi_log },
    { "mixing_window", "w", (void (*)(void))rl_mixing_window },
    { "mixing_window_log", "w", (void (*)(void))rl_mixing_window_log },
};
#define NFORMS ((int)(sizeof forms / sizeof forms[0]))

/* A C int given as a double: integral and in range, else RL_EINPUT. */
static rl_status as_int(const char *name, int k, long i, double v, int *out, rl_err *err)
{
    if (!(v == floor(v) && v >= INT_MIN && v <= INT_MAX))
        return rl_fail(err, RL_EINPUT, "%s: argument %d at point %ld is %g, not a C int", name, k + 1, i, v);
    *out = (int)v;
    return RL_OK;
}

rl_status rl_form_eval(const char *name, const double *const *args, int nargs, long n, double *out, rl_err *err)
{
    int f = -1;
    for (int i = 0; name && i < NFORMS; i++)
        if (!strcmp(forms[i].name, name))
            f = i;
    if (f < 0)
        return rl_fail(err, RL_EINPUT, "no closed form named '%s'", name ? name : "(null)");
    const char *kind = forms[f].kind;
    const int want = kind[0] == 'w' ? 2 : (int)strlen(kind);
    if (nargs != want)
        return rl_fail(err, RL_EINPUT, "%s takes %d arguments, got %d", name, want, nargs);
    if (n < 0 || (n > 0 && (!args || !out)))
        return rl_fail(err, RL_EINPUT, "%s: %ld points, or no arrays (NULL)", name, n);
    for (int k = 0; k < nargs; k++)
        if (n > 0 && !args[k])
            return rl_fail(err, RL_EINPUT, "%s: argument %d has no array (NULL)", name, k + 1);
    /* the kind decoded once, not at every point */
    enum { K_ID, K_DD, K_DDD, K_DDDDI, K_W } k = !strcmp(kind, "id")    ? K_ID
                                                : !strcmp(kind, "dd")    ? K_DD
                                                : !strcmp(kind, "ddd")   ? K_DDD
                                                : !strcmp(kind, "ddddi") ? K_DDDDI
                                                                         : K_W;
    for (long i = 0; i < n; i++) {
        int a = 0;
        switch (k) {
        case K_ID:
            RL_TRY(as_int(name, 0, i, args[0][i], &a, err));
            out[i] = ((f_id)forms[f].fn)(a, args[1][i]);
            break;
        case K_DD:
            out[i] = ((f_dd)forms[f].fn)(args[0][i], args[1][i]);
            break;
        case K_DDD:
            out[i] = ((f_ddd)forms[f].fn)(args[0][i], args[1][i], args[2][i]);
            break;
        case K_DDDDI:
            RL_TRY(as_int(name, 4, i, args[4][i], &a, err));
            out[i] = ((f_ddddi)forms[f].fn)(args[0][i], args[1][i], args[2][i], args[3][i], a);
            break;
        case K_W:
            out[i] = (double)((f_win)forms[f].fn)(args[0][i], args[1][i]);
            break;
        }
    }
    return RL_OK;
}

rl_status rl_hoeffding_so2_array(const double *t, long n, const double *a, int nb, double *out, rl_err *err)
{
    if (n < 0 || (n > 0 && (!t || !out)) || nb < 1 || !a)
        return rl_fail(err, RL_EINPUT, "hoeffding: %ld points and %d block ranges, or no arrays (NULL)", n, nb);
    for (long i = 0; i < n; i++)
        out[i] = rl_hoeffding_so2(t[i], a, nb);
    return RL_OK;
}
