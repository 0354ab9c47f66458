#!/usr/bin/env python3
"""Run dump_state (argv[1]), parse its JSON dump with the json module, check it field by field
against the latched state that dump_state.c describes."""
import json
import subprocess
import sys

out = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE, check=True, timeout=60).stdout
d = json.loads(out.decode("utf-8"))
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
want(ex["global_running"] == 2 and ex["admitted"] == 2,
     "executor global_running / admitted (1 running + 1 ready): %r" % ex)
want(ex["max_threads"] == 1 and ex["running"] == 1 and ex["ready"] == 1 and ex["waiting"] == 2,
     "executor running/ready/waiting: %r" % ex)
want(ex["submitted"] == 4 and ex["completed"] == 0 and ex["global_max_in_flight"] == -1,
     "executor totals: %r" % ex)
groups = {g["key"]: g for g in d["groups"]}
want(set(groups) == {KEY, "other"}, "group keys (escaping): %r" % list(groups))
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
want(len(d["tasks"]) == 4, "4 tasks")
want(len(d["scopes"]) == 1, "one scope")
s = d["scopes"][0] if d["scopes"] else {}
want(s.get("name") == "outer" and s.get("policy") == "SHUTDOWN_ON_FAILURE" and s.get("parent") is None,
     "scope: %r" % s)
want(s.get("shut_down") == 0 and s.get("joined") == 0 and s.get("children") == 0, "scope flags")
want(s.get("forks") == [{"index": 0, "group": KEY, "status": "PENDING"}], "scope forks: %r" % s.get("forks"))
for p in problems:
    print("dump check:", p)
print("dump check: " + ("ok" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
