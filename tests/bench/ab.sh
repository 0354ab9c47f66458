#!/bin/sh
# tests/bench/ab.sh - an interleaved A/B of groupconc against an older groupconc.h.
#
#   tests/bench/ab.sh OLD_REV [RUNS] [groupconc-bench options...]
#
# Builds groupconc-bench twice from this tree's bench sources (release: -O2, NDEBUG): once with
# this tree's groupconc.h ("new"), once with OLD_REV's ("old"; any git revision). Then, RUNS
# times (default 5): for each of W1..W9, one measurement of old and one of new, in alternating
# order, so that both see the same neighbours. Prints per workload the median of each and the
# ratio after/before, oriented so that >= 1 is "no slower" (rates: new/old; makespans, latencies
# and bytes: old/new), and the line "held" or "REGRESSED" against the bar 0.95.
# Extra options go to groupconc-bench (e.g. --scale 0.3 for a shorter run; the same for both).
# Environment: AB_DIR (default <repo>/build-ab), AB_ONLY (default W1 W2 W3 W4a W4b W5 W6a W6b W7a
# W7b W8 W9), AB_BAR (0.95).
set -eu

[ $# -ge 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
old_rev=$1
shift
runs=5
case ${1:-} in '' | -*) ;; *) runs=$1; shift ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${AB_DIR:-$root/build-ab}
only=${AB_ONLY:-"W1 W2 W3 W4a W4b W5 W6a W6b W7a W7b W8 W9"}
bar=${AB_BAR:-0.95}

mkdir -p "$dir"
# "old": a copy of this tree (sources, build files) with groupconc.h taken from OLD_REV.
rm -rf "$dir/old-src"
mkdir -p "$dir/old-src"
(cd "$root" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | (cd "$dir/old-src" && tar xf -)
(cd "$root" && git show "$old_rev:groupconc.h") >"$dir/old-src/groupconc.h"
for side in old new; do
    src=$root
    [ $side = old ] && src=$dir/old-src
    if [ ! -f "$dir/$side/build.ninja" ]; then
        meson setup "$dir/$side" "$src" -Dbuildtype=release -Doptimization=2 -Db_ndebug=true -Dc_args=-g \
            -Dfleet=disabled >/dev/null
    fi
    ninja -C "$dir/$side" tests/bench/groupconc-bench >/dev/null
done

out=$dir/results.txt
: >"$out"
i=0
while [ $i -lt "$runs" ]; do
    for w in $only; do
        # alternate which side goes first, run by run
        if [ $((i % 2)) -eq 0 ]; then order="old new"; else order="new old"; fi
        for side in $order; do
            line=$("$dir/$side/tests/bench/groupconc-bench" one "$w" groupconc "$@" 2>/dev/null |
                tail -n 1) || line="FAILED"
            echo "$side $w $line" >>"$out"
        done
    done
    i=$((i + 1))
    echo "run $i of $runs done" >&2
done

python3 - "$out" "$bar" <<'PY'
import re, statistics, sys
path, bar = sys.argv[1], float(sys.argv[2])
# workload -> (metric index, higher is better, label)
metric = {"W1": (0, 1, "tasks/s"), "W2": (0, 1, "tasks/s"), "W3": (2, 1, "drain tasks/s"),
          "W4a": (0, 0, "makespan/ideal"), "W4b": (0, 0, "makespan/ideal"), "W5": (0, 1, "tasks/s"),
          "W6a": (1, 0, "p99 ns"), "W6b": (1, 0, "p99 ns"), "W7a": (0, 1, "tasks/s"),
          "W7b": (0, 1, "tasks/s"), "W8": (0, 1, "tasks/s"), "W9": (0, 0, "makespan/ideal")}
vals = {}
for line in open(path):
    parts = line.split()
    if len(parts) < 3 or not line.rstrip().endswith(" ok"):
        continue
    side, w = parts[0], parts[1]
    m = dict(re.findall(r"m(\d+)=(\S+)", line))
    idx = metric.get(w, (0, 1, ""))[0]
    vals.setdefault((w, side), []).append(float(m[str(idx)]))
worst = None
print("%-4s %-15s %14s %14s %8s" % ("", "metric", "old (median)", "new (median)", "after/before"))
for w in [w for w in metric if (w, "old") in vals or (w, "new") in vals]:
    o, n = vals.get((w, "old"), []), vals.get((w, "new"), [])
    if not o or not n:
        print("%-4s missing measurements (old %d, new %d)" % (w, len(o), len(n)))
        worst = 0.0
        continue
    mo, mn = statistics.median(o), statistics.median(n)
    idx, higher, label = metric[w]
    r = (mn / mo if mo else 0.0) if higher else (mo / mn if mn else 0.0)
    worst = r if worst is None else min(worst, r)
    print("%-4s %-15s %14.6g %14.6g %8.3f  (n=%d/%d)" % (w, label, mo, mn, r, len(o), len(n)))
ok = worst is not None and worst >= bar
print("worst after/before %.3f: %s (bar %.2f)" % (worst or 0.0, "held" if ok else "REGRESSED", bar))
sys.exit(0 if ok else 1)
PY
