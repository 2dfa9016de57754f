#!/bin/sh
# example_check.sh: the C example of api/examples/ built against an install of
# the library into a temporary prefix with pkg-config alone, then run with
# no LD_LIBRARY_PATH (routelab.pc records the run-time path); then the
# installed program draws a figure from outside the repository with no
# ROUTELAB_PLOTS (it finds PREFIX/share/routelab/plots) (docs/library.md#pkg-config,
# docs/library-robustness.md#c-install).  Run by the lib/ tests from the repository root after `make
# lib`; prints the example's output and "installed program plots: ok", exits with
# the first failure's status.
#
# usage: example_check.sh [EXAMPLE.c]   (default api/examples/window_haar_bound.c)
set -eu
cd "$(dirname "$0")/../.."
src=${1:-api/examples/window_haar_bound.c}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a make of its own: not the jobserver of a `make test` that runs the tests
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s install PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; exit 1; }
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror -o "$tmp/example" "$src" $(pkg-config --cflags --libs routelab)
env -u LD_LIBRARY_PATH "$tmp/example"
# the installed program, away from the build tree (whose plots/ it would find first)
(cd "$tmp" && env -u ROUTELAB_PLOTS "$tmp/prefix/bin/routelab" mixstay --preset quick --threads 1 --out "$tmp/ms" \
    >"$tmp/ms.log" 2>&1) || { cat "$tmp/ms.log" >&2; exit 1; }
test -s "$tmp/ms/mixstay_blocks.png" || { echo "installed program: no figure" >&2; exit 1; }
echo "installed program plots: ok"
