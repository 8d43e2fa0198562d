#!/usr/bin/env bash
# The nine bora simulate runs that refactors must leave byte-identical.
#   bash .ci/simruns.sh BORA_BINARY OUTDIR
# Writes OUTDIR/<run>.json (the report without wall_s). Compare two
# binaries' directories with: for f in A/*.json; do cmp -s $f B/${f##*/} || echo DIFF $f; done
# (about 3 minutes on this 2-core machine). Not run by CI.
set -u
B=$1
O=$2
mkdir -p "$O"
cd "$(dirname "$0")/.."
T=testdata/traces
S=$T/sdsc-blue-30days.swf
run() {
	name=$1
	shift
	"$B" simulate "$@" -o json 2>"$O/$name.err" | grep -v '"wall_s"' >"$O/$name.json"
	echo "$name rc=${PIPESTATUS[0]}"
}
run r1-default --trace $S --inject $T/local-work_15-dur_3h-size_2medium.lwf --hosts 512
run r2-aggr --trace $S --inject $T/local-work_15-dur_3h-size_2medium.lwf --hosts 512 --backfilling aggressive
run r3-30pct --trace $S --inject $T/local-work_30-dur_3h-size_2medium.lwf --hosts 512 --policy MOV
run r4-large --trace $S --inject $T/local-work_15-dur_3h-size_3large.lwf --hosts 512 --policy MLIP --backfilling none
run r5-scen --trace testdata/scenarios/preempt.yaml --policy NOP,MOV,MLIP,MOML
run r6-144 --trace $S --inject $T/local-work_15-dur_1h-size_1small.lwf --hosts 144
run r7-sesp --trace $S --inject $T/local-work_15-dur_3h-size_2medium.lwf --hosts 512 --energy sesp
run r8-pemp --trace $S --inject $T/local-work_30-dur_3h-size_2medium.lwf --hosts 512 --energy pemp
run r9-sesp-wf --trace $S --inject $T/local-work_05-dur_3h-size_2medium.lwf --hosts 512 --energy always-on,sesp --waiting-factor 1
