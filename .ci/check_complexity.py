#!/usr/bin/env python3
"""Keep the code readable (issue 25, item 4): no function in groupconc.h or extras/groupconc_redis.h
above cyclomatic complexity 30, none above 100 lines (pmccabe, Debian's `pmccabe`), except the
JSON writer's functions where they must be. It also fails when pmccabe lists too few functions: a
construct it cannot parse (an apostrophe in a comment continued from a #define line, for one) makes
it stop silently partway, and the rest would go unchecked.
Usage: python3 .ci/check_complexity.py [FILE...]"""
import re
import subprocess
import sys

MAX_CCN, MAX_LINES = 30, 100
EXEMPT = re.compile(r"groupconc__dump_")  # the JSON writer, if it must
files = sys.argv[1:] or ["groupconc.h", "extras/groupconc_redis.h"]
problems = []
for f in files:
    out = subprocess.run(["pmccabe", f], capture_output=True, text=True).stdout
    rows = [l.split("\t") for l in out.splitlines() if l.count("\t") >= 5]
    defined = len(re.findall(r"^(?:GROUPCONC__FN|GROUPCONC__HOT|GROUPCONC__COLD|GROUPCONC__PUBLIC|"
                             r"GROUPCONC_REDIS__FN|GROUPCONC_REDIS_API|static)\b[^;=]*\([^;]*$", open(f, encoding="utf-8").read(), re.M))
    if len(rows) < 0.9 * defined:
        problems.append(f"{f}: pmccabe parsed {len(rows)} functions of about {defined}: it stopped "
                        f"partway (see its stderr: pmccabe {f})")
    for r in rows:
        ccn, lines, name = int(r[1]), int(r[4]), r[5].split("::")[-1].split(": ")[-1]
        if EXEMPT.search(name):
            continue
        if ccn > MAX_CCN:
            problems.append(f"{r[5]}: cyclomatic complexity {ccn} > {MAX_CCN}")
        if lines > MAX_LINES:
            problems.append(f"{r[5]}: {lines} lines > {MAX_LINES}")
    top = max(rows, key=lambda r: int(r[1])) if rows else None
    if top:
        print(f"{f}: {len(rows)} functions, highest complexity {top[1]} ({top[5].split('::')[-1]})")
for p in problems:
    print(f"check_complexity: {p}")
sys.exit(1 if problems else 0)
