#!/bin/sh
# example_check.sh: the C example of examples/ built against an install of
# the library into a temporary prefix with pkg-config alone, then run
# (NOTES.md §18.4).  Run by the lib/ tests from the repository root after
# `make lib`; prints the example's output, exits with its status.
#
# usage: example_check.sh [EXAMPLE.c]   (default examples/window_haar_bound.c)
set -eu
cd "$(dirname "$0")/.."
src=${1:-examples/window_haar_bound.c}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a make of its own: not the jobserver of a `make test` that runs the tests
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s install PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; exit 1; }
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror -o "$tmp/example" "$src" $(pkg-config --cflags --libs routelab)
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/example"
