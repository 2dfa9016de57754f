#!/bin/sh
# grid_times.sh GRID: where a reproduce grid's wall time went, read from its
# model folders' file times (docs/grids/bpe-and-phenomena.md#cpu-grid-bpe): a model's training runs
# from its config.txt (written when training starts) to `trained`; its evaluation and
# probe from `trained` to the last of eval.tsv and probe/*.  A resumed grid
# shows the times of the runs that wrote each file.  Prints one line per model
# (seconds) and the totals in minutes.
set -eu
[ $# -eq 1 ] && [ -d "$1/models" ] || { echo "usage: sh tools/scripts/grid_times.sh GRID (a reproduce --out folder)" >&2; exit 2; }
printf 'model\ttrain_s\teval_s\n'
for d in "$1"/models/*/seed*; do
    [ -f "$d/config.txt" ] && [ -f "$d/trained" ] && [ -f "$d/eval.tsv" ] || continue
    c=$(stat -c %Y "$d/config.txt") t=$(stat -c %Y "$d/trained")
    e=$(stat -c %Y "$d/eval.tsv" $(ls "$d"/probe/* 2>/dev/null) | sort -n | tail -1)
    printf '%s\t%d\t%d\n' "${d#"$1"/models/}" $((t - c)) $((e - t))
done | awk -F'\t' '{ print; tr += $2; ev += $3; n++ }
    END { printf "total\t%d models: training %.1f min, evaluation and probes %.1f min\n", n, tr / 60, ev / 60 }'
