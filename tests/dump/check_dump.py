#!/usr/bin/env python3
"""Run dump_state (argv[1]), parse its JSON dump with the json module, check it field by field
against the latched state that dump_state.c describes."""
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE, check=True, timeout=60).stdout
# three lines: the stats before, the dump, the stats after; strict UTF-8 whatever the keys
lines = out.decode("utf-8", errors="strict").split("\n")
assert len(lines) == 4 and lines[3] == "", "dump_state printed %d lines" % len(lines)
before, d, after = json.loads(lines[0]), json.loads(lines[1]), json.loads(lines[2])
problems = []


def want(cond, what):
    if not cond:
        problems.append(what)


KEY = 'run "q" \\ \x01 \u00e9'
want(d.get("format") == "groupconc-dump" and d.get("version") == 1, "format / version")
want(isinstance(d.get("library"), str), "library")
ex = d["executor"]
for f in ("shutdown", "max_threads", "threads", "idle_threads", "global_max_in_flight",
          "global_in_flight", "running", "ready", "waiting", "deferred", "submitted", "completed",
          "succeeded", "failed", "cancelled", "rejected_global", "rejected_bulkhead",
          "rejected_concurrency", "rejected_other", "global_max_running", "global_running",
          "waiting_running", "max_waiting", "max_groups", "paused", "groups_reclaimed", "admitted",
          "rejected_waiting", "expired"):
    want(isinstance(ex.get(f), int), "executor." + f)
want(ex["global_max_running"] == -1 and ex["max_waiting"] == -1 and ex["max_groups"] == -1 and
     ex["paused"] == 0 and ex["waiting_running"] == 0 and ex["expired"] == 0 and
     ex["rejected_waiting"] == 0, "executor beyond-the-seeds fields: %r" % ex)
# r1 running, ready1 and d1 ready, the gate's permit (running and global_running, not admitted)
want(ex["global_running"] == 4 and ex["admitted"] == 3,
     "executor global_running / admitted (1 running + 2 ready + a gate permit): %r" % ex)
# waiting: w1, w2, d2 and the paused group's task
want(ex["max_threads"] == 1 and ex["running"] == 2 and ex["ready"] == 2 and ex["waiting"] == 4,
     "executor running/ready/waiting: %r" % ex)
want(ex["submitted"] == 7 and ex["completed"] == 0 and ex["global_max_in_flight"] == -1 and
     ex["global_in_flight"] == 8, "executor totals: %r" % ex)
groups = {g["key"]: g for g in d["groups"]}
want(set(groups) == {KEY, "other", "deadline", "626164fffe", "bad\ufffd\ufffd"},
     "group keys (escaping): %r" % list(groups))
g = groups.get(KEY, {})
want(g.get("concurrency") == 1 and g.get("max_in_flight") == -1 and g.get("queue_threshold") == -1,
     "limits: %r" % g)
want(g.get("running") == 1 and g.get("waiting_concurrency") == 2 and g.get("in_flight") == 3 and
     g.get("submitted") == 3 and g.get("completed") == 0, "group counters: %r" % g)
want(groups.get("other", {}).get("ready") == 1, "other.ready")
for f in ("waiting_running", "paused", "admitted", "rejected_waiting", "expired"):
    want(isinstance(g.get(f), int), "group." + f)
want(g.get("admitted") == 1 and g.get("paused") == 0 and g.get("waiting_running") == 0,
     "group admitted / paused / waiting_running: %r" % g)
tasks = {(t["group"], t["id"]): t for t in d["tasks"]}
want(tasks.get((KEY, "r1"), {}).get("state") == "running", "r1 running")
want(tasks.get((KEY, "w1"), {}).get("state") == "waiting_concurrency", "w1 waiting")
want(tasks.get((KEY, "w2"), {}).get("state") == "waiting_concurrency", "w2 waiting")
want(tasks.get(("other", "ready1"), {}).get("state") == "ready", "ready1 ready")
want(isinstance(tasks.get((KEY, "w1"), {}).get("age_ns"), int), "a waiting task has an age")
want(len(d["tasks"]) == 7, "7 tasks")
want(len(d["scopes"]) == 2, "two scopes")
s = ([x for x in d["scopes"] if x.get("name") == "outer"] or [{}])[0]
want(s.get("name") == "outer" and s.get("policy") == "SHUTDOWN_ON_FAILURE" and s.get("parent") is None,
     "scope: %r" % s)
want(s.get("shut_down") == 0 and s.get("joined") == 0 and s.get("children") == 0, "scope flags")
want(s.get("forks") == [{"index": 0, "group": KEY, "id": "r1", "status": "PENDING"}], "scope forks: %r" % s.get("forks"))

# ---- issue 23: the dump is a superset of the stats, field by field, on the latched state ----


def ident(obj, field):
    """The exact bytes a dump member stands for: `field`_hex when there, else the text's UTF-8."""
    if field + "_hex" in obj:
        want(isinstance(obj[field + "_hex"], str), "%s_hex is a string" % field)
        raw = bytes.fromhex(obj[field + "_hex"])
        try:
            raw.decode("utf-8")
            problems.append("%s_hex %r beside a key that is UTF-8" % (field, obj[field + "_hex"]))
        except UnicodeDecodeError:
            pass
        return raw
    return obj[field].encode("utf-8")


def same(where, name, b, dv, a):
    if name == "oldest_wait_ns":  # a clock: between the two snapshots
        want(isinstance(dv, int) and b <= dv <= a, "%s.%s: dump %r, stats %r .. %r" % (where, name, dv, b, a))
    else:
        want(b == a, "%s.%s moved between the stats snapshots: %r -> %r (the state is latched)" % (where, name, b, a))
        want(dv == b, "%s.%s: dump %r, stats %r" % (where, name, dv, b))


for name in before["executor"]:
    same("executor", name, before["executor"][name], ex.get(name), after["executor"][name])
want(set(before["groups"]) == set(after["groups"]), "groups moved between the snapshots")
dumped = {}
for grp in d["groups"]:
    raw = ident(grp, "key")
    want(raw.hex() not in dumped, "two groups print alike: %r" % raw)
    dumped[raw.hex()] = grp
want(set(dumped) == set(before["groups"]), "dump groups %r, stats groups %r" % (sorted(dumped), sorted(before["groups"])))
for hexkey, st in before["groups"].items():
    grp = dumped.get(hexkey, {})
    for name in st:
        same("group %s" % hexkey, name, st[name], grp.get(name), after["groups"][hexkey][name])
BAD, HEX = "626164fffe", "626164fffe".encode().hex()
want(BAD in dumped and HEX in dumped, "the non-UTF-8 key and the key that looks like its hex: %r" % sorted(dumped))
bad, hexk = dumped.get(BAD, {}), dumped.get(HEX, {})
want(bad.get("key_hex") == BAD and "key_hex" not in hexk and hexk.get("key") == "626164fffe",
     "key / key_hex: %r, %r" % ({k: bad.get(k) for k in ("key", "key_hex")}, {k: hexk.get(k) for k in ("key", "key_hex")}))
want(bad.get("key") == "bad\ufffd\ufffd", "the non-UTF-8 key's text: %r" % bad.get("key"))
# the held executor-gate permit: running 1 and gate_permits 1 in the group and the executor
want(hexk.get("gate_permits") == 1 and hexk.get("running") == 1 and hexk.get("in_flight") == 1,
     "the gate's group: %r" % hexk)
want(ex.get("gate_permits") == 1 and ex.get("running") == 2, "executor running / gate_permits: %r" % ex)
want(bad.get("paused") == 1 and ex.get("paused_groups") == 1 and bad.get("waiting_concurrency") == 1,
     "the paused group: %r" % bad)
dlg = groups.get("deadline", {})
want(dlg.get("max_wait_ns") == 60 * 10**9 and dlg.get("waiting_concurrency") == 1 and dlg.get("ready") == 1,
     "the deadline group: %r" % dlg)
want(ex.get("groups") == 5 and ex.get("counts_unattributed") == 0, "executor groups: %r" % ex.get("groups"))
tids = {(ident(t, "group"), ident(t, "id")): t for t in d["tasks"]}
pt = tids.get((bytes.fromhex(BAD), b"id\x80"), {})
want(pt.get("id_hex") == "696480" and pt.get("group_hex") == BAD and pt.get("state") == "waiting_concurrency",
     "the non-UTF-8 task id: %r" % pt)
names = sorted(ident(sc, "name") for sc in d["scopes"])
want(names == [b"outer", b"s\xc3("], "scope names: %r" % names)

for p in problems:
    print("dump check:", p)
print("dump check: " + ("ok" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
