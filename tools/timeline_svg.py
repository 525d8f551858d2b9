#!/usr/bin/env python3
"""Draw an rtrace --timeline file (trace-event JSON) as an SVG picture.

The README's picture of a timeline is made with this, because Perfetto's
UI cannot run where the project is built (no network, no browser): one row
per thread, calls as boxes from their entry to their return (nested calls
stacked below), instants as ticks, arrows from a call to the device events
it carried. It reads only what rtrace writes (M, X, i, s, f events).

Usage: tools/timeline_svg.py TIMELINE.json OUT.svg [WIDTH]
"""

import html
import json
import sys

ROW = 22      # height of one call box
LABEL = 170   # width of the track names' column
MARGIN = 10


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: timeline_svg.py TIMELINE.json OUT.svg [WIDTH]")
    width = int(sys.argv[3]) if len(sys.argv) == 4 else 1000
    with open(sys.argv[1]) as f:
        text = f.read().rstrip()
    if not text.endswith("]"):
        text += "]"  # a timeline cut short lacks only its closing bracket
    events = json.loads(text)

    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "process_name" and (e["pid"], e["tid"]) not in names:
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    slices = [e for e in events if e["ph"] == "X"]
    instants = [e for e in events if e["ph"] == "i"]
    timed = slices + instants
    if not timed:
        sys.exit("timeline_svg.py: no calls or instants in the timeline")
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + e.get("dur", 0) for e in timed)
    span = max(end - start, 1e-3)
    scale = (width - LABEL - 2 * MARGIN) / span

    def x(ts):
        return LABEL + MARGIN + (ts - start) * scale

    tracks = []
    for e in timed:
        key = (e["pid"], e["tid"])
        if key not in tracks:
            tracks.append(key)
    # Each track's depth: calls that nest (a handler's inside the call it
    # interrupted) go one row below.
    depth = {}
    rows = {}
    for key in tracks:
        open_ends = []
        deepest = 0
        for e in sorted((s for s in slices if (s["pid"], s["tid"]) == key),
                        key=lambda s: (s["ts"], -s["dur"])):
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            depth[id(e)] = len(open_ends)
            deepest = max(deepest, len(open_ends))
            open_ends.append(e["ts"] + e["dur"])
        rows[key] = deepest + 1

    top = {}
    y = MARGIN + 20
    for key in tracks:
        top[key] = y
        y += rows[key] * ROW + 8
    height = y + MARGIN

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{MARGIN}" y="{MARGIN + 10}" fill="#555">{span / 1000:.3f} ms, '
           f'{len(slices)} calls</text>']
    for i, key in enumerate(tracks):
        shade = "#f4f4f4" if i % 2 == 0 else "#ffffff"
        out.append(f'<rect x="0" y="{top[key] - 4}" width="{width}" '
                   f'height="{rows[key] * ROW + 8}" fill="{shade}"/>')
        label = names.get(key, f"{key[0]}/{key[1]}")
        out.append(f'<text x="{MARGIN}" y="{top[key] + 14}">{html.escape(label)}</text>')
    palette = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"]
    colour = {}
    for e in slices:
        key = (e["pid"], e["tid"])
        c = colour.setdefault(e["name"], palette[len(colour) % len(palette)])
        x0 = x(e["ts"])
        w = max(e["dur"] * scale, 1.0)
        y0 = top[key] + depth[id(e)] * ROW
        tip = e["args"].get("text") or e["name"]
        out.append(f'<g><title>{html.escape(str(tip))}</title>'
                   f'<rect x="{x0:.2f}" y="{y0}" width="{w:.2f}" height="{ROW - 3}" '
                   f'fill="{c}" stroke="#333" stroke-width="0.3"/>')
        if w > 7 * len(e["name"]):
            out.append(f'<text x="{x0 + 3:.2f}" y="{y0 + 13}" fill="white">'
                       f'{html.escape(e["name"])}</text>')
        out.append('</g>')
    where = {}
    for e in instants:
        key = (e["pid"], e["tid"])
        x0 = x(e["ts"])
        y0 = top[key]
        where[(e["pid"], e["ts"])] = (x0, y0 + ROW / 2)
        out.append(f'<g><title>{html.escape(e["args"].get("text", e["name"]))}</title>'
                   f'<path d="M{x0:.2f} {y0} l4 8 l-4 8 l-4 -8 z" fill="#e15759"/></g>')
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    for f in (e for e in events if e["ph"] == "f"):
        s = starts.get(f["id"])
        if s is None or (f["pid"], f["ts"]) not in where:
            continue
        x1, y1 = where[(f["pid"], f["ts"])]
        out.append(f'<line x1="{x(s["ts"]):.2f}" y1="{top[(s["pid"], s["tid"])] + ROW / 2}" '
                   f'x2="{x1:.2f}" y2="{y1}" stroke="#e15759" stroke-width="0.6" '
                   'stroke-opacity="0.6"/>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
