#!/usr/bin/env bash
# .ci/build_cmocka_mingw.sh DEST - cmocka for Windows x86-64, which Debian packages for Linux only:
# Debian's own source package (apt-get source: needs a deb-src entry, which .ci/run's deps section
# adds, and dpkg-dev), cross-built with mingw-w64 and CMake into DEST:
#     DEST/include/cmocka.h  DEST/lib/libcmocka.a  DEST/lib/pkgconfig/cmocka.pc
# A static library, so the test .exe files need no DLL search path under Wine. Use it with
#     PKG_CONFIG_LIBDIR=DEST/lib/pkgconfig meson setup BUILD --cross-file cross/mingw-w64-x86_64.txt
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc-posix}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # apt-get source downloads as user _apt when it can write here, else warns
cd "$tmp"

apt-get source -qq cmocka >source.log 2>&1 ||
    { cat source.log; echo "apt-get source cmocka failed: is there a deb-src entry (apt-get update after it)?" >&2; exit 1; }
src=$(find . -maxdepth 1 -type d -name 'cmocka-*' -print -quit)
[ -n "$src" ] || { cat source.log; echo "no cmocka source tree" >&2; exit 1; }
version=${src#./cmocka-}
echo "cmocka $version from $(ls ./*.dsc)"

# mingw's C99 printf (__USE_MINGW_ANSI_STDIO) rather than msvcrt's: the tests pass %zu to
# print_error and fail_msg. WITH_STATIC_LIB (1.1.x) also builds libcmocka-static.a.
cmake -S "$src" -B build -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1 \
    -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF >cmake.log 2>&1 ||
    { cat cmake.log; exit 1; }
cmake --build build >>cmake.log 2>&1 || { cat cmake.log; exit 1; }
lib=$(find build -name 'libcmocka-static.a' -print -quit)
[ -n "$lib" ] || { echo "no static cmocka library in the build" >&2; exit 1; }

rm -rf "$dest/include" "$dest/lib"
mkdir -p "$dest/include" "$dest/lib/pkgconfig"
cp "$lib" "$dest/lib/libcmocka.a"
# The header's format attribute says printf, which mingw gcc checks as msvcrt's (no %zu): say
# gnu_printf, which is what the library was built with (above).
sed 's/__printf__/__gnu_printf__/g' "$src/include/cmocka.h" >"$dest/include/cmocka.h"
grep -q __gnu_printf__ "$dest/include/cmocka.h" || { echo "cmocka.h: no format attribute found" >&2; exit 1; }
# -isystem, as the native package's header in /usr/include is: the pedantic warnings its macros
# raise in a -Werror build (fail_msg with no arguments) are not ours.
cat >"$dest/lib/pkgconfig/cmocka.pc" <<EOF
prefix=$dest
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: cmocka
Description: The cmocka unit testing library (static, mingw-w64 cross build)
Version: $version
Libs: -L\${libdir} -lcmocka
Cflags: -isystem \${includedir}
EOF
echo "cmocka $version for mingw-w64 in $dest"
