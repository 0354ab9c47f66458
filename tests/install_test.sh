#!/usr/bin/env bash
# tests/install_test.sh - install groupconc into a temporary prefix with `meson install`, then build
# examples/01_quick_start.c against the installed copy using only pkg-config, and run it.
# Prints "install test: ok" on success; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

meson setup "$tmp/build" "$root" --prefix="$prefix" >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log"; exit 1; }
meson install -C "$tmp/build" --no-rebuild >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
echo "installed:"
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')

pc=$(find "$prefix" -name groupconc.pc -print -quit)
[ -n "$pc" ] || { echo "install test: no groupconc.pc under $prefix" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs groupconc)
echo "pkg-config --cflags --libs groupconc: $flags"
case $flags in
    *"-I$prefix/include"*) ;;
    *) echo "install test: Cflags do not point into the prefix" >&2; exit 1 ;;
esac

# Build from a copy outside the repository, so that only the installed header can be found.
cp "$root/examples/01_quick_start.c" "$tmp/quick_start.c"
# shellcheck disable=SC2086 # $flags is a list of flags
"$cc" -std=c11 -Wall -Wextra -pedantic -Werror -O2 -o "$tmp/quick_start" "$tmp/quick_start.c" $flags
"$tmp/quick_start"

# The Redis provider is installed next to groupconc.h; where hiredis is there, it compiles from the
# installed copy alone.
redis_h=$(find "$prefix" -name groupconc_redis.h -print -quit)
[ -n "$redis_h" ] || { echo "install test: groupconc_redis.h was not installed" >&2; exit 1; }
[ "$(dirname "$redis_h")" = "$(dirname "$(find "$prefix" -name groupconc.h -print -quit)")" ] ||
    { echo "install test: groupconc_redis.h is not next to groupconc.h" >&2; exit 1; }
if pkg-config --exists hiredis; then
    printf '#define GROUPCONC_IMPLEMENTATION\n#include <groupconc.h>\n#define GROUPCONC_REDIS_IMPLEMENTATION\n#include <groupconc_redis.h>\n' >"$tmp/redis.c"
    # shellcheck disable=SC2046,SC2086 # flag lists
    "$cc" -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -fsyntax-only "$tmp/redis.c" $flags \
        $(pkg-config --cflags hiredis)
    echo "groupconc_redis.h: installed, compiles"
fi
echo "install test: ok"
