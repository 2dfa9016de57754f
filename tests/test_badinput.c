/* test_badinput.c: the bad-input table.  Every row is a command
 * that must fail: its exit status (2 bad input, 1 internal), exactly one line
 * on stderr starting "routelab:" and matching the row's POSIX extended regex,
 * and nothing left behind (tests/badinput_run.c runs and judges each row).
 *
 * Placeholders: @NAME is the fixture file NAME made at set-up
 * (badinput_run.c: text.txt, ck_*.bin checkpoints, tok_*.bin / raw_*.bin token
 * files, tab_*.txt angle tables, tgz_*.tgz archives, dir, fifo, run/ckpt.bin
 * the valid checkpoint); @OUT a fresh path in the case's own folder; @MISSING
 * a path that does not exist; @FULL a full 256 KB tmpfs; @RUN:NAME a run
 * folder holding fixture NAME as ckpt.bin (train --resume); @DEV, @LINK,
 * @COPY:NAME, @TEXTDIR output targets and inputs to overwrite;
 * @LOCKED a folder whose lock another process holds, @LOCKEDRUN the same
 * holding run/ckpt.bin (badinput_run.c); "@>PATH" (not an
 * argument) sends the command's stdout to PATH (/dev/full).  To add a case,
 * add a row; BADINPUT_ONLY=3,17 runs only those rows (1-based). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "badinput_run.h"

#define R(st, pat, ...) { { __VA_ARGS__, NULL }, st, pat }

/* Patterns shared by many rows. */
#define UNKNOWN "unknown flag --bogus"
#define NOVALUE "needs a value"
#define NOTINT "expects an integer"
#define NOTNUM "expects a finite number"
#define RANGE "out of range"
#define CHOICE "must be one of"
#define NOTFILE "not a regular file|cannot read|[Dd]irectory"
#define CKBAD "checkpoint|corrupt|truncated|magic|version"
#define NOWRITE "cannot (write|create|rename)|[Nn]ot a directory|write error"
#define FULL "write error|No space|cannot (write|create|rename)|space"
/* a length too long for any stream: never a negative count of tokens */
#define LONGLEN "needs [0-9]|too (long|large|big)|exceed|overflow|at most|--lengths"

/* The rows of a claim's experiment command (all share ctx.c's options). */
#define EXPERIMENT(cmd)                                                                 \
    R(2, UNKNOWN, cmd, "--bogus", "--out", "@OUT"),                                     \
    R(2, "--preset " CHOICE, cmd, "--preset", "huge", "--out", "@OUT"),                 \
    R(2, "--seed " NOTINT, cmd, "--seed", "x", "--out", "@OUT"),                        \
    R(2, "--seed -1 is " RANGE "|--seed " NOTINT, cmd, "--seed", "-1", "--out", "@OUT"), \
    R(2, "--threads 0 is " RANGE, cmd, "--threads", "0", "--out", "@OUT"),              \
    R(2, "--threads " NOVALUE, cmd, "--out", "@OUT", "--threads"),                      \
    R(2, NOWRITE, cmd, "--out", "@text.txt/sub"),                                       \
    R(2, "unknown flag --text|cannot read|missing", cmd, "--text", "@MISSING", "--out", "@OUT"), \
    R(2, "unknown flag --text|no tokens|empty|too few", cmd, "--text", "@empty.txt", "--out", "@OUT")

#define EVAL(ck) "eval", "--ckpt", ck, "--data", "@text.txt", "--lengths", "8", "--batches", "1", \
                 "--out", "@OUT"
/* eval's token-matched protocol (no --batches: the two exclude each other) */
#define EVALT(ck) "eval", "--ckpt", ck, "--data", "@text.txt", "--lengths", "8", "--targets", "16", \
                  "--out", "@OUT"
#define PROBE(ck) "probe", "--ckpt", ck, "--data", "@text.txt", "--lengths", "8", "--windows", "1", \
                  "--out", "@OUT"
#define HORIZON(ck) "horizon", "--ckpt", ck, "--data", "@text.txt", "--out", "@OUT"
/* a one-step training into dir (TRAIN: a fresh folder) */
#define TRAIN_IN(dir) "train", "--data", "@text.txt", "--out", dir, "--layers", "1", "--width", "8", \
                      "--heads", "2", "--ctx", "8", "--batch", "2", "--steps", "1", "--threads", "1"
#define TRAIN TRAIN_IN("@OUT")
#define RESUME(ck) "train", "--resume", "--data", "@text.txt", "--out", "@RUN:" ck, "--threads", "1"
#define TOKSO2 "sample", "--family", "token-so2", "--d", "8"
/* a grid that takes a fraction of a second: a flag wrongly accepted fails fast */
#define REPRO_IN(dir) "reproduce", "--out", dir, "--theory", "none", "--data", "@text.txt", "--steps", \
              "1", "--max-mult", "1", "--eval-batches", "1", "--probe", "none", "--layers", "1", \
              "--width", "8", "--heads", "2", "--ctx", "8", "--batch", "2", "--threads", "1", "--seeds", "1"
#define REPRO REPRO_IN("@OUT")

static const bi_case cases[] = {
    /* ---- the dispatcher ---- */
    R(2, "usage|command", NULL),  /* no arguments (was 19 lines) */
    R(2, "unknown command 'nosuch'", "nosuch"),
    R(2, "unknown command", "--bogus"),
    R(2, "unknown command", ""),

    /* ---- sample: flags ---- */
    R(2, UNKNOWN, "sample", "--bogus"),
    R(2, "--d " NOVALUE, "sample", "--d"),
    R(2, "--d " NOTINT, "sample", "--d", "x"),
    R(2, "--d " NOTINT, "sample", "--d", ""),
    R(2, "--d " NOTINT, "sample", "--d", "8x"),
    R(2, "--d " NOTINT, "sample", "--d", "2.5"),
    R(2, "--d " NOTINT, "sample", "--d", "nan"),
    R(2, "--d " NOTINT, "sample", "--d", "99999999999999999999"),
    R(2, "--d -3 is " RANGE, "sample", "--d", "-3"),
    R(2, "--d 0 is " RANGE, "sample", "--d", "0"),
    R(2, "--d 1 is " RANGE, "sample", "--d", "1"),
    R(2, "--d 4097 is " RANGE, "sample", "--d", "4097"),
    R(2, "--d .* is " RANGE, "sample", "--d", "9223372036854775807"),
    R(2, "--count 0 is " RANGE, "sample", "--count", "0"),
    R(2, "--count -1 is " RANGE, "sample", "--count", "-1"),
    R(2, "--count 1000000001 is " RANGE, "sample", "--count", "1000000001"),
    R(2, "--count " NOTINT, "sample", "--count", "1e3"),
    R(2, "--seed " NOTINT "|--seed .* " RANGE, "sample", "--seed", "-1"),
    R(2, "--seed " NOTINT "|--seed .* " RANGE, "sample", "--seed", "18446744073709551616"),
    R(2, "--seed " NOTINT, "sample", "--seed", "abc"),
    R(2, "--threads 0 is " RANGE, "sample", "--threads", "0"),
    R(2, "--threads 1025 is " RANGE, "sample", "--threads", "1025"),
    R(2, "--base 1 is " RANGE, "sample", "--base", "1"),
    R(2, "--base 0.5 is " RANGE, "sample", "--base", "0.5"),
    R(2, "--base " NOTNUM, "sample", "--base", "inf"),
    R(2, "--base " NOTNUM, "sample", "--base", "-inf"),
    R(2, "--base " NOTNUM, "sample", "--base", "nan"),
    R(2, "--base " NOTNUM, "sample", "--base", "1e999"),
    R(2, "--base " NOTNUM, "sample", "--base", "ten"),
    R(2, "--scale 0 is " RANGE, "sample", "--scale", "0"),
    R(2, "--scale -1 is " RANGE, "sample", "--scale", "-1"),
    R(2, "--scale " NOTNUM, "sample", "--scale", "NaN"),
    R(2, "--beta 0 is " RANGE, "sample", "--beta", "0"),
    R(2, "--beta 2.5 is " RANGE, "sample", "--beta", "2.5"),
    R(2, "--p -0.1 is " RANGE, "sample", "--p", "-0.1"),
    R(2, "--p 1.5 is " RANGE, "sample", "--p", "1.5"),
    R(2, "--sigma -1 is " RANGE, "sample", "--sigma", "-1"),
    R(2, "--sigma " NOTNUM, "sample", "--sigma", "inf"),
    R(2, "--vocab 0 is " RANGE, "sample", "--vocab", "0"),
    R(2, "--vocab 16777217 is " RANGE, "sample", "--vocab", "16777217"),
    R(2, "--angles " CHOICE, "sample", "--angles", "bogus"),
    R(2, "--family " CHOICE, "sample", "--family", "bogus"),
    R(2, "--family " CHOICE, "sample", "--family", ""),
    R(2, "--family " NOVALUE, "sample", "--family"),
    R(2, "even|odd|--d", "sample", "--family", "so2", "--d", "7"),
    R(2, "even|odd|--d", TOKSO2, "--d", "9"),
    R(2, "unexpected argument|unknown", "sample", "extra"),
    /* sample: files */
    R(2, NOTFILE, TOKSO2, "--text", "/dev/zero"),  /* not a regular file */
    R(2, NOTFILE, TOKSO2, "--text", "@fifo"),      /* not a regular file */
    R(2, NOTFILE, TOKSO2, "--text", "@dir"),
    R(2, "cannot read|No such file", TOKSO2, "--text", "@MISSING"),
    R(2, "no tokens|empty|fewer than", TOKSO2, "--text", "@empty.txt"),
    R(2, NOTFILE "|no tokens|empty|fewer than", TOKSO2, "--text", "/dev/null"),
    R(2, "fewer than --count", TOKSO2, "--text", "@tiny.txt", "--count", "100"),
    R(2, NOTFILE, TOKSO2, "--table", "/dev/zero"),  /* not a regular file */
    R(2, NOTFILE, TOKSO2, "--table", "@fifo"),
    R(2, NOTFILE, TOKSO2, "--table", "@dir"),
    R(2, "cannot read angle table", TOKSO2, "--table", "@MISSING"),
    R(2, "expected 4 angles per line, found 0", TOKSO2, "--table", "@tab_alpha.txt"),
    R(2, "expected 4 angles per line, found 3", TOKSO2, "--table", "@tab_short.txt"),
    R(2, "more than 4 angles", TOKSO2, "--table", "@tab_long.txt"),
    R(2, ":2: expected 4 angles", TOKSO2, "--table", "@tab_row2.txt"),
    R(2, "expected 4 angles per line, found 0", TOKSO2, "--table", "@tab_nan.txt"),
    R(2, "expected 4 angles per line, found 1", TOKSO2, "--table", "@tab_inf.txt"),
    R(2, "expected 4 angles per line, found 2", TOKSO2, "--table", "@tab_1e999.txt"),
    R(2, "no rows", TOKSO2, "--table", "@tab_empty.txt"),
    R(2, "no rows", TOKSO2, "--table", "@tab_comments.txt"),
    R(2, "expected 4 angles", TOKSO2, "--table", "@tab_comma.txt"),
    R(2, "expected 4 angles", TOKSO2, "--table", "@tab_binary.txt"),
    R(2, "expected 8 angles per line, found 4", TOKSO2, "--d", "16", "--table", "@tab_ok.txt"),
    R(2, "more than 2 angles", TOKSO2, "--d", "4", "--table", "@tab_ok.txt"),
    /* sample: outputs */
    R(2, NOWRITE, "sample", "--out", "@text.txt/sub"),
    R(2, NOWRITE "|[Ii]s a directory", "sample", "--out", "@dir"),
    R(2, NOWRITE, "sample", "--out", "/proc/routelab-badinput"),
    R(2, NOWRITE "|empty", "sample", "--out", ""),
    R(2, FULL, "sample", "--d", "64", "--count", "200", "--out", "@FULL/s.txt"),

    /* ---- bound ---- */
    R(2, "which bound", "bound"),
    R(2, "unknown bound 'foo'", "bound", "foo"),
    R(2, "unexpected argument|unknown bound", "bound", "norm", "extra"),
    R(2, UNKNOWN, "bound", "norm", "--bogus"),
    R(2, "--d 1 is " RANGE, "bound", "norm", "--d", "1"),
    R(2, "--block 5000 is " RANGE, "bound", "norm", "--block", "5000"),
    R(2, "--block -2 is " RANGE, "bound", "norm", "--block", "-2"),
    R(2, "block", "bound", "norm", "--d", "64", "--block", "40"),
    R(2, UNKNOWN, "bound", "norm2", "--bogus"),
    R(2, "--samples -1 is " RANGE, "bound", "norm2", "--samples", "-1"),
    R(2, "--samples.*" NOTINT, "bound", "norm2", "--samples", "x"),
    R(2, "needs 20 to 1e8 samples, got 5", "bound", "norm2", "--d", "4", "--samples", "5"),
    R(2, "--samples needs d <= 16", "bound", "norm2", "--d", "20", "--samples", "100"),
    R(2, "Brownian second-moment rate needs 2 to 1e8 samples, got 1", "bound", "norm2", "--family", "brownian", "--d", "8", "--samples", "1"),
    R(2, "--beta does not apply", "bound", "norm2", "--family", "haar", "--d", "4", "--beta", "1"),
    R(2, "--eps 1 is " RANGE, "bound", "norm2", "--d", "4", "--eps", "1"),
    R(2, "bound norm: --samples does not apply", "bound", "norm", "--samples", "10"),
    R(2, "bound window: --seed does not apply", "bound", "window", "--seed", "3"),
    R(2, "--eps 0 is " RANGE, "bound", "window", "--eps", "0"),
    R(2, "--eps 1 is " RANGE, "bound", "window", "--eps", "1"),
    /* a norm above 1 is no orthogonal step's mean (it once printed inf, status 0) */
    R(2, "--norm 1.5 is " RANGE, "bound", "window", "--norm", "1.5"),
    R(2, "--eps " NOTNUM, "bound", "window", "--eps", "nan"),
    R(2, "--norm -1 is " RANGE, "bound", "window", "--norm", "-1"),
    R(2, "--norm and the family flags exclude", "bound", "window", "--family", "so2", "--norm", "0.5"),
    R(2, "--block applies to the SO\\(2\\) families", "bound", "window", "--family", "haar", "--block", "1"),
    R(2, "--block 40 is out of range", "bound", "window", "--d", "64", "--block", "40"),
    R(2, "sigma .* " RANGE, "bound", "window", "--family", "brownian", "--sigma", "-1"),
    R(2, "not certain to 1e-7", "bound", "window", "--family", "brownian", "--d", "4096", "--sigma", "1e-8"),
    R(2, "head dimension must be even, 2 to 1024, got 33", "bound", "match", "--head-dim", "33"),
    R(2, "--head-dim 2048 is " RANGE, "bound", "match", "--head-dim", "2048"),
    R(2, "--head-dim.*" NOTINT, "bound", "match", "--head-dim", "x"),
    R(2, "--ctx 0 is " RANGE, "bound", "match", "--ctx", "0"),
    R(2, "--mult 0 is " RANGE, "bound", "match", "--mult", "0"),
    R(2, "--mult " NOVALUE, "bound", "match", "--mult"),
    R(2, "T x mult = 1000000000000 x 100000 is beyond", "bound", "match", "--ctx", "1000000000000", "--mult", "100000"),
    R(2, "--eps 0 is " RANGE, "bound", "match", "--eps", "0"),
    R(2, "bound match: --d does not apply", "bound", "match", "--d", "32"),
    R(2, "bound window: --ctx does not apply", "bound", "window", "--ctx", "64"),
    R(2, "head dimension must be even, 2 to 4096 .*got 33", "bound", "mixstay", "--d", "33"),
    R(2, "--d 8192 is " RANGE, "bound", "mixstay", "--d", "8192"),
    R(2, "--harmonics 0 is " RANGE, "bound", "mixstay", "--harmonics", "0"),
    R(2, "--harmonics 2000000 is " RANGE, "bound", "mixstay", "--harmonics", "2000000"),
    R(2, "--harmonics.*" NOTINT, "bound", "mixstay", "--harmonics", "x"),
    R(2, "--ctx 0 is " RANGE, "bound", "mixstay", "--ctx", "0"),
    R(2, "--length 1 is " RANGE, "bound", "mixstay", "--length", "1"),
    R(2, "the length L must lie in \\(T, 1e\\+15\\] = \\(64, ", "bound", "mixstay", "--ctx", "64", "--length", "64"),
    R(2, "--length and --mult exclude each other", "bound", "mixstay", "--length", "100", "--mult", "2"),
    R(2, "T x mult = 1000000000000 x 100000 is beyond", "bound", "mixstay", "--ctx", "1000000000000", "--mult", "100000"),
    R(2, "give 1e\\+12 \\(far, near\\) pairs per block", "bound", "mixstay", "--ctx", "1000000", "--mult", "2"),
    R(2, "--base " NOTNUM, "bound", "mixstay", "--base", "nan"),
    R(2, "--base 1 is " RANGE, "bound", "mixstay", "--base", "1"),
    R(2, "--scale 0 is " RANGE, "bound", "mixstay", "--scale", "0"),
    R(2, "--angles " CHOICE, "bound", "mixstay", "--angles", "wobbly"),
    R(2, "bound mixstay: --family does not apply", "bound", "mixstay", "--family", "so2"),
    R(2, "bound mixstay: --eps does not apply", "bound", "mixstay", "--eps", "0.1"),
    R(2, "bound window: --harmonics does not apply", "bound", "window", "--harmonics", "8"),
    R(2, "--t -1 is " RANGE, "bound", "levy", "--t", "-1"),
    R(2, "--t " NOTNUM, "bound", "levy", "--t", "nan"),
    R(2, "--t " NOVALUE, "bound", "levy", "--t"),
    R(2, "--a: '1,,2' is not a comma-separated list", "bound", "hoeffding", "--a", "1,,2"),
    R(2, "--a: 'x' is not a comma-separated list", "bound", "hoeffding", "--a", "x"),
    R(2, "--a: .* is not a comma-separated list", "bound", "hoeffding", "--a", ",1"),
    R(2, "--a: '1,' ends with a comma", "bound", "hoeffding", "--a", "1,"),
    R(2, "--a: .* is not a comma-separated list|empty|--a", "bound", "hoeffding", "--a", ""),
    R(2, "--a", "bound", "hoeffding", "--a", "1,nan"),
    R(2, "--a", "bound", "hoeffding", "--a", "1,-1"),
    R(2, "--ml 0 is " RANGE, "bound", "farmass", "--ml", "0"),
    R(2, "--ml " NOTNUM, "bound", "farmass", "--ml", "nan"),
    R(2, "--k 0 is " RANGE, "bound", "farmass", "--k", "0"),
    R(2, "--lambda -1 is " RANGE, "bound", "farmass", "--lambda", "-1"),
    R(2, "--lambda " NOTNUM, "bound", "farmass", "--lambda", "inf"),
    R(2, "--slope -1 is " RANGE, "bound", "alibi", "--slope", "-1"),
    R(2, "--rho 1.5 is " RANGE, "bound", "value-coherent", "--rho", "1.5"),
    R(2, "--vnorm -1 is " RANGE, "bound", "value-coherent", "--vnorm", "-1"),
    R(2, "--c 2 is " RANGE, "bound", "value-incoherent", "--c", "2"),
    R(2, "--c " NOTNUM, "bound", "value-incoherent", "--c", "nan"),
    R(2, "expected 4 angles", "bound", "norm", "--family", "token-so2", "--d", "8", "--table",
      "@tab_nan.txt"),
    R(2, NOTFILE, "bound", "norm", "--family", "token-so2", "--d", "8", "--text", "/dev/zero"),

    /* ---- the claims' experiments ---- */
    EXPERIMENT("mixing"),
    EXPERIMENT("mixstay"),
    EXPERIMENT("concentration"),
    EXPERIMENT("scoregap"),
    EXPERIMENT("farmass"),
    EXPERIMENT("values"),
    EXPERIMENT("stylized"),
    R(2, NOTFILE, "mixing", "--text", "@fifo", "--out", "@OUT"),     /* not a regular file */
    R(2, NOTFILE, "mixing", "--text", "/dev/zero", "--out", "@OUT"), /* not a regular file */
    R(2, NOTFILE, "mixing", "--text", "@dir", "--out", "@OUT"),
    R(2, "unknown flag --text|cannot read", "farmass", "--text", "x", "--out", "@OUT"), /* named, not ignored */

    /* ---- claims, theory ---- */
    R(2, "unexpected argument 'extra'", "claims", "extra"),
    R(2, UNKNOWN, "claims", "--bogus"),
    R(2, UNKNOWN, "theory", "--bogus", "--out", "@OUT"),
    R(2, "--only: unknown experiment 'bogus'", "theory", "--only", "bogus", "--out", "@OUT"),
    R(2, "--only", "theory", "--only", "", "--out", "@OUT"),
    R(2, "--only", "theory", "--only", "mixing,,farmass", "--out", "@OUT"),
    R(2, "--only: unknown experiment", "theory", "--only", "mixing,bogus", "--out", "@OUT"),
    R(2, "--preset " CHOICE, "theory", "--preset", "paper", "--out", "@OUT"),
    R(2, "--seed", "theory", "--seed", "-1", "--out", "@OUT"),
    R(2, NOWRITE, "theory", "--only", "farmass", "--out", "@text.txt/sub"),
    R(2, "unknown flag --text|cannot read", "theory", "--only", "mixing", "--text", "@MISSING",
      "--out", "@OUT"),
    R(2, "no tokens|empty|too few", "theory", "--only", "mixing", "--text", "@empty.txt", "--out",
      "@OUT"), /* named, not ignored */

    /* ---- data ---- */
    R(2, "which data set", "data"),
    R(2, "unknown data set 'foo'", "data", "foo", "x"),
    R(2, "needs one PATH", "data", "text"),
    R(2, "needs one PATH|unexpected", "data", "text", "a", "b"),
    R(2, "needs one PATH", "data", "check"),
    R(2, "unexpected argument", "data", "brown", "extra"),
    R(2, UNKNOWN, "data", "check", "@text.txt", "--bogus"),
    R(2, "--vocab 1 is " RANGE, "data", "check", "@text.txt", "--vocab", "1"),
    R(2, "--vocab 65537 is " RANGE, "data", "check", "@text.txt", "--vocab", "65537"),
    R(2, "--vocab " NOTINT, "data", "check", "@text.txt", "--vocab", "x"),
    R(2, "--out " NOVALUE, "data", "text", "@text.txt", "--out"),
    /* one output flag for every data set: --dir was brown's and text's */
    R(2, "unknown flag --dir", "data", "text", "@text.txt", "--dir", "@OUT"),
    /* data check: token files (llm.c and headerless nanoGPT uint16) */
    R(2, "cannot read|No such file", "data", "check", "@MISSING"),
    R(2, "train.bin", "data", "check", "@dir"),
    R(2, "val.bin", "data", "check", "@noval"),
    R(2, "val.bin: truncated", "data", "check", "@badval"),
    R(2, "header has version 2", "data", "check", "@tok_version.bin"),
    R(2, "header says -1 tokens|corrupt", "data", "check", "@tok_negcount.bin"),
    R(2, "header says 1000 tokens", "data", "check", "@tok_overcount.bin"),
    R(2, "header says 5 tokens", "data", "check", "@tok_undercount.bin"),
    R(2, "header says 2147483647 tokens", "data", "check", "@tok_hugecount.bin"),
    R(2, "truncated|corrupt|header", "data", "check", "@tok_shorthdr.bin"),
    R(2, "no tokens", "data", "check", "@tok_zero.bin"),
    R(2, "too few to split", "data", "check", "@tok_few.bin"),
    R(2, "token id 300 at index 123 is outside the vocabulary of 256", "data", "check",
      "@tok_bigid.bin"),
    R(2, "token id 65535 at index 123 is outside the vocabulary of 65536|token id 65535", "data",
      "check", "@tok_maxid.bin", "--vocab", "1000"),
    R(2, "token id 300 .* outside the vocabulary of 299", "data", "check", "@tok_bigid.bin",
      "--vocab", "299"),
    R(2, "token id 1000 at index 123 is outside the vocabulary", "data", "check", "@raw_bigid.bin"),
    R(2, "odd length 7", "data", "check", "@raw_odd.bin"),
    R(2, "no tokens", "data", "check", "@raw_empty.bin"),
    R(2, "odd length", "data", "check", "@raw_text.bin"),
    R(2, "no tokens|too few", "data", "check", "@empty.txt"),
    R(2, "too few to split", "data", "check", "@tiny.txt"),
    R(2, "outside the vocabulary of 64", "data", "check", "@text.txt", "--vocab", "64"),
    /* data bpe: vocabulary, input text, output folder */
#define BPE(v, from) "data", "bpe", "--vocab", v, "--from", from, "--out", "@OUT"
    R(2, "--vocab 259 is out of range: 260\\.\\.65536", BPE("259", "@text.txt")),
    R(2, "--vocab 2 is out of range: 260", BPE("2", "@MISSING")),
    R(2, "--vocab 65537 is " RANGE, BPE("65537", "@text.txt")),
    R(2, "--vocab 260 is too small for this text: .* need --vocab >= [0-9]+", BPE("260", "@text.txt")),
    R(2, "--vocab 65536 is too large for this text: .* at most [0-9]+ pieces", BPE("65536", "@text.txt")),
    R(2, "--vocab N is needed", "data", "bpe", "--from", "@text.txt", "--out", "@OUT"),
    R(2, "--from FILE.DIR is needed", "data", "bpe", "--vocab", "300", "--out", "@OUT"),
    R(2, "--out DIR is needed", "data", "bpe", "--vocab", "300", "--from", "@text.txt"),
    R(2, "unexpected argument 'x'", "data", "bpe", "x", "--vocab", "300", "--from", "@text.txt"),
    R(2, "cannot read .*missing: No such file", BPE("300", "@MISSING")),
    R(2, "empty.txt: empty input", BPE("300", "@empty.txt")),
    R(2, "dir: empty input", BPE("300", "@dir")),
    R(2, "tok_ok.bin: binary input \\(a NUL byte at offset [0-9]+\\)", BPE("300", "@tok_ok.bin")),
    R(2, "ctl.txt: binary input \\(4 of [0-9]+ bytes are control characters", BPE("300", "@ctl.txt")),
    R(2, "notutf8.txt: not UTF-8 at offset 3 .*U\\+FFFD", BPE("300", "@notutf8.txt")),
    R(2, "lowline.txt: holds U\\+2581 at offset 2", BPE("300", "@lowline.txt")),
    R(2, "5 bytes of text are too few to split", BPE("300", "@tiny.txt")),
    R(2, NOTFILE, BPE("300", "@fifo")),
    R(2, NOWRITE, "data", "bpe", "--vocab", "300", "--from", "@text.txt", "--out", "@text.txt/sub"),
    R(2, FULL, "data", "bpe", "--vocab", "300", "--from", "@text.txt", "--out", "@FULL/bpe"),
    /* data bpe --from a byte data set (data/brown): its two token files */
    R(2, "noval: a byte data set needs val.bin", BPE("300", "@noval")),
    R(2, "not a byte data set .*val.bin: truncated", BPE("300", "@badval")),
    R(2, "not a byte data set .*token id 2[0-9][0-9] .* outside the vocabulary of 256", BPE("300", "@bpe")),
    R(2, "train.bin, document 1 \\(bytes 18\\.\\.31\\): not UTF-8 at offset 3", BPE("300", "@bset_notutf8")),
    R(2, "--out does not apply", "data", "check", "@text.txt", "--out", "@OUT"),
    R(2, "--tokenizer does not apply", "data", "text", "@text.txt", "--tokenizer", "@bpe/tokenizer.model"),
    /* data decode: tokenizer and token file */
    R(2, "--tokenizer MODEL is needed", "data", "decode", "@bpe/train.bin"),
    R(2, "needs one token FILE.bin", "data", "decode", "--tokenizer", "@bpe/tokenizer.model"),
    R(2, "cannot read .*missing", "data", "decode", "--tokenizer", "@MISSING", "@bpe/train.bin"),
    R(2, "cannot read .*[Mm][Ii][Ss][Ss][Ii][Nn][Gg]", "data", "decode", "--tokenizer", "@bpe/tokenizer.model", "@MISSING/x.bin"),
    R(2, "text.txt: not a SentencePiece tokenizer \\(it does not parse", "data", "decode", "--tokenizer",
      "@text.txt", "@bpe/train.bin"),
    R(2, "bpe_trunc.model: not a SentencePiece tokenizer", "data", "decode", "--tokenizer",
      "@bpe_trunc.model", "@bpe/train.bin"),
    R(2, "empty.txt: not a SentencePiece tokenizer \\(empty file", "data", "decode", "--tokenizer",
      "@empty.txt", "@bpe/train.bin"),
    R(2, "text.txt: not a token file", "data", "decode", "--tokenizer", "@bpe/tokenizer.model", "@text.txt"),
    R(2, "token id 65535 at index 123 is outside the vocabulary of 300", "data", "decode", "--tokenizer",
      "@bpe/tokenizer.model", "@tok_maxid.bin"),
    R(2, "tok_unk.bin: token at index 2: id 0 is <unk>, a piece with no text", "data", "decode",
      "--tokenizer", "@bpe/tokenizer.model", "@tok_unk.bin"),
    R(2, "odd length", "data", "decode", "--tokenizer", "@bpe/tokenizer.model", "@raw_odd.bin"),
    R(2, NOTFILE, "data", "check", "/dev/zero"),
    R(2, NOTFILE "|no tokens", "data", "check", "/dev/null"),
    R(2, NOTFILE, "data", "check", "@fifo"), /* not a regular file */
    /* data text */
    R(2, NOTFILE, "data", "text", "/dev/zero", "--out", "@OUT"), /* not a regular file */
    R(2, NOTFILE, "data", "text", "@fifo", "--out", "@OUT"),     /* not a regular file */
    R(2, NOTFILE "|no tokens", "data", "text", "/dev/null", "--out", "@OUT"),
    R(2, NOTFILE "|train.bin", "data", "text", "@dir", "--out", "@OUT"),
    R(2, "cannot read|No such file", "data", "text", "@MISSING", "--out", "@OUT"),
    R(2, "no tokens|too few", "data", "text", "@empty.txt", "--out", "@OUT"),
    R(2, "too few to split", "data", "text", "@tiny.txt", "--out", "@OUT"),
    R(2, "odd length", "data", "text", "@raw_odd.bin", "--out", "@OUT"),
    R(2, NOWRITE, "data", "text", "@text.txt", "--out", "@text.txt/sub"),
    R(2, NOWRITE, "data", "text", "@text.txt", "--out", "/proc/routelab-badinput"),
    R(2, FULL, "data", "text", "@text.txt", "--out", "@FULL/d"),
    /* data brown --from: corpus archives */
    R(2, "cannot unpack", "data", "brown", "--from", "@tgz_garbage.tgz", "--out", "@OUT"),
    R(2, "cannot unpack", "data", "brown", "--from", "@tgz_badgz.tgz", "--out", "@OUT"),
    R(2, "cannot unpack|empty", "data", "brown", "--from", "@tgz_empty.tgz", "--out", "@OUT"),
    R(2, "cannot unpack", "data", "brown", "--from", "@tgz_text.tgz", "--out", "@OUT"),
    R(2, "holds no Brown documents", "data", "brown", "--from", "@tgz_nodocs.tgz", "--out", "@OUT"),
    R(2, "an archive bomb", "data", "brown", "--from", "@tgz_bomb.tgz", "--out", "@OUT"),
    R(2, "too few for a 90/10 split", "data", "brown", "--from", "@tgz_fewdocs.tgz", "--out",
      "@OUT"),
    R(2, "cannot read|No such file", "data", "brown", "--from", "@MISSING", "--out", "@OUT"),
    R(2, NOTFILE "|cannot unpack", "data", "brown", "--from", "@dir", "--out", "@OUT"),
    R(2, NOTFILE "|cannot unpack", "data", "brown", "--from", "/dev/null", "--out", "@OUT"),
    R(2, NOTFILE "|cannot unpack", "data", "brown", "--from", "@fifo", "--out", "@OUT"),
    R(2, NOWRITE, "data", "brown", "--from", "@tgz_fewdocs.tgz", "--out", "@text.txt/sub"),

    /* ---- train: flags ---- */
    R(2, "--data is required", "train", "--out", "@OUT"),
    R(2, UNKNOWN, TRAIN, "--bogus"),
    R(2, "--layers 0 is " RANGE, TRAIN, "--layers", "0"),
    R(2, "--layers 1025 is " RANGE, TRAIN, "--layers", "1025"),
    R(2, "--width 1 is " RANGE, TRAIN, "--width", "1"),
    R(2, "--heads 0 is " RANGE, TRAIN, "--heads", "0"),
    R(2, "heads|width", TRAIN, "--heads", "3"),
    R(2, "--ctx 0 is " RANGE, TRAIN, "--ctx", "0"),
    R(2, "--ctx " NOTINT, TRAIN, "--ctx", "8.5"),
    R(2, "--vocab 1 is " RANGE, TRAIN, "--vocab", "1"),
    R(2, "--vocab 65537 is " RANGE, TRAIN, "--vocab", "65537"),
    R(2, "--dropout 1 is " RANGE, TRAIN, "--dropout", "1"),
    R(2, "--dropout -0.1 is " RANGE, TRAIN, "--dropout", "-0.1"),
    R(2, "--dropout " NOTNUM, TRAIN, "--dropout", "nan"),
    R(2, "--rot-base 1 is " RANGE, TRAIN, "--rot-base", "1"),
    R(2, "--rot-base 0.5 is " RANGE, TRAIN, "--rot-base", "0.5"),
    R(2, "--rot-base -10000 is " RANGE, TRAIN, "--rot-base", "-10000"),
    R(2, "--rot-base " NOTNUM, TRAIN, "--rot-base", "inf"),
    R(2, "--rot-base " NOTNUM, TRAIN, "--rot-base", "nan"),
    R(2, "--rot-base " NOTNUM, TRAIN, "--rot-base", "1e400"),
    R(2, "--rot-base " NOTNUM, TRAIN, "--rot-base", "ten"),
    R(2, "--rot-base " NOVALUE, TRAIN, "--rot-base"),
    R(2, "--pos bogus: unknown position scheme", TRAIN, "--pos", "bogus"),
    R(2, "--pos", TRAIN, "--pos", ""),
    R(2, "--mode " CHOICE, TRAIN, "--mode", "xyz"),
    R(2, "--batch 0 is " RANGE, TRAIN, "--batch", "0"),
    R(2, "--accum 0 is " RANGE, TRAIN, "--accum", "0"),
    R(2, "--steps -1 is " RANGE, TRAIN, "--steps", "-1"),
    R(2, "--steps " NOTINT, TRAIN, "--steps", "ten"),
    R(2, "--lr 'abc' is neither", TRAIN, "--lr", "abc"),
    R(2, "--lr", TRAIN, "--lr", ""),
    R(2, "--lr", TRAIN, "--lr", "1e-3:"),
    R(2, "--lr", TRAIN, "--lr", "1e-3:10,"),
    R(2, "--lr", TRAIN, "--lr", "1e-3:10,,2e-4:5"),
    R(2, "--lr", TRAIN, "--lr", "cosine:"),
    R(2, "--lr", TRAIN, "--lr", "cosine:1e-3:-5"),
    R(2, "--lr", TRAIN, "--lr", "-1"),
    R(2, "--lr", TRAIN, "--lr", "nan"),
    R(2, "--lr", TRAIN, "--lr", "inf"),
    R(2, "--lr", TRAIN, "--lr", "1e-3:-10"),
    R(2, "--lr", TRAIN, "--lr", "1e-3:99999999999999999999"),
    R(2, "--val-every 0 is " RANGE, TRAIN, "--val-every", "0"),
    R(2, "--val-batches 0 is " RANGE, TRAIN, "--val-batches", "0"),
    R(2, "--ckpt-every 0 is " RANGE, TRAIN, "--ckpt-every", "0"),
    R(2, "--log-every 0 is " RANGE, TRAIN, "--log-every", "0"),
    R(2, "--stop-at -1 is " RANGE, TRAIN, "--stop-at", "-1"),
    R(2, "--threads 0 is " RANGE, TRAIN, "--threads", "0"),
    R(2, "--seed", TRAIN, "--seed", "-5"),
    /* B*H*T*T overflows; refused up front naming the size */
    R(2, "memory|bytes|[GTPE]i?B|overflow|too large", "train", "--data", "@text.txt", "--out", "@OUT",
      "--layers", "1", "--width", "65536", "--heads", "4096", "--ctx", "1048576", "--batch",
      "1048576", "--steps", "1"),
    R(2, "memory|bytes|[GTPE]i?B|overflow|too large", "train", "--data", "@text.txt", "--out", "@OUT",
      "--layers", "1024", "--width", "65536", "--heads", "1", "--ctx", "8", "--steps", "1"),
    /* the NaN guard; no checkpoint exists to be "kept" */
    R(2, "loss is|nan|NaN", "train", "--data", "@text.txt", "--out", "@OUT", "--lr", "1e30",
      "--layers", "1", "--width", "16", "--heads", "2", "--ctx", "16", "--steps", "5", "--threads",
      "1"),
    /* train: data */
    R(2, "cannot read|No such file", TRAIN, "--data", "@MISSING"),
    R(2, "no tokens|too few", TRAIN, "--data", "@empty.txt"),
    R(2, "too few to split", TRAIN, "--data", "@tiny.txt"),
    R(2, "train.bin", TRAIN, "--data", "@dir"),
    R(2, "val.bin", TRAIN, "--data", "@noval"),
    R(2, NOTFILE, TRAIN, "--data", "/dev/zero"),
    R(2, NOTFILE, TRAIN, "--data", "@fifo"), /* not a regular file */
    R(2, "outside the vocabulary of 256", TRAIN, "--data", "@tok_bigid.bin"),
    R(2, "header has version 2", TRAIN, "--data", "@tok_version.bin"),
    R(2, "outside the vocabulary of 64", TRAIN, "--vocab", "64"),
    R(2, "too few|tokens|ctx|context|memory|bytes", TRAIN, "--ctx", "100000"),
    R(2, NOWRITE, TRAIN, "--out", "@text.txt/sub"),
    R(2, NOWRITE, TRAIN, "--out", "/proc/routelab-badinput"),
    R(2, FULL, TRAIN, "--out", "@FULL/t"),
    /* train --resume: the checkpoint in OUT */
    R(2, "checkpoint: cannot read", "train", "--resume", "--data", "@text.txt", "--out", "@OUT"),
    R(2, "--layers 2 does not match", RESUME("run/ckpt.bin"), "--layers", "2"),
    R(2, "--batch 3 does not match", RESUME("run/ckpt.bin"), "--batch", "3"),
    R(2, "--lr 0.5 does not match", RESUME("run/ckpt.bin"), "--lr", "0.5"),
    R(2, "--pos .* does not match", RESUME("run/ckpt.bin"), "--pos", "alibi"),
    R(2, "--rot-base 500 does not match the checkpoint's 10000", RESUME("run/ckpt.bin"),
      "--rot-base", "500"),
    R(2, "rot-base|rotation base|corrupt", RESUME("ck_base1.bin")),
    R(2, "not the training data", "train", "--resume", "--data", "@text2.txt", "--out",
      "@RUN:run/ckpt.bin", "--threads", "1"),
    R(2, "val.every|corrupt|checkpoint", RESUME("ck_valevery0.bin")), /* SIGFPE */
    R(2, "val.every|corrupt|checkpoint", RESUME("ck_valeveryneg.bin")),
    R(2, "step|corrupt|checkpoint", RESUME("ck_stepneg.bin")),        /* a corrupt field */
    R(2, "steps|corrupt|checkpoint", RESUME("ck_stepsneg.bin")),
    R(2, "accum|corrupt|checkpoint", RESUME("ck_accumneg.bin")),      /* a corrupt field */
    R(2, "batch|corrupt|checkpoint", RESUME("ck_batch0.bin")),        /* a corrupt field */
    R(2, "batch|corrupt|checkpoint", RESUME("ck_batch32.bin")),       /* 64 to 32 bits */
    R(2, "val.batches|corrupt|checkpoint", RESUME("ck_valbatches0.bin")), /* a corrupt field */
    R(2, "adam|corrupt|checkpoint", RESUME("ck_adamneg.bin")),
    R(2, "data|corrupt|checkpoint", RESUME("ck_datan.bin")),
    R(2, "lr|corrupt|checkpoint", RESUME("ck_lrnul.bin")),
    R(2, CKBAD, RESUME("ck_ctx32.bin")),                              /* a corrupt field */
    R(2, CKBAD, RESUME("ck_cut5.bin")),
    R(2, CKBAD, RESUME("ck_sum.bin")),
    R(2, CKBAD "|" NOTFILE, RESUME("fifo")),                          /* not a regular file */

    /* ---- eval: flags ---- */
    R(2, "--ckpt and --data are required", "eval"),
    R(2, "--ckpt and --data are required", "eval", "--ckpt", "@run/ckpt.bin"),
    R(2, "--ckpt and --data are required", "eval", "--data", "@text.txt"),
    R(2, UNKNOWN, EVAL("@run/ckpt.bin"), "--bogus"),
    R(2, "--lengths", EVAL("@run/ckpt.bin"), "--lengths", ""),
    R(2, "--lengths: 'abc' is not", EVAL("@run/ckpt.bin"), "--lengths", "abc"),
    R(2, "--lengths: '8,,16' is not", EVAL("@run/ckpt.bin"), "--lengths", "8,,16"),
    R(2, "--lengths: '8,x' is not", EVAL("@run/ckpt.bin"), "--lengths", "8,x"),
    R(2, "--lengths", EVAL("@run/ckpt.bin"), "--lengths", "8,"),
    R(2, "--lengths", EVAL("@run/ckpt.bin"), "--lengths", "8.5"),
    R(2, "length 0 must be at least|--lengths", EVAL("@run/ckpt.bin"), "--lengths", "0"),
    R(2, "length -8 must be at least|--lengths", EVAL("@run/ckpt.bin"), "--lengths", "-8"),
    /* said it "needs -9223372036854775808 validation tokens" */
    R(2, LONGLEN, EVAL("@run/ckpt.bin"), "--lengths", "9223372036854775807"),
    R(2, "--lengths", EVAL("@run/ckpt.bin"), "--lengths", "99999999999999999999"),
    R(2, "validation (tokens|stream)", EVAL("@run/ckpt.bin"), "--lengths", "1000000"),
    R(2, "--batches 0 is " RANGE, EVAL("@run/ckpt.bin"), "--batches", "0"),
    R(2, "--batch-size 0 is " RANGE, EVAL("@run/ckpt.bin"), "--batch-size", "0"),
    R(2, "--targets 0 is " RANGE, EVALT("@run/ckpt.bin"), "--targets", "0"),
    R(2, "--targets " NOTINT, EVALT("@run/ckpt.bin"), "--targets", "x"),
    R(2, "--targets " NOVALUE, EVALT("@run/ckpt.bin"), "--targets"),
    R(2, "exclude each other", EVAL("@run/ckpt.bin"), "--targets", "64"),
    R(2, "exclude each other", EVALT("@run/ckpt.bin"), "--batch-size", "2"),
    R(2, "--targets and --full exclude each other", EVALT("@run/ckpt.bin"), "--full"),
    /* eval --windows, --windows-seed, --positions (docs/protocol.md#sampled-windows) */
    R(2, "--windows must be one of spans\\|sampled, got 'random'", EVALT("@run/ckpt.bin"), "--windows", "random"),
    R(2, "--windows " NOVALUE, EVALT("@run/ckpt.bin"), "--windows"),
    R(2, "--windows-seed applies to --windows sampled only", EVALT("@run/ckpt.bin"), "--windows-seed", "3"),
    R(2, "--windows-seed " NOTINT, EVALT("@run/ckpt.bin"), "--windows", "sampled", "--windows-seed", "x"),
    R(2, "--windows-seed -1 is " RANGE "|--windows-seed " NOTINT, EVALT("@run/ckpt.bin"), "--windows", "sampled",
      "--windows-seed", "-1"),
    R(2, "do not apply to --batches", EVAL("@run/ckpt.bin"), "--windows", "sampled"),
    /* eval --prune-eps (docs/speed/reproduction-and-pruning.md#pruned-attention): a share of a
     * row's mass, in [0, 1) */
    R(2, "--prune-eps -1 is " RANGE, EVALT("@run/ckpt.bin"), "--prune-eps", "-1"),
    R(2, "--prune-eps 1 is " RANGE, EVALT("@run/ckpt.bin"), "--prune-eps", "1"),
    R(2, "--prune-eps " NOTNUM, EVALT("@run/ckpt.bin"), "--prune-eps", "nan"),
    R(2, "do not apply to --batches", EVAL("@run/ckpt.bin"), "--positions", "@OUT"),
    R(2, NOWRITE, EVALT("@run/ckpt.bin"), "--positions", "@text.txt/sub"),
    R(2, NOWRITE "|[Ii]s a directory", EVALT("@run/ckpt.bin"), "--positions", "@dir"),
    R(2, "exclude each other", EVAL("@run/ckpt.bin"), "--full"),
    R(2, "cannot read", EVALT("@run/ckpt.bin"), "--val-log", "@MISSING"),
    R(2, NOTFILE, EVALT("@run/ckpt.bin"), "--val-log", "@fifo"),
    R(2, NOTFILE, EVALT("@run/ckpt.bin"), "--val-log", "@dir"),
    R(2, NOWRITE, EVALT("@run/ckpt.bin"), "--starts", "@text.txt/sub"),
    R(2, NOWRITE "|[Ii]s a directory", EVALT("@run/ckpt.bin"), "--starts", "@dir"),
    R(2, FULL, EVALT("@run/ckpt.bin"), "--starts", "@FULL/s.tsv"),
    R(2, "--threads 0 is " RANGE, EVAL("@run/ckpt.bin"), "--threads", "0"),
    R(2, "--seed", EVAL("@run/ckpt.bin"), "--seed", "x"),
    /* eval: data */
    R(2, "no tokens|too few", EVAL("@run/ckpt.bin"), "--data", "@empty.txt"),
    R(2, "cannot read|No such file", EVAL("@run/ckpt.bin"), "--data", "@MISSING"),
    R(2, "outside the vocabulary of 256", EVAL("@run/ckpt.bin"), "--data", "@tok_bigid.bin"),
    R(2, NOTFILE, EVAL("@run/ckpt.bin"), "--data", "@fifo"), /* not a regular file */
    R(2, NOTFILE, EVAL("@run/ckpt.bin"), "--data", "/dev/zero"),
    /* eval: outputs */
    R(2, NOWRITE, EVAL("@run/ckpt.bin"), "--out", "@text.txt/sub"),
    R(2, NOWRITE "|[Ii]s a directory", EVAL("@run/ckpt.bin"), "--out", "@dir"),
    R(2, NOWRITE, EVAL("@run/ckpt.bin"), "--out", "/proc/routelab-badinput.tsv"),
    R(2, FULL, EVAL("@run/ckpt.bin"), "--out", "@FULL/e.tsv"),
    /* eval: checkpoint files */
    R(2, "checkpoint: cannot read", EVAL("@MISSING")),
    R(2, CKBAD "|" NOTFILE, EVAL("@dir")),
    R(2, CKBAD "|" NOTFILE, EVAL("/dev/zero")),
    R(2, CKBAD "|" NOTFILE, EVAL("/dev/null")),
    R(2, CKBAD "|" NOTFILE, EVAL("@fifo")), /* not a regular file */
    R(2, CKBAD, EVAL("@text.txt")),
    R(2, "truncated", EVAL("@ck_cut0.bin")),
    R(2, "truncated", EVAL("@ck_cut1.bin")),
    R(2, "truncated", EVAL("@ck_cut2.bin")),
    R(2, "truncated", EVAL("@ck_cut3.bin")),
    R(2, "truncated", EVAL("@ck_cut4.bin")),
    R(2, "truncated", EVAL("@ck_cut5.bin")),
    R(2, "truncated", EVAL("@ck_cut6.bin")),
    R(2, "truncated", EVAL("@ck_cut7.bin")),
    R(2, "truncated", EVAL("@ck_cut8.bin")),
    R(2, "truncated", EVAL("@ck_cut9.bin")),
    R(2, "padded|truncated", EVAL("@ck_pad.bin")),
    R(2, "bad magic", EVAL("@ck_magic.bin")),
    R(2, "checksum", EVAL("@ck_flip.bin")),
    R(2, "checksum", EVAL("@ck_sum.bin")),
    R(2, "checksum|corrupt", EVAL("@ck_hdrflip.bin")),
    R(2, "version 1", EVAL("@ck_v1.bin")),
    R(2, "version 4", EVAL("@ck_v4.bin")),
    /* version 3 holds the rotation base after the header: a version-2 body
     * marked 3 reads its first parameters as the base */
    R(2, "corrupt|truncated|padded", EVAL("@ck_v3.bin")),
    R(2, "corrupt checkpoint.*rot-base 1 is outside", EVAL("@ck_base1.bin")),
    R(2, "corrupt checkpoint.*rot-base -?nan is outside", EVAL("@ck_basenan.bin")),
    R(2, "corrupt checkpoint.*rotation base inf", EVAL("@ck_baseinf.bin")),
    R(2, "truncated", EVAL("@ck_basecut.bin")),
    R(2, "checksum", EVAL("@ck_basesum.bin")),
    R(2, "corrupt checkpoint.*rot-base 1 is outside", PROBE("@ck_base1.bin")),
    R(2, CKBAD, EVAL("@ck_layers0.bin")),
    R(2, CKBAD, EVAL("@ck_layersneg.bin")),
    R(2, CKBAD, EVAL("@ck_layers32.bin")), /* 64 to 32 bits */
    R(2, CKBAD, EVAL("@ck_width0.bin")),
    R(2, CKBAD, EVAL("@ck_width7.bin")),
    R(2, CKBAD, EVAL("@ck_heads0.bin")),
    R(2, CKBAD, EVAL("@ck_heads3.bin")),
    R(2, CKBAD, EVAL("@ck_ctx0.bin")),
    R(2, CKBAD, EVAL("@ck_ctxneg.bin")),
    R(2, CKBAD, EVAL("@ck_ctx32.bin")), /* -2^32+8 read as 8 */
    R(2, CKBAD "|memory|bytes|[GTPE]i?B", EVAL("@ck_ctxhuge.bin")), /* the size named, refused up front */
    R(2, CKBAD, EVAL("@ck_vocab1.bin")),
    R(2, CKBAD, EVAL("@ck_vocabbig.bin")),
    R(2, CKBAD, EVAL("@ck_rot.bin")),
    R(2, CKBAD, EVAL("@ck_mode.bin")),
    R(2, CKBAD, EVAL("@ck_alibi.bin")),
    R(2, CKBAD, EVAL("@ck_path.bin")),
    R(2, CKBAD "|dropout", EVAL("@ck_dropnan.bin")),
    R(2, CKBAD "|dropout", EVAL("@ck_drop1.bin")),
    R(2, CKBAD, EVAL("@ck_nparams.bin")),
    R(2, CKBAD, EVAL("@ck_nparamsneg.bin")),

    /* ---- probe ---- */
    R(2, "--ckpt and --data are required", "probe", "--out", "@OUT"),
    R(2, UNKNOWN, PROBE("@run/ckpt.bin"), "--bogus"),
    R(2, "--windows 0 is " RANGE, PROBE("@run/ckpt.bin"), "--windows", "0"),
    R(2, "--lengths", PROBE("@run/ckpt.bin"), "--lengths", "8,,16"),
    R(2, "--lengths", PROBE("@run/ckpt.bin"), "--lengths", "x"),
    R(2, "length|--lengths", PROBE("@run/ckpt.bin"), "--lengths", "-8"),
    R(2, LONGLEN, PROBE("@run/ckpt.bin"), "--lengths", "9223372036854775807"),
    R(2, "validation (tokens|stream)", PROBE("@run/ckpt.bin"), "--lengths", "1000000"),
    R(2, "checkpoint: cannot read", PROBE("@MISSING")),
    R(2, "bad magic", PROBE("@ck_magic.bin")),
    R(2, "truncated", PROBE("@ck_cut7.bin")),
    R(2, CKBAD, PROBE("@ck_ctx32.bin")),
    R(2, CKBAD "|" NOTFILE, PROBE("@fifo")), /* not a regular file */
    R(2, NOTFILE, PROBE("@run/ckpt.bin"), "--data", "@fifo"),
    R(2, "no tokens|too few", PROBE("@run/ckpt.bin"), "--data", "@empty.txt"),
    R(2, NOWRITE, PROBE("@run/ckpt.bin"), "--out", "@text.txt/sub"),
    R(2, NOWRITE, PROBE("@run/ckpt.bin"), "--out", "/proc/routelab-badinput"),
    R(2, FULL, PROBE("@run/ckpt.bin"), "--out", "@FULL/p"), /* exit 0, truncated PNG */

    /* ---- horizon ---- */
    R(2, "--ckpt and --data are required", "horizon", "--out", "@OUT"),
    R(2, "--ckpt and --data are required", "horizon", "--ckpt", "@run/ckpt.bin", "--out", "@OUT"),
    R(2, UNKNOWN, HORIZON("@run/ckpt.bin"), "--bogus"),
    R(2, "--eps 0 is " RANGE, HORIZON("@run/ckpt.bin"), "--eps", "0"),
    R(2, "--eps 1 is " RANGE, HORIZON("@run/ckpt.bin"), "--eps", "1"),
    R(2, "--eps " NOTNUM, HORIZON("@run/ckpt.bin"), "--eps", "nan"),
    R(2, "--tokens -1 is " RANGE, HORIZON("@run/ckpt.bin"), "--tokens", "-1"),
    R(2, "--tokens " NOTINT, HORIZON("@run/ckpt.bin"), "--tokens", "x"),
    R(2, "checkpoint: cannot read", HORIZON("@MISSING")),
    R(2, "bad magic", HORIZON("@ck_magic.bin")),
    R(2, "truncated", HORIZON("@ck_cut7.bin")),
    R(2, CKBAD "|" NOTFILE, HORIZON("@fifo")),
    R(2, NOTFILE, HORIZON("@run/ckpt.bin"), "--data", "@fifo"),
    R(2, "no tokens|too few", HORIZON("@run/ckpt.bin"), "--data", "@empty.txt"),
    R(2, NOWRITE, HORIZON("@run/ckpt.bin"), "--out", "@text.txt/sub"),
    R(2, NOWRITE, HORIZON("@run/ckpt.bin"), "--out", "/proc/routelab-badinput.tsv"),
    R(2, FULL, HORIZON("@run/ckpt.bin"), "--out", "@FULL/h.tsv"),

    /* ---- reproduce ---- */
    R(2, UNKNOWN, REPRO, "--bogus"),
    R(2, "--preset " CHOICE, REPRO, "--preset", "huge"),
    R(2, "--theory " CHOICE, REPRO, "--theory", "bogus"),
    R(2, "--variants: --pos bogus", REPRO, "--variants", "bogus"),
    R(2, "--variants", REPRO, "--variants", ""),
    R(2, "--variants", REPRO, "--variants", "rope,,alibi"),
    R(2, "--probe", REPRO, "--probe", "bogus"), /* named, not ignored */
    R(2, "--max-mult 0 is " RANGE, REPRO, "--max-mult", "0"),
    R(2, "--seeds 0 is " RANGE, REPRO, "--seeds", "0"),
    R(2, "--seeds 100000 is " RANGE, REPRO, "--seeds", "100000"),
    R(2, "--seeds " NOTINT, REPRO, "--seeds", "two"),
    R(2, "runs past the largest seed", REPRO, "--seed", "9200000000000000000", "--seeds", "2"),
    R(2, "--ctx 1 is " RANGE, REPRO, "--ctx", "1"),
    /* NAME@BASE variants and the token-matched evaluation */
    R(2, "the base after '@'", REPRO, "--variants", "rope@x"),
    R(2, "the base after '@'", REPRO, "--variants", "rope@1"),
    R(2, "the base after '@'", REPRO, "--variants", "rope@"),
    R(2, "the base after '@'", REPRO, "--variants", "rope@nan"),
    R(2, "the base after '@'", REPRO, "--variants", "alibi,rope@1e9"),
    R(2, "empty name", REPRO, "--variants", "rope,@10000"), /* "@..." alone is a fixture */
    R(2, "--variants: --pos bogus", REPRO, "--variants", "bogus@500"),
    R(2, "names rope@10000 twice", REPRO, "--variants", "rope,rope@10000"),
    R(2, "--eval-targets 0 is " RANGE, REPRO, "--eval-targets", "0"),
    R(2, "--eval-targets " NOTINT, REPRO, "--eval-targets", "x"),
    R(2, "--eval-targets, --eval-full and --eval-batches exclude each other", REPRO, "--eval-targets", "64"),
    R(2, "--eval-targets, --eval-full and --eval-batches exclude each other", REPRO, "--eval-full"),
    R(2, "--eval-windows must be one of spans\\|sampled, got 'x'", REPRO, "--eval-windows", "x"),
    R(2, "--eval-windows does not apply to --eval-batches", REPRO, "--eval-windows", "sampled"),
    R(2, "--rot-base 1 is " RANGE, REPRO, "--rot-base", "1"),
    R(2, "--rot-base " NOTNUM, REPRO, "--rot-base", "inf"),
    R(2, "--lr", REPRO, "--lr", "abc"),
    R(2, "no tokens", REPRO, "--data", "@raw_empty.bin"), /* two lines */
    R(2, "cannot read|No such file", REPRO, "--data", "@MISSING"),
    R(2, NOTFILE, REPRO, "--data", "@fifo"), /* not a regular file */
    R(2, NOWRITE, REPRO, "--out", "@text.txt/sub"), /* the grid's data checks pass: the folder fails */

    /* ---- bench ---- */
    R(2, "--what " CHOICE, "bench", "--what", "x"),
    R(2, UNKNOWN, "bench", "--bogus"),
    R(2, "unexpected argument", "bench", "extra"),
    /* bench's pruning section (docs/speed/reproduction-and-pruning.md#pruned-attention) */
    R(2, "--what prune needs --ckpt", "bench", "--what", "prune"),
    R(2, "apply to --what prune", "bench", "--what", "haar", "--ckpt", "@run/ckpt.bin"),
    R(2, "--prune-eps 0 is " RANGE, "bench", "--what", "prune", "--ckpt", "@run/ckpt.bin", "--prune-eps", "0"),
    R(2, "has no distance bias: nothing to prune", "bench", "--what", "prune", "--ckpt", "@run/ckpt.bin",
      "--data", "@text.txt"),

    /* ---- found while building the table (beyond the first ten faults) ---- */
    /* two stage lengths of LONG_MAX: their sum overflows (UB), wraps negative, and the default
     * 1000 steps run instead */
    R(2, "--lr", "train", "--data", "@text.txt", "--out", "@OUT", "--lr",
      "1e-3:9223372036854775807,1e-4:9223372036854775807", "--layers", "1", "--width", "8",
      "--heads", "2", "--ctx", "8", "--batch", "2", "--threads", "1"),
    /* a stage length beyond the long range, clamped silently */
    R(2, "--lr", "train", "--data", "@text.txt", "--out", "@OUT", "--lr", "1e-3:99999999999999999999",
      "--layers", "1", "--width", "8", "--heads", "2", "--ctx", "8", "--batch", "2", "--threads", "1"),

    /* ---- output targets and aliasing (more in tests/test_outputs.c) ---- */
    /* an output that exists and is not a regular file (a device node made in the case
     * folder: exit 0 and a regular file in its place before), or a symbolic link (replaced) */
    R(2, "cannot write .*dev: it is a (device|FIFO)", "sample", "--d", "4", "--count", "2", "--out", "@DEV"),
    R(2, "cannot write .*dev: it is a (device|FIFO)", EVAL("@run/ckpt.bin"), "--out", "@DEV"),
    R(2, "cannot write .*dev: it is a (device|FIFO)", EVAL("@run/ckpt.bin"), "--starts", "@DEV"),
    R(2, "cannot write .*dev: it is a (device|FIFO)", HORIZON("@run/ckpt.bin"), "--out", "@DEV"),
    R(2, "cannot write .*link: it is a symbolic link", "sample", "--d", "4", "--count", "2", "--out", "@LINK"),
    R(2, "cannot write .*link: it is a symbolic link", EVAL("@run/ckpt.bin"), "--out", "@LINK"),
    R(2, "cannot write .*link: it is a symbolic link", EVAL("@run/ckpt.bin"), "--starts", "@LINK"),
    R(2, "cannot write .*link: it is a symbolic link", HORIZON("@run/ckpt.bin"), "--out", "@LINK"),
    /* an output that is an input (a copy of the fixture: the old tree overwrote it) */
    R(2, "--out and --ckpt name the same file", EVAL("@COPY:run/ckpt.bin"), "--out", "@COPY:run/ckpt.bin"),
    R(2, "--starts and --ckpt name the same file", EVAL("@COPY:run/ckpt.bin"), "--starts", "@COPY:run/ckpt.bin"),
    R(2, "--out and --val-log name the same file", EVAL("@COPY:run/ckpt.bin"), "--val-log",
      "@COPY:run/log.tsv", "--out", "@COPY:run/log.tsv"),
    /* the default log beside the checkpoint, not made yet: compared by path */
    R(2, "--out and --val-log name the same file", EVAL("@COPY:run/ckpt.bin"), "--out", "@CASE/log.tsv"),
    R(2, "--out and --data name the same file", EVAL("@run/ckpt.bin"), "--data", "@COPY:text.txt",
      "--out", "@COPY:text.txt"),
    R(2, "--out and --starts name the same file", EVAL("@run/ckpt.bin"), "--starts", "@OUT"),
    /* an earlier evaluation is a result: refused without --force, left as it was */
    R(2, "--out .*exists \\(an earlier evaluation\\): --force replaces it", "eval", "--ckpt", "@run/ckpt.bin",
      "--data", "@text.txt", "--lengths", "8", "--batches", "1", "--out", "@COPY:text.txt"),
    R(2, "--out and --ckpt name the same file", HORIZON("@COPY:run/ckpt.bin"), "--out", "@COPY:run/ckpt.bin"),
    R(2, "--out folder .* holds the input --ckpt", PROBE("@COPY:run/ckpt.bin"), "--out", "@CASE"),
    R(2, "--out and --text name the same file", TOKSO2, "--count", "2", "--text", "@COPY:text.txt", "--out",
      "@COPY:text.txt"),
    R(2, "--out and --(from|out) name the same folder", "data", "bpe", "--vocab", "300", "--from", "@TEXTDIR",
      "--out", "@TEXTDIR"),
    R(2, "--out folder .* holds the input --from", "data", "bpe", "--vocab", "300", "--from",
      "@TEXTDIR/text.txt", "--out", "@TEXTDIR"),
    R(2, "--out folder .* holds the input FILE", "data", "text", "@TEXTDIR/text.txt", "--out", "@TEXTDIR"),
    R(2, "--out folder .* holds the input --data", "train", "--data", "@TEXTDIR/text.txt", "--out", "@TEXTDIR",
      "--layers", "1", "--width", "8", "--heads", "2", "--ctx", "8", "--batch", "2", "--steps", "1",
      "--threads", "1"),
    R(2, "--out folder .* holds the input --data", REPRO, "--data", "@TEXTDIR/text.txt", "--out", "@TEXTDIR"),
    R(2, "--out folder .* holds the input --text", "mixing", "--text", "@TEXTDIR/text.txt", "--out", "@TEXTDIR",
      "--threads", "1"),

    /* ---- one writer per folder, the NaN guard, resume ---- */
    /* a folder whose lock another process holds: every writer refuses it */
#define INUSE "locked.* is in use by another routelab process"
    R(2, INUSE, "train", "--data", "@text.txt", "--out", "@LOCKED", "--layers", "1", "--width", "8",
      "--heads", "2", "--ctx", "8", "--batch", "2", "--steps", "1", "--threads", "1"),
    R(2, INUSE, "train", "--resume", "--data", "@text.txt", "--out", "@LOCKEDRUN", "--threads", "1"),
    R(2, INUSE, "eval", "--ckpt", "@LOCKEDRUN/ckpt.bin", "--data", "@text.txt", "--lengths", "8",
      "--batches", "1"),
    R(2, INUSE, "probe", "--ckpt", "@run/ckpt.bin", "--data", "@text.txt", "--lengths", "8", "--windows",
      "1", "--out", "@LOCKED"),
    R(2, INUSE, REPRO_IN("@LOCKED")),
    R(2, INUSE, "theory", "--preset", "quick", "--threads", "1", "--out", "@LOCKED"),
    R(2, INUSE, "data", "text", "@text.txt", "--out", "@LOCKED"),
    R(2, INUSE, "data", "bpe", "--vocab", "300", "--from", "@text.txt", "--out", "@LOCKED"),
    R(2, INUSE, "data", "brown", "--from", "@tgz_fewdocs.tgz", "--out", "@LOCKED"),
    /* a fresh run into a folder holding another run's checkpoint */
    R(2, "run.* holds a run \\(ckpt.bin\\); --resume continues it", TRAIN_IN("@RUN:run/ckpt.bin")),
    R(2, "run.* holds a run", TRAIN_IN("@RUN:run/ckpt.bin"), "--lr", "1e30"),
    /* a checkpoint with a NaN parameter or an infinite moment (checksum correct) */
    R(2, "non-finite values.*parameter 3", EVAL("@ck_nanparam.bin")),
    R(2, "non-finite values.*second AdamW moment", EVAL("@ck_infmoment.bin")),
    R(2, "non-finite values", PROBE("@ck_nanparam.bin")),
    R(2, "non-finite values", HORIZON("@ck_infmoment.bin")),
    R(2, "non-finite values", RESUME("ck_nanparam.bin")),
    R(2, "non-finite values", RESUME("ck_infmoment.bin")),
    /* finite weights that overflow: -nan with exit 0 before */
    R(2, "activations of layer 0 are not finite at length 8", EVAL("@ck_huge.bin")),
    R(2, "activations of layer 0 are not finite at length 8", EVALT("@ck_huge.bin")),
    R(2, "activations of layer 0 are not finite at length 8", PROBE("@ck_huge.bin")),
    /* a rate that diverges at once writes no checkpoint (a finite but diverged
     * state at 1e30, infinite parameters at 1e300) */
    R(2, "validation loss of -?nan.*no checkpoint of this run", TRAIN, "--lr", "1e30", "--ckpt-every", "1",
      "--steps", "3"),
    R(2, "not finite after step 1.*no checkpoint of this run", TRAIN, "--lr", "1e300", "--ckpt-every", "1",
      "--steps", "3"),
    /* a resume shorter than its checkpoint (the fixture is at step 1) */
    R(2, "below the checkpoint's step 2", RESUME("ck_step2.bin"), "--steps", "1"),
    /* a --stop-at the checkpoint has passed trained to the end and exited 0 before */
    R(2, "--stop-at 1 is below the checkpoint's step 2", RESUME("ck_step2.bin"), "--stop-at", "1"),

    /* ---- misc: bounded work, non-finite outputs, write failures, injection ---- */
    /* a model too big for the machine was refused by the child run, after folders */
    R(2, "reproduce: rope: a model of 64 layers.* more than", REPRO, "--variants", "rope", "--layers", "64",
      "--width", "8192"),

    /* a 40,000-byte word crashed SentencePiece's trainer (SIGSEGV, nothing on stderr) */
    R(2, "data bpe: .*longword.txt: a word .* passes 16384 bytes", "data", "bpe", "--vocab", "300",
      "--from", "@longword.txt", "--out", "@OUT"),
    /* a symlink inside the archive pulled /etc/hostname into train.bin */
    R(2, "archive member package/ca12 \\(a symbolic link\\)", "data", "brown", "--from",
      "@tgz_symlink.tgz", "--out", "@OUT"),
    /* control characters in a flag value were echoed raw (a newline split the line, an
     * escape sequence cleared the reader's terminal) */
    R(2, "--k expects a finite number, got '1\\\\x0a2'", "bound", "farmass", "--k", "1\n2"),
    R(2, "--k expects a finite number, got '\\\\x1b\\[2J'", "bound", "farmass", "--k", "\x1b[2J"),
    R(2, "--seed expects an integer, got '7\\\\x0d'|--seed " NOTINT ".*\\\\x0d", "sample", "--seed", "7\r"),
    R(2, "unknown bound 'a\\\\x7fb'", "bound", "a\x7f" "b"),
    /* --ml 1e19 went through an out-of-range cast to long (printed -0); 1e12 ran an hour */
    R(2, "--ml 1e\\+19 must be a whole number .* at most 2\\^53", "bound", "value-incoherent", "--ml", "1e19"),
    R(2, "--ml 2.5 must be a whole number", "bound", "value-incoherent", "--ml", "2.5"),
    /* NaN results with exit 0; an overflowing sigma was an internal failure */
    R(2, "--sigma 5e307 is out of range \\[0, 1000000\\]", "sample", "--family", "brownian", "--sigma", "5e307"),
    R(2, "--sigma 1e308 is out of range \\[0, 1000000\\]", "bound", "norm2", "--family", "brownian", "--sigma", "1e308"),
    R(2, "bound alibi: the result .* not a finite number \\(nan\\)", "bound", "alibi", "--lambda", "1e308",
      "--slope", "1e308"),
    R(2, "bound alibi: the result .* not a finite number \\(-inf\\)", "bound", "alibi", "--slope", "1e308",
      "--best"),
    /* output lost to a full device was exit 0 */
    R(1, "cannot write standard output: No space left", "bound", "farmass", "@>/dev/full"),
    R(1, "cannot write standard output: No space left", "claims", "@>/dev/full"),
    R(1, "cannot write standard output: No space left", "data", "check", "@tok_ok.bin", "@>/dev/full"),
    R(1, "cannot write standard output: No space left", "bound", "--help", "@>/dev/full"),
};

Test(badinput, table, .timeout = 0)
{
    const int n = (int)(sizeof cases / sizeof *cases);
    const char *only = getenv("BADINPUT_ONLY");
    bi_env *e = bi_setup();
    int held = 0, failed = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        if (only) {
            char num[16];
            snprintf(num, sizeof num, ",%d,", i + 1);
            char *list = malloc(strlen(only) + 3);
            sprintf(list, ",%s,", only);
            int want = strstr(list, num) != NULL;
            free(list);
            if (!want)
                continue;
        }
        int r = bi_run_case(e, &cases[i], i);
        held += r == 1;
        failed += r == 0;
        skipped += r < 0;
    }
    cr_log_info("badinput: %d cases, %d held, %d failed, %d skipped", n, held, failed, skipped);
    bi_teardown(e);
    cr_expect(n >= 200, "the table has %d cases, fewer than 200", n);
}
