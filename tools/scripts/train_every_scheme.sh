#!/bin/sh
# train_every_scheme.sh BIN DATA OUT: train and evaluate every position scheme
# at a tiny size, for byte comparisons of two builds (docs/model/transformer.md#scheme-object):
#   sh tools/scripts/train_every_scheme.sh OLD/routelab data/x /tmp/a
#   sh tools/scripts/train_every_scheme.sh build/routelab data/x /tmp/b
#   cmp /tmp/a/rope/ckpt.bin /tmp/b/rope/ckpt.bin   (and the other schemes)
set -eu
die() { echo "train_every_scheme: $*" >&2; exit 2; }
[ $# -eq 3 ] || die "usage: sh tools/scripts/train_every_scheme.sh BIN DATA OUT (OUT new or an empty folder)"
BIN=$1 DATA=$2 OUT=$3 forms=
[ -f "$BIN" ] && [ -x "$BIN" ] || die "$BIN is not an executable file"
[ -e "$DATA" ] || die "no data $DATA"
# OUT is written, never read: it must not exist, or be an empty folder (not
# a link), so that nothing of anyone else's is overwritten or removed
if [ -e "$OUT" ] || [ -L "$OUT" ]; then
    [ -d "$OUT" ] && [ ! -L "$OUT" ] && [ -z "$(ls -A "$OUT")" ] || die "$OUT exists and is not an empty folder"
fi
mkdir -p "$OUT"
# The scheme names come from the registry, as `train --help` prints them (a
# new scheme is covered without editing this script); each in its default mode
# and, where the scheme takes it, with the values rotated too (_qkv), plus the
# named forms the help lists beside them.
names=$("$BIN" train --help | sed -n 's/.*NAME one of \([a-z_ -]*\) (.*/\1/p')
[ -n "$names" ] || { echo "train_every_scheme: no scheme list in '$BIN train --help'" >&2; exit 2; }
for n in $names; do
    forms="$forms $n ${n}_qkv"
done
for p in $forms fixed-rope alibi alibi+random_qkv; do
    if ! "$BIN" train --data "$DATA" --out "$OUT/$p" --pos "$p" --layers 2 --width 32 --heads 2 \
        --ctx 16 --steps 6 --batch 2 --val-every 3 --val-batches 2 --lr cosine:1e-3:2 \
        --threads 2 --seed 3 >/dev/null 2>"$OUT/$p.err"; then
        # a scheme that does not rotate values refuses _qkv: skipped, said once
        # (train checks its flags before it creates --out: there is no folder to remove)
        grep -q -- '--pos' "$OUT/$p.err" && { echo "skipped $p: $(cat "$OUT/$p.err")"; rm -f "$OUT/$p.err"; continue; }
        cat "$OUT/$p.err" >&2; exit 1
    fi
    rm -f "$OUT/$p.err"
    "$BIN" eval --ckpt "$OUT/$p/ckpt.bin" --data "$DATA" --lengths 16,64 --threads 2 \
        >"$OUT/$p/eval.txt"
done
