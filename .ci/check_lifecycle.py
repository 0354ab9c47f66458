#!/usr/bin/env python3
"""Check groupconc.h's task life-cycle table against the code (issue 25, item 3).

- The transition rows of the comment "Stage transitions" (section "task life cycle") and the code's
  table groupconc__stage_next (which groupconc__set_stage checks in a debug build) are the same set
  of (from, to) pairs.
- Every stage of the stage enum appears in a row; every state bit GROUPCONC__ST_* has a row in the
  "State bits" table; every plain bit GROUPCONC__B_* is named in the comment.
- No stage is written except through groupconc__set_stage.
- ex->lock is taken only through groupconc__exec_lock, groupconc__exec_trylock and
  groupconc__exec_wait (section "the executor lock"), which end the workers' chains first.
Usage: python3 .ci/check_lifecycle.py [groupconc.h]"""
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "groupconc.h"
src = open(path, encoding="utf-8").read()
problems = []

m = re.search(r"/\* ==== task life cycle =+ \*/\n/\*(.*?)\*/", src, re.S)
if not m:
    sys.exit(f"{path}: no life-cycle comment after '==== task life cycle'")
comment = m.group(1)

m = re.search(r"/\* t->stage \(under ex->lock\)\. \*/\s*enum \{(.*?)\};", src, re.S)
if not m:
    sys.exit(f"{path}: no stage enum after '/* t->stage (under ex->lock). */'")
stages = re.findall(r"\bGROUPCONC__([A-Z_]+)\b(?:\s*=\s*\d+)?\s*,?\s*(?:/\*|$)",
                    re.sub(r"/\*.*?\*/", "/**/", m.group(1), flags=re.S), re.M)
stages = [s for s in stages if s]
state_bits = [b for b in re.findall(r"^#define GROUPCONC__ST_([A-Z_]+) ", src, re.M) if b != "REFS"]
plain_bits = re.findall(r"^#define GROUPCONC__B_([A-Z_]+) ", src, re.M)
if len(stages) < 5 or len(state_bits) < 5 or len(plain_bits) < 5:
    sys.exit(f"{path}: parsed too little (stages {stages}, state bits {state_bits}, bits {plain_bits})")

# The comment's transition rows: "     FROM  TO  ..." between "Stage transitions" and "State bits".
part = comment.split("Stage transitions", 1)[-1].split("State bits", 1)[0]
rows = set()
for line in part.splitlines():
    w = line.split()
    if len(w) >= 2 and w[0] in stages and w[1] in stages:
        rows.add((w[0], w[1]))

# The code's table.
m = re.search(r"groupconc__stage_next\[\] = \{(.*?)\};", src, re.S)
if not m:
    sys.exit(f"{path}: no groupconc__stage_next table")
code = set()
for frm, body in re.findall(r"\[GROUPCONC__([A-Z_]+)\]\s*=\s*([^\[]*)", m.group(1)):
    for to in re.findall(r"GROUPCONC__TO\(GROUPCONC__([A-Z_]+)\)", body):
        code.add((frm, to))

for frm, to in sorted(rows - code):
    problems.append(f"the comment allows {frm} -> {to}, groupconc__stage_next does not")
for frm, to in sorted(code - rows):
    problems.append(f"groupconc__stage_next allows {frm} -> {to}, the comment has no row for it")
for s in stages:
    if not any(s in r for r in rows):
        problems.append(f"stage {s} is in no transition row of the life-cycle table")
state_part = comment.split("State bits", 1)[-1]
for b in state_bits:
    if not re.search(rf"^\s+{b}\s", state_part, re.M):
        problems.append(f"state bit ST_{b} has no row in the life-cycle table's state bits")
for b in plain_bits:
    if not re.search(rf"\b{b}\b", comment):
        problems.append(f"bit B_{b} is not named in the life-cycle comment")

# Stage writes: only groupconc__set_stage assigns t->stage.
for n, line in enumerate(src.splitlines(), 1):
    if re.search(r"->stage\s*=[^=]", line) and "t->stage = (uint8_t)to;" not in line:
        problems.append(f"{path}:{n}: a stage written without groupconc__set_stage: {line.strip()}")

# The executor lock: taken only through groupconc__exec_lock, _trylock and _wait, which end the
# workers' chains first ("serial runs: chains"); a raw acquisition would see a chain's tasks stale.
# Let go of only through _unlock, so that sharding it changes those four functions.
wrappers = re.search(r"/\* ---- the executor lock ----.*?(?=\n/\* ====)", src, re.S)
if not wrappers:
    problems.append("no section '---- the executor lock ----' before the next '===='")
offset = 0
for n, line in enumerate(src.splitlines(True), 1):
    start, offset = offset, offset + len(line)
    # the lock is a shard's (ex->shards[i].lock, or sh->lock through an accessor)
    if re.search(r"groupconc__(mutex_lock|mutex_trylock|mutex_unlock|cond_wait|cond_wait_until)\([^;]*"
                 r"(&ex->lock\b|shards\[[^]]*\]\.lock\b|&sh->lock\b)", line):
        if not wrappers or not (wrappers.start() <= start < wrappers.end()):
            problems.append(f"{path}:{n}: the executor lock taken or let go outside groupconc__exec_lock/"
                            f"_trylock/_wait/_unlock: {line.strip()}")

for p in problems:
    print(f"check_lifecycle: {p}")
if problems:
    sys.exit(1)
print(f"life cycle: ok ({len(stages)} stages, {len(rows)} transitions, {len(state_bits)} state bits, "
      f"{len(plain_bits)} bits)")
