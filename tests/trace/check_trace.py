#!/usr/bin/env python3
"""Check the trace of examples/12_trace.c (extras/groupconc_trace.h): usage: check_trace.py EXAMPLE_12

Runs the example, writing its trace to a temporary file, then parses the Chrome trace-event JSON
(python's json module: it must be valid JSON) and checks, per group the example reports
('group "<name>" cap <n> tasks <m>'):
  - nothing dropped or unmatched (otherData), and every event has the fields its phase needs;
  - every task is present: m distinct task ids submitted, each with exactly one outcome: one run
    (a complete event, "ph":"X") or one "completed" instant (it never ran), and m in all;
  - complete events nest on each track (no two on one track overlap), and a group's slot tracks
    number at most its cap;
  - no group ever shows more running tasks than its cap: neither its counter track nor the
    overlap of its runs (computed here from the complete events);
  - the counter track agrees with the runs (it returns to 0, its peak equals the runs' peak).
Prints one line per group; exits 1 with the reason on the first failed check."""
import json
import os
import re
import subprocess
import sys
import tempfile


def fail(msg):
    sys.exit("trace check: " + msg)


def peak(intervals):
    steps = sorted([(s, 1) for s, e in intervals] + [(e, -1) for s, e in intervals], key=lambda x: (x[0], x[1]))
    n = best = 0
    for _, d in steps:
        n += d
        best = max(best, n)
    return best


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        p = subprocess.run([sys.argv[1], path], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("example exited %d:\n%s%s" % (p.returncode, p.stdout, p.stderr))
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    groups = {m.group(1): (int(m.group(2)), int(m.group(3)))
              for m in re.finditer(r'^group "([^"]*)" cap (\d+) tasks (\d+)$', p.stdout, re.M)}
    if not groups:
        fail("the example reported no groups:\n" + p.stdout)
    other = trace["otherData"]
    if other["dropped"] != 0 or other["unmatched"] != 0:
        fail("dropped %d, unmatched %d" % (other["dropped"], other["unmatched"]))
    events = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    for e in events:
        need = {"X": ("ts", "dur", "tid", "args"), "i": ("ts", "tid", "args"), "C": ("ts", "args"), "M": ("args",)}[e["ph"]]
        for k in need:
            if k not in e:
                fail("event without %s: %s" % (k, e))
    for g, (cap, ntasks) in groups.items():
        runs = [e for e in events if e["ph"] == "X" and e["args"]["group"] == g]
        counted = [e for e in runs if e["cat"] == "task"]
        inst = [e for e in events if e["ph"] == "i" and e["args"]["group"] == g]
        submitted = [e["args"]["task_id"] for e in inst if e["name"] == "submitted"]
        never_ran = [e["args"]["task_id"] for e in inst if e["name"] == "completed"]
        ran = [e["args"]["task_id"] for e in runs]
        if len(submitted) != ntasks or len(set(submitted)) != ntasks:
            fail("%s: %d submitted (%d distinct), %d expected" % (g, len(submitted), len(set(submitted)), ntasks))
        outcomes = ran + never_ran
        if sorted(outcomes) != sorted(submitted):
            fail("%s: tasks without exactly one outcome: %s" % (g, set(submitted) ^ set(outcomes)))
        tracks = {}
        for e in counted:
            tracks.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
            if not names.get(e["tid"], "").startswith(g + " slot "):
                fail("%s: run on track %r" % (g, names.get(e["tid"])))
        for tid, iv in tracks.items():
            iv.sort()
            for (s1, e1), (s2, e2) in zip(iv, iv[1:]):
                if s2 < e1 - 1e-6:
                    fail("%s: runs overlap on track %s: [%s, %s] and [%s, %s]" % (g, names[tid], s1, e1, s2, e2))
        if len(tracks) > cap:
            fail("%s: %d slot tracks, cap %d" % (g, len(tracks), cap))
        run_peak = peak([iv for ivs in tracks.values() for iv in ivs])
        counter = [e["args"]["running"] for e in sorted((e for e in events if e["ph"] == "C" and e["name"] == g + " running"),
                                                        key=lambda e: e["ts"])]
        if run_peak > cap or (counter and max(counter) > cap):
            fail("%s: %d running at once (counter peak %s), cap %d" % (g, run_peak, max(counter or [0]), cap))
        if counted and (not counter or counter[-1] != 0 or max(counter) != run_peak or len(counter) != 2 * len(counted)):
            fail("%s: the counter track (%d points, peak %s) disagrees with the runs (%d, peak %d)"
                 % (g, len(counter), max(counter or [0]), len(counted), run_peak))
        print("%-10s cap %d: %d tasks present (%d ran, %d never ran), at most %d running at once on %d slot tracks"
              % (g, cap, ntasks, len(ran), len(never_ran), run_peak, len(tracks)))
    print("trace check: ok (%d events, nothing dropped)" % len(events))


if __name__ == "__main__":
    main()
