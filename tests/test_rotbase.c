/* test_rotbase.c: the rotation base B (train --rot-base, rl_gpt_config.rot_base).
 * Every rotation scheme's frequencies are omega_p = B^(-2p/hd): RoPE's table
 * against that formula for several B, and at B = 10000 bit for bit the table
 * of the formula routelab used before B was a setting; pemb's steps and
 * random's noise scale with omega_p(B) exactly; gradients hold at another B;
 * checkpoints keep B (version 3), a model of B = 10000 is still written in
 * version 2 (the old format, byte for byte what train wrote before), and a
 * version-2 file loads as B = 10000; train, eval and resume through the CLI.
 * Bad --rot-base values: tests/test_badinput.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/util.h"
#include "../model/ckpt.h"
#include "../model/gpt.h"
#include "../model/position.h"
#include "../model/scheme_rot.h"
#include "helpers.h"
#include "test_model_util.h"

/* width 16, 2 heads: hd 8, 4 blocks */
static rl_gpt *model_of(const char *pos, int T, double base)
{
    rl_gpt_config cfg = { 1, 16, 2, T, 13, 0.0f, tm_pos(pos), base };
    rl_gpt *m = rl_gpt_alloc(&cfg, 1);
    cr_assert(m, "%s base %g refused", pos, base);
    rl_gpt_init(m, 3);
    return m;
}

/* Layer 0's table of scheme state ss after prepare (rope: after layout). */
static rl_rotation table_of(rl_gpt *m, rl_scheme_state *ss, const uint16_t *tok, long T,
                            uint64_t key)
{
    rl_scheme_state_alloc(ss, &m->sx, 1, T, 1);
    float ln = 0; /* rope, random and pemb ignore the LN1 output */
    if (m->sx.s->prepare)
        m->sx.s->prepare(ss->st, &m->sx, 0, &ln, tok, T, 1, (int)T, key, NULL);
    return ((const rl_rot_state *)ss->st)->tab;
}

/* RoPE: angle(t, p) = t B^(-2p/hd) against a long-double recomputation, for
 * bases far apart (the slowest block of B = 1.5 turns at 0.74 rad per
 * position, of B = 1e8 at 1e-6); at B = 10000 the table equals, bit for bit,
 * the one of the formula before B was a setting (pow(10000, -2p/hd)). */
Test(rotbase, rope_angles_follow_the_base)
{
    const long T = 4096;
    const int hd = 8, P = 4;
    const double bases[] = { 10000, 500, 1.5, 1e8 };
    float *c = malloc(sizeof(float) * T * P), *s = malloc(sizeof(float) * T * P);
    for (int k = 0; k < 4; k++) {
        rl_rope_table(c, s, 0, T, hd, bases[k]);
        double worst = 0;
        for (long t = 0; t < T; t++)
            for (int p = 0; p < P; p++) {
                long double a = (long double)t * powl((long double)bases[k], -2.0L * p / hd);
                worst = fmax(worst, fabs((double)(cosl(a) - c[t * P + p])));
                worst = fmax(worst, fabs((double)(sinl(a) - s[t * P + p])));
            }
        cr_log_info("rope base %g: max |cos, sin - long double| %.2e", bases[k], worst);
        cr_expect_lt(worst, 3e-7, "base %g: %g", bases[k], worst);
        /* the model's own table (scheme_rot.c's layout) is the same */
        rl_gpt *m = model_of("rope", 64, bases[k]);
        rl_scheme_state ss;
        rl_rotation r = table_of(m, &ss, NULL, T, 0);
        cr_expect(!memcmp(r.cos, c, sizeof(float) * T * P) && !memcmp(r.sin, s, sizeof(float) * T * P),
                  "base %g: the model's table is not rl_rope_table's", bases[k]);
        rl_scheme_state_free(&ss);
        rl_gpt_free(m);
    }
    /* B = 10000: the formula of the code before, the same floats */
    rl_rope_table(c, s, 70000, T, hd, 10000);
    long diff = 0;
    for (long t = 0; t < T; t++)
        for (int p = 0; p < P; p++) {
            double a = fmod((double)(t + 70000) * pow(10000.0, -2.0 * p / hd), 2 * M_PI);
            diff += c[t * P + p] != (float)cos(a) || s[t * P + p] != (float)sin(a);
        }
    cr_expect_eq(diff, 0, "%ld entries differ from the old formula's", diff);
    free(c);
    free(s);
}

/* The angle of a table entry, in (-pi, pi]. */
static double angle_at(const rl_rotation *r, long t, int h, int p)
{
    const long i = t * r->st + h * r->sh + p;
    return atan2((double)r->sin[i], (double)r->cos[i]);
}

/* pemb with E = 0 steps by omega_p: A_t = t omega_p(B) for the base of the
 * model; the first step of every closed-law scheme of the registry (random:
 * U omega_p, random_pos: (1 + U) omega_p) has U from the key's stream, the
 * same U for any B, so the ratio of two bases' first angles is exactly
 * omega_p(B1) / omega_p(B2) = (B2 / B1)^(2p/hd), and the step lies within
 * the law's half-width of its centre (rl_scheme_steps). */
Test(rotbase, accumulated_schemes_scale_with_the_base)
{
    const long T = 256;
    const int hd = 8, P = 4;
    uint16_t tok[256];
    for (long i = 0; i < T; i++)
        tok[i] = (uint16_t)((i * 7 + 3) % 13);
    const double bases[] = { 10000, 300 };
    for (int k = 0; k < 2; k++) {
        rl_gpt *m = model_of("pemb_qk", T, bases[k]);
        memset(m->p.pos[0], 0, sizeof(float) * (size_t)rl_pos_param_count(&m->cfg));
        rl_scheme_state ss;
        rl_rotation r = table_of(m, &ss, tok, T, 0);
        double worst = 0;
        for (long t = 0; t < T; t++)
            for (int p = 0; p < P; p++) {
                long double a = (long double)t * powl((long double)bases[k], -2.0L * p / hd);
                worst = fmax(worst, fabs((double)(cosl(a) - r.cos[t * r.st + p])));
                worst = fmax(worst, fabs((double)(sinl(a) - r.sin[t * r.st + p])));
            }
        cr_log_info("pemb at E = 0, base %g: max |cos, sin - t omega_p| %.2e", bases[k], worst);
        cr_expect_lt(worst, 3e-7, "pemb base %g: %g", bases[k], worst);
        rl_scheme_state_free(&ss);
        rl_gpt_free(m);
    }
    int closed = 0;
    for (const rl_scheme *const *s = rl_schemes; *s; s++)
        for (int mode = 0; mode < 2 && (*s)->steps_kind == RL_STEPS_CLOSED; mode++, closed++) {
            const char *name = (*s)->names[0][mode];
            rl_gpt *a = model_of(name, T, 10000), *b = model_of(name, T, 300);
            rl_scheme_state sa, sb;
            rl_rotation ra = table_of(a, &sa, tok, T, 77), rb = table_of(b, &sb, tok, T, 77);
            double cen[2 * 4], hw[2 * 4]; /* the law at base 300: H P lanes */
            rl_scheme_steps(&b->sx, 0, NULL, tok, 1, cen, hw);
            double worst = 0;
            int checked = 0;
            for (int h = 0; h < 2; h++)
                for (int p = 0; p < P; p++) {
                    const double x = angle_at(&ra, 1, h, p), y = angle_at(&rb, 1, h, p);
                    const double want = pow(10000.0 / 300.0, -2.0 * p / hd);
                    cr_expect(fabs(hw[h * P + p] - pow(300.0, -2.0 * p / hd)) < 1e-15, "half-width omega_p");
                    cr_expect(fabs(y - cen[h * P + p]) < hw[h * P + p] + 1e-7, "%s: a step outside its law", name);
                    if (fabs(y) < 1e-5) /* float cos, sin: too few digits of a tiny angle */
                        continue;
                    worst = fmax(worst, fabs(x / y / want - 1));
                    checked++;
                }
            cr_log_info("%s: first-step ratio of bases 10000 / 300 against (300/10000)^(2p/hd): max "
                        "relative error %.2e over %d lanes", name, worst, checked);
            cr_expect_geq(checked, 4);
            cr_expect_lt(worst, 1e-4, "%s: %g", name, worst);
            rl_scheme_state_free(&sa);
            rl_scheme_state_free(&sb);
            rl_gpt_free(a);
            rl_gpt_free(b);
        }
    cr_expect_geq(closed, 4, "random and random_pos, qk and qkv");
}

/* The finite-difference check of the whole model at a base other than the
 * study's, for RoPE and for pemb (whose steps add omega_p). */
Test(rotbase, gradients_at_another_base, .timeout = 120)
{
    tm_check_model_base(tm_pos("rope"), 0.0f, 37.0);
    tm_check_model_base(tm_pos("pemb_qk"), 0.0f, 37.0);
}

/* ---- checkpoints ---- */

#define CK_HEADER (8 + 8 * 22 + 128) /* magic, 22 fields, lr: ckpt.h's version 2 */

static rl_gpt *saved(const char *path, double base)
{
    rl_gpt *m = model_of("random_qkv", 8, base);
    tm_randn(m->params, m->nparams, 5, 0.1f);
    rl_ckpt_meta meta = { 0, 10, 1, 1, 7, "1e-3", 1, 1, 100, 0 };
    rl_err err;
    cr_assert_eq(rl_ckpt_save(path, m, &meta, &err), RL_OK, "%s", err.msg);
    return m;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    char *b = rl_read_file(path, n);
    cr_assert(b, "cannot read %s", path);
    return (unsigned char *)b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* The trailing checksum of b (n bytes, a header of hn, np parameters)
 * recomputed: FNV-1a-64 chained over header, parameters and moments (it
 * works a word at a time, so the parts are hashed as ckpt.c hashes them). */
static void fix_sum(unsigned char *b, size_t n, size_t hn, size_t np)
{
    uint64_t s = rl_fnv64(RL_FNV64_INIT, b, hn);
    s = rl_fnv64(s, b + hn, 4 * np);
    s = rl_fnv64(s, b + hn + 4 * np, 8 * np);
    cr_assert_eq(hn + 12 * np + 8, n);
    memcpy(b + n - 8, &s, 8);
}

static int64_t version_of(const unsigned char *b)
{
    int64_t v;
    memcpy(&v, b + 8, 8);
    return v;
}

/* A base survives save and load exactly; B = 10000 is written in version 2
 * (no extension: the layout of the format before B), another B in version
 * 3 (8 bytes more); version 2 loads as 10000; a stored base out of (1, inf)
 * or not finite is refused as corrupt. */
Test(rotbase, checkpoint_keeps_the_base)
{
    char *d = th_tmpdir(), *p2 = th_path(d, "b10000.bin"), *p3 = th_path(d, "b1260.bin");
    char *old = th_path(d, "old.bin"), *bad = th_path(d, "bad.bin");
    rl_gpt *m2 = saved(p2, 10000), *m3 = saved(p3, 1260.5);
    const size_t np = (size_t)m3->nparams;
    size_t n2, n3;
    unsigned char *b2 = slurp(p2, &n2), *b3 = slurp(p3, &n3);
    cr_expect_eq(version_of(b2), 2);
    cr_expect_eq(n2, CK_HEADER + 12 * np + 8, "version 2 is the old layout");
    cr_expect_eq(version_of(b3), 3);
    cr_expect_eq(n3, CK_HEADER + 8 + 12 * np + 8);
    rl_gpt *l;
    rl_ckpt_meta mt;
    rl_err err;
    cr_assert_eq(rl_ckpt_load(p3, 0, &l, &mt, &err), RL_OK, "%s", err.msg);
    cr_expect(l->cfg.rot_base == 1260.5, "base %.17g", l->cfg.rot_base);
    cr_expect(!memcmp(l->params, m3->params, sizeof(float) * np));
    rl_gpt_free(l);
    cr_assert_eq(rl_ckpt_load(p2, 0, &l, &mt, &err), RL_OK, "%s", err.msg);
    cr_expect(l->cfg.rot_base == 10000);
    rl_gpt_free(l);
    /* the version-3 file rewritten as version 2 (extension cut): base 10000 */
    unsigned char *b = malloc(n3);
    memcpy(b, b3, CK_HEADER);
    memcpy(b + CK_HEADER, b3 + CK_HEADER + 8, n3 - CK_HEADER - 8);
    const int64_t two = 2;
    memcpy(b + 8, &two, 8);
    fix_sum(b, n3 - 8, CK_HEADER, np);
    spit(old, b, n3 - 8);
    cr_assert_eq(rl_ckpt_load(old, 0, &l, &mt, &err), RL_OK, "%s", err.msg);
    cr_expect(l->cfg.rot_base == 10000, "a version-2 file: base %g", l->cfg.rot_base);
    cr_expect(!memcmp(l->params, m3->params, sizeof(float) * np));
    rl_gpt_free(l);
    /* stored bases outside (1, inf), checksum fixed */
    const double wrong[] = { 1.0, 0.5, -3, NAN, INFINITY, 0 };
    for (int i = 0; i < 6; i++) {
        memcpy(b, b3, n3);
        memcpy(b + CK_HEADER, &wrong[i], 8);
        fix_sum(b, n3, CK_HEADER + 8, np);
        spit(bad, b, n3);
        cr_expect_eq(rl_ckpt_load(bad, 0, &l, &mt, &err), RL_EINPUT, "base %g loaded", wrong[i]);
        cr_expect(strstr(err.msg, "corrupt") && (strstr(err.msg, "rot-base") || strstr(err.msg, "rotation base")),
                  "base %g: %s", wrong[i], err.msg);
    }
    /* version 3 cut short of its extension */
    spit(bad, b3, CK_HEADER + 4);
    cr_expect_eq(rl_ckpt_load(bad, 0, &l, &mt, &err), RL_EINPUT);
    cr_expect(strstr(err.msg, "truncated"), "%s", err.msg);
    free(b);
    free(b2);
    free(b3);
    rl_gpt_free(m2);
    rl_gpt_free(m3);
    th_rmdir(d);
}

/* ---- the CLI ---- */

#define TINY "--layers 1 --width 16 --heads 2 --ctx 16 --batch 2 --steps 4 --val-every 2 " \
             "--val-batches 2 --threads 1"

static int run_ok(const char *args, char *out, size_t n)
{
    char err[2048];
    int st = th_run(args, out, n, err, sizeof err);
    cr_expect_eq(st, 0, "routelab %s: status %d: %s", args, st, err);
    return st;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = rl_read_file(a, &na), *y = rl_read_file(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

/* Without --rot-base and with --rot-base 10000 train writes the same bytes
 * (version 2, the old format) and eval the same eval.tsv, for RoPE and a
 * noisy scheme; another base trains another model, which eval reads with its
 * base from the checkpoint (eval takes no position flag that could disagree)
 * and resume keeps it; a resume asking for another base is refused. */
Test(rotbase, cli_train_eval_resume, .timeout = 120)
{
    char *d = th_tmpdir(), *txt = th_path(d, "t.txt"), args[4096], out[8192], err[2048];
    th_write_text(txt, 120);
    const char *schemes[] = { "rope", "random_qkv" };
    for (int k = 0; k < 2; k++) {
        const char *flag[] = { "", "--rot-base 10000", "--rot-base 500" };
        char *dir[3], *ck[3], *ev[3];
        for (int i = 0; i < 3; i++) {
            char name[32];
            snprintf(name, sizeof name, "%s%d", schemes[k], i);
            dir[i] = th_path(d, name);
            ck[i] = th_path(dir[i], "ckpt.bin");
            ev[i] = th_path(dir[i], "eval.tsv");
            snprintf(args, sizeof args, "train --data %s --out %s --pos %s %s " TINY, txt, dir[i],
                     schemes[k], flag[i]);
            run_ok(args, out, sizeof out);
            snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 16,32 --threads 1", ck[i], txt);
            run_ok(args, out, sizeof out);
            const char *want = i == 2 ? "rotation base 500," : "rotation base 10000,";
            cr_expect(strstr(out, want), "%s: eval says: %s", flag[i], out);
        }
        cr_expect(same_file(ck[0], ck[1]), "%s: --rot-base 10000 changed the checkpoint", schemes[k]);
        cr_expect(same_file(ev[0], ev[1]), "%s: --rot-base 10000 changed eval.tsv", schemes[k]);
        cr_expect(!same_file(ev[0], ev[2]), "%s: base 500 evaluates like 10000", schemes[k]);
        size_t n;
        unsigned char *b = slurp(ck[0], &n);
        cr_expect_eq(version_of(b), 2);
        free(b);
        b = slurp(ck[2], &n);
        cr_expect_eq(version_of(b), 3);
        free(b);
        /* resume: the checkpoint's base, and no other */
        const char *o = dir[2];
        snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 6 --threads 1", txt, o);
        run_ok(args, out, sizeof out);
        cr_expect(strstr(out, "(rotation base 500)"), "resume: %s", out);
        snprintf(args, sizeof args, "train --data %s --out %s --resume --steps 8 --rot-base 600", txt, o);
        int st = th_run(args, NULL, 0, err, sizeof err);
        cr_expect_eq(st, 2);
        cr_expect(th_lines(err) == 1 && strstr(err, "--rot-base 600 does not match the checkpoint's 500"),
                  "%s", err);
        for (int i = 0; i < 3; i++) {
            free(dir[i]);
            free(ck[i]);
            free(ev[i]);
        }
    }
    /* eval and probe take the base from the checkpoint: no such flag */
    cr_assert_eq(th_run("eval --help", out, sizeof out, NULL, 0), 0);
    cr_expect(!strstr(out, "--rot-base"), "eval has a --rot-base: %s", out);
    cr_assert_eq(th_run("probe --help", out, sizeof out, NULL, 0), 0);
    cr_expect(!strstr(out, "--rot-base"), "probe has a --rot-base: %s", out);
    th_rmdir(d);
}

/* Checkpoints written before the base existed: tools/fuzz/corpus/ckpt/ holds
 * one-step runs of tiny models (tools/fuzz/make_seeds.sh) committed by the code
 * of version 2.  Each loads with base 10000 and evaluates; train with the
 * same flags, with and without --rot-base 10000, writes the same header
 * and size (the old format) and the same parameters (bit for bit on the
 * machine that made them; to float rounding where another BLAS kernel
 * runs).  The version-3 seed of the corpus loads with its base 500. */
Test(rotbase, checkpoints_of_the_old_code, .timeout = 60)
{
    /* pemb-shared: the pemb of version 2 (code RL_ROT_PEMB, docs/model/schemes.md#pemb-author) */
    const char *names[] = { "rope", "pemb-shared", "lf", "path", "alibi+random", "fixed-rope" };
    char *d = th_tmpdir(), *ids = th_path(d, "d.bin"), args[2048], out[8192];
    uint16_t tok[64];
    for (int i = 0; i < 64; i++) /* make_seeds.sh's token file */
        tok[i] = (uint16_t)((7 * i * i + 3 * i) % 4);
    spit(ids, (const unsigned char *)tok, sizeof tok);
    for (int i = 0; i < 6; i++) {
        char fx[128], name[64];
        snprintf(name, sizeof name, "%s", names[i]);
        for (char *c = name; *c; c++)
            *c = *c == '+' ? '_' : *c;
        snprintf(fx, sizeof fx, "tools/fuzz/corpus/ckpt/%s", name);
        size_t no;
        unsigned char *old = slurp(fx, &no);
        cr_expect_eq(version_of(old), 2, "%s", fx);
        rl_gpt *m;
        rl_ckpt_meta mt;
        rl_err err;
        cr_assert_eq(rl_ckpt_load(fx, 0, &m, &mt, &err), RL_OK, "%s", err.msg);
        cr_expect(m->cfg.rot_base == 10000, "%s: base %g", fx, m->cfg.rot_base);
        snprintf(args, sizeof args, "eval --ckpt %s --data %s --lengths 4,5 --batches 1 --out %s/e%d.tsv --threads 1",
                 fx, ids, d, i);
        run_ok(args, out, sizeof out);
        cr_expect(strstr(out, "rotation base 10000,"), "%s", out);
        for (int k = 0; k < 2; k++) {
            snprintf(args, sizeof args, "train --data %s --vocab 4 --width 4 --heads 2 --layers 1 --ctx 4 "
                     "--batch 1 --steps 1 --val-every 1 --val-batches 1 --pos %s --out %s/%s%d %s",
                     ids, names[i], d, name, k, k ? "--rot-base 10000" : "");
            run_ok(args, out, sizeof out);
            char ck[512];
            snprintf(ck, sizeof ck, "%s/%s%d/ckpt.bin", d, name, k);
            size_t nn;
            unsigned char *now = slurp(ck, &nn);
            cr_expect_eq(nn, no, "%s: %zu bytes, the old code wrote %zu", ck, nn, no);
            cr_expect(nn == no && !memcmp(now, old, CK_HEADER), "%s: header differs from %s", ck, fx);
            double worst = 0;
            for (size_t j = CK_HEADER; nn == no && j + 4 <= (size_t)m->nparams * 4 + CK_HEADER; j += 4) {
                float a, b;
                memcpy(&a, now + j, 4);
                memcpy(&b, old + j, 4);
                worst = fmax(worst, fabs((double)a - b));
            }
            cr_log_info("%s: %s the old code's file; parameters within %.1e", ck,
                        nn == no && !memcmp(now, old, nn) ? "bit for bit" : "not bit for bit", worst);
            cr_expect_lt(worst, 1e-5, "%s", ck);
            free(now);
        }
        rl_gpt_free(m);
        free(old);
    }
    rl_gpt *m;
    rl_ckpt_meta mt;
    rl_err err;
    cr_assert_eq(rl_ckpt_load("tools/fuzz/corpus/ckpt/random_qkv_base500", 0, &m, &mt, &err), RL_OK, "%s", err.msg);
    cr_expect(m->cfg.rot_base == 500);
    rl_gpt_free(m);
    free(ids);
    th_rmdir(d);
}
