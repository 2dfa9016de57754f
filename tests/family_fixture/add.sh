#!/bin/sh
# add.sh: a family with a parameter of its own is one file and one registry
# line.  Copies the library's floors that define families (base/core,
# api/include, sampling) of ROOT into OUT, in their places, drops
# fam_fixture.c into sampling/, adds the one line
# X(FIXTURE, fixture, "fixture") to RL_FAMILY_LIST, builds them
# with fixture_main.c and runs it (it checks the flag, setter, default,
# range and sampling it gets).  Nothing else is edited.
#
# usage: add.sh ROOT OUT   (OUT: a new or empty folder)
set -eu
[ $# -eq 2 ] || { echo "usage: add.sh ROOT OUT" >&2; exit 2; }
root=$1 out=$2
[ -f "$root/sampling/family.h" ] || { echo "add.sh: $root has no sampling/family.h" >&2; exit 2; }
mkdir -p "$out"
[ -z "$(ls -A "$out")" ] || { echo "add.sh: $out is not empty" >&2; exit 2; }
mkdir -p "$out/base" "$out/api"
cp -R "$root/base/core" "$out/base/"
cp -R "$root/api/include" "$out/api/"
cp -R "$root/sampling" "$out/"
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/fam_fixture.c" "$out/sampling/"
# the one registry line: after the list's last entry, which gets its '\'
awk '
    /^#define RL_FAMILY_LIST\(X\)/ { inlist = 1 }
    inlist && /^    X\(/ && !/\\$/ {
        print $0 " \\"
        print "    X(FIXTURE, fixture, \"fixture\")"
        inlist = 0
        next
    }
    { print }
' "$root/sampling/family.h" > "$out/sampling/family.h"
[ "$(grep -c '^    X(' "$out/sampling/family.h")" -eq $(( $(grep -c '^    X(' "$root/sampling/family.h") + 1 )) ] ||
    { echo "add.sh: the registry line was not added" >&2; exit 1; }
cd "$out"
gcc -std=c11 -D_GNU_SOURCE -O0 -w -fopenmp -I. -I/usr/include/x86_64-linux-gnu/openblas-openmp \
    -o fixture "$here/fixture_main.c" base/core/*.c sampling/*.c \
    -lgsl -llapacke -lopenblas -lm
./fixture
