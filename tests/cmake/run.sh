#!/usr/bin/env bash
# tests/cmake/run.sh [WORK_DIR] - build and run the CMake consumer project (tests/cmake/) three ways:
#   subdirectory   add_subdirectory(<this checkout>)
#   fetchcontent   FetchContent, the declared URL replaced by this checkout
#                  (FETCHCONTENT_SOURCE_DIR_GROUPCONC; no network)
#   package        cmake --install of this checkout into a prefix, then find_package(groupconc CONFIG)
# Then groupconc itself as the top-level project: its examples built and run by ctest.
# Each way also checks that groupconc's examples are not built when it is a dependency, and the
# install that the headers and the package config landed where documented.
# Prints "cmake <way>: ok" per way; exits non-zero on the first failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${1:-$tmp/work}
rm -rf "$work"
mkdir -p "$work"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)

consumer() { # consumer WAY [cmake args...]
    local way=$1 b=$work/$1
    shift
    cmake -S "$root/tests/cmake" -B "$b" "${gen[@]}" -DGROUPCONC_VIA="$way" "$@" >"$work/$way.log" 2>&1 &&
        cmake --build "$b" >>"$work/$way.log" 2>&1 || { cat "$work/$way.log"; echo "cmake $way: FAILED"; return 1; }
    if find "$b" -name '01_quick_start*' -type f | grep -q .; then
        echo "cmake $way: groupconc's examples were built for a consumer"; return 1
    fi
    "$b/consumer"
    echo "cmake $way: ok"
}

consumer subdirectory -DGROUPCONC_SOURCE_DIR="$root"
consumer fetchcontent -DFETCHCONTENT_SOURCE_DIR_GROUPCONC="$root" -DFETCHCONTENT_FULLY_DISCONNECTED=ON

prefix=$work/prefix
cmake -S "$root" -B "$work/groupconc" "${gen[@]}" -DGROUPCONC_BUILD_EXAMPLES=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/install.log" 2>&1 &&
    cmake --install "$work/groupconc" >>"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
echo "installed:"
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')
for f in include/groupconc/groupconc.h include/groupconc/extras/groupconc_prometheus.h \
    include/groupconc/extras/groupconc_trace.h include/groupconc/extras/groupconc_redis.h \
    share/groupconc/cmake/groupconcConfig.cmake share/groupconc/cmake/groupconcConfigVersion.cmake; do
    [ -f "$prefix/$f" ] || { echo "cmake package: $f not installed"; exit 1; }
done
consumer package -DCMAKE_PREFIX_PATH="$prefix"

# groupconc as the top-level project: the examples build (warning-free) and pass under ctest.
cmake -S "$root" -B "$work/top" "${gen[@]}" -DCMAKE_C_FLAGS="-Wall -Wextra -pedantic -Werror" \
    >"$work/top.log" 2>&1 && cmake --build "$work/top" >>"$work/top.log" 2>&1 &&
    (cd "$work/top" && ctest --output-on-failure >>"$work/top.log" 2>&1) ||
    { cat "$work/top.log"; echo "cmake examples: FAILED"; exit 1; }
grep -E 'tests passed|tests failed' "$work/top.log"
echo "cmake examples: ok"
