#!/bin/sh
# compare_builds.sh: two builds of routelab side by side, for speed work that
# must keep every number (docs/speed/eval-and-training.md#fused-elementwise).  Needs data/brown
# (make setup-data).
#
# usage: sh tools/scripts/compare_builds.sh bytes OLD NEW
#   every scheme at a tiny size (tools/scripts/train_every_scheme.sh) and rope,
#   random_qkv, lf_qk, path, alibi at the phenomena grid's width (4 heads,
#   T = 64, B = 16, 12 steps, evaluated at 64 and 512), each trained and
#   evaluated by both builds, on OpenBLAS's own kernel choice and on the
#   Haswell kernels the committed grid was trained on; compares ckpt.bin,
#   eval.tsv and log.tsv (its columns without the speed) with cmp.  Prints one
#   line per kernel set and one per differing file; exit status 1 when any
#   file differs.  A bad argument, missing data or a failed run: one line and
#   status 2.  It writes only inside its own temporary folder, removed at exit.
# usage: sh tools/scripts/compare_builds.sh speed OLD NEW [ROUNDS]
#   median tokens/s of `routelab train` (steps after the sixth) at llm.c's two
#   CPU shapes and the phenomena grid's, on 1 and 2 threads, the builds
#   alternated ROUNDS times (default 2) so that both see the same load.
set -eu
die() {
    echo "compare_builds.sh: $*" >&2
    exit 2
}
[ $# -ge 3 ] || die "usage: sh tools/scripts/compare_builds.sh bytes|speed OLD NEW [ROUNDS]"
MODE=$1
case $MODE in bytes | speed) ;; *) die "unknown mode '$MODE' (bytes or speed)" ;; esac
for b in "$2" "$3"; do
    [ -f "$b" ] && [ -x "$b" ] || die "'$b' is not an executable file"
done
OLD=$(readlink -f "$2") NEW=$(readlink -f "$3")
ROUNDS=${4:-2}
# at most six digits before any arithmetic: a longer number made `[` print its own line too
case $ROUNDS in '' | *[!0-9]* | ???????*) die "ROUNDS '$ROUNDS' is not a positive integer below 1000000" ;; esac
[ "$ROUNDS" -gt 0 ] || die "ROUNDS '$ROUNDS' is not a positive integer below 1000000"
[ -f data/brown/train.bin ] || die "no data/brown here (run it from the repository root after make setup-data)"
D=$(mktemp -d)
# A TERM, INT or HUP stops every process this script started (the training subshells went on
# and the temporary folder stayed), then removes the folder.
killtree() {
    for c in $(pgrep -P "$1" 2>/dev/null); do killtree "$c"; done
    [ "$1" = $$ ] || kill -TERM "$1" 2>/dev/null || true
}
stop() {
    trap - EXIT TERM INT HUP
    killtree $$
    rm -rf "$D"
    exit "$1"
}
trap 'rm -rf "$D"' EXIT
trap 'stop 143' TERM
trap 'stop 130' INT
trap 'stop 129' HUP

# bytes_run BIN OUT [env ...]: returns nonzero, naming the run that failed
bytes_run() {
    bin=$1 out=$2
    shift 2
    env "$@" sh tools/scripts/train_every_scheme.sh "$bin" data/brown "$out/small" >/dev/null 2>&1 ||
        { echo "train_every_scheme.sh with $bin"; return 1; }
    for p in rope random_qkv lf_qk path alibi; do
        env "$@" "$bin" train --data data/brown --out "$out/w128/$p" --pos "$p" --layers 2 --width 128 \
            --heads 4 --ctx 64 --batch 16 --steps 12 --val-every 6 --val-batches 2 --lr cosine:1e-3:2 \
            --threads 2 --seed 5 >/dev/null 2>&1 || { echo "$bin train --pos $p"; return 1; }
        env "$@" "$bin" eval --ckpt "$out/w128/$p/ckpt.bin" --data data/brown --lengths 64,512 \
            --threads 2 >/dev/null 2>&1 || { echo "$bin eval of $p"; return 1; }
    done
}

if [ "$MODE" = bytes ]; then
    bad=0
    for core in own Haswell; do
        set --
        [ $core = Haswell ] && set -- OPENBLAS_CORETYPE=Haswell
        # in the background, then `wait`: sh runs a trap only between commands, and a
        # foreground run of minutes would hold a TERM until its end
        bytes_run "$OLD" "$D/$core/old" "$@" >"$D/why" & wait $! || die "failed on the $core kernels: $(cat "$D/why")"
        bytes_run "$NEW" "$D/$core/new" "$@" >"$D/why" & wait $! || die "failed on the $core kernels: $(cat "$D/why")"
        n=0 nd=0
        for f in $(cd "$D/$core/old" && find . -name ckpt.bin -o -name eval.tsv -o -name log.tsv | sort); do
            n=$((n + 1))
            a=$D/$core/old/$f b=$D/$core/new/$f
            if [ "${f##*/}" = log.tsv ]; then # columns 1-4: step, train and val loss, lr (5 is the speed)
                cut -f1-4 "$a" >"$D/a"
                cut -f1-4 "$b" >"$D/b"
                a=$D/a b=$D/b
            fi
            if ! cmp -s "$a" "$b"; then
                echo "differs: $core kernels $f"
                nd=$((nd + 1))
            fi
        done
        [ $n -gt 0 ] || die "no files to compare on the $core kernels"
        echo "bytes, $core kernels: $n files compared, $nd differ"
        bad=$((bad + nd))
    done
    [ $bad -eq 0 ]
elif [ "$MODE" = speed ]; then
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        r=$((r + 1))
        for tag in old new; do
            bin=$OLD
            [ $tag = new ] && bin=$NEW
            for th in 1 2; do
                for sh in "4 256 4 128 8 60" "6 384 6 256 4 30" "4 128 4 64 16 150"; do
                    set -- $sh
                    rm -rf "$D/x"
                    "$bin" train --data data/brown --out "$D/x" --layers "$1" --width "$2" --heads "$3" \
                        --ctx "$4" --batch "$5" --steps "$6" --lr 1e-3 --threads $th --val-every 100000 \
                        --val-batches 1 --ckpt-every 100000 >/dev/null 2>&1 &
                    wait $! || die "$bin train at ${1}L w$2 on $th threads failed"
                    med=$(awk -F'\t' 'NR > 6 { print $5 }' "$D/x/log.tsv" | sort -n |
                        awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
                    [ -n "$med" ] || die "$bin train at ${1}L w$2 logged no steps"
                    echo "round $r $tag: $th thr ${1}L w$2 T$4 B$5: $med tok/s"
                done
            done
        done
    done
fi
