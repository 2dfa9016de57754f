#!/bin/sh
# bench_ranks.sh: what ranks cost and give on this machine (`make bench`).
# Data-parallel training: one process on all cores against `mpirun -np 2`
# with the cores split between the ranks (routelab bench --what ranks), and
# the Monte Carlo speed-up with ranks: farmass --preset quick on one thread,
# alone and as 2 ranks of one thread each (the TSVs are the same bytes).
# Every command is printed before its figures.
set -eu
BIN=${1:-build/routelab}
MPIRUN="mpirun --allow-run-as-root --oversubscribe -q"
export OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "command: $BIN bench --what ranks"
"$BIN" bench --what ranks | grep '^ranks'
echo "command: $MPIRUN -np 2 $BIN bench --what ranks"
$MPIRUN -np 2 "$BIN" bench --what ranks | grep '^ranks'

secs() { # wall seconds of a command, its output discarded
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
}
one="$BIN farmass --preset quick --seed 1 --threads 1 --out $tmp/r1"
two="$MPIRUN -np 2 $BIN farmass --preset quick --seed 1 --threads 1 --out $tmp/r2"
echo "command: $one"
s1=$(secs $one)
echo "command: $two"
s2=$(secs $two)
same=same
for f in "$tmp"/r1/*.tsv; do
    cmp -s "$f" "$tmp/r2/${f##*/}" || same=different
done
echo "ranks monte carlo farmass --preset quick, 1 thread per rank: 1 rank $s1 s, 2 ranks $s2 s," \
     "speed-up $(echo "$s1 $s2" | awk '{ printf "%.2f", $1 / $2 }')x (every TSV: $same bytes)"
