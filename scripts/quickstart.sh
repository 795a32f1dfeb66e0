#!/usr/bin/env bash
# The README's first command: install what is missing (apt), build, and run the
# main job: every app compiled through the JIT at its default size, timed, and
# checked against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh build

trapeze=build/tools/trapeze
status=0
for app in $("$trapeze" list | awk '{print $1}'); do
  "$trapeze" run "$app" --check --reps 5 || status=1
done
exit $status
