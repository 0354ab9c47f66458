#!/bin/sh
# tests/bench/build_dispatch.sh SRC PREFIX - build swift-corelibs-libdispatch (the C library, no
# Swift overlay) from the source directory SRC with clang + cmake (Release, tests off) and install it
# into PREFIX, for `tests/bench/run.sh --with-dispatch PREFIX` (README.md in this directory).
#
#   git clone https://github.com/apple/swift-corelibs-libdispatch SRC   (or: git archive | tar -x)
#   tests/bench/build_dispatch.sh SRC /tmp/dispatch-prefix
#
# Needs clang, cmake and ninja (apt-get install clang cmake ninja-build; installed here when run as
# root). Builds in $BUILD (default: a fresh temporary directory, removed afterwards).
# PREFIX then holds include/dispatch/dispatch.h and lib/libdispatch.so (+ libBlocksRuntime.so).
set -eu

if [ $# -ne 2 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
src=$(cd "$1" && pwd)
mkdir -p "$2"
prefix=$(cd "$2" && pwd)
if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/dispatch" ]; then
    echo "build_dispatch.sh: $src is not a swift-corelibs-libdispatch source tree" >&2
    exit 1
fi

need=""
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "build_dispatch.sh: installing$need" >&2
        apt-get update -qq >&2
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >&2
    else
        echo "build_dispatch.sh: missing: sudo apt-get install -y$need" >&2
        exit 1
    fi
fi

build=${BUILD:-}
own_build=0
if [ -z "$build" ]; then
    build=$(mktemp -d /tmp/dispatch-build.XXXXXX)
    own_build=1
fi
cmake -S "$src" -B "$build" -G Ninja \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DBUILD_TESTING=OFF \
    -DENABLE_SWIFT=OFF
cmake --build "$build"
cmake --install "$build"
[ "$own_build" = 1 ] && rm -rf "$build"
lib=$(find "$prefix" -name 'libdispatch.so' | head -n 1)
[ -n "$lib" ] || {
    echo "build_dispatch.sh: no libdispatch.so under $prefix" >&2
    exit 1
}
echo "build_dispatch.sh: installed $lib and $prefix/include/dispatch"
