#!/usr/bin/env bash
# The energy / violation-rate frontier of SESP and PEMP on the 30-day SDSC
# Blue trace with 15 % and 30 % local work (the shipped LWF files, 24 h
# notice), over the waiting factors 1, 2, 5, 10 and 20. Every run's
# violation rate is measured against the one threshold of alpha = 5
# (energy.violation_alpha), so the points are comparable.
#   bash examples/pemp-frontier.sh [BORA] [OUTDIR] [POLICIES]   (BORA on PATH or absolute)
# Writes OUTDIR/l<local>-a<alpha>.json and prints the table of
# docs/experiments.md ("PEMP against SESP: the frontier"). Each line is
# one bora simulate running SESP and PEMP side by side (2 cores); about
# 3 minutes a line on a quiet 2-core machine.
set -eu
B=${1:-bora}
O=${2:-out/pemp-frontier}
P=${3:-sesp,pemp}
mkdir -p "$O"
O=$(cd "$O" && pwd)
cd "$(dirname "$0")/.."
T=testdata/traces
for local in 15 30; do
	for a in 1 2 5 10 20; do
		f=$O/l$local-a$a.json
		[ -s "$f" ] || "$B" simulate --trace $T/sdsc-blue-30days.swf \
			--inject $T/local-work_${local}-dur_3h-size_2medium.lwf --hosts 512 \
			--energy $P --waiting-factor $a --set energy.violation_alpha=5 \
			--check-invariants=false -o json >"$f.tmp" && mv "$f.tmp" "$f"
	done
done
python3 - "$O" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "l*-a*.json"))):
    local, a = os.path.basename(f)[1:-5].split("-a")
    d = json.load(open(f))
    for r in (d if isinstance(d, list) else d.get("runs", [d])):
        m = r["metrics"]
        rows[(int(local), r["options"]["energy.policy"], float(a))] = (m["energy_kwh"], m["violation_rate"])
print("| local | alpha | SESP kWh | SESP viol. % | PEMP kWh | PEMP viol. % |")
print("|---|---|---|---|---|---|")
for local in (15, 30):
    for a in (1, 2, 5, 10, 20):
        s = rows.get((local, "sesp", a)); p = rows.get((local, "pemp", a))
        if s and p:
            print(f"| {local} % | {a:g} | {s[0]:,.0f} | {s[1]:.2f} | {p[0]:,.0f} | {p[1]:.2f} |")
PY
