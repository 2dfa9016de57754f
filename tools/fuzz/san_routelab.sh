#!/bin/sh
# san_routelab.sh: the sanitized routelab (build-san/) with leak detection
# on; `make sanitize` points the tests' ROUTELAB here.  The test runner
# itself runs with leaks off: the tests keep small strings to the end by
# design, and LeakSanitizer in the forked children of Criterion's threaded
# runner reports false leaks ("running thread was not suspended").  A leak
# in a command exits 23 with the report on stderr, which fails the test.
# No external command (dirname): a test may run it with an empty PATH.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1" \
    exec "${0%/*}/../../build-san/routelab" "$@"
