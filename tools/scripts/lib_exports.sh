#!/bin/sh
# lib_exports.sh HEADER...: the linker version script of libroutelab.so, on
# stdout: every function the public headers declare (a line that starts a
# declaration, "TYPE rl_name(" or "TYPE routelab_name("), global; every other
# symbol of the library local (docs/library-robustness.md#c-install).  The library's own floors
# call each other freely; only the public API is the ABI.
set -eu
echo "{"
echo "  global:"
# shellcheck disable=SC2016
grep -hE '^[A-Za-z][^#(]*[ *](rl|routelab)_[a-z0-9_]+\(' "$@" | grep -v '^typedef' |
    sed -E 's/^[^(]*[ *]((rl|routelab)_[a-z0-9_]+)\(.*/    \1;/' | sort -u
echo "  local: *;"
echo "};"
