/* test_tokfile.c: a data set's files are one set (base/core/tokfile.h): `data
 * text` writes the set's identity into both headers, a folder whose
 * train.bin and val.bin come from two writes is refused in one line, and
 * files without an identity (older sets, nanoGPT's) still load. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/core/tokfile.h"
#include "../model/data.h"
#include "helpers.h"

static void text_set(const char *dir, const char *name, int variant)
{
    char *txt = th_path(dir, "t.txt"), line[1024], out[512], err[512];
    FILE *f = fopen(txt, "w");
    cr_assert(f);
    for (int i = 0; i < 300; i++)
        fprintf(f, "line %d of set %d\n", i, variant);
    fclose(f);
    snprintf(line, sizeof line, "data text %s --out %s/%s", txt, dir, name);
    cr_assert_eq(th_run(line, out, sizeof out, err, sizeof err), 0, "%s", err);
    free(txt);
}

static rl_status load(const char *dir, const char *name, rl_err *e)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    rl_dataset d;
    rl_status s = rl_data_load(p, 256, &d, e);
    if (s == RL_OK)
        rl_data_free(&d);
    return s;
}

Test(tokfile, a_data_set_carries_its_identity_and_a_mixed_one_is_refused)
{
    char *d = th_tmpdir(), cmd[1024], out[256], err[512];
    text_set(d, "a", 1);
    text_set(d, "b", 2);
    rl_err e = { 0 };
    cr_assert_eq(load(d, "a", &e), RL_OK, "%s", e.msg);
    /* both headers name one set, which is the identity of their tokens */
    char p[512];
    rl_tokens tr, va;
    snprintf(p, sizeof p, "%s/a/train.bin", d);
    cr_assert_eq(rl_tokens_read(p, 256, &tr, &e), RL_OK);
    snprintf(p, sizeof p, "%s/a/val.bin", d);
    cr_assert_eq(rl_tokens_read(p, 256, &va, &e), RL_OK);
    cr_expect_neq(tr.id.set, 0);
    cr_expect_eq(tr.id.set, va.id.set);
    cr_expect_eq(tr.id.tokenizer, 0);
    cr_expect_eq(rl_tokens_set_id(&tr, &va, NULL, 0).set, tr.id.set);
    /* b's val.bin beside a's train.bin: what a kill between two renames of
     * a rerun leaves */
    snprintf(cmd, sizeof cmd, "--help >/dev/null; cp %s/b/val.bin %s/a/val.bin", d, d);
    cr_assert_eq(th_run(cmd, out, sizeof out, err, sizeof err), 0, "%s", err);
    cr_expect_eq(load(d, "a", &e), RL_EINPUT);
    cr_expect(strstr(e.msg, "not one data set") && !strchr(e.msg, '\n'), "%s", e.msg);
    snprintf(cmd, sizeof cmd, "train --data %s/a --out %s/m --layers 1 --width 16 --heads 2 --ctx 8 --steps 1", d, d);
    cr_expect_eq(th_run(cmd, out, sizeof out, err, sizeof err), 2, "train on a mixed set: %s", err);
    cr_expect(strstr(err, "not one data set"), "%s", err);
    /* the same tokens written with another set's identity: refused too */
    rl_tokens_id wrong = { va.id.set ^ 2, 0 };
    snprintf(p, sizeof p, "%s/a/val.bin", d);
    cr_assert_eq(rl_tokens_write(p, va.tok, va.n, &wrong, &e), RL_OK);
    snprintf(p, sizeof p, "%s/a/train.bin", d);
    cr_assert_eq(rl_tokens_write(p, tr.tok, tr.n, &wrong, &e), RL_OK);
    cr_expect_eq(load(d, "a", &e), RL_EINPUT, "an identity the tokens do not have");
    /* files without an identity (an older set) load as before */
    cr_assert_eq(rl_tokens_write(p, tr.tok, tr.n, NULL, &e), RL_OK);
    snprintf(p, sizeof p, "%s/a/val.bin", d);
    cr_assert_eq(rl_tokens_write(p, va.tok, va.n, NULL, &e), RL_OK);
    cr_expect_eq(load(d, "a", &e), RL_OK, "%s", e.msg);
    free(tr.tok);
    free(va.tok);
    th_rmdir(d);
    free(d);
}
