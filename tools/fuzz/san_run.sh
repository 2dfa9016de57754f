#!/bin/sh
# san_run.sh TESTBIN GLOB...: run the sanitized test binary once per glob
# (Criterion takes one --filter).  A glob that matches no test fails, so a
# renamed suite cannot drop out of `make sanitize` unnoticed.  The caller
# sets the environment (ROUTELAB, ASAN_OPTIONS, ...).
set -u
bin=$1
shift
# "suite: N tests" then "├── name" lines -> suite/name
names=$("$bin" --list | awk '/^[^ │├└].*: [0-9]+ tests?$/ { sub(/:.*/, ""); s = $0; next }
                             /── / { sub(/.*── /, ""); print s "/" $0 }')
fail=0
for f in "$@"; do
    echo "sanitize: routelab-tests --filter $f"
    hit=0
    for n in $names; do
        # shellcheck disable=SC2254
        case $n in $f) hit=1; break ;; esac
    done
    if [ $hit = 0 ]; then
        echo "sanitize: no test matches $f"
        fail=1
        continue
    fi
    "$bin" --jobs 2 --filter "$f" || fail=1
done
exit $fail
