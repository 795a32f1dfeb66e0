#!/usr/bin/env bash
# The README's first command: install what is missing (apt), build the command
# line, and run the main job: every app compiled through the JIT under the
# default (dp) scheduler at its default size, timed, and checked against the
# reference interpreter. The benchmark's peers are not built here:
# scripts/build_peers.sh builds them once (about 20 minutes), and the test
# suite (scripts/test.sh) builds what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# Without the peers, unless build/ has them already (scripts/build_peers.sh).
peers=OFF
if grep -qs '^TRAPEZE_PEERS:BOOL=ON' build/CMakeCache.txt; then peers=ON; fi
TRAPEZE_TARGET=trapeze_cli scripts/build.sh build -DTRAPEZE_PEERS=$peers

trapeze=build/tools/trapeze
status=0
for app in $("$trapeze" list | awk '{print $1}'); do
  "$trapeze" run "$app" --check --reps 5 || status=1
done
echo
echo "The benchmark against Halide 14 and OpenCV: scripts/build_peers.sh (once), then"
echo "  build/tools/trapeze bench --peers halide,opencv"
exit $status
