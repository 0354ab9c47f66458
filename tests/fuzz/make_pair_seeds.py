#!/usr/bin/env python3
"""make_pair_seeds.py - writes the pair matrix's fuzz seeds, tests/fuzz/corpus/pair-<a>-<b>.

Each of the 18 features (CONTRIBUTING.md, "The pair matrix") is described below as what it needs in
the 8 policy header bytes of fuzz_ops.c (fields, composed bit by bit) and a few ops on group g2 (the
key the resolver answers 3 for). A pair's seed is the header of both features and the ops of the
first then the second, then a tail that opens both latches (so parked tasks finish); the shutdown
feature's OP_SHUTDOWN comes after the tail. The op bytes follow fuzz_ops.c's layout (its top comment
and the comment above each op_*); FUZZ_TRACE=1 fuzz_ops_replay <seed> prints how a seed decodes,
and check_pair_seeds.py (meson test 'fuzz_pair_seeds') checks with FUZZ_FEATURES=1 that each seed
touches both of its features.

Usage: make_pair_seeds.py [corpus-dir]   (default: the corpus/ beside this script)
"""
import os
import sys

FEATURES = ["tasks", "execall", "reject", "listener", "resolver", "deferred", "gate", "scope", "deadline",
            "pause", "live", "bounded", "runcap", "fleet", "groupshut", "shutdown", "dump", "blocking"]

# op indexes (fuzz_ops.c's OP_* enum; seeds write each op as its index)
OP = {name: i for i, name in enumerate(
    "SUBMIT0 SUBMIT1 SUBMIT2 SUBMIT3 SUBMIT4 BAD_SUBMIT CANCEL WAIT_FOR IS_DONE ON_COMPLETE RELEASE "
    "SHUTDOWN_GROUP EVICT STATS KEYS LATCH_OPEN LATCH_CLOSE EXEC_ALL SHUTDOWN GRACEFUL OOM THREAD_FAIL "
    "WAIT_LONG POLICY SELF_BLOCK GATE_ACQUIRE GATE_RELEASE GATE_BAD_RELEASE GATE_STATS GATE_RESET "
    "SUBMIT_DEFER DEFER_COMPLETE SCOPE_OPEN SCOPE_FORK SCOPE_SHUTDOWN SCOPE_JOIN_FOR SCOPE_JOIN "
    "SCOPE_CLOSE SCOPE_QUERY SCOPE_FOREIGN SCOPE_RELEASE DUMP DUMP_FILE GROUP_LIMITS EXEC_LIMITS "
    "GROUP_PAUSE GROUP_RESUME EXEC_PAUSE EXEC_RESUME SUBMIT_DEADLINE FLEET_ANSWER FLEET_NOTIFY "
    "FLEET_REPORT SUBMIT_HINT".split())}

NG = 6          # groups g0..g5
G = 2           # the group every feature works on
NOOP, FAIL, CHECK, COOP = 0, 1, 2, 3   # task behaviours (B_*)
CLEANUP, CALLBACK = 0x80, 0x40         # op_submit b2 bits


def task(beh, group=G):
    """op_submit's b1: group, then the behaviour"""
    return group + NG * beh


# Header fields, by name: each feature sets some; two features never set the same field to
# different values (compose() checks).
#   conc        [0] default_concurrency 1 + v % 3
#   runcap      [1] bits 2-3: global_max_running {UNL,1,2,3}
#   threshold   [2] default_queue_threshold {UNL,0,1,2,4}[v]
#   fleet       [4] fx = v (bits 2-7): the fleet provider (0: none)
#   rejection   [5] bits 0-1: ABORT, DISCARD, CALLER_RUNS, handler
#   max_groups  [5] ext bits 0-1 {UNL,2,3,5}
#   idle        [5] ext bits 2-3 {none,1,3,5 ms}
#   wait        [5] ext bits 4-5 {none,none,4,15 ms}: the policy's queue deadline (an ext of 0 or 63
#               leaves runcap, max_waiting and g1's deadline unset: runcap sets wait 1, "none")
#   threads     [6] max_threads 1 + v % 4
#   resolver    [7] bit 2
def header(fields):
    h = [0] * 8
    h[0] = fields.get("conc", 0)
    h[1] = fields.get("runcap", 0) << 2
    h[2] = fields.get("threshold", 0)
    h[4] = fields.get("fleet", 0) << 2
    ext = fields.get("max_groups", 0) | fields.get("idle", 0) << 2 | fields.get("wait", 0) << 4
    assert ext != 63
    h[5] = fields.get("rejection", 0) | ext << 2
    h[6] = fields.get("threads", 3)  # 4 workers, keep-alive 0, listener on
    h[7] = 4 if fields.get("resolver") else 0
    return bytes(h)


# feature: (header fields, ops as (op name, argument bytes))
SPEC = {
    "tasks": ({}, [("SUBMIT0", [task(NOOP), CLEANUP | CALLBACK]), ("SUBMIT0", [task(COOP), CLEANUP]),
                   ("CANCEL", [1]), ("WAIT_FOR", [0xC0]), ("ON_COMPLETE", [0])]),
    "execall": ({}, [("EXEC_ALL", [1 | 2 << 2, task(NOOP), task(FAIL)])]),
    "reject": ({"threshold": 1, "rejection": 1},
               [("SUBMIT0", [task(COOP), CLEANUP])] * 4 + [("SUBMIT0", [task(NOOP), CLEANUP])] * 2),
    "listener": ({}, [("SUBMIT0", [task(NOOP), CLEANUP | CALLBACK])]),
    "resolver": ({"resolver": True}, [("SUBMIT0", [task(NOOP), CLEANUP])]),
    "deferred": ({}, [("SUBMIT_DEFER", [task(NOOP), CLEANUP, 0]), ("SUBMIT_DEFER", [task(NOOP), CLEANUP, 5]),
                      ("DEFER_COMPLETE", [0, 0])]),
    "gate": ({}, [("GATE_ACQUIRE", [G << 2]), ("SUBMIT0", [task(NOOP), CLEANUP]), ("GATE_RELEASE", [0, 0])]),
    "scope": ({}, [("SCOPE_OPEN", [1, 0]), ("SCOPE_FORK", [0, G, 0, 0x80]), ("SCOPE_FORK", [0, G + NG, 0, 0x80]),
                   ("SCOPE_JOIN", [0x80]), ("SCOPE_CLOSE", [2])]),
    "deadline": ({}, [("SUBMIT0", [task(COOP), CLEANUP]), ("SUBMIT_DEADLINE", [task(NOOP), CLEANUP, 0]),
                      ("SUBMIT_DEADLINE", [task(NOOP), CLEANUP, 1]), ("WAIT_FOR", [0xC1]), ("WAIT_FOR", [0xC2])]),
    "pause": ({}, [("GROUP_PAUSE", [G]), ("SUBMIT0", [task(NOOP), CLEANUP]), ("GROUP_RESUME", [G])]),
    "live": ({}, [("SUBMIT0", [task(COOP), CLEANUP]), ("SUBMIT0", [task(NOOP), CLEANUP]),
                  ("GROUP_LIMITS", [G, 4, 0]), ("EXEC_LIMITS", [0, 4, 0])]),
    "bounded": ({"max_groups": 1, "idle": 1},
                [("SUBMIT0", [task(COOP, 0), CLEANUP]), ("SUBMIT0", [task(NOOP), CLEANUP]),
                 ("SUBMIT0", [task(NOOP, 4), CLEANUP]), ("SUBMIT0", [task(NOOP, 5), CLEANUP])]),
    # wait 1 ("none"): ext must not be 0 for [1]'s global_max_running to count
    "runcap": ({"runcap": 1, "wait": 1}, [("SUBMIT0", [task(COOP, 0), CLEANUP]), ("SUBMIT0", [task(NOOP), CLEANUP])]),
    "fleet": ({"fleet": 2}, [("SUBMIT0", [task(NOOP), CLEANUP]), ("FLEET_NOTIFY", [G]), ("FLEET_REPORT", [G])]),
    "groupshut": ({}, [("SUBMIT0", [task(COOP), CLEANUP]), ("SUBMIT0", [task(NOOP), CLEANUP]),
                       ("SHUTDOWN_GROUP", [G]), ("EVICT", [G])]),
    "shutdown": ({}, []),   # OP_SHUTDOWN after the tail (see pair())
    "dump": ({}, [("SUBMIT0", [task(COOP), CLEANUP]), ("DUMP", [6]), ("DUMP", [4])]),
    # bodies that say they block (groupconc_context_blocking): a no-op on g3 (a group of its own,
    # so that a full g2 does not refuse it), then a parked one on g2 and a no-op behind it
    "blocking": ({}, [("SUBMIT_HINT", [task(NOOP, 3), CLEANUP]), ("SUBMIT_HINT", [task(COOP), CLEANUP | CALLBACK]),
                      ("SUBMIT_HINT", [task(NOOP), CLEANUP])]),
}

TAIL = [("LATCH_OPEN", [0]), ("LATCH_OPEN", [1]), ("WAIT_LONG", [0])]


def compose(a, b):
    fa, fb = SPEC[a][0], SPEC[b][0]
    fields = dict(fa)
    for k, v in fb.items():
        assert fields.get(k, v) == v, f"{a} and {b} disagree on {k}"
        fields[k] = v
    ops = SPEC[a][1] + SPEC[b][1] + TAIL
    if b == "blocking":
        # the hinted tasks first, on a fresh executor: after the other feature's ops they could be
        # refused (bounded: its one group slot held by a parked task) or cancelled, and the hint
        # never called (pair-bounded-blocking missed it under load in CI)
        ops = SPEC[b][1] + SPEC[a][1] + TAIL
    if "shutdown" in (a, b):
        ops = ops + [("SUBMIT0", [task(NOOP), CLEANUP]), ("SHUTDOWN", [])]
    out = bytearray(header(fields))
    for name, args in ops:
        out.append(OP[name])
        out.extend(args)
    return bytes(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    n = 0
    for i, a in enumerate(FEATURES):
        for b in FEATURES[i + 1:]:
            with open(os.path.join(corpus, f"pair-{a}-{b}"), "wb") as f:
                f.write(compose(a, b))
            n += 1
    print(f"make_pair_seeds.py: {n} seeds in {corpus}")


if __name__ == "__main__":
    main()
