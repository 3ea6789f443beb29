#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/sample.sh - sampling cost, in the VM (as root, cwd = top of the
# tree): tests/sample/chain (main -> f1 -> 80 x deeper -> f2 -> f3 reading
# /dev/zero: a user stack of ~85 frames) run to completion, unmonitored
# and under
#
#   pmuctx-defer-D   pmuctx record -g -F 999 --max-stack D
#                    (deferred user callchains: one per kernel entry)
#   pmuctx-fp-D      pmuctx record --call-graph fp -F 999 --max-stack D
#                    (the user stack walked in every sample)
#   perf-fp          perf record -g -F 999 (frame pointers; perf has no
#                    per-record depth limit: kernel.perf_event_max_stack)
#
# for D = 16 and 64, configurations interleaved round by round.  For each
# run: the time of the workload's loop (chain's own CHAIN_TIME clock, so
# that neither tool's start-up nor perf's build-id pass counts; ratio to
# the unmonitored run of the same round = slowdown), the samples written,
# the bytes of the output file per sample, and samples per second.  The file holds everything a report needs
# (pmuctx: header, MAPS sections, windows; perf.data: header, MMAP/COMM
# events, build ids), so bytes per sample is what the user pays on disk.
#
#   bench/sample.sh [ROUNDS] [BLOCKS]      (defaults 5, 300)
#
# Writes "R case=sample ..." lines (bench/guest.sh's format) to
# ${PMUCTX_VM_OUT:-/tmp/bench-out}/raw-sample.txt and prints a table.
set -u

TOP=$(pwd)
CLI=$TOP/tools/pmuctx
CHAIN=$TOP/tests/sample/chain
ROUNDS=${1:-5}
BLOCKS=${2:-300}
DEPTH=80
OUT=${PMUCTX_VM_OUT:-/tmp/bench-out}
T=/tmp/bench-sample
mkdir -p "$OUT" "$T"
RAW=$OUT/raw-sample.txt
: >"$RAW"

say() { echo "bench/sample: $*" >&2; }
now_ns() { date +%s%N; }

[ -x "$CHAIN" ] || { say "$CHAIN is not built (make progs)"; exit 2; }
[ -x "$CLI" ] || { say "$CLI is not built (make tools)"; exit 2; }
have_perf=0
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -o "$T/probe.data" -- true >/dev/null 2>&1; then
	have_perf=1
fi

# run CFG: one run of the workload under CFG; prints "NS SAMPLES BYTES"
run() {
	local cfg=$1 f n bytes w="echo | CHAIN_TIME=1 '$CHAIN' $BLOCKS 0 $DEPTH >/dev/null 2>$T/time"
	rm -f "$T"/out.* "$T/time"
	case $cfg in
	base)
		sh -c "$w"
		f=''
		;;
	pmuctx-defer-*|pmuctx-fp-*)
		local d=${cfg##*-} cg=defer
		case $cfg in pmuctx-fp-*) cg=fp ;; esac
		f=$T/out.pmu
		"$CLI" record -q -g --call-graph "$cg" -F 999 --max-stack "$d" \
			-o "$f" -- sh -c "$w" || { echo "0 0 0"; return; }
		n=$("$CLI" report -i "$f" --stitch-stats 2>/dev/null |
		    sed -n 's/^ *samples: *\([0-9]*\).*/\1/p' | head -n 1)
		;;
	perf-fp)
		f=$T/out.data
		perf record -q -g -F 999 -e cpu-clock --no-buildid -o "$f" -- \
			sh -c "$w" 2>/dev/null || { echo "0 0 0"; return; }
		n=$(perf report -i "$f" --stats 2>/dev/null |
		    sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1)
		;;
	esac
	bytes=0
	[ -z "$f" ] || bytes=$(stat -c %s "$f" 2>/dev/null || echo 0)
	echo "$(sed -n 's/^chain: \([0-9]*\) ns$/\1/p' "$T/time" 2>/dev/null || echo 0) ${n:-0} $bytes"
}

cfgs="base pmuctx-defer-16 pmuctx-defer-64 pmuctx-fp-16 pmuctx-fp-64"
[ "$have_perf" = 1 ] && cfgs="$cfgs perf-fp"
say "chain $BLOCKS blocks, depth $DEPTH, $ROUNDS rounds: $cfgs"
run base >/dev/null	# warm-up: page cache, binaries
for r in $(seq 1 "$ROUNDS"); do
	for c in $cfgs; do
		read -r ns n bytes <<<"$(run "$c")"
		echo "R case=sample bench=chain cfg=$c param=$BLOCKS round=$r rep=1 value=$ns unit=ns samples=$n bytes=$bytes" >>"$RAW"
	done
done

# The table: per configuration, min over rounds of the wall time, and the
# median over rounds of slowdown (paired with the round's base run),
# bytes/sample and samples/s.
awk -v have_perf="$have_perf" '
	$1 == "R" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["cfg"]; r = v["round"]
		ns[c, r] = v["value"]; smp[c, r] = v["samples"]; by[c, r] = v["bytes"]
		if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
		if (r > nr) nr = r
	}
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		printf "| configuration | slowdown (median) | samples/run | bytes/sample | samples/s |\n"
		printf "|---|---|---|---|---|\n"
		for (k = 1; k <= nc; k++) {
			c = order[k]; m = 0
			delete sl; delete bps; delete sps; delete sn
			for (r = 1; r <= nr; r++) {
				if (!ns[c, r] || !ns["base", r]) continue
				m++
				sl[m] = ns[c, r] / ns["base", r]
				sn[m] = smp[c, r]
				bps[m] = smp[c, r] ? by[c, r] / smp[c, r] : 0
				sps[m] = smp[c, r] * 1e9 / ns[c, r]
			}
			if (!m) continue
			if (c == "base")
				printf "| %s | 1.00x | - | - | - |\n", c
			else
				printf "| %s | %.2fx | %d | %.0f | %.0f |\n", c,
					median(sl, m), median(sn, m), median(bps, m), median(sps, m)
		}
	}' "$RAW"
