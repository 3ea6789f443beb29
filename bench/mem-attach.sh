#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mem-attach.sh - kernel memory per monitored task, measured by
# attaching to threads that already exist (bench/notes/9-memory.md).
#
# usage (host): tests/vm/run --mem 4096 --timeout 1800 -- bench/mem-attach.sh [N] [ROUNDS]
#
# make bench's memory case creates N threads under the monitor and
# subtracts an unmonitored run, so the thread creation's own slab noise
# (about 11 KB of unreclaimable slab per thread) enters the difference.
# Here N sleeping threads (bench/churn -H) are created first; SUnreclaim is
# read (after shrinking the slabs) before and while `pmuctx stat -p PID`
# (or `perf stat -p PID` with the same 4 events) is attached, and after it
# detached.  One R line per round and monitor: bytes per thread while
# attached and after detaching, and pmuctx info's store_bytes.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd -P)
CLI=$TOP/tools/pmuctx
N=${1:-10000} ROUNDS=${2:-5}
EVENTS=task-clock,context-switches,cpu-migrations,page-faults
T=$(mktemp -d)
sysctl -qw kernel.pid_max=4194304 kernel.threads-max=1000000 vm.max_map_count=1000000
ulimit -u unlimited 2>/dev/null || true
ulimit -n 1048576 2>/dev/null || true	# perf -p: 4 fds per thread
"$TOP/tests/progs/pin_keys" >/dev/null || echo "pin_keys failed: the run may hang"

shrink() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f" 2>/dev/null; done
	sleep 0.5
}
sunr() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }
store() { "$CLI" info --json | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d.get("store", d); print(s["tasks_tracked"], s["store_bytes"], s.get("pool_entries", 0))'; }

for r in $(seq "$ROUNDS"); do
	for mon in pmuctx perf; do
		: >"$T/hold"
		"$TOP/bench/churn" -H "$N" -s 900 >"$T/hold" 2>/dev/null &
		bg=$!
		for _ in $(seq 3000); do
			grep -q '^ready' "$T/hold" && break
			sleep 0.1
		done
		pid=$(sed -n 's/^ready.* pid=\([0-9]*\).*/\1/p' "$T/hold")
		[ -n "$pid" ] || { echo "F round=$r mon=$mon hold_not_ready"; kill "$bg"; wait; continue; }
		sleep 1
		shrink
		m1=$(sunr)
		if [ "$mon" = pmuctx ]; then
			"$CLI" stat -p "$pid" -o "$T/stat" &
		else
			perf stat -e "$EVENTS" -p "$pid" -o "$T/stat" &
		fi
		mp=$!
		# attached when every thread is tracked (pmuctx), or after a pause
		for i in $(seq 600); do
			sleep 0.5
			[ "$mon" = perf ] && [ "$i" -ge 20 ] && break
			[ "$mon" = pmuctx ] && [ "$(store | cut -d' ' -f1)" -ge "$N" ] && break
		done
		st=$(store)
		shrink
		m2=$(sunr)
		kill -INT "$mp"; wait "$mp"
		shrink
		m3=$(sunr)
		kill -TERM "$pid" 2>/dev/null; wait "$bg" 2>/dev/null
		awk -v r="$r" -v mon="$mon" -v n="$N" -v m1="$m1" -v m2="$m2" -v m3="$m3" -v st="$st" 'BEGIN {
			split(st, s, " ")
			printf "R round=%d mon=%s n=%d attached_B_per_task=%.1f after_detach_B_per_task=%.1f tasks_tracked=%d store_bytes=%d pool=%d\n",
				r, mon, n, (m2 - m1) * 1024 / n, (m3 - m1) * 1024 / n, s[1], s[2], s[3] }'
	done
done
rm -rf "$T"
echo DONE
