#!/usr/bin/env bash
# tests/subproject/run.sh [BUILD_DIR] - use this repository as a meson subproject of a parent
# project (tests/subproject/meson.build), build examples/01_quick_start.c there, run it.
# The parent project is assembled in a temporary directory:
#   parent/meson.build              <- tests/subproject/meson.build
#   parent/01_quick_start.c         <- examples/01_quick_start.c (a project may not take sources
#                                      from inside a subproject)
#   parent/subprojects/groupconc    -> symlink to this repository
# BUILD_DIR (default: a temporary directory) keeps meson-logs/testlog.json for .ci/run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=${1:-$tmp/build}

parent=$tmp/parent
mkdir -p "$parent/subprojects"
cp "$root/tests/subproject/meson.build" "$parent/meson.build"
cp "$root/examples/01_quick_start.c" "$parent/01_quick_start.c"
ln -s "$root" "$parent/subprojects/groupconc"

rm -rf "$build"
# --force-fallback-for: use the subproject even if a groupconc.pc is installed on this machine.
meson setup "$build" "$parent" --force-fallback-for=groupconc
meson test -C "$build" --print-errorlogs
