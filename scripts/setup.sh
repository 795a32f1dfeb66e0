#!/usr/bin/env bash
# Installs what trapeze needs on a fresh Debian 12 machine, through apt-get.
#
#   scripts/setup.sh            install whatever is missing (quiet if nothing is)
#   scripts/setup.sh --check    list what is missing and exit 1 if anything is
#
# TRAPEZE_SKIP_PEERS=1 leaves out the benchmark peers (Halide 14, OpenCV,
# gnuplot), which are large and only the benchmark harness needs.
# Runs apt-get as root, or through sudo when not root. Idempotent.
set -euo pipefail

# Building, testing and formatting trapeze.
required=(
  cmake
  ninja-build
  g++
  clang-format
  pkg-config
  libgtest-dev
  libcli11-dev
  libfmt-dev
  nlohmann-json3-dev
  libpng-dev
  libturbojpeg0-dev
  libtiff-dev
  libxxhash-dev
  libopencv-core-dev # the tests of the optional header trapeze/opencv.h
)
# The benchmark harness: the peers trapeze is compared with, and the plots.
peers=(
  libhalide14-0-dev
  libopencv-dev
  gnuplot-nox
)

check_only=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "setup.sh: unknown argument '$1' (try --help)" >&2
    exit 2
    ;;
esac

wanted=("${required[@]}")
if [[ "${TRAPEZE_SKIP_PEERS:-0}" != 1 ]]; then
  wanted+=("${peers[@]}")
fi

is_installed() {
  dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed
}

missing=()
for pkg in "${wanted[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ $check_only == 1 ]]; then
  echo "missing: ${missing[*]}"
  exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup.sh: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi

# apt's chatter goes to a log that is shown only if something fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run_apt() {
  if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "$@" >>"$log" 2>&1; then
    cat "$log" >&2
    echo "setup.sh: apt-get $1 failed" >&2
    exit 1
  fi
}

echo "setup.sh: installing ${missing[*]}"
run_apt update -q
run_apt install -y -q --no-install-recommends "${missing[@]}"
echo "setup.sh: done"
