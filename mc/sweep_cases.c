/* sweep_cases.c: every experiment's cases, one table (sweep_cases.h).
 *
 * The slots are history: each case keeps the slot, hence the random
 * stream, it had when the experiment first ran it, so that every committed
 * TSV keeps its bytes.  A new case takes a fresh slot 64 + 4 k + j (k < 64
 * unused by the cases below, j < 4): cayley's 96 is k = 8, j = 0, the
 * stream it was first committed with. */
#include "sweep_cases.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/core/streams.h"
#include "../sampling/family_ops.h"

/* A parameter that follows the dimension: Brownian steps of size
 * sigma = 1/sqrt(d), so that sigma^2 (d-1)/2 ~ 1/2, a window of ~9 steps at
 * every d (concentration's case). */
static void sigma_inv_sqrt_d(rl_family *f)
{
    f->sigma = 1.0 / sqrt((double)f->d);
}

typedef struct {
    rl_sweep sweep;
    const char *family;   /* registry name */
    const char *label;
    const char *settings; /* "key=value ...", rl_family_set's keys and values */
    void (*tune)(rl_family *f); /* a parameter that depends on d (NULL: none) */
    int slot;
    long n;
    int in_default, small, baseline;
} case_row;

#define M_ RL_SWEEP_MIXING
#define C_ RL_SWEEP_CONCENTRATION
#define F_ RL_SWEEP_FARMASS
#define V_ RL_SWEEP_VALUES
#define S_ RL_SWEEP_SCOREGAP

static const case_row rows[] = {
    /* mixing: one case per family, every angle law of so2 (slots 6..11) */
    { M_, "haar", "haar", "", NULL, 0, 0, 1, 0, 0 },
    { M_, "haar-so", "haar-so", "", NULL, 1, 0, 1, 0, 0 },
    { M_, "householder", "householder", "", NULL, 2, 0, 1, 0, 0 },
    { M_, "path", "path-beta1", "beta=1", NULL, 3, 0, 1, 0, 0 },
    { M_, "lazy-haar", "lazy-haar-p0.1", "p=0.1", NULL, 4, 0, 1, 0, 0 },
    { M_, "brownian", "brownian-s0.1", "sigma=0.1", NULL, 5, 0, 1, 0, 0 },
    { M_, "so2", "so2-constant", "angles=constant", NULL, 6, 0, 1, 0, 0 },
    { M_, "so2", "so2-uniform", "angles=uniform", NULL, 7, 0, 1, 0, 0 },
    { M_, "so2", "so2-pm", "angles=pm", NULL, 8, 0, 1, 0, 0 },
    { M_, "so2", "so2-gauss", "angles=gauss", NULL, 9, 0, 1, 0, 0 },
    { M_, "so2", "so2-circle", "angles=circle", NULL, 10, 0, 1, 0, 0 },
    { M_, "so2", "so2-drift", "angles=drift", NULL, 11, 0, 1, 0, 0 },
    { M_, "cayley", "cayley-s0.1", "sigma=0.1", NULL, 96, 0, 1, 0, 0 },
    /* concentration: the circle law beyond its window of 1 (16 steps) and
     * the study's U(-w_b, w_b) at 65,536 steps; the others over their
     * mixing windows (n 0) */
    { C_, "householder", "householder", "", NULL, 0, 0, 1, 0, 0 },
    { C_, "lazy-haar", "lazy-haar-p0.1", "p=0.1", NULL, 1, 0, 1, 0, 0 },
    { C_, "brownian", "brownian", "", sigma_inv_sqrt_d, 2, 0, 1, 0, 0 },
    { C_, "path", "path-beta1", "beta=1", NULL, 3, 0, 1, 0, 0 },
    { C_, "so2", "so2-circle", "angles=circle", NULL, 4, 16, 1, 0, 0 },
    { C_, "so2", "so2-study-65536", "angles=uniform", NULL, 5, 65536, 1, 0, 0 },
    /* farmass: NoPE (no transport) is the baseline row 0 */
    { F_, "identity", "none", "", NULL, 0, 0, 1, 0, 1 },
    { F_, "householder", "householder", "", NULL, 1, 0, 1, 0, 0 },
    { F_, "so2", "so2-circle", "angles=circle", NULL, 2, 0, 1, 0, 0 },
    { F_, "so2", "so2-study", "angles=uniform", NULL, 3, 0, 1, 0, 0 },
    /* values: no value transport is the baseline row 0; Haar is O(d^3) a
     * step, run at the experiment's small size */
    { V_, "identity", "none", "", NULL, 0, 0, 1, 0, 1 },
    { V_, "so2", "so2-circle", "angles=circle", NULL, 1, 0, 1, 0, 0 },
    { V_, "so2", "so2-study", "angles=uniform", NULL, 2, 0, 1, 0, 0 },
    { V_, "householder", "householder", "", NULL, 3, 0, 1, 0, 0 },
    { V_, "haar", "haar", "", NULL, 4, 0, 1, 1, 0 },
    /* scoregap: first far distances delta0: householder's from its mixing
     * window (n 0); the circle law's window is 1, so 64; the study's 512,
     * beyond a 512-token training context (its slow blocks never mix) */
    { S_, "householder", "householder", "", NULL, 0, 0, 1, 0, 0 },
    { S_, "so2", "so2-circle", "angles=circle", NULL, 1, 64, 1, 0, 0 },
    { S_, "so2", "so2-study", "angles=uniform", NULL, 2, 512, 1, 0, 0 },
};

#undef M_
#undef C_
#undef F_
#undef V_
#undef S_

#define NROWS ((int)(sizeof rows / sizeof *rows))

unsigned long rl_sweep_case_stream(rl_sweep s, int slot)
{
    /* each sweep's domain, in rl_sweep order (streams.h) */
    static const unsigned long domain[RL_SWEEP_COUNT] = { RL_STREAM_MIX_FAMILY, RL_STREAM_CONC_FAMILY,
                                                          RL_STREAM_FARMASS, RL_STREAM_VALUES,
                                                          RL_STREAM_GAP_FAMILY };
    if (slot < 64)
        return domain[s] + (unsigned long)slot;
    const unsigned k = (unsigned)(slot - 64) / 4, j = (unsigned)(slot - 64) % 4;
    return RL_STREAM_FAMILY_FRESH + 256UL * k + 16UL * (unsigned)s + j;
}

/* row r as a case at dimension d (its settings through the library's own
 * setter: one parser and one range per parameter) */
static rl_status case_of(const case_row *r, int d, rl_sweep_case *c, rl_err *err)
{
    rl_family f;
    char buf[128];
    RL_TRY(rl_family_named(&f, r->family, d, err));
    snprintf(buf, sizeof buf, "%s", r->settings);
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return rl_fail(err, RL_EINTERNAL, "sweep case %s: setting '%s' has no '='", r->label, kv);
        *eq = '\0';
        RL_TRY(rl_family_set(&f, kv, eq + 1, err));
    }
    if (r->tune)
        r->tune(&f);
    *c = (rl_sweep_case){ r->label, f, r->slot, rl_sweep_case_stream(r->sweep, r->slot), r->n,
                          r->in_default, r->small, r->baseline };
    return RL_OK;
}

int rl_sweep_has_family(rl_sweep s, int k, int only_default)
{
    for (int i = 0; i < NROWS; i++)
        if (rows[i].sweep == s && !rows[i].baseline && (!only_default || rows[i].in_default) &&
            rl_family_lookup(rows[i].family) == k)
            return 1;
    return 0;
}

int rl_sweep_rows(rl_sweep s, int only_default)
{
    int n = 0;
    for (int i = 0; i < NROWS; i++)
        n += rows[i].sweep == s && (!only_default || rows[i].in_default);
    return n;
}

rl_status rl_sweep_case_named(rl_sweep s, const char *label, int d, rl_sweep_case *c, rl_err *err)
{
    for (int pass = 0; pass < 2; pass++) /* labels first, then family names */
        for (int i = 0; i < NROWS; i++)
            if (rows[i].sweep == s && !strcmp(pass ? rows[i].family : rows[i].label, label))
                return case_of(&rows[i], d, c, err);
    char known[1024] = "";
    for (int i = 0, k = 0; i < NROWS; i++)
        if (rows[i].sweep == s)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k++ ? " " : "", rows[i].label);
    return rl_fail(err, RL_EINPUT, "unknown case '%s' (one of %s)", label, known);
}

/* whether `name` is one of the comma-separated names of list */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* every name of the subset must be a family, named once, with a case in s;
 * an empty name (",", "a,,b", a trailing comma) is a malformed list */
static rl_status check_subset(rl_sweep s, const char *families, rl_err *err)
{
    int named[RL_FAM_COUNT] = { 0 };
    for (const char *p = families;;) {
        const char *e = strchr(p, ',');
        char name[64];
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0)
            return rl_fail(err, RL_EINPUT, "an empty name in the family list '%s'", families);
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
        int kind = rl_family_lookup(name);
        if (kind < 0)
            return rl_fail(err, RL_EINPUT, "unknown family '%s' (one of %s)", name, RL_FAMILY_NAMES);
        if (named[kind]++)
            return rl_fail(err, RL_EINPUT, "family '%s' is named twice", name);
        if (!rl_sweep_has_family(s, kind, 0))
            return rl_fail(err, RL_EINPUT, "family '%s' has no case in this sweep", name);
        if (!e)
            return RL_OK;
        p = e + 1;
    }
}

rl_status rl_sweep_cases(rl_sweep s, int d, const char *families, rl_sweep_case *out, int max, int *n,
                         rl_err *err)
{
    const int subset = families && *families;
    if (subset)
        RL_TRY(check_subset(s, families, err));
    int k = 0;
    for (int i = 0; i < NROWS; i++) {
        const case_row *r = &rows[i];
        if (r->sweep != s || (subset ? !r->baseline && !listed(families, r->family) : !r->in_default))
            continue;
        if (k == max)
            return rl_fail(err, RL_EINTERNAL, "more than %d cases in one sweep", max);
        rl_sweep_case c;
        RL_TRY(case_of(r, d, &c, err));
        /* insertion by slot: the sweep's order is the slots' */
        int at = k++;
        while (at > 0 && out[at - 1].slot > c.slot) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = c;
    }
    *n = k;
    return RL_OK;
}
