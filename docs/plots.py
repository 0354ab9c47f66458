#!/usr/bin/env python3
"""Draw the documentation's pictures as SVG from committed data (plain python3, no dependencies),
and check that each picture holds what it should.

  docs/demo.svg         the demo's timeline (examples/02_multi_tenant.c's output, docs/data/demo.txt):
                        one row per task, its wait and its run as bars, grouped by tenant
  docs/cost_curves.svg  the cost curves (docs/data/cost_curves.csv): one panel per workload and
                        metric, one curve per peer over the number of keys, min..max as whiskers

usage:
  plots.py                      draw both from docs/data/ into docs/ (after new data)
  plots.py check                draw both from docs/data/ into a scratch directory, check them, and
                                compare them byte for byte with the committed docs/*.svg
  plots.py demo IN.txt OUT.svg  draw one demo run's output (CI: a fresh run) and check it

The checks read the drawn SVG back: the demo picture has exactly one run bar per task of the data,
every task named once, and at no instant more run bars of a group side by side than the group's
concurrency; the cost curves have one curve per peer in every panel, a point per key count, and
every value of the data (its median and its min..max) on it."""
import csv
import filecmp
import html
import math
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]
SVG_NS = "http://www.w3.org/2000/svg"


def read_data_lines(path):
    """The file's lines, without the leading '# ' comment block."""
    lines = open(path, encoding="utf-8").read().splitlines()
    while lines and lines[0].startswith("# "):
        lines.pop(0)
    return lines


def svg_doc(width, height, body):
    return "\n".join(['<svg xmlns="%s" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" '
                      'font-size="11">' % (SVG_NS, width, height, width, height),
                      '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]) + "\n"


# ---- the demo's timeline --------------------------------------------------------------------------

def parse_demo(path):
    """examples/02_multi_tenant.c's output -> (column ms, [(group, cap, [(task, wait_from, run_from,
    run_to)])]), columns counted from the submission at 0."""
    lines = read_data_lines(path)
    step, groups = None, []
    for line in lines:
        m = re.search(r"1 column = ([0-9.]+) ms", line)
        if m:
            step = float(m.group(1))
            continue
        if step is None or line.startswith("peak concurrency"):
            if line.startswith("peak concurrency"):
                break
            continue
        m = re.match(r"^(\S+)\s+concurrency (\d+)$", line)
        if m:
            groups.append((m.group(1), int(m.group(2)), []))
            continue
        m = re.match(r"^  (\S+)\s+?(\s*[.#]+)$", line)
        if m and groups:
            bar = line[20:]
            run_from = bar.index("#")
            run_to = len(bar.rstrip())
            if bar[:run_from].strip(".") or bar[run_from:run_to].strip("#"):
                sys.exit("%s: a bar that is not dots then hashes: %r" % (path, line))
            groups[-1][2].append((m.group(1), 0, run_from, run_to))
    if step is None or not groups:
        sys.exit("%s: no timeline found (is it the demo's output?)" % path)
    return step, groups


def draw_demo(step, groups):
    left, row, top, gap, width = 150, 14, 34, 8, 900
    end = max(t[3] for _, _, tasks in groups for t in tasks)
    scale = (width - left - 40) / end
    body, y = [], top
    for gi, (group, cap, tasks) in enumerate(groups):
        color = COLORS[gi % len(COLORS)]
        body.append('<g class="group" data-group="%s" data-cap="%d">' % (html.escape(group), cap))
        body.append('<text x="4" y="%d" font-weight="bold">%s (%d at once)</text>' % (y + row - 3, html.escape(group), cap))
        y += row
        for task, wait_from, run_from, run_to in tasks:
            body.append('<text x="14" y="%d">%s</text>' % (y + row - 3, html.escape(task)))
            if run_from > wait_from:
                body.append('<rect class="wait" x="%.1f" y="%d" width="%.1f" height="%d" fill="#ddd">'
                            '<title>%s waits %g ms</title></rect>'
                            % (left + wait_from * scale, y + 2, (run_from - wait_from) * scale, row - 4,
                               html.escape(task), (run_from - wait_from) * step))
            body.append('<rect class="run" data-task="%s" data-from="%d" data-to="%d" x="%.1f" y="%d" width="%.1f" '
                        'height="%d" fill="%s"><title>%s runs %g ms</title></rect>'
                        % (html.escape(task), run_from, run_to, left + run_from * scale, y + 1,
                           (run_to - run_from) * scale, row - 2, color, html.escape(task), (run_to - run_from) * step))
            y += row
        body.append("</g>")
        y += gap
    axis = []
    tick = 10 if end * step <= 200 else 50
    t = 0
    while t <= end * step:
        x = left + t / step * scale
        axis.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" fill="#666">%g ms</text>'
                    % (x, top - 6, x, y, x + 2, top - 10, t))
        t += tick
    title = ['<text x="4" y="14" fill="#333">all %d tasks submitted at 0 ms; grey: waiting for a permit, colour: '
             'running</text>' % sum(len(t) for _, _, t in groups)]
    return svg_doc(width, y + 6, title + axis + body)


def check_demo(svg_path, groups):
    """The drawn picture: one run bar per task, every task once, no group above its cap."""
    problems = []
    root = ET.parse(svg_path).getroot()
    want = {t[0] for _, _, tasks in groups for t in tasks}
    bars = root.findall(".//{%s}rect[@class='run']" % SVG_NS)
    names = [b.get("data-task") for b in bars]
    if len(bars) != len(want) or set(names) != want:
        problems.append("%s: %d run bars for %d tasks (missing %s, extra %s)"
                        % (svg_path, len(bars), len(want), sorted(want - set(names)), sorted(set(names) - want)))
    for g in root.findall(".//{%s}g[@class='group']" % SVG_NS):
        cap = int(g.get("data-cap"))
        spans = [(int(b.get("data-from")), int(b.get("data-to"))) for b in g.findall("{%s}rect[@class='run']" % SVG_NS)]
        peak = max((sum(1 for f, t in spans if f <= c < t) for c in range(max(t for _, t in spans))), default=0)
        if peak > cap:
            problems.append("%s: group %s has %d run bars side by side, its cap is %d"
                            % (svg_path, g.get("data-group"), peak, cap))
    if not root.findall(".//{%s}g[@class='group']" % SVG_NS):
        problems.append("%s: no group drawn" % svg_path)
    return problems


# ---- the cost curves ------------------------------------------------------------------------------

def parse_curves(path):
    """-> {(workload, metric): {peer: [(keys, median, min, max)]}}, panels and peers in file order."""
    rows = list(csv.DictReader(read_data_lines(path)))
    panels = {}
    for r in rows:
        panel = panels.setdefault((r["workload"], r["metric"]), {})
        panel.setdefault(r["peer"], []).append((int(r["keys"]), float(r["median"]), float(r["min"]), float(r["max"])))
    if not panels:
        sys.exit("%s: no data rows" % path)
    return panels


WORKLOADS = {"W5": "N new keys, 1 task each", "W2": "1,000,000 tasks over N keys, 1 at once per key"}


def nice_step(v):
    """1, 2 or 5 times a power of ten, at least v."""
    e = 10 ** math.floor(math.log10(v))
    return next(m * e for m in (1, 2, 5, 10) if m * e >= v)


def fmt(v):
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= div:
            return "%g%s" % (round(v / div, 2), suffix)
    return "%g" % round(v, 1)


def draw_curves(panels):
    pw, ph, margin_l, margin_t, cols = 420, 230, 60, 40, 2
    names = list(panels)
    peers = []
    for p in panels.values():
        peers += [k for k in p if k not in peers]
    rows = (len(names) + cols - 1) // cols
    width, height = cols * (pw + margin_l) + 80, rows * (ph + margin_t + 30) + 50
    body = []
    for i, peer in enumerate(peers):  # legend
        x = 10 + i * 150
        body.append('<rect x="%d" y="8" width="14" height="4" fill="%s"/><text x="%d" y="14">%s</text>'
                    % (x, COLORS[i % len(COLORS)], x + 18, html.escape(peer)))
    for n, (workload, metric) in enumerate(names):
        panel = panels[(workload, metric)]
        ox = margin_l + (n % cols) * (pw + margin_l)
        oy = 40 + margin_t + (n // cols) * (ph + margin_t + 30)
        keys = sorted({k for pts in panel.values() for k, *_ in pts})
        ystep = nice_step(max(hi for pts in panel.values() for *_, hi in pts) / 4)
        ymax = ystep * math.ceil(max(hi for pts in panel.values() for *_, hi in pts) / ystep)
        lx0, lx1 = math.log10(keys[0]), math.log10(keys[-1])

        def px(k):
            return ox + (math.log10(k) - lx0) / ((lx1 - lx0) or 1) * (pw - 20) + 10

        def py(v):
            return oy + ph - v / ymax * ph

        body.append('<g class="panel" data-workload="%s" data-metric="%s">' % (workload, html.escape(metric)))
        body.append('<text x="%d" y="%d"><tspan font-weight="bold">%s, %s</tspan> (%s is better): %s</text>'
                    % (ox, oy - 10, workload, html.escape(metric), "higher" if "/s" in metric else "lower",
                       WORKLOADS.get(workload, "")))
        body.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' % (ox, oy, pw, ph))
        for j in range(int(round(ymax / ystep)) + 1):
            v = ystep * j
            body.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" '
                        'text-anchor="end" fill="#666">%s</text>' % (ox, py(v), ox + pw, py(v), ox - 4, py(v) + 4, fmt(v)))
        for k in keys:
            body.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%s</text>' % (px(k), oy + ph + 14, fmt(k)))
        body.append('<text x="%d" y="%d" text-anchor="middle" fill="#666">keys</text>' % (ox + pw / 2, oy + ph + 28))
        for i, peer in enumerate(peers):
            pts = sorted(panel.get(peer, []))
            if not pts:
                continue
            color = COLORS[i % len(COLORS)]
            body.append('<polyline class="curve" data-peer="%s" data-points="%s" fill="none" stroke="%s" '
                        'stroke-width="2" points="%s"/>'
                        % (html.escape(peer), " ".join("%d:%g:%g:%g" % p for p in pts), color,
                           " ".join("%.1f,%.1f" % (px(k), py(med)) for k, med, _, _ in pts)))
            for k, med, lo, hi in pts:
                body.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/><circle cx="%.1f" cy="%.1f" '
                            'r="2.5" fill="%s"><title>%s, %s keys: %s [%s..%s]</title></circle>'
                            % (px(k), py(lo), px(k), py(hi), color, px(k), py(med), color, html.escape(peer),
                               fmt(k), fmt(med), fmt(lo), fmt(hi)))
        body.append("</g>")
    return svg_doc(width, height, body)


def check_curves(svg_path, panels):
    """The drawn picture: every panel, one curve per peer, each with every data point."""
    problems = []
    root = ET.parse(svg_path).getroot()
    drawn = {(g.get("data-workload"), g.get("data-metric")): g for g in root.findall(".//{%s}g[@class='panel']" % SVG_NS)}
    if set(drawn) != set(panels):
        problems.append("%s: panels %s, the data has %s" % (svg_path, sorted(drawn), sorted(panels)))
    for key, g in drawn.items():
        curves = {c.get("data-peer"): c for c in g.findall("{%s}polyline[@class='curve']" % SVG_NS)}
        want = panels.get(key, {})
        if len(g.findall("{%s}polyline[@class='curve']" % SVG_NS)) != len(want) or set(curves) != set(want):
            problems.append("%s: %s: curves for %s, the data has peers %s" % (svg_path, key, sorted(curves), sorted(want)))
            continue
        for peer, pts in want.items():
            got = [tuple(float(x) for x in p.split(":")) for p in curves[peer].get("data-points").split()]
            if [(int(p[0]),) + p[1:] for p in got] != sorted(pts) or \
                    len(curves[peer].get("points").split()) != len(pts):
                problems.append("%s: %s, %s: the curve's points are not the data's" % (svg_path, key, peer))
    return problems


# ---- driver ---------------------------------------------------------------------------------------

def draw_all(outdir):
    step, groups = parse_demo(os.path.join(DATA, "demo.txt"))
    panels = parse_curves(os.path.join(DATA, "cost_curves.csv"))
    demo, curves = os.path.join(outdir, "demo.svg"), os.path.join(outdir, "cost_curves.svg")
    open(demo, "w", encoding="utf-8").write(draw_demo(step, groups))
    open(curves, "w", encoding="utf-8").write(draw_curves(panels))
    return check_demo(demo, groups) + check_curves(curves, panels)


def main(argv):
    if argv == []:
        problems = draw_all(HERE)
    elif argv == ["check"]:
        with tempfile.TemporaryDirectory() as tmp:
            problems = draw_all(tmp)
            for name in ("demo.svg", "cost_curves.svg"):
                if not filecmp.cmp(os.path.join(tmp, name), os.path.join(HERE, name), shallow=False):
                    problems.append("docs/%s differs from what docs/plots.py draws from docs/data/ "
                                    "(run python3 docs/plots.py and commit the result)" % name)
    elif len(argv) == 3 and argv[0] == "demo":
        step, groups = parse_demo(argv[1])
        open(argv[2], "w", encoding="utf-8").write(draw_demo(step, groups))
        problems = check_demo(argv[2], groups)
    else:
        sys.exit(__doc__)
    for p in problems:
        print(p)
    print("plots: " + ("ok" if not problems else "FAILED"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
