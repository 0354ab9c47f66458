#!/bin/sh
# tests/bench/scaling.sh - the multi-core scaling table (issue 26 item 4; README.md in this
# directory): W1, W2, W7a and W7b at T = 2, 4, 8, 16 workers (and T submitters in W7), each T on T
# CPUs (taskset -c 0..T-1: groupconc and GLib get --threads T, libdispatch sizes its pool by the
# same affinity mask), groupconc against GLib's GThreadPool and libdispatch, interleaved, medians of
# R runs; then groupconc-lockstat at each T (the executor lock's hold per task and the projected
# saturation), and `groupconc-bench capacity T` (what parallelism the T CPUs really give: k
# spinning threads' work against one's, and the hypervisor's steal time). Prints one markdown table
# last.
#
#   tests/bench/scaling.sh [--threads "2 4 8 16"] [--runs R] [--out DIR] [--peers LIST]
#                          [groupconc-bench options...]
#
#   --threads LIST   the Ts (default "2 4 8 16"; a T above this machine's CPU count is skipped)
#   --runs R         runs per measurement (default 5)
#   --out DIR        keep each T's full output there (scale-T.txt, lockstat-T.txt, capacity-T.txt,
#                    table.md; default: a temporary folder, removed at the end)
#   --peers LIST     peers beside groupconc (default glib,dispatch; dispatch needs a build with
#                    --with-dispatch)
#   --lockstat-tasks N  tasks per lockstat workload (default 1000000)
# Each T runs on the first T CPUs of this process's affinity mask. Other options go to
# groupconc-bench (--scale 0.1, --timeout 60, ...; not --only or --peers: the table needs its rows).
# Environment: BIN_DIR, the folder holding groupconc-bench and groupconc-lockstat (default
# <repo>/build-bench/tests/bench: build them with `tests/bench/run.sh --with-dispatch PREFIX
# --lockstat` once, or `ninja -C build-bench tests/bench/groupconc-bench
# tests/bench/groupconc-lockstat` after its meson setup).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin_dir=${BIN_DIR:-$root/build-bench/tests/bench}
threads="2 4 8 16"
runs=5
out=""
peers="glib,dispatch"
lockstat_tasks=1000000
extra=""
while [ $# -gt 0 ]; do
    case $1 in
    --threads) threads=$2; shift ;;
    --runs) runs=$2; shift ;;
    --out) out=$2; shift ;;
    --peers) peers=$2; shift ;;
    --lockstat-tasks) lockstat_tasks=$2; shift ;;
    --only | --no-dispatch)
        echo "scaling.sh: $1: the table needs W1, W2, W7 and the peers of --peers" >&2
        exit 2
        ;;
    -h | --help)
        sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) extra="$extra $1" ;;
    esac
    shift
done
bench=$bin_dir/groupconc-bench
lockstat=$bin_dir/groupconc-lockstat
for b in "$bench" "$lockstat"; do
    [ -x "$b" ] || {
        echo "scaling.sh: no $b (see --help: build it first)" >&2
        exit 2
    }
done
command -v taskset >/dev/null 2>&1 || {
    echo "scaling.sh: needs taskset (util-linux)" >&2
    exit 2
}
keep=$out
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    trap 'exit 1' INT TERM HUP
fi
mkdir -p "$out"
rm -f "$out"/scale-*.txt "$out"/lockstat-*.txt "$out"/capacity-*.txt "$out"/table.md
# this process's CPUs, one per line, in order (from the affinity mask: "0-3,8-11")
cpu_list=$(LC_ALL=C taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
    awk -F- '{ hi = NF == 2 ? $2 : $1; for (c = $1; c <= hi; c++) print c }')
cpus=$(echo "$cpu_list" | grep -c .)
# the first T of them, as taskset -c takes them: "0,1,2,3"
first_cpus() { echo "$cpu_list" | head -n "$1" | paste -s -d, -; }
echo "scaling.sh: $cpus CPUs here ($(uname -srm)); Ts: $threads; $runs runs; peers: $peers"
echo "scaling.sh: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"

status=0
ran=""
# a step that failed: its output to stderr (the folder may be a temporary one, removed at the end)
failed() {
    status=1
    echo "scaling.sh: T=$1: $2 failed; its output:" >&2
    tail -n 40 "$out/$2-$1.txt" >&2
}
for t in $(echo "$threads" | tr ' ' '\n' | grep . | awk '!seen[$0]++'); do
    if [ "$t" -gt "$cpus" ]; then
        echo "scaling.sh: T=$t skipped: $cpus CPUs"
        continue
    fi
    ran="$ran $t"
    set_cpus=$(first_cpus "$t")
    echo "scaling.sh: T=$t on CPUs $set_cpus ($(date -u +%H:%M:%S))"
    # what parallelism these T CPUs really give (a VM's vCPUs may share cores, or be stolen)
    taskset -c "$set_cpus" "$bench" capacity "$t" >"$out/capacity-$t.txt" 2>&1 || failed "$t" capacity
    # shellcheck disable=SC2086
    taskset -c "$set_cpus" "$bench" --only W1,W2,W7 --no-curves --runs "$runs" --threads "$t" \
        --w7-submitters "$t" --peers "$peers" $extra >"$out/scale-$t.txt" 2>&1 || failed "$t" scale
    taskset -c "$set_cpus" "$lockstat" W1 W2 W7a W7b --threads "$t" --w7-submitters "$t" \
        --w1-tasks "$lockstat_tasks" --w2-tasks "$lockstat_tasks" \
        >"$out/lockstat-$t.txt" 2>&1 || failed "$t" lockstat
done

# The table: one row per T and workload, the groupconc-bench medians and its per-run ratios; the
# lockstat projection (the executor lock saturates at ... tasks/s, ~ ... workers) beside it.
{
    echo "| T (CPUs, workers, W7 submitters) | workload | groupconc | GThreadPool | libdispatch | gc/glib | gc/disp | executor lock (lockstat): hold / task, saturates at, ≈ workers |"
    echo "|---|---|---|---|---|---|---|---|"
    for t in $ran; do
        f=$out/scale-$t.txt
        [ -f "$f" ] || continue
        for w in W1 W2 W7a W7b; do
            case $w in
            W1) pat='^W1 dispatch, tasks/s .fire' ;;
            W2) pat='^W2 per-key serial, tasks/s' ;;
            W7a) pat='^W7a W1 from' ;;
            W7b) pat='^W7b W2 from' ;;
            esac
            # "executor lock: held H ns per task => it saturates at S tasks/s; at this run's ...
            #  per worker that is ~N workers" -> "H ns, S/s, ~N workers"
            sat=$(awk -v w="$w:" '$1 == w { on = 1; next } /^W[0-9][a-z]*:/ { on = 0 }
                on && /executor lock: held/ {
                    for (i = 1; i <= NF; i++) {
                        if ($i == "held") h = $(i + 1)
                        if ($i == "at" && $(i - 1) == "saturates") s = $(i + 1)
                        if ($i == "workers") n = $(i - 1)
                    }
                    printf "%s ns, %s/s, %s workers", h, s, n; exit }' \
                "$out/lockstat-$t.txt" 2>/dev/null)
            grep -E "$pat" "$f" | head -n 1 | awk -F'|' -v t="$t" -v w="$w" -v sat="$sat" -v peers="$peers" '
                function med(c) { gsub(/^ +| +$/, "", c); split(c, a, " "); return a[1] }
                {
                    n = 2; g = med($n)
                    gl = "-"; di = "-"; rg = "-"; rd = "-"
                    if (peers ~ /glib/) gl = med($(++n))
                    if (peers ~ /uv/) ++n
                    if (peers ~ /dispatch/) di = med($(++n))
                    if (peers ~ /glib/) rg = med($(++n))
                    if (peers ~ /uv/) ++n
                    if (peers ~ /dispatch/) rd = med($(++n))
                    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", t, w, g, gl, di, rg, rd, sat
                }'
        done
        peak=$(grep -E '^W1d peak worker threads' "$f" | awk -F'|' '{ split($2, a, " "); print a[1] }')
        [ -z "$peak" ] || echo "| $t | W1d peak worker threads, default policy (W1's no-op tasks) | $peak | | | | | |"
    done
    echo
    for t in $ran; do
        [ -f "$out/capacity-$t.txt" ] && echo "T=$t: $(cat "$out/capacity-$t.txt")"
    done
} >"$out/table.md"
# every T that ran has its 5 rows (W1, W2, W7a, W7b, W1d), each with a groupconc figure
for t in $ran; do
    # the third cell, groupconc's figure, a number
    rows=$(grep -c "^| $t | W[0-9][a-z]*[^|]*| [0-9][0-9.]*[kM]\{0,1\} |" "$out/table.md" || true)
    if [ "$rows" -ne 5 ]; then
        echo "scaling.sh: T=$t: $rows of the 5 rows in the table" >&2
        failed "$t" scale
    fi
done
[ -n "$ran" ] || {
    echo "scaling.sh: no T ran ($cpus CPUs)" >&2
    status=1
}
echo
[ -n "$keep" ] && echo "full outputs: $out"
grep -h -E '^targets:|failed:' "$out"/scale-*.txt 2>/dev/null | sed 's/^/  /' || true
echo
cat "$out/table.md"
exit $status
