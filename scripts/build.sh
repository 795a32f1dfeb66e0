#!/usr/bin/env bash
# Configures trapeze with Ninja (Release, warnings as errors) and builds it.
#
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments...]
#
# BUILD_DIR defaults to "build" at the repository root; a relative path is
# taken from the current directory. Extra arguments go to the configure step,
# e.g. scripts/build.sh build-asan -DTRAPEZE_SANITIZE=ON. TRAPEZE_JOBS limits
# the parallel jobs of the build (Ninja's default otherwise); TRAPEZE_TARGET
# builds one target instead of all (scripts/test.sh: library_tests);
# TRAPEZE_CONFIGURE_ONLY=1 only configures (scripts/build_peers.sh). The
# library and the command line build in batches of sources (a build from
# scratch takes under half the time); TRAPEZE_UNITY_BUILD=0 builds them a file
# at a time, for quicker rebuilds while editing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build"
if [[ $# -gt 0 && "$1" != -* ]]; then
  build_dir=$1
  shift
fi

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTRAPEZE_WARNINGS_AS_ERRORS=ON "-DTRAPEZE_UNITY_BUILD=${TRAPEZE_UNITY_BUILD:-1}" "$@"
if [[ "${TRAPEZE_CONFIGURE_ONLY:-0}" == 1 ]]; then exit 0; fi
cmake --build "$build_dir" ${TRAPEZE_JOBS:+-j "$TRAPEZE_JOBS"} ${TRAPEZE_TARGET:+--target "$TRAPEZE_TARGET"}
