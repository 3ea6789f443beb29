#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/arm64-pmu.sh - what a hardware-counter session adds to a context
# switch, against perf, on the arm64 tier's emulated PMUv3 (issue 31
# item 4; docs/PERFORMANCE.md section 18).  Host side:
#
#   bench/arm64-pmu.sh [KVER] [ROUNDS]     (defaults 6.12, 3)
#   bench/arm64-pmu.sh --table FILE        (the table of a saved run)
#
# Cross-builds bench/ for arm64 in ARM64_DIR (make userland-arm64 and the
# module first: make check-arm64 or make module-arm64 userland-arm64),
# then boots the arm64 guest with one vCPU under -icount shift=0 (guest
# time counts guest instructions: 1 ns = 1 instruction, whatever the
# host's load) and runs bench/switch-ab.sh there: bench/pingpong (two
# threads of one process, futex ping-pong on CPU 0), 8 windows of 2000
# round trips a run, every configuration interleaved round by round:
#
#   idle      no session
#   hw        pmuctx stat -e cycles,instructions   (inherited)
#   hwni      pmuctx stat --no-inherit -e cycles,instructions
#   perfhw    perf stat -e cycles,instructions      (inherited)
#   perfhwni  perf stat --no-inherit -e cycles,instructions
#   smp       pmuctx record -q -F 1000 --sample-event cycles (no callchains)
#   perfsmp   perf record -q -F 1000 -e cycles      (no callchains)
#
# Prints the raw lines and a table: for each configuration the median of
# its rounds' instructions per switch, and what it adds to idle: the
# median over the rounds of its round's value less idle's in the same
# round (rounds drift by up to 100 instructions; within one they do not).  Environment: ARM64_DIR
# (default build-arm64), CFGS (the configurations), PMUCTX_VM_TIMEOUT.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cfgs=${CFGS:-idle hw hwni perfhw perfhwni smp perfsmp}

table() {
	awk -v cfgs="$cfgs" '
	$1 == "R" { v[$4] = v[$4] " " $5; r[$2, $4] = $5; if ($2 > nr) nr = $2 }
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)]
	}
	END {
		n = split(cfgs, c, " ")
		printf "%-10s %12s %10s  %s\n", "config", "per switch", "added", "rounds (added)"
		for (i = 1; i <= n; i++) {
			d = ""
			for (k = 1; k <= nr; k++)
				if ((k, c[i]) in r && (k, "idle") in r)
					d = d " " sprintf("%.0f", r[k, c[i]] - r[k, "idle"])
			printf "%-10s %12.0f %+10.0f  %s\n", c[i], med(v[c[i]]), med(d), d
		}
	}' "$1"
}
if [ "${1:-}" = --table ]; then
	table "${2:?--table FILE}"
	exit 0
fi
kver=${1:-6.12}
rounds=${2:-3}
dir=${ARM64_DIR:-$top/build-arm64}

die() { echo "arm64-pmu: $*" >&2; exit 1; }

rel=$("$top/scripts/kernels-arm64" resolve "$kver")
ko=build-$rel/module/pmuctx.ko
[ -f "$dir/$ko" ] || die "no $dir/$ko: make module-arm64 ARM64_KVER=$kver"
[ -x "$dir/tools/pmuctx" ] || die "no $dir/tools/pmuctx: make userland-arm64"
"$top/scripts/kernels-arm64" tools >/dev/null
# the sources only (the tree's bench/ may hold x86-64 builds)
(cd "$top" && git ls-files -z bench) | rsync -a --from0 --files-from=- "$top/" "$dir/"
make -s -B -C "$dir/bench" CC=aarch64-linux-gnu-gcc pingpong >/dev/null
file -b "$dir/bench/pingpong" | grep -q aarch64 || die "$dir/bench/pingpong is not aarch64"

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
(cd "$dir" && "$top/tests/vm/run" --arch arm64 --kernel "$rel" --smp 1 \
	--icount 0 --no-module --timeout "${PMUCTX_VM_TIMEOUT:-3600}" \
	--env "ROUNDS=$rounds" --env "CFGS=$cfgs" -- \
	bench/switch-ab.sh "$ko") | tee "$raw"
grep -q '^R ' "$raw" || die "no results from the guest"

echo
echo "arm64 $rel, 1 vCPU, -icount shift=0: instructions per switch (median of the rounds' medians)"
table "$raw"
