#!/bin/sh
# verdict_flips.sh DIR1 DIR2 ...: compare the checks.tsv of `routelab theory`
# runs (one per seed).  A check is keyed by its experiment and its text; a
# flip is a check that passes in one run (holds, or verified: a closed form
# confirmed) and is contradicted in another (the old reports' "does not
# hold" counts as contradicted).  Prints each flip,
# then the kinds per experiment of each run and the number of flips.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 DIR1 DIR2 [...]" >&2; exit 2; }
for d in "$@"; do
    [ -f "$d/checks.tsv" ] || { echo "$0: no $d/checks.tsv" >&2; exit 2; }
done
awk -F'\t' '
FNR == 1 { run++; name[run] = FILENAME; hasrule = ($3 == "rule"); next }
{
    v = $2; if (v == "does not hold") v = "contradicted"
    key = $1 SUBSEP (hasrule ? $4 : $3)
    verdict[run, key] = v; keys[key] = 1
    count[run, $1, v]++; exps[$1] = 1; kinds[v] = 1
}
END {
    flips = 0
    for (k in keys) {
        h = 0; c = 0
        for (r = 1; r <= run; r++) {
            h += verdict[r, k] == "holds" || verdict[r, k] == "verified"; c += verdict[r, k] == "contradicted"
        }
        if (h && c) {
            flips++; split(k, p, SUBSEP); printf "FLIP %s: %s\n", p[1], p[2]
            for (r = 1; r <= run; r++) printf "    %s: %s\n", name[r], verdict[r, k]
        }
    }
    for (r = 1; r <= run; r++) {
        printf "%s\n", name[r]
        for (e in exps) {
            line = ""
            for (v in kinds) if (count[r, e, v]) line = line sprintf(" %s %d;", v, count[r, e, v])
            printf "  %-14s%s\n", e, line
        }
    }
    printf "flips between holds (or verified) and contradicted: %d\n", flips
}' $(for d in "$@"; do printf '%s/checks.tsv ' "$d"; done)
