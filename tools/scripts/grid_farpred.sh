#!/bin/sh
# grid_farpred.sh: the far-mass prediction (docs/theory/farpred.md#far-mass-prediction) for a
# committed grid whose checkpoints are not committed (grids/: 486 MB of ckpt.bin left out).
#
# Each model is retrained from its own config.txt (the grid's `routelab train` line; same
# seed, same bytes: log.tsv equal but for its tokens_per_s column) into the folder that
# config.txt names, two models at a time with one thread each, the first SEEDS seeds only,
# seed by seed;
# the committed config.txt, log.tsv, eval.tsv, horizon.tsv and probe/ are copied beside
# each checkpoint with the grid's "trained" marker, so that `routelab reproduce` over that
# folder runs only the missing stage (farpred and its probe at every length); a model whose
# farpred/ GRID already holds is copied with it and not retrained; then each model's
# farpred/ folder (less the probe's per-model figures) is copied back into GRID and GRID's
# report is rewritten.
#
# usage: [STRICT=1] sh tools/scripts/grid_farpred.sh [GRID] [SEEDS] [BIN]
#        with OPENBLAS_CORETYPE set to the kernel set the grid was trained on where this
#        machine's OpenBLAS picks another (grids: Haswell); a retrained log that is
#        not the committed one stops the script (status 2)
#        (defaults: grids, 6, build/routelab; run from the repository root)
#        Before anything is written, BIN compares the grid's build and kernel set (its
#        config.txt's build and kernels lines) with its own under this environment, as
#        `routelab reproduce` does
#        (docs/speed/reproduction-and-pruning.md#reproduction-across-builds): where they differ, one
#        line says the retrained models reproduce the grid statistically (and the log comparison
#        will most likely stop the script); STRICT=1 refuses instead, status 2 (STRICT: 0 or 1).
set -eu
# No word of ours or of the grid's files is ever a pattern (the grid's command line once
# expanded unquoted: `--probe *` became file names).
set -f
die() { echo "grid_farpred: $*" >&2; exit 2; }
[ $# -le 3 ] || die "at most three arguments: GRID SEEDS BIN (got $#)"
case "${STRICT:-0}" in 0 | 1) ;; *) die "STRICT must be 0 or 1, got '$STRICT'" ;; esac
GRID=${1:-grids}
SEEDS=${2:-6}
# every argument checked before anything is written (before, SEEDS -1
# retrained and replaced, SEEDS 0 rewrote the report, "abc" exited 1 with head's message)
case "$SEEDS" in '' | *[!0-9]*) die "SEEDS must be a whole number of seeds >= 1, got '$SEEDS'" ;; esac
[ "$SEEDS" -ge 1 ] 2>/dev/null || die "SEEDS must be a whole number of seeds >= 1, got '$SEEDS'"
B=${3:-build/routelab}
[ -f "$B" ] && [ -x "$B" ] || die "BIN $B is no executable file"
BIN=$(readlink -f "$B")
[ -d "$GRID/models" ] || die "$GRID has no models/ folder"
set +f
first=$(ls -d "$GRID"/models/*/seed* | head -n 1)
set -f
[ -n "$first" ] && [ -f "$first/config.txt" ] || die "$GRID/models holds no model with a config.txt"
# the grid's own folder, as its models' config.txt names it (.../models/V/seedK)
OUT=$(sed -n '/^--out$/{n;p;q}' "$first/config.txt" | sed 's#/models/[^/]*/seed[0-9]*$##')
[ -n "$OUT" ] || die "$first/config.txt names no --out"
case "$OUT" in /* | [A-Za-z0-9._]*) ;; *) die "$first/config.txt names an --out this script will not write: $OUT" ;; esac
# the grid's own command (config.txt), less its --seeds and --threads: the same flags give the
# same train lines (words without spaces; the committed grids' are)
args=$(sed -n 's/^command\troutelab reproduce //p' "$GRID/config.txt" | sed -E 's/--(seeds|threads) [^ ]+//g')
[ -n "$args" ] || { echo "grid_farpred: $GRID/config.txt has no command line" >&2; exit 2; }
seeds=$(ls "$GRID/models/$(ls "$GRID/models" | head -n 1)" | sed 's/seed//' | sort -n | head -n "$SEEDS")
nseeds=$(echo "$seeds" | wc -w)
[ "$SEEDS" -le "$nseeds" ] || die "SEEDS $SEEDS: the grid has $nseeds seeds"
set +f
# every model of those seeds has what the comparison and the copies read, and trains into the
# folder its own place names (a config.txt is data: its --out must be OUT/models/V/seedK, never
# another folder the script would create, fill and remove), before anything is written
for s in $seeds; do for d in "$GRID"/models/*/seed"$s"; do
    for f in config.txt log.tsv eval.tsv; do
        [ -f "$d/$f" ] && [ -r "$d/$f" ] || die "$d has no readable $f"
    done
    want="$OUT/models/$(basename "$(dirname "$d")")/seed$s"
    got=$(sed -n '/^--out$/{n;p;q}' "$d/config.txt")
    [ "$got" = "$want" ] || die "$d/config.txt trains into $got, not $want (its own place in the grid)"
done; done
# the grid's build record against BIN's build and the kernel set it loads here (OPENBLAS_CORETYPE,
# else the machine's own), by reproduce itself, so that the rule and its line are written once:
# nothing said when they match, one line when they differ, STRICT=1 its refusal (status 2)
strict=
[ "${STRICT:-0}" = 0 ] || strict=--strict
# shellcheck disable=SC2086,SC2046
"$BIN" reproduce $(echo "$args" | sed -E 's/--out [^ ]+//') --out "$GRID" --check-build $strict || exit $?
mkdir -p "$OUT"
if [ -d "$GRID/theory" ] && [ ! -d "$OUT/theory" ]; then cp -r "$GRID/theory" "$OUT/theory"; fi

# one worker: every other model of seed $2
work() {
    i=0
    s=$2
    for d in "$GRID"/models/*/seed"$s"; do
        i=$((i + 1))
        [ $((i % 2)) -eq "$1" ] || continue
        t="$OUT/models/$(basename "$(dirname "$d")")/seed$s"
        [ -f "$t/trained" ] && continue
        # a model whose prediction GRID already holds is not retrained: its files, the
        # prediction's with them, make it a finished item of the grid
        if [ -f "$d/farpred/farpred.tsv" ] && [ -f "$d/farpred/probe/probe.tsv" ]; then
            mkdir -p "$t"
            cp "$d/config.txt" "$d/log.tsv" "$d/eval.tsv" "$t/"
            [ -f "$d/horizon.tsv" ] && cp "$d/horizon.tsv" "$t/"
            [ -d "$d/probe" ] && cp -r "$d/probe" "$t/"
            cp -r "$d/farpred" "$t/"
            echo trained > "$t/trained"
            continue
        fi
        # the train line of config.txt (its first line is the program, then one word per line)
        # (the subcommand's words, then --threads 1: xargs puts its own words first)
        { tail -n +2 "$d/config.txt"; printf -- '--threads\n1\n'; } | tr '\n' '\0' |
            OMP_WAIT_POLICY=passive xargs -0 "$BIN" > "$t.train.log" 2>&1 ||
            { echo "grid_farpred: training $t failed (see $t.train.log)" >&2; exit 1; }
        # the retrained model is the committed one only if its log is (every column but the
        # speed): another OpenBLAS kernel set sums the matmuls in another order and, from the
        # first step, trains another model (docs/theory/farpred.md#farpred-committed-grid); its
        # prediction would not be the grid's, so the run stops here, and GRID is not touched
        cut -f1-4 "$d/log.tsv" > "$t.log.ref"
        cut -f1-4 "$t/log.tsv" > "$t.log.new"
        if ! cmp -s "$t.log.ref" "$t.log.new"; then
            line=$(cmp "$t.log.ref" "$t.log.new" 2>&1 | sed -n 's/.*line \([0-9]*\).*/\1/p')
            kern=$(sed -n 's/.*OpenBLAS kernels \([^ ]*\)$/\1/p' "$t.train.log")
            echo "grid_farpred: retrained $t differs from $d/log.tsv from step $(( ${line:-2} - 1 )) on:" \
                "these OpenBLAS kernels ($kern) are not the grid's; set OPENBLAS_CORETYPE to the grid's" \
                "(docs/theory/farpred.md#farpred-committed-grid)" >&2
            rm -rf "$t" "$t.log.ref" "$t.log.new"
            exit 2
        fi
        rm -f "$t.log.ref" "$t.log.new"
        cp "$d/config.txt" "$d/log.tsv" "$d/eval.tsv" "$t/"
        [ -f "$d/horizon.tsv" ] && cp "$d/horizon.tsv" "$t/"
        [ -d "$d/probe" ] && cp -r "$d/probe" "$t/"
        # the far-mass probe at every length reads the model, not the prediction: what GRID
        # holds of it stays, and only the prediction is computed again
        if [ -f "$d/farpred/probe/probe.tsv" ]; then
            mkdir -p "$t/farpred"
            cp -r "$d/farpred/probe" "$t/farpred/"
        fi
        echo trained > "$t/trained"
    done
}
for s in $seeds; do for d in "$GRID"/models/*/seed"$s"; do
    mkdir -p "$OUT/models/$(basename "$(dirname "$d")")"
done; done
# seed by seed: train its models, run the missing stage over the seeds so far, copy their
# predictions back, so that GRID holds every finished seed's even if the script is stopped
# (a later run keeps them and starts where this one ended)
K=0
for s in $seeds; do
    K=$((K + 1))
    work 0 "$s" & p0=$!
    work 1 "$s" & p1=$!
    # a worker that failed stops the script (`wait A && wait B` alone would not, under set -e)
    r0=0; r1=0
    wait $p0 || r0=$?
    wait $p1 || r1=$?
    # (the worker said why in one line: its status is the script's)
    [ "$r0" -eq 0 ] || exit "$r0"
    [ "$r1" -eq 0 ] || exit "$r1"
    # shellcheck disable=SC2086
    OMP_WAIT_POLICY=passive "$BIN" reproduce $args --seeds "$K" --threads 2
    for d in "$GRID"/models/*/seed"$s"; do
        t="$OUT/models/$(basename "$(dirname "$d")")/seed$s"
        rm -rf "$d/farpred.new"
        cp -r "$t/farpred" "$d/farpred.new"
        # the per-model probe figures stay out of the committed grid (70 KB a model; `routelab
        # probe` draws them again): its report draws farpred.png from the tables
        rm -f "$d/farpred.new/probe/"*.png "$d/farpred.new/probe/"*.gnuplot.log
        rm -rf "$d/farpred"
        mv "$d/farpred.new" "$d/farpred"
    done
done
# shellcheck disable=SC2086
"$BIN" reproduce $(echo "$args" | sed -E 's/--out [^ ]+//') --out "$GRID" --report-only \
    --seeds "$(sed -n 's/^seeds\t//p' "$GRID/config.txt")"
