#!/usr/bin/env python3
"""The Prometheus extra (extras/groupconc_prometheus.h) checked from outside, with Prometheus's own
linter: usage: check.py EXAMPLE_11 KEYS_PROGRAM

1. examples/11_prometheus --serve 0: scrape it over HTTP (urllib, 127.0.0.1), check the status and
   Content-Type, run `promtool check metrics` on the body (exit 0, no lint findings), and compare
   the scraped values with the stats the example prints after serving.
2. tests/prometheus/keys.c: groups with every byte value, quotes, backslashes, newlines, '%' and
   broken UTF-8 in their keys: `promtool check metrics` accepts the text, and every group label
   maps back (\\\\ \\" \\n, then %XX) to exactly the keys the program submitted.
promtool comes with Debian's `prometheus` package (apt-get install prometheus)."""
import os
import re
import subprocess
import sys
import tempfile
import urllib.request


def promtool(text):
    p = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
        sys.exit("promtool check metrics: exit %d\n%s%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))


def value(text, series):
    m = re.search("^" + re.escape(series) + r" (\S+)$", text, re.M)
    if not m:
        sys.exit("no sample %s" % series)
    return int(m.group(1))


def check_example(exe):
    p = subprocess.Popen([exe, "--serve", "0"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.match(r"listening on 127\.0\.0\.1:(\d+)$", line.strip())
    if not m:
        p.kill()
        sys.exit("example: unexpected first line %r" % line)
    with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % m.group(1), timeout=30) as r:
        status, ctype, body = r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
    out, _ = p.communicate(timeout=60)
    if p.returncode != 0:
        sys.exit("example exited %d:\n%s" % (p.returncode, out))
    if status != 200 or not ctype.startswith("text/plain; version=0.0.4"):
        sys.exit("scrape: status %d, Content-Type %r" % (status, ctype))
    promtool(body)
    m = re.search(r"served one scrape: submitted (\d+), succeeded (\d+), failed (\d+), "
                  r"rejected_bulkhead (\d+), running (\d+), waiting (\d+)", out)
    if not m:
        sys.exit("example did not print its stats:\n" + out)
    want = dict(zip(["submitted", "succeeded", "failed", "rejected_bulkhead", "running", "waiting"],
                    map(int, m.groups())))
    got = {
        "submitted": value(body, "groupconc_tasks_submitted_total"),
        "succeeded": value(body, 'groupconc_tasks_completed_total{outcome="succeeded"}'),
        "failed": value(body, 'groupconc_tasks_completed_total{outcome="failed"}'),
        "rejected_bulkhead": value(body, 'groupconc_tasks_completed_total{outcome="rejected_bulkhead"}'),
        "running": value(body, "groupconc_running_tasks"),
        "waiting": value(body, "groupconc_waiting_tasks"),
    }
    if got != want:
        sys.exit("scraped %s, the stats say %s" % (got, want))
    # the per-group samples add up to the executor's
    per_group = sum(int(v) for v in re.findall(r'^groupconc_group_tasks_submitted_total\{group="[^"]*"\} (\d+)$', body, re.M))
    if per_group != want["submitted"]:
        sys.exit("group submitted totals add up to %d, not %d" % (per_group, want["submitted"]))
    print("example 11: scraped over HTTP, promtool check metrics clean, values agree: %s" % got)


def unescape(label):
    out, i = bytearray(), 0
    raw = label.encode("utf-8")
    while i < len(raw):
        c = raw[i]
        if c == 0x5C:  # backslash
            out.append({0x5C: 0x5C, 0x22: 0x22, 0x6E: 0x0A}[raw[i + 1]])
            i += 2
        elif c == 0x25:  # %XX
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(c)
            i += 1
    return bytes(out)


def check_keys(exe):
    with tempfile.TemporaryDirectory() as d:
        hexfile = os.path.join(d, "keys.hex")
        p = subprocess.run([exe, hexfile], capture_output=True)
        if p.returncode != 0:
            sys.exit("keys program exited %d: %s" % (p.returncode, p.stderr.decode()))
        keys = {bytes.fromhex(l) for l in open(hexfile).read().split()}
    text = p.stdout.decode("utf-8")  # must be valid UTF-8
    promtool(text)
    labels = re.findall(r'^groupconc_group_tasks_submitted_total\{group="((?:[^"\\]|\\.)*)"\} 1$', text, re.M)
    got = [unescape(l) for l in labels]
    if len(got) != len(keys) or set(got) != keys:
        sys.exit("labels map back to %d keys, %d expected; missing %s" % (len(set(got)), len(keys), keys - set(got)))
    if re.search(r'^[^#].*group="%other"', text, re.M):
        sys.exit('a real key rendered as "%other"')
    print("keys: %d groups with hard keys, promtool check metrics clean, every label maps back" % len(keys))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    check_example(sys.argv[1])
    check_keys(sys.argv[2])


if __name__ == "__main__":
    main()
