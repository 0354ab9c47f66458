#!/usr/bin/env python3
"""check_pair_seeds.py - every cell of the pair matrix has a fuzz seed that reaches both features.

Usage: check_pair_seeds.py <fuzz_ops_replay> <corpus-dir>

For each pair of the 18 features (make_pair_seeds.py's list) the corpus must hold pair-<a>-<b>;
the replay runs it with FUZZ_FEATURES=1 (it prints the features the input touched) and must pass
its invariants and report both a and b. Exit 1 on any missing seed, failed replay or missing
feature, with the list.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_pair_seeds import FEATURES  # noqa: E402


def main():
    replay, corpus = sys.argv[1], sys.argv[2]
    env = dict(os.environ, FUZZ_FEATURES="1")
    bad = []
    n = 0
    for i, a in enumerate(FEATURES):
        for b in FEATURES[i + 1:]:
            seed = os.path.join(corpus, f"pair-{a}-{b}")
            n += 1
            if not os.path.exists(seed):
                bad.append(f"pair-{a}-{b}: no seed")
                continue
            p = subprocess.run([replay, seed], env=env, capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                bad.append(f"pair-{a}-{b}: replay failed ({p.returncode}): {p.stderr[-400:]}")
                continue
            touched = set()
            for line in p.stderr.splitlines():
                if line.startswith("fuzz_ops: features"):
                    touched = set(line.split()[2:])
            missing = [f for f in (a, b) if f not in touched]
            if missing:
                bad.append(f"pair-{a}-{b}: does not reach {' '.join(missing)} (touched: {' '.join(sorted(touched))})")
    for line in bad:
        print(line)
    print(f"check_pair_seeds.py: {n} pairs, {n - len(bad)} seeds reach both features")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
