#!/usr/bin/env bash
# Runs docs/tutorial.md (or the README): every code block, in order, in a
# scratch home directory, as a new user would type them.
#
#   scripts/run_tutorial.sh BUILD_DIR [MARKDOWN]
#
# Each fenced block must follow a marker comment saying what it is:
#   <!-- tutorial: file PATH -->    written to $HOME/tutorial/PATH
#   <!-- tutorial: run -->          run by bash (one session: exports carry on)
#   <!-- tutorial: install ... -->  done as `cmake --install BUILD_DIR --prefix $HOME/trapeze`
#                                   (the block says `build`, the test's directory may differ)
#   <!-- tutorial: not run: WHY --> not run, for the reason given (the build itself,
#                                   a reference of commands on files of one's own)
# A block without a marker is an error, so that no block goes unchecked.
# Files are written when the script reaches them, so a command sees only the
# files written above it. The scratch directory is removed on success and kept
# (its path printed) on failure.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [MARKDOWN]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$(cd "$1" && pwd)
markdown=${2:-$root/docs/tutorial.md}

work=$(mktemp -d "${TMPDIR:-/tmp}/trapeze-tutorial.XXXXXX")
script=$work/tutorial.sh

# The markdown as one bash script: files as here-documents, commands as they
# are, each announced with the line it comes from.
awk -v build_dir="$build_dir" -v source="$markdown" '
  function fail(message) {
    printf "%s:%d: %s\n", source, NR, message > "/dev/stderr"
    failed = 1
    exit 1
  }
  BEGIN {
    print "set -euo pipefail"
    print "mkdir -p \"$HOME/tutorial\""
  }
  /^<!-- tutorial: / {
    if (marker != "") fail("two markers in a row")
    marker = $0
    sub(/^<!-- tutorial: /, "", marker)
    sub(/ *-->$/, "", marker)
    next
  }
  /^```/ && !inside {
    if (marker == "") fail("a code block without a <!-- tutorial: ... --> marker")
    inside = 1
    start = NR
    if (marker ~ /^file /) {
      path = substr(marker, 6)
      printf "echo \"== %s:%d: file %s\"\n", source, NR, path
      printf "mkdir -p \"$HOME/tutorial/$(dirname %s)\"\n", path
      printf "cat > \"$HOME/tutorial/%s\" <<'\''TUTORIAL_EOF'\''\n", path
      kind = "file"
    } else if (marker == "run") {
      printf "echo \"== %s:%d: run\"\n", source, NR
      kind = "run"
    } else if (marker ~ /^install/) {
      printf "echo \"== %s:%d: install %s\"\n", source, NR, build_dir
      printf "cmake --install \"%s\" --prefix \"$HOME/trapeze\" > \"$HOME/install.log\"\n", build_dir
      kind = "skip"
    } else if (marker ~ /^not run: ./) {
      kind = "skip"
    } else {
      fail("unknown marker \"" marker "\"")
    }
    next
  }
  /^```/ && inside {
    if (kind == "file") print "TUTORIAL_EOF"
    inside = 0
    marker = ""
    next
  }
  inside && kind != "skip" { print }
  END {
    if (failed) exit 1
    if (inside) { printf "%s: the code block from line %d is not closed\n", source, start > "/dev/stderr"; exit 1 }
    if (marker != "") { printf "%s: a marker at the end with no block\n", source > "/dev/stderr"; exit 1 }
  }
' "$markdown" >"$script" || {
  echo "(files kept in $work)" >&2
  exit 1
}

# A home of its own: the tutorial installs into and works in $HOME.
if ! env HOME="$work/home" TRAPEZE_CACHE_DIR="$work/home/.cache/trapeze" bash "$script"; then
  echo "FAILED: the tutorial stopped at the step announced last (files kept in $work)" >&2
  exit 1
fi
rm -rf "$work"
echo "-- the tutorial ran"
