#!/usr/bin/env bash
# Builds the peers of `trapeze bench` into build/, once: the Halide 14
# versions of the eight image apps, each compiled ahead of time under three
# schedules (hand-written, Mullapudi2016, Adams2019), and the OpenCV versions;
# then the command line with them linked in. About 20-25 minutes on 2 cores of
# an AMD EPYC guest (Adams2019's search over local_laplacian alone takes about
# 15; an Intel guest, its cores shared with other work, took 73), one progress
# line per peer. Installs the packages first (scripts/setup.sh).
#
#   scripts/build_peers.sh        then: build/tools/trapeze bench --peers halide,opencv
set -euo pipefail
cd "$(dirname "$0")/.."

TRAPEZE_SKIP_PEERS=0 scripts/setup.sh
log=build/build_peers.log
mkdir -p build
TRAPEZE_CONFIGURE_ONLY=1 scripts/build.sh build -DTRAPEZE_PEERS=ON >"$log"
apps=$(sed -n 's/^trapeze_halide_app(\([a-z_0-9]*\).*/\1/p' bench/peers/halide/CMakeLists.txt)
total=$(wc -w <<<"$apps")
i=0
for app in $apps; do
  i=$((i + 1))
  printf '[%d/%d] Halide %s: manual, Mullapudi2016, Adams2019 ... ' "$i" "$total" "$app"
  start=$(date +%s)
  cmake --build build --target "halide_${app}_manual" "halide_${app}_mullapudi2016" \
    "halide_${app}_adams2019" >>"$log" 2>&1 || {
    echo "failed (see $log)"
    exit 1
  }
  echo "$(($(date +%s) - start)) s"
done
printf 'OpenCV peers and the command line ... '
start=$(date +%s)
cmake --build build --target trapeze_cli >>"$log" 2>&1 || {
  echo "failed (see $log)"
  exit 1
}
echo "$(($(date +%s) - start)) s"
echo "done: build/tools/trapeze bench --peers halide,opencv"
