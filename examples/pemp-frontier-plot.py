#!/usr/bin/env python3
"""Draws the frontier of examples/pemp-frontier.sh: energy against the
violation rate (against the alpha = 5 threshold), a line per policy and
binary, a point per waiting factor, one panel per local share.

    python3 examples/pemp-frontier-plot.py OUT.svg LABEL=DIR[:POLICIES] ...

Each LABEL=DIR is the output directory of one pemp-frontier.sh run; with
:POLICIES (comma list) only those policies of it are drawn. LABEL=CSV@LOCAL
reads instead the results.csv of a bora experiment over
energy.waiting_factor (examples/experiments/ch6-pemp-frontier*.yaml: the
means over its seeds), LOCAL being its local share in %. It also prints
the table of docs/experiments.md. Plain SVG, no plotting library.
"""
import csv
import glob
import json
import os
import sys


def load_csv(path, local, policies):
    vals = {}
    for row in csv.DictReader(open(path)):
        if row["param"] != "energy.waiting_factor" or " - " in row["policy"]:
            continue  # another sweep, or the paired difference
        if policies and row["policy"].lower() not in policies:
            continue
        vals.setdefault((row["policy"].lower(), float(row["value"])), {})[row["metric"]] = float(row["mean"])
    pts = {}
    for (pol, a), m in vals.items():
        pts.setdefault((local, pol), []).append((a, m["violation_rate"], m["energy_kwh"], None))
    for v in pts.values():
        v.sort()
    return pts


def load(d, policies):
    if "@" in d:
        path, local = d.rsplit("@", 1)
        return load_csv(path, int(local), policies)
    pts = {}
    for f in sorted(glob.glob(os.path.join(d, "l*-a*.json"))):
        local, a = os.path.basename(f)[1:-5].split("-a")
        doc = json.load(open(f))
        for r in doc["runs"] if "runs" in doc else [doc]:
            pol = r["options"]["energy.policy"]
            if policies and pol not in policies:
                continue
            m = r["metrics"]
            pts.setdefault((int(local), pol), []).append((float(a), m["violation_rate"], m["energy_kwh"], r["energy"].get("idle_host_hours")))
    for v in pts.values():
        v.sort()
    return pts


def main():
    out = sys.argv[1]
    series = []
    for arg in sys.argv[2:]:
        label, spec = arg.split("=", 1)
        d, _, pols = spec.partition(":")
        for (local, pol), v in load(d, set(pols.split(",")) - {""}).items():
            series.append((local, f"{pol.upper()} {label}".strip(), v))
    series.sort()
    print("| local | line | alpha | kWh | violation % | idle h: after boot / between (held) / before off |")
    print("|---|---|---|---|---|---|")
    for local, name, v in series:
        for a, viol, kwh, idle in v:
            i = "" if not idle else f"{idle['after_boot']:,.0f} / {idle['between']:,.0f} ({idle.get('between_held', float('nan')):,.0f}) / {idle['before_off']:,.0f}"
            print(f"| {local} % | {name} | {a:g} | {kwh:,.0f} | {viol:.2f} | {i} |")
    # For every SESP point: each other line's least energy at a violation
    # rate no higher (its frontier there), and how far below SESP it is.
    print()
    print("| local | SESP alpha | SESP violation % | SESP kWh | line | least kWh at <= that rate | vs SESP |")
    print("|---|---|---|---|---|---|---|")
    for local, name, v in series:
        if not name.startswith("SESP"):
            continue
        for a, viol, kwh, _ in v:
            for local2, name2, v2 in series:
                if local2 != local or name2.startswith("SESP"):
                    continue
                best = min((p[2] for p in v2 if p[1] <= viol), default=None)
                if best is not None:
                    print(f"| {local} % | {a:g} | {viol:.2f} | {kwh:,.0f} | {name2} | {best:,.0f} | {100 * (best / kwh - 1):+.1f} % |")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    W, H, P = 420, 320, 55
    locals_ = sorted({s[0] for s in series})
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * len(locals_)}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W * len(locals_)}" height="{H}" fill="white"/>']
    names = sorted({s[1] for s in series})
    for k, local in enumerate(locals_):
        ss = [s for s in series if s[0] == local]
        xs = [p[1] for s in ss for p in s[2]]
        ys = [p[2] for s in ss for p in s[2]]
        x0, x1 = 0, max(xs) * 1.05 or 1
        y0, y1 = min(ys) * 0.98, max(ys) * 1.02
        X = lambda x: k * W + P + (x - x0) / (x1 - x0) * (W - P - 15)
        Y = lambda y: H - P + 10 - (y - y0) / (y1 - y0) * (H - P - 30)
        svg.append(f'<text x="{k * W + W / 2}" y="14" text-anchor="middle">{local} % local: energy against violation rate (alpha = 5 threshold)</text>')
        svg.append(f'<line x1="{X(x0)}" y1="{Y(y0)}" x2="{X(x1)}" y2="{Y(y0)}" stroke="black"/><line x1="{X(x0)}" y1="{Y(y0)}" x2="{X(x0)}" y2="{Y(y1)}" stroke="black"/>')
        for i in range(5):
            xv, yv = x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * i / 4
            svg.append(f'<text x="{X(xv)}" y="{Y(y0) + 14}" text-anchor="middle">{xv:.1f}</text>')
            svg.append(f'<text x="{X(x0) - 4}" y="{Y(yv) + 4}" text-anchor="end">{yv:,.0f}</text>')
        svg.append(f'<text x="{X((x0 + x1) / 2)}" y="{H - 12}" text-anchor="middle">violation rate (%)</text>')
        svg.append(f'<text x="{k * W + 12}" y="{Y((y0 + y1) / 2)}" transform="rotate(-90 {k * W + 12} {Y((y0 + y1) / 2)})" text-anchor="middle">energy (kWh)</text>')
        for local_, name, v in ss:
            c = colours[names.index(name) % len(colours)]
            pts = " ".join(f"{X(p[1]):.1f},{Y(p[2]):.1f}" for p in v)
            svg.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.5"/>')
            for p in v:
                svg.append(f'<circle cx="{X(p[1]):.1f}" cy="{Y(p[2]):.1f}" r="3" fill="{c}"/><text x="{X(p[1]) + 4:.1f}" y="{Y(p[2]) - 4:.1f}" fill="{c}">{p[0]:g}</text>')
        for i, name in enumerate(names):
            c = colours[i % len(colours)]
            svg.append(f'<text x="{k * W + W - 150}" y="{34 + 14 * i}" fill="{c}">— {name}</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


main()
