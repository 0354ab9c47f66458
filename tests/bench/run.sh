#!/bin/sh
# tests/bench/run.sh - the one command for the benchmarks (README.md in this directory).
#
#   tests/bench/run.sh [--with-dispatch PREFIX] [--no-callgrind] [--profile] [--lockstat]
#                      [groupconc-bench options...]
#
# Installs the peers if they are missing (apt-get, when run as root), builds a release build
# (-O2, NDEBUG, -g) in build-bench/ at the repository root, runs every workload against GLib's
# GThreadPool and libuv's work queue (and libdispatch with --with-dispatch; W8, the bounded table:
# groupconc alone), interleaved, 5 runs by default, and prints the table of medians [min..max] with
# the groupconc/peer ratios and the cost curves; then the admission gate's cost per try-acquire +
# release beside a mutex-protected counter and a semaphore (bench_gate.c); then the hot-path figure:
# instructions per submit->complete of a no-op task, counted by valgrind's callgrind (groupconc's
# in a build with its pacing times scaled to callgrind's slow clock: GROUPCONC__TIME_SCALE), with
# its target (groupconc <= libdispatch; n/a without it). The last line counts every target
# printed: the table's (groupconc-bench's "targets:" line) and the instruction count's.
#   --with-dispatch PREFIX  also libdispatch, as installed in PREFIX by build_dispatch.sh
#   --no-callgrind   skip the instruction count
#   --profile        also print callgrind_annotate's top functions for groupconc's hot path
#   --lockstat       also run groupconc-lockstat (lock hold time per task in W1, W2, W5)
# Any other option goes to groupconc-bench (--runs R, --only W1,W8,W9, --scale 0.1, --no-curves,
# ...; --help).
# Environment: BUILD_DIR (default <repo>/build-bench), CALLGRIND_N1 / CALLGRIND_N2 (100000 / 300000),
# CALLGRIND_REPS (3).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
n1=${CALLGRIND_N1:-100000}
n2=${CALLGRIND_N2:-300000}
reps=${CALLGRIND_REPS:-3}

callgrind=1
profile=0
lockstat=0
dispatch=""
bench_args=""
while [ $# -gt 0 ]; do
    case $1 in
    --no-callgrind) callgrind=0 ;;
    --profile) profile=1 ;;
    --lockstat) lockstat=1 ;;
    --with-dispatch)
        [ $# -ge 2 ] || {
            echo "run.sh: --with-dispatch needs the PREFIX build_dispatch.sh installed into" >&2
            exit 2
        }
        dispatch=$2
        shift
        ;;
    --with-dispatch=*) dispatch=${1#--with-dispatch=} ;;
    -h | --help)
        sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) bench_args="$bench_args $1" ;;
    esac
    shift
done
if [ -n "$dispatch" ]; then
    dispatch=$(cd "$dispatch" 2>/dev/null && pwd) || {
        echo "run.sh: --with-dispatch: no such directory" >&2
        exit 2
    }
    if [ ! -f "$dispatch/lib/libdispatch.so" ] || [ ! -f "$dispatch/include/dispatch/dispatch.h" ]; then
        echo "run.sh: no libdispatch in $dispatch (lib/libdispatch.so, include/dispatch/dispatch.h);" >&2
        echo "        build it with: tests/bench/build_dispatch.sh SRC $dispatch" >&2
        exit 2
    fi
fi

# ---- dependencies ----
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd cc || need="$need gcc"
have_cmd meson || need="$need meson"
have_cmd ninja || need="$need ninja-build"
have_cmd pkg-config || need="$need pkg-config"
if have_cmd pkg-config; then
    pkg-config --exists glib-2.0 || need="$need libglib2.0-dev"
    pkg-config --exists libuv || need="$need libuv1-dev"
    pkg-config --exists cmocka || need="$need libcmocka-dev"
else
    need="$need libglib2.0-dev libuv1-dev libcmocka-dev"
fi
if [ "$callgrind" = 1 ] && ! have_cmd valgrind; then need="$need valgrind"; fi
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "run.sh: installing$need" >&2
        apt-get update -qq >&2
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >&2
    else
        echo "run.sh: missing packages; install them with: sudo apt-get install -y$need" >&2
        exit 1
    fi
fi

# ---- build: release, -O2, NDEBUG (no GROUPCONC_DEBUG checks), with symbols for profiles ----
opts="-Dbuildtype=release -Doptimization=2 -Ddebug=true -Db_ndebug=true -Dbench=true -Ddispatch_prefix=$dispatch"
log=$(mktemp)
table=$(mktemp)
table_rc=$(mktemp)
trap 'rm -f "$log" "$table" "$table_rc"' EXIT
quiet() { # run quietly; show the output only if it fails
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        echo "run.sh: failed: $*" >&2
        exit 1
    fi
}
if [ -f "$build/build.ninja" ]; then
    # shellcheck disable=SC2086
    quiet meson configure "$build" $opts
else
    # shellcheck disable=SC2086
    quiet meson setup "$build" "$root" $opts
fi
targets="tests/bench/groupconc-bench tests/bench/groupconc-gate-bench"
[ "$lockstat" = 1 ] && targets="$targets tests/bench/groupconc-lockstat"
[ "$callgrind" = 1 ] && targets="$targets tests/bench/groupconc-bench-callgrind"
# shellcheck disable=SC2086
quiet ninja -C "$build" $targets
bin=$build/tests/bench/groupconc-bench
bin_cg=$build/tests/bench/groupconc-bench-callgrind

# ---- the table ----
status=0
set +e
# (its output also goes to $table, for the "targets:" count at the end)
# shellcheck disable=SC2086
{
    "$bin" $bench_args
    echo $? >"$table_rc"
} | tee "$table"
status=$(cat "$table_rc")
[ -n "$status" ] || status=1
# the admission gate against a mutex-protected counter and a semaphore (bench_gate.c)
"$build/tests/bench/groupconc-gate-bench" || status=1
if [ "$lockstat" = 1 ]; then
    echo
    "$build/tests/bench/groupconc-lockstat" || status=1
fi
set -e

# ---- the hot path, counted ----
# --fair-sched=yes: valgrind runs threads round-robin, so the count does not depend on how the OS
# happened to schedule them; the median of 3 pairs smooths what is left (GLib's idle timeouts).
# groupconc's rows run groupconc-bench-callgrind, built with GROUPCONC__TIME_SCALE=100: the
# worker's pacing judges tasks by the clock, and under callgrind's ~100x slower run a no-op task
# looks long, so at scale 1 most tasks take a locked step of their own, which no native run of
# no-op tasks does (docs/performance.md); the scale-1 count is printed too, as info.
count_ir() { # binary mode n out -> total Ir over all threads
    valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$4" "$1" hotpath "$2" "$3" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
if [ "$callgrind" = 1 ]; then
    echo
    echo "hot path: instructions per submit->complete of a no-op task (W1 setup, 2 workers), callgrind"
    echo "--fair-sched=yes, all threads, (Ir(N=$n2) - Ir(N=$n1)) / $((n2 - n1)) so start-up cancels out;"
    echo "median [min..max] of $reps pairs"
    printf '%-20s | %-22s | %s\n' "implementation" "instr/task" "groupconc/this (>1: groupconc runs more)"
    printf '%s\n' "---------------------+------------------------+---------------"
    gc_per=""
    disp_per=""
    modes="groupconc groupconc-handles groupconc-scale1 glib uv"
    [ -n "$dispatch" ] && modes="$modes dispatch"
    for mode in $modes; do
        pers=""
        r=1
        while [ "$r" -le "$reps" ]; do
            case $mode in
            groupconc-scale1) cbin=$bin; cmode=groupconc ;;
            groupconc*) cbin=$bin_cg; cmode=$mode ;;
            *) cbin=$bin; cmode=$mode ;;
            esac
            a=$(count_ir "$cbin" "$cmode" "$n1" "$build/callgrind.$mode.$n1.out")
            b=$(count_ir "$cbin" "$cmode" "$n2" "$build/callgrind.$mode.$n2.out")
            if [ -z "$a" ] || [ -z "$b" ]; then
                echo "callgrind failed for $mode" >&2
                status=1
                a=0
                b=0
            fi
            pers="$pers $(awk -v a="$a" -v b="$b" -v n1="$n1" -v n2="$n2" 'BEGIN { printf "%.0f", (b - a) / (n2 - n1) }')"
            r=$((r + 1))
        done
        # shellcheck disable=SC2086
        stats=$(printf '%s\n' $pers | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d %d", v[int((NR + 1) / 2)], v[1], v[NR] }')
        # shellcheck disable=SC2086
        set -- $stats
        per=$1
        [ "$mode" = groupconc ] && gc_per=$per
        [ "$mode" = dispatch ] && disp_per=$per
        rel=$(awk -v g="$gc_per" -v p="$per" 'BEGIN { if (p > 0) printf "%.2f", g / p; else print "-" }')
        [ "$mode" = groupconc-scale1 ] && rel="(info: groupconc at scale 1)"
        label=$mode
        [ "$mode" = groupconc ] && label="groupconc (f&f)"
        [ "$mode" = groupconc-scale1 ] && label="(f&f, clock x1)"
        [ "$mode" = glib ] && label="GThreadPool"
        [ "$mode" = uv ] && label="libuv"
        [ "$mode" = dispatch ] && label="libdispatch"
        printf '%-20s | %-22s | %s\n' "$label" "$1 [$2..$3]" "$rel"
    done
    # issue 26: groupconc's no-op submit->complete (fire-and-forget) within libdispatch's, same
    # session; n/a when libdispatch is not built in
    if [ -z "$dispatch" ]; then
        ir_verdict="n/a"
        echo "target: groupconc (f&f) <= libdispatch's instructions per task: n/a (no libdispatch)"
    elif [ -n "$gc_per" ] && [ -n "$disp_per" ] && [ "$disp_per" -gt 0 ] && [ "$gc_per" -gt 0 ]; then
        if [ "$gc_per" -le "$disp_per" ]; then ir_verdict=MET; else ir_verdict=MISSED; fi
        echo "target: groupconc (f&f) <= libdispatch's instructions per task ($gc_per vs $disp_per): $ir_verdict"
    else
        ir_verdict="n/a"
        echo "target: groupconc (f&f) <= libdispatch's instructions per task: n/a (not counted)"
    fi
    echo "(profiles: $build/callgrind.<impl>.$n2.out; callgrind_annotate FILE)"
    if [ "$profile" = 1 ] && have_cmd callgrind_annotate; then
        echo
        echo "groupconc hot path, top functions (exclusive Ir, N=$n2, all threads):"
        callgrind_annotate "$build/callgrind.groupconc.$n2.out" 2>/dev/null |
            awk '/file:function/ { on = 1 } on && NF { print } on && ++n > 30 { exit }'
    fi
fi

# ---- every target, counted: the table's and the instruction count's ----
# shellcheck disable=SC2046
set -- $(sed -n 's/^targets: \([0-9]*\) met, \([0-9]*\) missed, \([0-9]*\) n\/a.*/\1 \2 \3/p' "$table") 0 0 0
met=$1
missed=$2
na=$3
case ${ir_verdict:-} in
MET) met=$((met + 1)) ;;
MISSED) missed=$((missed + 1)) ;;
*) na=$((na + 1)) ;;
esac
note=""
[ "$callgrind" = 1 ] || note="; the instruction count not run (--no-callgrind): n/a"
[ -n "$dispatch" ] || note="$note; no libdispatch: its targets n/a"
echo
echo "targets in all (the table's and the instruction count's): $met met, $missed missed, $na n/a$note"
exit "$status"
