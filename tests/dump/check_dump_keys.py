#!/usr/bin/env python3
"""Run dump_keys (argv[1]) with each seed in argv[2:] (each "seed:count"): the dump must decode as
strict UTF-8 and parse with the json module; every group key and task id must map back to its exact
bytes (the member `key_hex` / `id_hex` when there, else the text's UTF-8), `*_hex` must be there
exactly when the bytes are not UTF-8, and no two keys may print alike."""
import json
import subprocess
import sys

problems = []


def want(cond, what):
    if not cond:
        problems.append(what)


def is_utf8(raw):
    try:
        raw.decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


def ident(obj, field, where):
    text = obj.get(field)
    want(isinstance(text, str), "%s: %s is not a string: %r" % (where, field, obj))
    if field + "_hex" in obj:
        raw = bytes.fromhex(obj[field + "_hex"])
        want(not is_utf8(raw), "%s: %s_hex beside a UTF-8 string %r" % (where, field, raw))
        return raw
    return (text or "").encode("utf-8")


for arg in sys.argv[2:]:
    seed, count = arg.split(":")
    out = subprocess.run([sys.argv[1], seed, count], stdout=subprocess.PIPE, check=True, timeout=60).stdout
    try:
        text = out.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        problems.append("seed %s: the output is not UTF-8: %s" % (seed, e))
        continue
    lines = text.split("\n")
    want(len(lines) == 3 and lines[2] == "", "seed %s: %d lines" % (seed, len(lines)))
    dump, made = json.loads(lines[0]), json.loads(lines[1])
    made_keys = {bytes.fromhex(k): bytes.fromhex(i) for k, i in made}
    want(len(made_keys) == len(made), "seed %s: dump_keys made a key twice" % seed)
    printed = {}
    for g in dump["groups"]:
        raw = ident(g, "key", "seed %s group" % seed)
        want(raw not in printed, "seed %s: two groups print as %r" % (seed, raw))
        printed[raw] = json.dumps({k: g.get(k) for k in ("key", "key_hex")}, sort_keys=True)
        want(("key_hex" in g) == (not is_utf8(raw)), "seed %s: key %r, key_hex there: %s" % (seed, raw, "key_hex" in g))
        want(g.get("paused") == 1 and g.get("waiting_concurrency") == 1, "seed %s: group %r: %r" % (seed, raw, g))
    want(set(printed) == set(made_keys), "seed %s: the dump's keys are not the keys made (%d / %d)" %
         (seed, len(printed), len(made_keys)))
    want(len(set(printed.values())) == len(printed), "seed %s: two keys print alike" % seed)
    tasks = {}
    for t in dump["tasks"]:
        g, i = ident(t, "group", "seed %s task" % seed), ident(t, "id", "seed %s task" % seed)
        want(("id_hex" in t) == (not is_utf8(i)), "seed %s: id %r, id_hex there: %s" % (seed, i, "id_hex" in t))
        tasks[g] = i
    want(tasks == made_keys, "seed %s: the dump's tasks (group, id) are not the ones made" % seed)
    print("seed %s: %d keys (%d not UTF-8), %d task ids (%d not UTF-8)" %
          (seed, len(printed), sum(not is_utf8(k) for k in printed), len(tasks),
           sum(not is_utf8(i) for i in tasks.values())))

for p in problems[:40]:
    print("dump keys check:", p)
print("dump keys check: " + ("ok" if not problems else "FAILED (%d problems)" % len(problems)))
sys.exit(1 if problems else 0)
