#!/usr/bin/env bash
# The README's second command: the whole test suite, in the normal (Release)
# build and in an AddressSanitizer + UndefinedBehaviorSanitizer build.
# Assumes scripts/setup.sh has run (scripts/quickstart.sh does it).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

# The sanitizer build runs the library's own tests (the JIT's generated code
# is compiled without sanitizers, as a user's would be).
scripts/build.sh build-asan -DTRAPEZE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'unit|error|correctness'
