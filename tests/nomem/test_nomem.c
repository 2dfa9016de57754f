/* test_nomem.c: when memory runs out, every public call of libroutelab
 * returns RL_ENOMEM with one line, frees what it allocated, and never ends
 * its caller (docs/library-robustness.md#out-of-memory).
 *
 * Each call below is made again and again with its k-th allocation refused,
 * k = 0, 1, 2, ... (failalloc.c), until a run refuses none: then the call
 * has been failed at every allocation it makes on these arguments, and the
 * last run must succeed.  Every failed run must return RL_ENOMEM (not
 * RL_EINPUT, not success with a wrong answer), say "out of memory" in its
 * one line, and leave no allocation of its own alive; a run that exits or
 * aborts the process fails the test (each test is its own process).  The
 * static check (tools/scripts/reach_check.py, `make reach`) proves no public
 * function can reach an exiting allocator; this test proves the failure
 * paths it leaves are sound. */
#include <criterion/criterion.h>
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../api/include/routelab/bounds.h"
#include "../../api/include/routelab/family.h"
#include "../../api/include/routelab/mc.h"
#include "../../api/include/routelab/model.h"
#include "../helpers.h"
#include "failalloc.h"

/* A bound on the allocations one of the small calls below makes: a call
 * that needs more is a loop that allocates per step (the test then says
 * so). */
#define NOMEM_MAX 5000

/* Return a failed status (the library's RL_TRY is internal). */
#define RL_TRY_T(expr)                                                                                             \
    do {                                                                                                           \
        rl_status s_ = (expr);                                                                                     \
        if (s_ != RL_OK)                                                                                           \
            return s_;                                                                                             \
    } while (0)

typedef rl_status (*nomem_call)(void *arg, rl_err *err);

/* The family object of a call, outside the counted allocations (the
 * test's own malloc would be refused too). */
static _Alignas(max_align_t) unsigned char family_room[8192];

static rl_family *family_buf(void)
{
    cr_assert_leq(rl_family_sizeof(), sizeof family_room);
    return (rl_family *)family_room;
}

/* Fail call(arg) at each of its allocations in turn (see the comment at
 * the top).  One unarmed call first, so that the one-time set-up of the
 * libraries below (OpenBLAS's and OpenMP's threads) is not counted. */
static void drive(const char *name, nomem_call call, void *arg)
{
    rl_err e = { 0 };
    cr_assert_eq(call(arg, &e), RL_OK, "%s: unarmed: %s", name, e.msg);
    for (long k = 0; k < NOMEM_MAX; k++) {
        memset(&e, 0, sizeof e);
        fa_arm(k);
        rl_status s = call(arg, &e);
        long count, leaked;
        int refused = fa_disarm(&count, &leaked);
        if (!refused) {
            cr_assert_eq(s, RL_OK, "%s: nothing refused (%ld allocations) but status %d: %s", name, count, s, e.msg);
            cr_assert_eq(leaked, 0, "%s: %ld allocations alive after a successful call", name, leaked);
            return;
        }
        cr_assert_eq(s, RL_ENOMEM, "%s: allocation %ld refused: status %d (%s)", name, k, s, e.msg);
        cr_assert(strstr(e.msg, "out of memory") && !strchr(e.msg, '\n'), "%s: allocation %ld refused: '%s'", name,
                  k, e.msg);
        cr_assert_eq(leaked, 0, "%s: allocation %ld refused: %ld allocations not freed", name, k, leaked);
    }
    cr_assert_fail("%s: more than %d allocations", name, NOMEM_MAX);
}

/* ---- the family surface (family.h, bounds.h) -------------------------- */

static const char *const FAMILIES[] = { "haar", "haar-so", "so2", "token-so2", "householder", "path",
                                        "lazy-haar", "brownian", "cayley" };
#define NFAM ((int)(sizeof FAMILIES / sizeof *FAMILIES))

typedef struct {
    const char *name;
    int d;
} fam_arg;

/* Name a family, set one parameter, and take its norm, window and samples:
 * the allocation paths of the family objects (their workspaces, tables,
 * integrals). */
static rl_status family_calls(void *arg, rl_err *err)
{
    const fam_arg *a = arg;
    rl_family *f = family_buf();
    double norm, w, out[4 * 16 * 16];
    rl_status s = rl_family_named(f, a->name, a->d, err);
    if (s == RL_OK && strcmp(a->name, "so2") == 0)
        s = rl_family_set(f, "angles", "gauss", err);
    if (s == RL_OK)
        s = rl_family_norm(f, -1, &norm, err);
    if (s == RL_OK)
        s = rl_family_window(f, -1, 0.01, &w, err);
    if (s == RL_OK)
        s = rl_sample(f, 4, 7, 2, out, err);
    return s;
}

Test(nomem, family_surface)
{
    for (int i = 0; i < NFAM; i++) {
        fam_arg a = { FAMILIES[i], 8 };
        drive(FAMILIES[i], family_calls, &a);
    }
}

static rl_status forms(void *arg, rl_err *err)
{
    (void)arg;
    const double m[3] = { 10, 100, 1000 }, k[3] = { 4, 4, 8 }, lam[3] = { 1, 2, 3 };
    const double *args[3] = { m, k, lam };
    double out[3];
    RL_TRY_T(rl_form_eval("farmass_lower", args, 3, 3, out, err));
    const double ab[2] = { 1, 0.5 };
    return rl_hoeffding_so2_array(m, 3, ab, 2, out, err);
}

static rl_status mixstay(void *arg, rl_err *err)
{
    (void)arg;
    rl_mixstay_block blocks[4];
    double score[2], curve[64];
    const double complex chi[4] = { 0.5, 0.25, 0.125, 0.0625 };
    RL_TRY_T(rl_mixstay_chi(chi, 4, 8, 16, blocks, curve, err));
    RL_TRY_T(rl_mixstay_law(RL_ANG_UNIFORM, 8, 100, 1, 8, 16, 16, blocks, score, err));
    rl_family *f = family_buf();
    rl_status s = rl_family_named(f, "so2", 8, err);
    if (s == RL_OK)
        s = rl_mixstay_family(f, 8, 16, 16, blocks, score, err);
    return s;
}

Test(nomem, closed_forms_and_mix_or_stay)
{
    drive("rl_form_eval, rl_hoeffding_so2_array", forms, NULL);
    drive("rl_mixstay_chi, _law, _family", mixstay, NULL);
}

/* ---- mc.h ------------------------------------------------------------- */

typedef struct {
    const char *mixing, *farmass; /* rl_mc_mixing_case's and rl_mc_farmass_case's labels */
} mc_arg;

static rl_status mc_calls(void *arg, rl_err *err)
{
    const mc_arg *a = arg;
    rl_family *f = family_buf();
    rl_status s;
    long grid[16];
    int ng;
    unsigned long stream;
    double tr[3], tr_se[3], op[3], coh[3], coh_se[3], sq[3], sq_se[3], chi[2 * 3 * 4], chi_se[3 * 4];
    double nm, se, rate, noise, mn;
    const long g3[3] = { 1, 2, 4 };
    if ((s = rl_mc_route_grid(64, 4, 2, grid, 16, &ng, err)) != RL_OK ||
        (s = rl_mc_mixing_case(a->mixing, 4, f, &stream, err)) != RL_OK ||
        (s = rl_mc_routes(f, g3, 3, 8, 7, stream, 2, tr, tr_se, op, coh, coh_se, sq, sq_se, chi, chi_se, err)) !=
            RL_OK ||
        (s = rl_mc_family_mean(f, 8, 7, stream, &nm, &se, err)) != RL_OK ||
        (s = rl_mc_moment2(f, 50, 7, &rate, &se, &noise, &mn, err)) != RL_OK)
        goto done;
    const double lam[] = { 1, 3 }, slope[] = { 0.25 };
    const long fg[] = { 20, 40 };
    double rho[2 * 2 * 2], mean[8], rse[8], mom[64], sr[64];
    if ((s = rl_mc_farmass_case(a->farmass, 4, f, &stream, err)) != RL_OK)
        goto done;
    s = rl_mc_farmass(f, stream, 4, lam, 2, slope, 1, fg, 2, 10, 2, 7, 2, rho, mean, rse, mom, sr, err);
done:
    return s;
}

Test(nomem, monte_carlo)
{
    mc_arg cases[] = { { "haar", "householder" }, { "householder", "so2-study" }, { "so2-uniform", "none" },
                       { "haar", "so2-circle" } };
    for (int i = 0; i < 4; i++)
        drive(cases[i].mixing, mc_calls, &cases[i]);
}

/* ---- model.h ---------------------------------------------------------- */

/* Load a checkpoint, run it forward, take an attention map, evaluate and
 * probe it on a little text: each model's own allocation paths. */
static rl_status model_calls(void *arg, rl_err *err)
{
    const char *path = arg;
    rl_model *m = NULL;
    RL_TRY_T(rl_model_load(path, &m, err));
    rl_model_info info;
    rl_model_get_info(m, &info);
    static uint16_t tok[256];
    for (int i = 0; i < 256; i++)
        tok[i] = (uint16_t)(i * 7 % info.vocab);
    static float logits[32 * 256], att[4 * 32 * 32];
    const long lens[2] = { 8, 16 };
    rl_model_eval_row rows[2];
    char *p = NULL, *q = NULL;
    rl_status s;
    if ((s = rl_model_forward(m, tok, 32, 0, 2, logits, err)) == RL_OK &&
        (s = rl_model_attention(m, tok, 32, 0, 0, 2, att, err)) == RL_OK &&
        (s = rl_model_eval(m, tok, 256, tok, 256, lens, 2, 16, 7, 2, rows, err)) == RL_OK)
        s = rl_model_probe(m, tok, 256, lens, 2, 2, 7, 2, &p, &q, err);
    rl_model_buffer_free(p);
    rl_model_buffer_free(q);
    rl_model_free(m);
    return s;
}

static rl_status model_data(void *arg, rl_err *err)
{
    (void)arg;
    uint16_t *tr = NULL, *va = NULL;
    long ntr, nva;
    rl_status s = rl_model_data("README.md", 256, &tr, &ntr, &va, &nva, err);
    rl_model_buffer_free(tr);
    rl_model_buffer_free(va);
    return s;
}

Test(nomem, model)
{
    th_to_root(); /* the fixtures' paths are the repository's */
    const char *ckpts[] = { "tools/fuzz/corpus/ckpt/rope", "tools/fuzz/corpus/ckpt/path", "tools/fuzz/corpus/ckpt/lf",
                            "tools/fuzz/corpus/ckpt/pemb-shared", "tools/fuzz/corpus/ckpt/random_qkv_base500",
                            "tools/fuzz/corpus/ckpt/alibi_random" };
    for (int i = 0; i < 6; i++)
        drive(ckpts[i], model_calls, (void *)ckpts[i]);
    drive("rl_model_data", model_data, NULL);
}
