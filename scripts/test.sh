#!/usr/bin/env bash
# The README's second command: the whole test suite, in the normal (Release)
# build and in an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Assumes scripts/setup.sh has run (scripts/quickstart.sh does it).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# The Halide and OpenCV peers of trapeze bench are built when installed
# (scripts/setup.sh installs them unless TRAPEZE_SKIP_PEERS=1, as CI does).
peers=ON
if [ "${TRAPEZE_SKIP_PEERS:-0}" = 1 ]; then peers=OFF; fi

# The sanitizer build builds the library's own tests (the JIT's generated
# code is compiled without sanitizers, as a user's would be). -O1 -g1 (line
# tables) as the sanitizers' documentation suggests: the reports keep their
# file:line stacks, and it compiles 4x faster than -O2 -g. It builds beside
# the Release build and its tests at the lowest priority, so that it takes
# only the cycles they leave idle (a serial link, the last tests running):
# on 2 cores it had built a seventh of itself by the time they finished.
# (Its own process group, so that a failure of the Release steps stops it.)
mkdir -p build-asan
asan_log=build-asan/build.log
set -m
TRAPEZE_TARGET=library_tests nice -n 19 scripts/build.sh build-asan -DTRAPEZE_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DTRAPEZE_PEERS=OFF "-DTRAPEZE_TEST_JIT_CACHE=$PWD/build/test-jit-cache" >"$asan_log" 2>&1 &
asan_build=$!
set +m
trap 'kill -- -$asan_build 2>/dev/null || true' EXIT

scripts/build.sh build -DTRAPEZE_PEERS=$peers
# Label slow (every app's schedule in every tile shape at full JIT flags,
# ~10 minutes) runs with: ctest --test-dir build -L slow
ctest --test-dir build --output-on-failure -j "$jobs" -LE slow

asan_status=0
wait $asan_build || asan_status=$?
trap - EXIT
cat "$asan_log"
if [ $asan_status != 0 ]; then
  echo "the sanitizer build failed (exit $asan_status): $asan_log above" >&2
  exit $asan_status
fi
# Its tests share the Release build's JIT cache: the generated code is the
# same, so they load what the Release tests compiled instead of compiling it
# again (several minutes of fused multigrid code on 2 cores).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'unit|error|correctness'
