#!/usr/bin/env python3
"""Count test cases in meson test logs (meson-logs/testlog*.json).

usage: count_tests.py LABEL TESTLOG.json [--total FILE [--failures FILE]]

A cmocka executable counts its cases, read from the summary lines cmocka prints
("[  PASSED  ] N test(s).", "[  FAILED  ] N test(s), listed below:", "[  SKIPPED ] N test(s), ...";
several groups in one executable add up). Any other test (examples, compile checks, scripts) is one
case. A test whose process failed (crash, timeout, sanitizer report, valgrind error) adds at least
one failed case even if cmocka's own summary said all passed.

Prints "LABEL: P passed, F failed, S skipped" with the three slowest tests and, for each failed
test, the tail of its output.
With --total FILE, appends "LABEL P F S" to FILE; with --failures FILE, appends a short digest of
each failed test (its cmocka failure lines and the last lines of its output), which .ci/run prints
again in its summary: a log cut to its tail still says which case failed and where.
Exits 1 if the log is missing or counts nothing, 2 on bad usage; 0 otherwise (failures are reported
in the counts, the caller decides).
"""
import json
import re
import sys

PASSED = re.compile(r"\[  PASSED  \] (\d+) test\(s\)\.")
FAILED = re.compile(r"\[  FAILED  \] (\d+) test\(s\), listed below:")
SKIPPED = re.compile(r"\[  SKIPPED \] (\d+) test\(s\), listed below:")
OK_RESULTS = {"OK", "EXPECTEDFAIL"}


def count(path):
    passed = failed = skipped = 0
    failures = []
    durations = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            out = (t.get("stdout") or "") + "\n" + (t.get("stderr") or "")
            result = t.get("result", "ERROR")
            durations.append((t.get("duration") or 0.0, t.get("name", "?")))
            p = sum(int(n) for n in PASSED.findall(out))
            fl = sum(int(n) for n in FAILED.findall(out))
            s = sum(int(n) for n in SKIPPED.findall(out))
            cmocka = p + fl + s > 0
            if result == "SKIP":
                skipped += max(s, 1) if cmocka else 1
                continue
            if cmocka:
                passed += p
                skipped += s
                if result not in OK_RESULTS:
                    fl = max(fl, 1)
                failed += fl
            elif result in OK_RESULTS:
                passed += 1
            else:
                failed += 1
                fl = 1
            if fl:
                failures.append((t.get("name", "?"), result, out))
    durations.sort(reverse=True)
    return passed, failed, skipped, failures, durations[:3]


WHERE = re.compile(r"\[  (FAILED|ERROR) {1,3}\]|error:|Failure|Assertion|==\d+== \S|Segmentation|Aborted")


def digest(label, name, result, out, where_max=12, tail_max=8):
    """A failed test in a few lines: where cmocka or a sanitizer said it failed, then its tail."""
    lines = out.rstrip().splitlines()
    where = [l for l in lines if WHERE.search(l)][:where_max]
    tail = [l for l in lines[-tail_max:] if l not in where]
    body = "\n".join("    " + l[:200] for l in where + ["..."] + tail)
    return f"  {label}: {name}: {result}\n{body}\n"


def main(argv):
    if len(argv) not in (3, 5, 7) or (len(argv) >= 5 and argv[3] != "--total") or (
            len(argv) == 7 and argv[5] != "--failures"):
        print(__doc__, file=sys.stderr)
        return 2
    label, path = argv[1], argv[2]
    try:
        passed, failed, skipped, failures, slowest = count(path)
    except OSError as e:
        print(f"{label}: test log missing: {e}")
        return 1
    print(f"{label}: {passed} passed, {failed} failed, {skipped} skipped; slowest: "
          + ", ".join(f"{name} {secs:.1f} s" for secs, name in slowest))
    for name, result, out in failures:
        tail = "\n".join(out.rstrip().splitlines()[-40:])
        print(f"--- {label}: {name}: {result}; last lines of its output:\n{tail}\n---")
    if len(argv) >= 5:
        with open(argv[4], "a", encoding="utf-8") as f:
            f.write(f"{label} {passed} {failed} {skipped}\n")
    if len(argv) == 7 and failures:
        with open(argv[6], "a", encoding="utf-8") as f:
            for name, result, out in failures:
                f.write(digest(label, name, result, out))
    if passed + failed == 0:
        print(f"{label}: the test log counts no test case")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
