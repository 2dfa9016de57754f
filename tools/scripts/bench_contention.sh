#!/bin/sh
# bench_contention.sh: 2-thread training, quiet and beside a busy core, per
# OpenMP wait setting (docs/speed/eval-and-training.md#omp-passive-wait).  Whole runs of `routelab
# train` (start-up included) at llm.c's first CPU shape; prints the wall seconds of
# each and their ratio.  Needs data/brown (make setup-data; routelab data brown).
#
# usage: sh tools/scripts/bench_contention.sh [BIN] [STEPS] [MODE ...]
#   MODE: new (nothing set: routelab's own choice), old (GOMP_SPINCOUNT=300000,
#   libgomp's default), passive (OMP_WAIT_POLICY=passive); default: new old
set -eu
BIN=$(readlink -f "${1:-build/routelab}")
STEPS=${2:-60}
[ $# -ge 2 ] && shift 2 || shift $#
[ $# -gt 0 ] || set -- new old
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
one() {
    rm -rf "$D/x"
    s=$(date +%s.%N)
    "$BIN" train --data data/brown --out "$D/x" --layers 4 --width 256 --heads 4 --ctx 128 --batch 8 \
        --steps "$STEPS" --lr 1e-3 --threads 2 --val-every 100000 --val-batches 1 --ckpt-every 100000 >/dev/null
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}
for mode in "$@"; do
    unset OMP_WAIT_POLICY GOMP_SPINCOUNT
    case $mode in
    new) ;;
    old) export GOMP_SPINCOUNT=300000 ;;
    passive) export OMP_WAIT_POLICY=passive ;;
    *) echo "bench_contention: unknown mode '$mode' (new, old, passive)" >&2; exit 2 ;;
    esac
    q=$(one)
    sh -c 'while :; do :; done' &
    bp=$!
    b=$(one)
    kill "$bp"
    echo "$mode: quiet ${q} s, beside a busy core ${b} s, ratio $(echo "$q / $b" | bc -l | cut -c1-5)"
done
