#!/bin/sh
# run_fuzz.sh - build tests/fuzz/fuzz_ops.c with libFuzzer + ASan + UBSan and fuzz for a while.
#
#   tests/fuzz/run_fuzz.sh [seconds] [extra libFuzzer flags...]     (default 60 s)
#
# Needs clang and its libFuzzer runtime (Debian: apt-get install clang libclang-rt-14-dev).
# Works on a copy of tests/fuzz/corpus (new inputs land in the copy, the seeds stay as they are);
# prints the number of executions; exits non-zero when libFuzzer finds a crash, leak, timeout or
# invariant violation (the reproducer is left in the work directory it prints).
# Environment: CC (default clang), WORKDIR (default a fresh mktemp -d), GROUPCONC_ROOT (default:
# two levels above this script) - the directory holding groupconc.h.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=${GROUPCONC_ROOT:-$(cd "$here/../.." && pwd)}
secs=${1:-60}
[ $# -gt 0 ] && shift
cc=${CC:-clang}
work=${WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/groupconc-fuzz.XXXXXX")}
mkdir -p "$work/corpus"

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "run_fuzz.sh: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
fi

cp "$here"/corpus/* "$work/corpus/" 2>/dev/null || true
echo "run_fuzz.sh: building $work/fuzz_ops against $root/groupconc.h"
if ! "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
        -I"$root" "$here/fuzz_ops.c" -o "$work/fuzz_ops" -pthread; then
    echo "run_fuzz.sh: build failed (is libclang-rt-14-dev installed? apt-get install libclang-rt-14-dev)" >&2
    exit 2
fi

echo "run_fuzz.sh: fuzzing for ${secs}s, corpus copy in $work/corpus"
status=0
(cd "$work" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ./fuzz_ops -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=512 \
        -print_final_stats=1 "$@" corpus) >"$work/fuzz.log" 2>&1 || status=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
tail -n 25 "$work/fuzz.log"
echo "run_fuzz.sh: executions: ${execs:-unknown}; corpus now $(ls "$work/corpus" | wc -l) files; log $work/fuzz.log"
if [ "$status" -ne 0 ]; then
    echo "run_fuzz.sh: FAILED (libFuzzer exit $status); reproducer(s):" >&2
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null >&2 || true
    exit 1
fi
echo "run_fuzz.sh: no finding"
