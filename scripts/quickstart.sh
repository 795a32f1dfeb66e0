#!/usr/bin/env bash
# The README's first command: install what is missing (apt), build, and run the
# main job: every app compiled through the JIT at its default size, timed, and
# checked against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The benchmark's peers (Halide, OpenCV) are built unless TRAPEZE_SKIP_PEERS=1.
peers=ON
if [ "${TRAPEZE_SKIP_PEERS:-0}" = 1 ]; then peers=OFF; fi
scripts/build.sh build -DTRAPEZE_PEERS=$peers

trapeze=build/tools/trapeze
status=0
for app in $("$trapeze" list | awk '{print $1}'); do
  "$trapeze" run "$app" --check --reps 5 || status=1
done
exit $status
