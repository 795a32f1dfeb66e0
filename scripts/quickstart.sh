#!/usr/bin/env bash
# The README's first command: install what is missing (apt), build the command
# line, and run the main job: every app compiled through the JIT under the
# default (dp) scheduler at its default size, checked against the reference
# interpreter, and timed. The benchmark's peers are not built here:
# scripts/build_peers.sh builds them once (about 20 minutes), and the test
# suite (scripts/test.sh) builds what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

scripts/setup.sh
# Without the peers, unless build/ has them already (scripts/build_peers.sh).
peers=OFF
if grep -qs '^TRAPEZE_PEERS:BOOL=ON' build/CMakeCache.txt; then peers=ON; fi
TRAPEZE_TARGET=trapeze_cli scripts/build.sh build -DTRAPEZE_PEERS=$peers

trapeze=build/tools/trapeze
apps=$("$trapeze" list | awk '{print $1}')
jobs=$(nproc)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Compiling an app's generated code and running the interpreter are one
# thread's work each, so the apps go through both $jobs at a time, the longest
# (the 3-D multigrid cycles, listed last) first so that no core is left alone
# with one at the end; the times are then measured one app at a time, from the
# JIT's cache.
echo "Compiling each app through the JIT and checking it against the interpreter, $jobs at a time ..."
printf '%s\n' $apps | tac | xargs -P "$jobs" -I APP sh -c \
  '"$0" run APP --check --reps 1 >"$1/APP.log" 2>&1 || touch "$1/APP.failed"' "$trapeze" "$logs"

status=0
for app in $apps; do
  if [ -e "$logs/$app.failed" ]; then
    cat "$logs/$app.log"
    status=1
    continue
  fi
  "$trapeze" run "$app" --reps 5 || status=1
  grep '^check against the interpreter' "$logs/$app.log" || true
done
echo
echo "Quick start: $(($(date +%s) - start)) s."
echo "The benchmark against Halide 14 and OpenCV: scripts/build_peers.sh (once), then"
echo "  build/tools/trapeze bench --peers halide,opencv"
exit $status
