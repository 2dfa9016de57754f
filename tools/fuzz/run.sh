#!/bin/sh
# run.sh: run every fuzz target for SECONDS each (make fuzz).
#
# Each target starts from a scratch copy of its seed corpus (the committed
# one never grows), with the longest input its format needs.  libFuzzer stops
# at the first crash, leak, sanitizer report, timeout or out-of-memory
# (an allocation over -rss_limit_mb), leaving the input that caused it as
# BUILD/findings/TARGET-crash-... ; the run then fails.  Prints the executions of
# each target (libFuzzer's final stat::number_of_executed_units) and the total.
# usage: run.sh BUILD SECONDS [TARGET...]   (default: every tools/fuzz/fuzz_T.c)
set -u
build=$1
secs=$2
shift 2
cd "$(dirname "$0")/../.."
targets=${*:-$(ls tools/fuzz/fuzz_*.c | sed 's|^tools/fuzz/fuzz_||; s|\.c$||')}

maxlen() {
    case "$1" in
        ckpt | ckpt_sum) echo 8192 ;;
        lr | pos) echo 256 ;;
        opts) echo 1024 ;;
        *) echo 4096 ;;
    esac
}

# Leaks count as findings (libFuzzer checks after each input that grew the heap).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive

mkdir -p "$build/findings" "$build/logs"
total=0
failed=""
for t in $targets; do
    scratch="$build/scratch/$t"
    rm -rf "$scratch"
    mkdir -p "$scratch"
    cp tools/fuzz/corpus/"$t"/* "$scratch"/ 2>/dev/null
    log="$build/logs/$t.log"
    "$build/fuzz_$t" -max_total_time="$secs" -max_len="$(maxlen "$t")" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" \
        "$scratch" >"$log" 2>&1
    rc=$?
    n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
    n=${n:-0}
    total=$((total + n))
    if [ $rc = 0 ]; then
        printf 'fuzz %-16s %10d executions in %ss: no finding\n' "$t" "$n" "$secs"
    else
        printf 'fuzz %-16s %10d executions: FINDING (exit %d); log %s\n' "$t" "$n" "$rc" "$log"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' \
            "$log" | head -5 | sed 's/^/    /'
        failed="$failed $t"
    fi
done
printf 'fuzz total: %d executions\n' "$total"
if [ -n "$failed" ]; then
    echo "fuzz: findings in:$failed" >&2
    exit 1
fi
