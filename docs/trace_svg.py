#!/usr/bin/env python3
"""Draw a Chrome trace-event JSON written by extras/groupconc_trace.h as an SVG (no dependencies):
one row per slot track of each group (runs as bars, CALLER_RUNS runs hatched), the group's running
counter as a step line above them, and the never-ran tasks (rejected, expired) as ticks.

usage: trace_svg.py TRACE.json OUT.svg        (docs/trace.svg: ./12_trace t.json && trace_svg.py t.json docs/trace.svg)"""
import html
import json
import sys

W, LEFT, ROW, GAP, TOP = 900, 170, 16, 10, 30
COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    events = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    runs = [e for e in events if e["ph"] == "X"]
    never = [e for e in events if e["ph"] == "i" and e["name"] in ("rejected", "expired")]
    end = max([e["ts"] + e["dur"] for e in runs] + [e["ts"] for e in never] + [1.0])
    scale = (W - LEFT - 20) / end
    groups = []
    for e in sorted(runs, key=lambda e: e["tid"]):
        g = e["args"]["group"]
        if g not in groups:
            groups.append(g)
    out, y = [], TOP
    for gi, g in enumerate(groups):
        color = COLORS[gi % len(COLORS)]
        counter = sorted((e for e in events if e["ph"] == "C" and e["name"] == g + " running"), key=lambda e: e["ts"])
        peak = max([c["args"]["running"] for c in counter] + [1])
        h = 3 * ROW
        out.append('<text x="4" y="%d" font-weight="bold">%s running (peak %d)</text>' % (y + h - 4, html.escape(g), peak))
        pts, last = ["%.1f,%.1f" % (LEFT, y + h)], 0
        for c in counter:
            x = LEFT + c["ts"] * scale
            pts.append("%.1f,%.1f" % (x, y + h - last * h / peak))
            last = c["args"]["running"]
            pts.append("%.1f,%.1f" % (x, y + h - last * h / peak))
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (color, " ".join(pts)))
        y += h + 4
        for tid in sorted({e["tid"] for e in runs if e["args"]["group"] == g}):
            out.append('<text x="14" y="%d">%s</text>' % (y + ROW - 4, html.escape(names.get(tid, str(tid)))))
            for e in (e for e in runs if e["tid"] == tid):
                fill = color if e["cat"] == "task" else "url(#hatch)"
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="white" stroke-width="0.5">'
                           '<title>%s</title></rect>' % (LEFT + e["ts"] * scale, y + 1, max(e["dur"] * scale, 1), ROW - 2,
                                                         fill, html.escape(e["name"])))
            y += ROW
        ticks = [e for e in never if e["args"]["group"] == g]
        if ticks:
            out.append('<text x="14" y="%d">rejected / expired</text>' % (y + ROW - 4))
            for e in ticks:
                x = LEFT + e["ts"] * scale
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                           % (x, y + 2, x, y + ROW - 2, "#e15759" if e["name"] == "rejected" else "#999"))
            y += ROW
        y += GAP
    axis = []
    step = 10 ** len(str(int(end / 1000))) / 10 or 1  # ms between labels
    t = 0.0
    while t * 1000 <= end:
        x = LEFT + t * 1000 * scale
        axis.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" fill="#666">%g ms</text>'
                    % (x, TOP - 12, x, y, x + 2, TOP - 16, t))
        t += step
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, y + 10),
           '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
           '<rect width="2" height="4" fill="#999"/></pattern></defs>',
           '<rect width="100%" height="100%" fill="white"/>'] + axis + out + ["</svg>"]
    open(sys.argv[2], "w", encoding="utf-8").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
