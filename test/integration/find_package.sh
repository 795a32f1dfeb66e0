#!/usr/bin/env bash
# Installs the just-built trapeze into a temporary prefix, checks what the
# package contains, then configures, builds and runs each example project
# against it, the way a user's project would (each builds a program `app`).
#
#   find_package.sh BUILD_DIR EXAMPLE_DIR[:EXAMPLE_DIR...] CMAKE GENERATOR CXX_COMPILER [CXX_FLAGS]
#
# CXX_FLAGS go to the example's compile and link (e.g. the sanitizer flags of
# a sanitized build).
#
# The prefix is removed on success and kept (its path printed) on failure.
set -euo pipefail

if [[ $# -lt 5 || $# -gt 6 ]]; then
  echo "usage: $0 BUILD_DIR EXAMPLE_DIR[:EXAMPLE_DIR...] CMAKE GENERATOR CXX_COMPILER [CXX_FLAGS]" >&2
  exit 2
fi
build_dir=$1 example_dirs=$2 cmake=$3 generator=$4 cxx=$5 cxx_flags=${6:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/trapeze-find-package.XXXXXX")
prefix=$work/prefix
fail() {
  echo "FAILED: $*" >&2
  echo "(files kept in $work)" >&2
  exit 1
}
step() { echo "-- $*"; }

step "install $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install"; }

step "check the installed package"
for header in trapeze.h dsl.h expr.h function.h pipeline.h buffer.h runtime.h version.h; do
  [[ -f $prefix/include/trapeze/$header ]] || fail "include/trapeze/$header is not installed"
done
grep -q '#define TRAPEZE_VERSION_STRING "[0-9]' "$prefix/include/trapeze/version.h" ||
  fail "include/trapeze/version.h was installed unconfigured"
config=$(find "$prefix" -name trapezeConfig.cmake)
[[ -n $config ]] || fail "trapezeConfig.cmake is not installed"
config_dir=$(dirname "$config")
for f in trapezeConfigVersion.cmake trapezeTargets.cmake; do
  [[ -f $config_dir/$f ]] || fail "$f is not installed next to trapezeConfig.cmake"
done
library=$(find "$prefix" -name 'libtrapeze.so.*.*.*' -type f)
[[ -n $library ]] || fail "the shared library libtrapeze.so.X.Y.Z is not installed"
dynamic=$(readelf -d "$library")
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' <<<"$dynamic")
[[ $soname =~ ^libtrapeze\.so\.[0-9]+$ ]] || fail "SONAME of $library is '$soname'"
[[ -e $(dirname "$library")/$soname ]] || fail "no $soname link next to $library"
[[ -e $(dirname "$library")/libtrapeze.so ]] || fail "no libtrapeze.so link next to $library"
if grep -E '\((RPATH|RUNPATH)\)' <<<"$dynamic" | grep -qF "$(cd "$build_dir" && pwd)"; then
  fail "the installed $library keeps an RPATH into the build tree"
fi

cli=$prefix/bin/trapeze
[[ -x $cli ]] || fail "the command line bin/trapeze is not installed"
if ldd "$cli" | grep -F libtrapeze | grep -qF 'not found'; then
  fail "the installed bin/trapeze cannot find libtrapeze (INSTALL_RPATH)"
fi

pc=$(find "$prefix" -name trapeze.pc)
[[ -n $pc ]] || fail "trapeze.pc (pkg-config) is not installed"
PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs trapeze >"$work/pkg-config.txt" ||
  fail "pkg-config cannot read $pc"
echo '#include <trapeze/trapeze.h>
int main() { trapeze::Var x("x"); return 0; }' >"$work/pc.cpp"
# shellcheck disable=SC2046
"$cxx" $cxx_flags "$work/pc.cpp" -o "$work/pc" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs trapeze) >"$work/pc.log" 2>&1 ||
  { cat "$work/pc.log" >&2; fail "a program built with pkg-config's flags"; }
"$work/pc" || fail "the program built with pkg-config's flags exited with status $?"

IFS=: read -r -a examples <<<"$example_dirs"
for example_dir in "${examples[@]}"; do
  name=$(basename "$example_dir")
  step "configure $example_dir against $prefix"
  "$cmake" -S "$example_dir" -B "$work/$name" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$cxx_flags" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/$name-configure.log" 2>&1 ||
    { cat "$work/$name-configure.log" >&2; fail "configuring $name"; }

  step "build $name"
  "$cmake" --build "$work/$name" >"$work/$name-build.log" 2>&1 ||
    { cat "$work/$name-build.log" >&2; fail "building $name"; }

  step "run $name"
  # An app that links libtrapeze must load the installed copy, not the build
  # directory's.
  if ldd "$work/$name/app" | grep -qF libtrapeze; then
    ldd "$work/$name/app" | grep -F libtrapeze | grep -qF "$prefix" ||
      fail "$name does not load libtrapeze from $prefix: $(ldd "$work/$name/app" | grep -F libtrapeze)"
  fi
  "$work/$name/app" || fail "$name exited with status $?"
done

rm -rf "$work"
echo "-- passed"
