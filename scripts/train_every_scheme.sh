#!/bin/sh
# train_every_scheme.sh BIN DATA OUT: train and evaluate every position scheme
# at a tiny size, for byte comparisons of two builds (NOTES.md §6.5):
#   sh scripts/train_every_scheme.sh OLD/routelab data/x /tmp/a
#   sh scripts/train_every_scheme.sh build/routelab data/x /tmp/b
#   cmp /tmp/a/rope/ckpt.bin /tmp/b/rope/ckpt.bin   (and the other schemes)
set -eu
BIN=$1 DATA=$2 OUT=$3
mkdir -p "$OUT"
for p in rope fixed-rope random_qk random_qkv pemb_qk pemb_qkv lf_qk lf_qkv alibi alibi+random_qkv none path; do
    "$BIN" train --data "$DATA" --out "$OUT/$p" --pos "$p" --layers 2 --width 32 --heads 2 \
        --ctx 16 --steps 6 --batch 2 --val-every 3 --val-batches 2 --lr cosine:1e-3:2 \
        --threads 2 --seed 3 >/dev/null
    "$BIN" eval --ckpt "$OUT/$p/ckpt.bin" --data "$DATA" --lengths 16,64 --threads 2 \
        >"$OUT/$p/eval.txt"
done
