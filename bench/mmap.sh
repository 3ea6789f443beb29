#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mmap.sh - what the module's MMAP records cost, in the VM (as root,
# cwd = top of the tree).  Two workloads, each recorded with
# `pmuctx record -g -F 999` with MMAP records (the default with -g) and
# without them (--records fork,exec,exit,comm), configurations interleaved
# round by round:
#
#   procs   N short processes (tests/sample/chain -5: 5 ms of CPU each,
#           one exec, a few samples): the per-process cost, a snapshot of
#           its file mappings written by the task at its first sample;
#   long    one tests/sample/chain 150 (150 reads of 4 MiB in one
#           process, a fixed amount of work): the per-sample cost, the
#           coverage check of every sample's user addresses (one snapshot
#           for the whole run).
#
# Per run: wall time of the recorded command (procs) or chain's own loop
# time (long, CHAIN_TIME), the samples, MAPS sections, file bytes.  The
# summary gives the with/without ratio per round, its mean and a 95%
# confidence interval (t distribution); TCG is noisy, read ratios only.
#
#   bench/mmap.sh [ROUNDS] [N]      (defaults 7, 100)
set -u

TOP=$(pwd)
CLI=$TOP/tools/pmuctx
CHAIN=$TOP/tests/sample/chain
ROUNDS=${1:-7}
N=${2:-100}
T=/tmp/bench-mmap
mkdir -p "$T"

[ -x "$CHAIN" ] && [ -x "$CLI" ] || { echo "bench/mmap: make all progs first" >&2; exit 2; }
$CLI info | grep -q 'mmap' || { echo "bench/mmap: the module writes no MMAP records" >&2; exit 2; }
now_ns() { date +%s%N; }

# run CONFIG WORKLOAD -> "ns samples maps bytes"
run() {
	local cfg=$1 wl=$2 rec=() t0 t1 ns out
	[ "$cfg" = without ] && rec=(--records fork,exec,exit,comm)
	rm -f "$T/r.pmu"
	if [ "$wl" = procs ]; then
		t0=$(now_ns)
		"$CLI" record -q -g -F 999 "${rec[@]}" -o "$T/r.pmu" -- \
			sh -c "i=0; while [ \$i -lt $N ]; do echo go | '$CHAIN' -5 0 >/dev/null; i=\$((i+1)); done" \
			2>/dev/null
		t1=$(now_ns)
		ns=$((t1 - t0))
	else
		out=$("$CLI" record -q -g -F 999 "${rec[@]}" -o "$T/r.pmu" -- \
			sh -c "echo go | CHAIN_TIME=1 '$CHAIN' 150 0 >/dev/null" 2>&1)
		ns=$(printf '%s\n' "$out" | sed -n 's/^chain: \([0-9]*\) ns$/\1/p')
	fi
	"$CLI" report -i "$T/r.pmu" --format json > "$T/r.json" 2>/dev/null
	smp=$("$CLI" report -i "$T/r.pmu" --stitch-stats 2>/dev/null |
		sed -n 's/^samples: *\([0-9]*\).*/\1/p')
	python3 - "$T/r.json" "$T/r.pmu" "$ns" "${smp:-0}" <<'PY'
import json, os, sys
maps = json.load(open(sys.argv[1])).get("maps") or []
print(sys.argv[3], sys.argv[4], len([m for m in maps if m["reason"] == "kernel"]),
      os.path.getsize(sys.argv[2]))
PY
}

declare -A ratios
for wl in procs long; do
	for r in $(seq "$ROUNDS"); do
		read -r a as am ab <<<"$(run with "$wl")"
		read -r b bs bm bb <<<"$(run without "$wl")"
		echo "R case=mmap wl=$wl round=$r with_ns=$a without_ns=$b with_samples=$as without_samples=$bs with_kernel_maps=$am without_kernel_maps=$bm with_bytes=$ab without_bytes=$bb"
		ratios[$wl]+="$a/$b "
	done
done

for wl in procs long; do
	python3 - "$wl" ${ratios[$wl]} <<'PY'
import math, statistics, sys
wl = sys.argv[1]
r = [eval(x) for x in sys.argv[2:]]
m = statistics.mean(r)
s = statistics.stdev(r) if len(r) > 1 else 0
t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}.get(len(r), 2.0)
h = t * s / math.sqrt(len(r)) if len(r) > 1 else 0
print(f"bench/mmap: {wl}: with/without MMAP records = {m:.3f} (95% CI {m - h:.3f} .. {m + h:.3f}, {len(r)} rounds)")
PY
done
