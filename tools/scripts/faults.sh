#!/bin/sh
# faults.sh: kill -9 at random moments, then the same command again (make faults).
#
#   tools/scripts/faults.sh [TRIALS] [SEED] [COMMANDS]
#
# For each command (train, reproduce, data-text, data-bpe, theory; COMMANDS
# a space-separated subset), two uninterrupted runs are made first: the files
# on which they agree byte for byte are the command's deterministic outputs
# (logs with tokens/s, reports with times and dates are not).  Then two
# kinds of trials, TRIALS of each, every one in a fresh folder:
#   time:   the command is killed with SIGKILL after a delay drawn uniformly
#           (awk's srand(SEED)) from [0, the uninterrupted run's time];
#   rename: the command's process is killed with SIGKILL as it enters its
#           k-th rename, k drawn uniformly from 1 .. the renames of the
#           uninterrupted run (strace's fault injection): the moment a
#           finished temporary waits to become its file, which a uniform
#           delay almost never hits.
# Then the command runs again to the end (train: with --resume when a
# checkpoint is there, its documented way on; the others resume by
# themselves), once the killed command's children are gone.  A trial is
# identical when every deterministic output has the reference's bytes, and
# has leftovers when the folder holds a *.tmp.*, .fetch.* or .lock entry or
# a path the reference has not.  The counts are printed; the exit status is
# 1 when a trial differs or left something.
# Three more kinds, named in COMMANDS like the commands (all by default):
#   limits:  each of a set of commands under `ulimit -v` at a band of limits
#            from 100 MB to 1 GB (the band where OpenBLAS's buffers and
#            OpenMP's stacks are refused): it must finish,
#            or stop with one "routelab:" line and status 1 or 2, within its
#            time, leaving no output behind;
#   threads: each deterministic command at --threads 1, 2 and 3: the same
#            bytes (docs/mpi.md#mpi: results do not depend on the thread count);
#   scripts: tools/scripts/grid_farpred.sh and tools/scripts/compare_builds.sh given bad
#            arguments (one line, status 2, nothing written), and
#            compare_builds.sh stopped by TERM at a random moment: no process
#            of its tree left, no temporary folder left.
# Not part of `make test`: it takes minutes.
set -u
BIN=${ROUTELAB:-build/routelab}
TRIALS=${1:-5}
SEED=${2:-$(date +%s)}
COMMANDS=${3:-train reproduce data-text data-bpe theory limits threads scripts}
KILLED=""
for c in $COMMANDS; do
    case $c in
    train | reproduce | data-text | data-bpe | theory) KILLED="$KILLED $c" ;;
    limits | threads | scripts) ;;
    *) echo "faults: unknown command '$c' (train reproduce data-text data-bpe theory limits threads scripts)" >&2; exit 2 ;;
    esac
done
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
work=$(mktemp -d /tmp/rl-faults-XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "faults: seed $SEED, $TRIALS trials per command ($COMMANDS), binary $BIN"

# A small corpus (some structure, 40 KB).
awk 'BEGIN { for (i = 0; i < 800; i++) printf "line %d: the %s fox jumps over the %s dog\n", i, \
     (i % 3 ? "quick" : "slow"), (i % 5 ? "lazy" : "busy") }' >"$work/text.txt"
T=$work/text.txt
TINY="--layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --threads 1"

# The command of NAME writing into DIR (word-split on purpose).
cmd_of() {
    case $1 in
    train) echo "train --data $T --out $2 $TINY --steps 60 --ckpt-every 5 --val-every 10 --val-batches 1 --lr 1e-3" ;;
    reproduce) echo "reproduce --data $T --out $2 $TINY --lr 1e-3:12 --ckpt-every 4 --val-every 4 --val-batches 1 \
--max-mult 2 --eval-batches 2 --seeds 2 --variants rope,alibi --probe none --theory none" ;;
    data-text) echo "data text $T --out $2" ;;
    data-bpe) echo "data bpe --vocab 300 --from $T --out $2" ;;
    theory) echo "theory --preset quick --only values --threads 1 --out $2" ;;
    esac
}

# Run NAME into DIR to the end; train continues a checkpoint with --resume.
finish() {
    c=$(cmd_of "$1" "$2")
    if [ "$1" = train ] && [ -e "$2/ckpt.bin" ]; then c="$c --resume"; fi
    # shellcheck disable=SC2086
    "$BIN" $c >/dev/null 2>>"$work/stderr.txt"
}

now() { date +%s.%N; }

# Whether two outputs are the same: bytes, except train's log.tsv whose
# last column (tokens/s) is a timing.
same() {
    case $1 in
    */log.tsv) [ "$(cut -f1-4 "$1")" = "$(cut -f1-4 "$2" 2>/dev/null)" ] ;;
    *) cmp -s "$1" "$2" ;;
    esac
}

# The delays: TRIALS uniform draws in [0, 1) from SEED, one a line.
draws() { awk -v n="$1" -v s="$2" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.6f\n", rand() }'; }

total=0 same=0 left=0 cmdi=0
for name in $KILLED; do
    cmdi=$((cmdi + 1))
    ref=$work/$name-ref ref2=$work/$name-ref2
    t0=$(now)
    finish "$name" "$ref" || { echo "faults: $name: the uninterrupted run failed: $(tail -1 "$work/stderr.txt")"; exit 1; }
    t1=$(now)
    finish "$name" "$ref2" || { echo "faults: $name: the second uninterrupted run failed"; exit 1; }
    secs=$(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')
    # the deterministic outputs: the files both references hold with the same bytes
    (cd "$ref" && find . -type f | sort) >"$work/$name.files"
    : >"$work/$name.det"
    while read -r f; do
        if same "$ref/$f" "$ref2/$f"; then echo "$f" >>"$work/$name.det"; fi
    done <"$work/$name.files"
    (cd "$ref" && find . | sort) >"$work/$name.paths"
    echo "faults: $name: $(wc -l <"$work/$name.det") of $(wc -l <"$work/$name.files") files deterministic, \
uninterrupted run ${secs} s"
    # the renames of the command's own process in an uninterrupted run
    strace -qq -o "$work/$name.renames" -e trace=rename,renameat,renameat2 \
        "$BIN" $(cmd_of "$name" "$work/$name-ref3") >/dev/null 2>&1
    nren=$(grep -c 'rename' "$work/$name.renames")
    k=0 n_same=0 n_left=0
    for mode in time rename; do
        if [ "$mode" = rename ] && [ "$nren" -eq 0 ]; then
            echo "faults: $name: no rename to kill at"
            continue
        fi
        stream=$((SEED + cmdi))
        [ "$mode" = rename ] && stream=$((stream + 1000))
        for u in $(draws "$TRIALS" "$stream"); do
            k=$((k + 1))
            dir=$work/$name-$k
            c=$(cmd_of "$name" "$dir")
            if [ "$mode" = time ]; then
                at=$(echo "$u $secs" | awk '{ printf "%.3f", $1 * $2 }')
                what="kill after $at s"
                # shellcheck disable=SC2086
                "$BIN" $c >/dev/null 2>&1 &
                pid=$!
                sleep "$at"
                kill -9 "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
            else
                at=$(echo "$u $nren" | awk '{ printf "%d", 1 + int($1 * $2) }')
                what="kill at rename $at of $nren"
                # shellcheck disable=SC2086
                strace -qq -o /dev/null -e trace=rename,renameat,renameat2 \
                    -e inject=rename,renameat,renameat2:signal=KILL:when="$at" "$BIN" $c >/dev/null 2>&1
            fi
            # the killed command's children (reproduce's train, data's tar)
            # end by their parent-death signal: wait for them, 30 s at most
            w=0
            while pgrep -f -- "$dir" >/dev/null && [ $w -lt 300 ]; do sleep 0.1; w=$((w + 1)); done
            finish "$name" "$dir" || echo "faults: $name trial $k ($what): the rerun failed: $(tail -1 "$work/stderr.txt")"
            ok=1
            while read -r f; do
                same "$ref/$f" "$dir/$f" || { ok=0; echo "faults: $name trial $k ($what): $f differs"; }
            done <"$work/$name.det"
            junk=$( (cd "$dir" 2>/dev/null && find . | sort) | comm -13 "$work/$name.paths" - | tr '\n' ' ')
            if [ -n "$junk" ]; then
                n_left=$((n_left + 1))
                echo "faults: $name trial $k ($what): left behind: $junk"
            fi
            n_same=$((n_same + ok))
        done
    done
    echo "faults: $name: $k trials, $n_same identical, $n_left with leftovers"
    total=$((total + k)) same=$((same + n_same)) left=$((left + n_left))
done
bad=0
has() { case " $COMMANDS " in *" $1 "*) return 0 ;; esac; return 1; }

# limits: ulimit -v bands.  A trial fails when the command neither finishes
# nor stops with one routelab line and status 1 or 2 (a spin hits timeout:
# 124), or when a stopped command left its output.
if has limits; then
    n=0 nbad=0
    for kb in 100000 250000 330000 360000 400000 450000 500000 600000 800000 1000000; do
        for c in claims "sample --family haar --d 8 --count 4 --threads 2" "bound window --family so2 --d 64" \
            train-1 train-2 data-text; do
            n=$((n + 1))
            dir=$work/limits-$n
            case $c in
            train-1) args="train --data $T --out $dir/o $TINY --steps 3" ;;
            train-2) args="train --data $T --out $dir/o --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --threads 2 --steps 3" ;;
            data-text) args="data text $T --out $dir/o" ;;
            *) args=$c ;;
            esac
            mkdir -p "$dir"
            # shellcheck disable=SC2086
            (ulimit -v "$kb" && exec timeout 120 "$BIN" $args) >/dev/null 2>"$dir.err"
            rc=$?
            lines=$(wc -l <"$dir.err")
            why=""
            if [ "$rc" -eq 124 ]; then
                why="did not return in 120 s"
            elif [ "$rc" -ne 0 ]; then
                if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then why="status $rc"; fi
                if [ "$lines" -ne 1 ] || ! grep -q '^routelab: ' "$dir.err"; then why="$why not one routelab line"; fi
                if [ -e "$dir/o" ] && [ -n "$(ls -A "$dir/o" 2>/dev/null)" ]; then why="$why output left"; fi
            fi
            if [ -n "$why" ]; then
                nbad=$((nbad + 1))
                echo "faults: limits: ulimit -v $kb, $c: $why: $(head -c 200 "$dir.err")"
            fi
        done
    done
    echo "faults: limits: $n runs under ulimit -v, $nbad failing"
    bad=$((bad + nbad))
fi

# threads: the same bytes at 1, 2 and 3 threads.
if has threads; then
    n=0 nbad=0
    for c in train sample theory; do
        for t in 1 2 3; do
            dir=$work/threads-$c-$t
            mkdir -p "$dir"
            case $c in
            train) args="train --data $T --out $dir/o --layers 1 --width 16 --heads 2 --ctx 8 --batch 2 --steps 20 --threads $t" ;;
            sample) args="sample --family householder --d 16 --count 64 --threads $t --out $dir/o.txt" ;;
            theory) args="theory --preset quick --only values --threads $t --out $dir/o" ;;
            esac
            # shellcheck disable=SC2086
            "$BIN" $args >/dev/null 2>>"$work/stderr.txt" || echo "faults: threads: $c --threads $t failed: $(tail -1 "$work/stderr.txt")"
        done
        for t in 2 3; do
            n=$((n + 1))
            a=$work/threads-$c-1 b=$work/threads-$c-$t
            diffs=""
            # every output but timings: log.tsv's speed column (below), the
            # report's command line and seconds (*.md), figures' renderer bytes
            for f in $(cd "$a" && find . -type f ! -name 'log.tsv' ! -name '*.log' ! -name '*.md' ! -name '*.png' ! -name '*.svg' | sort); do
                cmp -s "$a/$f" "$b/$f" || diffs="$diffs $f"
            done
            if [ -f "$a/o/log.tsv" ] && [ "$(cut -f1-4 "$a/o/log.tsv")" != "$(cut -f1-4 "$b/o/log.tsv" 2>/dev/null)" ]; then
                diffs="$diffs o/log.tsv"
            fi
            if [ -n "$diffs" ]; then
                nbad=$((nbad + 1))
                echo "faults: threads: $c at --threads $t differs from 1 thread:$diffs"
            fi
        done
    done
    echo "faults: threads: $n comparisons with one thread, $nbad differing"
    bad=$((bad + nbad))
fi

# scripts: bad arguments, then TERM at a random moment.
if has scripts; then
    n=0 nbad=0
    root=$(cd "$(dirname "$0")/../.." && pwd)
    for a in "grid_farpred.sh $work/nogrid" "grid_farpred.sh grids -1" "grid_farpred.sh grids abc" \
        "grid_farpred.sh grids 1 $work/nobin" "compare_builds.sh" "compare_builds.sh bogus $BIN $BIN" \
        "compare_builds.sh speed $BIN $BIN 99999999999999999999" "compare_builds.sh bytes $work/nobin $BIN"; do
        n=$((n + 1))
        before=$(cd "$root" && git status --porcelain 2>/dev/null | md5sum)
        # shellcheck disable=SC2086
        (cd "$root" && sh tools/scripts/$a) >/dev/null 2>"$work/script.err"
        rc=$?
        after=$(cd "$root" && git status --porcelain 2>/dev/null | md5sum)
        if [ "$rc" -ne 2 ] || [ "$(wc -l <"$work/script.err")" -ne 1 ] || [ "$before" != "$after" ]; then
            nbad=$((nbad + 1))
            echo "faults: scripts: $a: status $rc, $(wc -l <"$work/script.err") lines, tree $([ "$before" = "$after" ] && echo unchanged || echo changed)"
        fi
    done
    if [ -f "$root/data/brown/train.bin" ]; then
        for u in $(draws "$TRIALS" $((SEED + 2000))); do
            n=$((n + 1))
            tmp=$work/cb-tmp-$n
            mkdir -p "$tmp"
            at=$(echo "$u" | awk '{ printf "%.3f", 1 + $1 * 20 }')
            (cd "$root" && TMPDIR=$tmp exec sh tools/scripts/compare_builds.sh bytes "$BIN" "$BIN") >/dev/null 2>&1 &
            pid=$!
            sleep "$at"
            kill -TERM "$pid" 2>/dev/null
            w=0
            while { pgrep -f -- "$tmp" >/dev/null || [ -n "$(ls -A "$tmp")" ]; } && [ $w -lt 200 ]; do sleep 0.1; w=$((w + 1)); done
            wait "$pid" 2>/dev/null
            if pgrep -f -- "$tmp" >/dev/null || [ -n "$(ls -A "$tmp")" ]; then
                nbad=$((nbad + 1))
                echo "faults: scripts: compare_builds.sh TERM after $at s: left $(pgrep -fc -- "$tmp") processes, $(ls -A "$tmp" | tr '\n' ' ')"
                pkill -9 -f -- "$tmp"
            fi
        done
    else
        nbad=$((nbad + 1))
        echo "faults: scripts: no data/brown here for the TERM trials of compare_builds.sh (make faults sets it up)"
    fi
    echo "faults: scripts: $n runs, $nbad failing"
    bad=$((bad + nbad))
fi

echo "faults: seed $SEED: $total kill trials, $same identical, $left with leftovers; $bad limit, thread and script runs failing"
[ "$same" -eq "$total" ] && [ "$left" -eq 0 ] && [ "$bad" -eq 0 ]
