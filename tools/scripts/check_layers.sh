#!/bin/sh
# check_layers.sh: the include graph runs one way, downward (docs/layout.md#layout);
# C files and the one C++ shim (model/spm.cc) alike.
#
# api/include/routelab/ (the library's public headers, installed as
# <routelab/...>) is the lowest floor: each internal header includes the
# public one that declares its calls (docs/library.md#library-abi), and a public header
# includes only its siblings; api/examples/ (programs on the installed library)
# may include only it.
# Each floor may include only the floors listed for it below; a floor
# never includes one above it, so no two floors include each other.  A floor
# is a top-level folder, or a folder one level inside a grouping folder
# (GROUPS: base/core, program/cmd, api/include, tools/fuzz), and is named by
# its last component, so the table reads the same whichever grouping holds it.  No
# file includes itself through other files either (a circle of files, such
# as a.h -> b.h -> a.h, also within one folder): each circle is printed as
# the files around it.  MPI is its own floor: no folder but base/par/ includes
# <mpi.h>, and the floors below base/par/ (core, sampling, theory, report) may not
# include it.  The
# library floors (core, par, sampling, theory, mc, model, bench) never call the
# functions that end the process (rl_die and the command layer's dying
# conveniences of base/core/util.h and base/core/opts.h): they return an rl_status
# (base/core/err.h) and only the command layer turns it into one line and an exit
# status.  base/core/util.c and base/core/opts.c define those conveniences.  A
# generated prose header, "prose_FLOOR.h" (build/gen/, tools/scripts/prose.sh),
# counts as an include of FLOOR.  Prints each violation on one
# line; exit 1 when there is any, 0 otherwise.
#
# usage: check_layers.sh [ROOT]   (ROOT: the tree to check, default this repo)
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2

allowed() {
    case "$1" in
        include)     echo "" ;;
        core)        echo "include" ;;
        par)         echo "include core" ;;
        sampling)    echo "include core" ;;
        theory)      echo "include core sampling" ;;
        mc)          echo "include core par sampling theory" ;;
        model)       echo "include core par sampling theory" ;;
        report)      echo "include core" ;;
        experiments) echo "include core par sampling theory mc report" ;;
        bench)       echo "include core par sampling theory mc model" ;;
        reproduce)   echo "include core par sampling theory model report experiments" ;;
        cmd)         echo "include core par sampling theory mc model report experiments reproduce bench" ;;
        tests)       echo "include core par sampling theory mc model report experiments reproduce bench cmd" ;;
        fuzz)        echo "include core par sampling theory mc model report experiments reproduce bench cmd" ;;
        examples)    echo "include" ;;
        *)           echo "?" ;;
    esac
}
LIBRARY="include core par sampling theory mc model bench"
GROUPS="base program api tools"

# The floor folder of a path (its first component, or its first two inside a
# grouping folder): floor_dir base/core/err.h -> base/core.
floor_dir() {
    first=${1%%/*}
    case " $GROUPS " in
        *" $first "*) rest=${1#*/}; echo "$first/${rest%%/*}" ;;
        *) echo "$first" ;;
    esac
}
# The folder of the floor named NAME in this tree (core -> base/core), or NAME.
floor_path() {
    for g in $GROUPS; do
        [ -d "$g/$1" ] && { echo "$g/$1"; return; }
    done
    echo "$1"
}
EXITS='(rl_die|rl_outfile_open(_own)?|rl_outfile_commit|rl_mkdir_p|rl_parse_doubles|rl_parse_longs|rl_opts_parse) *\('


# The file-level include graph, one "FROM TO" line per quoted #include
# (TO relative to the root), FROM in sorted order: the circles' input.
edges=$(mktemp) || exit 2
trap 'rm -f "$edges"' EXIT

bad=0
for f in $(find . \( -name '*.[ch]' -o -name '*.cc' \) -not -path './build/*' -not -path './build-*/*' -not -path './.git/*' | sed 's|^\./||' | sort); do
    fdir=$(floor_dir "$f")
    from=${fdir##*/}
    ok=$(allowed "$from")
    if [ "$ok" = "?" ]; then
        echo "layers: $f is in a folder with no place in the layering"; bad=1; continue
    fi
    echo "$f" >>"$edges" # a node, with or without includes
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        target=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
        # a floor's generated prose (build/gen/prose_FLOOR.h, from
        # FLOOR/prose/ by tools/scripts/prose.sh) is that floor's
        case "$inc" in prose_*.h) target="build/gen/$inc" ;; esac
        echo "$f $target" >>"$edges"
        to=$(floor_dir "$target")
        to=${to##*/}
        case "$target" in build/gen/prose_*.h) to=${target#build/gen/prose_}; to=${to%.h} ;; esac
        [ "$to" = "$from" ] && continue
        case " $ok " in
            *" $to "*) ;;
            *) echo "layers: $f includes $inc ($from may not include $to)"; bad=1 ;;
        esac
    done
    if [ "$from" != par ] && grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<mpi\.h>' "$f"; then
        echo "layers: $f includes <mpi.h> (MPI is base/par/'s alone)"; bad=1
    fi
done

# Circles: a depth-first walk from each node in order; an edge that
# reaches a node still on the walk's path closes a circle, printed from that
# node round to it again.  circles WHAT < EDGES ("FROM TO" lines, a lone
# "NODE" line for each node).
circles() {
    awk -v what="$1" '
    NF == 1 { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } next }
    { nsucc[$1]++; succ[$1, nsucc[$1]] = $2 }
    function visit(v,    i, w, k, path) {
        state[v] = 1
        stack[++depth] = v
        for (i = 1; i <= nsucc[v]; i++) {
            w = succ[v, i]
            if (state[w] == 1) {
                for (k = depth; stack[k] != w; k--)
                    ;
                path = w
                for (k++; k <= depth; k++)
                    path = path " -> " stack[k]
                print "layers: a circle of " what ": " path " -> " w
            } else if (!state[w])
                visit(w)
        }
        depth--
        state[v] = 2
    }
    END { for (j = 1; j <= n; j++) if (!state[order[j]]) visit(order[j]) }'
}
# Files: a header that includes itself through others.  Modules: a .c and
# its .h are one module (base/core/util.c with base/core/util.h), so a.c including b.h
# while b.c includes a.h is a circle too (each calls the other: neither can
# be understood, tested or moved first).  A header with no .c of its own
# (types, macros, inline code: model/vexp.h, sampling/family_ops.h) is no
# module: the modules that include it depend on it, and its own includes
# are checked as files above.
c1=$(circles files <"$edges")
c2=$(awk '
    NF == 1 && $1 ~ /\.(c|cc)$/ { m = $1; sub(/\.(c|cc)$/, "", m); impl[m] = 1 }
    { line[NR] = $0 }
    END {
        for (r = 1; r <= NR; r++) {
            n = split(line[r], f, " ")
            for (i = 1; i <= n; i++) { hdr[i] = f[i] ~ /\.h$/; sub(/\.(c|h|cc)$/, "", f[i]) }
            if (n == 1) print f[1]
            else if (f[1] != f[2] && !(hdr[1] && !(f[1] in impl))) print f[1], f[2]
        }
    }' "$edges" | circles modules)
for c in "$c1" "$c2"; do
    [ -n "$c" ] && { echo "$c"; bad=1; }
done
for name in $LIBRARY; do
    d=$(floor_path "$name")
    [ -d "$d" ] || continue
    for f in $(find "$d" -name '*.c' -exec grep -lE "$EXITS" {} + 2>/dev/null); do
        case "$f" in base/core/util.c|base/core/opts.c) continue ;; esac
        what=$(grep -oE "$EXITS" "$f" | head -1 | tr -d ' (')
        echo "layers: $f calls $what (a library floor returns an rl_status instead)"; bad=1
    done
done
[ $bad = 0 ] && echo "layers: the include graph runs one way, without circles of files or modules (ok)"
exit $bad
