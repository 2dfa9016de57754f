#!/bin/sh
# grid_agree.sh: does grid B reproduce grid A statistically
# (docs/speed/reproduction-and-pruning.md#reproduction-across-builds,
# docs/speed/reproduction-and-pruning.md#grid-agree)?  The promise across builds and kernel sets:
# the same verdicts, every reported number within its SE.  A and B are two `routelab reproduce`
# folders of the same settings (their config.txt equal but for the command, build and kernels
# lines), typically one grid run by two builds.  The rule, fixed before any comparison was run:
#   - every ordering of orderings.tsv has the same verdict in both;
#   - every number with an SE beside it (summary.tsv's ppl and ratio, orderings.tsv's
#     mean) differs by at most 5 sigma, sigma = sqrt(se_A^2 + se_B^2): the SE of the
#     difference of two independent grids, the widest it can be when the two builds
#     train unrelated models; 5 sigma, not tuned, as the Monte Carlo tests use.  A
#     number whose SEs are both 0 (the ratio at L = T) must be equal; nan only with nan;
#     a number without an SE (nan: a grid of one seed) is not compared, and the summary
#     says how many.
# Prints one line per number or verdict that breaks the rule and one summary line
# (the largest |difference|/sigma and where).  Exit status 0: B agrees with A; 1: it
# does not; 2: a bad input (one line: a missing folder or file, other settings, rows
# of one grid missing from the other, a malformed table).
#
# usage: sh tools/scripts/grid_agree.sh A B
set -eu
set -f
die() { echo "grid_agree: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: sh tools/scripts/grid_agree.sh A B (two reproduce --out folders)"
for g in "$1" "$2"; do
    [ -d "$g" ] || die "'$g' is not a folder"
    for f in config.txt summary.tsv orderings.tsv; do
        [ -f "$g/$f" ] && [ -r "$g/$f" ] && [ -s "$g/$f" ] || die "'$g' has no readable $f, or an empty one (not a finished reproduce grid)"
    done
done
A=$1 B=$2
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
for g in A B; do
    eval "dir=\$$g"
    grep -v -E '^(command|build|kernels)[[:space:]]' "$dir/config.txt" >"$D/$g.cfg" || true
done
cmp -s "$D/A.cfg" "$D/B.cfg" ||
    die "'$A' and '$B' were run with other settings (config.txt differs beyond command, build and kernels)"

# One awk over both grids' tables: the file name says which table, the header which
# column; a file's values are never code (awk -v is not used for them, and nothing of
# theirs reaches a shell).
awk -F'\t' '
function col(name,   i) { for (i = 1; i <= NF; i++) if ($i == name) return i; return 0 }
function need(name, c) { if (!c) { printf "grid_agree: %s has no column %s\n", FILENAME, name > "/dev/stderr"; bad = 2; exit 2 } return c }
function isnan(v) { return v == "nan" || v == "-nan" || v == "NA" }
FNR == 1 {
    nf++ # mawk has no ARGIND: the files come A summary, A orderings, B summary, B orderings
    g = (nf <= 2) ? "A" : "B"; t = (nf % 2 == 1) ? "summary" : "orderings"
    if (t == "summary") {
        cv = need("variant", col("variant")); cl = need("length", col("length"))
        cp = need("ppl", col("ppl")); cps = need("ppl_se", col("ppl_se"))
        cr = need("ratio", col("ratio")); crs = need("ratio_se", col("ratio_se"))
    } else {
        co = need("ordering", col("ordering")); cm = need("mult", col("mult"))
        cmean = need("mean", col("mean")); cse = need("se", col("se")); cvd = need("verdict", col("verdict"))
    }
    next
}
t == "summary" {
    k = $cv " at L = " $cl
    if ((g, "ppl " k) in val) { printf "grid_agree: %s has the row %s twice\n", FILENAME, k > "/dev/stderr"; bad = 2; exit 2 }
    val[g, "ppl " k] = $cp; se[g, "ppl " k] = $cps; val[g, "ratio " k] = $cr; se[g, "ratio " k] = $crs
    keys["ppl " k] = 1; keys["ratio " k] = 1
    next
}
{
    k = $co " (" $cm "T)"
    if ((g, "mean of " k) in val) { printf "grid_agree: %s has the ordering %s twice\n", FILENAME, k > "/dev/stderr"; bad = 2; exit 2 }
    val[g, "mean of " k] = $cmean; se[g, "mean of " k] = $cse; keys["mean of " k] = 1
    verdict[g, k] = $cvd; vkeys[k] = 1
}
END {
    if (bad) exit bad
    n = 0; nbad = 0; worst = -1
    for (k in keys) {
        if (!(("A", k) in val) || !(("B", k) in val)) {
            printf "grid_agree: the %s is in one grid only\n", k > "/dev/stderr"; exit 2
        }
        a = val["A", k]; b = val["B", k]; sa = se["A", k]; sb = se["B", k]
        n++
        if (isnan(a) || isnan(b)) {
            if (!(isnan(a) && isnan(b))) { printf "differs: the %s: %s against %s (nan in one grid only)\n", k, a, b; nbad++ }
            continue
        }
        # no SE (a grid of one seed): "within its SE" cannot be judged; not compared, said
        if (isnan(sa) || isnan(sb)) { nose++; continue }
        s = sqrt(sa * sa + sb * sb); d = b - a; if (d < 0) d = -d
        if (s == 0) {
            if (d != 0) { printf "differs: the %s: %s against %s (both SEs 0, so equal is required)\n", k, a, b; nbad++ }
            continue
        }
        z = d / s
        if (z > worst) { worst = z; wk = k }
        if (z > 5) { printf "differs: the %s: %s against %s, %.2f sigma (sigma %.4g)\n", k, a, b, z, s; nbad++ }
    }
    nv = 0
    for (k in vkeys) {
        nv++
        if (verdict["A", k] != verdict["B", k]) { printf "differs: the verdict of %s: %s against %s\n", k, verdict["A", k], verdict["B", k]; nbad++ }
    }
    if (n == 0 || nv == 0) { print "grid_agree: a grid with no rows in summary.tsv or orderings.tsv" > "/dev/stderr"; exit 2 }
    if (nose) printf "grid_agree: %d of the %d numbers have no SE (nan: one seed) and were not compared\n", nose, n
    if (worst < 0) printf "grid_agree: %d numbers (none with an SE above 0), %d verdicts: %s\n", n, nv, nbad ? "B does NOT agree with A" : "B agrees with A"
    else printf "grid_agree: %d numbers, largest difference %.2f sigma (the %s), %d verdicts: %s\n", n, worst, wk, nv, nbad ? "B does NOT agree with A" : "B agrees with A (the same verdicts, every number with an SE within 5 sigma)"
    exit nbad ? 1 : 0
}' "$A/summary.tsv" "$A/orderings.tsv" "$B/summary.tsv" "$B/orderings.tsv"
